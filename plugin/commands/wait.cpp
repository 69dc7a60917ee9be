// kubectl tfjob wait JOB... --for=condition=X|delete --timeout=D: block on a watch until each job has
// the condition (exit 0), ends in a way that makes it impossible or has a pod that cannot
// start (exit 1, with the operator's or the kubelet's message), or the timeout passes (exit 2).
#include "commands.hpp"
#include "../common/context.hpp"
#include "../common/flag_values.hpp"
#include "../common/workflow_cli.hpp"

#include <tfjob/workflow/logs.hpp>
#include <tfjob/workflow/wait.hpp>

#include <algorithm>
#include <iostream>
#include <vector>
#include <memory>
#include <string>

namespace tfjob::cli {
namespace {

struct WaitOptions {
  std::vector<std::string> names;
  std::string for_ = "condition=Succeeded";
  std::string timeout = "30s";
  bool progress = false;
  std::string save;  ///< --save DIR: every replica's log written there while waiting
};

std::string parse_for(const std::string& value);
int wait_one(Context& ctx, const std::string& name, const std::string& cond,
             std::chrono::steady_clock::time_point deadline, bool limited, const WaitOptions& o);

struct WaitCommand : WaitOptions {
  /// --for and --timeout, before any request.
  void validate() {
    cond = parse_for(for_);
    timeout_ms = wf::parse_duration(timeout, "--timeout");
  }
  int run(Context& ctx) const;

 private:
  std::string cond;  ///< the condition --for names, "" for --for=delete
  std::chrono::milliseconds timeout_ms{0};
};

/// The condition --for names ("Succeeded"), or "" for --for=delete (kubectl wait's forms).
std::string parse_for(const std::string& value) {
  if (value == "delete") return "";
  if (value.rfind("condition=", 0) != 0)
    throw flag::usage("--for", "\"" + value + "\" is neither delete nor condition=...",
                      "give delete or condition=Succeeded|Failed|Running|Created|Restarting|Suspended");
  std::string cond = value.substr(10);
  static const char* known[] = {"Created", "Running", "Restarting", "Succeeded", "Failed", "Suspended"};
  for (const char* k : known) {
    std::string a = k, b = cond;
    for (auto& c : a) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    for (auto& c : b) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (a == b) return k;
  }
  throw flag::usage("--for", "unknown condition \"" + cond + "\"", "give Created, Running, Restarting, Succeeded, Failed or Suspended");
}

/// Waits for one job; the deadline is shared by every name, as kubectl's --timeout is.
int wait_one(Context& ctx, const std::string& name, const std::string& cond,
             std::chrono::steady_clock::time_point deadline, bool limited, const WaitOptions& o) {
  auto& client = ctx.tfjobs();
  const std::string& ns = client.namespace_();
  const bool for_delete = cond.empty();
  workflow::WaitOptions wo;
  wo.condition = for_delete ? "Succeeded" : cond;
  wo.for_delete = for_delete;
  if (limited) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    wo.timeout = std::max(left, std::chrono::milliseconds(1));
  }
  wo.stop_when_stuck = !for_delete;
  wf::ProgressLine line(o.progress, ctx.err);
  if (o.progress) wo.on_progress = [&](const workflow::Progress& p) { line.show(p); };
  std::unique_ptr<workflow::LogSaveTask> saving;
  if (!o.save.empty() && !for_delete && workflow::get_opt(client, workflow::resources::tfjobs(), ns, name))
    saving = std::make_unique<workflow::LogSaveTask>(client, ns, name, o.save);
  auto rep = workflow::wait_for_job(client, ns, name, wo);
  line.finish();
  if (saving) {
    std::string err = saving->finish(rep.summary.finished() || rep.result == workflow::WaitResult::deleted);
    if (!err.empty()) ctx.err << "warning: saving logs in " << o.save << ": " << err << "\n";
  }
  switch (rep.result) {
    case workflow::WaitResult::reached:
      ctx.out << "tfjob.kubeflow.org/" << name << " condition met\n";
      return exit_code::ok;
    case workflow::WaitResult::impossible:
      ctx.err << "error: tfjob.kubeflow.org/" << name << " ended " << rep.summary.state << " and will never be "
                << cond;
      if (!rep.summary.message.empty()) ctx.err << ": " << rep.summary.message;
      ctx.err << "\n";
      return exit_code::failure;
    case workflow::WaitResult::deleted:
      if (for_delete) {
        ctx.out << "tfjob.kubeflow.org/" << name << " condition met\n";
        return exit_code::ok;
      }
      ctx.err << "error: tfjob.kubeflow.org/" << name << " was deleted while waiting for " << cond << "\n";
      return exit_code::failure;
    case workflow::WaitResult::not_found:
      if (for_delete) {  // already gone: the condition holds (kubectl wait's IsDeleted)
        ctx.out << "tfjob.kubeflow.org/" << name << " condition met\n";
        return exit_code::ok;
      }
      return say_not_found(ctx, name);
    case workflow::WaitResult::stuck:
      ctx.err << "error: tfjob.kubeflow.org/" << name << " will never be " << cond << " as it is: a pod cannot start\n"
                << wf::stuck_lines(rep.waiting);
      return exit_code::failure;
    case workflow::WaitResult::timeout:
      break;
  }
  ctx.err << "error: timed out after " << o.timeout << " waiting for "
            << (for_delete ? std::string("the deletion") : "the condition " + cond) << " of tfjob.kubeflow.org/" << name
            << " (now " << (rep.summary.state.empty() ? "without conditions" : rep.summary.state) << ")\n"
            << wf::waiting_lines(rep.waiting);
  for (const auto& f : rep.queue) {
    ctx.err << "  " << f.message << " [" << f.code << "]\n";
    if (!f.fix.empty()) ctx.err << "    fix: " << worded(f.fix) << "\n";
  }
  return exit_code::timeout;
}

int WaitCommand::run(Context& ctx) const {
  ctx.tfjobs();
  const auto deadline = std::chrono::steady_clock::now() + timeout_ms;
  int rc = exit_code::ok;
  for (const auto& name : names) {
    int r = wait_one(ctx, name, cond, deadline, timeout_ms.count() > 0, *this);
    if (r == exit_code::timeout) return r;  // the shared deadline has passed: the rest would time out too
    rc = std::max(rc, r);
  }
  return rc;
}

}  // namespace

