#pragma once
/// \file The bodies of <tfjob/workflow/wait.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_WORKFLOW` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/workflow/wait.hpp>, never this file.

namespace tfjob::workflow {

namespace detail {

/// Hands the job's changes the watch delivered to `o.on_change` and decides: true when the
/// wait is over (the job was deleted, or `o.condition` is reached or can no longer be), with
/// `rep` saying how.
TFJOB_INLINE bool take_job_changes(JobWatch& watch, const WaitOptions& o, WaitReport& rep) {
  bool finished = false;
  for (auto& ch : watch.take_changes()) {
    rep.summary = summarize(ch.object);
    rep.job = std::move(ch.object);
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
  if (!o.for_delete && v.job) {
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
  if (o.on_progress && rep.job && (rep.result == WaitResult::reached || rep.result == WaitResult::impossible)) {
    try {
      auto pods = job_pods(c, ns, name);
      o.on_progress(progress(*rep.job, pods, job_events(c, ns, rep.job->metadata, pods, PodEvents::pending)));
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
    const std::optional<TFJob>& job = last.job ? last.job : rep.job;
    if (job) {
      try {
        const QueueState q = gather_queue_state(c, ns, *job);
        rep.queue = queue_wait_findings(*job, job_pods(c, ns, name), queue_events(c, ns, q), q);
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
