#pragma once
/// \file KServe's InferenceService (serving.kserve.io/v1beta1) with the TensorFlow predictor,
/// built from the same ServeSpec `serve` turns into a Deployment: the pure builder, whether
/// the cluster serves the kind (discovery), a wait that reads the InferenceService's
/// conditions and its predictor pods, and the predictor's Service for the API server's
/// service proxy (TF Serving's V1 REST API, /v1/models/NAME:predict, behind it).
///
/// KServe facts mirrored here (kserve/kserve, pkg/apis/serving/v1beta1 and pkg/constants):
/// - spec.predictor.model {modelFormat: {name: tensorflow}, runtimeVersion, storageUri,
///   resources} is served by the kserve-tensorflow-serving runtime, whose container runs
///   `tensorflow_model_server --model_name={{.Name}} --model_base_path=/mnt/models
///   --rest_api_port=8080`: the model is named after the InferenceService.
/// - storageUri `pvc://CLAIM/PATH`: the storage initializer mounts the claim and
///   /mnt/models is PATH, which must hold TF Serving's <version>/saved_model.pb.
/// - runtimeVersion replaces the runtime image's tag (tensorflow/serving:<runtimeVersion>).
/// - minReplicas / maxReplicas, scaleMetric / scaleTarget: the predictor's autoscaler.
/// - annotation serving.kserve.io/deploymentMode: RawDeployment makes a plain Deployment and
///   a ClusterIP Service named NAME-predictor (KServe < 0.9: NAME-predictor-default), port
///   80 to the container's 8080; pods carry serving.kserve.io/inferenceservice=NAME.
/// - status.conditions Ready / PredictorReady (with reason and message), status.url,
///   status.address.url, status.components.predictor, status.modelStatus.

#include <tfjob/api/k8s/kserve.hpp>
#include <tfjob/detail/compiled.hpp>
#include <tfjob/error.hpp>
#include <tfjob/kube/api.hpp>
#include <tfjob/kube/client.hpp>
#include <tfjob/kube/discovery.hpp>
#include <tfjob/kube/request.hpp>
#include <tfjob/serving/manifests.hpp>
#include <tfjob/serving/serving.hpp>
#include <tfjob/serving/status.hpp>

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace tfjob::kube {
/// Where InferenceServices live (KServe's CRD), so that `Api<k8s::InferenceService>` reads them typed.
template <>
struct resource_traits<k8s::InferenceService> {
  static constexpr const char* group = "serving.kserve.io";
  static constexpr const char* version = "v1beta1";
  static constexpr const char* plural = "inferenceservices";
  static constexpr const char* kind = "InferenceService";
  static constexpr bool namespaced = true;
};
}  // namespace tfjob::kube

