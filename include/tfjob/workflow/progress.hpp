#pragma once
/// \file The one-line progress `submit --wait` and `logs -f` show on stderr while a job
/// starts: its state, its pods by phase, and why pending pods wait (the scheduler's own
/// words from `FailedScheduling` events, or the container's waiting reason).

#include <tfjob/detail/compiled.hpp>
#include <tfjob/detail/json.hpp>
#include <tfjob/workflow/pods.hpp>
#include <tfjob/workflow/status.hpp>

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace tfjob::workflow {

/// Why one pending pod is not running yet.
struct PendingReason {
  std::string pod;
  std::string reason;   ///< e.g. FailedScheduling, ImagePullBackOff, ContainerCreating
  std::string message;  ///< e.g. "0/3 nodes are available: 3 Insufficient nvidia.com/gpu."
};

/// Whether a container waiting for `reason` will not start until the user acts: the image
/// is not on the node and imagePullPolicy is Never, or the image reference does not parse
/// (kubelet pkg/kubelet/images/types.go: ErrImageNeverPull, ErrInvalidImageName). Pull
/// back-offs (ImagePullBackOff, ErrImagePull) are not: a registry can come back.
bool cannot_start(const std::string& reason);

/// A snapshot of a starting or running job.
struct Progress {
  std::string state;  ///< the job's state (Created, Running...), "" before the operator saw it
  int pending = 0, running = 0, succeeded = 0, failed = 0;
  int expected = 0;   ///< pods the spec asks for
  std::vector<PendingReason> waiting;
  /// `Running · pods 1/3 running, 2 pending · worker-1: 0/3 nodes are available: ...`
  std::string line() const;
};

namespace detail {
std::string event_time(const nlohmann::json& e);
}  // namespace detail

/// Events about one object (matched by kind, name and, when both carry one, uid), oldest first.
std::vector<nlohmann::json> events_for(const std::vector<nlohmann::json>& events, const std::string& kind,
                                       const std::string& name, const std::string& uid = {});

/// Why `pod` (Pending) is not running yet: unscheduled, the scheduler's latest
/// `FailedScheduling` event (matched by uid), else the PodScheduled=False condition; once
/// scheduled, the container's waiting reason and message. std::nullopt when it says nothing.
std::optional<PendingReason> pending_reason(const nlohmann::json& pod, const std::vector<nlohmann::json>& events);

/// Build the progress snapshot from the job, its pods and their events (any others are ignored).
Progress progress(const nlohmann::json& job, const std::vector<nlohmann::json>& pods,
                  const std::vector<nlohmann::json>& events);

}  // namespace tfjob::workflow

#if TFJOB_SDK_DEFINE_WORKFLOW
namespace tfjob::workflow {

TFJOB_INLINE bool cannot_start(const std::string& reason) {
  return reason == "ErrImageNeverPull" || reason == "InvalidImageName";
}

TFJOB_INLINE std::string Progress::line() const {
  std::string s = state.empty() ? std::string("Waiting for the operator") : state;
  s += " · pods: " + std::to_string(running) + " running, " + std::to_string(pending) + " pending, " +
       std::to_string(succeeded) + " succeeded, " + std::to_string(failed) + " failed";
  if (expected > 0) s += " (of " + std::to_string(expected) + ")";
  if (!waiting.empty()) {
    const auto& w = waiting.front();
    s += " · " + w.pod + ": " + (w.message.empty() ? w.reason : w.message);
    if (waiting.size() > 1) s += " (+" + std::to_string(waiting.size() - 1) + " more)";
  }
  return s;
}

namespace detail {

TFJOB_INLINE std::string event_time(const nlohmann::json& e) {
  for (const char* k : {"lastTimestamp", "eventTime", "firstTimestamp"}) {
    auto it = e.find(k);
    if (it != e.end() && it->is_string() && !it->get<std::string>().empty()) return it->get<std::string>();
  }
  return tfjob::detail::value_at(e, "/metadata/creationTimestamp"_json_pointer, std::string());
}

}  // namespace detail

TFJOB_INLINE std::vector<nlohmann::json> events_for(const std::vector<nlohmann::json>& events, const std::string& kind,
                                                    const std::string& name, const std::string& uid) {
  std::vector<nlohmann::json> out;
  for (const auto& e : events) {
    const auto io = tfjob::detail::value_at(e, "involvedObject", nlohmann::json::object());
    if (tfjob::detail::value_at(io, "kind", "") != kind || tfjob::detail::value_at(io, "name", "") != name) continue;
    std::string euid = tfjob::detail::value_at(io, "uid", "");
    if (!uid.empty() && !euid.empty() && euid != uid) continue;
    out.push_back(e);
  }
  std::stable_sort(out.begin(), out.end(), [](const nlohmann::json& a, const nlohmann::json& b) {
    return detail::event_time(a) < detail::event_time(b);
  });
  return out;
}

TFJOB_INLINE std::optional<PendingReason> pending_reason(const nlohmann::json& pod, const std::vector<nlohmann::json>& events) {
  PodInfo i = pod_info(pod);
  PendingReason r{i.name, "", ""};
  if (i.node.empty()) {
    auto evs = events_for(events, "Pod", i.name, i.uid);
    for (auto it = evs.rbegin(); it != evs.rend(); ++it) {
      if (tfjob::detail::value_at(*it, "reason", "") == "FailedScheduling") {
        r.reason = "FailedScheduling";
        r.message = tfjob::detail::value_at(*it, "message", "");
        break;
      }
    }
    if (r.reason.empty()) {
      for (const auto& c : tfjob::detail::value_at(pod, "/status/conditions"_json_pointer, nlohmann::json::array())) {
        if (tfjob::detail::value_at(c, "type", "") == "PodScheduled" && tfjob::detail::value_at(c, "status", "") == "False") {
          r.reason = tfjob::detail::value_at(c, "reason", "Unschedulable");
          r.message = tfjob::detail::value_at(c, "message", "");
        }
      }
    }
  } else if (!i.waiting_reason.empty()) {
    r.reason = i.waiting_reason;
    for (const auto& c : tfjob::detail::value_at(pod, "/status/containerStatuses"_json_pointer, nlohmann::json::array())) {
      std::string m = tfjob::detail::value_at(c, "/state/waiting/message"_json_pointer, std::string());
      if (!m.empty()) { r.message = i.waiting_reason + ": " + m; break; }
    }
  }
  if (r.reason.empty()) return std::nullopt;
  return r;
}

TFJOB_INLINE Progress progress(const nlohmann::json& job, const std::vector<nlohmann::json>& pods,
                               const std::vector<nlohmann::json>& events) {
  Progress p;
  JobSummary s = summarize(job);
  p.state = s.state;
  for (const auto& [t, n] : s.spec_replicas) p.expected += n;
  std::vector<nlohmann::json> sorted = pods;
  sort_pods(sorted);
  for (const auto& pod : sorted) {
    PodInfo i = pod_info(pod);
    if (i.deleting) continue;
    if (i.phase == "Running") ++p.running;
    else if (i.phase == "Succeeded") ++p.succeeded;
    else if (i.phase == "Failed") ++p.failed;
    else ++p.pending;
    if (i.phase != "Pending") continue;
    if (auto r = pending_reason(pod, events)) p.waiting.push_back(*r);
  }
  return p;
}

}  // namespace tfjob::workflow
#endif  // TFJOB_SDK_DEFINE_WORKFLOW
