// kubectl tfjob exec JOB [--replica TYPE --index N] [-i] [-t] -- COMMAND...: run a command in
// a replica's container, by role: the plugin finds the pod and hands over to `kubectl exec`.
#include "commands.hpp"
#include "../common/flag_values.hpp"
#include "../common/context.hpp"
#include "../common/replica_handover.hpp"

#include <memory>
#include <string>
#include <vector>

namespace tfjob::cli {
namespace {

struct ExecCommand {
  ReplicaTarget target;
  bool stdin_ = false, tty = false;
  std::vector<std::string> command;

  void validate() const {
    if (command.empty()) throw flag::usage("COMMAND", "no command given", "give the command after --, e.g. -- nvidia-smi");
  }
  int run(Context& ctx) const {
    auto args = stream_args("exec", stdin_, tty, find_replica(ctx, target), target);
    args.push_back("--");
    args.insert(args.end(), command.begin(), command.end());
    return hand_over_to_kubectl(ctx, args);
  }
};

}  // namespace

void setup_exec(CLI::App& app, Globals& g) {
  auto o = std::make_shared<ExecCommand>();
  auto* sub = app.add_subcommand("exec", "Run a command in a replica's container (the chief, or --replica/--index) through kubectl exec");
  add_replica_target_flags(*sub, o->target);
  flag::boolean(*sub, "-i,--stdin", o->stdin_, "Pass stdin to the container");
  flag::boolean(*sub, "-t,--tty", o->tty, "Stdin is a TTY");
  flag::text(*sub, "command", o->command, "The command, after --", "COMMAND");
  sub->footer(R"(Examples:
  kubectl tfjob exec mnist -- nvidia-smi                         # in the chief
  kubectl tfjob exec mnist --replica worker --index 1 -it -- bash

The pod is found as `logs` finds it (the chief: the pod the operator marks job-role=master),
then kubectl exec runs with the same connection flags.

Exit codes: the command's (as kubectl exec passes it on); 1 the job or replica was not
found, or kubectl could not be run; 64 usage error.)");
  set_action(*sub, g, o);
}

}  // namespace tfjob::cli
