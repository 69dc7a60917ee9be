// kubectl tfjob describe JOB: spec summary, conditions in order, replica statuses, the pods
// (type, index, phase, node, restarts, GPUs), recent events of the job and its pods, and the
// TF_CONFIG each replica receives (computed with the operator's rules).
#include "../common/context.hpp"

#include <tfjob/api/resource.hpp>
#include <tfjob/api/tf_config.hpp>
#include <tfjob/api/types.hpp>
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
  void validate() const {}  // CLI11 requires a name
  int run(Context& ctx) const;
};

int DescribeCommand::run(Context& ctx) const {
  auto& client = ctx.tfjobs();
  const std::string ns = client.namespace_();
  int rc = exit_code::ok;
  bool first = true;
  for (const auto& name : names) {
    auto job = workflow::get_opt(client, workflow::resources::tfjobs(), ns, name);
    if (!job) {
      rc = say_not_found(ctx, name);
      continue;
    }
    // the job's own pods and events, each by its selector: what describe costs follows the
    // job, never the namespace
    auto pods = workflow::job_pods(client, ns, name);
    auto events = workflow::job_events(client, ns, *job, pods);
    std::vector<std::pair<std::string, std::string>> tf_configs;
    try {
      tfjob::TFJob typed = job->get<tfjob::TFJob>();
      for (const auto& r : tfjob::gen_all_tf_configs(typed))
        tf_configs.emplace_back(r.type + "-" + std::to_string(r.index), r.tf_config.value_or(""));
    } catch (const std::exception& e) {
      tf_configs.emplace_back("<error>", std::string("cannot compute TF_CONFIG: ") + e.what());
    }
    if (!first) ctx.out << "\n\n";
    first = false;
    const std::time_t now = std::time(nullptr);
    auto queue = workflow::gather_queue_state(client, ns, *job);
    for (auto& e : workflow::queue_events(client, ns, queue)) events.push_back(std::move(e));
    ctx.out << workflow::render(workflow::describe(*job, pods, events, tf_configs, now, std::move(queue)), now);
  }
  return rc;
}

void setup_describe(CLI::App& app, Globals& g) {
  auto o = std::make_shared<DescribeCommand>();
  auto* sub = app.add_subcommand("describe", "Show a TFJob in detail: spec, conditions, pods, events, TF_CONFIG");
  sub->add_option("name", o->names, "TFJob names")->required();
  sub->footer(R"(Examples:
  kubectl tfjob describe mnist
  kubectl tfjob describe mnist -n team-a

Shows the spec summary and run policy, the conditions in the order the operator set them,
replica statuses, every pod (type, index, phase, node, restarts, GPUs, exit code or
waiting reason), the last 20 events of the job and its pods (scheduler messages such as
"0/3 nodes are available: 3 Insufficient nvidia.com/gpu" included), and the TF_CONFIG
the operator injects into each replica.

Exit codes: 0 shown, 1 a job was not found or the request failed, 64 usage error.)");
  set_action(*sub, g, o);
}

}  // namespace
TFJOB_REGISTER_COMMAND("describe", 120, setup_describe);
}  // namespace tfjob::cli
