#pragma once
/// \file Submitting a TFJob with server-side apply, so that resubmitting the same spec changes
/// nothing and a different spec is refused unless the caller asks to replace the job; a
/// submit of several at once (kube::for_each_bounded), the claims and owned objects a job needs.
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
#include <tfjob/kube/side_task.hpp>
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
/// kube::request_concurrency (kubectl apply sends one object at a time).
inline constexpr std::size_t apply_concurrency = kube::request_concurrency;


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
std::string pvc_pending_reason(const k8s::PersistentVolumeClaim& claim, const std::vector<k8s::Event>& events);

}  // namespace tfjob::workflow

#if TFJOB_SDK_DEFINE_WORKFLOW
#include <tfjob/workflow/cluster/impl/submit_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_WORKFLOW
