#pragma once
/// \file Submitting a TFJob with server-side apply, so that resubmitting the same spec changes
/// nothing and a different spec is refused unless the caller asks to replace the job; a
/// submit of several at once (for_each_bounded), the claims and owned objects a job needs.
/// Part of <tfjob/workflow/cluster.hpp>.

#include <tfjob/api/k8s/event.hpp>
#include <tfjob/api/k8s/objects.hpp>
#include <tfjob/api/meta.hpp>
#include <tfjob/detail/compiled.hpp>
#include <tfjob/detail/json.hpp>
#include <tfjob/error.hpp>
#include <tfjob/kube/client.hpp>
#include <tfjob/kube/core.hpp>
#include <tfjob/kube/request.hpp>
#include <tfjob/setting.hpp>
#include <tfjob/workflow/cluster/reads.hpp>
#include <tfjob/workflow/cluster/submit_checks.hpp>
#include <tfjob/workflow/progress.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace tfjob::workflow {

/// What submitting did.
enum class SubmitOutcome { created, unchanged, replaced };
const char* to_string(SubmitOutcome o);

struct SubmitOptions {
  bool replace = false;         ///< delete an existing job with a different spec, then submit
  bool rerun = false;           ///< delete an existing job even with the same spec, then submit (run it again)
  bool dry_run = false;         ///< server-side dry run: validate and default, persist nothing
  std::string field_manager;  ///< "" = the client's (RestConfig::field_manager)
  /// The apply's fieldValidation (kube::ApplyParams::field_validation): "Strict", "Warn",
  /// "Ignore" (to_query_value(FieldValidation)), "" = the server's default.
  std::string field_validation;
  std::function<void(const std::string&)> progress;  ///< stderr lines ("deleting ...")
  std::chrono::seconds delete_timeout{120};
};

struct SubmitResult {
  SubmitOutcome outcome = SubmitOutcome::created;
  nlohmann::json object;  ///< as the server returned (or would return, for a dry run)
};

/// Paths (JSON pointers) where two specs differ, for the "different spec" message.
std::vector<std::string> spec_differences(const nlohmann::json& a, const nlohmann::json& b);

/// Wait until `name` no longer exists (after a delete); false on timeout.
bool wait_gone(kube::Client& c, const kube::ResourceInfo& res, const std::string& ns, const std::string& name,
               std::chrono::milliseconds timeout, const std::string& uid = {});

/// How many TFJobs a submit of several (`submit -f` of many documents) applies at once.
// 8: under client-go's default Burst of 10 (rest.DefaultBurst), so the submit never sends more at once than a default client-go client may; kubectl apply sends one object at a time
inline constexpr std::size_t apply_concurrency = 8;

/// Runs `work(i)` for each i in [0, n), at most `limit` at once on threads of their own;
/// `done(i)` runs on the caller's thread in the order of i, as soon as work(0..i) have
/// ended (results said in input order as they come, as kubectl says each object's).
/// `work` should catch what one item throws; an exception that escapes it is rethrown
/// here after every started item has ended.
void for_each_bounded(std::size_t n, std::size_t limit, const std::function<void(std::size_t)>& work,
                      const std::function<void(std::size_t)>& done);

/// Submit `job` (TFJob JSON with metadata.name) to `ns` with server-side apply.
/// - absent → created;
/// - present with the same spec → unchanged (nothing is sent but a dry run);
/// - present with another spec → `tfjob::error` naming the differences, unless
///   `replace`, which deletes the old job (foreground: its pods go first), waits, and applies.
SubmitResult submit_job(kube::Client& c, const std::string& ns, nlohmann::json job, const SubmitOptions& o = {});

/// The access mode of a claim created for a job: its replicas run on different nodes and
/// all mount the claim, which only ReadWriteMany allows (Kubernetes' access modes).
inline constexpr const char* default_claim_access_mode = "ReadWriteMany";

/// Make sure PVC `name` exists in `ns`: create it (`access_mode`, `size`, `storage_class`
/// or the cluster default when "") when absent, leave it alone when present. Returns the
/// PVC and whether it was created.
std::pair<nlohmann::json, bool> ensure_pvc(kube::Client& c, const std::string& ns, const std::string& name,
                                           const std::string& size, const std::string& storage_class,
                                           bool dry_run = false,
                                           const std::string& access_mode = default_claim_access_mode);

/// Server-side apply `obj` (a namespaced object of `res`) into `ns` with an ownerReference
/// to `owner` (the job as the server returned it), so it is garbage-collected with the job.
/// Returns the object as the server answered (a dry run: as it would be).
nlohmann::json apply_owned(kube::Client& c, const kube::ResourceInfo& res, const std::string& ns,
                           nlohmann::json obj, const nlohmann::json& owner, const SubmitOptions& o = {});

