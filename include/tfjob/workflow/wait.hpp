#pragma once
/// \file Waiting on a TFJob, driven by watches (no polling): until a condition holds, the
/// job ends in a way that makes the condition impossible, it is deleted, one of its pods
/// cannot start as it is (on request), or time runs out. Three long-lived watches per wait,
/// however long it lasts (a JobWatch: the job, its pods by the operator's job-name label, the
/// job's events by their field selector); progress snapshots come from what they delivered,
/// not from listing, and nothing is asked of the namespace beyond the job's own.

#include <tfjob/detail/compiled.hpp>
#include <tfjob/workflow/cluster.hpp>
#include <tfjob/workflow/job_watch.hpp>
#include <tfjob/workflow/progress.hpp>
#include <tfjob/workflow/queues.hpp>
#include <tfjob/workflow/status.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace tfjob::workflow {

/// How a wait ended.
enum class WaitResult {
  reached,
  impossible,
  timeout,
  deleted,
  not_found,
  stuck,  ///< a pod cannot start as it is (`cannot_start`); only with WaitOptions::stop_when_stuck
};

struct WaitReport {
  WaitResult result = WaitResult::timeout;
  JobSummary summary;       ///< the job as last seen
  std::optional<TFJob> job;  ///< the last object seen (decoded as its watch delivered it)
  /// On a timeout: why its pods were not there yet (the scheduler's or kubelet's reason per
  /// waiting pod); when stuck: the pods that cannot start, with the kubelet's reason.
  std::vector<PendingReason> waiting;
  /// On a timeout: where the job waits in a queue rather than for a node (its Kueue
  /// Workload, its PodGroup) or holds GPUs partly Running (workflow/queues.hpp).
  std::vector<Finding> queue;
};

struct WaitOptions {
  std::string condition = "Succeeded";  ///< Created, Running, Restarting, Succeeded, Failed, Suspended
  /// Wait for the job to be deleted instead (kubectl wait --for=delete): only a DELETED
  /// event ends the wait, reported as WaitResult::deleted; `condition` is ignored.
  bool for_delete = false;
  std::chrono::milliseconds timeout{0};  ///< 0 = no limit
  /// Called on the waiting thread with each new progress snapshot (its line differs from the
  /// last one's), as the watches deliver changes; empty = no progress.
  std::function<void(const Progress&)> on_progress;
  /// Called on the waiting thread with every job change the watch delivers.
  std::function<void(const JobSummary&)> on_change;
  /// End with WaitResult::stuck as soon as a pod of the job waits for a reason that does
  /// not resolve without the user (`cannot_start`: the image is not on the node under
  /// imagePullPolicy Never, or its name is invalid), instead of waiting out the timeout.
  bool stop_when_stuck = false;
  /// Stop early when raised (e.g. the log follower saw the job end); seen within 100 ms.
  const std::atomic<bool>* cancel = nullptr;
};

/// Wait for `name` in `ns` to reach `o.condition`; see WaitResult.
WaitReport wait_for_job(kube::Client c, const std::string& ns, const std::string& name, const WaitOptions& o);

}  // namespace tfjob::workflow

#if TFJOB_SDK_DEFINE_WORKFLOW
#include <tfjob/workflow/impl/wait_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_WORKFLOW
