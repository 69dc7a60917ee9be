// kubectl tfjob delete JOB... | --all: delete TFJobs with a propagation policy and, as
// kubectl delete does (--wait defaults to true there too), wait until they (and, with
// --cascade=foreground, their pods) are gone; --wait=false returns at once.
#include "../common/command.hpp"
#include "../common/kube.hpp"
#include "../common/workflow_cli.hpp"

#include <tfjob/workflow/cluster.hpp>

#include <iostream>
#include <memory>
#include <string>
#include <vector>

namespace tfjob::cli {
namespace {

struct DeleteOptions {
  std::vector<std::string> names;
  bool all = false;
  std::string cascade = "background";
  bool wait = true;  ///< kubectl delete's default (cmd/delete/delete.go: --wait=true)
  std::string timeout = "5m";
  std::string selector;
};

int run_delete(const DeleteOptions& o, const Globals& g) {
  if (o.names.empty() && !o.all && o.selector.empty())
    throw CLI::ValidationError("name", "give TFJob names, -l SELECTOR or --all");
  if (!o.names.empty() && (o.all || !o.selector.empty()))
    throw CLI::ValidationError("--all", "names cannot be combined with --all or -l");
  auto timeout = wf::parse_duration(o.timeout, "--timeout");
  auto client = make_client(g);
  const std::string ns = client.namespace_();
  if (!workflow::tfjobs_served(client)) throw tfjob::error(workflow::crd_missing_message(client.config().server));
  std::vector<std::string> names = o.names;
  if (names.empty()) {
    kube::ListParams lp;
    lp.label_selector = o.selector;
    for (const auto& j : workflow::list_items(client, workflow::resources::tfjobs(), ns, lp))
      names.push_back(j.value("/metadata/name"_json_pointer, std::string()));
    if (names.empty()) {
      std::cerr << "No resources found in " << ns << " namespace.\n";
      return exit_code::ok;
    }
  }
  kube::RequestBuilder b(workflow::resources::tfjobs(), ns);
  kube::DeleteParams dp;
  dp.propagation_policy = o.cascade == "foreground" ? "Foreground" : o.cascade == "orphan" ? "Orphan" : "Background";
  int rc = exit_code::ok;
  std::vector<std::pair<std::string, std::string>> deleted;  // name, uid
  for (const auto& n : names) {
    try {
      auto obj = client.request_json(b.remove(n, dp));
      // The answer is the object (foreground: still there, with deletionTimestamp) or, as
      // kube-apiserver answers once it is gone, a Status carrying the uid in details.uid.
      std::string uid = obj.value("/metadata/uid"_json_pointer, std::string());
      if (uid.empty()) uid = obj.value("/details/uid"_json_pointer, std::string());
      deleted.emplace_back(n, uid);
      std::cout << "tfjob.kubeflow.org \"" << n << "\" deleted\n" << std::flush;
    } catch (const api_error& e) {
      if (e.is_not_found()) {
        std::cerr << "Error from server (NotFound): tfjobs.kubeflow.org \"" << n << "\" not found in namespace \"" << ns << "\"\n";
      } else if (e.is_forbidden()) {
        std::cerr << "error: " << workflow::forbidden_message("delete", ns, e.status().message) << "\n";
      } else {
        std::cerr << "error: " << e.what() << "\n";
      }
      rc = exit_code::failure;
    }
  }
  if (!o.wait) return rc;
  auto deadline = std::chrono::steady_clock::now() + timeout;
  for (const auto& [n, uid] : deleted) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    std::cerr << "waiting for tfjob.kubeflow.org/" << n << " to be gone...\n";
    if (!workflow::wait_gone(client, workflow::resources::tfjobs(), ns, n, left, uid)) {
      std::cerr << "error: timed out after " << o.timeout << " waiting for tfjob.kubeflow.org/" << n << " to be deleted\n";
      // what holds it: finalizers (foregroundDeletion waits for the garbage collector to
      // delete the pods first; others wait for their controller)
      try {
        auto still = workflow::get_opt(client, workflow::resources::tfjobs(), ns, n);
        auto fins = still ? still->value("/metadata/finalizers"_json_pointer, nlohmann::json::array()) : nlohmann::json::array();
        if (!fins.empty()) {
          std::string list;
          for (const auto& f : fins) list += (list.empty() ? "" : ", ") + f.get<std::string>();
          std::cerr << "hint: it still has the finalizer(s) " << list << ", removed by "
                    << (list.find("foregroundDeletion") != std::string::npos
                            ? "the garbage collector (kube-controller-manager) once its pods are gone"
                            : "the controller that set them")
                    << "; kubectl get pods -n " << ns << " -l training.kubeflow.org/job-name=" << n
                    << " shows what is left\n";
        }
      } catch (const std::exception&) {
      }
      return exit_code::timeout;
    }
    if (dp.propagation_policy == "Foreground") {
      // the job is gone only after its pods are; say so when a pod lingers (finalizers)
      auto pods = workflow::job_pods(client, ns, n);
      if (!pods.empty()) std::cerr << "note: " << pods.size() << " pod(s) of " << n << " are still terminating\n";
    }
  }
  return rc;
}

void setup_delete(CLI::App& app, Globals& g) {
  auto o = std::make_shared<DeleteOptions>();
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
  sub->callback([o, &g] { g.run = [o, &g] { return run_delete(*o, g); }; });
}

}  // namespace
TFJOB_REGISTER_COMMAND("delete", 150, setup_delete);
}  // namespace tfjob::cli
