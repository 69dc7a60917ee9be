#pragma once
/// \file What gpu-check found: each node's status and result, the whole run's outcome, a
/// Pending probe explained from its events, a finished probe judged from its output (the
/// verdict rules, verdict.hpp), and the result as JSON. Part of <tfjob/gpu/check.hpp>.

#include <tfjob/api/cluster_words.hpp>
#include <tfjob/detail/compiled.hpp>
#include <tfjob/detail/json.hpp>
#include <tfjob/error.hpp>
#include <tfjob/gpu/probe_report.hpp>
#include <tfjob/gpu/check/inventory.hpp>
#include <tfjob/gpu/check/probe_pod.hpp>
#include <tfjob/gpu/verdict.hpp>
#include <tfjob/kube/api.hpp>
#include <tfjob/kube/client.hpp>
#include <tfjob/kube/core.hpp>
#include <tfjob/kube/logs.hpp>
#include <tfjob/kube/side_task.hpp>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <mutex>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace tfjob::gpu {

/// What gpu-check found on one node. The first four are the probe's own verdicts
/// (ProbeReport::status; no_result: its watchdog fired); pending/timeout: no result within
/// the deadline; failed: the probe pod failed or its output was unreadable; skipped: not
/// probed (--gpus above what the node allocates).
enum class NodeStatus { ready, not_ready, no_gpu, no_result, pending, failed, timeout, cancelled, skipped };

/// The spelling in output and JSON: "ready", "not-ready", "no-gpu", ...
const char* to_string(NodeStatus s);

/// A node's status from its probe's verdict (ProbeReport::status); a verdict the probe
/// schema does not name is a failed probe.
NodeStatus node_status_of_probe(const std::string& verdict);

/// The outcome on one node.
struct NodeResult {
  NodeGpuInfo node;
  std::string pod;                    ///< probe pod name ("" when not probed)
  std::string phase;                  ///< last pod phase seen
  NodeStatus status = NodeStatus::pending;
  std::string reason;                 ///< for failed: ImagePull when the probe image cannot be pulled
  Text message;                       ///< one line for people (it may name a setting by key)
  std::optional<ProbeReport> report;  ///< the probe's report, judged again here
  int exit_code = -1;                 ///< the probe container's exit code (-1 unknown)
  bool ready() const { return status == NodeStatus::ready; }
};

/// How a whole run ends, for scripts (the plugin's exit code).
enum class CheckOutcome { ready, not_ready, no_gpu, no_result };

/// The whole run.
struct CheckResult {
  std::string run_id;
  std::vector<NodeGpuInfo> inventory;
  std::vector<NodeResult> nodes;
  std::vector<std::string> cluster_notes;  ///< cluster-wide findings before any probe
  bool cancelled = false;
  bool timed_out = false;
  /// True when at least one node was probed and every probed node is ready.
  bool all_ready() const;
  /// Every probed node ready: ready. A node not ready (or a probe that failed) outweighs
  /// one without GPUs, which outweighs one that gave no result in time. No GPU node: no_gpu.
  CheckOutcome outcome() const;
};

/// Explains why a pod has not started from its status and events (pure): the scheduler's
/// FailedScheduling message, an image pull error, or the last Warning event.
std::string explain_pending(const k8s::Pod& pod, const std::vector<k8s::Event>& events);

/// The pull failure of a Pending pod's container (ErrImagePull, ImagePullBackOff,
/// InvalidImageName, ErrImageNeverPull) with the registry's message, or "" (pure). The
/// kubelet's reasons: kubelet/images/types.go.
std::string image_pull_failure(const k8s::Pod& pod, const std::vector<k8s::Event>& events);

/// Judges a finished probe pod from its exit code and log text (pure).
void judge_probe_output(NodeResult& r, const std::string& logs, const VerdictOptions& v);

namespace detail {
nlohmann::json finding_list(const std::vector<Finding>& fs);
}  // namespace detail

/// The result as JSON (`-o json|yaml`).
nlohmann::json check_result_json(const CheckResult& r);

}  // namespace tfjob::gpu

#if TFJOB_SDK_DEFINE_GPU
#include <tfjob/gpu/check/impl/result_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_GPU
