#pragma once
/// \file KServe's InferenceService (serving.kserve.io/v1beta1, kserve/kserve
/// `pkg/apis/serving/v1beta1`) as a value type: the TensorFlow predictor `serve --kserve`
/// writes and the status it reads (conditions, url, modelStatus); the rest stays in `other`.

#include <tfjob/api/meta.hpp>
#include <tfjob/api/k8s/pod.hpp>
#include <tfjob/api/k8s/workloads.hpp>
#include <tfjob/detail/compiled.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tfjob::k8s {

/// `ModelFormat`: which runtime serves the model ("tensorflow").
struct ModelFormat {
  std::string name;
  nlohmann::json other = nlohmann::json::object();
};

/// `ModelSpec` of the predictor (`spec.predictor.model`).
struct PredictorModel {
  ModelFormat model_format;
  std::string protocol_version;  ///< "v1": TF Serving's REST API
  std::string runtime_version;   ///< the runtime image's tag
  std::string storage_uri;       ///< pvc://CLAIM/PATH, gs://, s3://, ...
  ResourceRequirements resources;
  nlohmann::json other = nlohmann::json::object();
};

/// `PredictorSpec`: the model, its replicas and autoscaling, and the pod fields it inlines.
struct PredictorSpec {
  std::optional<std::int32_t> min_replicas;
  std::optional<std::int32_t> max_replicas;
  std::string scale_metric;  ///< cpu, memory, concurrency, rps
  std::optional<std::int32_t> scale_target;
  std::optional<PredictorModel> model;
  std::map<std::string, std::string> node_selector;
  std::vector<Toleration> tolerations;
  nlohmann::json affinity;  ///< `Affinity`, kept as JSON; null when unset
  nlohmann::json other = nlohmann::json::object();
};

/// `InferenceServiceSpec`.
struct InferenceServiceSpec {
  PredictorSpec predictor;
  nlohmann::json other = nlohmann::json::object();
};

/// `Addressable` (`status.address`).
struct Addressable {
  std::string url;
  nlohmann::json other = nlohmann::json::object();
};

/// `ModelRevisionStates` (`status.modelStatus.states`).
struct ModelRevisionStates {
  std::string active_model_state;  ///< Pending, Standby, Loading, Loaded, FailedToLoad
  std::string target_model_state;
  nlohmann::json other = nlohmann::json::object();
};

/// `FailureInfo` (`status.modelStatus.lastFailureInfo`).
struct ModelFailureInfo {
  std::string reason;
  std::string message;
  nlohmann::json other = nlohmann::json::object();
};

/// `ModelStatus` (`status.modelStatus`).
struct ModelStatus {
  std::string transition_status;  ///< UpToDate, InProgress, BlockedByFailedLoad, InvalidSpec
  std::optional<ModelRevisionStates> states;
  std::optional<ModelFailureInfo> last_failure_info;
  nlohmann::json other = nlohmann::json::object();
};

/// `InferenceServiceStatus` (knative's duck-typed Status: conditions of the same fields as a
/// Deployment's, plus `severity`, which stays in each condition's `other`).
struct InferenceServiceStatus {
  std::string url;
  std::optional<Addressable> address;
  std::vector<WorkloadCondition> conditions;  ///< Ready, PredictorReady, IngressReady, ...
  std::optional<ModelStatus> model_status;
  nlohmann::json components;  ///< null when unset
  nlohmann::json other = nlohmann::json::object();
};

/// serving.kserve.io/v1beta1 InferenceService.
struct InferenceService {
  std::string api_version;
  std::string kind;
  ObjectMeta metadata;
  InferenceServiceSpec spec;
  InferenceServiceStatus status;
  nlohmann::json other = nlohmann::json::object();
};

