// kubectl tfjob submit: build a TFJob from flags, a manifest or a built-in sample, apply
// the operator's defaults and validation, then print it (--dry-run=client) or send it.
//
// Flow: setup_submit (flags) -> run_submit: build_jobs() [complete + validate] -> one of
//   --dry-run=client  print_jobs()         (here; -f: read once and judged in validate, each job
//                                          kept in a spool file, then printed a document at a time
//                                          from there, as kubectl does)
//   (cluster path)    submit_to_cluster()  server-side apply (several jobs: a bounded number at
//                                          once, submit_cluster.hpp; -f: the jobs of the spool),
//                                          --wait/--follow, --dry-run=server
//   (local path)      --local              runs the replicas as local processes
// Each path is one function; the dispatch in run_submit stays a few lines.
#include "commands.hpp"
#include "../common/context.hpp"
#include "../common/flag_values.hpp"
#include "../common/job_flags.hpp"
#include "../common/job_spool.hpp"
#include "../common/manifests.hpp"
#include "../common/output.hpp"
#include "../common/local_flags.hpp"
#include "../common/samples.hpp"
#include "../common/submit_cluster.hpp"

#include <tfjob/api/lint.hpp>
#include <tfjob/api/types.hpp>
#include <tfjob/error.hpp>

#include <exception>
#include <iostream>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace tfjob::cli {
namespace {

struct SubmitOptions {
  JobFlags job;
  std::string dry_run = "none";  ///< none | client | server
  std::string output;            ///< -o json|yaml|name ("" = a one-line summary)
  bool list_samples = false;
  SubmitClusterFlags cluster;  ///< the cluster path's flags (submit_cluster.hpp)
  LocalFlags local;            ///< --local and its flags (local_flags.hpp)
};

/// submit: complete (build the jobs from flags, files or a sample) and validate before any
/// request, then one of the three paths.
struct SubmitCommand : SubmitOptions {
  const Globals* globals = nullptr;  ///< the namespace of built jobs (from the flags), the local path

  /// Flags the way of submitting asked for never reads (--help: "With --local", "With
  /// --follow", ...) are refused, never ignored.
  void check_flag_scope() const;
  const CLI::App* sub = nullptr;  ///< its command, to tell which flags were given
  void validate();
  int run(Context& ctx);
  int print_streamed(Context& ctx);
  int submit_streamed(Context& ctx);

