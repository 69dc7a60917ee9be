#pragma once
/// \file Reading what the cluster and TF Serving say, as pure functions: a Deployment's
/// rollout status exactly as `kubectl rollout status` words it
/// (kubectl/pkg/polymorphichelpers/rollout_status.go, DeploymentStatusViewer), pods that
/// will not come up (crash loops, image pulls), TF Serving's model status
/// (`GET /v1/models/NAME`: model_version_status[] with state START/LOADING/AVAILABLE/
/// UNLOADING/END and status.error_code/error_message) and predictions (their top-k classes
/// with ImageNet names are in serving/top_k.hpp).
///
/// The cluster's objects are read as typed objects (k8s::Deployment, k8s::Pod), decoded
/// leniently as every object a server sends (api/meta.hpp): a field of a type the model cannot
/// hold stays, as sent, in its struct's `other`. A reader here refuses such a field among those
/// it reads with a tfjob::error naming the object and the field (`deployment "resnet":
/// status.replicas is a string, expected an integer`), as kubectl's typed decoding refuses the
/// object: a malformed field is never read as its default.

#include <tfjob/api/cluster_words.hpp>
#include <tfjob/api/k8s/pod.hpp>
#include <tfjob/api/k8s/workloads.hpp>
#include <tfjob/detail/compiled.hpp>
#include <tfjob/error.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>  // from_chars
#include <cstdint>
#include <limits>
#include <string_view>
#include <type_traits>
#include <optional>
#include <string>
#include <vector>

namespace tfjob::serving {

namespace detail {

/// The JSON type's name as Kubernetes' decoder words it ("a string", "an object").
std::string json_kind(const nlohmann::json& v);

}  // namespace detail

/// Where a rollout stands.
struct RolloutStatus {
  bool done = false;
  bool failed = false;       ///< ProgressDeadlineExceeded
  std::string message;       ///< kubectl's wording
};

/// kubectl's DeploymentStatusViewer.Status for one Deployment.
RolloutStatus rollout_status(const k8s::Deployment& d);
/// The same for a Deployment as the server sent it: an error when it is not an object, else
/// decoded (leniently) and read as above.
RolloutStatus rollout_status(const nlohmann::json& d);

/// A container of a pod that will not become ready on its own.
struct PodProblem {
  std::string pod, container, reason, message;
  bool init = false;
  int restarts = 0;
  std::optional<int> last_exit_code;
};

/// Containers (init containers included) waiting in CrashLoopBackOff with at least
/// `min_restarts` restarts, or stuck on the image (ErrImagePull, ImagePullBackOff,
/// InvalidImageName, CreateContainerConfigError).
std::vector<PodProblem> pod_problems(const k8s::Pod& pod, int min_restarts = 2);

/// One entry of TF Serving's model_version_status.
struct ModelVersionStatus {
  std::string version, state, error_code, error_message;
};

/// TF Serving's answer to `GET /v1/models/NAME`.
struct ModelStatus {
  std::vector<ModelVersionStatus> versions;
  /// The highest AVAILABLE version, if any (HTTP 200 alone is not ready: TF Serving
  /// answers 200 with state LOADING while a version loads).
  std::optional<std::string> available_version() const;
  /// Every AVAILABLE version, in the order TF Serving lists them (several are served at
  /// once under a version policy of `all` or `specific`).
  std::vector<std::string> available_versions() const;
  /// A version that ended with an error (a model that failed to load).
  std::optional<ModelVersionStatus> failed_version() const;
  /// "version 1 LOADING, version 2 AVAILABLE".
  std::string summary() const;
};

/// Parses TF Serving's model status JSON; throws tfjob::error when it is not one.
ModelStatus parse_model_status(const std::string& body);

/// TF Serving's `{"error": "..."}`; "" when the body is not one.
std::string tf_serving_error(const std::string& body);

/// What to check when TF Serving finds no version of a model.
std::string layout_hint(const std::string& model);

/// What holds one of the server's pods back from being ready, in the order a pod meets
/// them: the scheduler, the image, an init container (the model download), the container
/// itself crashing, or TF Serving up but its readiness probe (the model's status) failing.
struct PodBlocker {
  enum class Kind { scheduling, image, starting, crash_loop, model_load } kind = Kind::starting;
  std::string pod;
  std::string detail;  ///< the scheduler's or kubelet's words, or what is running
};

/// The blockers of pods that are not ready (ready pods give none). Pure: reads the pod's
/// PodScheduled condition, its containers' waiting reasons (kubelet's image reasons:
/// ErrImagePull, ImagePullBackOff, ErrImageNeverPull, InvalidImageName), init containers
/// still running and containers running but not ready.
std::vector<PodBlocker> pod_blockers(const std::vector<k8s::Pod>& pods);

/// One hint per kind of blocker, naming the pods and what to do; `model` for the layout hint.
Text blocker_hints(const std::vector<PodBlocker>& blockers, const std::string& model);

/// The class scores of one prediction: `{"probabilities": [...]}` (ResNet's signature,
/// with `classes`), or a bare list of numbers (a single-output model).
std::vector<double> prediction_scores(const nlohmann::json& prediction);

/// The `predictions` list of TF Serving's answer to `:predict` (the REST API's row format:
/// one entry per instance sent); with `expected` > 0 the count must match. Throws
/// tfjob::error saying what came instead.
const nlohmann::json& predictions_of(const nlohmann::json& response, std::size_t expected = 0);

/// The request body for images: `{"instances":[{"b64":"..."}, ...]}` (TF Serving's REST
/// API encodes binary inputs as {"b64": ...}).
nlohmann::json image_instances(const std::vector<std::string>& base64_images);

/// Whether bytes look like a JPEG or PNG (what decode_jpeg/decode_image accept).
bool looks_like_image(const std::string& bytes);

}  // namespace tfjob::serving

#if TFJOB_SDK_DEFINE_SERVING
#include <tfjob/serving/impl/status_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_SERVING
