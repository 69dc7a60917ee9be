#pragma once
/// \file The bodies of <tfjob/gpu/check/inventory.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_GPU` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/gpu/check/inventory.hpp>, never this file.

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
