#pragma once
/// \file `submit`'s cluster path: preflight, the PVCs the job mounts, server-side apply
/// (created / unchanged / refused or --replace), then optionally --wait with a live
/// progress line or --follow with the chief's log. The logic lives in
/// include/tfjob/workflow/; this file turns it into output and exit codes.

#include "command.hpp"
#include "kube.hpp"
#include "output.hpp"
#include "workflow_cli.hpp"

#include <tfjob/api/types.hpp>
#include <tfjob/workflow/cluster.hpp>
#include <tfjob/workflow/logs.hpp>
#include <tfjob/workflow/wait.hpp>

#include <iostream>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace tfjob::cli {

/// The cluster-path flags of `submit`.
struct SubmitClusterFlags {
  bool replace = false;
  bool rerun = false;           ///< delete the job even with the same spec and submit it again
  std::string pvc_access_mode = workflow::default_claim_access_mode;
  /// Objects created with each job (by job name), owned by it: a sample's trainer ConfigMap.
  std::map<std::string, std::vector<nlohmann::json>> owned;
  bool wait = false;
  bool follow = false;
  std::string save;             ///< with --follow: every replica's log written there as it streams
  std::string timeout = "0";
  std::string pvc_size = "10Gi";
  std::string storage_class;
  bool create_pvcs = false;     ///< create missing claims (samples, or --pvc-size/--storage-class given)
  bool skip_gpu_check = false;
  bool strict = false;          ///< --strict: a lint or preflight warning refuses the submit
};

/// Adds the cluster-path flags to `submit`.
inline void add_submit_cluster_flags(CLI::App& sub, SubmitClusterFlags& f) {
  const char* grp = "Cluster";
  sub.add_flag("--replace", f.replace, "If the job exists with a different spec, delete it (and its pods) and submit this one")->group(grp);
  sub.add_flag("--rerun", f.rerun,
               "If the job exists, even with the same spec (a finished run), delete it and its pods and submit it "
               "again; claims are kept (MNIST resumes from its checkpoints)")->group(grp);
  sub.add_flag("--wait", f.wait, "Wait until the job Succeeds or Fails, with a progress line on stderr")->group(grp);
  sub.add_flag("--follow", f.follow, "Wait as --wait and stream the chief's log to stdout")->group(grp);
  sub.add_option("--save", f.save, "With --follow: also write every replica's log to this directory as it streams")->group(grp);
  sub.add_option("--timeout", f.timeout, "With --wait/--follow: give up after this long (e.g. 30m; 0 = no limit)")->group(grp);
  sub.add_option("--pvc-size", f.pvc_size, "Create missing PersistentVolumeClaims with this size (samples: always)")
      ->capture_default_str()->group(grp)->each([&f](const std::string&) { f.create_pvcs = true; });
  sub.add_option("--storage-class", f.storage_class, "StorageClass of a created claim (default: the cluster's default)")
      ->group(grp)->each([&f](const std::string&) { f.create_pvcs = true; });
  sub.add_option("--pvc-access-mode", f.pvc_access_mode,
                 "Access mode of a created claim (replicas on different nodes share it: ReadWriteMany)")
      ->check(CLI::IsMember({"ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"}))
      ->capture_default_str()->group(grp);
  sub.add_flag("--skip-gpu-check", f.skip_gpu_check, "Do not check the cluster's nvidia.com/gpu capacity before submitting")->group(grp);
}

/// `submit mnist --pvc NAME`: a bare claim name (no `:/path`) renames the sample's own
/// claim instead of adding a mount. Removes such names from `pvc` and returns the last one
/// ("" when none). Only meaningful with a sample.
inline std::string take_sample_claim(std::vector<std::string>& pvc) {
  std::string name;
  std::vector<std::string> rest;
  for (auto& p : pvc) {
    if (p.find(':') == std::string::npos) name = p;
    else rest.push_back(p);
  }
  pvc = rest;
  return name;
}