 private:
  OutputFormat fmt = OutputFormat::table;
  std::vector<TFJob> jobs;
  /// -f (not --local): the manifests are read once, a document at a time, never held whole:
  /// validate() judges every job and keeps each, as it will be printed or sent, in `spool` (an
  /// unlinked temporary file: nothing is printed or sent when one is wrong); run() prints each
  /// (--dry-run=client) or sends each from there
  bool streamed = false;
  std::size_t job_count = 0;
  std::unique_ptr<JobSpool> spool;
  std::vector<field_error> schema_warnings;  ///< --validate=warn: what the schema found, said in run
  std::exception_ptr failed;                 ///< building the jobs failed after schema warnings: run says both
  std::chrono::milliseconds timeout_ms{0};
  std::string dry_run_warning;  ///< kubectl's words for a deprecated --dry-run form
};

/// The TFJobs as JSON objects, as they would be sent.
std::vector<nlohmann::json> to_objects(const std::vector<TFJob>& jobs) {
  std::vector<nlohmann::json> objs;
  for (const auto& j : jobs) objs.push_back(j);
  return objs;
}

/// --dry-run=client: print what would be sent; nothing is contacted.
int print_jobs(std::ostream& out, const std::vector<TFJob>& jobs, OutputFormat fmt) {
  if (fmt == OutputFormat::table) {
    for (const auto& j : jobs) out << object_name(nlohmann::json(j)) << " created (dry run)\n";
    return exit_code::ok;
  }
  print_objects(out, to_objects(jobs), fmt);
  return exit_code::ok;
}

/// Sending to the cluster: preflight, PVCs, server-side apply, --wait/--follow,
/// --dry-run=server (plugin/common/submit_cluster.hpp, logic in include/tfjob/workflow/).
int submit_to_cluster(Context& ctx, const std::vector<TFJob>& jobs, SubmitOptions& o, OutputFormat fmt,
                      std::chrono::milliseconds timeout) {
  // the positionals are parsed into first_word/rest_words (job_flags.hpp): ask it, as
  // build_jobs does, rather than reading `words`
  const std::string sample = sample_name(o.job);
  if (!sample.empty()) o.cluster.create_pvcs = true;  // a sample's claim is created when absent
  // the sample's trainer files, in the ConfigMap its pods mount (not with --image)
  if (const Sample* s = sample.empty() ? nullptr : find_sample(sample); s && o.job.image.empty() && s->files.mount_path)
    for (const auto& j : jobs) o.cluster.owned[j.metadata.name].push_back(sample_configmap(*s, j.metadata.name, j.metadata.namespace_));
  const auto objs = to_objects(jobs);
  return submit_to_cluster_path(ctx, objs.size(), [&](std::size_t i) { return objs[i]; }, o.cluster, o.dry_run == "server",
                                fmt, timeout);
}

int list_samples(std::ostream& out) {
  Table t({"NAME", "DESCRIPTION"});
  for (const auto& s : samples_sorted()) t.add_row({s.name, s.description});
  t.print(out);
  return exit_code::ok;
}

void SubmitCommand::validate() {
  if (list_samples) return;
  check_flag_scope();
  job.after_dashes = globals->args_after_dashes;
  fmt = parse_output_format(output, {"json", "yaml", "name"});
  dry_run = flag::dry_run_strategy(dry_run, &dry_run_warning);
  streamed = !local.enabled && !job.files.empty();
  try {
    if (streamed) {
      spool = std::make_unique<JobSpool>();
      job_count = for_each_job(job, namespace_from_flags(*globals), &schema_warnings,
                               [&](TFJob& j) { spool->add(nlohmann::json(j)); });
      spool->finish();
    } else {
      jobs = build_jobs(job, namespace_from_flags(*globals), &schema_warnings);
    }
  } catch (const tfjob::error&) {
    spool.reset();  // what was kept of the good jobs goes now
    // --validate=warn: what the schema found is said before the error (run says both)
    if (schema_warnings.empty()) throw;
    failed = std::current_exception();
    return;
  }
  // the server judges too, as --validate says (kubectl sends fieldValidation to match)
  cluster.field_validation = to_query_value(validation_mode(job.validate));
  if (dry_run != "client" && !local.enabled)
    timeout_ms = check_submit_cluster_flags(cluster, streamed ? job_count : jobs.size(), dry_run == "server");
}

void SubmitCommand::check_flag_scope() const {
  if (!local.enabled) {
    flag::refuse_given(*sub, {"--all", "--volume", "--state-dir"}, "without --local", "add --local, or leave it out");
  } else {
    flag::refuse_given(*sub, {"--replace", "--rerun", "--wait", "--follow", "--save", "--timeout", "--pvc-size", "--storage-class",
                              "--pvc-access-mode", "--skip-gpu-check", "--suspend", "--local-queue", "--managed-by"},
                       "with --local, which runs the job on this machine", "leave out one of them");
    if (dry_run == "server") throw flag::usage("--dry-run", "\"server\" asks a cluster, and --local runs on this machine", "leave out one of them");
    if (dry_run != "client") flag::refuse_given(*sub, {"--output"}, "with --local, which prints the replicas' output", "leave out one of them");
  }
  if (dry_run == "client") flag::refuse_given(*sub, {"--wait", "--follow"}, "with --dry-run=client, which creates nothing", "leave out one of them");
  if (!cluster.follow) flag::refuse_given(*sub, {"--save"}, "without --follow", "add --follow, or leave it out");
  if (!cluster.wait && !cluster.follow) flag::refuse_given(*sub, {"--timeout"}, "without --wait or --follow", "add --wait, or leave it out");
}

int SubmitCommand::run(Context& ctx) {
  auto& o = *this;
  if (o.list_samples) return cli::list_samples(ctx.out);
  if (!dry_run_warning.empty()) ctx.err << "warning: " << dry_run_warning << "\n";
  if (failed) return refuse_after_warnings(ctx, schema_warnings, failed);
  say_schema_warnings(ctx, schema_warnings);
  if (streamed && !spool->warning().empty()) ctx.err << "warning: " << spool->warning() << "\n";
  if (streamed) return dry_run == "client" ? print_streamed(ctx) : submit_streamed(ctx);
  if (o.dry_run == "client" || o.local.enabled) {
    // no cluster to ask: the rules that need one run in the cluster path's preflight
    std::vector<tfjob::Finding> findings;
    std::set<std::string> noted;
    for (const auto& j : to_objects(jobs)) {
      auto fs = lint::lint(j);
      word_fixes(fs);
      // several jobs: each warning names its job
      print_warnings(fs, noted, ctx.err, jobs.size() > 1 ? "TFJob " + metadata_of(j).name : std::string());
      for (auto& f : fs) findings.push_back(std::move(f));
    }
    if (o.cluster.strict) refuse_on_warnings(findings);
  }
  if (o.dry_run == "client") return print_jobs(ctx.out, jobs, fmt);
  if (o.local.enabled) return run_local(jobs, o.local, ctx);
  return submit_to_cluster(ctx, jobs, o, fmt, timeout_ms);
}

/// --dry-run=client -f, a job at a time from the spool: lint's warnings on stderr and the job
/// on stdout (kubectl's printers write each object of `create -f` as it is visited), the bytes
/// print_jobs() writes for all of them. --strict: the warnings of every job are said and any
/// refuses, before anything is printed.
int SubmitCommand::print_streamed(Context& ctx) {
  const bool many = job_count > 1;
  auto lint_job = [&](const nlohmann::json& obj, std::set<std::string>& noted, std::vector<tfjob::Finding>* keep) {
    auto fs = lint::lint(obj);
    word_fixes(fs);
    // several jobs: each warning names its job
    print_warnings(fs, noted, ctx.err, many ? "TFJob " + metadata_of(obj).name : std::string());
    if (keep)
      for (auto& f : fs) keep->push_back(std::move(f));
  };
  if (cluster.strict) {
    std::vector<tfjob::Finding> findings;
    std::set<std::string> noted;
    for (std::size_t i = 0; i < job_count; ++i) lint_job(spool->at(i), noted, &findings);
    refuse_on_warnings(findings);
  }
  std::set<std::string> noted;
  std::optional<ObjectPrinter> printer;  // as print_objects writes them all
  if (fmt != OutputFormat::table) printer.emplace(ctx.out, fmt, many);
  for (std::size_t i = 0; i < job_count; ++i) {
    const nlohmann::json obj = spool->at(i);
    if (!cluster.strict) lint_job(obj, noted, nullptr);
    if (printer) printer->add(obj);
    else ctx.out << object_name(obj) << " created (dry run)\n";
  }
  if (printer) printer->finish();
  return exit_code::ok;
}

/// The cluster path of -f: validate() judged every job and kept each in the spool; the workers
/// that send them take each from there, so that a submit of many jobs holds the jobs in flight,
/// not the files, and sends what was judged (the files are not read again). --strict is judged
/// by the cluster path's own lint, per job, as without -f.
int SubmitCommand::submit_streamed(Context& ctx) {
  const JobSpool& jobs_read = *spool;
  return submit_to_cluster_path(ctx, job_count, [&](std::size_t i) { return jobs_read.at(i); }, cluster,
                                dry_run == "server", fmt, timeout_ms);
}

}  // namespace

