// kubectl tfjob port-forward JOB [--replica TYPE --index N] [LOCAL:]REMOTE...: forward local
// ports to a replica's pod (TensorBoard, a debug server), by role: the plugin finds the pod
// and hands over to `kubectl port-forward`.
#include "../common/context.hpp"
#include "../common/replica_handover.hpp"

#include <memory>
#include <string>
#include <vector>

namespace tfjob::cli {
namespace {

struct PortForwardCommand {
  ReplicaTarget target;
  std::vector<std::string> ports;
  std::vector<std::string> address;

  void validate() const {
    if (ports.empty()) throw CLI::ValidationError("ports", "give at least one port: [LOCAL:]REMOTE, e.g. 6006 or 8080:6006");
  }
  int run(Context& ctx) const {
    const auto to = find_replica(ctx, target);
    std::vector<std::string> args = {"port-forward"};
    args.insert(args.end(), to.connection.begin(), to.connection.end());
    for (const auto& a : address) args.push_back("--address=" + a);
    args.push_back("pod/" + to.pod);
    args.insert(args.end(), ports.begin(), ports.end());
    return hand_over_to_kubectl(ctx, args);
  }
};

void setup_port_forward(CLI::App& app, Globals& g) {
  auto o = std::make_shared<PortForwardCommand>();
  auto* sub = app.add_subcommand("port-forward", "Forward local ports to a replica's pod (the chief, or --replica/--index) through kubectl port-forward");
  sub->add_option("job", o->target.job, "TFJob name")->required();
  sub->add_option("ports", o->ports, "[LOCAL:]REMOTE ports, as kubectl port-forward takes them");
  sub->add_option("--replica", o->target.replica, "Replica type: Chief, Master, Worker, PS, Evaluator (default: the chief)");
  sub->add_option("--index", o->target.index, "Replica index, with --replica")->capture_default_str();
  sub->add_option("--address", o->address, "Local addresses to listen on (kubectl's default: localhost)");
  sub->footer(R"(Examples:
  kubectl tfjob port-forward mnist 6006                  # TensorBoard in the chief, on localhost:6006
  kubectl tfjob port-forward mnist --replica worker --index 1 8080:2222

Exit codes: kubectl port-forward's; 1 the job or replica was not found, or kubectl could
not be run; 64 usage error.)");
  set_action(*sub, g, o);
}

}  // namespace
TFJOB_REGISTER_COMMAND("port-forward", 167, setup_port_forward);
}  // namespace tfjob::cli
