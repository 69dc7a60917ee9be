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

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const ModelFormat& v);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const PredictorModel& v);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const PredictorSpec& v);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const InferenceServiceSpec& v);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const Addressable& v);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const ModelRevisionStates& v);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const ModelFailureInfo& v);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const ModelStatus& v);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const InferenceServiceStatus& v);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const InferenceService& v);
/// Decoder: what has the wrong type stays in `other`, untouched; it throws only for a value
/// that is not a JSON object at all.
TFJOB_JSON_FN from_json(const TFJOB_JSON& j, InferenceService& v);
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, ModelFormat& v);
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, PredictorModel& v);
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, PredictorSpec& v);
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, InferenceServiceSpec& v);
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, Addressable& v);
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, ModelRevisionStates& v);
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, ModelFailureInfo& v);
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, ModelStatus& v);
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, InferenceServiceStatus& v);
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, InferenceService& v);

}  // namespace tfjob::k8s

#if TFJOB_SDK_DEFINE_API
#include <tfjob/api/k8s/impl/kserve_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_API
