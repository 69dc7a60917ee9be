// kubectl tfjob port-forward JOB [--replica TYPE --index N] [LOCAL:]REMOTE...: forward local
// ports to a replica's pod (TensorBoard, a debug server), by role: the plugin finds the pod
// and hands over to `kubectl port-forward`.
#include "../common/command.hpp"
#include "../common/kube.hpp"
#include "../common/replica_handover.hpp"

#include <memory>
#include <string>
#include <vector>

namespace tfjob::cli {
namespace {

struct PortForwardOptions {
  ReplicaTarget target;
  std::vector<std::string> ports;
  std::vector<std::string> address;
};

int run_port_forward(const PortForwardOptions& o, const Globals& g) {
  if (o.ports.empty()) throw CLI::ValidationError("ports", "give at least one port: [LOCAL:]REMOTE, e.g. 6006 or 8080:6006");
  auto client = make_client(g);
  const std::string ns = client.namespace_();
  const std::string pod = resolve_replica_pod(client, ns, o.target);
  std::vector<std::string> args = {"port-forward"};
  for (auto& a : connection_args(g, ns)) args.push_back(a);
  for (const auto& a : o.address) args.push_back("--address=" + a);
  args.push_back("pod/" + pod);
  args.insert(args.end(), o.ports.begin(), o.ports.end());
  return hand_over_to_kubectl(args);
}

void setup_port_forward(CLI::App& app, Globals& g) {
  auto o = std::make_shared<PortForwardOptions>();
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
  sub->callback([o, &g] { g.run = [o, &g] { return run_port_forward(*o, g); }; });
}

}  // namespace
TFJOB_REGISTER_COMMAND("port-forward", 167, setup_port_forward);
}  // namespace tfjob::cli
