#pragma once
/// \file A TFJob's logs: the chief's (as the operator marks it) or one replica's, or every
/// replica's; following waits through Pending (reporting progress), picks up restarted
/// containers and recreated pods, and ends when the job finishes. For a failed job the
/// failed pod's output is what matters, and which pod and exit code.

#include <tfjob/kube/logs.hpp>
#include <tfjob/workflow/cluster.hpp>
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

inline const char* to_string(LogEvent::Kind k) {
  switch (k) {
    case LogEvent::started: return "started";
    case LogEvent::terminated: return "terminated";
    case LogEvent::restarted: return "restarted";
    case LogEvent::recreated: return "recreated";
    case LogEvent::deleted: return "deleted";
  }
  return "";
}

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
  /// While the followed pod is not running yet (at most once per `poll`).
  std::function<void(const Progress&)> on_progress;
  /// Something to tell the user (stderr): restarts, the failed pod, waiting.
  std::function<void(const std::string&)> on_note;
  std::chrono::milliseconds poll{500};
  const std::atomic<bool>* cancel = nullptr;
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

/// The pod a target names right now.
inline std::optional<nlohmann::json> pick(const std::vector<nlohmann::json>& pods, const std::string& type, int index) {
  if (type.empty()) return select_chief(pods);
  return select_replica(pods, type, index);
}

inline std::string describe_target(const std::string& type, int index) {
  return type.empty() ? std::string("the chief") : type + " " + std::to_string(index);
}

/// The status of `container` (a container, an init container or an ephemeral one), or null.
inline const nlohmann::json* container_status(const nlohmann::json& pod, const std::string& container) {
  static const nlohmann::json none;
  const auto st = pod.find("status");
  if (st == pod.end() || !st->is_object()) return nullptr;
  for (const char* k : {"containerStatuses", "initContainerStatuses", "ephemeralContainerStatuses"}) {
    auto l = st->find(k);
    if (l == st->end() || !l->is_array()) continue;
    for (const auto& c : *l)
      if (c.value("name", "") == container) return &c;
  }
  (void)none;
  return nullptr;
}

/// The restart count of `container` in a pod (0 when unknown).
inline int restart_count(const nlohmann::json& pod, const std::string& container) {
  const auto* c = container_status(pod, container);
  return c ? c->value("restartCount", 0) : 0;
}

/// Whether the container has started at least once (running or terminated). A pod whose
/// phase says Running before its container statuses are reported counts as started.
inline bool container_started(const nlohmann::json& pod, const std::string& container) {
  if (const auto* c = container_status(pod, container)) {
    const auto st = c->value("state", nlohmann::json::object());
    if (st.contains("running") || st.contains("terminated")) return true;
    return c->value("restartCount", 0) > 0;  // waiting after a crash: previous logs exist
  }
  std::string phase = pod.value("/status/phase"_json_pointer, std::string());
  return phase == "Running" || phase == "Succeeded" || phase == "Failed";
}

/// Whether the container may still write: running, or not reported yet in a Running pod
/// (a status update can lag the start; such a log must be followed, not read once).
inline bool container_running(const nlohmann::json& pod, const std::string& container) {
  if (const auto* c = container_status(pod, container))
    return c->value("state", nlohmann::json::object()).contains("running");
  return pod.value("/status/phase"_json_pointer, std::string()) == "Running";
}

/// The container names of a pod spec: init containers, then containers (kubectl's
/// --all-containers order), then ephemeral ones.
inline std::vector<std::string> spec_containers(const nlohmann::json& spec, bool with_init = true) {
  std::vector<std::string> out;
  for (const char* k : {"initContainers", "containers", "ephemeralContainers"}) {
    if (!with_init && std::string(k) != "containers") continue;
    for (const auto& c : spec.value(k, nlohmann::json::array())) out.push_back(c.value("name", ""));
  }
  return out;
}

inline void check_container(const nlohmann::json& pod, const std::string& container) {
  auto names = spec_containers(pod.value("spec", nlohmann::json::object()));
  if (names.empty() || std::find(names.begin(), names.end(), container) != names.end()) return;
  std::string list;
  for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
  throw tfjob::error("pod " + pod.value("/metadata/name"_json_pointer, std::string()) + " has no container \"" +
                     container + "\"; its containers: " + list);
}