void setup_wait(CLI::App& app, Globals& g) {
  auto o = std::make_shared<WaitCommand>();
  auto* sub = app.add_subcommand("wait", "Wait until a TFJob has a condition (watch-driven)");
  flag::text(*sub, "name", o->names, "TFJob names (each is waited for; --timeout covers them all)", "NAME")->required();
  flag::composite(*sub, "--for", o->for_, "condition=Succeeded|Failed|Running|Created|Restarting|Suspended, or delete",
                  "condition=CONDITION or delete", "condition=Succeeded", {"condition=Bogus", "Succeeded", "deleted"},
                  [](const std::string& v) { parse_for(v); })
      ->capture_default_str();
  flag::duration(*sub, "--timeout", o->timeout, "Give up after this long (e.g. 30s, 10m, 1h; 0 = wait forever)")->capture_default_str();
  flag::boolean(*sub, "--progress", o->progress, "Show a progress line (pods, scheduler reasons) on stderr");
  flag::text(*sub, "--save", o->save, "Meanwhile write every replica's log to this directory (<pod>.<container>.log, events.log)", "DIR");
  sub->footer(R"(Examples:
  kubectl tfjob wait mnist --for=condition=Succeeded --timeout=1h
  kubectl tfjob wait mnist --for=condition=Running --timeout=5m --progress
  kubectl tfjob wait mnist resnet --for=delete --timeout=2m

Exit codes: 0 the condition holds for every job (--for=delete: each is gone, or was never
there), 1 a job ended so that it never will (for example it Failed while waiting for
Succeeded; the operator's message is printed) or was deleted or not found, 2 timed out,
64 usage error. The table for every command: kubectl tfjob --help.)");
  set_action(*sub, g, o);
}

}  // namespace tfjob::cli