/// Point every volume of `job` that mounts a claim at `claim`.
inline void rename_claims(TFJob& job, const std::string& claim) {
  for (auto& [t, rs] : job.spec.tf_replica_specs) {
    // look, never create: operator[] would add `volumes: null` to a template without volumes
    if (!rs.template_.is_object()) continue;
    auto spec = rs.template_.find("spec");
    if (spec == rs.template_.end() || !spec->is_object()) continue;
    auto vols = spec->find("volumes");
    if (vols == spec->end() || !vols->is_array()) continue;
    for (auto& v : *vols)
      if (v.contains("persistentVolumeClaim")) v["persistentVolumeClaim"]["claimName"] = claim;
  }
}

/// Lint and preflight warnings on stderr, each with its fix; info findings (ExitCode's retry
/// rule) as a `note:`, each code once per command (`noted` keeps the codes said; a note never
/// counts for --strict).
inline void print_warnings(const std::vector<tfjob::Finding>& findings, std::set<std::string>& noted) {
  for (const auto& fd : findings) {
    const bool note = fd.severity == tfjob::Finding::Severity::info;
    if (note ? !noted.insert(fd.code).second : fd.severity != tfjob::Finding::Severity::warning) continue;
    std::cerr << (note ? "note: " : "warning: ") << fd.message << (fd.code.empty() ? "" : " [" + fd.code + "]") << "\n";
    if (!fd.fix.empty()) std::cerr << "  fix: " << fd.fix << "\n";
  }
}

/// --strict: any warning is an error (nothing has been created yet).
inline void refuse_on_warnings(const std::vector<tfjob::Finding>& findings) {
  std::size_t n = 0;
  for (const auto& fd : findings) n += fd.severity == tfjob::Finding::Severity::warning;
  if (n) throw tfjob::error("--strict: " + std::to_string(n) + " warning(s) above; nothing was submitted");
}

namespace detail {
/// Claim names the job's pod templates mount.
inline std::set<std::string> claims_of(const nlohmann::json& job) {
  std::set<std::string> out;
  const nlohmann::json specs = job.value("/spec/tfReplicaSpecs"_json_pointer, nlohmann::json::object());
  for (const auto& [t, rs] : specs.items())
    for (const auto& v : rs.value("/template/spec/volumes"_json_pointer, nlohmann::json::array()))
      if (v.contains("persistentVolumeClaim")) out.insert(v["persistentVolumeClaim"].value("claimName", ""));
  out.erase("");
  return out;
}
}  // namespace detail

