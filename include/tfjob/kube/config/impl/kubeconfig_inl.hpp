#pragma once
/// \file The bodies of <tfjob/kube/config/kubeconfig.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_KUBE` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/kube/config/kubeconfig.hpp>, never this file.

namespace tfjob::kube {

TFJOB_INLINE bool Kubeconfig::empty() const { return clusters.empty() && users.empty() && contexts.empty() && current_context.empty(); }

TFJOB_INLINE std::string Kubeconfig::describe_files() const {
  if (files.empty()) return "no kubeconfig file";
  std::string s = files.size() == 1 ? "kubeconfig " : "kubeconfig files ";
  for (size_t i = 0; i < files.size(); ++i) s += (i ? ", " : "") + ("\"" + files[i] + "\"");
  return s;
}

namespace detail {

TFJOB_INLINE std::string yaml_str(const YAML::Node& n, const char* key) {
  auto v = n[key];
  if (!v || v.IsNull()) return {};
  if (!v.IsScalar()) throw std::runtime_error(std::string("\"") + key + "\" must be a string");
  return v.as<std::string>();
}

TFJOB_INLINE bool yaml_bool(const YAML::Node& n, const char* key) {
  auto v = n[key];
  if (!v || v.IsNull()) return false;
  try {
    return v.as<bool>();
  } catch (const YAML::Exception&) {
    throw std::runtime_error(std::string("\"") + key + "\" must be true or false");
  }
}

/// `key` of `n` when it is a mapping; absent or null = none; anything else is an error
/// (client-go's decoder refuses `exec: 5` or `user: [a]` the same way).
TFJOB_INLINE YAML::Node yaml_map(const YAML::Node& n, const char* key) {
  auto v = n[key];
  if (!v || v.IsNull()) return YAML::Node(YAML::NodeType::Undefined);
  if (!v.IsMap()) throw std::runtime_error(std::string("\"") + key + "\" must be a mapping, not " +
                                           (v.IsScalar() ? "\"" + v.Scalar() + "\"" : std::string("a list")));
  return v;
}

TFJOB_INLINE std::string decode_data(const std::string& b64, const std::string& what) {
  auto d = base64_decode(b64);
  if (!d) throw std::runtime_error(what + " is not valid base64");
  return *d;
}

/// Resolve a relative path against the directory of the kubeconfig that named it
/// (clientcmd ResolveLocalPaths).
TFJOB_INLINE std::string resolve_against(const std::string& path, const std::string& origin) {
  if (path.empty() || path[0] == '/' || origin.empty()) return path;
  std::string dir = ".";
  auto slash = origin.rfind('/');
  if (slash != std::string::npos) dir = origin.substr(0, slash == 0 ? 1 : slash);
  if (dir[0] != '/') {
    char cwd[4096];
    if (getcwd(cwd, sizeof cwd)) dir = dir == "." ? std::string(cwd) : std::string(cwd) + "/" + dir;
  }
  return dir == "/" ? "/" + path : dir + "/" + path;
}

/// The document's node tree, after the event-level bounds and strictness checks (size, depth,
/// alias expansion, UTF-8, unterminated quotes, which yaml-cpp alone accepts).
TFJOB_INLINE YAML::Node load_kubeconfig_yaml(const std::string& text, const std::string& where) {
  try {
    tfjob::detail::YamlLimits lim;
    lim.max_bytes = limits::max_kubeconfig_bytes;
    tfjob::detail::read_yaml_documents(text, "yaml", lim);
    return YAML::Load(text);
  } catch (const parse_error& e) {
    std::string why = e.what();
    if (why.rfind("yaml: ", 0) == 0) why = why.substr(6);
    throw config_error("error loading " + where + ": yaml: " + why);
  } catch (const YAML::Exception& e) {
    throw config_error("error loading " + where + ": yaml: line " + std::to_string(e.mark.line + 1) +
                       ": " + e.msg);
  }
}

/// A `clusters[].cluster` entry (clientcmd api/v1 Cluster).
TFJOB_INLINE ClusterInfo parse_cluster(const YAML::Node& n, const std::string& filename) {
  ClusterInfo ci;
  if (n) {
    ci.server = yaml_str(n, "server");
    ci.tls_server_name = yaml_str(n, "tls-server-name");
    ci.certificate_authority = resolve_against(yaml_str(n, "certificate-authority"), filename);
    auto data = yaml_str(n, "certificate-authority-data");
    if (!data.empty()) ci.certificate_authority_data = decode_data(data, "certificate-authority-data");
    ci.insecure_skip_tls_verify = yaml_bool(n, "insecure-skip-tls-verify");
    ci.proxy_url = yaml_str(n, "proxy-url");
  }
  ci.location_of_origin = filename;
  return ci;
}

/// A user's `exec` credential plugin (clientcmd api/v1 ExecConfig).
TFJOB_INLINE ExecConfig parse_exec(const YAML::Node& ex, const std::string& filename) {
  ExecConfig e;
  e.command = yaml_str(ex, "command");
  // Only a command with a path separator is resolved; PATH lookups stay as they are.
  if (e.command.find('/') != std::string::npos) e.command = resolve_against(e.command, filename);
  if (auto a = ex["args"]; a && a.IsSequence())
    for (const auto& x : a) e.args.push_back(x.as<std::string>());
  if (auto en = ex["env"]; en && en.IsSequence())
    for (const auto& x : en) e.env.emplace_back(yaml_str(x, "name"), yaml_str(x, "value"));
  e.api_version = yaml_str(ex, "apiVersion");
  e.install_hint = yaml_str(ex, "installHint");
  e.provide_cluster_info = yaml_bool(ex, "provideClusterInfo");
  e.interactive_mode = yaml_str(ex, "interactiveMode");
  return e;
}

/// A `users[].user` entry (clientcmd api/v1 AuthInfo).
TFJOB_INLINE AuthInfo parse_user(const YAML::Node& n, const std::string& filename) {
  AuthInfo ai;
  if (n) {
    ai.client_certificate = resolve_against(yaml_str(n, "client-certificate"), filename);
    ai.client_key = resolve_against(yaml_str(n, "client-key"), filename);
    auto cd = yaml_str(n, "client-certificate-data");
    if (!cd.empty()) ai.client_certificate_data = decode_data(cd, "client-certificate-data");
    auto kd = yaml_str(n, "client-key-data");
    if (!kd.empty()) ai.client_key_data = decode_data(kd, "client-key-data");
    ai.token = yaml_str(n, "token");
    ai.token_file = resolve_against(yaml_str(n, "tokenFile"), filename);
    ai.username = yaml_str(n, "username");
    ai.password = yaml_str(n, "password");
    if (auto ap = yaml_map(n, "auth-provider")) {
      ai.auth_provider = yaml_str(ap, "name");
      if (auto cfg = ap["config"]; cfg && cfg.IsMap())
        for (const auto& kv : cfg) ai.auth_provider_config[kv.first.as<std::string>()] = kv.second.as<std::string>("");
    }
    if (auto ex = yaml_map(n, "exec")) ai.exec = parse_exec(ex, filename);
  }
  ai.location_of_origin = filename;
  return ai;
}

/// A `contexts[].context` entry (clientcmd api/v1 Context).
TFJOB_INLINE ContextInfo parse_context(const YAML::Node& n, const std::string& filename) {
  ContextInfo ci;
  if (n) {
    ci.cluster = yaml_str(n, "cluster");
    ci.user = yaml_str(n, "user");
    ci.namespace_ = yaml_str(n, "namespace");
  }
  ci.location_of_origin = filename;
  return ci;
}

/// A top-level list (`clusters`, `users`, `contexts`): absent and null are empty lists.
TFJOB_INLINE YAML::Node yaml_list(const YAML::Node& root, const char* key) {
  auto n = root[key];
  if (n && !n.IsNull() && !n.IsSequence()) throw std::runtime_error(std::string("\"") + key + "\" must be a list");
  return n;
}

}  // namespace detail

TFJOB_INLINE Kubeconfig parse_kubeconfig(const std::string& text, const std::string& filename) {
  using namespace detail;
  const std::string where = filename.empty() ? std::string("kubeconfig") : "config file \"" + filename + "\"";
  Kubeconfig kc;
  if (!filename.empty()) kc.files.push_back(filename);
  YAML::Node root = load_kubeconfig_yaml(text, where);
  if (!root || root.IsNull()) return kc;  // an empty file is an empty config (as client-go)
  if (!root.IsMap()) throw config_error("error loading " + where + ": not a kubeconfig (expected a mapping)");
  std::string entry;  // named in an error: which entry it is in
  try {
    kc.current_context = yaml_str(root, "current-context");
    for (const auto& c : yaml_list(root, "clusters")) {
      std::string name = yaml_str(c, "name");
      entry = "cluster \"" + name + "\": ";
      kc.clusters.emplace(name, parse_cluster(yaml_map(c, "cluster"), filename));
    }
    for (const auto& u : yaml_list(root, "users")) {
      std::string name = yaml_str(u, "name");
      entry = "user \"" + name + "\": ";
      kc.users.emplace(name, parse_user(yaml_map(u, "user"), filename));
    }
    for (const auto& c : yaml_list(root, "contexts")) {
      std::string name = yaml_str(c, "name");
      entry = "context \"" + name + "\": ";
      kc.contexts.emplace(name, parse_context(yaml_map(c, "context"), filename));
    }
  } catch (const config_error&) {
    throw;
  } catch (const std::exception& e) {
    throw config_error("error loading " + where + ": " + entry + e.what());
  }
  return kc;
}

TFJOB_INLINE LoadingRules LoadingRules::from_environment(const std::string& explicit_path) {
  LoadingRules r;
  r.explicit_path = explicit_path;
  const char* env = std::getenv("KUBECONFIG");
  if (env && *env) {
    std::set<std::string> seen;
    std::string s = env;
    size_t start = 0;
    while (start <= s.size()) {
      auto end = s.find(':', start);
      if (end == std::string::npos) end = s.size();
      std::string p = s.substr(start, end - start);
      if (!p.empty() && seen.insert(p).second) r.precedence.push_back(p);
      start = end + 1;
    }
  } else if (const char* home = std::getenv("HOME"); home && *home) {
    r.precedence.push_back(std::string(home) + "/.kube/config");
  }
  return r;
}

TFJOB_INLINE Kubeconfig LoadingRules::load() const {
  std::vector<std::string> files;
  if (!explicit_path.empty()) {
    struct stat st {};
    if (::stat(explicit_path.c_str(), &st) != 0)
      throw config_error(reasons::kubeconfig_missing, "the kubeconfig file \"" + explicit_path + "\" does not exist",
                         " (" + setting::kubeconfig_path + ")");
    files.push_back(explicit_path);
  } else {
    files = precedence;
  }
  Kubeconfig merged;
  std::vector<std::string> errors;
  for (const auto& f : files) {
    struct stat st {};
    if (::stat(f.c_str(), &st) != 0 && errno == ENOENT) {
      merged.missing.push_back(f);
      continue;
    }
    Kubeconfig one;
    try {
      one = parse_kubeconfig(detail::read_file(f, "kubeconfig file"), f);
    } catch (const config_error& e) {
      errors.push_back(e.what());
      continue;
    }
    merged.files.push_back(f);
    for (auto& [k, v] : one.clusters) merged.clusters.emplace(k, v);
    for (auto& [k, v] : one.users) merged.users.emplace(k, v);
    for (auto& [k, v] : one.contexts) merged.contexts.emplace(k, v);
    if (merged.current_context.empty()) merged.current_context = one.current_context;
  }
  if (!errors.empty()) {
    std::string s;
    for (const auto& e : errors) s += (s.empty() ? "" : "\n") + e;
    throw config_error(s);
  }
  return merged;
}

}  // namespace tfjob::kube