void setup_submit(CLI::App& app, Globals& g) {
  auto o = std::make_shared<SubmitCommand>();
  o->globals = &g;
  auto* sub = app.add_subcommand("submit", "Submit a TFJob built from flags, a manifest, or a built-in sample");
  o->sub = sub;
  add_job_flags(*sub, o->job);
  add_local_flags(*sub, o->local);
  flag::dry_run(*sub, o->dry_run,
                   "Default none: send the job. client: only print it; server: the server validates and defaults it, "
                   "nothing is persisted")->group("Output");
  flag::choice(*sub, "-o,--output", o->output, "Output format: yaml, json or name", {"yaml", "json", "name"})->group("Output");
  flag::boolean(*sub, "--list-samples", o->list_samples, "List the built-in samples and exit")->group("Output");
  add_submit_cluster_flags(*sub, o->cluster);
  flag::boolean(*sub, "--strict", o->cluster.strict, "Refuse to submit when lint or the preflight warns (kubectl tfjob lint --help)")
      ->group("Output");
  sub->footer(R"(Examples:
  # Render the built-in MNIST job (1 Chief + 2 Workers, 1 GPU each) without a cluster
  kubectl tfjob submit mnist --dry-run=client -o yaml

  # The same on CPUs, with 4 workers
  kubectl tfjob submit mnist --gpus 0 --workers 4 --dry-run=client -o yaml

  # A job from flags: the words after -- are the container's args (--command: its command)
  kubectl tfjob submit --name resnet --image tensorflow/tensorflow:2.20.0-gpu \
      --chief --workers 2 --gpus 1 --pvc data:/data --env EPOCHS=10 \
      --command --dry-run=client -o yaml -- python /data/train.py

  # Check and render a manifest (YAML or JSON, several documents; - reads stdin)
  kubectl tfjob submit -f tfjob.yaml --dry-run=client -o json

  # Train MNIST on the cluster, on TensorFlow's own image: creates the claim tfjob-mnist
  # (10Gi, ReadWriteMany) when absent and the ConfigMap mnist-trainer (the trainer script,
  # owned by the job), checks the operator, the namespace and the GPUs first, then follows
  # the chief's log; --image IMAGE runs an image with the trainer baked in instead
  kubectl tfjob submit mnist --workers 2 --gpus 1 --follow
  kubectl tfjob submit mnist --pvc my-data --pvc-size 50Gi --storage-class standard --wait

  # Submitting the same job again changes nothing ("unchanged"); a different spec needs
  # --replace; --rerun runs a finished job again (claims kept: MNIST resumes and exports
  # the next version)
  kubectl tfjob submit -f tfjob.yaml --replace
  kubectl tfjob submit mnist --rerun --follow
  kubectl tfjob submit -f tfjob.yaml --dry-run=server -o yaml

  # No cluster: run the replicas as processes here (chief's output; --all for every one);
  # exit code 0 when the job Succeeded, 1 when it Failed
  kubectl tfjob submit hello --local --workers 2
  kubectl tfjob submit -f tfjob.yaml --local --all --volume tfjob-mnist=./mnist-data

Exit codes: 0 ok (with --wait/--follow: the job Succeeded); 1 a failed preflight (no
training operator, no namespace, 403, not enough GPUs: nothing is created), a warning with
--strict (lint's rules: kubectl tfjob lint --help), an existing job with another spec
without --replace, or (with --wait/--follow) the job Failed (several jobs: applied 8 at a
time, each one's result said in the file's order; 1 when any was refused, after the others); 2 --timeout passed; 64 an
invalid job, flag or input (every problem is listed on stderr; nothing was sent); with
--local, 130/143/129 when SIGINT/SIGTERM/SIGHUP stopped the run. The table for every
command: kubectl tfjob --help.)");
  set_action(*sub, g, o);
}

}  // namespace tfjob::cli
