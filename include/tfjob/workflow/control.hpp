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
namespace tfjob::workflow {

TFJOB_INLINE nlohmann::json suspend_patch(bool suspend) { return {{"spec", {{"runPolicy", {{"suspend", suspend}}}}}}; }

TFJOB_INLINE std::string suspend_refusal(const TFJob& job, bool suspend) {
  const auto& st = job.status;
  if (st && st->finished())
    return std::string("the job has ") + (st->succeeded() ? "Succeeded" : "Failed") + ": the operator only cleans up a finished job, it does not " +
           (suspend ? "suspend" : "resume") + " it";
  return "";
}

TFJOB_INLINE bool is_suspended_spec(const TFJob& job) { return job.spec.run_policy.suspend.value_or(false); }

TFJOB_INLINE std::vector<std::string> suspend_notes(const TFJob& job, bool suspend) {
  std::vector<std::string> notes;
  if (auto it = job.metadata.labels.find(kueue_queue_name_label); it != job.metadata.labels.end())
    notes.push_back("the job is in Kueue LocalQueue \"" + it->second + "\": Kueue " +
                    (suspend ? "keeps its quota reserved until it evicts the job's Workload"
                             : "suspends it again unless its Workload is admitted"));
  if (const auto& m = job.spec.run_policy.managed_by; m && *m != managed_by_kubeflow)
    notes.push_back("the job is managed by " + *m + ", not by the training operator: that controller acts on runPolicy.suspend");
  return notes;
}

namespace detail {
template <class Done, class Refusal>
inline ChangeResult change_job(kube::Client& c, const std::string& ns, const std::string& name, Done done, Refusal refusal,
                               const nlohmann::json& patch) {
  const auto res = resources::tfjobs();
  auto obj = c.request_json(kube::RequestBuilder(res, ns).get(name));
  const TFJob job = obj.get<TFJob>();
  ChangeResult r;
  if (done(job)) {
    r.job = std::move(obj);
    return r;
  }
  if (std::string why = refusal(job); !why.empty()) throw error("tfjob " + ns + "/" + name + ": " + why);
  r.job = c.request_json(kube::RequestBuilder(res, ns).merge_patch(name, patch));
  r.changed = true;
  return r;
}
}  // namespace detail

TFJOB_INLINE ChangeResult set_suspended(kube::Client& c, const std::string& ns, const std::string& name, bool suspend) {
  std::vector<std::string> notes;
  auto r = detail::change_job(
      c, ns, name,
      [&](const TFJob& j) {
        notes = suspend_notes(j, suspend);
        return is_suspended_spec(j) == suspend;
      },
      [&](const TFJob& j) { return suspend_refusal(j, suspend); }, suspend_patch(suspend));
  r.notes = std::move(notes);
  return r;
}

TFJOB_INLINE nlohmann::json scale_patch(int workers) {
  return {{"spec", {{"tfReplicaSpecs", {{replica_type::Worker, {{"replicas", workers}}}}}}}};
}

TFJOB_INLINE std::string scale_refusal(const TFJob& job, int workers) {
  if (workers < 0) return "the Worker count must be 0 or more, got " + std::to_string(workers);
  if (job.status && job.status->finished())
    return std::string("the job has ") + (job.status->succeeded() ? "Succeeded" : "Failed") + ": the operator does not create pods for a finished job";
  if (!job.has_replica(replica_type::Worker)) return "the job has no Worker replicas to scale";
  if (!job.spec.enable_dynamic_worker)
    return "enableDynamicWorker is not set: every pod's TF_CONFIG lists the Workers it was created with, so the running "
           "replicas would not see a changed count; submit the job with enableDynamicWorker (elastic training), or "
           "delete and submit it again with the new count";
  return "";
}

TFJOB_INLINE ChangeResult scale_workers(kube::Client& c, const std::string& ns, const std::string& name, int workers) {
  return detail::change_job(
      c, ns, name,
      [&](const TFJob& j) {
        const auto* w = j.replica(replica_type::Worker);
        return w && w->replicas_or_default() == workers;
      },
      [&](const TFJob& j) { return scale_refusal(j, workers); }, scale_patch(workers));
}

}  // namespace tfjob::workflow
#endif  // TFJOB_SDK_DEFINE_WORKFLOW