/// The terminated state of attempt `attempt` of a container: its current state when that
/// is the attempt shown, else lastState (the kubelet keeps one).
inline std::optional<nlohmann::json> terminated_state(const nlohmann::json& pod, const std::string& container, int attempt) {
  const auto* c = container_status(pod, container);
  if (!c) return std::nullopt;
  int rc = c->value("restartCount", 0);
  const char* where = rc == attempt ? "/state/terminated" : (rc == attempt + 1 ? "/lastState/terminated" : nullptr);
  if (!where) return std::nullopt;
  nlohmann::json::json_pointer ptr(where);
  if (!c->contains(ptr)) return std::nullopt;
  return (*c)[ptr];
}

}  // namespace detail

/// A record of a log stream: where from, and a piece of a line (see kube::LogPiece).
struct LogRecord {
  const LogSource* source = nullptr;
  kube::LogPiece piece;
};

/// Follow (or print) one target's logs: the chief (type "") or replica `type`/`index`.
/// `sink` gets each piece of each line. Returns when the logs end: without follow after one
/// stream; with follow when the job has finished and the last attempt's log is drained.
inline JobLogResult replica_log_records(kube::Client c, const std::string& ns, const std::string& job,
                                        const std::string& type, int index, const JobLogOptions& o,
                                        const std::function<bool(const LogRecord&)>& sink) {
  JobLogResult res;
  std::set<std::string> done;    // uid:restartCount attempts already shown
  std::set<std::string> said;    // events already told
  std::map<std::string, int> first_seen;  // pod uid -> its restart count when first looked at
  std::string last_pod_uid, last_pod_name;
  int last_restarts = -1;
  auto job_obj = get_opt(c, resources::tfjobs(), ns, job);
  if (!job_obj) throw tfjob::error("TFJob \"" + job + "\" not found in namespace \"" + ns + "\"");
  auto finish = [&](const nlohmann::json& j) {
    auto s = summarize(j);
    res.job_state = s.state;
    res.job_message = s.message;
  };
  auto source_of = [&](const PodInfo& info, int attempt) {
    LogSource src;
    src.job = job;
    src.namespace_ = ns;
    src.replica_type = info.replica_type;
    src.index = info.replica_index;
    src.pod = info.name;
    src.container = o.container;
    src.attempt = attempt;
    return src;
  };
  auto tell = [&](LogEvent::Kind k, const LogSource& src, const std::string& key, std::string message) {
    if (!o.follow || !said.insert(std::string(to_string(k)) + ":" + key).second) return;
    LogEvent ev;
    ev.kind = k;
    ev.source = src;
    ev.message = std::move(message);
    if (o.on_event) o.on_event(ev);
    else if (o.on_note && k != LogEvent::started) o.on_note(ev.message);
  };
  // Say how each attempt shown ended (once), from the pod as it is now.
  auto tell_terminated = [&](const nlohmann::json& pod, const PodInfo& info, int attempt) {
    auto t = detail::terminated_state(pod, o.container, attempt);
    if (!t || !o.follow) return;
    const std::string key = info.uid + ":" + std::to_string(attempt);
    if (said.count("terminated:" + key)) return;
    LogEvent ev;
    ev.kind = LogEvent::terminated;
    ev.source = source_of(info, attempt);
    if (t->contains("exitCode")) ev.exit_code = (*t)["exitCode"].get<int>();
    ev.reason = t->value("reason", "");
    ev.message = "container " + o.container + " of pod " + info.name + " terminated: exit code " +
                 (ev.exit_code ? std::to_string(*ev.exit_code) : std::string("unknown")) +
                 (ev.reason.empty() ? "" : " (" + ev.reason + ")");
    said.insert("terminated:" + key);
    if (o.on_event) o.on_event(ev);
  };
  auto stream = [&](const PodInfo& info, int attempt, kube::LogParams lp) {
    LogSource src = source_of(info, attempt);
    kube::StreamOptions so;
    so.cancel = o.cancel;
    kube::LogStreamer ls(c, ns, info.name, lp);
    ls.want_times = o.want_times;
    ls.max_line_bytes = o.max_line_bytes;
    ls.eager = o.eager;
    if (o.on_bytes && ls.resumes_by_bytes()) {
      ls.run_bytes([&](std::string_view b) { return o.on_bytes(src, b); }, so);
      return;
    }
    LogRecord rec;
    rec.source = &src;
    ls.run_pieces([&](const kube::LogPiece& pc) {
      rec.piece = pc;
      return sink(rec);
    }, so);
  };
  bool waiting_noted = false;
  for (;;) {
    if (o.cancel && o.cancel->load()) return res;
    auto pods = job_pods(c, ns, job);
    auto target = detail::pick(pods, type, index);
    const std::string target_uid = target ? target->value("/metadata/uid"_json_pointer, std::string()) : std::string();
    if (target) first_seen.emplace(target_uid, detail::restart_count(*target, o.container));
    // the pod followed is gone (deleted, or replaced by the operator): said when first seen,
    // whether or not its successor has started
    if (!last_pod_uid.empty() && target_uid != last_pod_uid && o.follow) {
      LogSource src;
      src.job = job;
      src.namespace_ = ns;
      src.pod = last_pod_name;
      src.container = o.container;
      tell(LogEvent::deleted, src, last_pod_uid, "pod " + last_pod_name + " was deleted");
      if (target)
        tell(LogEvent::recreated, source_of(pod_info(*target, o.container), detail::restart_count(*target, o.container)), target_uid,
             "pod " + target->value("/metadata/name"_json_pointer, std::string()) + " was recreated; following the new pod");
    }
    JobSummary s = summarize(*job_obj);
    if (!o.follow) {
      finish(*job_obj);
      if (!target) {
        throw tfjob::error("TFJob \"" + job + "\" has no pod for " + detail::describe_target(type, index) +
                           (s.finished() ? " (the job is " + s.state + " and its pods were cleaned up: see runPolicy.cleanPodPolicy)"
                                         : " yet (it is " + (s.state.empty() ? std::string("not started") : s.state) +
                                               "): follow the logs to wait for it"));
      }
      detail::check_container(*target, o.container);
      if (!detail::container_started(*target, o.container)) {
        auto p = progress(*job_obj, pods, namespace_events(c, ns));
        std::string why;
        for (const auto& w : p.waiting)
          if (w.pod == target->value("/metadata/name"_json_pointer, std::string())) why = ": " + (w.message.empty() ? w.reason : w.message);
        throw tfjob::error("pod " + target->value("/metadata/name"_json_pointer, std::string()) + " has not started yet" + why +
                           "\nFollow the logs to wait for it.");
      }
    }
    if (target && detail::container_started(*target, o.container)) {
      detail::check_container(*target, o.container);
      PodInfo info = pod_info(*target, o.container);
      int restarts = detail::restart_count(*target, o.container);
      std::string key = info.uid + ":" + std::to_string(restarts);
      bool running = detail::container_running(*target, o.container);
      if (!last_pod_uid.empty() && last_pod_uid == info.uid && last_restarts >= 0 && last_restarts < restarts)
        tell_terminated(*target, info, last_restarts);
      if (!done.count(key)) {
        // An attempt that started and ended between two looks (a short first run while we
        // waited for the pod to start, say) is the container's previous log, which the
        // kubelet keeps: show it before the current one, so no line of an attempt that began
        // while following is lost.
        if (o.follow && restarts > 0) {
          const std::string missed = info.uid + ":" + std::to_string(restarts - 1);
          auto fs = first_seen.find(info.uid);
          if (fs != first_seen.end() && restarts - 1 >= fs->second && !done.count(missed)) {
            kube::LogParams pl;
            pl.container = o.container;
            pl.previous = true;
            pl.timestamps = o.timestamps;
            if (res.streams == 0) {
              pl.tail_lines = o.tail_lines;
              pl.since_seconds = o.since_seconds;
              pl.since_time = o.since_time;
            }
            try {
              tell(LogEvent::started, source_of(info, restarts - 1), missed, "container " + o.container + " of pod " + info.name + " started");
              stream(info, restarts - 1, pl);
              ++res.streams;
              done.insert(missed);
              tell_terminated(*target, info, restarts - 1);
              if (last_pod_uid.empty()) {  // so the restart below is said
                last_pod_uid = info.uid;
                last_pod_name = info.name;
                last_restarts = restarts - 1;
              }
            } catch (const api_error&) {
              // not kept (any more): nothing to show
            }
          }
        }
        if (!last_pod_uid.empty()) {
          if (last_pod_uid != info.uid)
            tell(LogEvent::recreated, source_of(info, restarts), info.uid, "pod " + info.name + " was recreated; following the new pod");
          else if (restarts != last_restarts)
            tell(LogEvent::restarted, source_of(info, restarts), key,
                 "container " + o.container + " of pod " + info.name + " restarted (restart " + std::to_string(restarts) +
                     ", attempt " + std::to_string(restarts + 1) + "); following it");
        }
        tell(LogEvent::started, source_of(info, restarts), key, "container " + o.container + " of pod " + info.name + " started");
        kube::LogParams lp;
        lp.container = o.container;
        lp.follow = o.follow && running;
        lp.timestamps = o.timestamps;
        lp.previous = o.previous && !o.follow;
        // tail/since apply to the first stream only; later attempts are shown whole
        if (res.streams == 0) {
          lp.tail_lines = o.tail_lines;
          lp.since_seconds = o.since_seconds;
          lp.since_time = o.since_time;
        }
        try {
          stream(info, restarts, lp);
          ++res.streams;
          done.insert(key);
          last_pod_uid = info.uid;
          last_pod_name = info.name;
          last_restarts = restarts;
        } catch (const api_error& e) {
          // 400 "container ... is waiting to start" / 404 pod just deleted: look again
          if (!o.follow || (e.code() != 400 && !e.is_not_found())) throw;
          std::this_thread::sleep_for(o.poll);
        }
        if (!o.follow) return res;
        job_obj = get_opt(c, resources::tfjobs(), ns, job);
        if (!job_obj) {
          if (o.on_note) o.on_note("TFJob " + job + " was deleted");
          return res;
        }
        continue;  // look at the pod again right away
      }
      tell_terminated(*target, info, restarts);
    }
    // Nothing new to stream: is the job over?
    job_obj = get_opt(c, resources::tfjobs(), ns, job);
    if (!job_obj) {
      if (o.on_note) o.on_note("TFJob " + job + " was deleted");
      return res;
    }
    s = summarize(*job_obj);
    if (s.finished()) {
      // drain: a last attempt that ended between our checks
      pods = job_pods(c, ns, job);
      target = detail::pick(pods, type, index);
      if (target && detail::container_started(*target, o.container)) {
        PodInfo info = pod_info(*target, o.container);
        int restarts = detail::restart_count(*target, o.container);
        std::string key = info.uid + ":" + std::to_string(restarts);
        if (!done.count(key)) continue;
        tell_terminated(*target, info, restarts);
      }
      finish(*job_obj);
      return res;
    }
    if (o.on_progress) o.on_progress(progress(*job_obj, pods, namespace_events(c, ns)));
    else if (o.on_note && !waiting_noted && (!target || !detail::container_started(*target, o.container))) {
      o.on_note("waiting for " + detail::describe_target(type, index) + " of TFJob " + job + " to start");
      waiting_noted = true;
    }
    std::this_thread::sleep_for(o.poll);
  }
}

