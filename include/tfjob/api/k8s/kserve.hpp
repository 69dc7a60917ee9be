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
#include <tfjob/api/k8s/impl/kserve_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_API
