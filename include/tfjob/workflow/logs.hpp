#pragma once
/// \file A TFJob's logs: the chief's (as the operator marks it) or one replica's, or every
/// replica's; following waits through Pending (reporting progress), picks up restarted
/// containers and recreated pods, and ends when the job finishes. For a failed job the
/// failed pod's output is what matters, and which pod and exit code.

#include <tfjob/detail/compiled.hpp>
#include <tfjob/detail/files.hpp>
#include <tfjob/kube/core.hpp>  // container_status
#include <tfjob/kube/logs.hpp>
#include <tfjob/kube/side_task.hpp>
#include <tfjob/workflow/cluster.hpp>
#include <tfjob/workflow/job_watch.hpp>
#include <tfjob/workflow/pods.hpp>
#include <tfjob/workflow/progress.hpp>
#include <tfjob/workflow/status.hpp>
#include <tfjob/workflow/wait.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <condition_variable>
#include <deque>
#include <memory>
#include <functional>
#include <mutex>
#include <optional>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <vector>
#include <tfjob/detail/json.hpp>

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

namespace detail {

/// The restart count of `container` in a pod (0 when unknown).
int restart_count(const nlohmann::json& pod, const std::string& container);
/// The container names of a pod spec: init containers, then containers (kubectl's
/// --all-containers order), then ephemeral ones.
std::vector<std::string> spec_containers(const nlohmann::json& spec, bool with_init = true);

}  // namespace detail

/// A record of a log stream: where from, and a piece of a line (see kube::LogPiece).
struct LogRecord {
  const LogSource* source = nullptr;
  kube::LogPiece piece;
};

/// Follow (or print) one target's logs: the chief (type "") or replica `type`/`index`.
/// `sink` gets each piece of each line. Returns when the logs end: without follow after one
/// stream; with follow when the job has finished and the last attempt's log is drained.
JobLogResult replica_log_records(kube::Client c, const std::string& ns, const std::string& job,
                                 const std::string& type, int index, const JobLogOptions& o,
                                 const std::function<bool(const LogRecord&)>& sink);

/// replica_log_records with whole lines: `emit(pod, line)` gets each line (without '\n';
/// a long line is gathered whole).
JobLogResult replica_logs(kube::Client c, const std::string& ns, const std::string& job, const std::string& type,
                          int index, const JobLogOptions& o,
                          const std::function<bool(const std::string& pod, std::string_view line)>& emit);

// ---- every replica -------------------------------------------------------------------

/// One stream of a job's logs: a replica and one of its containers.
struct LogTarget {
  std::string job;
  std::string replica_type;  ///< lower case
  int index = 0;
  std::string container;
};

/// Which streams: replica types (lower case; empty = all), indices (empty = all),
/// containers (empty = `default_container`), every container of each replica.
struct LogTargetFilter {
  std::vector<std::string> types;
  std::vector<int> indices;
  std::vector<std::string> containers;
  bool all_containers = false;
  std::string default_container = "tensorflow";
};

/// "0-1", "0, 2-3": a compact list of indices.
std::string index_ranges(const std::vector<int>& sorted);

/// The streams of one job in reading order (see replica_rank). `pods` non-empty: the
/// replicas that have pods (a read of what exists); empty: every replica of the spec (to
/// follow, waiting for pods not made yet). An index or type the job does not have is an
/// error naming the ones it has.
std::vector<LogTarget> log_targets(const nlohmann::json& job, const std::vector<nlohmann::json>& pods,
                                   const LogTargetFilter& f, bool from_spec);

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

// ---- saving ------------------------------------------------------------------------------

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

/// For a Failed job: the pod that failed and its exit code (from the pods still there).
void explain_failure(kube::Client c, const std::string& ns, const std::string& job, JobLogResult& r,
                     const std::string& container = "tensorflow");


