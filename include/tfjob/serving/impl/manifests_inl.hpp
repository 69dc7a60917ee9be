#pragma once
/// \file The bodies of <tfjob/serving/manifests.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_SERVING` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/serving/manifests.hpp>, never this file.

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
    throw detail::invalid_setting(setting::model_claim, " \"" + text + "\" names no claim; give CLAIM[:PATH], e.g. tfjob-mnist:export");
  if (s.path.find("..") != std::string::npos)
    throw detail::invalid_setting(setting::model_claim, " \"" + text + "\": PATH must stay inside the claim (no \"..\")");
  return s;
}

TFJOB_INLINE nlohmann::json parse_toleration(const std::string& text) {
  std::string problem;
  auto t = Toleration::try_parse(text, &problem);
  if (!t) throw detail::invalid_setting(setting::serve_tolerations, " " + problem);
  return t->to_json();
}

TFJOB_INLINE bool is_dns1035_label(const std::string& s) {
  if (s.empty() || s.size() > 63 || !std::islower(static_cast<unsigned char>(s.front())) || s.back() == '-') return false;
  for (char c : s)
    if (!(std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '-')) return false;
  return true;
}

TFJOB_INLINE std::string url_credential(const std::string& url) {
  const auto scheme = url.find("://");
  const std::size_t start = scheme == std::string::npos ? 0 : scheme + 3;
  const auto end = url.find_first_of("/?#", start);
  if (url.substr(start, end == std::string::npos ? std::string::npos : end - start).find('@') != std::string::npos)
    return "a user name or password (user:pass@)";
  const auto q = url.find('?');
  if (q == std::string::npos) return "";
  // The parameters that sign or authorize a URL: AWS SigV4 (X-Amz-*), GCS V4 signing
  // (X-Goog-*), GCS V2 (Signature, GoogleAccessId), Azure SAS (sig), and the usual tokens.
  static const char* const secret_params[] = {"x-amz-signature", "x-amz-credential", "x-amz-security-token",
                                              "x-goog-signature", "x-goog-credential", "signature", "googleaccessid",
                                              "sig", "token", "access_token", "auth", "key", "api_key", "apikey",
                                              "password", "secret"};
  const std::string query = url.substr(q + 1, url.find('#', q) == std::string::npos ? std::string::npos : url.find('#', q) - q - 1);
  for (std::size_t a = 0; a <= query.size();) {
    std::size_t b = query.find('&', a);
    if (b == std::string::npos) b = query.size();
    const std::string param = query.substr(a, b - a);
    std::string name = param.substr(0, param.find('='));
    for (auto& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    for (const char* sp : secret_params)
      if (name == sp) return "the query parameter " + param.substr(0, param.find('='));
    a = b + 1;
  }
  return "";
}

TFJOB_INLINE ModelSource parse_url_secret(const std::string& text) {
  ModelSource m;
  m.kind = ModelSource::Kind::url;
  const auto colon = text.find(':');
  m.url_secret = text.substr(0, colon);
  if (colon != std::string::npos) m.url_secret_key = text.substr(colon + 1);
  detail::check_model_url(m);
  return m;
}

TFJOB_INLINE nlohmann::json model_url_env(const ModelSource& m) {
  if (m.url_secret.empty()) return nlohmann::json::array({{{"name", "MODEL_URL"}, {"value", m.url}}});
  return nlohmann::json::array(
      {{{"name", "MODEL_URL"}, {"valueFrom", {{"secretKeyRef", {{"name", m.url_secret}, {"key", m.url_secret_key}}}}}},
       {{"name", "MODEL_SOURCE"}, {"value", "the URL in secret " + m.url_secret + " (key " + m.url_secret_key + ")"}}});
}

namespace detail {
TFJOB_INLINE void refuse_gs_url(tfjob::setting setting_name, const std::string& url) {
  // the model is fetched by curl in an init container, which reads no gs:// URL: it would fail
  // there, after the apply; a public object has an https:// URL of its own
  if (url.rfind("gs://", 0) != 0) return;
  throw invalid_setting(setting_name, " \"" + url + "\": gs:// is not fetched (the model is downloaded with curl); give the object's "
                                      "https://storage.googleapis.com/" + url.substr(5) + " URL, or a signed URL in a Secret");
}

TFJOB_INLINE void check_model_url(const ModelSource& m) {
  if (m.kind != ModelSource::Kind::url) return;
  if (!m.url_secret.empty()) {
    if (!m.url.empty())
      throw invalid_setting(setting::model_url_secret, ": give the URL or the Secret that holds it, not both");
    if (!tfjob::detail::is_dns1123_subdomain(m.url_secret))
      throw invalid_setting(setting::model_url_secret, " \"" + m.url_secret + "\" is not a Secret's name (lowercase letters, digits, '-' and '.'); give SECRET[:KEY]");
    bool key_ok = !m.url_secret_key.empty() && m.url_secret_key.size() <= 253;
    for (char c : m.url_secret_key)
      if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.')) key_ok = false;
    if (!key_ok)  // a ConfigMap/Secret key: IsConfigMapKey
      throw invalid_setting(setting::model_url_secret, " \"" + m.url_secret + ":" + m.url_secret_key +
                                                           "\": KEY must be a Secret key (letters, digits, '-', '_', '.')");
    return;
  }
  const auto& u = m.url;
  // first: a URL with credentials is neither stored nor quoted
  if (std::string what = url_credential(u); !what.empty())
    throw invalid_setting(setting::model_url, ": the URL holds " + what +
                                                  ", which would be stored in the Deployment and shown in its init container's "
                                                  "log. Put it in a Secret (kubectl create secret generic NAME "
                                                  "--from-literal=url=URL) and give it instead (" + setting::model_url_secret + " NAME)");
  refuse_gs_url(setting::model_url, u);
  if (u.rfind("http://", 0) != 0 && u.rfind("https://", 0) != 0)
    throw invalid_setting(setting::model_url, " \"" + u + "\": give an http(s):// URL of a SavedModel tarball (.tar.gz)");
}

}  // namespace detail

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
  detail::check_model_url(s.source);
  if (s.model_version < 1) throw detail::invalid_setting(setting::serve_model_version, " must be a positive integer (TF Serving's version directory)");
  if (s.gpus < 0) throw detail::invalid_setting(setting::serve_gpus, " must be 0 (CPU image) or more");
  if (s.replicas < 0) throw detail::invalid_setting(setting::serve_replicas, " must be 0 or more");
  for (const auto& [key, q] : {std::pair<tfjob::setting, std::string>{setting::serve_cpu, s.cpu}, {setting::serve_memory, s.memory},
                               {setting::serve_cpu_limit, s.cpu_limit}, {setting::serve_fetch_cpu, s.fetch_cpu},
                               {setting::serve_fetch_memory, s.fetch_memory}})
    if (!q.empty()) {
      if (!tfjob::is_quantity(q))
        throw detail::invalid_setting(key, " \"" + q + "\" is not a Kubernetes quantity (e.g. 2, 500m, 4Gi)");
    }
  // The API server's rule (core validation, ValidateResourceRequirements): a request may not
  // exceed its limit.
  if (!s.cpu.empty() && !s.cpu_limit.empty() && Quantity::parse(s.cpu).value() > Quantity::parse(s.cpu_limit).value())
    throw detail::invalid_setting(setting::serve_cpu_limit, " " + s.cpu_limit + " is less than the CPU request (" + setting::serve_cpu + " " +
                                                                  s.cpu + "): a request may not exceed its limit");
  validate_operations(s.ops, s.cpu);
}

