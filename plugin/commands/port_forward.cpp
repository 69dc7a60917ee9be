// kubectl tfjob port-forward JOB [--replica TYPE --index N] [LOCAL:]REMOTE...: forward local
// ports to a replica's pod (TensorBoard, a debug server), by role: the plugin finds the pod
// and hands over to `kubectl port-forward`.
#include "commands.hpp"
#include "../common/context.hpp"
#include "../common/flag_values.hpp"
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
    if (ports.empty()) throw flag::usage("PORTS", "no port given", "give at least one port: [LOCAL:]REMOTE, e.g. 6006 or 8080:6006");
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

}  // namespace

void setup_port_forward(CLI::App& app, Globals& g) {
  auto o = std::make_shared<PortForwardCommand>();
  auto* sub = app.add_subcommand("port-forward", "Forward local ports to a replica's pod (the chief, or --replica/--index) through kubectl port-forward");
  add_replica_target_flags(*sub, o->target, false);
  flag::composite(*sub, "ports", o->ports, "[LOCAL:]REMOTE ports, as kubectl port-forward takes them", "[LOCAL:]REMOTE, e.g. 8080:6006",
                  "6006", {"x", "8080:", "70000"}, [](const std::string& p) {
                    // kubectl port-forward's parsePorts: LOCAL may be empty (":6006", a free port), REMOTE 1-65535
                    auto port_ok = [](const std::string& v, bool zero) {
                      if (v.empty() || v.size() > 5 || v.find_first_not_of("0123456789") != std::string::npos) return false;
                      const int n = std::stoi(v);
                      return n <= 65535 && (zero || n > 0);
                    };
                    const auto c = p.find(':');
                    const std::string local = c == std::string::npos ? "" : p.substr(0, c), remote = c == std::string::npos ? p : p.substr(c + 1);
                    if ((c != std::string::npos && !local.empty() && !port_ok(local, true)) || !port_ok(remote, false))
                      throw tfjob::error("\"" + p + "\" is not [LOCAL:]REMOTE with ports from 1 to 65535");
                  });
  flag::text(*sub, "--address", o->address, "Local addresses to listen on (kubectl's default: localhost)", "ADDRESS");
  sub->footer(R"(Examples:
  kubectl tfjob port-forward mnist 6006                  # TensorBoard in the chief, on localhost:6006
  kubectl tfjob port-forward mnist --replica worker --index 1 8080:2222

Exit codes: kubectl port-forward's; 1 the job or replica was not found, or kubectl could
not be run; 64 usage error.)");
  set_action(*sub, g, o);
}

}  // namespace tfjob::cli
