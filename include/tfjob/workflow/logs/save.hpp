#pragma once
/// \file How a job's logs are saved: every stream written to a directory as it streams
/// (LogSaver), every replica followed into it until the job ends (save_job_logs), on a side
/// thread for commands busy meanwhile (LogSaveTask). Part of <tfjob/workflow/logs.hpp>.

#include <tfjob/detail/compiled.hpp>
#include <tfjob/detail/files.hpp>
#include <tfjob/kube/side_task.hpp>
#include <tfjob/workflow/cluster.hpp>
#include <tfjob/workflow/logs/merge.hpp>
#include <tfjob/workflow/logs/record.hpp>
#include <tfjob/workflow/logs/targets.hpp>

#include <atomic>
#include <chrono>
#include <ctime>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

namespace tfjob::workflow {

/// Writes each stream's log to a directory as it streams, byte for byte: `<pod>.<container>.log`
/// (the attempts of a container one after another, as they were shown; a recreated pod of
/// the same name continues its file), and the state changes to `events.log`; written out
/// every 100 ms (so a quiet stream's last line does not wait in a buffer). What a pod
/// wrote stays on disk when the operator deletes it (cleanPodPolicy, TTL, a restart). The
/// pod and container names are each one path part (tfjob::detail::path_part): nothing is
/// written outside the directory; files are appended to (0600 when new), never truncated,
/// and a link in a file's place is refused.
class LogSaver {
 public:
  explicit LogSaver(std::string dir);
  ~LogSaver();
  const std::string& dir() const { return dir_; }

  /// A record of a stream (thread-safe).
  void record(const LogRecord& r);
  /// The bytes of a plain read (thread-safe).
  void bytes(const LogSource& s, std::string_view b);
  /// A state change, one line in events.log (thread-safe; flushed at once).
  void event(const LogEvent& e);
  void flush();

 private:
  static std::string detail_now_rfc3339();
  tfjob::detail::OutFile& file(const std::string& name);
  static std::string file_name(const LogSource& s);
  void flush_locked();
  std::string dir_;
  tfjob::detail::Folder folder_;
  std::mutex mu_;
  std::map<std::string, tfjob::detail::OutFile> files_;
  std::chrono::steady_clock::time_point last_flush_ = std::chrono::steady_clock::now();
  std::unique_ptr<kube::SideTask> flusher_;
};

/// Follow every replica's every container of `job` into `saver` until the job ends (or
/// `cancel`): what `wait` and `submit --follow` run beside their own work.
JobLogsResult save_job_logs(kube::Client c, const std::string& ns, const std::string& job, LogSaver& saver,
                            const std::atomic<bool>* cancel = nullptr);

/// save_job_logs on a side thread, for commands busy with something else meanwhile
/// (wait, submit --follow).
class LogSaveTask {
 public:
  LogSaveTask(kube::Client c, std::string ns, std::string job, const std::string& dir);
  LogSaveTask(const LogSaveTask&) = delete;
  LogSaveTask& operator=(const LogSaveTask&) = delete;
  ~LogSaveTask();
  /// `drain`: the job has ended, let the streams end with it; else stop them now. Returns
  /// "" or what went wrong.
  std::string finish(bool drain);
  const std::string& dir() const { return saver_.dir(); }

 private:
  LogSaver saver_;
  std::atomic<bool> cancel_{false};
  JobLogsResult result_;
  std::string error_;
  std::unique_ptr<kube::SideTask> task_;  // last: runs once the rest exists
};

}  // namespace tfjob::workflow

#if TFJOB_SDK_DEFINE_WORKFLOW
#include <tfjob/workflow/logs/impl/save_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_WORKFLOW