TFJOB_INLINE nlohmann::json selector_labels(const std::string& name) {
  return {{keys::name, "tensorflow-serving"}, {keys::instance, name}};
}

TFJOB_INLINE std::string describe_source(const ModelSource& m) {
  switch (m.kind) {
    case ModelSource::Kind::resnet: return "resnet";
    case ModelSource::Kind::url:
      return m.url_secret.empty() ? m.url : "url from secret " + m.url_secret + (m.url_secret_key == "url" ? "" : ":" + m.url_secret_key);
    case ModelSource::Kind::pvc: return "pvc:" + m.claim + (m.path.empty() ? "" : "/" + m.path);
    default: return "";
  }
}

TFJOB_INLINE std::string fetch_script() {
  return R"SH(set -eu
dest="/models/$MODEL_NAME"
tmp="$dest/.download"
rm -rf "$tmp" && mkdir -p "$tmp/x"
echo "downloading ${MODEL_SOURCE:-$MODEL_URL}"
curl -fsSL --retry 5 --retry-delay 2 -o "$tmp/model.tar.gz" "$MODEL_URL"
tar -xzf "$tmp/model.tar.gz" -C "$tmp/x"
pb=$(find "$tmp/x" -name saved_model.pb | head -n 1)
if [ -z "$pb" ]; then
  echo "error: ${MODEL_SOURCE:-$MODEL_URL} holds no saved_model.pb; TF Serving needs a SavedModel (saved_model.pb and variables/)" >&2
  exit 1
fi
rm -rf "$dest/$MODEL_VERSION"
mv "$(dirname "$pb")" "$dest/$MODEL_VERSION"
rm -rf "$tmp"
echo "model ready in $dest/$MODEL_VERSION"
ls -la "$dest/$MODEL_VERSION"
)SH";
}

