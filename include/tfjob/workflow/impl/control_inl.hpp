#pragma once
/// \file The bodies of <tfjob/workflow/control.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_WORKFLOW` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/workflow/control.hpp>, never this file.

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
  const TFJob job = tfjob::detail::from_json_of<TFJob>(obj);
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
