#pragma once
/// \file The bodies of <tfjob/serving/model_config.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_SERVING` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/serving/model_config.hpp>, never this file.

namespace tfjob::serving {

TFJOB_INLINE bool VersionPolicy::operator==(const VersionPolicy& o) const {
  return kind == o.kind && (kind != Kind::latest || num_versions == o.num_versions) &&
         (kind != Kind::specific || versions == o.versions);
}

TFJOB_INLINE std::string VersionPolicy::text() const {
  if (kind == Kind::all) return "all";
  if (kind == Kind::latest) return "latest:" + std::to_string(num_versions);
  std::string t = "specific:";
  for (std::size_t i = 0; i < versions.size(); ++i) t += (i ? "," : "") + std::to_string(versions[i]);
  return t;
}

TFJOB_INLINE std::vector<std::int64_t> VersionPolicy::select(std::vector<std::int64_t> on_disk) const {
  std::sort(on_disk.begin(), on_disk.end());
  on_disk.erase(std::unique(on_disk.begin(), on_disk.end()), on_disk.end());
  if (kind == Kind::all) return on_disk;
  if (kind == Kind::latest) {
    const auto n = static_cast<std::size_t>(num_versions < 0 ? 0 : num_versions);
    if (on_disk.size() > n) on_disk.erase(on_disk.begin(), on_disk.end() - static_cast<std::ptrdiff_t>(n));
    return on_disk;
  }
  std::vector<std::int64_t> out;
  for (auto v : on_disk)
    if (std::find(versions.begin(), versions.end(), v) != versions.end()) out.push_back(v);
  return out;
}

TFJOB_INLINE const ModelEntry* ModelServerConfig::find(const std::string& name) const {
  for (const auto& m : models)
    if (m.name == name) return &m;
  return nullptr;
}

TFJOB_INLINE ModelEntry* ModelServerConfig::find(const std::string& name) {
  for (auto& m : models)
    if (m.name == name) return &m;
  return nullptr;
}

TFJOB_INLINE std::string model_config_map_name(const std::string& server) { return server + "-models"; }

namespace detail {

TFJOB_INLINE void check_model_name(const std::string& m, const std::string& what) {
  if (m.empty() || m.size() > 253) throw invalid_setting(setting::model_config_models, what + ": the model name must be 1 to 253 characters");
  for (char c : m)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.'))
      throw invalid_setting(setting::model_config_models,
                            what + ": model name \"" + m + "\" may use letters, digits, '-', '_' or '.' (it is a directory name and a URL segment)");
}

TFJOB_INLINE std::optional<std::int64_t> parse_version_number(const std::string& s) {
  if (s.empty() || s.size() > 18 || s.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  return static_cast<std::int64_t>(std::stoll(s));
}

TFJOB_INLINE std::string quote(const std::string& s) {
  std::string q = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') q += '\\';
    if (c == '\n') {
      q += "\\n";
      continue;
    }
    q += c;
  }
  return q + "\"";
}

}  // namespace detail

TFJOB_INLINE ModelEntry parse_model_flag(const std::string& text) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    throw detail::invalid_setting(setting::model_config_models,
                                  " \"" + text + "\" " + (eq == std::string::npos ? "has no '='" : eq == 0 ? "has no NAME" : "has no SOURCE") +
                                      "; give NAME=SOURCE, e.g. mnist=pvc:tfjob-mnist:export/mnist, resnet=resnet or "
                                      "clf=https://host/model.tar.gz");
  ModelEntry e;
  e.name = text.substr(0, eq);
  detail::check_model_name(e.name, " \"" + text + "\"");
  e.base_path = "/models/" + e.name;
  const std::string src = text.substr(eq + 1);
  if (src == "resnet") {
    e.source.kind = ModelSource::Kind::resnet;
    e.source.url = resnet_model_url;
  } else if (src.rfind("http://", 0) == 0 || src.rfind("https://", 0) == 0 || src.rfind("gs://", 0) == 0) {
    e.source.kind = ModelSource::Kind::url;
    e.source.url = src;
    detail::refuse_gs_url(setting::model_config_models, src);
  } else if (src.rfind("secret:", 0) == 0) {  // a URL with credentials, from a Secret
    e.source = parse_url_secret(src.substr(7));
  } else if (src.rfind("pvc:", 0) == 0) {
    e.source = parse_pvc(src.substr(4));
    if (e.source.path.empty() && src.find(':', 4) == std::string::npos) e.source.path = e.name;
  } else {
    throw detail::invalid_setting(setting::model_config_models, " \"" + text + "\": SOURCE \"" + src +
                                  "\" is none of resnet, an http(s):// SavedModel tarball, or pvc:CLAIM[:PATH] (or "
                                  "secret:SECRET[:KEY], a Secret holding the URL)");
  }
  return e;
}

