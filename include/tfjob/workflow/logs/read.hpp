#pragma once
/// \file A logs reader's whole run (read_logs): finds the job(s), picks the streams, reads or
/// follows them into the caller's output, and says how the job ended; for a Failed job, the
/// pod that failed and its exit code (explain_failure). Part of <tfjob/workflow/logs.hpp>.

#include <tfjob/api/types.hpp>
#include <tfjob/detail/compiled.hpp>
#include <tfjob/kube/side_task.hpp>
#include <tfjob/workflow/cluster.hpp>
#include <tfjob/workflow/logs/follow.hpp>
#include <tfjob/workflow/logs/merge.hpp>
#include <tfjob/workflow/logs/record.hpp>
#include <tfjob/workflow/logs/targets.hpp>
#include <tfjob/workflow/pods.hpp>
#include <tfjob/workflow/status.hpp>

#include <nlohmann/json.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tfjob::workflow {

/// For a Failed job: the pod that failed and its exit code (from the pods still there).
void explain_failure(kube::Client c, const std::string& ns, const std::string& job, JobLogResult& r,
                     const std::string& container = "tensorflow");

/// What to read: one job by `name` or every job `selector` picks; one stream (the chief's,
/// or a Failed job's failed pod when not following) or, with `many`, the streams `filter`
/// picks (in reading order, merged by timestamp with `merge`).
struct LogsRequest {
  std::string name;
  std::string selector;
  bool many = false;
  LogTargetFilter filter;
  bool merge = false;
  /// Following or merging more streams than this is refused before any starts (0: no limit).
  std::size_t max_streams = 0;
};

/// Where what read_logs reads goes. Every call comes one at a time (under one lock), and
/// while following `flush` comes every `flush_every` too, so what a quiet stream printed
/// last does not wait in a buffer.
struct LogsOutput {
  std::function<void(const LogRecord&)> record;
  /// A plain read's bytes as they come, instead of records (set it in `prepare`).
  std::function<void(const LogSource&, std::string_view)> bytes;
  std::function<void(const LogEvent&)> event;
  std::function<void(const std::string&)> note;
  std::function<void()> flush;
  std::chrono::milliseconds flush_every{100};
  /// Once the streams are known, before they start: how many, of how many jobs; the
  /// caller decides how to print them (prefixes; whether `bytes` and `lo.eager` apply).
  std::function<void(std::size_t streams, std::size_t jobs, LogsOutput& out, JobLogOptions& lo)> prepare;
};

/// How read_logs ended.
struct LogsOutcome {
  enum class Result {
    done,              ///< read (errors of single streams in `errors`)
    not_found,         ///< no TFJob `name`
    no_match,          ///< no TFJob matches `selector`
    no_streams,        ///< the job has no pods (`any_pods`: none that match; `finished`: none left)
    too_many_streams,  ///< more than max_streams (`streams` says how many)
  };
  Result result = Result::done;
  std::string job_name;          ///< the (first) job read
  std::size_t jobs = 0;
  std::size_t streams = 0;
  bool any_pods = false;
  bool finished = false;
  std::vector<std::string> errors;  ///< one per stream that failed
  JobLogResult end;                 ///< the job's state at the end; a Failed job's failed pod
};

/// A logs command's whole run: finds the job(s), picks the streams, reads or follows them
/// into `out` (serialised, flushed while following), and says how the job ended, with the
/// failed pod and its exit code for a Failed one.
LogsOutcome read_logs(kube::Client c, const std::string& ns, const LogsRequest& rq, JobLogOptions lo, LogsOutput out);

}  // namespace tfjob::workflow

#if TFJOB_SDK_DEFINE_WORKFLOW
#include <tfjob/workflow/logs/impl/read_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_WORKFLOW