namespace detail {

/// A value type from JSON the SDK made itself (a toleration --toleration parsed, an env
/// entry): decoded field by field, what the type does not model kept in its `other`.
template <class T>
T typed(const nlohmann::json& j, const char* what) {
  tfjob::detail::decoder d;
  T x;
  d.decode(j, what, x);
  return x;
}

/// serve's labels on what it creates: the selector's, and who manages it.
TFJOB_INLINE std::map<std::string, std::string> managed_labels(const std::string& name) {
  auto labels = selector_labels(name).get<std::map<std::string, std::string>>();
  labels[keys::managed_by] = "kubectl-tfjob";
  return labels;
}

/// The metadata of a server's Deployment and Service: its labels, and the model it serves.
TFJOB_INLINE ObjectMeta server_meta(const ServeSpec& s) {
  ObjectMeta m;
  m.name = s.name;
  m.namespace_ = s.namespace_;
  m.labels = managed_labels(s.name);
  m.annotations = {{keys::model, describe_source(s.source)}, {keys::model_name, s.effective_model_name()}};
  return m;
}

/// The init container that downloads a SavedModel tarball into /models/MODEL/VERSION.
TFJOB_INLINE k8s::Container fetch_container(const ServeSpec& s, const std::string& model) {
  k8s::Container fetch;
  fetch.name = "fetch-model";
  fetch.image = s.fetch_image;
  fetch.command = {"sh", "-c", fetch_script()};
  for (const auto& e : model_url_env(s.source)) fetch.env.push_back(typed<k8s::EnvVar>(e, "env"));
  fetch.env.push_back(k8s::EnvVar{"MODEL_NAME", model, nullptr, nlohmann::json::object()});
  fetch.env.push_back(k8s::EnvVar{"MODEL_VERSION", std::to_string(s.model_version), nullptr, nlohmann::json::object()});
  k8s::VolumeMount mount;
  mount.name = "models";
  mount.mount_path = "/models";
  fetch.volume_mounts = {mount};
  if (!s.fetch_cpu.empty()) fetch.resources.requests["cpu"] = fetch.resources.limits["cpu"] = s.fetch_cpu;
  if (!s.fetch_memory.empty()) fetch.resources.requests["memory"] = fetch.resources.limits["memory"] = s.fetch_memory;
  return fetch;
}

}  // namespace detail