void to_json(nlohmann::json& j, const ModelFormat& v);
void to_json(nlohmann::json& j, const PredictorModel& v);
void to_json(nlohmann::json& j, const PredictorSpec& v);
void to_json(nlohmann::json& j, const InferenceServiceSpec& v);
void to_json(nlohmann::json& j, const Addressable& v);
void to_json(nlohmann::json& j, const ModelRevisionStates& v);
void to_json(nlohmann::json& j, const ModelFailureInfo& v);
void to_json(nlohmann::json& j, const ModelStatus& v);
void to_json(nlohmann::json& j, const InferenceServiceStatus& v);
void to_json(nlohmann::json& j, const InferenceService& v);
/// Decoder: what has the wrong type stays in `other`, untouched; it throws only for a value
/// that is not a JSON object at all.
void from_json(const nlohmann::json& j, InferenceService& v);
void decode_fields(tfjob::detail::decoder& d, const nlohmann::json& j, const std::string& path, ModelFormat& v);
void decode_fields(tfjob::detail::decoder& d, const nlohmann::json& j, const std::string& path, PredictorModel& v);
void decode_fields(tfjob::detail::decoder& d, const nlohmann::json& j, const std::string& path, PredictorSpec& v);
void decode_fields(tfjob::detail::decoder& d, const nlohmann::json& j, const std::string& path, InferenceServiceSpec& v);
void decode_fields(tfjob::detail::decoder& d, const nlohmann::json& j, const std::string& path, Addressable& v);
void decode_fields(tfjob::detail::decoder& d, const nlohmann::json& j, const std::string& path, ModelRevisionStates& v);
void decode_fields(tfjob::detail::decoder& d, const nlohmann::json& j, const std::string& path, ModelFailureInfo& v);
void decode_fields(tfjob::detail::decoder& d, const nlohmann::json& j, const std::string& path, ModelStatus& v);
void decode_fields(tfjob::detail::decoder& d, const nlohmann::json& j, const std::string& path, InferenceServiceStatus& v);
void decode_fields(tfjob::detail::decoder& d, const nlohmann::json& j, const std::string& path, InferenceService& v);

}  // namespace tfjob::k8s

#if TFJOB_SDK_DEFINE_API
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

TFJOB_INLINE void to_json(nlohmann::json& j, const ModelFormat& v) { detail::write_fields(j, v); }

TFJOB_INLINE void to_json(nlohmann::json& j, const PredictorModel& v) { detail::write_fields(j, v); }

TFJOB_INLINE void to_json(nlohmann::json& j, const PredictorSpec& v) { detail::write_fields(j, v); }

TFJOB_INLINE void to_json(nlohmann::json& j, const InferenceServiceSpec& v) { detail::write_fields(j, v); }

TFJOB_INLINE void to_json(nlohmann::json& j, const Addressable& v) { detail::write_fields(j, v); }

TFJOB_INLINE void to_json(nlohmann::json& j, const ModelRevisionStates& v) { detail::write_fields(j, v); }

TFJOB_INLINE void to_json(nlohmann::json& j, const ModelFailureInfo& v) { detail::write_fields(j, v); }

TFJOB_INLINE void to_json(nlohmann::json& j, const ModelStatus& v) { detail::write_fields(j, v); }

TFJOB_INLINE void to_json(nlohmann::json& j, const InferenceServiceStatus& v) { detail::write_fields(j, v); }

TFJOB_INLINE void to_json(nlohmann::json& j, const InferenceService& v) { detail::write_fields(j, v); }

TFJOB_INLINE void from_json(const nlohmann::json& j, InferenceService& v) { detail::decode_lenient(j, "InferenceService", v); }

TFJOB_INLINE void decode_fields(tfjob::detail::decoder& d, const nlohmann::json& j, const std::string& path, ModelFormat& v) {
  detail::read_fields(d, j, path, v);
}

TFJOB_INLINE void decode_fields(tfjob::detail::decoder& d, const nlohmann::json& j, const std::string& path, PredictorModel& v) {
  detail::read_fields(d, j, path, v);
}

TFJOB_INLINE void decode_fields(tfjob::detail::decoder& d, const nlohmann::json& j, const std::string& path, PredictorSpec& v) {
  detail::read_fields(d, j, path, v);
}

TFJOB_INLINE void decode_fields(tfjob::detail::decoder& d, const nlohmann::json& j, const std::string& path, InferenceServiceSpec& v) {
  detail::read_fields(d, j, path, v);
}

TFJOB_INLINE void decode_fields(tfjob::detail::decoder& d, const nlohmann::json& j, const std::string& path, Addressable& v) {
  detail::read_fields(d, j, path, v);
}

TFJOB_INLINE void decode_fields(tfjob::detail::decoder& d, const nlohmann::json& j, const std::string& path, ModelRevisionStates& v) {
  detail::read_fields(d, j, path, v);
}

TFJOB_INLINE void decode_fields(tfjob::detail::decoder& d, const nlohmann::json& j, const std::string& path, ModelFailureInfo& v) {
  detail::read_fields(d, j, path, v);
}

TFJOB_INLINE void decode_fields(tfjob::detail::decoder& d, const nlohmann::json& j, const std::string& path, ModelStatus& v) {
  detail::read_fields(d, j, path, v);
}

TFJOB_INLINE void decode_fields(tfjob::detail::decoder& d, const nlohmann::json& j, const std::string& path, InferenceServiceStatus& v) {
  detail::read_fields(d, j, path, v);
}

TFJOB_INLINE void decode_fields(tfjob::detail::decoder& d, const nlohmann::json& j, const std::string& path, InferenceService& v) {
  detail::read_fields(d, j, path, v);
}

}  // namespace tfjob::k8s
#endif  // TFJOB_SDK_DEFINE_API