// ---- a logs reader's whole run -----------------------------------------------------------

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
namespace tfjob::workflow {

TFJOB_INLINE const char* to_string(LogEvent::Kind k) {
  switch (k) {
    case LogEvent::started: return "started";
    case LogEvent::terminated: return "terminated";
    case LogEvent::restarted: return "restarted";
    case LogEvent::recreated: return "recreated";
    case LogEvent::deleted: return "deleted";
  }
  return "";
}

namespace detail {

/// The pod a target names right now.
TFJOB_INLINE std::optional<nlohmann::json> pick(const std::vector<nlohmann::json>& pods, const std::string& type, int index) {
  if (type.empty()) return select_chief(pods);
  return select_replica(pods, type, index);
}

/// The label selector that finds the job's pods now: the v1.9 operator's, else an older
/// operator's that does (one look each), else the v1.9 operator's (pods still to come).
TFJOB_INLINE std::string pods_selector(kube::Client& c, const std::string& ns, const std::string& job) {
  const auto sels = pod_selectors(job);
  for (const auto& sel : sels) {
    kube::ListParams p;
    p.label_selector = sel;
    if (!list_items(c, resources::pods(), ns, p).empty()) return sel;
  }
  return sels.front();
}

TFJOB_INLINE std::string describe_target(const std::string& type, int index) {
  return type.empty() ? std::string("the chief") : type + " " + std::to_string(index);
}

TFJOB_INLINE int restart_count(const nlohmann::json& pod, const std::string& container) {
  const auto* c = kube::container_status(pod, container);
  return c ? tfjob::detail::value_at(*c, "restartCount", 0) : 0;
}

/// Whether the container has started at least once (running or terminated). A pod whose
/// phase says Running before its container statuses are reported counts as started.
TFJOB_INLINE bool container_started(const nlohmann::json& pod, const std::string& container) {
  if (const auto* c = kube::container_status(pod, container)) {
    const auto st = tfjob::detail::value_at(*c, "state", nlohmann::json::object());
    if (st.contains("running") || st.contains("terminated")) return true;
    return tfjob::detail::value_at(*c, "restartCount", 0) > 0;  // waiting after a crash: previous logs exist
  }
  std::string phase = tfjob::detail::value_at(pod, "/status/phase"_json_pointer, std::string());
  return phase == "Running" || phase == "Succeeded" || phase == "Failed";
}

/// Whether the container may still write: running, or not reported yet in a Running pod
/// (a status update can lag the start; such a log must be followed, not read once).
TFJOB_INLINE bool container_running(const nlohmann::json& pod, const std::string& container) {
  if (const auto* c = kube::container_status(pod, container))
    return tfjob::detail::value_at(*c, "state", nlohmann::json::object()).contains("running");
  return tfjob::detail::value_at(pod, "/status/phase"_json_pointer, std::string()) == "Running";
}

TFJOB_INLINE std::vector<std::string> spec_containers(const nlohmann::json& spec, bool with_init) {
  std::vector<std::string> out;
  for (const char* k : {"initContainers", "containers", "ephemeralContainers"}) {
    if (!with_init && std::string(k) != "containers") continue;
    for (const auto& c : spec.value(k, nlohmann::json::array())) out.push_back(tfjob::detail::value_at(c, "name", ""));
  }
  return out;
}

TFJOB_INLINE void check_container(const nlohmann::json& pod, const std::string& container) {
  auto names = spec_containers(tfjob::detail::value_at(pod, "spec", nlohmann::json::object()));
  if (names.empty() || std::find(names.begin(), names.end(), container) != names.end()) return;
  std::string list;
  for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
  throw tfjob::error("pod " + tfjob::detail::value_at(pod, "/metadata/name"_json_pointer, std::string()) + " has no container \"" +
                     container + "\"; its containers: " + list);
}

/// The terminated state of attempt `attempt` of a container: its current state when that
/// is the attempt shown, else lastState (the kubelet keeps one).
TFJOB_INLINE std::optional<nlohmann::json> terminated_state(const nlohmann::json& pod, const std::string& container, int attempt) {
  const auto* c = kube::container_status(pod, container);
  if (!c) return std::nullopt;
  int rc = tfjob::detail::value_at(*c, "restartCount", 0);
  const char* where = rc == attempt ? "/state/terminated" : (rc == attempt + 1 ? "/lastState/terminated" : nullptr);
  if (!where) return std::nullopt;
  nlohmann::json::json_pointer ptr(where);
  if (!c->contains(ptr)) return std::nullopt;
  return (*c)[ptr];
}

/// One target's logs, read once or followed (replica_log_records): the state of what has
/// been shown and said, and one method per step of a look at the pod.
class ReplicaFollower {
 public:
  ReplicaFollower(kube::Client c, const std::string& ns, const std::string& job, const std::string& type, int index,
                  const JobLogOptions& o, const std::function<bool(const LogRecord&)>& sink)
      : c_(std::move(c)), ns_(ns), job_(job), type_(type), index_(index), o_(o), sink_(sink) {
    job_obj_ = get_opt(c_, resources::tfjobs(), ns_, job_);
    if (!job_obj_) throw tfjob::error("TFJob \"" + job_ + "\" not found in namespace \"" + ns_ + "\"");
    // Following learns of changes from the job's watches (the job, its pods, events), never
    // by listing them again; a plain read looks once.
    watch_ = o_.watch;
    if (o_.follow && !watch_) {
      JobWatchOptions jo;
      jo.pod_selector = pods_selector(c_, ns_, job_);
      jo.deadline = o_.deadline;
      own_watch_ = std::make_unique<JobWatch>(c_, ns_, job_, jo);
      watch_ = own_watch_.get();
    }
  }

  JobLogResult run() {
    for (;;) {
      if (cancelled()) return res_;
      auto pods = look();
      if (watch_ && view_.ended) return res_;  // stopped (the deadline)
      auto target = pick(pods, type_, index_);
      const std::string target_uid = target ? tfjob::detail::value_at(*target, "/metadata/uid"_json_pointer, std::string()) : std::string();
      if (target) first_seen_.emplace(target_uid, restart_count(*target, o_.container));
      say_pod_replaced(target, target_uid);
      if (target) say_pod_deleting(*target);
      if (!o_.follow) check_readable(target, pods);
      if (target && container_started(*target, o_.container)) {
        check_container(*target, o_.container);
        PodInfo info = pod_info(*target, o_.container);
        const int restarts = restart_count(*target, o_.container);
        const std::string key = info.uid + ":" + std::to_string(restarts);
        const bool running = container_running(*target, o_.container);
        if (!last_pod_uid_.empty() && last_pod_uid_ == info.uid && last_restarts_ >= 0 && last_restarts_ < restarts)
          tell_terminated(*target, info, last_restarts_);
        if (!done_.count(key)) {
          if (o_.follow && restarts > 0) show_missed_attempt(*target, info, restarts);
          say_attempt(info, restarts, key);
          show_attempt(info, restarts, key, running);
          if (!o_.follow) return res_;
          if (!(job_obj_ = look_job())) return job_deleted();
          continue;  // look at the pod again right away
        }
        tell_terminated(*target, info, restarts);
      }
      // Nothing new to stream: is the job over?
      if (!(job_obj_ = look_job())) return job_deleted();
      if (summarize(*job_obj_).finished()) {
        if (!drained()) continue;
        finish(*job_obj_);
        return res_;
      }
      wait_for_change(pods, target);
    }
  }

 private:
  bool cancelled() const { return (o_.cancel && o_.cancel->load()) || std::chrono::steady_clock::now() >= o_.deadline; }

  /// The job's pods now: what the watches know (once they have listed), or one look.
  std::vector<nlohmann::json> look() {
    if (!watch_) return job_pods(c_, ns_, job_);
    for (view_ = watch_->view(); !view_.synced && !cancelled(); view_ = watch_->view())
      watch_->wait(view_.generation, std::chrono::milliseconds(100));
    seen_ = view_.generation;
    if (view_.ended) watch_->rethrow_error();
    return view_.pods;
  }

  /// The job now (nullopt: deleted).
  std::optional<nlohmann::json> look_job() {
    if (!watch_) return get_opt(c_, resources::tfjobs(), ns_, job_);
    auto v = watch_->view();
    if (v.deleted) return std::nullopt;
    return v.job.is_null() ? job_obj_ : std::optional<nlohmann::json>(v.job);
  }

  /// Until the watches deliver a change (at most `at_most`), or cancel.
  void pause(std::chrono::milliseconds at_most) {
    const auto until = std::chrono::steady_clock::now() + at_most;
    while (!cancelled() && std::chrono::steady_clock::now() < until) {
      const auto g = watch_->wait(seen_, std::chrono::milliseconds(100));
      if (g != seen_ || watch_->ended()) return;
    }
  }

