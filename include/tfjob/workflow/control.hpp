#pragma once
/// \file Changing a job that exists: suspend it, resume it, scale its Workers. Each change is
/// a pure decision (`*_refusal`: why the operator would not do it, "" when it would) and a
/// JSON merge patch of the TFJob, sent when the job is not already in the wanted state.
///
/// The operator's side (training operator v1.9, `pkg/controller.v1/common/job.go`
/// ReconcileJobs): a job with `runPolicy.suspend: true` has its pods and services deleted
/// and keeps the job with a Suspended condition; set back to false, the operator recreates
/// the pods, sets Suspended False (JobResumed) and restarts the clock (startTime). A
/// finished job is only cleaned up, so suspending or resuming it changes nothing.
/// Scaling: ReconcilePods creates the missing indices and deletes the pods at index >=
/// replicas; every pod's TF_CONFIG lists the cluster it was created with, so only a job
/// with `enableDynamicWorker` (a sparse TF_CONFIG, TF's elastic training) can change its
/// Worker count while it runs.

#include <tfjob/api/builder.hpp>  // kueue_queue_name_label
#include <tfjob/api/types.hpp>
#include <tfjob/detail/compiled.hpp>
#include <tfjob/error.hpp>
#include <tfjob/workflow/cluster.hpp>

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace tfjob::workflow {

/// What a change did.
struct ChangeResult {
  bool changed = false;       ///< false: the job was already so (nothing sent)
  nlohmann::json job;         ///< the job as the server answered (or as read, when unchanged)
  std::vector<std::string> notes;  ///< what the caller should tell the user (Kueue, ...)
};

/// The merge patch that suspends (`true`) or resumes (`false`) a job.
nlohmann::json suspend_patch(bool suspend);
/// Why suspending (`suspend`) or resuming a job cannot work, or "" when it can.
std::string suspend_refusal(const TFJob& job, bool suspend);
/// Whether the job asks to be suspended (`runPolicy.suspend`).
bool is_suspended_spec(const TFJob& job);
/// The notes for a suspend/resume of `job`: a job in a Kueue LocalQueue has its
/// runPolicy.suspend owned by Kueue (it unsuspends the job on admission, and suspends
/// again one it has not admitted); a job managed by another controller is not reconciled
/// by the training operator (v1.9 managedBy).
std::vector<std::string> suspend_notes(const TFJob& job, bool suspend);
/// Suspends (`suspend`) or resumes the TFJob `name` in `ns`. Throws `api_error` (NotFound
/// and others, from the server) and `tfjob::error` with `suspend_refusal`'s reason.
ChangeResult set_suspended(kube::Client& c, const std::string& ns, const std::string& name, bool suspend);
/// The merge patch that sets the Worker count.
nlohmann::json scale_patch(int workers);
/// Why the job's Workers cannot be scaled to `workers`, or "" when they can.
std::string scale_refusal(const TFJob& job, int workers);
/// Sets the Worker count of the TFJob `name` in `ns`. Throws `api_error` from the server,
/// and `tfjob::error` with `scale_refusal`'s reason.
ChangeResult scale_workers(kube::Client& c, const std::string& ns, const std::string& name, int workers);

}  // namespace tfjob::workflow

#if TFJOB_SDK_DEFINE_WORKFLOW
#include <tfjob/workflow/impl/control_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_WORKFLOW
