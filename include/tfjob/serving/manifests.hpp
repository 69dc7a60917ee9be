#pragma once
/// \file TensorFlow Serving on Kubernetes as pure data: the Deployment and Service that
/// `kubectl tfjob serve` applies (no I/O). TF Serving loads
/// `<model_base_path>/<numeric version>/saved_model.pb` and serves the highest version
/// (tensorflow_serving/sources/storage_path/file_system_storage_path_source.cc), so every
/// model source below ends up as `/models/<model>/<version>/`.

#include <tfjob/api/builder.hpp>  // Toleration: the one toleration parser
#include <tfjob/api/k8s/objects.hpp>
#include <tfjob/api/k8s/workloads.hpp>
#include <tfjob/api/quantity.hpp>
#include <tfjob/api/validation.hpp>  // is_dns1123_subdomain: a Secret's name
#include <tfjob/detail/compiled.hpp>
#include <tfjob/error.hpp>
#include <tfjob/serving/operations.hpp>

#include <nlohmann/json.hpp>

#include <cctype>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tfjob::serving {

/// TF Serving's ResNet-50 v2 SavedModel that takes JPEG bytes (`image_bytes`, b64 in REST)
/// and returns 1001 `probabilities` (0 = background) and `classes`; the URL of TF Serving's
/// own Kubernetes and Docker examples (tensorflow/serving docs/serving_kubernetes.md).
inline constexpr const char* resnet_model_url =
    "http://download.tensorflow.org/models/official/20181001_resnet/savedmodels/"
    "resnet_v2_fp32_savedmodel_NHWC_jpg.tar.gz";
/// The TF Serving release `serve` runs by default: the guide's TensorFlow line, the same
/// release as the MNIST sample's training image (tensorflow/tensorflow:2.20.0-gpu) and
/// TensorBoard's (default_tensorboard_image), so the guide's own path never warns that a
/// model is newer than its server (tf_version_warning). 2.20.0 is TF Serving's newest
/// release (tensorflow/serving tag 2.20.0, "Update version for 2.20.0 release", #4135), and
/// its -gpu image still runs on a V100: tensorflow/serving 2.20.0's .bazelrc builds it with
/// HERMETIC_CUDA_VERSION 12.5.1 for sm_60,sm_70,sm_80,sm_89,compute_90 (build:cuda_clang),
/// on nvidia/cuda:12.5.1-base-ubuntu22.04 (tools/docker/Dockerfile.gpu), and an R580 driver
/// (CUDA 13.0's) runs CUDA 12.x user space. A CUDA 13 build would not: CUDA 13 dropped sm_70.
inline constexpr const char* default_serving_version = "2.20.0";
inline constexpr const char* default_fetch_image = "curlimages/curl:8.11.1";
inline constexpr int grpc_port = 8500;
inline constexpr int rest_port = 8501;

/// Label and annotation keys on everything `serve` creates.
namespace keys {
inline constexpr const char* name = "app.kubernetes.io/name";            ///< "tensorflow-serving"
inline constexpr const char* instance = "app.kubernetes.io/instance";    ///< NAME
inline constexpr const char* managed_by = "app.kubernetes.io/managed-by";  ///< "kubectl-tfjob"
inline constexpr const char* model = "serving.kubectl-tfjob.io/model";       ///< what is served (resnet, url, pvc:CLAIM/PATH)
inline constexpr const char* model_name = "serving.kubectl-tfjob.io/model-name";  ///< the TF Serving model name
}  // namespace keys

/// Where the model comes from (exactly one).
struct ModelSource {
  enum class Kind { none, resnet, url, pvc } kind = Kind::none;
  std::string url;    ///< resnet / url: the SavedModel tarball
  /// url: the Secret (in the server's namespace) whose key `url_secret_key` holds the URL,
  /// for a URL with credentials or a signed query (url_credential): the init container reads
  /// it from there, and it is never written into an object, an annotation or a log. "" = `url`.
  std::string url_secret;
  std::string url_secret_key = "url";
  std::string claim;  ///< pvc: the claim
  std::string path;   ///< pvc: directory inside the claim holding `<model>/<version>/` ("" = root)
};