  void finish(const nlohmann::json& j) {
    auto s = summarize(j);
    res_.job_state = s.state;
    res_.job_message = s.message;
  }

  JobLogResult job_deleted() {
    if (o_.on_note) o_.on_note("TFJob " + job_ + " was deleted");
    return res_;
  }

  LogSource source_of(const PodInfo& info, int attempt) const {
    LogSource src;
    src.job = job_;
    src.namespace_ = ns_;
    src.replica_type = info.replica_type;
    src.index = info.replica_index;
    src.pod = info.name;
    src.container = o_.container;
    src.attempt = attempt;
    return src;
  }

  /// Says a state change once (following only).
  void tell(LogEvent::Kind k, const LogSource& src, const std::string& key, std::string message) {
    if (!o_.follow || !said_.insert(std::string(to_string(k)) + ":" + key).second) return;
    LogEvent ev;
    ev.kind = k;
    ev.source = src;
    ev.message = std::move(message);
    if (o_.on_event) o_.on_event(ev);
    else if (o_.on_note && k != LogEvent::started) o_.on_note(ev.message);
  }

  /// Says how an attempt shown ended (once), from the pod as it is now.
  void tell_terminated(const nlohmann::json& pod, const PodInfo& info, int attempt) {
    auto t = terminated_state(pod, o_.container, attempt);
    if (!t || !o_.follow) return;
    const std::string key = info.uid + ":" + std::to_string(attempt);
    if (said_.count("terminated:" + key)) return;
    LogEvent ev;
    ev.kind = LogEvent::terminated;
    ev.source = source_of(info, attempt);
    if (t->contains("exitCode") && (*t)["exitCode"].is_number_integer()) ev.exit_code = (*t)["exitCode"].get<int>();
    ev.reason = t->contains("reason") && (*t)["reason"].is_string() ? (*t)["reason"].get<std::string>() : "";
    ev.message = "container " + o_.container + " of pod " + info.name + " terminated: exit code " +
                 (ev.exit_code ? std::to_string(*ev.exit_code) : std::string("unknown")) +
                 (ev.reason.empty() ? "" : " (" + ev.reason + ")");
    said_.insert("terminated:" + key);
    if (o_.on_event) o_.on_event(ev);
  }

  /// One attempt's log into the sink (or its bytes into on_bytes).
  void stream(const PodInfo& info, int attempt, const kube::LogParams& lp) {
    LogSource src = source_of(info, attempt);
    kube::StreamOptions so;
    so.cancel = o_.cancel;
    so.deadline = o_.deadline;
    kube::LogStreamer ls(c_, ns_, info.name, lp);
    ls.want_times = o_.want_times;
    ls.max_line_bytes = o_.max_line_bytes;
    ls.eager = o_.eager;
    if (o_.on_bytes && ls.resumes_by_bytes()) {
      ls.run_bytes([&](std::string_view b) { return o_.on_bytes(src, b); }, so);
      return;
    }
    LogRecord rec;
    rec.source = &src;
    ls.run_pieces([&](const kube::LogPiece& pc) {
      rec.piece = pc;
      return sink_(rec);
    }, so);
  }

  /// The log parameters of an attempt: tail/since apply to the first stream only; later
  /// attempts are shown whole.
  kube::LogParams params() const {
    kube::LogParams lp;
    lp.container = o_.container;
    lp.timestamps = o_.timestamps;
    if (res_.streams == 0) {
      lp.tail_lines = o_.tail_lines;
      lp.since_seconds = o_.since_seconds;
      lp.since_time = o_.since_time;
    }
    return lp;
  }

  /// The pod followed is gone (deleted, or replaced by the operator): said when first
  /// seen, whether or not its successor has started.
  void say_pod_replaced(const std::optional<nlohmann::json>& target, const std::string& target_uid) {
    if (last_pod_uid_.empty() || target_uid == last_pod_uid_ || !o_.follow) return;
    LogSource src;
    src.job = job_;
    src.namespace_ = ns_;
    src.pod = last_pod_name_;
    src.container = o_.container;
    tell(LogEvent::deleted, src, last_pod_uid_, "pod " + last_pod_name_ + " was deleted");
    if (target)
      tell(LogEvent::recreated, source_of(pod_info(*target, o_.container), restart_count(*target, o_.container)), target_uid,
           "pod " + tfjob::detail::value_at(*target, "/metadata/name"_json_pointer, std::string()) + " was recreated; following the new pod");
  }

  /// The pod is being deleted (a deletionTimestamp: `kubectl delete pod`, an eviction, the
  /// operator's cleanup): said once, when first seen, as when it is gone (the same key), so
  /// it is said even when the job ends before the pod object goes (a grace period, a
  /// finalizer).
  void say_pod_deleting(const nlohmann::json& pod) {
    const PodInfo info = pod_info(pod, o_.container);
    if (info.deleting)
      tell(LogEvent::deleted, source_of(info, restart_count(pod, o_.container)), info.uid, "pod " + info.name + " was deleted");
  }

  /// A read once needs a pod whose container has started: else why not, and what to do.
  void check_readable(const std::optional<nlohmann::json>& target, const std::vector<nlohmann::json>& pods) {
    finish(*job_obj_);
    const JobSummary s = summarize(*job_obj_);
    if (!target)
      throw tfjob::error("TFJob \"" + job_ + "\" has no pod for " + describe_target(type_, index_) +
                         (s.finished() ? " (the job is " + s.state + " and its pods were cleaned up: see runPolicy.cleanPodPolicy)"
                                       : " yet (it is " + (s.state.empty() ? std::string("not started") : s.state) +
                                             "): follow the logs to wait for it"));
    check_container(*target, o_.container);
    if (container_started(*target, o_.container)) return;
    auto p = progress(*job_obj_, pods, job_events(c_, ns_, *job_obj_, pods, PodEvents::pending));
    const std::string name = tfjob::detail::value_at(*target, "/metadata/name"_json_pointer, std::string());
    std::string why;
    for (const auto& w : p.waiting)
      if (w.pod == name) why = ": " + (w.message.empty() ? w.reason : w.message);
    throw tfjob::error("pod " + name + " has not started yet" + why + "\nFollow the logs to wait for it.");
  }