namespace tfjob::serving::kserve {

inline constexpr const char* group = "serving.kserve.io";
inline constexpr const char* version = "v1beta1";
inline constexpr const char* plural = "inferenceservices";
/// KServe's annotation choosing Serverless (Knative), RawDeployment or ModelMesh.
inline constexpr const char* deployment_mode_key = "serving.kserve.io/deploymentMode";
/// The label KServe puts on the predictor's pods (constants.InferenceServicePodLabelKey).
inline constexpr const char* pod_label_key = "serving.kserve.io/inferenceservice";

kube::ResourceInfo inference_services();

/// The image tag KServe's runtimeVersion takes: the tag of the TF Serving image serve would
/// run (tensorflow/serving:2.20.0-gpu → "2.20.0-gpu"). Throws when --image names another
/// repository (KServe's runtime picks the repository; only the tag can be chosen).
std::string runtime_version(const ServeSpec& s);

/// `pvc://CLAIM/PATH/MODEL`: serve's --pvc CLAIM:PATH names a directory holding
/// MODEL/<version>/, and KServe's /mnt/models must be the <version>/ directories' parent.
std::string storage_uri(const ServeSpec& s);

/// Throws tfjob::error naming what an InferenceService cannot carry.
void validate_for_kserve(const ServeSpec& s);

/// The InferenceService (serving.kserve.io/v1beta1), RawDeployment mode, TensorFlow predictor.
k8s::InferenceService build_inference_service(const ServeSpec& s);

/// Does the cluster serve serving.kserve.io/v1beta1 inferenceservices (discovery)?
bool served(kube::Client& c);

/// served(), but false where discovery itself is forbidden (403): for commands that only
/// look for InferenceServices beside serve's own servers (list, delete, predict by name).
bool served_or_hidden(kube::Client& c);

/// Throws tfjob::error saying what is missing and what to do when it is not served.
void require_served(kube::Client& c);

/// One condition of the InferenceService's status.
struct Condition {
  std::string type, status, reason, message;
};

/// What the InferenceService's status says (read totally: any shape a server answers).
struct State {
  bool found = false;
  bool ready = false;            ///< condition Ready is True
  std::optional<bool> predictor_ready;  ///< condition PredictorReady, when reported
  std::string url, address_url;  ///< status.url, status.address.url
  std::string model_state;       ///< status.modelStatus.states.activeModelState
  std::string failure;           ///< status.modelStatus.lastFailureInfo: reason: message
  std::vector<Condition> conditions;
  /// For people: why it is not ready (the first False condition with its reason), or "ready".
  std::string summary() const;
};

/// Pure: the State of an InferenceService (at most 64 conditions are read).
State read_state(const k8s::InferenceService& isvc);
/// The same of an answer of any shape (decoded leniently; not an object: not found).
State read_state(const nlohmann::json& isvc);

/// The InferenceService, or nullopt.
std::optional<k8s::InferenceService> get(kube::Client& c, const std::string& ns, const std::string& name);

/// Server-side apply of the InferenceService; returns what the server stored, as it sent it.
nlohmann::json apply(kube::Client& c, const std::string& ns, k8s::InferenceService isvc, bool force = false, bool dry_run = false);

/// The label selector of the predictor's pods (KServe's pod label).
std::string predictor_pod_selector(const std::string& name);

/// Waits until the InferenceService is Ready, through two long-lived watches (it, and its
/// predictor pods) however long it takes: each change of its conditions is read as it comes
/// (the first False condition with its reason is the progress line). Fails early when a
/// predictor pod crash-loops or cannot pull its image (with serve's pod diagnosis: events and
/// last log lines), or the model failed to load; on a timeout the diagnosis says which pods
/// are not scheduled and why, and `blockers` what held each pod back.
WaitReport wait_ready(kube::Client& c, const std::string& ns, const std::string& name, const WaitOptions& o);

/// The predictor's Service as the service proxy names it: "SERVICE:PORT".
std::string predictor_endpoint(kube::Client& c, const std::string& ns, const std::string& name);

/// The InferenceService's predictor as the one-replica-type Deployment view serve's GPU
/// preflight reads (replicas, the pod's resources, node selector and tolerations).
k8s::Deployment preflight_view(const k8s::InferenceService& isvc);
/// The same of an answer of any shape (decoded leniently; not an object: an empty one).
k8s::Deployment preflight_view(const nlohmann::json& isvc);

/// InferenceServices serve made in `ns` ("" = all namespaces), as serve list's rows.
std::vector<std::pair<std::string, ServerInfo>> list(kube::Client& c, const std::string& ns);

/// Deletes the InferenceService (background cascade: KServe's Deployment, Service and HPA
/// are its children); false when there was none.
bool remove(kube::Client& c, const std::string& ns, const std::string& name);

}  // namespace tfjob::serving::kserve

namespace tfjob::serving {

/// Where `predict`/`models` send for a served NAME: the Service serve made, or, on a cluster
/// serving KServe, an InferenceService's predictor (its model is named after it).
struct Endpoint {
  std::string service;  ///< a Service name, or SERVICE:PORT for the service proxy
  std::string model;    ///< "" = the Service's annotation (served_model)
  bool kserve = false;
};

/// serve's own Service first; then an InferenceService of that name; else served_model's
/// error (how to start a server).
Endpoint endpoint(kube::Client& c, const std::string& ns, const std::string& name);

}  // namespace tfjob::serving

#if TFJOB_SDK_DEFINE_SERVING
#include <tfjob/serving/impl/kserve_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_SERVING
