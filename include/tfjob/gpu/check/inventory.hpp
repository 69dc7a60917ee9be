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
namespace tfjob::gpu {

TFJOB_INLINE std::string NodeGpuInfo::product() const {
  for (const char* k : {"nvidia.com/gpu.product", "cloud.google.com/gke-accelerator", "cloud.google.com/gce-accelerator"}) {
    auto it = gfd.find(k);
    if (it != gfd.end()) return it->second;
  }
  return {};
}

namespace detail {
TFJOB_INLINE std::int64_t count_of(const std::string& q) {
  if (q.empty()) return 0;
  try {
    std::size_t used = 0;
    long long v = std::stoll(q, &used);
    return used == q.size() && v > 0 ? v : 0;
  } catch (const std::exception&) {
    return 0;
  }
}

TFJOB_INLINE std::string lower_ascii(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

TFJOB_INLINE bool gpu_label(const std::string& k) {
  return k.rfind("nvidia.com/", 0) == 0 || k == "cloud.google.com/gke-accelerator" ||
         k == "cloud.google.com/gce-accelerator" || k == "feature.node.kubernetes.io/pci-10de.present";
}
}  // namespace detail

TFJOB_INLINE void read_gfd(NodeGpuInfo& g) {
  auto get = [&](const char* k) {
    auto it = g.gfd.find(k);
    return it == g.gfd.end() ? std::string() : it->second;
  };
  std::string major = get("nvidia.com/cuda.driver-version.major");
  std::string minor = get("nvidia.com/cuda.driver-version.minor");
  std::string rev = get("nvidia.com/cuda.driver-version.revision");
  if (major.empty()) {
    major = get("nvidia.com/cuda.driver.major");
    minor = get("nvidia.com/cuda.driver.minor");
    rev = get("nvidia.com/cuda.driver.rev");
  }
  g.driver_major = static_cast<int>(detail::count_of(major));
  g.driver_version = get("nvidia.com/cuda.driver-version.full");
  if (g.driver_version.empty() && !major.empty())
    g.driver_version = major + (minor.empty() ? "" : "." + minor) + (rev.empty() ? "" : "." + rev);
  g.architecture = detail::lower_ascii(get("nvidia.com/gpu.family"));
  if (g.architecture.empty() && get("nvidia.com/gpu.compute.major") == "7" && get("nvidia.com/gpu.compute.minor") == "0")
    g.architecture = "volta";
}

TFJOB_INLINE NodeGpuInfo inspect_node(const k8s::Node& n) {
  NodeGpuInfo g;
  g.name = n.metadata.name;
  g.hostname = n.metadata.label("kubernetes.io/hostname");
  if (g.hostname.empty()) g.hostname = g.name;
  g.capacity = detail::count_of(n.capacity(gpu_resource));
  g.allocatable = detail::count_of(n.allocatable(gpu_resource));
  for (const auto& [k, v] : n.metadata.labels)
    if (detail::gpu_label(k)) g.gfd[k] = v;
  for (const auto& t : n.spec.taints) g.taints.push_back(t);
  g.ready = n.ready();
  g.unschedulable = n.spec.unschedulable;
  g.looks_like_gpu = g.capacity > 0 || !g.gfd.empty();
  if (g.looks_like_gpu && g.allocatable == 0) {
    if (g.capacity > 0)
      g.problem = "all " + std::to_string(g.capacity) + " GPUs are unhealthy (capacity " + std::to_string(g.capacity) +
                  ", allocatable 0): see the NVIDIA device plugin's logs and nvidia-smi on the node";
    else
      g.problem = "looks like a GPU node (" + g.gfd.begin()->first + "=" + g.gfd.begin()->second +
                  ") but allocates no nvidia.com/gpu: the NVIDIA device plugin is missing or broken on this node";
  } else if (g.allocatable > 0 && !g.ready) {
    g.problem = "the node is not Ready";
  }
  read_gfd(g);
  if (g.architecture == "volta" && g.driver_major > last_volta_driver_branch && g.problem.empty())
    g.problem = "driver " + (g.driver_version.empty() ? "R" + std::to_string(g.driver_major) : g.driver_version) +
                " (GPU feature discovery) does not drive Volta: R" + std::to_string(last_volta_driver_branch) +
                " is the last branch that does (an LTSB, fixed until " + volta_last_branch_end_of_life +
                "); pin the driver to R580, e.g. the GPU Operator's driver.version";
  const std::string drv = g.driver_version.empty() ? "R" + std::to_string(g.driver_major) : g.driver_version;
  if (g.architecture == "volta" && g.driver_major > 0 && g.driver_major <= last_volta_driver_branch)
    g.notes.push_back("Volta under driver " + drv + ": R" + std::to_string(last_volta_driver_branch) +
                      " is the last branch that drives it (an LTSB, fixed until " + volta_last_branch_end_of_life +
                      "); keep the driver pinned to R580 through GPU Operator upgrades");
  // CUDA's release notes, table 3: a CUDA 12.x runtime (the probe image's, and TensorFlow's)
  // needs driver R525 or newer.
  if (g.driver_major > 0 && g.driver_major < min_cuda12_driver_branch)
    g.notes.push_back("driver " + drv + " is older than R" + std::to_string(min_cuda12_driver_branch) +
                      ", the oldest a CUDA 12 image (the probe's, TensorFlow's) runs on: upgrade the driver");
  if (g.capacity > 0 && g.allocatable > 0 && g.allocatable < g.capacity)
    g.notes.push_back(std::to_string(g.unhealthy()) + " of " + std::to_string(g.capacity) +
                      " GPUs unhealthy (nvidia.com/gpu allocatable " + std::to_string(g.allocatable) +
                      " < capacity): the device plugin withdrew them; see its log and nvidia-smi on the node");
  if (g.capacity > 0 && g.gfd.count("nvidia.com/gpu.product") == 0 && g.gfd.count("nvidia.com/gpu.family") == 0)
    g.notes.push_back("no GPU feature discovery labels (nvidia.com/gpu.product, nvidia.com/cuda.driver-version.*): "
                      "the model and driver are unknown until the probe runs; deploy GFD (the GPU Operator does)");
  return g;
}

TFJOB_INLINE const std::vector<std::string>& device_plugin_selectors() {
  static const std::vector<std::string> s = {"app=nvidia-device-plugin-daemonset",       // GPU Operator
                                             "app.kubernetes.io/name=nvidia-device-plugin"};  // its own chart
  return s;
}

namespace detail {
TFJOB_INLINE std::string pod_state(const k8s::Pod& p, bool& ok) {
  const std::string& phase = p.status.phase;
  ok = phase == "Running";
  if (const auto* c = p.status.condition("Ready"); ok && c && c->status != "True") ok = false;
  if (ok) return "Running";
  for (const auto* cs : {&p.status.init_container_statuses, &p.status.container_statuses})
    for (const auto& c : *cs) {
      auto said = [&](const std::string& reason, const std::string& message) {
        return phase + " (" + c.name + ": " + reason + (message.empty() ? "" : ": " + message) + ")";
      };
      if (c.state.waiting && !c.state.waiting->reason.empty())
        return said(c.state.waiting->reason, c.state.waiting->message);
      if (c.state.terminated && !c.state.terminated->reason.empty() && c.state.terminated->reason != "Completed")
        return said(c.state.terminated->reason, c.state.terminated->message);
    }
  return phase.empty() ? "unknown" : phase + (ok ? "" : " (not Ready)");
}
}  // namespace detail

TFJOB_INLINE std::vector<std::string> note_gpu_components(std::vector<NodeGpuInfo>& inv, const std::vector<k8s::Pod>& plugin_pods,
                                                          const std::vector<k8s::Pod>& validator_pods) {
  std::vector<std::string> cluster;
  if (plugin_pods.empty() && !inv.empty())
    cluster.push_back("no NVIDIA device plugin pods found (labels " + device_plugin_selectors()[0] + " or " +
                      device_plugin_selectors()[1] + "): installed another way, or missing");
  for (auto& g : inv) {
    auto judge = [&](const std::vector<k8s::Pod>& pods, const char* what) {
      if (pods.empty()) return;
      bool found = false;
      for (const auto& p : pods) {
        if (p.spec.node_name != g.name) continue;
        found = true;
        bool ok = false;
        std::string st = detail::pod_state(p, ok);
        if (!ok) g.notes.push_back(std::string(what) + " " + p.metadata.namespace_ + "/" + p.metadata.name + " is " + st);
      }
      if (!found && g.capacity > 0) g.notes.push_back(std::string(what) + ": no pod on this node");
    };
    judge(plugin_pods, "NVIDIA device plugin");
    judge(validator_pods, "GPU Operator validator");
  }
  return cluster;
}

TFJOB_INLINE std::vector<NodeGpuInfo> gpu_inventory(const std::vector<k8s::Node>& nodes) {
  std::vector<NodeGpuInfo> out;
  for (const auto& n : nodes) {
    auto g = inspect_node(n);
    if (g.looks_like_gpu) out.push_back(std::move(g));
  }
  std::sort(out.begin(), out.end(), [](const NodeGpuInfo& a, const NodeGpuInfo& b) { return a.name < b.name; });
  return out;
}

TFJOB_INLINE std::int64_t pod_gpus(const k8s::Pod& p) {
  auto of = [](const k8s::Container& c) -> std::int64_t {
    for (const auto* m : {&c.resources.requests, &c.resources.limits})
      if (auto it = m->find(gpu_resource); it != m->end()) return detail::count_of(it->second);
    return 0;
  };
  // the scheduler's rule (resource.PodRequests): the sum of the containers, or the largest
  // init container when that is more
  std::int64_t sum = 0, init = 0;
  for (const auto& c : p.spec.containers) sum += of(c);
  for (const auto& c : p.spec.init_containers) init = std::max(init, of(c));
  return std::max(sum, init);
}

TFJOB_INLINE bool holds_gpus(const k8s::Pod& p) {
  const std::string& ph = p.status.phase;
  return !p.spec.node_name.empty() && ph != "Succeeded" && ph != "Failed";
}

TFJOB_INLINE void add_gpu_use(std::unordered_map<std::string, NodeGpuUse>& use, const k8s::Pod& p) {
  if (!holds_gpus(p)) return;
  const std::int64_t n = pod_gpus(p);
  if (n <= 0) return;
  auto& u = use[p.spec.node_name];
  u.requested += n;
  ++u.pods;
}

TFJOB_INLINE std::unordered_map<std::string, NodeGpuUse> read_gpu_use(kube::Client& client) {
  std::unordered_map<std::string, NodeGpuUse> use;
  kube::ListParams lp;
  lp.field_selector = "status.phase!=Succeeded,status.phase!=Failed";
  kube::Api<k8s::Pod>::all(client).list_pages(lp, [&](kube::ObjectList<k8s::Pod>& page) {
    for (const auto& p : page.items) add_gpu_use(use, p);
    return true;
  });
  return use;
}

TFJOB_INLINE std::vector<NodeGpuInfo> read_gpu_inventory(kube::Client& client, const std::string& label_selector,
                                                         std::set<std::string>* names) {
  std::vector<NodeGpuInfo> out;
  kube::ListParams lp;
  lp.label_selector = label_selector;
  kube::Api<k8s::Node>::all(client).list_pages(lp, [&](kube::ObjectList<k8s::Node>& page) {
    for (const auto& n : page.items) {
      if (names) names->insert(n.metadata.name);
      auto g = inspect_node(n);
      if (g.looks_like_gpu) out.push_back(std::move(g));
    }
    return true;
  });
  std::sort(out.begin(), out.end(), [](const NodeGpuInfo& a, const NodeGpuInfo& b) { return a.name < b.name; });
  return out;
}

TFJOB_INLINE void note_gpu_use(std::vector<NodeGpuInfo>& inv, const std::unordered_map<std::string, NodeGpuUse>& use) {
  for (auto& g : inv) {
    auto it = use.find(g.name);
    if (it == use.end()) continue;
    g.requested = it->second.requested;
    g.gpu_pods = it->second.pods;
  }
}

}  // namespace tfjob::gpu
#endif  // TFJOB_SDK_DEFINE_GPU
