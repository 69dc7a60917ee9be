#pragma once
/// \file The bodies of <tfjob/workflow/progress.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_WORKFLOW` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/workflow/progress.hpp>, never this file.

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

TFJOB_INLINE std::string event_time(const k8s::Event& e) {
  for (const auto* t : {&e.last_timestamp, &e.event_time, &e.first_timestamp})
    if (!t->empty()) return *t;
  return e.metadata.creation_timestamp;
}

/// Whether an event is about that object (kind and name; uid too when both carry one).
TFJOB_INLINE bool about(const k8s::Event& e, const std::string& kind, const std::string& name, const std::string& uid) {
  const auto& io = e.involved_object;
  if (io.kind != kind || io.name != name) return false;
  return uid.empty() || io.uid.empty() || io.uid == uid;
}

}  // namespace detail

TFJOB_INLINE std::vector<k8s::Event> events_for(const std::vector<k8s::Event>& events, const std::string& kind,
                                                const std::string& name, const std::string& uid) {
  std::vector<k8s::Event> out;
  for (const auto& e : events)
    if (detail::about(e, kind, name, uid)) out.push_back(e);
  tfjob::detail::stable_order_by(out, detail::event_time);  // oldest first, each time read once
  return out;
}

TFJOB_INLINE std::optional<PendingReason> pending_reason(const k8s::Pod& pod, const std::vector<k8s::Event>& events) {
  PodInfo i = pod_info(pod);
  PendingReason r{i.name, "", ""};
  if (i.node.empty()) {
    auto evs = events_for(events, "Pod", i.name, i.uid);
    for (auto it = evs.rbegin(); it != evs.rend(); ++it) {
      if (it->reason == "FailedScheduling") {
        r.reason = "FailedScheduling";
        r.message = it->message;
        break;
      }
    }
    if (r.reason.empty()) {
      for (const auto& c : pod.status.conditions) {
        if (c.type == "PodScheduled" && c.status == "False") {
          r.reason = c.reason.empty() ? std::string("Unschedulable") : c.reason;
          r.message = c.message;
        }
      }
    }
  } else if (!i.waiting_reason.empty()) {
    r.reason = i.waiting_reason;
    for (const auto& c : pod.status.container_statuses) {
      const std::string m = c.state.waiting ? c.state.waiting->message : std::string();
      if (!m.empty()) { r.message = i.waiting_reason + ": " + m; break; }
    }
  }
  if (r.reason.empty()) return std::nullopt;
  return r;
}

TFJOB_INLINE Progress progress(const JobSummary& s, const std::vector<k8s::Pod>& pods, const std::vector<k8s::Event>& events) {
  Progress p;
  p.state = s.state;
  for (const auto& [t, n] : s.spec_replicas) p.expected += n;
  std::vector<k8s::Pod> sorted = pods;
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

TFJOB_INLINE Progress progress(const TFJob& job, const std::vector<k8s::Pod>& pods, const std::vector<k8s::Event>& events) {
  return progress(summarize(job), pods, events);
}

}  // namespace tfjob::workflow
