// kubectl tfjob describe JOB: spec summary, conditions in order, replica statuses, the pods
// (type, index, phase, node, restarts, GPUs), recent events of the job and its pods, and the
// TF_CONFIG each replica receives (computed with the operator's rules).
#include "commands.hpp"
#include "../common/context.hpp"
#include "../common/flag_values.hpp"

#include <tfjob/kube/tfjob_resource.hpp>
#include <tfjob/api/tf_config.hpp>
#include <tfjob/api/types.hpp>
#include <tfjob/kube/core.hpp>
#include <tfjob/workflow/cluster.hpp>
#include <tfjob/workflow/describe.hpp>

#include <iostream>
#include <memory>
#include <string>
#include <vector>

namespace tfjob::cli {
namespace {

struct DescribeCommand {
  std::vector<std::string> names;
  std::string selector;
  bool all_namespaces = false;

  void validate() const {
    if (names.empty() && selector.empty() && !all_namespaces)
      throw flag::usage("NAME", "nothing to describe", "give TFJob names, -l SELECTOR or -A");
    if (!names.empty() && !selector.empty())
      throw flag::exclusive("--selector", "TFJob names");
    if (!names.empty() && all_namespaces)
      throw flag::name_with_all_namespaces();
  }
  int run(Context& ctx) const;
};

int DescribeCommand::run(Context& ctx) const {
  auto& client = ctx.tfjobs();
  const std::string ns_flag = all_namespaces ? "" : client.namespace_();
  // kubectl describe -l / -A: every job the selector picks, in the namespace or in all
  std::vector<std::pair<std::string, std::string>> targets;  // namespace, name
  for (const auto& n : names) targets.emplace_back(ns_flag, n);
  if (names.empty()) {
    kube::ListParams lp;
    lp.label_selector = selector;
    for (auto& j : workflow::list_items(client, workflow::resources::tfjobs(), ns_flag, lp)) {
      const kube::Object o(std::move(j));
      targets.emplace_back(o.namespace_(), o.name());
    }
    if (targets.empty()) {
      ctx.err << (all_namespaces ? std::string("No resources found") : "No resources found in " + ns_flag + " namespace.") << "\n";
      return exit_code::ok;
    }
  }
  int rc = exit_code::ok;
  bool first = true;
  for (const auto& [ns, name] : targets) {
    auto job = workflow::get_opt(client, workflow::resources::tfjobs(), ns, name);
    if (!job) {
      ctx.err << not_found_line(ns, name) << "\n";
      rc = exit_code::failure;
      continue;
    }
    // the job's own pods and events, each by its selector, asked at once: what describe costs
    // follows the job, never the namespace
    const auto served = tfjob::detail::decoded<tfjob::TFJob>(*job);  // decoded once here, at the client's edge; describe reads fields
    auto reads = workflow::job_reads(client, ns, served.metadata);  // the pods and events decoded as they are read
    auto& events = reads.events;
    std::vector<std::pair<std::string, std::string>> tf_configs;
    try {
      tfjob::TFJob typed = job->get<tfjob::TFJob>();
      for (const auto& r : tfjob::gen_all_tf_configs(typed))
        tf_configs.emplace_back(r.id(), r.tf_config.value_or(""));  // worker-0, as tf-config keys them
    } catch (const std::exception& e) {
      tf_configs.emplace_back("<error>", std::string("cannot compute TF_CONFIG: ") + e.what());
    }
    if (!first) ctx.out << "\n\n";
    first = false;
    const std::time_t now = std::time(nullptr);
    auto queue = workflow::gather_queue_state(client, ns, served);
    for (auto& e : workflow::queue_events(client, ns, queue)) events.push_back(std::move(e));
    ctx.out << workflow::render(workflow::describe(served, reads.pods, events, tf_configs, now, std::move(queue)), now);
  }
  return rc;
}

}  // namespace

void setup_describe(CLI::App& app, Globals& g) {
  auto o = std::make_shared<DescribeCommand>();
  auto* sub = app.add_subcommand("describe", "Show a TFJob in detail: spec, conditions, pods, events, TF_CONFIG");
  flag::text(*sub, "name", o->names, "TFJob names (or -l / -A)", "NAME");
  flag::text(*sub, "-l,--selector", o->selector, "Describe every TFJob this label selector picks, e.g. team=vision", "SELECTOR");
  flag::boolean(*sub, "-A,--all-namespaces", o->all_namespaces, "With -l, or alone: the TFJobs of every namespace");
  sub->footer(R"(Examples:
  kubectl tfjob describe mnist
  kubectl tfjob describe mnist -n team-a
  kubectl tfjob describe -l team=vision -A

Shows the spec summary and run policy, the conditions in the order the operator set them,
replica statuses, every pod (type, index, phase, node, restarts, GPUs, exit code or
waiting reason), the last 20 events of the job and its pods (scheduler messages such as
"0/3 nodes are available: 3 Insufficient nvidia.com/gpu" included), and the TF_CONFIG
the operator injects into each replica.

Exit codes: 0 shown, 1 a job was not found or the request failed, 64 usage error. The
table for every command: kubectl tfjob --help.)");
  set_action(*sub, g, o);
}

}  // namespace tfjob::cli
