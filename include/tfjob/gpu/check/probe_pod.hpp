#pragma once
/// \file The probe pod gpu-check renders for one node (pure): pinned to it, requesting its
/// GPUs, tolerating nvidia.com/gpu taints, bounded by activeDeadlineSeconds, labelled for
/// cleanup; and the options of a check. Part of <tfjob/gpu/check.hpp>.

#include <tfjob/api/cluster_words.hpp>
#include <tfjob/detail/compiled.hpp>
#include <tfjob/detail/json.hpp>
#include <tfjob/error.hpp>
#include <tfjob/gpu/probe_report.hpp>
#include <tfjob/gpu/check/inventory.hpp>
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

/// Options for the probe pods and the run.
struct CheckOptions {
  std::string namespace_;                 ///< where the probe pods run ("" = the client's)
  std::string image = default_probe_image;
  std::string image_pull_policy = "IfNotPresent";
  std::string expect;                     ///< a known model family ("" = none)
  bool strict = false;                    ///< the probe's warnings fail (PCIe, throttling, NVLink, ...)
  int gpus = 0;                           ///< GPUs per probe pod; 0 = all the node allocates
  std::vector<std::string> nodes;         ///< only these nodes ("" = every GPU node)
  int deadline_seconds = 300;             ///< activeDeadlineSeconds of each pod, and the wait
  bool keep = false;                      ///< keep the probe pods (debugging)
  std::string run_id;                     ///< "" = random
  std::chrono::milliseconds poll{1000};   ///< how often Pending pods' events are looked at again
  std::chrono::milliseconds running_every{5000};  ///< how often a running probe's last log line is told
  const std::atomic<bool>* cancel = nullptr;    ///< raise to stop early (pods still deleted)
  /// One line per change (stderr); a line that names a setting (CheckOptions::gpus) names it by key.
  std::function<void(const Text&)> progress;
};

namespace detail {
/// Seconds the run waits beyond the pods' activeDeadlineSeconds (scheduling, log reading);
/// the probe's watchdog fires this much and 5 s more before that deadline.
int wait_slack_seconds(int deadline_seconds);
}  // namespace detail

/// The probe pod for one node (pure).
k8s::Pod probe_pod(const NodeGpuInfo& node, const CheckOptions& o, const std::string& run_id);

}  // namespace tfjob::gpu

#if TFJOB_SDK_DEFINE_GPU
#include <tfjob/gpu/check/impl/probe_pod_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_GPU
