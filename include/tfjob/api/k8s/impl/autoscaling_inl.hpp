#pragma once
/// \file The bodies of <tfjob/api/k8s/autoscaling.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_API` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/api/k8s/autoscaling.hpp>, never this file.

namespace tfjob::k8s {

// Each type's fields, listed once for both directions (detail::write_fields, read_fields).

template <class F>
void fields(MetricValue& v, F& f) {
  f("type", v.type);
  f("averageUtilization", v.average_utilization);
}

template <class F>
void fields(ResourceMetric& v, F& f) {
  f("name", v.name);
  f("target", v.target);
  f("current", v.current);
}

template <class F>
void fields(Metric& v, F& f) {
  f("type", v.type);
  f("resource", v.resource);
}

template <class F>
void fields(HorizontalPodAutoscalerSpec& v, F& f) {
  f("scaleTargetRef", v.scale_target_ref);
  f("minReplicas", v.min_replicas);
  f("maxReplicas", v.max_replicas);
  f("metrics", v.metrics);
}

template <class F>
void fields(HorizontalPodAutoscalerStatus& v, F& f) {
  f("currentReplicas", v.current_replicas);
  f("desiredReplicas", v.desired_replicas);
  f("currentMetrics", v.current_metrics);
  f("conditions", v.conditions);
}

template <class F>
void fields(HorizontalPodAutoscaler& v, F& f) {
  f("apiVersion", v.api_version);
  f("kind", v.kind);
  f("metadata", v.metadata);
  f("spec", v.spec);
  f("status", v.status);
}

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const MetricValue& v) { detail::write_fields(j, v); }

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const ResourceMetric& v) { detail::write_fields(j, v); }

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const Metric& v) { detail::write_fields(j, v); }

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const HorizontalPodAutoscalerSpec& v) { detail::write_fields(j, v); }

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const HorizontalPodAutoscalerStatus& v) { detail::write_fields(j, v); }

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const HorizontalPodAutoscaler& v) { detail::write_fields(j, v); }

TFJOB_JSON_FN from_json(const TFJOB_JSON& j, HorizontalPodAutoscaler& v) {
  detail::decode_lenient(j, "HorizontalPodAutoscaler", v);
}

TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, MetricValue& v) {
  detail::read_fields(d, j, path, v);
}

TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, ResourceMetric& v) {
  detail::read_fields(d, j, path, v);
}

TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, Metric& v) {
  detail::read_fields(d, j, path, v);
}

TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, HorizontalPodAutoscalerSpec& v) {
  detail::read_fields(d, j, path, v);
}

TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, HorizontalPodAutoscalerStatus& v) {
  detail::read_fields(d, j, path, v);
}

TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, HorizontalPodAutoscaler& v) {
  detail::read_fields(d, j, path, v);
}

}  // namespace tfjob::k8s
