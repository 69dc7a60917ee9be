// kubectl tfjob suspend JOB... / resume JOB...: set runPolicy.suspend (the operator deletes
// the pods and keeps the job, Suspended; resumed, it recreates them). A verb and its
// inverse, one file: the same options and the same run with the wanted state.
#include "commands.hpp"
#include "../common/context.hpp"
#include "../common/flag_values.hpp"

#include <tfjob/workflow/control.hpp>

#include <iostream>
#include <memory>
#include <string>
#include <vector>

namespace tfjob::cli {
namespace {

struct SuspendCommand {
  std::vector<std::string> names;
  bool suspend = true;  ///< suspend or resume
  void validate() const {}  // CLI11 requires a name
  int run(Context& ctx) const;
};

int SuspendCommand::run(Context& ctx) const {
  const auto& o = *this;
  auto& client = ctx.tfjobs();
  const std::string ns = client.namespace_();
  const char* done = o.suspend ? "suspended" : "resumed";
  int rc = exit_code::ok;
  for (const auto& name : o.names) {
    try {
      auto r = workflow::set_suspended(client, ns, name, o.suspend);
      ctx.out << "tfjob.kubeflow.org/" << name << (r.changed ? " " : " already ") << done << "\n" << std::flush;
      for (const auto& n : r.notes) ctx.err << "note: " << n << "\n";
    } catch (const api_error& e) {
      if (e.is_not_found())
        say_not_found(ctx, name);
      else if (e.is_forbidden())
        ctx.err << "error: " << worded(workflow::forbidden_message("patch", ns, e.status().message)) << "\n";
      else
        ctx.err << "error: " << e.what() << "\n";
      rc = exit_code::failure;
    } catch (const tfjob::error& e) {
      ctx.err << "error: " << error_message(e) << "\n";
      rc = exit_code::failure;
    }
  }
  return rc;
}

void setup_verb(CLI::App& app, Globals& g, bool suspend) {
  auto o = std::make_shared<SuspendCommand>();
  o->suspend = suspend;
  auto* sub = app.add_subcommand(suspend ? "suspend" : "resume",
                                 suspend ? "Suspend TFJobs: the operator deletes their pods and keeps the jobs"
                                         : "Resume suspended TFJobs: the operator creates their pods again");
  flag::text(*sub, "name", o->names, "TFJob names", "NAME")->required();
  if (suspend)
    sub->footer(R"(Sets runPolicy.suspend: true. The training operator (v1.9) deletes the job's pods and
services, sets the Suspended condition and keeps the job; `kubectl tfjob resume` starts it
again from scratch (new pods, the active deadline counted from the resume), so the training
program must resume from its own checkpoints. A job in a Kueue LocalQueue is suspended and
resumed by Kueue itself.

Examples:
  kubectl tfjob suspend mnist
  kubectl tfjob wait mnist --for=condition=Suspended --timeout=2m

Exit codes: 0 every job is suspended (also when it already was), 1 a job was not found,
has finished (the operator does not suspend a finished job) or the server refused, 64 usage.)");
  else
    sub->footer(R"(Sets runPolicy.suspend: false. The training operator (v1.9) sets Suspended to False
(TFJobResumed), restarts the job's clock and creates its pods again.

Examples:
  kubectl tfjob resume mnist
  kubectl tfjob wait mnist --for=condition=Running --timeout=5m

Exit codes: 0 every job is resumed (also when it was not suspended), 1 a job was not
found, has finished or the server refused, 64 usage.)");
  set_action(*sub, g, o);
}

}  // namespace

void setup_suspend(CLI::App& app, Globals& g) { setup_verb(app, g, true); }
void setup_resume(CLI::App& app, Globals& g) { setup_verb(app, g, false); }
}  // namespace tfjob::cli
