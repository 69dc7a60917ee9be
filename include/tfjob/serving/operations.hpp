#pragma once
/// \file Running TF Serving well, as pure data (no I/O): request batching (TF Serving's
/// batching parameters file), the Prometheus endpoint (its monitoring config file), both
/// in the server's ConfigMap; a PodDisruptionBudget (policy/v1) for more than one replica
/// and a HorizontalPodAutoscaler (autoscaling/v2) on the Deployment. `serve`'s manifests
/// add these to the Deployment and Service (manifests.hpp: build_objects).

#include <tfjob/api/k8s/autoscaling.hpp>
#include <tfjob/api/quantity.hpp>
#include <tfjob/detail/compiled.hpp>
#include <tfjob/error.hpp>

#include <nlohmann/json.hpp>

#include <cctype>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tfjob::serving {

/// Where the server's config files are mounted in its container (from the ConfigMap).
inline constexpr const char* config_dir = "/etc/tfserving";
inline constexpr const char* batching_file = "batching_parameters.pbtxt";
inline constexpr const char* monitoring_file = "monitoring_config.pbtxt";
/// TF Serving's default Prometheus path (monitoring_config.proto: PrometheusConfig.path).
inline constexpr const char* prometheus_path = "/monitoring/prometheus/metrics";

/// `--batching KEY=VALUE,...`: the fields of TF Serving's BatchingParameters
/// (tensorflow_serving/servables/tensorflow/session_bundle_config.proto), in the proto's
/// field order when written. Unset fields keep TF Serving's defaults.
struct Batching {
  std::optional<std::int64_t> max_batch_size, batch_timeout_micros, max_enqueued_batches, num_batch_threads;
  std::optional<std::string> thread_pool_name;
  std::vector<std::int64_t> allowed_batch_sizes;
  std::optional<bool> pad_variable_length_inputs;
};

/// `--autoscale MIN:MAX:CPU%`.
struct Autoscale {
  int min = 1, max = 1;
  int cpu_percent = 80;  ///< target average CPU utilisation, percent of the CPU request
};

/// What `serve` adds beyond the Deployment and Service.
struct ServeOperations {
  std::optional<Batching> batching;  ///< --batching: --enable_batching with the parameters file
  bool monitoring = false;           ///< --monitoring: the Prometheus endpoint
  std::optional<Autoscale> autoscale;
  bool any_config_file() const { return batching.has_value() || monitoring; }
};

namespace detail {

/// A decimal int64 in [lo, hi], or nullopt (no sign other than a leading '-', no overflow).
std::optional<std::int64_t> parse_int64(const std::string& s, std::int64_t lo, std::int64_t hi);

std::vector<std::string> split(const std::string& s, char sep);

/// The error for a bad value of `setting` (reasons::invalid_setting): the message is the
/// setting's name followed by `rest`.
tfjob::error invalid_setting(tfjob::setting about, const Text& rest);

}  // namespace detail

/// Parses `--batching max_batch_size=32,batch_timeout_micros=5000,...` (allowed_batch_sizes
/// as 8:16:32). Throws tfjob::error naming the key and what it takes; an unknown key lists
/// the known ones.
Batching parse_batching(const std::string& text);

/// The batching parameters file in protobuf text format (Int64Value fields as `{ value: N }`).
std::string batching_parameters_text(const Batching& b);

/// The monitoring config file turning on the Prometheus endpoint
/// (tensorflow_serving/config/monitoring_config.proto: MonitoringConfig.prometheus_config).
std::string monitoring_config_text();

/// `--autoscale MIN:MAX:CPU%` (the % optional), e.g. 2:10:70%.
Autoscale parse_autoscale(const std::string& text);

/// The server's ConfigMap: one key per config file (nullopt when no file is needed).
std::optional<nlohmann::json> build_config_map(const std::string& name, const std::string& ns, const nlohmann::json& labels,
                                               const ServeOperations& ops);

/// Mounts the ConfigMap into the Deployment's serving container and adds the flags that
/// read it (tensorflow_serving/model_servers/main.cc: --enable_batching,
/// --batching_parameters_file, --monitoring_config_file). With autoscaling, spec.replicas is
/// left to the HPA (Kubernetes' HPA docs: remove spec.replicas from the applied manifest, or
/// every apply resets the scale).
void add_operations_to_deployment(nlohmann::json& deployment, const std::string& config_map, const ServeOperations& ops);

/// A PodDisruptionBudget (policy/v1) letting a drain take one server pod at a time, so a
/// server with more than one replica keeps answering; nullopt for a single replica (a
/// budget would only block the drain or allow everything).
std::optional<nlohmann::json> build_pdb(const std::string& name, const std::string& ns, const nlohmann::json& labels,
                                        const nlohmann::json& selector, int replicas, const ServeOperations& ops);

/// The HorizontalPodAutoscaler (autoscaling/v2) scaling the Deployment on average CPU
/// utilisation; nullopt without --autoscale. Utilisation is a percentage of the pods' CPU
/// request, so the HPA needs the container's CPU request (validate() asks for --cpu).
std::optional<nlohmann::json> build_hpa(const std::string& name, const std::string& ns, const nlohmann::json& labels,
                                        const ServeOperations& ops);

/// What a HorizontalPodAutoscaler (autoscaling/v2 or v2beta2: the same fields) says about
/// itself: its bounds and target from the spec, and what the HPA controller wrote into its
/// status (replicas, the CPU utilisation it measured, its conditions AbleToScale,
/// ScalingActive, ScalingLimited).
struct AutoscalerStatus {
  int min = 1, max = 1;
  std::optional<int> target_cpu_percent;
  std::optional<int> current_replicas, desired_replicas;
  std::optional<int> current_cpu_percent;  ///< absent while no metrics API answers
  struct Condition {
    std::string type, status, reason, message;
  };
  std::vector<Condition> conditions;
  /// The HPA cannot read the pods' CPU (no metrics API, e.g. no metrics-server): it will not scale.
  bool no_metrics() const;
};

/// Reads an HPA as a server answers it (total: fields of other types are left out, counts
/// outside 0..1000000 too).
AutoscalerStatus autoscaler_status(const k8s::HorizontalPodAutoscaler& hpa);
/// The same of an answer of any shape (decoded leniently; not an object: the defaults).
AutoscalerStatus autoscaler_status(const nlohmann::json& hpa);

/// Checks the operations against the spec's CPU request and replicas; throws tfjob::error.
void validate_operations(const ServeOperations& ops, const std::string& cpu_request);

}  // namespace tfjob::serving

#if TFJOB_SDK_DEFINE_SERVING
#include <tfjob/serving/impl/operations_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_SERVING