  /// An attempt that started and ended between two looks (a short first run while we
  /// waited for the pod to start, say) is the container's previous log, which the kubelet
  /// keeps: shown before the current one, so no line of an attempt that began while
  /// following is lost.
  void show_missed_attempt(const nlohmann::json& pod, const PodInfo& info, int restarts) {
    const std::string missed = info.uid + ":" + std::to_string(restarts - 1);
    auto fs = first_seen_.find(info.uid);
    if (fs == first_seen_.end() || restarts - 1 < fs->second || done_.count(missed)) return;
    kube::LogParams pl = params();
    pl.previous = true;
    try {
      tell(LogEvent::started, source_of(info, restarts - 1), missed, "container " + o_.container + " of pod " + info.name + " started");
      stream(info, restarts - 1, pl);
      ++res_.streams;
      done_.insert(missed);
      tell_terminated(pod, info, restarts - 1);
      if (last_pod_uid_.empty()) {  // so the restart below is said
        last_pod_uid_ = info.uid;
        last_pod_name_ = info.name;
        last_restarts_ = restarts - 1;
      }
    } catch (const api_error&) {
      // not kept (any more): nothing to show
    }
  }

  /// Says a new attempt: a recreated pod or a restarted container, then that it started.
  void say_attempt(const PodInfo& info, int restarts, const std::string& key) {
    if (!last_pod_uid_.empty()) {
      if (last_pod_uid_ != info.uid)
        tell(LogEvent::recreated, source_of(info, restarts), info.uid, "pod " + info.name + " was recreated; following the new pod");
      else if (restarts != last_restarts_)
        tell(LogEvent::restarted, source_of(info, restarts), key,
             "container " + o_.container + " of pod " + info.name + " restarted (restart " + std::to_string(restarts) +
                 ", attempt " + std::to_string(restarts + 1) + "); following it");
    }
    tell(LogEvent::started, source_of(info, restarts), key, "container " + o_.container + " of pod " + info.name + " started");
  }

  /// The current attempt's log (followed while it runs).
  void show_attempt(const PodInfo& info, int restarts, const std::string& key, bool running) {
    kube::LogParams lp = params();
    lp.follow = o_.follow && running;
    lp.previous = o_.previous && !o_.follow;
    try {
      stream(info, restarts, lp);
      ++res_.streams;
      done_.insert(key);
      last_pod_uid_ = info.uid;
      last_pod_name_ = info.name;
      last_restarts_ = restarts;
    } catch (const api_error& e) {
      // 400 "container ... is waiting to start" / 404 pod just deleted: look again
      if (!o_.follow || (e.code() != 400 && !e.is_not_found())) throw;
      pause(o_.poll);
    }
  }

  /// The job has finished: whether everything is shown. A last attempt that ended between
  /// our checks is not yet (one look: the pods' watch may not have delivered their last
  /// change).
  bool drained() {
    auto pods = job_pods(c_, ns_, job_);
    auto target = pick(pods, type_, index_);
    if (target) say_pod_deleting(*target);
    if (target && container_started(*target, o_.container)) {
      PodInfo info = pod_info(*target, o_.container);
      const int restarts = restart_count(*target, o_.container);
      if (!done_.count(info.uid + ":" + std::to_string(restarts))) return false;
      tell_terminated(*target, info, restarts);
    }
    return true;
  }

  /// Not started yet: progress (or one note), then until something changes.
  void wait_for_change(const std::vector<nlohmann::json>& pods, const std::optional<nlohmann::json>& target) {
    if (o_.on_progress) o_.on_progress(progress(*job_obj_, pods, view_.events));
    else if (o_.on_note && !waiting_noted_ && (!target || !container_started(*target, o_.container))) {
      o_.on_note("waiting for " + describe_target(type_, index_) + " of TFJob " + job_ + " to start");
      waiting_noted_ = true;
    }
    pause(std::chrono::hours(24 * 365));
  }

  kube::Client c_;
  const std::string& ns_;
  const std::string& job_;
  const std::string& type_;
  const int index_;
  const JobLogOptions& o_;
  const std::function<bool(const LogRecord&)>& sink_;