/// Everything `serve NAME` turns into objects.
struct ServeSpec {
  std::string name;            ///< Deployment and Service name
  std::string namespace_;      ///< "" = leave metadata.namespace out
  std::string model_name;      ///< TF Serving model name ("" = name)
  ModelSource source;
  int model_version = 1;       ///< version directory a downloaded model goes to
  int gpus = 1;                ///< nvidia.com/gpu per replica; 0 = the CPU image
  int replicas = 1;
  std::string serving_version = default_serving_version;
  std::string image;           ///< "" = tensorflow/serving:<version>[-gpu]
  std::string fetch_image = default_fetch_image;
  std::string cpu, memory;     ///< requests = limits when set
  std::string cpu_limit;       ///< the CPU limit when it differs from the request ("" = cpu)
  std::string fetch_cpu, fetch_memory;  ///< the model download's init container (requests = limits; "" = none)
  /// Rollouts replace each pod without starting a surge pod first (maxSurge 0, maxUnavailable
  /// 1): a node with room for one server (profile.hpp) would leave the new pod Pending.
  bool no_surge = false;
  std::map<std::string, std::string> node_selector;
  std::vector<nlohmann::json> tolerations;
  std::vector<std::string> extra_args;  ///< appended to tensorflow_model_server's flags
  ServeOperations ops;  ///< batching, monitoring, autoscaling (operations.hpp)

  std::string effective_model_name() const { return model_name.empty() ? name : model_name; }
  std::string effective_image() const;
};

/// `--pvc CLAIM[:PATH]` → source. PATH is a directory inside the claim that holds
/// `<model>/<version>/saved_model.pb`; a leading '/' is ignored.
ModelSource parse_pvc(const std::string& text);

/// `--toleration KEY[=VALUE]:EFFECT` or `KEY:EFFECT` (kubectl taint syntax) → toleration.
nlohmann::json parse_toleration(const std::string& text);

/// A DNS-1035 label (Service names): lower-case alphanumerics and '-', starting with a
/// letter, at most 63 characters.
bool is_dns1035_label(const std::string& s);

namespace detail {
/// A url source's checks: a URL (scheme; none with credentials: url_credential) or a Secret
/// (SECRET[:KEY] names), never both.
void check_model_url(const ModelSource& m);
/// Refuses a gs:// URL (`about`: the setting it came from): the init container downloads
/// with curl, which reads none; the message gives the object's https:// URL instead.
void refuse_gs_url(tfjob::setting about, const std::string& url);
}  // namespace detail

/// Throws validation_error naming the flag when the spec cannot become valid objects.
void validate(const ServeSpec& s);

/// The labels selecting this server's pods.
nlohmann::json selector_labels(const std::string& name);

/// The MODEL column / annotation text for a source (a URL from a Secret: the Secret, never the URL).
std::string describe_source(const ModelSource& m);

/// What in `url` is a credential: "a user name or password (user:pass@)", "the query
/// parameter X-Amz-Signature" (signed URLs of S3, GCS, Azure: X-Amz-*, X-Goog-*, sig=,
/// token=...); "" when nothing is. Such a URL is taken from a Secret (ModelSource::url_secret).
std::string url_credential(const std::string& url);

/// `--model-url-secret SECRET[:KEY]` → a url source read from that Secret's KEY (default "url").
ModelSource parse_url_secret(const std::string& text);

/// The init container's environment that names its model's URL: MODEL_URL (a value, or a
/// secretKeyRef) and, for a Secret, MODEL_SOURCE, what its log shows instead of the URL.
nlohmann::json model_url_env(const ModelSource& m);

/// The init container's script: download a SavedModel tarball, find the directory holding
/// saved_model.pb (tarballs differ: flat, one folder, or already versioned) and move it to
/// /models/<model>/<version> so TF Serving finds a numeric version directory.
std::string fetch_script();

/// The Deployment (apps/v1).
nlohmann::json build_deployment(const ServeSpec& s);

/// The Service (core/v1, ClusterIP) with the named gRPC and REST ports.
nlohmann::json build_service(const ServeSpec& s);

/// Every object, in the order they are applied and `serve --dry-run=client` prints them:
/// the config files' ConfigMap (when batching or monitoring is on), the Deployment, the
/// Service, then the PodDisruptionBudget and HorizontalPodAutoscaler (operations.hpp).
std::vector<nlohmann::json> build_objects(const ServeSpec& s);

}  // namespace tfjob::serving

#if TFJOB_SDK_DEFINE_SERVING
#include <tfjob/serving/impl/manifests_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_SERVING
