#pragma once
/// \file TensorFlow Serving on Kubernetes as pure data: the Deployment and Service that
/// `kubectl tfjob serve` applies (no I/O). TF Serving loads
/// `<model_base_path>/<numeric version>/saved_model.pb` and serves the highest version
/// (tensorflow_serving/sources/storage_path/file_system_storage_path_source.cc), so every
/// model source below ends up as `/models/<model>/<version>/`.

#include <tfjob/api/quantity.hpp>
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
inline constexpr const char* default_serving_version = "2.16.1";
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

/// Throws validation_error naming the flag when the spec cannot become valid objects.
void validate(const ServeSpec& s);

/// The labels selecting this server's pods.
nlohmann::json selector_labels(const std::string& name);

/// The MODEL column / annotation text for a source.
std::string describe_source(const ModelSource& m);

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
namespace tfjob::serving {

TFJOB_INLINE std::string ServeSpec::effective_image() const {
  if (!image.empty()) return image;
  return "tensorflow/serving:" + serving_version + (gpus > 0 ? "-gpu" : "");
}

TFJOB_INLINE ModelSource parse_pvc(const std::string& text) {
  ModelSource s;
  s.kind = ModelSource::Kind::pvc;
  auto colon = text.find(':');
  s.claim = text.substr(0, colon);
  if (colon != std::string::npos) s.path = text.substr(colon + 1);
  while (!s.path.empty() && s.path.front() == '/') s.path.erase(0, 1);
  while (!s.path.empty() && s.path.back() == '/') s.path.pop_back();
  if (s.claim.empty())
    throw detail::invalid_setting(setting::model_claim, " \"" + text + "\": give CLAIM[:PATH], e.g. tfjob-mnist:export");
  if (s.path.find("..") != std::string::npos)
    throw detail::invalid_setting(setting::model_claim, " \"" + text + "\": PATH must stay inside the claim (no \"..\")");
  return s;
}

TFJOB_INLINE nlohmann::json parse_toleration(const std::string& text) {
  auto colon = text.rfind(':');
  std::string kv = colon == std::string::npos ? text : text.substr(0, colon);
  std::string effect = colon == std::string::npos ? "" : text.substr(colon + 1);
  if (kv.empty())
    throw detail::invalid_setting(setting::serve_tolerations, " \"" + text + "\": give KEY[=VALUE][:EFFECT], e.g. nvidia.com/gpu:NoSchedule");
  if (!effect.empty() && effect != "NoSchedule" && effect != "PreferNoSchedule" && effect != "NoExecute")
    throw detail::invalid_setting(setting::serve_tolerations, " \"" + text + "\": effect must be NoSchedule, PreferNoSchedule or NoExecute");
  nlohmann::json t = nlohmann::json::object();
  auto eq = kv.find('=');
  if (eq == std::string::npos) {
    t["key"] = kv;
    t["operator"] = "Exists";
  } else {
    t["key"] = kv.substr(0, eq);
    t["operator"] = "Equal";
    t["value"] = kv.substr(eq + 1);
  }
  if (!effect.empty()) t["effect"] = effect;
  return t;
}

TFJOB_INLINE bool is_dns1035_label(const std::string& s) {
  if (s.empty() || s.size() > 63 || !std::islower(static_cast<unsigned char>(s.front())) || s.back() == '-') return false;
  for (char c : s)
    if (!(std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '-')) return false;
  return true;
}

TFJOB_INLINE void validate(const ServeSpec& s) {
  if (!is_dns1035_label(s.name))
    throw tfjob::error("serve name \"" + s.name +
                           "\" must be a DNS-1035 label (lower-case letters, digits and '-', starting with a letter, "
                           "at most 63 characters): it names the Service");
  const std::string m = s.effective_model_name();
  for (char c : m)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.'))
      throw detail::invalid_setting(setting::serve_model_name,
                                    " \"" + m + "\": use letters, digits, '-', '_' or '.' (it is a directory name and a URL segment)");
  if (s.source.kind == ModelSource::Kind::none)
    throw tfjob::error(reasons::invalid_setting,
                       "no model: give one (" + setting::model_resnet + ", " + setting::model_url + " URL of a SavedModel .tar.gz, or " +
                           setting::model_claim + " CLAIM[:PATH])",
                       "", setting::serve_source);
  if (s.source.kind == ModelSource::Kind::url) {
    const auto& u = s.source.url;
    if (u.rfind("http://", 0) != 0 && u.rfind("https://", 0) != 0 && u.rfind("gs://", 0) != 0)
      throw detail::invalid_setting(setting::model_url, " \"" + u + "\": give an http(s):// URL of a SavedModel tarball (.tar.gz)");
  }
  if (s.model_version < 1) throw detail::invalid_setting(setting::serve_model_version, " must be a positive integer (TF Serving's version directory)");
  if (s.gpus < 0) throw detail::invalid_setting(setting::serve_gpus, " must be 0 (CPU image) or more");
  if (s.replicas < 0) throw detail::invalid_setting(setting::serve_replicas, " must be 0 or more");
  for (const auto& [key, q] : {std::pair<tfjob::setting, std::string>{setting::serve_cpu, s.cpu}, {setting::serve_memory, s.memory}})
    if (!q.empty()) {
      if (!tfjob::is_quantity(q))
        throw detail::invalid_setting(key, " \"" + q + "\" is not a Kubernetes quantity (e.g. 2, 500m, 4Gi)");
    }
  validate_operations(s.ops, s.cpu);
}

TFJOB_INLINE nlohmann::json selector_labels(const std::string& name) {
  return {{keys::name, "tensorflow-serving"}, {keys::instance, name}};
}

TFJOB_INLINE std::string describe_source(const ModelSource& m) {
  switch (m.kind) {
    case ModelSource::Kind::resnet: return "resnet";
    case ModelSource::Kind::url: return m.url;
    case ModelSource::Kind::pvc: return "pvc:" + m.claim + (m.path.empty() ? "" : "/" + m.path);
    default: return "";
  }
}

TFJOB_INLINE std::string fetch_script() {
  return R"SH(set -eu
dest="/models/$MODEL_NAME"
tmp="$dest/.download"
rm -rf "$tmp" && mkdir -p "$tmp/x"
echo "downloading $MODEL_URL"
curl -fsSL --retry 5 --retry-delay 2 -o "$tmp/model.tar.gz" "$MODEL_URL"
tar -xzf "$tmp/model.tar.gz" -C "$tmp/x"
pb=$(find "$tmp/x" -name saved_model.pb | head -n 1)
if [ -z "$pb" ]; then
  echo "error: $MODEL_URL holds no saved_model.pb; TF Serving needs a SavedModel (saved_model.pb and variables/)" >&2
  exit 1
fi
rm -rf "$dest/$MODEL_VERSION"
mv "$(dirname "$pb")" "$dest/$MODEL_VERSION"
rm -rf "$tmp"
echo "model ready in $dest/$MODEL_VERSION"
ls -la "$dest/$MODEL_VERSION"
)SH";
}