  JobLogResult res_;
  std::set<std::string> done_;            // uid:restartCount attempts already shown
  std::set<std::string> said_;            // events already told
  std::map<std::string, int> first_seen_;  // pod uid -> its restart count when first looked at
  std::string last_pod_uid_, last_pod_name_;
  int last_restarts_ = -1;
  std::optional<nlohmann::json> job_obj_;
  std::unique_ptr<JobWatch> own_watch_;
  JobWatch* watch_ = nullptr;
  std::uint64_t seen_ = 0;  // the watches' generation last looked at
  JobWatch::View view_;
  bool waiting_noted_ = false;
};

}  // namespace detail

TFJOB_INLINE JobLogResult replica_log_records(kube::Client c, const std::string& ns, const std::string& job,
                                              const std::string& type, int index, const JobLogOptions& o,
                                              const std::function<bool(const LogRecord&)>& sink) {
  return detail::ReplicaFollower(std::move(c), ns, job, type, index, o, sink).run();
}

TFJOB_INLINE JobLogResult replica_logs(kube::Client c, const std::string& ns, const std::string& job, const std::string& type,
                                       int index, const JobLogOptions& o,
                                       const std::function<bool(const std::string& pod, std::string_view line)>& emit) {
  std::string line;
  return replica_log_records(c, ns, job, type, index, o, [&](const LogRecord& r) {
    const auto& pc = r.piece;
    std::string_view ts = o.timestamps ? pc.timestamp : std::string_view();
    if (pc.first && pc.last && ts.empty()) return emit(r.source->pod, pc.text);
    if (pc.first) {
      line.clear();
      if (!ts.empty()) line.append(ts).push_back(' ');
    }
    line.append(pc.text);
    return pc.last ? emit(r.source->pod, line) : true;
  });
}

TFJOB_INLINE std::string index_ranges(const std::vector<int>& sorted) {
  std::string out;
  for (std::size_t i = 0; i < sorted.size();) {
    std::size_t j = i;
    while (j + 1 < sorted.size() && sorted[j + 1] == sorted[j] + 1) ++j;
    out += (out.empty() ? "" : ", ") + std::to_string(sorted[i]) + (j > i ? "-" + std::to_string(sorted[j]) : "");
    i = j + 1;
  }
  return out;
}

TFJOB_INLINE std::vector<LogTarget> log_targets(const nlohmann::json& job, const std::vector<nlohmann::json>& pods,
                                                const LogTargetFilter& f, bool from_spec) {
  const std::string name = tfjob::detail::value_at(job, "/metadata/name"_json_pointer, std::string());
  const auto specs = tfjob::detail::value_at(job, "/spec/tfReplicaSpecs"_json_pointer, nlohmann::json::object());
  std::map<std::string, std::pair<std::string, int>> spec;  // lower -> (as written, replicas)
  for (auto it = specs.begin(); it != specs.end(); ++it)
    spec[detail::lower(it.key())] = {it.key(), tfjob::detail::value_at(*it, "replicas", 1)};
  for (const auto& t : f.types)
    if (!spec.count(t)) {
      std::string have;
      for (const auto& [k, v] : spec) have += (have.empty() ? "" : ", ") + v.first;
      throw tfjob::error("TFJob \"" + name + "\" has no " + t + " replicas; it has " + (have.empty() ? "none" : have));
    }
  auto wanted_type = [&](const std::string& t) {
    return f.types.empty() || std::find(f.types.begin(), f.types.end(), t) != f.types.end();
  };
  for (int i : f.indices) {
    bool somewhere = false;
    for (const auto& [t, v] : spec)
      if (wanted_type(t) && i >= 0 && i < v.second) somewhere = true;
    if (!somewhere) {
      std::string have;
      for (const auto& [t, v] : spec)
        if (wanted_type(t)) {
          std::vector<int> idx;
          for (int k = 0; k < v.second; ++k) idx.push_back(k);
          have += (have.empty() ? "" : "; ") + v.first + " " + (idx.empty() ? std::string("none") : index_ranges(idx));
        }
      throw tfjob::error("TFJob \"" + name + "\" has no replica with index " + std::to_string(i) + ": its replicas are " + have);
    }
  }
  std::vector<std::pair<std::string, int>> replicas;
  if (from_spec) {
    for (const auto& [t, v] : spec)
      for (int i = 0; i < v.second; ++i) replicas.emplace_back(t, i);
  } else {
    std::set<std::pair<std::string, int>> seen;
    for (const auto& p : pods) {
      auto i = pod_info(p);
      if (!i.replica_type.empty() && i.replica_index >= 0 && seen.insert({i.replica_type, i.replica_index}).second)
        replicas.emplace_back(i.replica_type, i.replica_index);
    }
  }
  std::stable_sort(replicas.begin(), replicas.end(), [](const auto& a, const auto& b) {
    if (replica_rank(a.first) != replica_rank(b.first)) return replica_rank(a.first) < replica_rank(b.first);
    if (a.first != b.first) return a.first < b.first;
    return a.second < b.second;
  });
  std::vector<LogTarget> out;
  for (const auto& [t, i] : replicas) {
    if (!wanted_type(t)) continue;
    if (!f.indices.empty() && std::find(f.indices.begin(), f.indices.end(), i) == f.indices.end()) continue;
    std::vector<std::string> containers = f.containers;
    if (f.all_containers) {
      containers.clear();
      auto it = spec.find(t);
      if (it != spec.end())
        containers = detail::spec_containers(tfjob::detail::value_at(specs[it->second.first], "/template/spec"_json_pointer, nlohmann::json::object()));
    }
    if (containers.empty()) containers.push_back(f.default_container);
    for (const auto& c : containers) out.push_back({name, t, i, c});
  }
  return out;
}

TFJOB_INLINE void LogMerger::push(std::size_t i, const LogRecord& r) {
  Held h;
  h.source = *r.source;
  h.text.assign(r.piece.text);
  h.ts.assign(r.piece.first ? r.piece.timestamp : std::string_view(q_[i].line_ts));
  if (r.piece.first) q_[i].line_ts = h.ts;
  h.first = r.piece.first;
  h.last = r.piece.last;
  h.terminated = r.piece.terminated;
  h.at = std::chrono::steady_clock::now();
  std::unique_lock<std::mutex> lk(mu_);
  space_.wait(lk, [&] { return q_[i].items.size() < cap_ || stop_; });
  q_[i].items.push_back(std::move(h));
  ready_.notify_all();
}

TFJOB_INLINE void LogMerger::end(std::size_t i) {
  std::lock_guard<std::mutex> lk(mu_);
  ended_[i] = true;
  ready_.notify_all();
}

TFJOB_INLINE void LogMerger::run() {
  std::unique_lock<std::mutex> lk(mu_);
  for (;;) {
    std::optional<std::size_t> pick;
    bool all_have = true, any = false;
    auto oldest = std::chrono::steady_clock::time_point::max();
    for (std::size_t i = 0; i < q_.size(); ++i) {
      if (q_[i].items.empty()) {
        if (!ended_[i]) all_have = false;
        continue;
      }
      any = true;
      oldest = std::min(oldest, q_[i].items.front().at);
      if (!pick || less(q_[i].items.front(), i, q_[*pick].items.front(), *pick)) pick = i;
    }
    const auto now = std::chrono::steady_clock::now();
    if (open_ && !q_[*open_].items.empty()) {
      pick = open_;  // the rest of a line that went out in part comes first
      all_have = true;
    } else if (open_ && !ended_[*open_] && (!window_ || now - open_since_ < *window_)) {
      // wait a little for it (not forever: a process may leave a line open, a progress bar)
      if (window_) ready_.wait_until(lk, open_since_ + *window_);
      else ready_.wait(lk);
      continue;
    } else {
      open_.reset();
    }
    if (!any) {
      bool all_ended = std::all_of(ended_.begin(), ended_.end(), [](bool e) { return e; });
      if (all_ended) return;
      ready_.wait(lk);
      continue;
    }
    bool release = pick && (all_have || (window_ && now - oldest >= *window_));
    if (!release) {
      if (window_) ready_.wait_until(lk, (oldest == std::chrono::steady_clock::time_point::max() ? now : oldest) + *window_);
      else ready_.wait(lk);
      continue;
    }
    Held h = std::move(q_[*pick].items.front());
    q_[*pick].items.pop_front();
    open_ = h.last ? std::nullopt : pick;
    open_since_ = now;
    space_.notify_all();
    lk.unlock();
    LogRecord r;
    r.source = &h.source;
    r.piece.text = h.text;
    r.piece.timestamp = h.ts;
    r.piece.first = h.first;
    r.piece.last = h.last;
    r.piece.terminated = h.terminated;
    sink_(r);
    lk.lock();
  }
}

TFJOB_INLINE void LogMerger::stop() {
  std::lock_guard<std::mutex> lk(mu_);
  stop_ = true;
  space_.notify_all();
}

TFJOB_INLINE bool LogMerger::less(const Held& a, std::size_t ai, const Held& b, std::size_t bi) {
  if (a.ts != b.ts) return a.ts < b.ts;
  return ai < bi;
}

namespace detail {

/// What a job_logs call was given (`o` as its streams use it: with merge, times on).
struct JobLogsCall {
  kube::Client& c;
  const std::string& ns;
  const std::vector<LogTarget>& targets;
  const JobLogOptions& o;
  const std::function<bool(const LogRecord&)>& sink;
};

/// What the streams of a job_logs call share (destroyed in reverse: guards, watches, stops,
/// merger, the lock).
struct JobLogStreams {
  std::mutex mu;                                            ///< sink's lock, without merge
  std::unique_ptr<LogMerger> merger;                        ///< with merge
  std::vector<std::unique_ptr<std::atomic<bool>>> stops;    ///< per target: stop its stream
  const std::atomic<bool>* outer = nullptr;                 ///< the caller's cancel
  // one JobWatch per job, shared by its streams and its guard
  std::map<std::string, std::unique_ptr<JobWatch>> watches;
  std::vector<std::unique_ptr<kube::SideTask>> guards;
};

/// `o` for target `t`: its container.
TFJOB_INLINE JobLogOptions options_for(const JobLogOptions& o, const LogTarget& t) {
  JobLogOptions x = o;
  x.container = t.container;
  return x;
}

/// Without follow and merge: each target's logs, one after the other.
TFJOB_INLINE void job_logs_in_turn(const JobLogsCall& call, JobLogsResult& out) {
  for (std::size_t k = 0; k < call.targets.size(); ++k) {
    try {
      out.results[k] = replica_log_records(call.c, call.ns, call.targets[k].job, call.targets[k].replica_type, call.targets[k].index,
                                           options_for(call.o, call.targets[k]), call.sink);
    } catch (const std::exception& e) {
      out.errors[k] = e.what();
    }
  }
}

/// With merge: times on the wire, records (not bytes), and the merger that orders them.
TFJOB_INLINE std::unique_ptr<LogMerger> make_merger(JobLogOptions& o, const JobLogsRun& how, std::size_t streams,
                                                    const std::function<bool(const LogRecord&)>& sink) {
  o.want_times = true;
  o.on_bytes = nullptr;
  return std::make_unique<LogMerger>(streams,
                                     o.follow ? std::optional<std::chrono::milliseconds>(how.merge_window) : std::nullopt,
                                     [&sink](const LogRecord& r) { sink(r); });
}

/// Job `j`'s guard, on a side thread (kube::SideTask) until `stop`; `w` is its watch.
TFJOB_INLINE bool guard_job_end(const JobLogsCall& call, JobLogStreams& s, const std::string& j, JobWatch* w,
                                const std::atomic<bool>& stop) {
  // the job's end stops the streams that would run on; the caller's cancel, every stream
  bool over = false;
  for (std::uint64_t g = 0, looked = ~std::uint64_t{0}; !stop; g = w->wait(g, std::chrono::milliseconds(100))) {
    if (s.outer && s.outer->load()) {
      for (auto& st : s.stops) *st = true;
      return false;
    }
    if (w->ended()) kube::sleep_for(std::chrono::milliseconds(100), &stop);  // its wait no longer blocks
    if (over || g == looked) continue;
    looked = g;
    const auto v = w->view();
    if (!v.deleted && (v.job.is_null() || !summarize(v.job).finished())) continue;
    over = true;
    try {
      kube::Client pc = call.c;
      auto pods = job_pods(pc, call.ns, j);  // one look: the pods' watch may lag the job's end
      for (std::size_t k = 0; k < call.targets.size(); ++k) {
        if (call.targets[k].job != j) continue;
        auto p = pick(pods, call.targets[k].replica_type, call.targets[k].index);
        if (v.deleted || !p || container_running(*p, call.targets[k].container)) *s.stops[k] = true;
      }
    } catch (const std::exception&) {
      // best effort: the streams end with their containers anyway
    }
  }
  return false;
}

/// Following: a watch on each job (`s.watches`), and a guard on each (`s.guards`, see guard_job_end).
TFJOB_INLINE void watch_job_ends(const JobLogsCall& call, JobLogStreams& s) {
  for (const auto& t : call.targets)
    if (!s.watches.count(t.job)) {
      JobWatchOptions jo;
      jo.pod_selector = pods_selector(call.c, call.ns, t.job);
      jo.deadline = call.o.deadline;
      s.watches.emplace(t.job, std::make_unique<JobWatch>(call.c, call.ns, t.job, jo));
    }
  for (auto& [name, w] : s.watches)
    s.guards.push_back(std::make_unique<kube::SideTask>([&call, &s, j = name, w = w.get()](const std::atomic<bool>& stop) {
      return guard_job_end(call, s, j, w, stop);
    }));
}

/// One thread per target, its records to the merger or (under `s.mu`) the sink; the merger
/// runs on this thread; returns when every stream has ended.
TFJOB_INLINE void run_log_streams(const JobLogsCall& call, JobLogStreams& s, JobLogsResult& out) {
  std::vector<std::thread> threads;
  for (std::size_t k = 0; k < call.targets.size(); ++k) {
    threads.emplace_back([&, k] {
      try {
        JobLogOptions x = options_for(call.o, call.targets[k]);
        if (call.o.follow) {
          x.cancel = s.stops[k].get();
          x.watch = s.watches.at(call.targets[k].job).get();
        }
        out.results[k] = replica_log_records(call.c, call.ns, call.targets[k].job, call.targets[k].replica_type, call.targets[k].index, x,
                                             [&](const LogRecord& r) {
                                               if (s.merger) {
                                                 s.merger->push(k, r);
                                                 return true;
                                               }
                                               std::lock_guard<std::mutex> lk(s.mu);
                                               return call.sink(r);
                                             });
      } catch (const std::exception& e) {
        out.errors[k] = e.what();
      }
      if (s.merger) s.merger->end(k);
    });
  }
  if (s.merger) s.merger->run();
  for (auto& t : threads) t.join();
}

/// Following: the job's state (as last watched) for each stream that ended without one.
TFJOB_INLINE void report_job_states(const JobLogsCall& call, const JobLogStreams& s, JobLogsResult& out) {
  // a stream stopped because the job ended still reports the job's state (as last watched)
  for (std::size_t k = 0; k < call.targets.size(); ++k)
    if (out.results[k].job_state.empty() && out.errors[k].empty() && !(s.outer && s.outer->load())) {
      auto v = s.watches.at(call.targets[k].job)->view();
      if (!v.deleted && !v.job.is_null()) {
        auto st = summarize(v.job);
        out.results[k].job_state = st.state;
        out.results[k].job_message = st.message;
      }
    }
}

}  // namespace detail

TFJOB_INLINE JobLogsResult job_logs(kube::Client c, const std::string& ns, const std::vector<LogTarget>& targets,
                                    JobLogOptions o, const JobLogsRun& how, const std::function<bool(const LogRecord&)>& sink) {
  JobLogsResult out;
  out.results.resize(targets.size());
  out.errors.resize(targets.size());
  const detail::JobLogsCall call{c, ns, targets, o, sink};
  if (!o.follow && !how.merge) {
    detail::job_logs_in_turn(call, out);
    return out;
  }
  detail::JobLogStreams s;
  if (how.merge) s.merger = detail::make_merger(o, how, targets.size(), sink);
  // Following: a replica may run on after its job has ended (a PS, workers under a chief's
  // success policy) and its stream would never end. A watch on each job says when it has
  // ended; the streams of containers still running then are stopped (what they wrote is out).
  for (std::size_t k = 0; k < targets.size(); ++k) s.stops.push_back(std::make_unique<std::atomic<bool>>(false));
  s.outer = o.cancel;
  if (o.follow) detail::watch_job_ends(call, s);
  detail::run_log_streams(call, s, out);
  s.guards.clear();
  if (o.follow) detail::report_job_states(call, s, out);
  return out;
}

TFJOB_INLINE LogSaver::LogSaver(std::string dir) : dir_(std::move(dir)), folder_([this] {
  try {
    return tfjob::detail::Folder(dir_);
  } catch (const std::exception& e) {
    throw tfjob::error("cannot save logs in \"" + dir_ + "\": " + e.what());
  }
}()) {
  flusher_ = std::make_unique<kube::SideTask>(std::chrono::milliseconds(100), [this](const std::atomic<bool>&) {
    flush();
    return true;
  }, false);
}

TFJOB_INLINE LogSaver::~LogSaver() {
  flusher_.reset();
  flush();
}

TFJOB_INLINE void LogSaver::record(const LogRecord& r) {
  std::lock_guard<std::mutex> lk(mu_);
  auto& f = file(file_name(*r.source));
  f.write(r.piece.text);
  if (r.piece.last && r.piece.terminated) f.write("\n");
}

TFJOB_INLINE void LogSaver::bytes(const LogSource& s, std::string_view b) {
  std::lock_guard<std::mutex> lk(mu_);
  file(file_name(s)).write(b);
}

TFJOB_INLINE void LogSaver::event(const LogEvent& e) {
  std::lock_guard<std::mutex> lk(mu_);
  file("events.log").write(detail_now_rfc3339() + " " + to_string(e.kind) + " " + e.source.pod + " " + e.source.container +
                          ": " + e.message + "\n");
  flush_locked();
}

TFJOB_INLINE void LogSaver::flush() {
  std::lock_guard<std::mutex> lk(mu_);
  flush_locked();
}

TFJOB_INLINE std::string LogSaver::detail_now_rfc3339() { return kube::detail::format_rfc3339(std::time(nullptr)); }

/// `<pod>.<container>.log`, each name one path part (a container name has no '.', so two
/// streams never share a file).
TFJOB_INLINE std::string LogSaver::file_name(const LogSource& s) {
  return tfjob::detail::path_part(s.pod) + "." + tfjob::detail::path_part(s.container) + ".log";
}

TFJOB_INLINE tfjob::detail::OutFile& LogSaver::file(const std::string& name) {
  auto it = files_.find(name);
  if (it != files_.end()) return it->second;
  return files_.emplace(name, folder_.append(name)).first->second;
}

TFJOB_INLINE void LogSaver::flush_locked() {
  for (auto& [n, f] : files_) f.flush();
  last_flush_ = std::chrono::steady_clock::now();
}

TFJOB_INLINE JobLogsResult save_job_logs(kube::Client c, const std::string& ns, const std::string& job, LogSaver& saver,
                                         const std::atomic<bool>* cancel) {
  auto obj = get_opt(c, resources::tfjobs(), ns, job);
  if (!obj) throw tfjob::error("TFJob \"" + job + "\" not found in namespace \"" + ns + "\"");
  LogTargetFilter f;
  f.all_containers = true;
  auto targets = log_targets(*obj, {}, f, true);
  JobLogOptions o;
  o.follow = true;
  o.cancel = cancel;
  o.on_event = [&](const LogEvent& e) { saver.event(e); };
  auto r = job_logs(c, ns, targets, o, {}, [&](const LogRecord& rec) {
    saver.record(rec);
    return true;
  });
  saver.flush();
  return r;
}

TFJOB_INLINE LogSaveTask::LogSaveTask(kube::Client c, std::string ns, std::string job, const std::string& dir) : saver_(dir) {
  task_ = std::make_unique<kube::SideTask>([this, c, ns = std::move(ns), job = std::move(job)](const std::atomic<bool>&) mutable {
    try {
      result_ = save_job_logs(c, ns, job, saver_, &cancel_);
    } catch (const std::exception& e) {
      error_ = e.what();
    }
    return false;
  });
}

TFJOB_INLINE LogSaveTask::~LogSaveTask() { finish(false); }

TFJOB_INLINE std::string LogSaveTask::finish(bool drain) {
  if (!drain) cancel_ = true;
  if (task_) task_->stop();  // its token is not the streams' cancel: a drain runs to the job's end
  saver_.flush();
  std::string e = error_;
  for (const auto& x : result_.errors)
    if (!x.empty() && e.empty()) e = x;
  return e;
}

TFJOB_INLINE void explain_failure(kube::Client c, const std::string& ns, const std::string& job, JobLogResult& r,
                                  const std::string& container) {
  auto pods = job_pods(c, ns, job);
  if (auto f = select_failed(pods)) {
    PodInfo i = pod_info(*f, container);
    r.failed_pod = i.name;
    r.failed_exit_code = i.exit_code;
  }
}

namespace detail {

/// The jobs a request names: by selector, or the one by name (none: not there).
TFJOB_INLINE std::vector<nlohmann::json> requested_jobs(kube::Client& c, const std::string& ns, const LogsRequest& rq) {
  if (rq.selector.empty()) {
    auto job = get_opt(c, resources::tfjobs(), ns, rq.name);
    return job ? std::vector<nlohmann::json>{*job} : std::vector<nlohmann::json>{};
  }
  kube::ListParams lp;
  lp.label_selector = rq.selector;
  return list_items(c, resources::tfjobs(), ns, lp);
}

/// The streams of `jobs` a filter picks, in reading order: of the pods there are (a read),
/// or of every replica of the spec (following). `any_pods`: whether a read found pods.
TFJOB_INLINE std::vector<LogTarget> targets_of(kube::Client& c, const std::string& ns, const std::vector<nlohmann::json>& jobs,
                                               const LogTargetFilter& filter, bool follow, bool& any_pods) {
  std::vector<LogTarget> targets;
  for (const auto& j : jobs) {
    std::vector<nlohmann::json> pods;
    if (!follow) pods = job_pods(c, ns, tfjob::detail::value_at(j, "/metadata/name"_json_pointer, std::string()));
    any_pods = any_pods || !pods.empty();
    auto t = log_targets(j, pods, filter, follow);
    targets.insert(targets.end(), t.begin(), t.end());
  }
  return targets;
}

/// For a Failed job read once: the type and index of the pod that failed (the one worth
/// reading), recorded in `res`; the chief ("", 0) otherwise.
TFJOB_INLINE std::pair<std::string, int> failed_replica(kube::Client& c, const std::string& ns, const std::string& job,
                                                        const std::string& container, JobLogResult& res) {
  explain_failure(c, ns, job, res, container);
  if (res.failed_pod.empty()) return {"", 0};
  for (const auto& p : job_pods(c, ns, job)) {
    auto i = pod_info(p);
    if (i.name == res.failed_pod) return {i.replica_type, i.replica_index};
  }
  return {"", 0};
}

}  // namespace detail

TFJOB_INLINE LogsOutcome read_logs(kube::Client c, const std::string& ns, const LogsRequest& rq, JobLogOptions lo, LogsOutput out) {
  LogsOutcome oc;
  const auto jobs = detail::requested_jobs(c, ns, rq);
  oc.jobs = jobs.size();
  if (jobs.empty()) {
    oc.result = rq.selector.empty() ? LogsOutcome::Result::not_found : LogsOutcome::Result::no_match;
    return oc;
  }
  oc.job_name = rq.name.empty() ? tfjob::detail::value_at(jobs.front(), "/metadata/name"_json_pointer, std::string()) : rq.name;

  // everything that reaches `out` comes one at a time, the periodic flush included
  std::mutex mu;
  auto locked = [&mu](auto fn) {
    std::lock_guard<std::mutex> lk(mu);
    fn();
  };
  if (out.event) lo.on_event = [&](const LogEvent& e) { locked([&] { out.event(e); }); };
  if (out.note) lo.on_note = [&](const std::string& n) { locked([&] { out.note(n); }); };
  auto sink = [&](const LogRecord& r) {
    locked([&] { out.record(r); });
    return true;
  };
  auto wire_bytes = [&] {
    if (!out.bytes) return;
    lo.on_bytes = [&](const LogSource& s, std::string_view b) {
      locked([&] { out.bytes(s, b); });
      return true;
    };
  };
  std::unique_ptr<kube::SideTask> flusher;
  auto start_flusher = [&] {
    if (lo.follow && out.flush)
      flusher = std::make_unique<kube::SideTask>(out.flush_every, [&](const std::atomic<bool>&) {
        locked([&] { out.flush(); });
        return true;
      }, false);
  };

  if (rq.many) {
    const auto targets = detail::targets_of(c, ns, jobs, rq.filter, lo.follow, oc.any_pods);
    oc.streams = targets.size();
    if (targets.empty()) {
      oc.result = LogsOutcome::Result::no_streams;
      oc.finished = summarize(jobs.front()).finished();
      return oc;
    }
    if ((lo.follow || rq.merge) && rq.max_streams && targets.size() > rq.max_streams) {
      oc.result = LogsOutcome::Result::too_many_streams;
      return oc;
    }
    if (out.prepare) out.prepare(targets.size(), jobs.size(), out, lo);
    wire_bytes();
    JobLogsRun how;
    how.merge = rq.merge;
    start_flusher();
    auto r = job_logs(c, ns, targets, lo, how, sink);
    flusher.reset();
    for (const auto& e : r.errors)
      if (!e.empty()) oc.errors.push_back(e);
    for (const auto& x : r.results)
      if (!x.job_state.empty()) oc.end = x;
    if (!oc.errors.empty() || jobs.size() > 1) return oc;
  } else {
    oc.streams = 1;
    std::pair<std::string, int> which{"", 0};
    if (!lo.follow && summarize(jobs.front()).state == "Failed") which = detail::failed_replica(c, ns, rq.name, lo.container, oc.end);
    if (out.prepare) out.prepare(1, 1, out, lo);
    wire_bytes();
    start_flusher();
    auto r = replica_log_records(c, ns, rq.name, which.first, which.second, lo, sink);
    flusher.reset();
    r.failed_pod = oc.end.failed_pod;
    r.failed_exit_code = oc.end.failed_exit_code;
    oc.end = r;
  }
  if (oc.end.job_state.empty())
    oc.end.job_state = summarize(get_opt(c, resources::tfjobs(), ns, oc.job_name).value_or(jobs.front())).state;
  if (oc.end.job_state == "Failed" && oc.end.failed_pod.empty()) explain_failure(c, ns, oc.job_name, oc.end, lo.container);
  return oc;
}

}  // namespace tfjob::workflow
#endif  // TFJOB_SDK_DEFINE_WORKFLOW