/// replica_log_records with whole lines: `emit(pod, line)` gets each line (without '\n';
/// a long line is gathered whole).
inline JobLogResult replica_logs(kube::Client c, const std::string& ns, const std::string& job, const std::string& type,
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
inline std::string index_ranges(const std::vector<int>& sorted) {
  std::string out;
  for (std::size_t i = 0; i < sorted.size();) {
    std::size_t j = i;
    while (j + 1 < sorted.size() && sorted[j + 1] == sorted[j] + 1) ++j;
    out += (out.empty() ? "" : ", ") + std::to_string(sorted[i]) + (j > i ? "-" + std::to_string(sorted[j]) : "");
    i = j + 1;
  }
  return out;
}

/// The streams of one job in reading order (see replica_rank). `pods` non-empty: the
/// replicas that have pods (a read of what exists); empty: every replica of the spec (to
/// follow, waiting for pods not made yet). An index or type the job does not have is an
/// error naming the ones it has.
inline std::vector<LogTarget> log_targets(const nlohmann::json& job, const std::vector<nlohmann::json>& pods,
                                          const LogTargetFilter& f, bool from_spec) {
  const std::string name = job.value("/metadata/name"_json_pointer, std::string());
  const auto specs = job.value("/spec/tfReplicaSpecs"_json_pointer, nlohmann::json::object());
  std::map<std::string, std::pair<std::string, int>> spec;  // lower -> (as written, replicas)
  for (auto it = specs.begin(); it != specs.end(); ++it)
    spec[detail::lower(it.key())] = {it.key(), it->value("replicas", 1)};
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
        containers = detail::spec_containers(specs[it->second.first].value("/template/spec"_json_pointer, nlohmann::json::object()));
    }
    if (containers.empty()) containers.push_back(f.default_container);
    for (const auto& c : containers) out.push_back({name, t, i, c});
  }
  return out;
}

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
  void push(std::size_t i, const LogRecord& r) {
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
  /// Stream `i` has ended.
  void end(std::size_t i) {
    std::lock_guard<std::mutex> lk(mu_);
    ended_[i] = true;
    ready_.notify_all();
  }
  /// Release records until every stream has ended and all are out (call on one thread).
  void run() {
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
  /// Unblock producers (on cancel).
  void stop() {
    std::lock_guard<std::mutex> lk(mu_);
    stop_ = true;
    space_.notify_all();
  }

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
  static bool less(const Held& a, std::size_t ai, const Held& b, std::size_t bi) {
    if (a.ts != b.ts) return a.ts < b.ts;
    return ai < bi;
  }
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
inline JobLogsResult job_logs(kube::Client c, const std::string& ns, const std::vector<LogTarget>& targets,
                              JobLogOptions o, const JobLogsRun& how, const std::function<bool(const LogRecord&)>& sink) {
  JobLogsResult out;
  out.results.resize(targets.size());
  out.errors.resize(targets.size());
  auto opts_for = [&](const LogTarget& t) {
    JobLogOptions x = o;
    x.container = t.container;
    return x;
  };
  if (!o.follow && !how.merge) {
    for (std::size_t k = 0; k < targets.size(); ++k) {
      try {
        out.results[k] = replica_log_records(c, ns, targets[k].job, targets[k].replica_type, targets[k].index, opts_for(targets[k]), sink);
      } catch (const std::exception& e) {
        out.errors[k] = e.what();
      }
    }
    return out;
  }
  std::mutex mu;
  std::unique_ptr<LogMerger> merger;
  if (how.merge) {
    o.want_times = true;
    o.on_bytes = nullptr;
    merger = std::make_unique<LogMerger>(targets.size(),
                                         o.follow ? std::optional<std::chrono::milliseconds>(how.merge_window) : std::nullopt,
                                         [&](const LogRecord& r) { sink(r); });
  }
  // Following: a replica may run on after its job has ended (a PS, workers under a chief's
  // success policy) and its stream would never end. A watch on each job says when it has
  // ended; the streams of containers still running then are stopped (what they wrote is out).
  std::vector<std::unique_ptr<std::atomic<bool>>> stops;
  for (std::size_t k = 0; k < targets.size(); ++k) stops.push_back(std::make_unique<std::atomic<bool>>(false));
  std::atomic<bool> finished{false};
  const std::atomic<bool>* outer = o.cancel;
  std::vector<std::thread> guards;
  if (o.follow) {
    std::set<std::string> jobs;
    for (const auto& t : targets) jobs.insert(t.job);
    for (const auto& j : jobs)
      guards.emplace_back([&, j] {
        try {
          WaitOptions wo;
          wo.condition = "Succeeded";  // Failed makes it impossible: either way the job has ended
          wo.cancel = &finished;
          auto rep = wait_for_job(c, ns, j, wo);
          if (rep.result == WaitResult::timeout) return;  // stopped: everything ended first, or cancel
          kube::Client pc = c;
          auto pods = job_pods(pc, ns, j);
          for (std::size_t k = 0; k < targets.size(); ++k) {
            if (targets[k].job != j) continue;
            auto p = detail::pick(pods, targets[k].replica_type, targets[k].index);
            if (rep.result == WaitResult::deleted || !p || detail::container_running(*p, targets[k].container)) *stops[k] = true;
          }
        } catch (const std::exception&) {
          // best effort: the streams end with their containers anyway
        }
      });
    guards.emplace_back([&] {  // the caller's cancel reaches every stream
      while (!finished.load()) {
        if (outer && outer->load()) {
          for (auto& st : stops) *st = true;
          finished = true;
          return;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
    });
  }
  std::vector<std::thread> threads;
  for (std::size_t k = 0; k < targets.size(); ++k) {
    threads.emplace_back([&, k] {
      try {
        JobLogOptions x = opts_for(targets[k]);
        if (o.follow) x.cancel = stops[k].get();
        out.results[k] = replica_log_records(c, ns, targets[k].job, targets[k].replica_type, targets[k].index, x,
                                             [&](const LogRecord& r) {
                                               if (merger) {
                                                 merger->push(k, r);
                                                 return true;
                                               }
                                               std::lock_guard<std::mutex> lk(mu);
                                               return sink(r);
                                             });
      } catch (const std::exception& e) {
        out.errors[k] = e.what();
      }
      if (merger) merger->end(k);
    });
  }
  if (merger) merger->run();
  for (auto& t : threads) t.join();
  finished = true;
  for (auto& g : guards) g.join();
  // a stream stopped because the job ended still reports the job's state
  if (o.follow)
    for (std::size_t k = 0; k < targets.size(); ++k)
      if (out.results[k].job_state.empty() && out.errors[k].empty() && !(outer && outer->load()))
        if (auto j = get_opt(c, resources::tfjobs(), ns, targets[k].job)) {
          auto s = summarize(*j);
          out.results[k].job_state = s.state;
          out.results[k].job_message = s.message;
        }
  return out;
}

// ---- saving ------------------------------------------------------------------------------

/// Runs `fn` every `every` on a side thread until destroyed (flushing what streams wrote,
/// so a quiet stream's last line does not wait in a buffer).
class Periodic {
 public:
  Periodic(std::chrono::milliseconds every, std::function<void()> fn)
      : fn_(std::move(fn)), every_(every), thread_([this] {
          std::unique_lock<std::mutex> lk(mu_);
          while (!cv_.wait_for(lk, every_, [&] { return stop_; })) {
            lk.unlock();
            fn_();
            lk.lock();
          }
        }) {}
  Periodic(const Periodic&) = delete;
  Periodic& operator=(const Periodic&) = delete;
  ~Periodic() {
    {
      std::lock_guard<std::mutex> lk(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }

 private:
  std::function<void()> fn_;
  std::chrono::milliseconds every_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;  // last: starts once the rest exists
};

/// Writes each stream's log to a directory as it streams, byte for byte: `<pod>.<container>.log`
/// (the attempts of a container one after another, as they were shown; a recreated pod of
/// the same name continues its file), and the state changes to `events.log`; written out
/// every 100 ms. What a pod
/// wrote stays on disk when the operator deletes it (cleanPodPolicy, TTL, a restart).
class LogSaver {
 public:
  explicit LogSaver(std::string dir) : dir_(std::move(dir)) {
    std::error_code ec;
    std::filesystem::create_directories(dir_, ec);
    if (ec || !std::filesystem::is_directory(dir_))
      throw tfjob::error("cannot save logs in \"" + dir_ + "\": " + (ec ? ec.message() : std::string("not a directory")));
    flusher_ = std::make_unique<Periodic>(std::chrono::milliseconds(100), [this] { flush(); });
  }
  ~LogSaver() {
    flusher_.reset();
    flush();
  }
  const std::string& dir() const { return dir_; }

  /// A record of a stream (thread-safe).
  void record(const LogRecord& r) {
    std::lock_guard<std::mutex> lk(mu_);
    auto& f = file(r.source->pod + "." + r.source->container + ".log");
    f.write(r.piece.text.data(), static_cast<std::streamsize>(r.piece.text.size()));
    if (r.piece.last && r.piece.terminated) f.put('\n');
  }
  /// The bytes of a plain read (thread-safe).
  void bytes(const LogSource& s, std::string_view b) {
    std::lock_guard<std::mutex> lk(mu_);
    file(s.pod + "." + s.container + ".log").write(b.data(), static_cast<std::streamsize>(b.size()));
  }
  /// A state change, one line in events.log (thread-safe; flushed at once).
  void event(const LogEvent& e) {
    std::lock_guard<std::mutex> lk(mu_);
    auto& f = file("events.log");
    f << detail_now_rfc3339() << " " << to_string(e.kind) << " " << e.source.pod << " " << e.source.container << ": "
      << e.message << "\n";
    flush_locked();
  }
  void flush() {
    std::lock_guard<std::mutex> lk(mu_);
    flush_locked();
  }

 private:
  static std::string detail_now_rfc3339() { return kube::detail::format_rfc3339(std::time(nullptr)); }
  std::ofstream& file(const std::string& name) {
    auto it = files_.find(name);
    if (it != files_.end()) return *it->second;
    auto f = std::make_unique<std::ofstream>(dir_ + "/" + name, std::ios::binary | std::ios::app);
    if (!*f) throw tfjob::error("cannot write \"" + dir_ + "/" + name + "\": " + std::strerror(errno));
    return *files_.emplace(name, std::move(f)).first->second;
  }
  void flush_locked() {
    for (auto& [n, f] : files_) f->flush();
    last_flush_ = std::chrono::steady_clock::now();
  }
  std::string dir_;
  std::mutex mu_;
  std::map<std::string, std::unique_ptr<std::ofstream>> files_;
  std::chrono::steady_clock::time_point last_flush_ = std::chrono::steady_clock::now();
  std::unique_ptr<Periodic> flusher_;
};

/// Follow every replica's every container of `job` into `saver` until the job ends (or
/// `cancel`): what `wait` and `submit --follow` run beside their own work.
inline JobLogsResult save_job_logs(kube::Client c, const std::string& ns, const std::string& job, LogSaver& saver,
                                   const std::atomic<bool>* cancel = nullptr) {
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

/// save_job_logs on a side thread, for commands busy with something else meanwhile
/// (wait, submit --follow).
class LogSaveTask {
 public:
  LogSaveTask(kube::Client c, std::string ns, std::string job, const std::string& dir) : saver_(dir) {
    thread_ = std::thread([this, c, ns = std::move(ns), job = std::move(job)]() mutable {
      try {
        result_ = save_job_logs(c, ns, job, saver_, &cancel_);
      } catch (const std::exception& e) {
        error_ = e.what();
      }
    });
  }
  LogSaveTask(const LogSaveTask&) = delete;
  LogSaveTask& operator=(const LogSaveTask&) = delete;
  ~LogSaveTask() { finish(false); }
  /// `drain`: the job has ended, let the streams end with it; else stop them now. Returns
  /// "" or what went wrong.
  std::string finish(bool drain) {
    if (!drain) cancel_ = true;
    if (thread_.joinable()) thread_.join();
    saver_.flush();
    std::string e = error_;
    for (const auto& x : result_.errors)
      if (!x.empty() && e.empty()) e = x;
    return e;
  }
  const std::string& dir() const { return saver_.dir(); }

 private:
  LogSaver saver_;
  std::atomic<bool> cancel_{false};
  JobLogsResult result_;
  std::string error_;
  std::thread thread_;
};

/// For a Failed job: the pod that failed and its exit code (from the pods still there).
inline void explain_failure(kube::Client c, const std::string& ns, const std::string& job, JobLogResult& r,
                            const std::string& container = "tensorflow") {
  auto pods = job_pods(c, ns, job);
  if (auto f = select_failed(pods)) {
    PodInfo i = pod_info(*f, container);
    r.failed_pod = i.name;
    r.failed_exit_code = i.exit_code;
  }
}

}  // namespace tfjob::workflow