TFJOB_INLINE nlohmann::json build_deployment(const ServeSpec& s) {
  validate(s);
  using nlohmann::json;
  const std::string model = s.effective_model_name();
  json labels = selector_labels(s.name);
  labels[keys::managed_by] = "kubectl-tfjob";
  json meta = {{"name", s.name}, {"labels", labels},
               {"annotations", {{keys::model, describe_source(s.source)}, {keys::model_name, model}}}};
  if (!s.namespace_.empty()) meta["namespace"] = s.namespace_;

  json args = json::array({"--port=" + std::to_string(grpc_port), "--rest_api_port=" + std::to_string(rest_port),
                           "--model_name=" + model, "--model_base_path=/models/" + model});
  for (const auto& a : s.extra_args) args.push_back(a);
  json resources = json::object();
  if (!s.cpu.empty()) resources["requests"]["cpu"] = resources["limits"]["cpu"] = s.cpu;
  if (!s.memory.empty()) resources["requests"]["memory"] = resources["limits"]["memory"] = s.memory;
  if (s.gpus > 0) resources["limits"]["nvidia.com/gpu"] = std::to_string(s.gpus);

  json serving = {{"name", "tensorflow-serving"},
                  {"image", s.effective_image()},
                  {"command", json::array({"tensorflow_model_server"})},
                  {"args", args},
                  {"ports", json::array({{{"name", "grpc"}, {"containerPort", grpc_port}, {"protocol", "TCP"}},
                                         {{"name", "http"}, {"containerPort", rest_port}, {"protocol", "TCP"}}})},
                  {"readinessProbe", {{"httpGet", {{"path", "/v1/models/" + model}, {"port", "http"}}},
                                      {"initialDelaySeconds", 5}, {"periodSeconds", 5}, {"failureThreshold", 3}}},
                  // The same status path: TF Serving answers it 200 while a version loads (so a
                  // long load is not killed) and 404 when it has no version at all; a server that
                  // hangs, or serves nothing of its model for 5 minutes, is restarted by the kubelet.
                  {"livenessProbe", {{"httpGet", {{"path", "/v1/models/" + model}, {"port", "http"}}},
                                     {"initialDelaySeconds", 30}, {"periodSeconds", 30}, {"timeoutSeconds", 5},
                                     {"failureThreshold", 10}}}};
  if (!resources.empty()) serving["resources"] = resources;

  json volume, mount = {{"name", "models"}, {"mountPath", "/models"}};
  json pod_spec = json::object();
  if (s.source.kind == ModelSource::Kind::pvc) {
    volume = {{"name", "models"}, {"persistentVolumeClaim", {{"claimName", s.source.claim}, {"readOnly", true}}}};
    mount["readOnly"] = true;
    if (!s.source.path.empty()) mount["subPath"] = s.source.path;
  } else {
    volume = {{"name", "models"}, {"emptyDir", json::object()}};
    json fetch = {{"name", "fetch-model"},
                  {"image", s.fetch_image},
                  {"command", json::array({"sh", "-c", fetch_script()})},
                  {"env", json::array({{{"name", "MODEL_URL"}, {"value", s.source.url}},
                                       {{"name", "MODEL_NAME"}, {"value", model}},
                                       {{"name", "MODEL_VERSION"}, {"value", std::to_string(s.model_version)}}})},
                  {"volumeMounts", json::array({{{"name", "models"}, {"mountPath", "/models"}}})}};
    pod_spec["initContainers"] = json::array({fetch});
  }
  serving["volumeMounts"] = json::array({mount});
  pod_spec["containers"] = json::array({serving});
  pod_spec["volumes"] = json::array({volume});
  if (!s.node_selector.empty()) pod_spec["nodeSelector"] = s.node_selector;
  if (!s.tolerations.empty()) pod_spec["tolerations"] = s.tolerations;

  return {{"apiVersion", "apps/v1"},
          {"kind", "Deployment"},
          {"metadata", meta},
          {"spec", {{"replicas", s.replicas},
                    {"selector", {{"matchLabels", selector_labels(s.name)}}},
                    {"template", {{"metadata", {{"labels", labels}}}, {"spec", pod_spec}}}}}};
}

