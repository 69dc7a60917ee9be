#pragma once
/// \file The GPU inventory of a cluster's nodes (pure, from k8s::Node): what each GPU node
/// has (GPU feature discovery's labels, driver, architecture), what the NVIDIA device plugin's
/// and validator's pods say of it, and the GPUs its pods already hold. Part of
/// <tfjob/gpu/check.hpp>.

#include <tfjob/api/cluster_words.hpp>
#include <tfjob/detail/compiled.hpp>
#include <tfjob/detail/json.hpp>
#include <tfjob/error.hpp>
#include <tfjob/gpu/probe_report.hpp>
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

/// The probe image `gpu-check` runs by default (built from gpu/Dockerfile, CUDA 12.x).
inline constexpr const char* default_probe_image = "ghcr.io/kubectl-tfjob/gpu-probe:v0.1.0";
/// Resource name of NVIDIA GPUs (the NVIDIA device plugin's).
inline constexpr const char* gpu_resource = "nvidia.com/gpu";
/// Label on every probe pod: the run it belongs to (for cleanup with a selector).
inline constexpr const char* run_label = "kubectl-tfjob.kubeflow.org/gpu-check";
/// Label on every probe pod: what it is.
inline constexpr const char* component_label = "app.kubernetes.io/name";
inline constexpr const char* component_value = "tfjob-gpu-probe";
/// Annotation with the node a probe pod checks (node names may exceed label limits).
inline constexpr const char* node_annotation = "kubectl-tfjob.kubeflow.org/node";

/// One node as far as GPUs are concerned.
struct NodeGpuInfo {
  std::string name;
  std::string hostname;                     ///< kubernetes.io/hostname label (pinning), else the name
  std::int64_t capacity = 0;                ///< status.capacity[nvidia.com/gpu]
  std::int64_t allocatable = 0;             ///< status.allocatable[nvidia.com/gpu]
  std::map<std::string, std::string> gfd;   ///< GPU Feature Discovery / accelerator labels
  std::vector<nlohmann::json> taints;       ///< spec.taints
  bool ready = false;
  bool unschedulable = false;
  bool looks_like_gpu = false;              ///< capacity, GFD labels or an accelerator label
  std::string problem;                      ///< why it cannot be probed ("" = fine)
  int driver_major = 0;                     ///< from GPU feature discovery's labels (0 = unknown)
  std::string driver_version;               ///< nvidia.com/cuda.driver-version.full or major.minor.rev
  std::string architecture;                 ///< nvidia.com/gpu.family (volta, ampere, ...), "" unknown
  std::vector<std::string> notes;           ///< what the cluster says before any probe (warnings)
  std::int64_t requested = 0;               ///< nvidia.com/gpu held by the pods bound to it (read_gpu_use)
  int gpu_pods = 0;                         ///< how many pods hold them
  /// allocatable - requested: what a new pod may still ask for.
  std::int64_t free() const { return allocatable > requested ? allocatable - requested : 0; }
  /// capacity - allocatable: devices the device plugin reports unhealthy.
  std::int64_t unhealthy() const { return capacity > allocatable ? capacity - allocatable : 0; }
  /// nvidia.com/gpu.product (GFD), or the GKE/GCE accelerator label, or "".
  std::string product() const;
};

namespace detail {
std::int64_t count_of(const std::string& q);
std::string lower_ascii(std::string s);
bool gpu_label(const std::string& k);
}  // namespace detail

/// R580 is a long-term support branch (LTSB) and the last that drives Volta; NVIDIA's
/// Data Center driver lifecycle (docs.nvidia.com/datacenter/tesla/drivers) gives LTSBs
/// three years of fixes, so Volta nodes get none after about August 2028.
inline constexpr const char* volta_last_branch_end_of_life = "about August 2028";

/// GPU feature discovery's driver and architecture labels (pure): the driver major from
/// `nvidia.com/cuda.driver-version.major` (GFD >= 0.15) or `nvidia.com/cuda.driver.major`
/// (older), the architecture from `nvidia.com/gpu.family`, or from the compute capability
/// labels (`nvidia.com/gpu.compute.major/minor`: 7.0 is Volta).
void read_gfd(NodeGpuInfo& g);

/// The GPU view of one node (pure).
NodeGpuInfo inspect_node(const k8s::Node& n);

/// Labels of the NVIDIA device plugin's and the GPU Operator validator's pods.
const std::vector<std::string>& device_plugin_selectors();
inline constexpr const char* validator_selector = "app=nvidia-operator-validator";

namespace detail {
/// "Running", or the phase and the first waiting/terminated reason of a pod that is not.
std::string pod_state(const k8s::Pod& p, bool& ok);
}  // namespace detail

/// What the NVIDIA device plugin's and GPU Operator validator's pods say about each GPU
/// node (pure): a node whose plugin pod is not Running and Ready, or whose validator is not
/// Running (it stays in an init container while a component fails), gets a note. Returns
/// cluster-wide notes (e.g. no device plugin pods found).
std::vector<std::string> note_gpu_components(std::vector<NodeGpuInfo>& inv, const std::vector<k8s::Pod>& plugin_pods,
                                             const std::vector<k8s::Pod>& validator_pods);

/// The GPU inventory: every node that has GPUs or looks like a GPU node, by name (pure).
std::vector<NodeGpuInfo> gpu_inventory(const std::vector<k8s::Node>& nodes);

/// GPUs a pod asks for as the scheduler counts them: the larger of the sum over its
/// containers and the largest init container (k8s.io/component-helpers resource.PodRequests);
/// a limit without a request counts as the request (extended resources: request = limit).
std::int64_t pod_gpus(const k8s::Pod& p);

/// A pod holds its GPUs once bound to a node and until it ends.
bool holds_gpus(const k8s::Pod& p);

/// The GPUs the pods bound to one node hold.
struct NodeGpuUse {
  std::int64_t requested = 0;  ///< nvidia.com/gpu they ask for (pod_gpus)
  int pods = 0;                ///< pods holding GPUs there
};

/// GPUs held per node, summed in one pass over `pods` (pure; those that hold none are skipped).
void add_gpu_use(std::unordered_map<std::string, NodeGpuUse>& use, const k8s::Pod& p);

/// The GPUs held on each node: the pods in every namespace that have not ended, selected by
/// the server as kubectl describe node selects them (field selector
/// status.phase!=Succeeded,status.phase!=Failed: kubectl describe.go, describeNode), read page
/// by page and summed per node as each page arrives: linear in pods, memory in nodes.
std::unordered_map<std::string, NodeGpuUse> read_gpu_use(kube::Client& client);

/// The GPU inventory of the cluster: the nodes (selected by `label_selector`) read page by
/// page, each inspected (inspect_node) and kept only when it is a GPU node; `names`, when
/// given, receives every node's name (to check the ones a caller named).
std::vector<NodeGpuInfo> read_gpu_inventory(kube::Client& client, const std::string& label_selector = {},
                                            std::set<std::string>* names = nullptr);

/// Records what `use` says of each inventory node (`requested`, `gpu_pods`).
void note_gpu_use(std::vector<NodeGpuInfo>& inv, const std::unordered_map<std::string, NodeGpuUse>& use);

}  // namespace tfjob::gpu

#if TFJOB_SDK_DEFINE_GPU
#include <tfjob/gpu/check/impl/inventory_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_GPU
