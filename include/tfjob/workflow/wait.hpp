#pragma once
/// \file Waiting on a TFJob, driven by watches (no polling): until a condition holds, the
/// job ends in a way that makes the condition impossible, it is deleted, one of its pods
/// cannot start as it is (on request), or time runs out. Three long-lived watches per wait,
/// however long it lasts: the job, its pods (by the operator's job-name label) and the
/// namespace's events (kept only for the job and its pods); progress snapshots come from
/// what they delivered, not from listing.

#include <tfjob/kube/api.hpp>
#include <tfjob/kube/core.hpp>
#include <tfjob/workflow/cluster.hpp>
#include <tfjob/workflow/progress.hpp>
#include <tfjob/workflow/status.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
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

namespace detail {

/// What the watches of one wait have delivered, guarded by `mu`.
struct WaitCache {
  std::mutex mu;
  std::condition_variable cv;
  nlohmann::json job;                           ///< null until the job watch delivered it
  std::map<std::string, nlohmann::json> pods;   ///< by name
  std::map<std::string, nlohmann::json> events; ///< by uid: the job's and its pods' only
  std::deque<std::string> event_order;          ///< insertion order, for the bound
  std::vector<JobSummary> changes;              ///< job changes not yet given to on_change
  bool dirty = false;                           ///< something changed since the last snapshot
  bool ended = false;                           ///< the job watch returned
  std::exception_ptr error;                     ///< why the job watch failed
  /// the events kept: far more than a job's pods produce while starting
  static constexpr std::size_t max_events = 2000;

  void keep_event(const nlohmann::json& e, const std::string& job) {
    const auto io = e.value("involvedObject", nlohmann::json::object());
    const std::string kind = io.value("kind", ""), name = io.value("name", "");
    // the job's own events, and its pods' (named {job}-{type}-{index}: GenGeneralName)
    const bool mine = (kind == "TFJob" && name == job) || (kind == "Pod" && name.rfind(job + "-", 0) == 0);
    if (!mine) return;
    const std::string uid = e.value("/metadata/uid"_json_pointer, std::string(name + "/" + e.value("reason", "")));
    if (events.emplace(uid, e).second) {
      event_order.push_back(uid);
      if (event_order.size() > max_events) {
        events.erase(event_order.front());
        event_order.pop_front();
      }
    } else {
      events[uid] = e;  // a repeat: the count and lastTimestamp moved
    }
    dirty = true;
  }

  Progress snapshot() const {
    std::vector<nlohmann::json> p, e;
    p.reserve(pods.size());
    for (const auto& [n, pod] : pods) p.push_back(pod);
    e.reserve(events.size());
    for (const auto& [u, ev] : events) e.push_back(ev);
    return progress(job.is_null() ? nlohmann::json::object() : job, p, e);
  }
};

/// Runs a best-effort watch into the cache until `stop`; errors end it (progress and the
/// stuck check then know less, the job watch still decides the outcome).
inline void watch_into(kube::Client c, const kube::ResourceInfo& res, const std::string& ns, kube::WatchParams wp,
                       const kube::StreamOptions& so, WaitCache& cache,
                       const std::function<void(const kube::WatchEvent<kube::DynamicObject>&)>& apply) {
  try {
    kube::Api<kube::DynamicObject> api(c, res, ns);
    api.watch(wp, [&](const kube::WatchEvent<kube::DynamicObject>& ev) {
      if (ev.type == "BOOKMARK") return true;
      {
        std::lock_guard<std::mutex> lk(cache.mu);
        apply(ev);
      }
      cache.cv.notify_all();
      return true;
    }, so);
  } catch (const std::exception&) {
    // events may be forbidden to the user; a failing side watch only makes progress poorer
  }
}

}  // namespace detail