/// Why a PVC is not Bound, from its phase and events (e.g. "no persistent volumes available
/// for this claim and no storage class is set"); "" when Bound or not yet explained.
std::string pvc_pending_reason(const nlohmann::json& pvc, const std::vector<nlohmann::json>& events);

}  // namespace tfjob::workflow

#if TFJOB_SDK_DEFINE_WORKFLOW
namespace tfjob::workflow {

TFJOB_INLINE const char* to_string(SubmitOutcome o) {
  switch (o) {
    case SubmitOutcome::created: return "created";
    case SubmitOutcome::unchanged: return "unchanged";
    case SubmitOutcome::replaced: return "replaced";
  }
  return "";
}

TFJOB_INLINE std::vector<std::string> spec_differences(const nlohmann::json& a, const nlohmann::json& b) {
  std::vector<std::string> out;
  for (const auto& op : nlohmann::json::diff(a, b)) {
    std::string p = "spec" + tfjob::detail::value_at(op, "path", "");
    for (auto& ch : p) if (ch == '/') ch = '.';
    out.push_back(p);
    if (out.size() >= 5) break;
  }
  return out;
}

TFJOB_INLINE bool wait_gone(kube::Client& c, const kube::ResourceInfo& res, const std::string& ns, const std::string& name,
                            std::chrono::milliseconds timeout, const std::string& uid) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    auto o = get_opt(c, res, ns, name);
    if (!o) return true;
    if (!uid.empty() && metadata_of(*o).uid != uid) return true;  // recreated
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
}

TFJOB_INLINE void for_each_bounded(std::size_t n, std::size_t limit, const std::function<void(std::size_t)>& work,
                                   const std::function<void(std::size_t)>& done) {
  if (limit <= 1 || n <= 1) {
    for (std::size_t i = 0; i < n; ++i) {
      work(i);
      done(i);
    }
    return;
  }
  std::mutex mu;
  std::condition_variable cv;
  std::vector<char> finished(n, 0);
  std::atomic<std::size_t> next{0};
  std::exception_ptr escaped;
  auto worker = [&] {
    for (std::size_t i; (i = next.fetch_add(1)) < n;) {
      try {
        work(i);
      } catch (...) {
        std::lock_guard<std::mutex> lk(mu);
        if (!escaped) escaped = std::current_exception();
      }
      std::lock_guard<std::mutex> lk(mu);
      finished[i] = 1;
      cv.notify_one();
    }
  };
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < std::min(limit, n); ++t) threads.emplace_back(worker);
  for (std::size_t i = 0; i < n; ++i) {
    {
      std::unique_lock<std::mutex> lk(mu);
      cv.wait(lk, [&] { return finished[i] != 0; });
    }
    done(i);
  }
  for (auto& t : threads) t.join();
  if (escaped) std::rethrow_exception(escaped);
}

TFJOB_INLINE SubmitResult submit_job(kube::Client& c, const std::string& ns, nlohmann::json job, const SubmitOptions& o) {
  const std::string name = metadata_of(job).name;
  if (name.empty()) throw tfjob::error("cannot submit a TFJob without metadata.name");
  job["metadata"]["namespace"] = ns;
  kube::RequestBuilder b(resources::tfjobs(), ns);
  kube::ApplyParams ap;
  ap.field_manager = o.field_manager;
  ap.field_validation = o.field_validation;
  auto apply = [&](bool dry) {
    ap.dry_run = dry;
    try {
      return c.request_json(b.apply(name, job, ap));
    } catch (const api_error& e) {
      if (e.is_forbidden()) throw tfjob::error(forbidden_message("create", ns, e.status().message));
      throw;
    }
  };
  auto existing = get_opt(c, resources::tfjobs(), ns, name);
  SubmitResult r;
  if (!existing) {
    r.outcome = SubmitOutcome::created;
    r.object = apply(o.dry_run);
    return r;
  }
  // What the job would look like after this apply, against what it is.
  std::optional<nlohmann::json> would;
  std::string conflict;
  try {
    would = apply(true);
  } catch (const api_error& e) {
    if (!e.is_conflict()) throw;
    conflict = e.status().message;  // fields owned by another manager (kubectl apply, an editor...)
  }
  const nlohmann::json old_spec = tfjob::detail::value_at(*existing, "spec", nlohmann::json::object());
  if (would && tfjob::detail::value_at(*would, "spec", nlohmann::json::object()) == old_spec && !o.rerun) {
    r.outcome = SubmitOutcome::unchanged;
    r.object = *existing;
    return r;
  }
  if (!o.replace && !o.rerun) {
    std::string why;
    if (would) {
      auto d = spec_differences(old_spec, tfjob::detail::value_at(*would, "spec", nlohmann::json::object()));
      for (size_t i = 0; i < d.size(); ++i) why += (i ? ", " : "") + d[i];
      why = " (differs at " + why + ")";
    } else {
      why = " (" + conflict + ")";
    }
    throw tfjob::error(reasons::spec_conflict,
                       "TFJob \"" + name + "\" already exists in namespace \"" + ns + "\" with a different spec" + why +
                           ".\nA running TFJob's spec cannot be changed in place",
                       ". Set " + setting::submit_replace + " to delete it and its pods and submit this one, or give it another name.");
  }
  if (o.dry_run) {
    r.outcome = SubmitOutcome::replaced;
    r.object = would ? *would : job;
    return r;
  }
  const std::string uid = metadata_of(*existing).uid;
  if (o.progress)
    o.progress("deleting TFJob " + ns + "/" + name + " and its pods to " + (o.rerun ? "run it again" : "replace it"));
  kube::DeleteParams dp;
  dp.propagation_policy = "Foreground";
  try {
    c.request_json(b.remove(name, dp));
  } catch (const api_error& e) {
    if (!e.is_not_found()) throw;
  }
  if (!wait_gone(c, resources::tfjobs(), ns, name, o.delete_timeout, uid))
    throw tfjob::error("timed out waiting for the old TFJob \"" + name + "\" to be deleted; try again later");
  r.outcome = SubmitOutcome::replaced;
  r.object = apply(false);
  return r;
}