/// Submit `jobs` to the cluster. `dry_run_server`: validated and defaulted by the server,
/// nothing persisted. Returns the exit code.
inline int submit_to_cluster_path(const std::vector<nlohmann::json>& jobs, const SubmitClusterFlags& f,
                                  bool dry_run_server, const std::string& output, Globals& g) {
  if ((f.wait || f.follow) && dry_run_server)
    throw CLI::ValidationError("--wait", "--wait/--follow cannot be combined with --dry-run=server");
  if ((f.wait || f.follow) && jobs.size() != 1)
    throw CLI::ValidationError("--wait", "--wait/--follow need exactly one job (got " + std::to_string(jobs.size()) + ")");
  auto timeout = wf::parse_duration(f.timeout, "--timeout");
  auto client = make_client(g);
  const OutputFormat fmt = parse_output_format(output, {"json", "yaml", "name"});
  std::vector<nlohmann::json> printed;
  auto warn = [](const std::string& m) { std::cerr << "warning: " << m << "\n"; };
  std::set<std::string> noted;  // info findings said once for all the jobs

  for (auto job : jobs) {
    std::string ns = job.value("/metadata/namespace"_json_pointer, std::string());
    if (ns.empty()) ns = client.namespace_();
    job["metadata"]["namespace"] = ns;
    const std::string name = job.value("/metadata/name"_json_pointer, std::string());

    // 1. preflight: nothing is created when it fails
    // --follow --save keeps every replica's log: cleanPodPolicy All or a TTL then loses nothing
    auto report = workflow::preflight_submit(client, ns, job, !f.skip_gpu_check, f.follow && !f.save.empty());
    print_warnings(report.findings, noted);
    if (!report.ok()) throw tfjob::error(report.errors());
    if (f.strict) refuse_on_warnings(report.findings);

    // 2. the claims the job mounts
    for (const auto& claim : detail::claims_of(job)) {
      auto pvc = workflow::get_opt(client, workflow::resources::pvcs(), ns, claim);
      if (!pvc) {
        if (!f.create_pvcs)
          throw tfjob::error("PersistentVolumeClaim \"" + claim + "\" does not exist in namespace \"" + ns +
                             "\": create it, or pass --pvc-size (and --storage-class) to have it created");
        auto [obj, created] =
            workflow::ensure_pvc(client, ns, claim, f.pvc_size, f.storage_class, dry_run_server, f.pvc_access_mode);
        (void)obj;
        if (created)
          std::cerr << "persistentvolumeclaim/" << claim << " created (" << f.pvc_size << ", " << f.pvc_access_mode
                    << (f.storage_class.empty() ? ", default storage class" : ", storage class " + f.storage_class)
                    << (dry_run_server ? ", server dry run" : "") << ")\n";
      } else {
        std::cerr << "persistentvolumeclaim/" << claim << " exists (left as it is)\n";
      }
    }

    // 3. server-side apply
    workflow::SubmitOptions so;
    so.replace = f.replace;
    so.rerun = f.rerun;
    so.dry_run = dry_run_server;
    so.progress = [](const std::string& m) { std::cerr << m << "\n"; };
    auto res = workflow::submit_job(client, ns, job, so);
    if (fmt == OutputFormat::table) {
      std::cout << "tfjob.kubeflow.org/" << name << " " << workflow::to_string(res.outcome)
                << (dry_run_server ? " (server dry run)" : "") << "\n" << std::flush;
    } else {
      printed.push_back(res.object);
    }
    // what the job brings along (the sample's trainer), owned by the job it belongs to
    if (auto it = f.owned.find(name); it != f.owned.end()) {
      for (const auto& obj : it->second) {
        if (obj.value("kind", std::string()) != "ConfigMap")
          throw tfjob::error("cannot create a " + obj.value("kind", std::string()) + " with the job");
        auto got = workflow::apply_owned(client, workflow::resources::configmaps(), ns, obj, res.object, so);
        std::cerr << "configmap/" << got.value("/metadata/name"_json_pointer, std::string())
                  << " applied (owned by tfjob.kubeflow.org/" << name << ", deleted with it"
                  << (dry_run_server ? "; server dry run" : "") << ")\n";
      }
    }

    // 4. a claim that cannot bind is worth saying now
    if (!dry_run_server) {
      for (const auto& claim : detail::claims_of(job)) {
        auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(3);
        for (;;) {
          auto pvc = workflow::get_opt(client, workflow::resources::pvcs(), ns, claim);
          if (!pvc || pvc->value("/status/phase"_json_pointer, std::string()) == "Bound") break;
          if (std::chrono::steady_clock::now() > deadline) {
            auto why = workflow::pvc_pending_reason(*pvc, workflow::namespace_events(client, ns));
            if (!why.empty())
              warn("persistentvolumeclaim/" + claim + " is Pending: " + why +
                   "; the job's pods will wait for it (kubectl describe pvc " + claim + " -n " + ns + ")");
            break;
          }
          std::this_thread::sleep_for(std::chrono::milliseconds(300));
        }
      }
    }
  }
  if (fmt != OutputFormat::table) print_objects(std::cout, printed, fmt);
  std::cout << std::flush;
  if (!(f.wait || f.follow)) return exit_code::ok;

  // 5. --wait / --follow
  const std::string ns = jobs[0].value("/metadata/namespace"_json_pointer, std::string()).empty()
                             ? client.namespace_()
                             : jobs[0].value("/metadata/namespace"_json_pointer, std::string());
  const std::string name = jobs[0].value("/metadata/name"_json_pointer, std::string());
  wf::ProgressLine line(true);
  workflow::JobSummary final_state;
  if (f.follow) {
    std::atomic<bool> cancel{false};
    std::thread timer;
    if (timeout.count() > 0)
      timer = std::thread([&] {
        auto end = std::chrono::steady_clock::now() + timeout;
        while (!cancel && std::chrono::steady_clock::now() < end) std::this_thread::sleep_for(std::chrono::milliseconds(100));
        cancel = true;
      });
    workflow::JobLogOptions lo;
    lo.follow = true;
    lo.cancel = &cancel;
    lo.on_progress = [&](const workflow::Progress& p) { line.show(p); };
    lo.on_note = [&](const std::string& n) { line.finish(); std::cerr << n << "\n"; };
    workflow::JobLogResult r;
    std::string err;
    std::unique_ptr<workflow::LogSaveTask> saving;
    if (!f.save.empty()) saving = std::make_unique<workflow::LogSaveTask>(client, ns, name, f.save);
    try {
      r = workflow::replica_logs(client, ns, name, "", 0, lo, [&](const std::string&, std::string_view l) {
        line.finish();
        std::cout << l << "\n" << std::flush;
        return true;
      });
    } catch (const std::exception& e) {
      err = e.what();
    }
    bool timed_out = cancel.load();
    cancel = true;
    if (timer.joinable()) timer.join();
    if (saving) {
      std::string serr = saving->finish(!timed_out && err.empty());
      if (!serr.empty()) std::cerr << "warning: saving logs in " << f.save << ": " << serr << "\n";
    }
    if (!err.empty()) throw tfjob::error(err);
    line.finish();
    if (timed_out && r.job_state.empty()) {
      std::cerr << "error: timed out after " << f.timeout << " following TFJob " << name << "\n";
      return exit_code::timeout;
    }
    final_state.state = r.job_state;
    final_state.message = r.job_message;
  } else {
    workflow::WaitOptions wo;
    wo.condition = "Succeeded";
    wo.timeout = timeout;
    wo.on_progress = [&](const workflow::Progress& p) { line.show(p); };
    wo.stop_when_stuck = true;
    auto rep = workflow::wait_for_job(client, ns, name, wo);
    line.finish();
    if (rep.result == workflow::WaitResult::stuck) {
      std::cerr << "error: TFJob " << name << " cannot run as it is: a pod cannot start\n" << wf::stuck_lines(rep.waiting);
      return exit_code::failure;
    }
    if (rep.result == workflow::WaitResult::timeout) {
      std::cerr << "error: timed out after " << f.timeout << " waiting for TFJob " << name << " (now "
                << (rep.summary.state.empty() ? "without conditions" : rep.summary.state) << ")\n"
                << wf::waiting_lines(rep.waiting);
      return exit_code::timeout;
    }
    if (rep.result == workflow::WaitResult::deleted || rep.result == workflow::WaitResult::not_found) {
      std::cerr << "error: TFJob " << name << " was deleted while waiting\n";
      return exit_code::failure;
    }
    final_state = rep.summary;
  }
  if (final_state.state == "Succeeded") {
    std::cerr << "TFJob " << name << " Succeeded\n";
    return exit_code::ok;
  }
  workflow::JobLogResult why;
  workflow::explain_failure(client, ns, name, why);
  std::cerr << "error: TFJob " << name << " " << (final_state.state.empty() ? "ended" : final_state.state);
  if (!why.failed_pod.empty()) {
    std::cerr << ": pod " << why.failed_pod;
    if (why.failed_exit_code) std::cerr << " exited with code " << *why.failed_exit_code;
  }
  if (!final_state.message.empty()) std::cerr << " (" << final_state.message << ")";
  std::cerr << "\n  see: kubectl tfjob logs " << name << " -n " << ns << "\n";
  return exit_code::failure;
}

}  // namespace tfjob::cli
