#pragma once
/// \file Waiting on a TFJob, driven by a watch (not polling): until a condition holds, the
/// job ends in a way that makes the condition impossible, it is deleted, or time runs out.
/// An optional progress callback gets a fresh `Progress` (pods, scheduler reasons) as the
/// job starts.

#include <tfjob/kube/api.hpp>
#include <tfjob/kube/core.hpp>
#include <tfjob/workflow/cluster.hpp>
#include <tfjob/workflow/progress.hpp>
#include <tfjob/workflow/status.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

namespace tfjob::workflow {

/// How a wait ended.
enum class WaitResult { reached, impossible, timeout, deleted, not_found };

struct WaitReport {
  WaitResult result = WaitResult::timeout;
  JobSummary summary;       ///< the job as last seen
  nlohmann::json job;       ///< the last object seen
  /// On a timeout: why its pods were not there yet (the scheduler's or kubelet's reason per
  /// waiting pod), from one look at its pods and events after the watch ended.
  std::vector<PendingReason> waiting;
};

struct WaitOptions {
  std::string condition = "Succeeded";  ///< Created, Running, Restarting, Succeeded, Failed, Suspended
  /// Wait for the job to be deleted instead (kubectl wait --for=delete): only a DELETED
  /// event ends the wait, reported as WaitResult::deleted; `condition` is ignored.
  bool for_delete = false;
  std::chrono::milliseconds timeout{0};  ///< 0 = no limit
  /// Called with each new progress snapshot (from the pods and events of the job), at most
  /// every `progress_interval`; empty = no progress (no pod listing at all).
  std::function<void(const Progress&)> on_progress;
  std::chrono::milliseconds progress_interval{1000};
  /// Called with every job change the watch delivers.
  std::function<void(const JobSummary&)> on_change;
  /// Stop early when raised (e.g. the log follower saw the job end).
  const std::atomic<bool>* cancel = nullptr;
};

/// Wait for `name` in `ns` to reach `o.condition`; see WaitResult.
inline WaitReport wait_for_job(kube::Client c, const std::string& ns, const std::string& name, const WaitOptions& o) {
  WaitReport rep;
  if (!get_opt(c, resources::tfjobs(), ns, name)) {
    rep.result = WaitResult::not_found;
    return rep;
  }
  std::atomic<bool> stop{false};
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  nlohmann::json last_job;
  const auto deadline = std::chrono::steady_clock::now() + o.timeout;

  // Timer + progress thread: raises `stop` at the deadline; refreshes the progress line.
  std::thread side([&] {
    std::unique_lock<std::mutex> lk(mu);
    auto next_progress = std::chrono::steady_clock::now();
    while (!done) {
      auto now = std::chrono::steady_clock::now();
      if (o.timeout.count() > 0 && now >= deadline) {
        stop = true;
        return;
      }
      if (o.cancel && o.cancel->load()) {
        stop = true;
        return;
      }
      if (o.on_progress && now >= next_progress && !last_job.is_null()) {
        nlohmann::json job = last_job;
        lk.unlock();
        try {
          kube::Client pc = c;
          auto pods = job_pods(pc, ns, name);
          auto events = namespace_events(pc, ns);
          if (!stop) o.on_progress(progress(job, pods, events));
        } catch (const std::exception&) {
          // progress is best effort; the watch decides the outcome
        }
        lk.lock();
        next_progress = std::chrono::steady_clock::now() + o.progress_interval;
      }
      cv.wait_for(lk, std::chrono::milliseconds(50));
    }
  });
  struct Joiner {
    std::thread& t;
    std::mutex& mu;
    bool& done;
    std::condition_variable& cv;
    ~Joiner() {
      {
        std::lock_guard<std::mutex> lk(mu);
        done = true;
      }
      cv.notify_all();
      if (t.joinable()) t.join();
    }
  } joiner{side, mu, done, cv};

  kube::Api<kube::DynamicObject> api(c, resources::tfjobs(), ns);
  kube::WatchParams wp;
  wp.field_selector = "metadata.name=" + name;
  kube::StreamOptions so;
  so.cancel = &stop;
  bool finished = false;
  api.watch(wp, [&](const kube::WatchEvent<kube::DynamicObject>& ev) {
    if (ev.type == "BOOKMARK") return true;
    if (ev.type == "DELETED") {
      rep.result = WaitResult::deleted;
      rep.job = ev.object.json;
      rep.summary = summarize(ev.object.json);
      finished = true;
      return false;
    }
    rep.job = ev.object.json;
    rep.summary = summarize(ev.object.json);
    {
      std::lock_guard<std::mutex> lk(mu);
      last_job = ev.object.json;
    }
    if (o.on_change) o.on_change(rep.summary);
    if (o.for_delete) return true;
    switch (wait_outcome(rep.summary, o.condition)) {
      case WaitOutcome::reached: rep.result = WaitResult::reached; finished = true; return false;
      case WaitOutcome::impossible: rep.result = WaitResult::impossible; finished = true; return false;
      case WaitOutcome::pending: return true;
    }
    return true;
  }, so);
  if (!finished) rep.result = WaitResult::timeout;
  // The job can end before the side thread's first snapshot (a short job, or one that had
  // finished before the wait began): still show where its pods ended, once, after the
  // side thread has stopped so nothing older follows it.
  if (o.on_progress && (rep.result == WaitResult::reached || rep.result == WaitResult::impossible)) {
    {
      std::lock_guard<std::mutex> lk(mu);
      done = true;
    }
    cv.notify_all();
    if (side.joinable()) side.join();
    try {
      auto pods = job_pods(c, ns, name);
      auto events = namespace_events(c, ns);
      o.on_progress(progress(rep.job, pods, events));
    } catch (const std::exception&) {
      // best effort, as above
    }
  }
  if (rep.result == WaitResult::timeout && !o.for_delete) {
    try {
      auto pods = job_pods(c, ns, name);
      auto events = namespace_events(c, ns);
      rep.waiting = progress(rep.job.is_null() ? nlohmann::json::object() : rep.job, pods, events).waiting;
    } catch (const std::exception&) {
      // best effort: the timeout is the outcome either way
    }
  }
  return rep;
}

}  // namespace tfjob::workflow
