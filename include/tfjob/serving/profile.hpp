#pragma once
/// \file Serving profiles: a model server shaped for a kind of node, as pure data (no I/O).
/// The one profile is `edge`, for Google Distributed Cloud (software only) for bare metal's
/// edge profile: a standalone cluster on one small node. A profile knows the node it is sized
/// for and what that node's own cluster keeps of it (the budget: its capacity, the kubelet's
/// reservations, the control plane's and system pods' requests), and shapes the server to what
/// is left: TF Serving's CPU image, one replica, requests and limits, thread and batching
/// settings for its vCPUs, no surge pod during a rollout. fit_to_node() judges the rendered
/// objects against the budget (the scheduler's sum of each pod's requests, init containers
/// included), model_fit() a model's size against the server's memory.

#include <tfjob/api/k8s/autoscaling.hpp>
#include <tfjob/api/k8s/workloads.hpp>
#include <tfjob/api/quantity.hpp>
#include <tfjob/api/scheduling.hpp>
#include <tfjob/detail/compiled.hpp>
#include <tfjob/detail/json.hpp>
#include <tfjob/error.hpp>
#include <tfjob/serving/manifests.hpp>
#include <tfjob/serving/operations.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tfjob::serving {

/// One line of a node's budget: CPU (millicores) and memory (bytes), what it is, where the
/// figure comes from, and whether it is the source's own figure or an estimate.
struct BudgetLine {
  std::string what;
  std::int64_t cpu_milli = 0;
  std::int64_t memory_bytes = 0;
  std::string source;
  bool estimate = false;
};

/// The node a profile is sized for. Its allocatable is the capacity less what the kubelet
/// reserves (--system-reserved, --kube-reserved, the hard eviction threshold: the kubelet's
/// node allocatable rule); what a workload may request is the allocatable less the requests
/// of the pods the cluster runs for itself.
struct NodeBudget {
  BudgetLine capacity;
  std::vector<BudgetLine> reserved;     ///< the kubelet's reservations and eviction threshold
  std::vector<BudgetLine> system_pods;  ///< the control plane's and add-ons' pod requests
  std::int64_t allocatable_cpu_milli() const;
  std::int64_t allocatable_memory_bytes() const;
  std::int64_t free_cpu_milli() const;      ///< allocatable less the system pods' requests
  std::int64_t free_memory_bytes() const;
};

/// How a profile shapes a model server.
struct ServingProfile {
  std::string name, summary;
  NodeBudget node;
  std::string cpu_request, cpu_limit, memory;  ///< the server container's (memory: request = limit)
  std::string fetch_cpu, fetch_memory;         ///< the model download's init container (request = limit)
  int replicas = 1;
  /// TF Serving's flags (tensorflow_serving/model_servers/main.cc): intra- and inter-op threads
  /// and REST threads; tensorflow_session_parallelism is left out (server.cc refuses all three).
  int intra_op_threads = 0, inter_op_threads = 0, rest_api_threads = 0;
  Batching batching;
  /// TF Serving's resident memory other than the model's, and per image of a batch (estimates
  /// for model_fit; see estimated_server_memory).
  std::int64_t runtime_bytes = 0, per_image_bytes = 0;
};

/// The profiles by name: {"edge"}.
std::vector<std::string> profile_names();

/// The profile `name`; throws tfjob::error (reasons::invalid_setting, ServingProfile::name)
/// naming the known ones.
ServingProfile find_profile(const std::string& name);

/// GDC bare metal's edge profile: its documented minimum node (2 vCPUs, 4 GiB on Ubuntu) less
/// what the cluster keeps of it, and a CPU-only TF Serving sized to the rest.
ServingProfile edge_profile();

/// Which of the spec's settings the caller gave on purpose (apply_profile keeps them; the
/// fit checks then judge them) rather than left at their defaults.
struct ProfileKeep {
  bool gpus = false, replicas = false, cpu = false, memory = false, batching = false;
};

/// Shapes `s` by the profile: the CPU image (ServeSpec::gpus 0; a GPU count asked for on
/// purpose is refused: the profile's nodes have none), its replicas, CPU and memory, the
/// download's init container's resources, its batching, TF Serving's thread flags (each unless
/// ServeSpec::extra_args already sets it), and rollouts that replace the pod without a surge
/// pod (a node with room for one server). Throws tfjob::error (reasons::invalid_setting).
void apply_profile(ServeSpec& s, const ServingProfile& p, const ProfileKeep& keep = {});

/// What the server's objects ask of a node, judged against a budget.
struct ProfileFit {
  std::int64_t pod_cpu_milli = 0, pod_memory_bytes = 0;      ///< one pod (the scheduler's rule)
  std::int64_t limit_memory_bytes = 0;                        ///< one pod's memory limits
  int pods = 0;  ///< at most at once: replicas (the HPA's maximum with autoscaling) and a rollout's surge pod
  std::vector<std::string> problems;  ///< why it does not fit; empty: it fits
  bool ok() const { return problems.empty(); }
};

/// Sums every Deployment's pod requests (all containers, plus the largest init container when
/// larger: the kube-scheduler's NodeResourcesFit rule, scheduling::pod_requests), times the
/// pods that run at once (replicas, or the HPA's maxReplicas, plus the surge pod a
/// RollingUpdate adds unless maxSurge is 0), against the budget's free CPU and memory; and each
/// pod's memory limit against the free memory (memory cannot be taken back from a pod).
ProfileFit fit_to_node(const std::vector<nlohmann::json>& objects, const NodeBudget& node);

/// A model's size: what its SavedModel holds (saved_model.pb and variables/), and from where.
struct ModelSize {
  std::int64_t bytes = 0;
  std::string from;  ///< "Keras Applications: ResNet50V2, 98 MB", "the export check: export/m/3"
};

/// The built-in model's size (ResNet-50 v2, fp32): Keras Applications' published 98 MB
/// (25.6 million parameters).
ModelSize resnet_model_size();

/// TF Serving's resident memory for a model of `model_bytes` with batches of up to
/// `max_batch` images: the runtime, twice the model (its weights, and a second copy while they
/// are restored), and the activations of a batch. An estimate (TF Serving publishes none).
std::int64_t estimated_server_memory(const ServingProfile& p, std::int64_t model_bytes, std::int64_t max_batch);

/// The model against the server's memory limit (ServeSpec::memory): a problem naming the model's
/// size, the estimate and the limit when the estimate is larger (its advice names settings by
/// key); nullopt when it fits (or the spec sets no memory).
std::optional<Text> model_fit(const ServeSpec& s, const ServingProfile& p, const ModelSize& m);

/// The budget for people: one line per figure (what, CPU, memory, source, estimate or not),
/// the allocatable and what is left.
std::string budget_text(const NodeBudget& node);

/// Millicores as Kubernetes writes CPU ("650m", "2").
std::string cpu_text(std::int64_t milli);
/// Bytes as MiB ("1536Mi"), rounded down.
std::string mib_text(std::int64_t bytes);

}  // namespace tfjob::serving

#if TFJOB_SDK_DEFINE_SERVING
#include <tfjob/serving/impl/profile_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_SERVING