TFJOB_INLINE nlohmann::json build_deployment(const ServeSpec& s) {
  validate(s);
  using nlohmann::json;
  const std::string model = s.effective_model_name();

  k8s::Container serving;
  serving.name = "tensorflow-serving";
  serving.image = s.effective_image();
  serving.command = {"tensorflow_model_server"};
  serving.args = {"--port=" + std::to_string(grpc_port), "--rest_api_port=" + std::to_string(rest_port),
                  "--model_name=" + model, "--model_base_path=/models/" + model};
  serving.args.insert(serving.args.end(), s.extra_args.begin(), s.extra_args.end());
  serving.ports = {k8s::ContainerPort{"grpc", grpc_port, "TCP", json::object()},
                   k8s::ContainerPort{"http", rest_port, "TCP", json::object()}};
  // (probes are not modeled: they stay in the container's `other`)
  serving.other["readinessProbe"] = {{"httpGet", {{"path", "/v1/models/" + model}, {"port", "http"}}},
                                     {"initialDelaySeconds", 5}, {"periodSeconds", 5}, {"failureThreshold", 3}};
  // The same status path: TF Serving answers it 200 while a version loads (so a
  // long load is not killed) and 404 when it has no version at all; a server that
  // hangs, or serves nothing of its model for 5 minutes, is restarted by the kubelet.
  serving.other["livenessProbe"] = {{"httpGet", {{"path", "/v1/models/" + model}, {"port", "http"}}},
                                    {"initialDelaySeconds", 30}, {"periodSeconds", 30}, {"timeoutSeconds", 5},
                                    {"failureThreshold", 10}};
  auto& res = serving.resources;
  if (!s.cpu.empty()) res.requests["cpu"] = res.limits["cpu"] = s.cpu;
  if (!s.cpu_limit.empty()) res.limits["cpu"] = s.cpu_limit;
  if (!s.memory.empty()) res.requests["memory"] = res.limits["memory"] = s.memory;
  if (s.gpus > 0) res.limits["nvidia.com/gpu"] = std::to_string(s.gpus);

  k8s::PodSpec pod;
  k8s::Volume volume;
  volume.name = "models";
  k8s::VolumeMount mount;
  mount.name = "models";
  mount.mount_path = "/models";
  if (s.source.kind == ModelSource::Kind::pvc) {
    volume.persistent_volume_claim = k8s::ClaimVolumeSource{s.source.claim, true, json::object()};
    mount.read_only = true;
    mount.sub_path = s.source.path;
  } else {
    volume.other["emptyDir"] = json::object();
    pod.init_containers = {detail::fetch_container(s, model)};
  }
  serving.volume_mounts = {mount};
  pod.containers = {serving};
  pod.volumes = {volume};
  pod.node_selector = s.node_selector;
  for (const auto& t : s.tolerations) pod.tolerations.push_back(detail::typed<k8s::Toleration>(t, "toleration"));

  k8s::Deployment d;
  d.api_version = "apps/v1";
  d.kind = "Deployment";
  d.metadata = detail::server_meta(s);
  d.spec.replicas = s.replicas;
  d.spec.selector = {{"matchLabels", selector_labels(s.name)}};
  d.spec.template_.metadata.labels = d.metadata.labels;
  d.spec.template_.spec = std::move(pod);
  // The old pod goes first, then the new one starts (apps/v1 RollingUpdateDeployment: maxSurge
  // 0 needs maxUnavailable > 0): the server is down during a rollout, never Pending for room.
  if (s.no_surge) {
    d.spec.strategy.type = "RollingUpdate";
    d.spec.strategy.rolling_update = k8s::RollingUpdateDeployment{0, 1, json::object()};
  }
  return d;  // written as JSON here: model configs and operations add to it (model_config.hpp, operations.hpp)
}

TFJOB_INLINE nlohmann::json build_service(const ServeSpec& s) {
  validate(s);
  k8s::Service svc;
  svc.api_version = "v1";
  svc.kind = "Service";
  svc.metadata = detail::server_meta(s);
  svc.spec.selector = selector_labels(s.name).get<std::map<std::string, std::string>>();
  svc.spec.ports = {k8s::ServicePort{"grpc", "TCP", grpc_port, "grpc", 0, nlohmann::json::object()},
                    k8s::ServicePort{"http", "TCP", rest_port, "http", 0, nlohmann::json::object()}};
  return svc;
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
