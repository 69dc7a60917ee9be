// kubectl tfjob delete JOB... | --all: delete TFJobs with a propagation policy and, as
// kubectl delete does (--wait defaults to true there too), wait until they (and, with
// --cascade=foreground, their pods) are gone; --wait=false returns at once.
#include "../common/context.hpp"
#include "../common/workflow_cli.hpp"

#include <tfjob/workflow/delete.hpp>

#include <memory>
#include <string>
#include <vector>

namespace tfjob::cli {
namespace {

struct DeleteCommand {
  std::vector<std::string> names;
  bool all = false;
  std::string cascade = "background";
  bool wait = true;  ///< kubectl delete's default (cmd/delete/delete.go: --wait=true)
  std::string timeout = "5m";
  std::string selector;

  void validate() {
    if (names.empty() && !all && selector.empty()) throw CLI::ValidationError("name", "give TFJob names, -l SELECTOR or --all");
    if (!names.empty() && (all || !selector.empty()))
      throw CLI::ValidationError("--all", "names cannot be combined with --all or -l");
    timeout_ms = wf::parse_duration(timeout, "--timeout");
    how = cascade == "foreground" ? workflow::Cascade::foreground
          : cascade == "orphan"   ? workflow::Cascade::orphan
                                  : workflow::Cascade::background;
  }
  int run(Context& ctx) const;

 private:
  std::chrono::milliseconds timeout_ms{0};
  workflow::Cascade how = workflow::Cascade::background;
  /// The timeout's line and what still holds the job.
  void say_not_gone(Context& ctx, const std::string& name, const workflow::GoneReport& r) const;
};

int DeleteCommand::run(Context& ctx) const {
  auto& client = ctx.tfjobs();
  const std::string ns = client.namespace_();
  std::vector<std::string> targets = names.empty() ? workflow::tfjob_names(client, ns, selector) : names;
  if (targets.empty()) {
    ctx.err << "No resources found in " << ns << " namespace.\n";
    return exit_code::ok;
  }
  int rc = exit_code::ok;
  std::vector<workflow::DeleteOutcome> deleted;
  for (const auto& n : targets) {
    auto d = workflow::delete_tfjob(client, ns, n, how);
    using R = workflow::DeleteOutcome::Result;
    switch (d.result) {
      case R::deleted:
        ctx.out << "tfjob.kubeflow.org \"" << n << "\" deleted\n" << std::flush;
        deleted.push_back(d);
        continue;
      case R::not_found: say_not_found(ctx, n); break;
      case R::forbidden: ctx.err << "error: " << worded(workflow::forbidden_message("delete", ns, d.message)) << "\n"; break;
      case R::failed: ctx.err << "error: " << d.message << "\n"; break;
    }
    rc = exit_code::failure;
  }
  if (!wait) return rc;
  const auto deadline = std::chrono::steady_clock::now() + timeout_ms;
  for (const auto& d : deleted) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    ctx.err << "waiting for tfjob.kubeflow.org/" << d.name << " to be gone...\n";
    auto r = workflow::wait_tfjob_gone(client, ns, d, how, left);
    if (!r.gone) {
      say_not_gone(ctx, d.name, r);
      return exit_code::timeout;
    }
    if (r.pods_left) ctx.err << "note: " << r.pods_left << " pod(s) of " << d.name << " are still terminating\n";
  }
  return rc;
}

void DeleteCommand::say_not_gone(Context& ctx, const std::string& name, const workflow::GoneReport& r) const {
  ctx.err << "error: timed out after " << timeout << " waiting for tfjob.kubeflow.org/" << name << " to be deleted\n";
  if (r.finalizers.empty()) return;
  std::string list;
  for (const auto& f : r.finalizers) list += (list.empty() ? "" : ", ") + f;
  ctx.err << "hint: it still has the finalizer(s) " << list << ", removed by "
          << (list.find("foregroundDeletion") != std::string::npos
                  ? "the garbage collector (kube-controller-manager) once its pods are gone"
                  : "the controller that set them")
          << "; kubectl get pods -n " << ctx.namespace_() << " -l training.kubeflow.org/job-name=" << name
          << " shows what is left\n";
}

void setup_delete(CLI::App& app, Globals& g) {
  auto o = std::make_shared<DeleteCommand>();
  auto* sub = app.add_subcommand("delete", "Delete TFJobs (and their pods)");
  sub->add_option("name", o->names, "TFJob names");
  sub->add_flag("--all", o->all, "Delete every TFJob in the namespace");
  sub->add_option("-l,--selector", o->selector, "Delete the TFJobs matching this label selector");
  sub->add_option("--cascade", o->cascade,
                  "background: delete the job now, its pods after; foreground: the job goes after its pods; "
                  "orphan: leave the pods")
      ->check(CLI::IsMember({"background", "foreground", "orphan"}))->capture_default_str();
  sub->add_flag("--wait", o->wait, "Wait until the jobs are gone (default true, as kubectl delete; --wait=false returns at once)");
  sub->add_option("--timeout", o->timeout, "How long to wait for the jobs to be gone")->capture_default_str();
  sub->footer(R"(Examples:
  kubectl tfjob delete mnist
  kubectl tfjob delete mnist resnet --cascade=foreground
  kubectl tfjob delete --all -n team-a --wait=false

Exit codes: 0 deleted (and gone, unless --wait=false), 1 a job was not found, forbidden or
the request failed, 2 timed out waiting for a job to be gone, 64 usage error.)");
  set_action(*sub, g, o);
}

}  // namespace
TFJOB_REGISTER_COMMAND("delete", 150, setup_delete);
}  // namespace tfjob::cli
