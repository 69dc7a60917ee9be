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

#include <atomic>
#include <chrono>
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

/// Which pod(s) and how.
struct JobLogOptions {
  std::string container = "tensorflow";
  std::string replica_type;  ///< "" = the chief as the operator marks it
  int index = 0;
  bool follow = false;
  std::optional<std::int64_t> tail_lines;
  std::optional<std::int64_t> since_seconds;
  bool timestamps = false;
  bool previous = false;
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

/// The restart count of `container` in a pod (0 when unknown).
inline int restart_count(const nlohmann::json& pod, const std::string& container) {
  for (const auto& c : pod.value("/status/containerStatuses"_json_pointer, nlohmann::json::array()))
    if (c.value("name", "") == container) return c.value("restartCount", 0);
  return 0;
}

/// Whether the container has started at least once (running or terminated).
inline bool container_started(const nlohmann::json& pod, const std::string& container) {
  for (const auto& c : pod.value("/status/containerStatuses"_json_pointer, nlohmann::json::array())) {
    if (c.value("name", "") != container) continue;
    const auto st = c.value("state", nlohmann::json::object());
    if (st.contains("running") || st.contains("terminated")) return true;
    if (c.value("restartCount", 0) > 0) return true;  // waiting after a crash: previous logs exist
    return false;
  }
  std::string phase = pod.value("/status/phase"_json_pointer, std::string());
  return phase == "Running" || phase == "Succeeded" || phase == "Failed";
}

inline bool container_running(const nlohmann::json& pod, const std::string& container) {
  for (const auto& c : pod.value("/status/containerStatuses"_json_pointer, nlohmann::json::array()))
    if (c.value("name", "") == container) return c.value("state", nlohmann::json::object()).contains("running");
  return false;
}

inline void check_container(const nlohmann::json& pod, const std::string& container) {
  auto names = nlohmann::json::array();
  for (const auto& c : pod.value("/spec/containers"_json_pointer, nlohmann::json::array())) {
    if (c.value("name", "") == container) return;
    names.push_back(c.value("name", ""));
  }
  if (names.empty()) return;
  std::string list;
  for (const auto& n : names) list += (list.empty() ? "" : ", ") + n.get<std::string>();
  throw tfjob::error("pod " + pod.value("/metadata/name"_json_pointer, std::string()) + " has no container \"" +
                     container + "\"; its containers: " + list + " (choose one with -c)");
}

}  // namespace detail

/// Follow (or print) one target's logs: the chief (type "") or replica `type`/`index`.
/// `emit(pod, line)` gets each line. Returns when the logs end: without follow after one
/// stream; with follow when the job has finished and the last attempt's log is drained.
inline JobLogResult replica_logs(kube::Client c, const std::string& ns, const std::string& job, const std::string& type,
                                 int index, const JobLogOptions& o,
                                 const std::function<bool(const std::string& pod, std::string_view line)>& emit) {
  JobLogResult res;
  std::set<std::string> done;  // uid:restartCount attempts already shown
  std::map<std::string, int> first_seen;  // pod uid -> its restart count when first looked at
  std::string last_pod_uid;
  int last_restarts = -1;
  auto job_obj = get_opt(c, resources::tfjobs(), ns, job);
  if (!job_obj) throw tfjob::error("TFJob \"" + job + "\" not found in namespace \"" + ns + "\"");
  auto finish = [&](const nlohmann::json& j) {
    auto s = summarize(j);
    res.job_state = s.state;
    res.job_message = s.message;
  };
  bool waiting_noted = false;
  for (;;) {
    if (o.cancel && o.cancel->load()) return res;
    auto pods = job_pods(c, ns, job);
    auto target = detail::pick(pods, type, index);
    if (target)
      first_seen.emplace(target->value("/metadata/uid"_json_pointer, std::string()), detail::restart_count(*target, o.container));
    JobSummary s = summarize(*job_obj);
    if (!o.follow) {
      finish(*job_obj);
      if (!target) {
        throw tfjob::error("TFJob \"" + job + "\" has no pod for " + detail::describe_target(type, index) +
                           (s.finished() ? " (the job is " + s.state + " and its pods were cleaned up: see runPolicy.cleanPodPolicy)"
                                         : " yet (it is " + (s.state.empty() ? std::string("not started") : s.state) +
                                               "): use -f to wait for it"));
      }
      detail::check_container(*target, o.container);
      if (!detail::container_started(*target, o.container)) {
        auto p = progress(*job_obj, pods, namespace_events(c, ns));
        std::string why;
        for (const auto& w : p.waiting)
          if (w.pod == target->value("/metadata/name"_json_pointer, std::string())) why = ": " + (w.message.empty() ? w.reason : w.message);
        throw tfjob::error("pod " + target->value("/metadata/name"_json_pointer, std::string()) + " has not started yet" + why +
                           "\nUse -f to wait for it and follow its log.");
      }
    }
    if (target && detail::container_started(*target, o.container)) {
      detail::check_container(*target, o.container);
      PodInfo info = pod_info(*target, o.container);
      int restarts = detail::restart_count(*target, o.container);
      std::string key = info.uid + ":" + std::to_string(restarts);
      bool running = detail::container_running(*target, o.container);
      if (!done.count(key)) {
        kube::StreamOptions so;
        so.cancel = o.cancel;
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
            }
            try {
              kube::stream_logs(c, ns, info.name, pl, [&](std::string_view line) { return emit(info.name, line); }, so);
              ++res.streams;
              done.insert(missed);
              if (last_pod_uid.empty()) {  // so the restart below is said
                last_pod_uid = info.uid;
                last_restarts = restarts - 1;
              }
            } catch (const api_error&) {
              // not kept (any more): nothing to show
            }
          }
        }
        if (o.follow && o.on_note && !last_pod_uid.empty()) {
          if (last_pod_uid != info.uid) o.on_note("pod " + info.name + " was recreated; following the new pod");
          else if (restarts != last_restarts) o.on_note("container " + o.container + " of pod " + info.name + " restarted (restart " + std::to_string(restarts) + "); following it");
        }
        kube::LogParams lp;
        lp.container = o.container;
        lp.follow = o.follow && running;
        lp.timestamps = o.timestamps;
        lp.previous = o.previous && !o.follow;
        // tail/since apply to the first stream only; later attempts are shown whole
        if (res.streams == 0) {
          lp.tail_lines = o.tail_lines;
          lp.since_seconds = o.since_seconds;
        }
        try {
          kube::stream_logs(c, ns, info.name, lp, [&](std::string_view line) { return emit(info.name, line); }, so);
          ++res.streams;
          done.insert(key);
          last_pod_uid = info.uid;
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
        std::string key = info.uid + ":" + std::to_string(detail::restart_count(*target, o.container));
        if (!done.count(key)) continue;
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
