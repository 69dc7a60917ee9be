#pragma once
/// \file `top` as an SDK workflow: who holds the cluster's GPUs. Per GPU node: nvidia.com/gpu
/// allocatable, requested by the pods bound to it that have not ended, free, with the model
/// and driver from GPU feature discovery's labels. Per TFJob: GPUs held per replica type and
/// on which nodes. Both with GPU utilisation and memory in use when NVIDIA's DCGM exporter
/// runs, read from each exporter pod's metrics endpoint through the API server's pod proxy
/// (a Service would reach one exporter only). The counting and the Prometheus parsing are
/// pure functions; `run_top` does the I/O.

#include <tfjob/detail/compiled.hpp>
#include <tfjob/detail/json.hpp>
#include <tfjob/error.hpp>
#include <tfjob/gpu/check.hpp>
#include <tfjob/kube/api.hpp>
#include <tfjob/kube/client.hpp>
#include <tfjob/kube/core.hpp>

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace tfjob::gpu {

/// One GPU's figures from a DCGM exporter's metrics page.
struct GpuMetric {
  std::string node;        ///< the exporter pod's node (else its Hostname label)
  std::string gpu;         ///< the `gpu` label (index on the node)
  std::string uuid, model;
  std::optional<double> util_percent;  ///< DCGM_FI_DEV_GPU_UTIL
  std::optional<double> fb_used_mib;   ///< DCGM_FI_DEV_FB_USED
  std::optional<double> fb_free_mib;   ///< DCGM_FI_DEV_FB_FREE
  std::string pod, pod_namespace;      ///< the pod using the GPU (exporter's Kubernetes mapping), "" unknown
};

namespace detail {
/// Parses `{a="x",b="y"}` (Prometheus text exposition format 0.0.4: values in double
/// quotes with \\, \" and \n escapes).
std::map<std::string, std::string> prom_labels(std::string_view s);
}  // namespace detail

/// The DCGM exporter's metrics page, per GPU (pure). Reads DCGM_FI_DEV_GPU_UTIL,
/// DCGM_FI_DEV_FB_USED and DCGM_FI_DEV_FB_FREE (dcgm-exporter's default counters); ignores
/// everything else. At most `max_gpus` GPUs are kept (bounded memory for hostile pages).
std::vector<GpuMetric> parse_dcgm_metrics(std::string_view text, const std::string& node = {},
                                          std::size_t max_gpus = 1024);

/// Utilisation and memory of a set of GPUs (mean utilisation, summed memory).
struct GpuLoad {
  int gpus = 0;  ///< GPUs with figures
  std::optional<double> util_percent, mem_used_mib, mem_total_mib;
  void add(const GpuMetric& m);
};

/// One GPU node.
struct NodeTop {
  std::string name, model, driver;
  std::int64_t capacity = 0, allocatable = 0, requested = 0;
  int pods = 0;  ///< pods holding GPUs there
  GpuLoad load;
  std::int64_t free() const { return allocatable > requested ? allocatable - requested : 0; }
};

/// GPUs of one replica type of a TFJob.
struct ReplicaTop {
  std::string type;
  std::int64_t gpus = 0;
  int pods = 0;
  int pending = 0;  ///< pods asking for GPUs that are not bound yet
  std::vector<std::string> nodes;
};

/// One TFJob.
struct JobTop {
  std::string namespace_, name;
  std::vector<ReplicaTop> replicas;
  GpuLoad load;  ///< from the exporter's pod mapping, when it has one
  std::int64_t gpus() const;
};

/// Per GPU node (pure): the inventory's GPU nodes, the GPUs held there (`use`, read_gpu_use)
/// and the metrics of their GPUs; linear in nodes and metrics.
std::vector<NodeTop> top_nodes(const std::vector<NodeGpuInfo>& inventory, const std::unordered_map<std::string, NodeGpuUse>& use,
                               const std::vector<GpuMetric>& metrics);

/// The same from whole lists of nodes and pods (pure).
std::vector<NodeTop> top_nodes(const std::vector<k8s::Node>& nodes, const std::vector<k8s::Pod>& pods,
                               const std::vector<GpuMetric>& metrics);

/// Per TFJob, built one pod at a time (a page of a list as it arrives): each pod of a job
/// (training operator labels: job-name, replica-type) counted into its job and replica type,
/// so only the jobs are held, not their pods.
class JobTopCounter {
 public:
  void add(const k8s::Pod& p);
  /// The jobs by namespace and name, with the metrics of their pods (matched by pod, in
  /// one pass over the metrics).
  std::vector<JobTop> finish(const std::vector<GpuMetric>& metrics);

 private:
  std::map<std::pair<std::string, std::string>, JobTop> jobs_;
  std::unordered_map<std::string, std::pair<std::string, std::string>> job_of_pod_;  ///< "ns/pod" -> its job's key
};

/// Per TFJob (pure): its pods (training operator labels: job-name, replica-type) that ask
/// for GPUs, grouped by replica type, with the nodes they are bound to.
std::vector<JobTop> top_jobs(const std::vector<k8s::Pod>& pods, const std::vector<GpuMetric>& metrics);

/// Labels of DCGM exporter pods: the GPU Operator's and dcgm-exporter's own Helm chart.
const std::vector<std::string>& dcgm_exporter_selectors();
/// dcgm-exporter's default listen port (its `-a :9400`).
inline constexpr int dcgm_exporter_port = 9400;

/// Options for `run_top`.
struct TopOptions {
  std::string namespace_;        ///< jobs: this namespace ("" = the client's)
  bool all_namespaces = false;   ///< jobs: every namespace
  std::string label_selector;    ///< nodes: selects nodes; jobs: selects the jobs' pods
  std::string job;               ///< jobs: this job alone ("" = every job), its pods by label
  bool nodes = true, jobs = false;
  bool metrics = true;           ///< read the DCGM exporter when it runs
};

/// What `top` found.
struct TopResult {
  std::vector<NodeTop> nodes;
  std::vector<JobTop> jobs;
  /// Where utilisation came from ("" = nowhere), and why not when it did not.
  std::vector<std::string> metrics_sources;
  std::string metrics_note;
};

/// The exporter pods and their metrics (through the API server's pod proxy). Never throws:
/// what went wrong is in `note`.
std::vector<GpuMetric> read_dcgm(kube::Client& client, std::vector<std::string>& sources, std::string& note);

/// Nodes, pods and (when installed) the DCGM exporter, counted.
TopResult run_top(kube::Client client, const TopOptions& o);

namespace detail {
nlohmann::json load_json(const GpuLoad& l);
}  // namespace detail

/// The result as JSON (`-o json`).
nlohmann::json top_result_json(const TopResult& r);

}  // namespace tfjob::gpu

#if TFJOB_SDK_DEFINE_GPU
#include <tfjob/gpu/impl/top_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_GPU
