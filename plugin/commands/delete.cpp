// kubectl tfjob delete JOB... | --all: delete TFJobs with a propagation policy and, as
// kubectl delete does (--wait defaults to true there too), wait until they (and, with
// --cascade=foreground, their pods) are gone; --wait=false returns at once.
#include "commands.hpp"
#include "../common/context.hpp"
#include "../common/flag_values.hpp"
#include "../common/job_flags.hpp"  // for_each_source: -f as submit reads it
#include "../common/workflow_cli.hpp"

#include <tfjob/api/manifest.hpp>
#include <tfjob/api/manifest_stream.hpp>  // ManifestReader
#include <tfjob/detail/json.hpp>

#include <tfjob/workflow/delete.hpp>

#include <memory>
#include <string>
#include <vector>

namespace tfjob::cli {
namespace {

struct DeleteCommand {
  std::vector<std::string> names;
  std::vector<std::string> files;  ///< -f: the TFJobs a manifest names (kubectl delete -f)
  bool all = false;
  std::string cascade = "background";
  bool wait = true;  ///< kubectl delete's default (cmd/delete/delete.go: --wait=true)
  std::string timeout = "5m";
  std::string selector;
  bool ignore_not_found = false;
  int grace_period = -1;  ///< kubectl's default: the server's (a negative value is ignored)
  bool now = false;

  void validate() {
    const int ways = !names.empty() + !files.empty() + (all || !selector.empty());
    if (ways == 0) throw flag::usage("NAME", "nothing to delete", "give TFJob names, -f FILE, -l SELECTOR or --all");
    if (ways > 1)  // said of the flag that came with the names (or -f with --all/-l)
      throw flag::exclusive(!files.empty() ? "--filename" : all ? "--all" : "--selector",
                            names.empty() ? (all ? "--all" : "--selector") : "TFJob names");
    if (all && !selector.empty()) throw flag::exclusive("--all", "--selector");
    // kubectl delete's Complete (cmd/delete/delete.go): --now is --grace-period=1, and
    // --grace-period=0 without --force becomes 1
    if (now && grace_period != -1)
      throw flag::exclusive("--now", "--grace-period");
    if (now) grace_period = 1;
    if (grace_period == 0) grace_period = 1;
    timeout_ms = wf::parse_duration(timeout, "--timeout");
    how = cascade == "foreground" ? workflow::Cascade::foreground
          : cascade == "orphan"   ? workflow::Cascade::orphan
                                  : workflow::Cascade::background;
    targets = jobs_in_files(files);
  }
  int run(Context& ctx) const;

 private:
  std::chrono::milliseconds timeout_ms{0};
  workflow::Cascade how = workflow::Cascade::background;
  /// -f: the namespace (as written, "" for the one the flags select) and name of each TFJob.
  std::vector<std::pair<std::string, std::string>> targets;
  /// The timeout's line and what still holds the job.
  void say_not_gone(Context& ctx, const std::string& name, const workflow::GoneReport& r) const;
  /// The TFJobs the manifests name; another kind is a usage error (this deletes TFJobs only).
  static std::vector<std::pair<std::string, std::string>> jobs_in_files(const std::vector<std::string>& files);
};

std::vector<std::pair<std::string, std::string>> DeleteCommand::jobs_in_files(const std::vector<std::string>& files) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& path : files)
    for_each_source(path, [&](const std::string& source, std::istream& in) {
      ManifestReader reader(in, source);  // a document at a time: only the names are kept
      while (auto next = reader.next()) {
        const auto& obj = *next;
        const std::string kind = tfjob::detail::value_at(obj, "kind", std::string());
        const ObjectMeta md = metadata_of(obj);  // leniently: a name of the wrong type is none
        const std::string& name = md.name;
        if (kind != tfjob::kind)
          throw flag::usage("--filename", source + " holds a " + (kind.empty() ? std::string("document without a kind") : kind) +
                                              (name.empty() ? "" : " (" + name + ")"),
                            "give TFJob manifests (kubectl delete -f deletes other kinds)");
        if (name.empty()) throw flag::usage("--filename", source + " holds a TFJob without metadata.name", "name the TFJob");
        out.emplace_back(md.namespace_, name);
      }
    });
  if (!files.empty() && out.empty()) throw flag::usage("--filename", "no TFJob found in the input", "give TFJob manifests");
  return out;
}

