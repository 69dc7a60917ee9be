#pragma once
/// \file The bodies of <tfjob/gpu/check/result.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_GPU` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/gpu/check/result.hpp>, never this file.

namespace tfjob::gpu {

TFJOB_INLINE const char* to_string(NodeStatus s) {
  switch (s) {
    case NodeStatus::ready: return "ready";
    case NodeStatus::not_ready: return "not-ready";
    case NodeStatus::no_gpu: return "no-gpu";
    case NodeStatus::no_result: return "no-result";
    case NodeStatus::pending: return "pending";
    case NodeStatus::failed: return "failed";
    case NodeStatus::timeout: return "timeout";
    case NodeStatus::cancelled: return "cancelled";
    case NodeStatus::skipped: return "skipped";
  }
  return "unknown";
}

TFJOB_INLINE NodeStatus node_status_of_probe(const std::string& verdict) {
  if (verdict == "ready") return NodeStatus::ready;
  if (verdict == "not-ready") return NodeStatus::not_ready;
  if (verdict == "no-gpu") return NodeStatus::no_gpu;
  if (verdict == "no-result") return NodeStatus::no_result;
  return NodeStatus::failed;
}

TFJOB_INLINE bool CheckResult::all_ready() const {
  bool any = false;
  for (const auto& n : nodes) {
    if (n.status == NodeStatus::skipped) continue;
    any = true;
    if (!n.ready()) return false;
  }
  return any;
}

TFJOB_INLINE CheckOutcome CheckResult::outcome() const {
  if (all_ready()) return CheckOutcome::ready;
  bool no_gpu = false, no_result = false, any = false;
  for (const auto& n : nodes) {
    if (n.status == NodeStatus::skipped || n.status == NodeStatus::ready) continue;
    any = true;
    if (n.status == NodeStatus::no_gpu) no_gpu = true;
    else if (n.status == NodeStatus::pending || n.status == NodeStatus::timeout || n.status == NodeStatus::no_result ||
             n.status == NodeStatus::cancelled)
      no_result = true;
    else return CheckOutcome::not_ready;
  }
  if (!any || no_gpu) return CheckOutcome::no_gpu;
  return no_result ? CheckOutcome::no_result : CheckOutcome::not_ready;
}

TFJOB_INLINE std::string explain_pending(const k8s::Pod& pod, const std::vector<k8s::Event>& events) {
  for (const auto& c : pod.status.container_statuses)
    if (const auto& w = c.state.waiting; w && !w->reason.empty() && w->reason != "ContainerCreating" && w->reason != "PodInitializing")
      return w->reason + (w->message.empty() ? "" : ": " + w->message);
  std::string last;
  for (const auto& e : events) {
    if (e.involved_object.name != pod.metadata.name) continue;
    if (e.reason == "FailedScheduling") last = "FailedScheduling: " + e.message;
    else if (e.type == "Warning") last = e.reason + ": " + e.message;
    else if (e.reason == "Pulling") last = "pulling the probe image: " + e.message;
    else if (e.reason == "Pulled" || e.reason == "Scheduled") last.clear();
  }
  if (!last.empty()) {
    if (words::says_insufficient(last, "nvidia.com/gpu"))
      last += " (all of the node's GPUs are in use, or fewer than requested are healthy)";
    return last;
  }
  if (const auto* c = pod.status.condition("PodScheduled"); c && c->status == "False") return c->reason + ": " + c->message;
  return "waiting to be scheduled";
}

TFJOB_INLINE std::string image_pull_failure(const k8s::Pod& pod, const std::vector<k8s::Event>& events) {
  for (const auto& c : pod.status.container_statuses) {
    if (!c.state.waiting) continue;
    const std::string& reason = c.state.waiting->reason;
    if (!words::image_pull_problem(reason)) continue;
    std::string msg = c.state.waiting->message;
    // Up to 1.31 the back-off message only says `Back-off pulling image "IMG"`: the registry's
    // words are in the kubelet's Failed event (1.32 and later put them in the message too).
    if (reason != "ImagePullBackOff" || !words::pull_backoff_names_error(msg))
      for (const auto& e : events)
        if (e.involved_object.name == pod.metadata.name && e.reason == "Failed" && e.message.find("ull") != std::string::npos)
          msg = e.message;
    return reason + (msg.empty() ? "" : ": " + msg);
  }
  return {};
}

TFJOB_INLINE void judge_probe_output(NodeResult& r, const std::string& logs, const VerdictOptions& v) {
  try {
    ProbeReport rep = parse_probe_report(logs);
    if (rep.status != "no-gpu") evaluate(rep, v);
    else rep.expect = v.expect;
    r.status = node_status_of_probe(rep.status);
    r.message = rep.message;
    r.report = std::move(rep);
  } catch (const tfjob::error& e) {
    r.status = NodeStatus::failed;
    r.message = std::string("probe output unreadable (exit code ") + std::to_string(r.exit_code) + "): " + e.what();
  }
}

namespace detail {
TFJOB_INLINE nlohmann::json finding_list(const std::vector<Finding>& fs) {
  nlohmann::json a = nlohmann::json::array();
  for (const auto& f : fs) a.push_back(f);
  return a;
}
}  // namespace detail

TFJOB_INLINE nlohmann::json check_result_json(const CheckResult& r) {
  nlohmann::json nodes = nlohmann::json::array();
  for (const auto& n : r.nodes) {
    nlohmann::json j = {{"node", n.node.name},
                        {"status", to_string(n.status)},
                        {"ready", n.ready()},
                        {"message", n.message.str()},
                        {"pod", n.pod},
                        {"phase", n.phase},
                        {"exitCode", n.exit_code},
                        {"gpuCapacity", n.node.capacity},
                        {"gpuAllocatable", n.node.allocatable},
                        {"gpuUnhealthy", n.node.unhealthy()},
                        {"product", n.node.product()},
                        {"reason", n.reason},
                        {"notes", n.node.notes},
                        {"report", n.report ? nlohmann::json(*n.report) : nlohmann::json(nullptr)}};
    nodes.push_back(std::move(j));
  }
  nlohmann::json inv = nlohmann::json::array();
  for (const auto& g : r.inventory)
    inv.push_back({{"node", g.name},
                   {"capacity", g.capacity},
                   {"allocatable", g.allocatable},
                   {"requested", g.requested},
                   {"gpuPods", g.gpu_pods},
                   {"unhealthy", g.unhealthy()},
                   {"ready", g.ready},
                   {"unschedulable", g.unschedulable},
                   {"labels", g.gfd},
                   {"taints", g.taints},
                   {"problem", g.problem},
                   {"driverVersion", g.driver_version},
                   {"architecture", g.architecture},
                   {"notes", g.notes}});
  return {{"apiVersion", "kubectl-tfjob/v1"},
          {"kind", "GpuCheck"},
          {"runId", r.run_id},
          {"ready", r.all_ready()},
          {"cancelled", r.cancelled},
          {"timedOut", r.timed_out},
          {"inventory", inv},
          {"clusterNotes", r.cluster_notes},
          {"nodes", nodes}};
}

}  // namespace tfjob::gpu
