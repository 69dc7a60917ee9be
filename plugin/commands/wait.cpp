// kubectl tfjob wait JOB --for=condition=X --timeout=D: block on a watch until the job has
// the condition (exit 0), ends in a way that makes it impossible (exit 1, with the
// operator's message), or the timeout passes (exit 2).
#include "../common/command.hpp"
#include "../common/kube.hpp"
#include "../common/workflow_cli.hpp"

#include <tfjob/workflow/logs.hpp>
#include <tfjob/workflow/wait.hpp>

#include <iostream>
#include <memory>
#include <string>

namespace tfjob::cli {
namespace {

struct WaitOptions {
  std::string name;
  std::string for_ = "condition=Succeeded";
  std::string timeout = "30s";
  bool progress = false;
  std::string save;  ///< --save DIR: every replica's log written there while waiting
};

int run_wait(const WaitOptions& o, const Globals& g) {
  std::string cond = o.for_;
  if (cond.rfind("condition=", 0) != 0)
    throw CLI::ValidationError("--for", "expected condition=Succeeded|Failed|Running|Created|Restarting|Suspended, got \"" + o.for_ + "\"");
  cond = cond.substr(10);
  static const char* known[] = {"Created", "Running", "Restarting", "Succeeded", "Failed", "Suspended"};
  bool ok = false;
  for (const char* k : known) {
    std::string a = k, b = cond;
    for (auto& c : a) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    for (auto& c : b) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (a == b) { cond = k; ok = true; }
  }
  if (!ok) throw CLI::ValidationError("--for", "unknown condition \"" + cond + "\": use Created, Running, Restarting, Succeeded, Failed or Suspended");
  auto timeout = wf::parse_duration(o.timeout, "--timeout");

  auto client = make_client(g);
  const std::string ns = client.namespace_();
  if (!workflow::tfjobs_served(client)) throw tfjob::error(workflow::crd_missing_message(client.config().server));
  workflow::WaitOptions wo;
  wo.condition = cond;
  wo.timeout = timeout.count() > 0 ? timeout : std::chrono::milliseconds(0);
  wf::ProgressLine line(o.progress);
  if (o.progress) wo.on_progress = [&](const workflow::Progress& p) { line.show(p); };
  std::unique_ptr<workflow::LogSaveTask> saving;
  if (!o.save.empty() && workflow::get_opt(client, workflow::resources::tfjobs(), ns, o.name))
    saving = std::make_unique<workflow::LogSaveTask>(client, ns, o.name, o.save);
  auto rep = workflow::wait_for_job(client, ns, o.name, wo);
  line.finish();
  if (saving) {
    std::string err = saving->finish(rep.summary.finished() || rep.result == workflow::WaitResult::deleted);
    if (!err.empty()) std::cerr << "warning: saving logs in " << o.save << ": " << err << "\n";
  }
  switch (rep.result) {
    case workflow::WaitResult::reached:
      std::cout << "tfjob.kubeflow.org/" << o.name << " condition met\n";
      return exit_code::ok;
    case workflow::WaitResult::impossible:
      std::cerr << "error: tfjob.kubeflow.org/" << o.name << " ended " << rep.summary.state << " and will never be "
                << cond;
      if (!rep.summary.message.empty()) std::cerr << ": " << rep.summary.message;
      std::cerr << "\n";
      return exit_code::failure;
    case workflow::WaitResult::deleted:
      std::cerr << "error: tfjob.kubeflow.org/" << o.name << " was deleted while waiting for " << cond << "\n";
      return exit_code::failure;
    case workflow::WaitResult::not_found:
      std::cerr << "Error from server (NotFound): tfjobs.kubeflow.org \"" << o.name << "\" not found in namespace \"" << ns
                << "\"\n";
      return exit_code::failure;
    case workflow::WaitResult::timeout:
      break;
  }
  std::cerr << "error: timed out after " << o.timeout << " waiting for the condition " << cond << " on tfjob.kubeflow.org/"
            << o.name << " (now " << (rep.summary.state.empty() ? "without conditions" : rep.summary.state) << ")\n";
  return exit_code::timeout;
}

void setup_wait(CLI::App& app, Globals& g) {
  auto o = std::make_shared<WaitOptions>();
  auto* sub = app.add_subcommand("wait", "Wait until a TFJob has a condition (watch-driven)");
  sub->add_option("name", o->name, "TFJob name")->required();
  sub->add_option("--for", o->for_, "condition=Succeeded|Failed|Running|Created|Restarting|Suspended")->capture_default_str();
  sub->add_option("--timeout", o->timeout, "Give up after this long (e.g. 30s, 10m, 1h; 0 = wait forever)")->capture_default_str();
  sub->add_flag("--progress", o->progress, "Show a progress line (pods, scheduler reasons) on stderr");
  sub->add_option("--save", o->save, "Meanwhile write every replica's log to this directory (<pod>.<container>.log, events.log)");
  sub->footer(R"(Examples:
  kubectl tfjob wait mnist --for=condition=Succeeded --timeout=1h
  kubectl tfjob wait mnist --for=condition=Running --timeout=5m --progress

Exit codes: 0 the condition holds, 1 the job ended so that it never will (for example it
Failed while waiting for Succeeded; the operator's message is printed) or was deleted or
not found, 2 timed out, 64 usage error.)");
  sub->callback([o, &g] { g.run = [o, &g] { return run_wait(*o, g); }; });
}

}  // namespace
TFJOB_REGISTER_COMMAND("wait", 140, setup_wait);
}  // namespace tfjob::cli