TFJOB_INLINE nlohmann::json build_service(const ServeSpec& s) {
  validate(s);
  using nlohmann::json;
  json labels = selector_labels(s.name);
  labels[keys::managed_by] = "kubectl-tfjob";
  json meta = {{"name", s.name}, {"labels", labels},
               {"annotations", {{keys::model, describe_source(s.source)}, {keys::model_name, s.effective_model_name()}}}};
  if (!s.namespace_.empty()) meta["namespace"] = s.namespace_;
  return {{"apiVersion", "v1"},
          {"kind", "Service"},
          {"metadata", meta},
          {"spec", {{"selector", selector_labels(s.name)},
                    {"ports", json::array({{{"name", "grpc"}, {"port", grpc_port}, {"targetPort", "grpc"}, {"protocol", "TCP"}},
                                           {{"name", "http"}, {"port", rest_port}, {"targetPort", "http"}, {"protocol", "TCP"}}})}}}};
}

TFJOB_INLINE std::vector<nlohmann::json> build_objects(const ServeSpec& s) {
  nlohmann::json labels = selector_labels(s.name);
  labels[keys::managed_by] = "kubectl-tfjob";
  std::vector<nlohmann::json> out;
  if (auto cm = build_config_map(s.name, s.namespace_, labels, s.ops)) out.push_back(*cm);
  out.push_back(build_deployment(s));
  add_operations_to_deployment(out.back(), s.name, s.ops);
  out.push_back(build_service(s));
  if (auto pdb = build_pdb(s.name, s.namespace_, labels, selector_labels(s.name), s.replicas, s.ops)) out.push_back(*pdb);
  if (auto hpa = build_hpa(s.name, s.namespace_, labels, s.ops)) out.push_back(*hpa);
  return out;
}

}  // namespace tfjob::serving
#endif  // TFJOB_SDK_DEFINE_SERVING
