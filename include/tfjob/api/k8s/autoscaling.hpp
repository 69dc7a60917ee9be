#pragma once
/// \file autoscaling/v2 HorizontalPodAutoscaler as a value type (k8s.io/api/autoscaling/v2
/// `types.go`; v2beta2 has the same fields): its bounds, its Resource metrics' targets and what
/// the HPA controller reports (replicas, measured utilisation, conditions); the rest stays in
/// `other`, metrics of other types included.

#include <tfjob/api/meta.hpp>
#include <tfjob/api/k8s/workloads.hpp>
#include <tfjob/detail/compiled.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tfjob::k8s {

/// `MetricTarget` / `MetricValueStatus`: a Resource metric's utilisation (a percentage of the
/// pods' requests); value and averageValue stay in `other`.
struct MetricValue {
  std::string type;  ///< Utilization, Value, AverageValue (targets only)
  std::optional<std::int32_t> average_utilization;
  nlohmann::json other = nlohmann::json::object();
};

/// `ResourceMetricSource` / `ResourceMetricStatus`.
struct ResourceMetric {
  std::string name;  ///< cpu, memory
  std::optional<MetricValue> target;   ///< in the spec
  std::optional<MetricValue> current;  ///< in the status
  nlohmann::json other = nlohmann::json::object();
};

/// `MetricSpec` / `MetricStatus`: the Resource kind is modeled (Pods, Object, External and
/// ContainerResource stay in `other`).
struct Metric {
  std::string type;  ///< Resource, Pods, Object, External, ContainerResource
  std::optional<ResourceMetric> resource;
  nlohmann::json other = nlohmann::json::object();
};

/// `HorizontalPodAutoscalerSpec`.
struct HorizontalPodAutoscalerSpec {
  nlohmann::json scale_target_ref;  ///< `CrossVersionObjectReference`; null when unset
  std::optional<std::int32_t> min_replicas;  ///< unset = 1
  std::optional<std::int32_t> max_replicas;  ///< required by the API; unset when a server leaves it out
  std::vector<Metric> metrics;
  nlohmann::json other = nlohmann::json::object();  ///< behavior, ...
};

/// `HorizontalPodAutoscalerStatus`.
struct HorizontalPodAutoscalerStatus {
  std::optional<std::int32_t> current_replicas;
  std::optional<std::int32_t> desired_replicas;
  std::vector<Metric> current_metrics;
  std::vector<WorkloadCondition> conditions;  ///< AbleToScale, ScalingActive, ScalingLimited
  nlohmann::json other = nlohmann::json::object();
};

/// autoscaling/v2 HorizontalPodAutoscaler.
struct HorizontalPodAutoscaler {
  std::string api_version;
  std::string kind;
  ObjectMeta metadata;
  HorizontalPodAutoscalerSpec spec;
  HorizontalPodAutoscalerStatus status;
  nlohmann::json other = nlohmann::json::object();
};

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const MetricValue& v);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const ResourceMetric& v);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const Metric& v);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const HorizontalPodAutoscalerSpec& v);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const HorizontalPodAutoscalerStatus& v);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const HorizontalPodAutoscaler& v);
/// Decoder: what has the wrong type stays in `other`, untouched; it throws only for a value
/// that is not a JSON object at all.
TFJOB_JSON_FN from_json(const TFJOB_JSON& j, HorizontalPodAutoscaler& v);
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, MetricValue& v);
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, ResourceMetric& v);
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, Metric& v);
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, HorizontalPodAutoscalerSpec& v);
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, HorizontalPodAutoscalerStatus& v);
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, HorizontalPodAutoscaler& v);

}  // namespace tfjob::k8s

#if TFJOB_SDK_DEFINE_API
#include <tfjob/api/k8s/impl/autoscaling_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_API
