// kubectl tfjob attach JOB [--replica TYPE --index N] [-i] [-t]: attach to a replica's running
// container, by role: the plugin finds the pod and hands over to `kubectl attach`.
#include "../common/command.hpp"
#include "../common/kube.hpp"
#include "../common/replica_handover.hpp"

#include <memory>
#include <string>
#include <vector>

namespace tfjob::cli {
namespace {

struct AttachOptions {
  ReplicaTarget target;
  bool stdin_ = false, tty = false;
};

int run_attach(const AttachOptions& o, const Globals& g) {
  auto client = make_client(g);
  const std::string ns = client.namespace_();
  const std::string pod = resolve_replica_pod(client, ns, o.target);
  std::vector<std::string> args = {"attach"};
  if (o.stdin_) args.push_back("--stdin");
  if (o.tty) args.push_back("--tty");
  for (auto& a : connection_args(g, ns)) args.push_back(a);
  args.insert(args.end(), {pod, "--container=" + o.target.container});
  return hand_over_to_kubectl(args);
}

void setup_attach(CLI::App& app, Globals& g) {
  auto o = std::make_shared<AttachOptions>();
  auto* sub = app.add_subcommand("attach", "Attach to a replica's running container (the chief, or --replica/--index) through kubectl attach");
  add_replica_target_flags(*sub, o->target);
  sub->add_flag("-i,--stdin", o->stdin_, "Pass stdin to the container");
  sub->add_flag("-t,--tty", o->tty, "Stdin is a TTY");
  sub->footer(R"(Examples:
  kubectl tfjob attach mnist                       # the chief's output, live
  kubectl tfjob attach mnist --replica worker --index 0

Exit codes: kubectl attach's; 1 the job or replica was not found, or kubectl could not be
run; 64 usage error.)");
  sub->callback([o, &g] { g.run = [o, &g] { return run_attach(*o, g); }; });
}

}  // namespace
TFJOB_REGISTER_COMMAND("attach", 166, setup_attach);
}  // namespace tfjob::cli