TFJOB_INLINE std::pair<std::string, VersionPolicy> parse_version_policy_flag(const std::string& text) {
  std::string model, p = text;
  if (auto eq = text.find('='); eq != std::string::npos) {
    model = text.substr(0, eq);
    p = text.substr(eq + 1);
  }
  const std::string said = " \"" + text + "\": ";
  const std::string right = "; give [MODEL=]latest:N, all or specific:V[,V...] (TF Serving's model_version_policy), e.g. mnist=latest:2";
  VersionPolicy vp;
  if (p == "all") {
    vp.kind = VersionPolicy::Kind::all;
  } else if (p == "latest" || p.rfind("latest:", 0) == 0) {
    vp.kind = VersionPolicy::Kind::latest;
    if (p != "latest") {
      auto n = detail::parse_version_number(p.substr(7));
      if (!n || *n < 1) throw detail::invalid_setting(setting::model_entry_policy, said + "N is not a whole number from 1 to 2^63-1" + right);
      vp.num_versions = *n;
    }
  } else if (p.rfind("specific:", 0) == 0) {
    vp.kind = VersionPolicy::Kind::specific;
    std::string rest = p.substr(9);
    std::size_t start = 0;
    while (start <= rest.size()) {
      auto comma = rest.find(',', start);
      std::string v = rest.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      auto n = detail::parse_version_number(v);
      if (!n) throw detail::invalid_setting(setting::model_entry_policy, said + "\"" + v + "\" is not a version number" + right);
      vp.versions.push_back(*n);
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  } else {
    throw detail::invalid_setting(setting::model_entry_policy,
                                  (model.empty() ? " " : said) + "\"" + p + "\" is not a version policy" + right);
  }
  return {model, vp};
}

TFJOB_INLINE LabelAssignment parse_label_assignment(const std::string& text, const std::string& flag) {
  LabelAssignment a;
  const std::string said = flag + " \"" + text + "\": ", right = "; give LABEL=VERSION, e.g. stable=1 or canary=2";
  auto eq = text.find('=');
  if (eq == std::string::npos) throw tfjob::error(said + "no '='" + right);
  std::string left = text.substr(0, eq);
  if (auto colon = left.find(':'); colon != std::string::npos) {
    a.model = left.substr(0, colon);
    left = left.substr(colon + 1);
  }
  a.label = left;
  // TF Serving's REST path takes a label as /labels/([^/:]+); keep it a plain word.
  if (a.label.empty()) throw tfjob::error(said + "LABEL is empty" + right);
  if (a.label.size() > 63) throw tfjob::error(said + "LABEL is longer than 63 characters" + right);
  for (char c : a.label)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_'))
      throw tfjob::error(said + "LABEL has a character other than letters, digits, '-' and '_'" + right);
  auto v = detail::parse_version_number(text.substr(eq + 1));
  if (!v || *v < 1) throw tfjob::error(said + "VERSION is not a model version number" + right);
  a.version = *v;
  return a;
}

TFJOB_INLINE std::string render_model_config(const ModelServerConfig& c) {
  std::string t = "model_config_list {\n";
  for (const auto& m : c.models) {
    t += "  config {\n";
    t += "    name: " + detail::quote(m.name) + "\n";
    t += "    base_path: " + detail::quote(m.base_path) + "\n";
    t += "    model_platform: \"tensorflow\"\n";
    t += "    model_version_policy {\n";
    if (m.policy.kind == VersionPolicy::Kind::all) {
      t += "      all {\n      }\n";
    } else if (m.policy.kind == VersionPolicy::Kind::latest) {
      t += "      latest {\n        num_versions: " + std::to_string(m.policy.num_versions) + "\n      }\n";
    } else {
      t += "      specific {\n";
      for (auto v : m.policy.versions) t += "        versions: " + std::to_string(v) + "\n";
      t += "      }\n";
    }
    t += "    }\n";
    for (const auto& [k, v] : m.labels)
      t += "    version_labels {\n      key: " + detail::quote(k) + "\n      value: " + std::to_string(v) + "\n    }\n";
    t += "  }\n";
  }
  return t + "}\n";
}

TFJOB_INLINE void set_version_label(ModelServerConfig& c, const std::string& model, const std::string& label, std::int64_t version) {
  ModelEntry* m = c.find(model);
  if (!m) {
    std::string names;
    for (const auto& x : c.models) names += (names.empty() ? "" : ", ") + x.name;
    throw tfjob::error("model \"" + model + "\" is not served by this server (it serves: " + names + ")");
  }
  m->labels[label] = version;
}

TFJOB_INLINE void validate(const ModelServerConfig& c) {
  if (c.models.empty())
    throw tfjob::error(reasons::invalid_setting, "no model: give one (" + setting::model_config_models + " NAME=SOURCE, repeatable)", "",
                       setting::model_config_models);
  for (std::size_t i = 0; i < c.models.size(); ++i) {
    const auto& m = c.models[i];
    detail::check_model_name(m.name, " " + m.name);
    for (std::size_t j = 0; j < i; ++j)
      if (c.models[j].name == m.name)
        throw detail::invalid_setting(setting::model_config_models, " " + m.name + " is given twice: each model needs its own NAME");
    if (m.source.kind == ModelSource::Kind::none) throw detail::invalid_setting(setting::model_config_models, " " + m.name + " has no SOURCE");
    detail::check_model_url(m.source);
    if (m.policy.kind == VersionPolicy::Kind::specific && m.policy.versions.empty())
      throw detail::invalid_setting(setting::model_entry_policy, " " + m.name + "=specific: name at least one version");
    for (const auto& [label, v] : m.labels)
      if (m.policy.kind == VersionPolicy::Kind::specific &&
          std::find(m.policy.versions.begin(), m.policy.versions.end(), v) == m.policy.versions.end())
        throw detail::invalid_setting(setting::model_entry_labels, " " + m.name + ":" + label + "=" + std::to_string(v) + ": version " +
                                      std::to_string(v) + " is not among the versions its policy serves (" + m.policy.text() +
                                      "); TF Serving only lets a label name an AVAILABLE version");
  }
}

TFJOB_INLINE nlohmann::json build_model_config_map(const ServeSpec& s, const ModelServerConfig& c) {
  nlohmann::json labels = selector_labels(s.name);
  labels[keys::managed_by] = "kubectl-tfjob";
  nlohmann::json meta = {{"name", model_config_map_name(s.name)}, {"labels", labels}};
  if (!s.namespace_.empty()) meta["namespace"] = s.namespace_;
  return {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", meta}, {"data", {{model_config_key, render_model_config(c)}}}};
}

TFJOB_INLINE std::vector<nlohmann::json> build_model_config_objects(ServeSpec s, const ModelServerConfig& c,
                                                                    int poll_seconds) {
  using nlohmann::json;
  validate(c);
  if (poll_seconds < 0)
    throw detail::invalid_setting(setting::model_config_poll, " must be 0 (never re-read) or more seconds");
  s.model_name = c.models.front().name;
  s.source = c.models.front().source;
  const ServeOperations ops = s.ops;  // batching, monitoring, autoscaling: added once the pod has its model config
  s.ops = {};
  auto objs = build_objects(s);  // the Deployment, then the Service
  std::string names, sources;
  for (const auto& m : c.models) {
    names += (names.empty() ? "" : ",") + m.name;
    sources += (sources.empty() ? "" : ",") + m.name + "=" + describe_source(m.source);
  }
  for (auto& o : objs) {
    auto& ann = o["metadata"]["annotations"];
    ann[keys::model] = sources;
    ann[keys::models] = names;
    ann[keys::model_config] = model_config_map_name(s.name);
  }
  json& dep = objs.front();
  json& pod = dep["spec"]["template"]["spec"];
  json& server = pod["containers"][0];
  json args = json::array({"--port=" + std::to_string(grpc_port), "--rest_api_port=" + std::to_string(rest_port),
                           std::string("--model_config_file=") + model_config_dir + "/" + model_config_key,
                           "--model_config_file_poll_wait_seconds=" + std::to_string(poll_seconds)});
  for (const auto& a : s.extra_args) args.push_back(a);
  server["args"] = args;
  json volumes = json::array({{{"name", "model-config"}, {"configMap", {{"name", model_config_map_name(s.name)}}}}});
  // A ConfigMap volume without subPath: the kubelet updates its files in place (subPath mounts never change).
  json mounts = json::array({{{"name", "model-config"}, {"mountPath", model_config_dir}, {"readOnly", true}}});
  json inits = json::array();
  // One volume per claim, however many models it holds: a kubelet does not mount the same
  // claim twice in a pod (the second volume waits for ever: "unmounted volumes=[...]").
  std::map<std::string, std::string> claim_volume;
  for (std::size_t i = 0; i < c.models.size(); ++i) {
    const auto& m = c.models[i];
    std::string vol = "model-" + std::to_string(i);
    if (m.source.kind == ModelSource::Kind::pvc) {
      auto [it, fresh] = claim_volume.emplace(m.source.claim, vol);
      vol = it->second;
      if (fresh) volumes.push_back({{"name", vol}, {"persistentVolumeClaim", {{"claimName", m.source.claim}, {"readOnly", true}}}});
    }
    json mount = {{"name", vol}, {"mountPath", m.base_path}};
    if (m.source.kind == ModelSource::Kind::pvc) {
      mount["readOnly"] = true;
      if (!m.source.path.empty()) mount["subPath"] = m.source.path;
    } else {
      volumes.push_back({{"name", vol}, {"emptyDir", json::object()}});
      inits.push_back({{"name", "fetch-" + std::to_string(i)},
                       {"image", s.fetch_image},
                       {"command", json::array({"sh", "-c", fetch_script()})},
                       {"env", [&] {
                          json env = model_url_env(m.source);  // a URL with credentials comes from a Secret
                          env.push_back({{"name", "MODEL_NAME"}, {"value", m.name}});
                          env.push_back({{"name", "MODEL_VERSION"}, {"value", std::to_string(s.model_version)}});
                          return env;
                        }()},
                       {"volumeMounts", json::array({{{"name", vol}, {"mountPath", m.base_path}}})}});
    }
    mounts.push_back(mount);
  }
  server["volumeMounts"] = mounts;
  pod["volumes"] = volumes;
  if (inits.empty()) pod.erase("initContainers");
  else pod["initContainers"] = inits;
  add_operations_to_deployment(dep, s.name, ops);
  nlohmann::json labels = selector_labels(s.name);
  labels[keys::managed_by] = "kubectl-tfjob";
  std::vector<nlohmann::json> out = {build_model_config_map(s, c)};
  if (auto cm = build_config_map(s.name, s.namespace_, labels, ops)) out.push_back(*cm);
  for (auto& o : objs) out.push_back(std::move(o));
  if (auto pdb = build_pdb(s.name, s.namespace_, labels, selector_labels(s.name), s.replicas, ops)) out.push_back(*pdb);
  if (auto hpa = build_hpa(s.name, s.namespace_, labels, ops)) out.push_back(*hpa);
  return out;
}

TFJOB_INLINE std::optional<std::string> model_config_map_of(const ObjectMeta& meta) {
  auto it = meta.annotations.find(keys::model_config);
  if (it == meta.annotations.end()) return std::nullopt;
  return it->second;
}

TFJOB_INLINE std::vector<std::string> served_models_of(const ObjectMeta& meta) {
  std::vector<std::string> out;
  auto it = meta.annotations.find(keys::models);
  if (it == meta.annotations.end()) return out;
  std::string all = it->second, cur;
  for (char ch : all + ",") {
    if (ch == ',') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += ch;
    }
  }
  return out;
}

}  // namespace tfjob::serving