int DeleteCommand::run(Context& ctx) const {
  auto& client = ctx.tfjobs();
  const std::string ns = client.namespace_();
  std::vector<std::pair<std::string, std::string>> jobs = targets;  // (namespace, name)
  if (files.empty())
    for (const auto& n : names.empty() ? workflow::tfjob_names(client, ns, selector) : names) jobs.emplace_back(ns, n);
  for (auto& [jns, n] : jobs) {
    if (jns.empty()) jns = ns;
    // kubectl: an object's namespace must match an explicit -n
    else if (!ctx.globals().conn.namespace_.empty() && jns != ns)
      throw tfjob::error("the namespace from the provided object \"" + jns + "\" does not match the namespace \"" + ns +
                         "\". You must pass '--namespace=" + jns + "' to perform this operation.");
  }
  if (jobs.empty()) {
    ctx.err << "No resources found in " << ns << " namespace.\n";
    return exit_code::ok;
  }
  // kubectl delete: --ignore-not-found is the default with --all and -l
  const bool quiet_missing = ignore_not_found || all || !selector.empty();
  int rc = exit_code::ok;
  std::vector<std::pair<std::string, workflow::DeleteOutcome>> deleted;
  for (const auto& [jns, n] : jobs) {
    auto d = workflow::delete_tfjob(client, jns, n, how, grace_period >= 0 ? std::optional<int>(grace_period) : std::nullopt);
    using R = workflow::DeleteOutcome::Result;
    switch (d.result) {
      case R::deleted:
        ctx.out << "tfjob.kubeflow.org \"" << n << "\" deleted\n" << std::flush;
        deleted.emplace_back(jns, d);
        continue;
      case R::not_found:
        if (quiet_missing) continue;
        ctx.err << not_found_line(jns, n) << "\n";
        break;
      case R::forbidden: ctx.err << "error: " << worded(workflow::forbidden_message("delete", jns, d.message)) << "\n"; break;
      case R::failed: ctx.err << "error: " << d.message << "\n"; break;
    }
    rc = exit_code::failure;
  }
  if (!wait) return rc;
  const auto deadline = std::chrono::steady_clock::now() + timeout_ms;
  for (const auto& [jns, d] : deleted) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    ctx.err << "waiting for tfjob.kubeflow.org/" << d.name << " to be gone...\n";
    auto r = workflow::wait_tfjob_gone(client, jns, d, how, left);
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

}  // namespace

void setup_delete(CLI::App& app, Globals& g) {
  auto o = std::make_shared<DeleteCommand>();
  auto* sub = app.add_subcommand("delete", "Delete TFJobs (and their pods)");
  flag::text(*sub, "name", o->names, "TFJob names", "NAME");
  flag::file(*sub, "-f,--filename", o->files, "Delete the TFJobs these manifests name: a YAML/JSON file, a directory, or - for stdin",
             flag::Content::text, true, true);
  flag::boolean(*sub, "--all", o->all, "Delete every TFJob in the namespace");
  flag::text(*sub, "-l,--selector", o->selector, "Delete the TFJobs matching this label selector", "SELECTOR");
  flag::choice(*sub, "--cascade", o->cascade,
               "background: delete the job now, its pods after; foreground: the job goes after its pods; orphan: leave the pods",
               {"background", "foreground", "orphan"})
      ->capture_default_str();
  flag::boolean(*sub, "--ignore-not-found", o->ignore_not_found,
                "A job that is not there is no error (the default with --all and -l, as kubectl delete)");
  flag::count(*sub, "--grace-period", o->grace_period,
              "Seconds given to the job to terminate gracefully (-1: the server's default; 0 is taken as 1, as kubectl does "
              "without --force)",
              -1, std::numeric_limits<std::int32_t>::max(), "SECONDS")
      ->capture_default_str();
  flag::boolean(*sub, "--now", o->now, "Signal immediate shutdown (--grace-period=1)");
  flag::boolean(*sub, "--wait", o->wait, "Wait until the jobs are gone (default true, as kubectl delete; --wait=false returns at once)");
  flag::duration(*sub, "--timeout", o->timeout, "How long to wait for the jobs to be gone")->capture_default_str();
  sub->footer(R"(Examples:
  kubectl tfjob delete mnist
  kubectl tfjob delete mnist resnet --cascade=foreground
  kubectl tfjob delete --all -n team-a --wait=false
  kubectl tfjob delete -f tfjob.yaml --ignore-not-found
  kubectl tfjob submit -f tfjob.yaml --dry-run=client -o yaml | kubectl tfjob delete -f -

Exit codes: 0 deleted (and gone, unless --wait=false; a job not there with
--ignore-not-found), 1 a job was not found, forbidden or the request failed, 2 timed out
waiting for a job to be gone, 64 usage error (nothing was deleted). The table for every
command: kubectl tfjob --help.)");
  set_action(*sub, g, o);
}

}  // namespace tfjob::cli
