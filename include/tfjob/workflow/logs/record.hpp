#pragma once
/// \file What a job's log reading is given and gives back: where a line comes from
/// (LogSource), a container's state changes (LogEvent), the options of a read or a follow
/// (JobLogOptions), how it ended (JobLogResult), and a record of a stream (LogRecord).
/// Part of <tfjob/workflow/logs.hpp>.

#include <tfjob/detail/compiled.hpp>
#include <tfjob/kube/logs.hpp>  // LogPiece
#include <tfjob/workflow/job_watch.hpp>
#include <tfjob/workflow/progress.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace tfjob::workflow {

/// Where a log line comes from.
struct LogSource {
  std::string job, namespace_;
  std::string replica_type;  ///< lower case as labelled ("chief", "worker")
  int index = -1;
  std::string pod, container;
  int attempt = 0;  ///< the container's restart count when this attempt ran
};

/// A container's state change seen while following (each said once).
struct LogEvent {
  enum Kind { started, terminated, restarted, recreated, deleted };
  Kind kind = started;
  LogSource source;
  std::optional<int> exit_code;  ///< terminated
  std::string reason;            ///< terminated: Completed, Error, OOMKilled, ...
  /// In words, without any command's flags ("container tensorflow of pod x terminated: exit code 137 (OOMKilled)").
  std::string message;
};

const char* to_string(LogEvent::Kind k);

/// Which pod(s) and how.
struct JobLogOptions {
  std::string container = "tensorflow";
  std::string replica_type;  ///< "" = the chief as the operator marks it
  int index = 0;
  bool follow = false;
  std::optional<std::int64_t> tail_lines;
  std::optional<std::int64_t> since_seconds;
  std::string since_time;  ///< RFC 3339
  bool timestamps = false;
  bool previous = false;
  /// Timestamps on the wire even without `timestamps` (merging needs each line's time).
  bool want_times = false;
  std::size_t max_line_bytes = std::size_t{1} << 20;
  /// Hand over an unfinished line's bytes as they come (see kube::LogStreamer::eager).
  bool eager = false;
  /// For a plain read (no follow, timestamps, tail or since): the bytes as they come, with
  /// no line splitting, instead of records (the fastest way to print a finished log).
  std::function<bool(const LogSource&, std::string_view)> on_bytes;
  /// State changes while following: started, terminated, restarted, recreated, deleted.
  std::function<void(const LogEvent&)> on_event;
  /// While the followed pod is not running yet (as the job's watches deliver changes).
  std::function<void(const Progress&)> on_progress;
  /// Something to tell the user (stderr): restarts, the failed pod, waiting.
  std::function<void(const std::string&)> on_note;
  /// Following: the longest pause before trying a log again that the kubelet refused
  /// ("waiting to start") when no change comes meanwhile.
  std::chrono::milliseconds poll{500};
  const std::atomic<bool>* cancel = nullptr;
  /// Following ends (as if cancelled) when this passes.
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  /// Following: the job's watches when the caller has them (job_logs shares one per job);
  /// null = the follow starts its own.
  JobWatch* watch = nullptr;
};

/// How the logs ended.
struct JobLogResult {
  std::string job_state;                 ///< the job's state when done
  std::string job_message;
  std::string failed_pod;                ///< for a Failed job: the pod that failed
  std::optional<int> failed_exit_code;
  int streams = 0;                       ///< container attempts whose logs were shown
};

/// A record of a log stream: where from, and a piece of a line (see kube::LogPiece).
struct LogRecord {
  const LogSource* source = nullptr;
  kube::LogPiece piece;
};

}  // namespace tfjob::workflow

#if TFJOB_SDK_DEFINE_WORKFLOW
#include <tfjob/workflow/logs/impl/record_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_WORKFLOW
