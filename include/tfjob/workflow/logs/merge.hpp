#pragma once
/// \file How a job's streams run together: every target's logs one after the other, or one
/// stream per target at once, stopped when the job ends (a watch on each job), and with
/// merge one timeline by the kubelet's timestamps (LogMerger, bounded memory). Part of
/// <tfjob/workflow/logs.hpp>.

#include <tfjob/detail/compiled.hpp>
#include <tfjob/kube/side_task.hpp>
#include <tfjob/workflow/cluster.hpp>
#include <tfjob/workflow/job_watch.hpp>
#include <tfjob/workflow/logs/follow.hpp>
#include <tfjob/workflow/logs/record.hpp>
#include <tfjob/workflow/logs/targets.hpp>
#include <tfjob/workflow/status.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace tfjob::workflow {

/// Merges several streams into one timeline by the kubelet's timestamps. Each stream
/// pushes its records in order; a record goes out when every live stream has one waiting
/// (the smallest first), or, when following, once the oldest has been held `window` (a
/// stream with nothing to say does not hold the others up longer than that). Each stream
/// keeps at most `per_stream` records waiting (its producer blocks): bounded memory.
class LogMerger {
 public:
  using Sink = std::function<void(const LogRecord&)>;
  LogMerger(std::size_t streams, std::optional<std::chrono::milliseconds> window, Sink sink, std::size_t per_stream = 1024)
      : q_(streams), ended_(streams, false), window_(window), sink_(std::move(sink)), cap_(per_stream) {}

  /// Stream `i` has a record (copied). Blocks while its queue is full.
  void push(std::size_t i, const LogRecord& r);
  /// Stream `i` has ended.
  void end(std::size_t i);
  /// Release records until every stream has ended and all are out (call on one thread).
  void run();
  /// Unblock producers (on cancel).
  void stop();

 private:
  struct Held {
    LogSource source;
    std::string text, ts;
    bool first = true, last = true, terminated = true;
    std::chrono::steady_clock::time_point at;
  };
  struct Queue {
    std::deque<Held> items;
    std::string line_ts;
  };
  // the kubelet writes fixed-width RFC 3339 UTC times (9 fraction digits): text order is time order
  static bool less(const Held& a, std::size_t ai, const Held& b, std::size_t bi);
  std::vector<Queue> q_;
  std::vector<bool> ended_;
  std::optional<std::chrono::milliseconds> window_;
  Sink sink_;
  std::size_t cap_;
  std::optional<std::size_t> open_;
  std::chrono::steady_clock::time_point open_since_;
  bool stop_ = false;
  std::mutex mu_;
  std::condition_variable ready_, space_;
};

/// How job_logs runs its streams.
struct JobLogsRun {
  bool merge = false;  ///< one timeline by timestamp (else in reading order, or as they come when following)
  std::chrono::milliseconds merge_window{300};  ///< following: how long a line may wait for slower streams
};

/// What each stream of job_logs ended with.
struct JobLogsResult {
  std::vector<JobLogResult> results;  ///< one per target
  std::vector<std::string> errors;    ///< one per target, "" when none
};

/// Every target's logs (see log_targets). Without follow and merge, one after the other in
/// order; otherwise one stream per target at once, `sink` called under one lock (with
/// merge: in timestamp order, see LogMerger).
JobLogsResult job_logs(kube::Client c, const std::string& ns, const std::vector<LogTarget>& targets,
                       JobLogOptions o, const JobLogsRun& how, const std::function<bool(const LogRecord&)>& sink);

}  // namespace tfjob::workflow

#if TFJOB_SDK_DEFINE_WORKFLOW
#include <tfjob/workflow/logs/impl/merge_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_WORKFLOW
