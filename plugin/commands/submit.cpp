// kubectl tfjob submit: build a TFJob from flags, a manifest or a built-in sample, apply
// the operator's defaults and validation, then print it (--dry-run=client) or send it.
//
// Flow: setup_submit (flags) -> run_submit: build_jobs() [complete + validate] -> one of
//   --dry-run=client  print_jobs()         (here)
//   (cluster path)    submit_to_cluster()  server-side apply, --wait/--follow, --dry-run=server
//   (local path)      --local              runs the replicas as local processes
// Each path is one function; the dispatch in run_submit stays a few lines.
#include "../common/command.hpp"
#include "../common/job_flags.hpp"
#include "../common/output.hpp"
#include "../common/samples.hpp"

#include <tfjob/api/types.hpp>
#include <tfjob/error.hpp>

#include <iostream>
#include <memory>
#include <string>
#include <vector>

namespace tfjob::cli {
namespace {

struct SubmitOptions {
  JobFlags job;
  std::string dry_run = "none";  ///< none | client | server
  std::string output;            ///< -o json|yaml|name ("" = a one-line summary)
  bool list_samples = false;
};

/// The TFJobs as JSON objects, as they would be sent.
std::vector<nlohmann::json> to_objects(const std::vector<TFJob>& jobs) {
  std::vector<nlohmann::json> objs;
  for (const auto& j : jobs) objs.push_back(j);
  return objs;
}

/// --dry-run=client: print what would be sent; nothing is contacted.
int print_jobs(const std::vector<TFJob>& jobs, OutputFormat fmt) {
  if (fmt == OutputFormat::table) {
    for (const auto& j : jobs) std::cout << object_name(nlohmann::json(j)) << " created (dry run)\n";
    return exit_code::ok;
  }
  print_objects(std::cout, to_objects(jobs), fmt);
  return exit_code::ok;
}

/// Sending to the cluster (server-side apply, --wait, --follow, --dry-run=server) is the
/// cluster path's job; until it is built the command says so instead of pretending.
int submit_to_cluster(const std::vector<TFJob>&, const SubmitOptions& o, Globals&) {
  throw error(std::string("submitting to a cluster") +
              (o.dry_run == "server" ? " (--dry-run=server)" : "") +
              " is not available in this build; use --dry-run=client -o yaml to render the job");
}

int list_samples() {
  Table t({"NAME", "DESCRIPTION"});
  for (const auto& s : samples_sorted()) t.add_row({s.name, s.description});
  t.print(std::cout);
  return exit_code::ok;
}

int run_submit(SubmitOptions& o, Globals& g) {
  if (o.list_samples) return list_samples();
  const OutputFormat fmt = parse_output_format(o.output, {"json", "yaml", "name"});
  const std::vector<TFJob> jobs = build_jobs(o.job, namespace_from_flags(g));
  if (o.dry_run == "client") return print_jobs(jobs, fmt);
  return submit_to_cluster(jobs, o, g);
}

void setup_submit(CLI::App& app, Globals& g) {
  auto o = std::make_shared<SubmitOptions>();
  auto* sub = app.add_subcommand("submit", "Submit a TFJob built from flags, a manifest, or a built-in sample");
  add_job_flags(*sub, o->job);
  sub->add_option("--dry-run", o->dry_run,
                  "none (default): send it; client: only print it; server: let the server validate it")
      ->check(CLI::IsMember({"none", "client", "server"}))
      ->expected(0, 1)
      ->default_str("client")
      ->group("Output");
  sub->add_option("-o,--output", o->output, "Output format: yaml, json or name")->group("Output");
  sub->add_flag("--list-samples", o->list_samples, "List the built-in samples and exit")->group("Output");
  sub->footer(R"(Examples:
  # Render the built-in MNIST job (1 Chief + 2 Workers, 1 GPU each) without a cluster
  kubectl tfjob submit mnist --dry-run=client -o yaml

  # The same on CPUs, with 4 workers
  kubectl tfjob submit mnist --gpus 0 --workers 4 --dry-run=client -o yaml

  # A job from flags: the words after -- are the container's args (--command: its command)
  kubectl tfjob submit --name resnet --image tensorflow/tensorflow:2.15.0-gpu \
      --chief --workers 2 --gpus 1 --pvc data:/data --env EPOCHS=10 \
      --command --dry-run=client -o yaml -- python /data/train.py

  # Check and render a manifest (YAML or JSON, several documents; - reads stdin)
  kubectl tfjob submit -f tfjob.yaml --dry-run=client -o json

Exit codes: 0 ok; 1 invalid job or input (every problem is listed on stderr, nothing on
stdout); 64 bad usage.)");
  sub->callback([o, &g] { g.run = [o, &g] { return run_submit(*o, g); }; });
}

}  // namespace
TFJOB_REGISTER_COMMAND("submit", 100, setup_submit);
}  // namespace tfjob::cli
