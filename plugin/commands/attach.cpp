// kubectl tfjob attach JOB [--replica TYPE --index N] [-i] [-t]: attach to a replica's running
// container, by role: the plugin finds the pod and hands over to `kubectl attach`.
#include "commands.hpp"
#include "../common/flag_values.hpp"
#include "../common/context.hpp"
#include "../common/replica_handover.hpp"

#include <memory>
#include <string>
#include <vector>

namespace tfjob::cli {
namespace {

struct AttachCommand {
  ReplicaTarget target;
  bool stdin_ = false, tty = false;

  void validate() const {}  // the job is required by its option
  int run(Context& ctx) const {
    return hand_over_to_kubectl(ctx, stream_args("attach", stdin_, tty, find_replica(ctx, target), target));
  }
};

}  // namespace

void setup_attach(CLI::App& app, Globals& g) {
  auto o = std::make_shared<AttachCommand>();
  auto* sub = app.add_subcommand("attach", "Attach to a replica's running container (the chief, or --replica/--index) through kubectl attach");
  add_replica_target_flags(*sub, o->target);
  flag::boolean(*sub, "-i,--stdin", o->stdin_, "Pass stdin to the container");
  flag::boolean(*sub, "-t,--tty", o->tty, "Stdin is a TTY");
  sub->footer(R"(Examples:
  kubectl tfjob attach mnist                       # the chief's output, live
  kubectl tfjob attach mnist --replica worker --index 0

Exit codes: kubectl attach's; 1 the job or replica was not found, or kubectl could not be
run; 64 usage error.)");
  set_action(*sub, g, o);
}

}  // namespace tfjob::cli