TFJOB_INLINE std::pair<nlohmann::json, bool> ensure_pvc(kube::Client& c, const std::string& ns, const std::string& name,
                                                        const std::string& size, const std::string& storage_class,
                                                        bool dry_run,
                                                        const std::string& access_mode) {
  if (auto pvc = get_opt(c, resources::pvcs(), ns, name)) return {*pvc, false};
  nlohmann::json pvc = {{"apiVersion", "v1"},
                        {"kind", "PersistentVolumeClaim"},
                        {"metadata", {{"name", name}, {"namespace", ns}, {"labels", {{"app.kubernetes.io/created-by", "kubectl-tfjob"}}}}},
                        {"spec", {{"accessModes", {access_mode}}, {"resources", {{"requests", {{"storage", size}}}}}}}};
  if (!storage_class.empty()) pvc["spec"]["storageClassName"] = storage_class;
  kube::PostParams pp;
  pp.dry_run = dry_run;
  try {
    return {c.request_json(kube::RequestBuilder(resources::pvcs(), ns).create(pvc, pp)), true};
  } catch (const api_error& e) {
    // another job of the same submit (applied at the same time) created it first
    if (!e.is_already_exists()) throw;
    if (auto got = get_opt(c, resources::pvcs(), ns, name)) return {*got, false};
    throw;
  }
}

TFJOB_INLINE nlohmann::json apply_owned(kube::Client& c, const kube::ResourceInfo& res, const std::string& ns,
                                        nlohmann::json obj, const nlohmann::json& owner, const SubmitOptions& o) {
  const std::string name = metadata_of(obj).name;
  obj["metadata"]["namespace"] = ns;
  if (!metadata_of(owner).uid.empty())
    obj["metadata"]["ownerReferences"] = nlohmann::json::array({kube::owner_reference(owner)});
  kube::ApplyParams ap;
  ap.field_manager = o.field_manager;
  ap.dry_run = o.dry_run;
  ap.force = true;  // ours alone: take the fields back from whoever edited them
  try {
    return c.request_json(kube::RequestBuilder(res, ns).apply(name, obj, ap));
  } catch (const api_error& e) {
    if (e.is_forbidden())
      throw tfjob::error("you may not create " + res.plural + " in namespace \"" + ns + "\" (403 Forbidden: " +
                         e.status().message + "): the job needs " + res.kind + " \"" + name +
                         "\". Check with: kubectl auth can-i create " + res.plural + " -n " + ns);
    throw;
  }
}

TFJOB_INLINE std::string pvc_pending_reason(const nlohmann::json& pvc, const std::vector<nlohmann::json>& events) {
  k8s::PersistentVolumeClaim claim;
  if (pvc.is_object()) claim = pvc.get<k8s::PersistentVolumeClaim>();
  if (claim.status.phase == "Bound") return "";
  std::string msg;
  // events_for matches the uid too: an event about an earlier claim of the same name
  // (deleted, then created again) says nothing about this one
  for (const auto& e : events_for(events, "PersistentVolumeClaim", claim.metadata.name, claim.metadata.uid)) {
    k8s::Event ev;
    if (e.is_object()) ev = e.get<k8s::Event>();
    // WaitForFirstConsumer: binding waits for the first pod, which is normal
    msg = ev.reason == "WaitForFirstConsumer" ? "" : ev.reason + ": " + ev.message;
  }
  if (!msg.empty()) return msg;
  // a storageClassName of the wrong type stays in `other`: set, as the raw object said
  if (!claim.spec.storage_class_name && !claim.spec.other.contains("storageClassName"))
    return "no storage class is set and the cluster has no default StorageClass to provision a volume";
  return "";
}

}  // namespace tfjob::workflow
#endif  // TFJOB_SDK_DEFINE_WORKFLOW
