// kubectl tfjob explain JOB: why the job is where it is, by the training operator v1.9's
// rules, from its spec, status, pods and events (include/tfjob/workflow/explain.hpp);
// -o json gives the same findings as data (code, severity, replica, message, evidence, fix);
// -f explains a saved state instead (an archive directory, or objects saved as YAML/JSON).
#include "commands.hpp"
#include "../common/context.hpp"
#include "../common/flag_values.hpp"
#include "../common/job_flags.hpp"
#include "../common/manifests.hpp"
#include "../common/output.hpp"

#include <tfjob/api/manifest.hpp>
#include <tfjob/workflow/archive.hpp>
#include <tfjob/workflow/cluster.hpp>
#include <tfjob/workflow/explain.hpp>

#include <filesystem>

#include <iostream>
#include <memory>
#include <string>

namespace tfjob::cli {
namespace {

struct ExplainCommand {
  std::string name;
  std::string output;
  std::string file;  ///< -f: a saved state instead of the cluster
  std::string validation = "strict";  ///< --validate: how the saved TFJob is judged by the schema
  int tail = 10;

  void validate() {
    fmt = parse_output_format(output, {"json", "yaml"});
    if (name.empty() && file.empty()) throw flag::usage("NAME", "no TFJob named", "name the TFJob to explain, or give -f with a saved state");
  }
  int run(Context& ctx) const;

 private:
  /// The saved state -f names: an archive directory (manifest.json and tfjob.yaml), else
  /// objects as YAML/JSON (a file, a directory of them, or - for stdin), read as a stream.
  std::optional<workflow::ExplainInput> saved(Context& ctx) const;
  OutputFormat fmt = OutputFormat::table;
};

std::optional<workflow::ExplainInput> ExplainCommand::saved(Context& ctx) const {
  std::error_code ec;
  const auto mode = validation_mode(validation);
  if (std::filesystem::is_regular_file(file + "/manifest.json", ec)) {
    auto in = workflow::read_archive(file, tail);
    judge_tfjobs(ctx, {nlohmann::json(in.job)}, file + "/tfjob.yaml", mode);  // the job as saved: it round-trips
    if (!name.empty() && in.job.metadata.name != name)
      throw error("the archive \"" + file + "\" is of TFJob \"" + in.job.metadata.name + "\", not \"" + name + "\"");
    return in;
  }
  // an object at a time (a List's items one by one): only what explain reads of the job is kept
  workflow::SavedState state(name);
  TFJobJudge judge(ctx, mode);
  for_each_object(file, [&](const std::string& source, nlohmann::json&& o, std::size_t i) {
    judge.add(o, document_place(source, i, i > 0 ? 2 : 1, o));
    state.add(o);
  });
  judge.done();
  auto in = state.finish();
  if (!in) throw error(name.empty() ? "\"" + file + "\" holds no TFJob to explain"
                                    : "\"" + file + "\" holds no TFJob named \"" + name + "\"");
  return in;
}

int ExplainCommand::run(Context& ctx) const {
  std::optional<workflow::ExplainInput> in;
  if (!file.empty()) in = read_input([&] { return saved(ctx); });
  else {
    auto& client = ctx.tfjobs();
    in = workflow::gather(client, client.namespace_(), name, tail);
    if (!in) return say_not_found(ctx, name);
  }
  auto x = workflow::explain(*in);
  word_fixes(x.findings);
  if (fmt == OutputFormat::json) ctx.out << workflow::to_json_value(x).dump(2) << "\n";
  else if (fmt == OutputFormat::yaml) ctx.out << to_yaml(workflow::to_json_value(x));
  else ctx.out << workflow::render(x);
  return exit_code::ok;
}

}  // namespace

void setup_explain(CLI::App& app, Globals& g) {
  auto o = std::make_shared<ExplainCommand>();
  auto* sub = app.add_subcommand("explain", "Explain why a TFJob is where it is, by the training operator's own rules");
  flag::text(*sub, "name", o->name, "TFJob name (optional with -f when one job is saved)", "NAME");
  flag::file(*sub, "-f,--filename", o->file,
             "Explain a saved state, not the cluster's: a directory that archive wrote, or the job's objects "
             "as YAML/JSON (a file, a directory, - for stdin)",
             flag::Content::text, true, true);
  add_validate_flag(*sub, o->validation);
  flag::choice(*sub, "-o,--output", o->output, "Output format: json or yaml (default: sentences)", {"json", "yaml"});
  flag::count(*sub, "--tail", o->tail, "Log lines of each failed pod to quote (0: none)", 0, std::numeric_limits<std::int32_t>::max(), "LINES")
      ->capture_default_str();
  sub->footer(R"(Examples:
  kubectl tfjob explain mnist
  kubectl tfjob explain mnist -o json | jq '.findings[] | select(.severity != "info")'
  kubectl tfjob archive mnist -o mnist-report && kubectl tfjob explain -f mnist-report
  kubectl get tfjobs,pods,events -o yaml > state.yaml && kubectl tfjob explain mnist -f state.yaml

Says, applying the training operator v1.9's rules to the job's spec, status, pods and
events: what decides success (the Chief or Master, else Worker 0, or every Worker with
successPolicy AllWorkers) and what the job still waits for; which replicas keep running
and whether that is normal (PS and Evaluator never exit on their own); each restart and
failure with its exit code, whether the restart policy retries it (ExitCode: 128 and
above retry, 1-127 fail), backoffLimit used and activeDeadlineSeconds left; why each
Pending pod waits (GPUs, node selector or taints with the closest nodes, an unbound
claim, the image, quota, a gang scheduler, Kueue); for a Failed job, which replica failed
first with its termination message and last log lines. A job whose pods are gone is
explained from its status and events, saying what can no longer be known. With -f the
state comes from a file, read at the time it was saved (an archive's collection time), and
no cluster is asked: a job deleted since is explained from its archive, logs included.
Finding codes and the JSON form: docs/explain.md.

Exit codes: 0 explained, 1 the job was not found or a request failed, 64 usage error.)");
  set_action(*sub, g, o);
}

}  // namespace tfjob::cli
