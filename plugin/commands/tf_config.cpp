// kubectl tfjob tf-config: the TF_CONFIG the training operator injects into each replica of
// a job (same inputs as submit), byte-identical to the operator's; null where it injects
// none (a job with one replica in total).
#include "commands.hpp"
#include "../common/context.hpp"
#include "../common/flag_values.hpp"
#include "../common/job_flags.hpp"
#include "../common/manifests.hpp"
#include "../common/output.hpp"

#include <tfjob/api/tf_config.hpp>
#include <tfjob/error.hpp>

#include <exception>
#include <memory>
#include <string>

namespace tfjob::cli {
namespace {

struct TFConfigCommand {
  JobFlags job;
  std::string output;          ///< "" (table) | json | wide
  std::string cluster_domain;  ///< the operator's CUSTOM_CLUSTER_DOMAIN

  void validate() {
    fmt = parse_output_format(output, {"json", "wide"});
    // a pure command: no request, so no client (-n is the namespace, as a dry run reads it);
    // the job is built here, so what cannot be built is refused as a usage error
    JobFlags flags = job;
    flags.after_dashes = globals->args_after_dashes;
    if (!flags.files.empty() && !flags.first_word.empty() && flags.rest_words.empty() && flags.sample.empty()) {
      name = flags.first_word;  // with -f, one word names the job to show
      flags.first_word.clear();
      flags.first_option = nullptr;  // taken: no word is left
    }
    files = flags.files;
    try {
      jobs = build_jobs(flags, namespace_from_flags(*globals), &warnings);
    } catch (const tfjob::error&) {
      if (warnings.empty()) throw;
      failed = std::current_exception();  // --validate=warn: run says the warnings, then this
    }
  }
  int run(Context& ctx);

 private:
  OutputFormat fmt = OutputFormat::table;
  std::vector<TFJob> jobs;
  std::string name;                   ///< tf-config NAME -f FILE: the job to show
  std::vector<std::string> files;     ///< -f, for pick_job's messages
  std::vector<field_error> warnings;  ///< --validate=warn: what the schema found
  std::exception_ptr failed;          ///< building failed after warnings: run says both

 public:
  const Globals* globals = nullptr;
};

/// The job tf-config shows: the only one, or with `tf-config NAME -f FILE` the one named
/// NAME (as `explain NAME -f FILE` picks one).
TFJob pick_job(std::vector<TFJob> jobs, const std::string& name, const std::vector<std::string>& files) {
  std::string names;
  for (const auto& j : jobs) names += (names.empty() ? "" : ", ") + j.metadata.name;
  std::string input;
  for (const auto& f : files) input += (input.empty() ? "" : ", ") + ("\"" + f + "\"");
  if (!name.empty()) {
    for (auto& j : jobs)
      if (j.metadata.name == name) return std::move(j);
    throw error(input + " holds no TFJob named \"" + name + "\" (it holds " + names + ")");
  }
  if (jobs.size() != 1)  // the input needs a NAME to be used: refused as an input (exit 64)
    throw input_error("tf-config shows one TFJob at a time; the input holds " + std::to_string(jobs.size()) + " (" + names +
                "): name one, e.g. kubectl tfjob tf-config " + jobs.front().metadata.name + " -f FILE");
  return std::move(jobs.front());
}

int TFConfigCommand::run(Context& ctx) {
  if (failed) return refuse_after_warnings(ctx, warnings, failed);
  say_schema_warnings(ctx, warnings);
  TFJob j = pick_job(std::move(jobs), name, files);
  // Hosts need a namespace: the operator uses the job's; a job without one lands in
  // "default" (or the context's namespace, which a dry run does not read).
  if (j.metadata.namespace_.empty()) j.metadata.namespace_ = "default";
  TFConfigOptions opts;
  opts.cluster_domain = cluster_domain;
  const auto all = gen_all_tf_configs(j, opts);

  if (fmt == OutputFormat::json) {
    nlohmann::json m = nlohmann::json::object();
    for (const auto& r : all) {
      m[r.id()] = r.tf_config ? nlohmann::json(*r.tf_config) : nlohmann::json(nullptr);
    }
    ctx.out << m.dump(2) << "\n";
    return exit_code::ok;
  }
  Table t(fmt == OutputFormat::wide ? std::vector<std::string>{"REPLICA", "POD", "ADDRESS", "TF_CONFIG"}
                                    : std::vector<std::string>{"REPLICA", "TF_CONFIG"});
  const auto cluster = gen_cluster_spec(j, opts);
  for (const auto& r : all) {
    const std::string key = r.id();
    std::string cfg = r.tf_config.value_or("<none: single-replica job>");
    if (fmt == OutputFormat::wide) {
      std::string addr = cluster.at(to_lower(r.type)).at(static_cast<std::size_t>(r.index));
      t.add_row({key, r.name, addr, cfg});
    } else {
      t.add_row({key, cfg});
    }
  }
  t.print(ctx.out);
  return exit_code::ok;
}

}  // namespace

void setup_tf_config(CLI::App& app, Globals& g) {
  auto o = std::make_shared<TFConfigCommand>();
  o->globals = &g;
  auto* sub = app.add_subcommand("tf-config", "Show the TF_CONFIG the operator injects into each replica");
  add_job_flags(*sub, o->job);
  flag::choice(*sub, "-o,--output", o->output, "Output format: json (replica -> exact TF_CONFIG or null) or wide", {"json", "wide"})
      ->group("Output");
  flag::text(*sub, "--cluster-domain", o->cluster_domain,
             "The operator's CUSTOM_CLUSTER_DOMAIN, e.g. cluster.local (hosts become <pod>.<ns>.svc.<domain>)", "DOMAIN")
      ->group("Output");
  sub->footer(R"(Examples:
  # TF_CONFIG of every replica of the MNIST sample
  kubectl tfjob tf-config mnist

  # Exact strings as JSON: {"chief-0": "{\"cluster\":...}", "worker-0": ..., ...}
  kubectl tfjob tf-config -f tfjob.yaml -n team-a -o json

  # One job of a file that holds several (as explain NAME -f FILE picks one)
  kubectl tfjob tf-config mnist -f jobs.yaml

  # As an operator started with CUSTOM_CLUSTER_DOMAIN=cluster.local writes them
  kubectl tfjob tf-config --name demo --image tensorflow/tensorflow --workers 2 --ps 1 \
      --cluster-domain cluster.local

Exit codes: 0 ok; 64 an invalid job or input, or bad usage (every problem on stderr).)");
  set_action(*sub, g, o);
}

}  // namespace tfjob::cli
