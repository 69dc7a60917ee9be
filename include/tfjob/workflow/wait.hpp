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
  nlohmann::json job;       ///< the last object seen
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
namespace tfjob::workflow {

namespace detail {

/// Hands the job's changes the watch delivered to `o.on_change` and decides: true when the
/// wait is over (the job was deleted, or `o.condition` is reached or can no longer be), with
/// `rep` saying how.
TFJOB_INLINE bool take_job_changes(JobWatch& watch, const WaitOptions& o, WaitReport& rep) {
  bool finished = false;
  for (auto& ch : watch.take_changes()) {
    rep.job = ch.object;
    rep.summary = summarize(ch.object);
    if (ch.deleted) {
      rep.result = WaitResult::deleted;
      finished = true;
      break;
    }
    if (o.on_change) o.on_change(rep.summary);
    if (!o.for_delete) {
      switch (wait_outcome(rep.summary, o.condition)) {
        case WaitOutcome::reached: rep.result = WaitResult::reached; finished = true; break;
        case WaitOutcome::impossible: rep.result = WaitResult::impossible; finished = true; break;
        case WaitOutcome::pending: break;
      }
    }
    if (finished) break;
  }
  return finished;
}

/// Looks at what the watches know now: hands a new progress snapshot to `o.on_progress`
/// (when its line differs from `last_line`) and, with `o.stop_when_stuck`, sets `stuck` and
/// `rep.waiting` when a pod cannot start. True when the wait is over: the job watch ended,
/// or a pod is stuck.
TFJOB_INLINE bool look_at_view(const JobWatch& watch, const WaitOptions& o, WaitReport& rep, std::string& last_line, bool& stuck) {
  auto v = watch.view();
  if (v.ended) return true;
  if (!o.for_delete && !v.job.is_null()) {
    auto snap = v.progress();
    if (o.stop_when_stuck) {
      std::vector<PendingReason> cannot;
      for (const auto& w : snap.waiting)
        if (cannot_start(w.reason)) cannot.push_back(w);
      if (!cannot.empty()) {
        rep.waiting = cannot;
        stuck = true;
      }
    }
    if (o.on_progress && snap.line() != last_line) {
      last_line = snap.line();
      o.on_progress(snap);
    }
    if (stuck) return true;
  }
  return false;
}

/// The wait itself: hands changes and snapshots to the callbacks (on this thread) and
/// decides; wakes for every change the watches deliver, and every 100 ms to see `o.cancel`.
/// Ends when `finished` (take_job_changes), `stuck` (look_at_view), the job watch ended,
/// `o.cancel` was raised or `deadline` passed.
TFJOB_INLINE void watch_until_done(JobWatch& watch, const WaitOptions& o, std::chrono::steady_clock::time_point deadline,
                                   WaitReport& rep, bool& finished, bool& stuck) {
  using clock = std::chrono::steady_clock;
  std::string last_line;
  std::uint64_t seen = 0, looked = 0;
  for (;;) {
    seen = watch.wait(seen, std::chrono::milliseconds(100));
    finished = take_job_changes(watch, o, rep);
    if (finished) break;
    if (seen != looked) {
      looked = seen;
      if (look_at_view(watch, o, rep, last_line, stuck)) break;
    }
    if ((o.cancel && o.cancel->load()) || clock::now() >= deadline) break;
  }
}

/// Where the pods ended, once, for a job that reached the condition or can no longer: the
/// job's last change can come before the pods' own on their separate watch, so one look at
/// them settles the final snapshot.
TFJOB_INLINE void report_final_progress(kube::Client& c, const std::string& ns, const std::string& name, const WaitOptions& o,
                                        const WaitReport& rep) {
  if (o.on_progress && (rep.result == WaitResult::reached || rep.result == WaitResult::impossible)) {
    try {
      auto pods = job_pods(c, ns, name);
      o.on_progress(progress(rep.job, pods, job_events(c, ns, rep.job, pods, PodEvents::pending)));
    } catch (const std::exception&) {
      // best effort: the outcome is decided
    }
  }
}

/// On a timeout: why the pods were not there yet (from `last`, what the watches knew at the
/// end) and where the job waits in a queue.
TFJOB_INLINE void report_timeout(kube::Client& c, const std::string& ns, const std::string& name, const WaitOptions& o,
                                 const JobWatch::View& last, WaitReport& rep) {
  if (rep.result == WaitResult::timeout && !o.for_delete) {
    rep.waiting = last.progress().waiting;
    const nlohmann::json& job = last.job.is_null() ? rep.job : last.job;
    if (!job.is_null()) {
      try {
        const QueueState q = gather_queue_state(c, ns, job);
        rep.queue = queue_wait_findings(job, job_pods(c, ns, name), queue_events(c, ns, q), q);
      } catch (const tfjob::error&) {
        // one look after the timeout: what cannot be read leaves the reasons above
      }
    }
  }
}

}  // namespace detail

TFJOB_INLINE WaitReport wait_for_job(kube::Client c, const std::string& ns, const std::string& name, const WaitOptions& o) {
  WaitReport rep;
  if (!get_opt(c, resources::tfjobs(), ns, name)) {
    rep.result = WaitResult::not_found;
    return rep;
  }
  using clock = std::chrono::steady_clock;
  const auto deadline = o.timeout.count() > 0 ? clock::now() + o.timeout : clock::time_point::max();
  JobWatchOptions jo;
  jo.pods = jo.events = !o.for_delete;  // its pods by the v1.9 operator's label (older operators' are not followed)
  jo.deadline = deadline;
  JobWatch watch(c, ns, name, jo);

  bool finished = false, stuck = false;
  detail::watch_until_done(watch, o, deadline, rep, finished, stuck);
  const auto last = watch.view();
  watch.stop();
  if (!finished) watch.rethrow_error();
  if (stuck) {
    rep.result = WaitResult::stuck;
    return rep;
  }
  if (!finished) rep.result = WaitResult::timeout;
  detail::report_final_progress(c, ns, name, o, rep);
  detail::report_timeout(c, ns, name, o, last, rep);
  return rep;
}

}  // namespace tfjob::workflow
#endif  // TFJOB_SDK_DEFINE_WORKFLOW
