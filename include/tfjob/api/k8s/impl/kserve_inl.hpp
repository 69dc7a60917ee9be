#pragma once
/// \file The bodies of <tfjob/api/k8s/kserve.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_API` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/api/k8s/kserve.hpp>, never this file.

namespace tfjob::k8s {

// Each type's fields, listed once for both directions (detail::write_fields, read_fields).

template <class F>
void fields(ModelFormat& v, F& f) {
  f("name", v.name);
}

template <class F>
void fields(PredictorModel& v, F& f) {
  f("modelFormat", v.model_format);
  f("protocolVersion", v.protocol_version);
  f("runtimeVersion", v.runtime_version);
  f("storageUri", v.storage_uri);
  f("resources", v.resources);
}

template <class F>
void fields(PredictorSpec& v, F& f) {
  f("minReplicas", v.min_replicas);
  f("maxReplicas", v.max_replicas);
  f("scaleMetric", v.scale_metric);
  f("scaleTarget", v.scale_target);
  f("model", v.model);
  f("nodeSelector", v.node_selector);
  f("tolerations", v.tolerations);
  f("affinity", v.affinity);
}

template <class F>
void fields(InferenceServiceSpec& v, F& f) {
  f("predictor", v.predictor);
}

template <class F>
void fields(Addressable& v, F& f) {
  f("url", v.url);
}

template <class F>
void fields(ModelRevisionStates& v, F& f) {
  f("activeModelState", v.active_model_state);
  f("targetModelState", v.target_model_state);
}

template <class F>
void fields(ModelFailureInfo& v, F& f) {
  f("reason", v.reason);
  f("message", v.message);
}

template <class F>
void fields(ModelStatus& v, F& f) {
  f("transitionStatus", v.transition_status);
  f("states", v.states);
  f("lastFailureInfo", v.last_failure_info);
}

template <class F>
void fields(InferenceServiceStatus& v, F& f) {
  f("url", v.url);
  f("address", v.address);
  f("conditions", v.conditions);
  f("modelStatus", v.model_status);
  f("components", v.components);
}

template <class F>
void fields(InferenceService& v, F& f) {
  f("apiVersion", v.api_version);
  f("kind", v.kind);
  f("metadata", v.metadata);
  f("spec", v.spec);
  f("status", v.status);
}

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const ModelFormat& v) { detail::write_fields(j, v); }

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const PredictorModel& v) { detail::write_fields(j, v); }

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const PredictorSpec& v) { detail::write_fields(j, v); }

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const InferenceServiceSpec& v) { detail::write_fields(j, v); }

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const Addressable& v) { detail::write_fields(j, v); }

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const ModelRevisionStates& v) { detail::write_fields(j, v); }

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const ModelFailureInfo& v) { detail::write_fields(j, v); }

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const ModelStatus& v) { detail::write_fields(j, v); }

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const InferenceServiceStatus& v) { detail::write_fields(j, v); }

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const InferenceService& v) { detail::write_fields(j, v); }

TFJOB_JSON_FN from_json(const TFJOB_JSON& j, InferenceService& v) { detail::decode_lenient(j, "InferenceService", v); }

TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, ModelFormat& v) {
  detail::read_fields(d, j, path, v);
}

TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, PredictorModel& v) {
  detail::read_fields(d, j, path, v);
}

TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, PredictorSpec& v) {
  detail::read_fields(d, j, path, v);
}

TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, InferenceServiceSpec& v) {
  detail::read_fields(d, j, path, v);
}

TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, Addressable& v) {
  detail::read_fields(d, j, path, v);
}

TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, ModelRevisionStates& v) {
  detail::read_fields(d, j, path, v);
}

TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, ModelFailureInfo& v) {
  detail::read_fields(d, j, path, v);
}

TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, ModelStatus& v) {
  detail::read_fields(d, j, path, v);
}

TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, InferenceServiceStatus& v) {
  detail::read_fields(d, j, path, v);
}

TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, InferenceService& v) {
  detail::read_fields(d, j, path, v);
}

}  // namespace tfjob::k8s