/// Wait for `name` in `ns` to reach `o.condition`; see WaitResult.
inline WaitReport wait_for_job(kube::Client c, const std::string& ns, const std::string& name, const WaitOptions& o) {
  WaitReport rep;
  if (!get_opt(c, resources::tfjobs(), ns, name)) {
    rep.result = WaitResult::not_found;
    return rep;
  }
  using clock = std::chrono::steady_clock;
  const auto deadline = o.timeout.count() > 0 ? clock::now() + o.timeout : clock::time_point::max();
  std::atomic<bool> stop{false};
  kube::StreamOptions so;
  so.cancel = &stop;
  so.deadline = deadline;
  detail::WaitCache cache;
  bool finished = false;  // guarded by cache.mu once the threads run

  std::vector<std::thread> watches;
  struct Joiner {
    std::atomic<bool>& stop;
    std::vector<std::thread>& threads;
    ~Joiner() {
      stop = true;
      for (auto& t : threads)
        if (t.joinable()) t.join();
    }
  } joiner{stop, watches};

  // the job: decides the outcome
  watches.emplace_back([&, c]() mutable {
    try {
      kube::Api<kube::DynamicObject> api(c, resources::tfjobs(), ns);
      kube::WatchParams wp;
      wp.field_selector = "metadata.name=" + name;
      api.watch(wp, [&](const kube::WatchEvent<kube::DynamicObject>& ev) {
        if (ev.type == "BOOKMARK") return true;
        std::lock_guard<std::mutex> lk(cache.mu);
        rep.job = ev.object.json;
        rep.summary = summarize(ev.object.json);
        if (ev.type == "DELETED") {
          rep.result = WaitResult::deleted;
          finished = true;
        } else {
          cache.job = ev.object.json;
          cache.changes.push_back(rep.summary);
          cache.dirty = true;
          if (!o.for_delete) {
            switch (wait_outcome(rep.summary, o.condition)) {
              case WaitOutcome::reached: rep.result = WaitResult::reached; finished = true; break;
              case WaitOutcome::impossible: rep.result = WaitResult::impossible; finished = true; break;
              case WaitOutcome::pending: break;
            }
          }
        }
        cache.cv.notify_all();
        return !finished;
      }, so);
    } catch (...) {
      std::lock_guard<std::mutex> lk(cache.mu);
      cache.error = std::current_exception();
    }
    std::lock_guard<std::mutex> lk(cache.mu);
    cache.ended = true;
    cache.cv.notify_all();
  });
  if (!o.for_delete) {
    // its pods, by the v1.9 operator's label (older operators' pods are not followed here)
    kube::WatchParams pw;
    pw.label_selector = pod_selectors(name).front();
    watches.emplace_back(detail::watch_into, c, resources::pods(), ns, pw, so, std::ref(cache),
                         [&](const kube::WatchEvent<kube::DynamicObject>& ev) {
                           const std::string pod = ev.object.json.value("/metadata/name"_json_pointer, std::string());
                           if (ev.type == "DELETED") cache.pods.erase(pod);
                           else cache.pods[pod] = ev.object.json;
                           cache.dirty = true;
                         });
    // the namespace's events, of which only the job's and its pods' are kept
    watches.emplace_back(detail::watch_into, c, resources::events(), ns, kube::WatchParams{}, so, std::ref(cache),
                         [&](const kube::WatchEvent<kube::DynamicObject>& ev) {
                           if (ev.type != "DELETED") cache.keep_event(ev.object.json, name);
                         });
  }

  // The waiting thread: hands changes and snapshots to the callbacks (outside the lock) and
  // decides "stuck"; wakes for every change, and every 100 ms to see `o.cancel`.
  std::string last_line;
  bool stuck = false;
  for (;;) {
    std::vector<JobSummary> changes;
    std::optional<Progress> snap;
    bool end = false;
    {
      std::unique_lock<std::mutex> lk(cache.mu);
      cache.cv.wait_for(lk, std::chrono::milliseconds(100), [&] {
        return cache.ended || !cache.changes.empty() || (cache.dirty && !cache.job.is_null());
      });
      changes.swap(cache.changes);
      if (cache.dirty && !cache.job.is_null() && !cache.ended) {
        cache.dirty = false;
        snap = cache.snapshot();
      }
      end = cache.ended;
    }
    for (const auto& ch : changes)
      if (o.on_change) o.on_change(ch);
    if (end) break;
    if (snap) {
      if (o.stop_when_stuck) {
        std::vector<PendingReason> cannot;
        for (const auto& w : snap->waiting)
          if (cannot_start(w.reason)) cannot.push_back(w);
        if (!cannot.empty()) {
          rep.waiting = cannot;
          stuck = true;
        }
      }
      if (o.on_progress && snap->line() != last_line) {
        last_line = snap->line();
        o.on_progress(*snap);
      }
      if (stuck) break;
    }
    if (o.cancel && o.cancel->load()) break;
  }
  stop = true;
  for (auto& t : watches) t.join();
  watches.clear();
  if (cache.error) std::rethrow_exception(cache.error);
  if (stuck && !finished) {
    rep.result = WaitResult::stuck;
    return rep;
  }
  if (!finished) rep.result = WaitResult::timeout;
  // Where the pods ended, once: the job's last change can come before the pods' own on
  // their separate watch, so one look at them settles the final snapshot.
  if (o.on_progress && (rep.result == WaitResult::reached || rep.result == WaitResult::impossible)) {
    try {
      auto pods = job_pods(c, ns, name);
      auto events = namespace_events(c, ns);
      o.on_progress(progress(rep.job, pods, events));
    } catch (const std::exception&) {
      // best effort: the outcome is decided
    }
  }
  if (rep.result == WaitResult::timeout && !o.for_delete) {
    std::lock_guard<std::mutex> lk(cache.mu);
    rep.waiting = cache.snapshot().waiting;
  }
  return rep;
}

}  // namespace tfjob::workflow
