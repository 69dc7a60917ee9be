#pragma once
/// \file Loading connection settings the way kubectl does: kubeconfig files merged by
/// client-go's `clientcmd` rules (tools/clientcmd/loader.go), kubectl's flag overrides
/// (cli-runtime config_flags.go, clientcmd/client_config.go), and the in-cluster fallback
/// (rest.InClusterConfig). Loading config is separate from using it (`Client`).

#include <tfjob/detail/compiled.hpp>
#include <tfjob/detail/yaml_reader.hpp>
#include <tfjob/error.hpp>
#include <tfjob/kube/detail/tls.hpp>
#include <tfjob/kube/detail/util.hpp>
#include <tfjob/version.hpp>

#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace tfjob::kube {

// ---------------------------------------------------------------------------------------
// The kubeconfig model (clientcmd/api/types.go), with *-data fields already base64-decoded.

/// `users[].user.exec`: a client-go credential plugin.
struct ExecConfig {
  std::string command;                                    ///< PATH name or path
  std::vector<std::string> args;
  std::vector<std::pair<std::string, std::string>> env;  ///< added to the child's environment
  std::string api_version;  ///< client.authentication.k8s.io/v1 or v1beta1
  std::string install_hint;
  bool provide_cluster_info = false;
  std::string interactive_mode;  ///< Never, IfAvailable, Always ("" = per apiVersion default)
};

/// `clusters[].cluster`.
struct ClusterInfo {
  std::string server;
  std::string tls_server_name;
  std::string certificate_authority;       ///< file path (resolved against its kubeconfig)
  std::string certificate_authority_data;  ///< PEM (decoded)
  bool insecure_skip_tls_verify = false;
  std::string proxy_url;
  std::string location_of_origin;  ///< the kubeconfig file that defined it
};

/// `users[].user`.
struct AuthInfo {
  std::string client_certificate, client_certificate_data;  ///< path / PEM
  std::string client_key, client_key_data;                  ///< path / PEM
  std::string token, token_file;
  std::string username, password;
  std::optional<ExecConfig> exec;
  std::string auth_provider;                       ///< legacy `auth-provider.name`
  std::map<std::string, std::string> auth_provider_config;
  std::string location_of_origin;
};

/// `contexts[].context`.
struct ContextInfo {
  std::string cluster, user, namespace_;
  std::string location_of_origin;
};

/// A kubeconfig (one file, or several merged).
struct Kubeconfig {
  std::map<std::string, ClusterInfo> clusters;
  std::map<std::string, AuthInfo> users;
  std::map<std::string, ContextInfo> contexts;
  std::string current_context;
  std::vector<std::string> files;    ///< files that were read, in precedence order
  std::vector<std::string> missing;  ///< files named but absent (skipped)
  bool empty() const;
  /// "file" or "files a, b" for messages.
  std::string describe_files() const;
};

/// Parse one kubeconfig document. `filename` is recorded as every entry's origin and named
/// in errors; relative file references are resolved against it.
Kubeconfig parse_kubeconfig(const std::string& text, const std::string& filename = "");

/// Which kubeconfig files to read (clientcmd ClientConfigLoadingRules).
struct LoadingRules {
  std::string explicit_path;            ///< --kubeconfig: used alone, must exist
  std::vector<std::string> precedence;  ///< KUBECONFIG entries, or ~/.kube/config

  /// KUBECONFIG split on ':' (deduplicated), else `$HOME/.kube/config`.
  static LoadingRules from_environment(const std::string& explicit_path = "");

  /// Read and merge (clientcmd loader.go Load): missing files in the list are skipped; for
  /// clusters, users and contexts the first file to define a name wins and the whole entry
  /// is kept; the first file that sets current-context wins.
  Kubeconfig load() const;
};

// ---------------------------------------------------------------------------------------
// Flags and the resolved connection settings.

/// kubectl's connection flags (cli-runtime config_flags.go); empty = not given.
struct ConfigOverrides {
  std::string kubeconfig;  ///< explicit file, used alone
  std::string context, cluster, user, namespace_;
  std::string server, token;
  std::string certificate_authority, client_certificate, client_key, tls_server_name;
  std::optional<bool> insecure_skip_tls_verify;
  std::string request_timeout = "0";  ///< "0", "30s", "1m", "2h", or plain seconds
  int verbosity = 0;                  ///< -v: 6 and above log each request (RestConfig::log)
  /// Where the in-cluster service-account files live (tests point this elsewhere).
  std::string service_account_dir = "/var/run/secrets/kubernetes.io/serviceaccount";
};

/// TLS settings, material held in memory as PEM.
struct TlsConfig {
  std::string ca_pem;             ///< "" = the system trust store
  std::string ca_source;          ///< where ca_pem came from (for messages)
  std::string client_cert_pem;    ///< may hold a chain
  std::string client_key_pem;
  std::string server_name;        ///< tls-server-name: SNI and name to verify
  bool insecure_skip_verify = false;
};

/// How requests authenticate.
struct AuthConfig {
  std::string token;               ///< static bearer token
  std::string token_file;          ///< re-read on every request (rotating tokens)
  std::optional<ExecConfig> exec;  ///< credential plugin
  std::string exec_cluster_json;   ///< ExecCredential spec.cluster when provideClusterInfo
  std::string user_name;           ///< kubeconfig user name, for messages
};

/// `<name>/<version> (<os>/<arch>)`: client-go's DefaultKubernetesUserAgent shape
/// (rest/config.go: adjustCommand(os.Args[0])/version (GOOS/GOARCH) ...).
std::string default_user_agent(const std::string& name);

/// Everything a Client needs to talk to one API server (client-go rest.Config).
struct RestConfig {
  std::string server;            ///< https://host:port[/prefix]
  std::string namespace_ = "default";
  TlsConfig tls;
  AuthConfig auth;
  std::chrono::milliseconds timeout{0};  ///< per request, 0 = none
  std::size_t max_response_bytes = limits::max_response_bytes;  ///< bound on one buffered answer
  /// The application's name to the server; the SDK's own by default, an application sets
  /// its own (default_user_agent("kubectl-tfjob")).
  std::string user_agent = default_user_agent("tfjob-sdk");
  /// The field manager of writes whose parameters name none (server-side apply needs one);
  /// the SDK's own by default, an application sets its own.
  std::string field_manager = "tfjob-sdk";
  std::string proxy_url;         ///< explicit proxy (cluster proxy-url); else HTTPS_PROXY/NO_PROXY
  bool use_env_proxy = true;     ///< honour HTTPS_PROXY/HTTP_PROXY/NO_PROXY when proxy_url is empty
  int verbosity = 0;             ///< 6+: one line per request on the log
  /// Items per page of a list whose ListParams name no limit (kubectl --chunk-size, client-go's
  /// pager: 500); 0 = whole lists at once.
  int chunk_size = 500;
  /// Where the -v lines go, one line per call without '\n'; the application supplies it
  /// (the SDK writes to no stream of its own). Unset: nothing is logged.
  std::function<void(const std::string&)> log;
  /// Told once per Client why it weakened or withheld something (credentials not sent
  /// over plain http://, TLS verification off); the application words it. Unset: not told
  /// (Client::credentials_withheld() still says why).
  std::function<void(const std::string&)> warn;
  /// Told the text of each warning the server sends (`Warning: 299 - "text"` headers, e.g.
  /// an unknown field under fieldValidation=Warn, a deprecated API), as client-go's
  /// rest.Config.WarningHandler is (rest/warnings.go: code 299 only). kubectl prints each
  /// once as `Warning: text`; the application words it. Unset: not told.
  std::function<void(const std::string&)> on_warning;
  std::string context;           ///< kubeconfig context used ("" for in-cluster/flags)
  std::string source;            ///< e.g. `context "x" in kubeconfig "/path"`, for messages
  bool in_cluster = false;
};


/// Whether the process runs inside a pod (rest.InClusterConfig's preconditions).
bool in_cluster_possible(const ConfigOverrides& o = {});

/// rest.InClusterConfig: server from KUBERNETES_SERVICE_HOST/PORT, the service-account token
/// (re-read on every request), CA and namespace files.
RestConfig in_cluster_config(const ConfigOverrides& o = {});

namespace detail {

/// The kubeconfig entries that the context and the flags pick, with their names for
/// messages (clientcmd DirectClientConfig getContext/getCluster/getAuthInfo).
struct SelectedEntries {
  std::string context_name, cluster_name, user_name;
  ContextInfo context;
  ClusterInfo cluster;
  AuthInfo user;
};

/// ExecCredential spec.cluster for provideClusterInfo: the server and its TLS settings.
std::string exec_cluster_json(const RestConfig& rc);

}  // namespace detail

/// Resolve a merged kubeconfig plus flag overrides into a RestConfig
/// (clientcmd DirectClientConfig.ClientConfig / Namespace), in clientcmd's order: the
/// entries, the flags over them, the server and its TLS, then each way to authenticate.
RestConfig build_rest_config(const Kubeconfig& kc, const ConfigOverrides& o);

/// kubectl's whole resolution: explicit --kubeconfig or KUBECONFIG/~/.kube/config merged,
/// flags applied, and the in-cluster config when there is no kubeconfig at all.
RestConfig load_config(const ConfigOverrides& o = {});

}  // namespace tfjob::kube

#if TFJOB_SDK_DEFINE_KUBE
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

TFJOB_INLINE std::string default_user_agent(const std::string& name) {
#if defined(__linux__)
  const char* os = "linux";
#elif defined(__APPLE__)
  const char* os = "darwin";
#else
  const char* os = "unknown";
#endif
#if defined(__x86_64__)
  const char* arch = "amd64";
#elif defined(__aarch64__)
  const char* arch = "arm64";
#else
  const char* arch = "unknown";
#endif
  return name + "/" + tfjob::version + " (" + os + "/" + arch + ")";
}

namespace detail {

TFJOB_INLINE std::string pem_or_file(const std::string& data, const std::string& file, const std::string& what) {
  if (!data.empty()) return data;
  if (!file.empty()) return read_file(file, what + " file");
  return {};
}

TFJOB_INLINE bool file_exists(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0;
}

}  // namespace detail

TFJOB_INLINE bool in_cluster_possible(const ConfigOverrides& o) {
  const char* host = std::getenv("KUBERNETES_SERVICE_HOST");
  const char* port = std::getenv("KUBERNETES_SERVICE_PORT");
  return host && *host && port && *port && detail::file_exists(o.service_account_dir + "/token");
}

TFJOB_INLINE RestConfig in_cluster_config(const ConfigOverrides& o) {
  const char* host = std::getenv("KUBERNETES_SERVICE_HOST");
  const char* port = std::getenv("KUBERNETES_SERVICE_PORT");
  if (!host || !*host || !port || !*port)
    throw config_error("unable to load in-cluster configuration: KUBERNETES_SERVICE_HOST and "
                       "KUBERNETES_SERVICE_PORT must be defined");
  RestConfig rc;
  std::string h = host;
  if (h.find(':') != std::string::npos) h = "[" + h + "]";
  rc.server = "https://" + h + ":" + port;
  const std::string& dir = o.service_account_dir;
  if (!detail::file_exists(dir + "/token"))
    throw config_error("unable to load in-cluster configuration: no service-account token at \"" + dir + "/token\"");
  rc.auth.token_file = dir + "/token";
  rc.auth.user_name = "service account";
  if (detail::file_exists(dir + "/ca.crt")) {
    rc.tls.ca_pem = detail::read_file(dir + "/ca.crt", "service-account CA");
    rc.tls.ca_source = "\"" + dir + "/ca.crt\"";
    detail::parse_certificates(rc.tls.ca_pem, "service-account CA \"" + dir + "/ca.crt\"");
  }
  if (!o.namespace_.empty()) {
    rc.namespace_ = o.namespace_;
  } else if (detail::file_exists(dir + "/namespace")) {
    auto ns = detail::trim(detail::read_file(dir + "/namespace", "service-account namespace"));
    if (!ns.empty()) rc.namespace_ = ns;
  }
  rc.in_cluster = true;
  rc.source = "in-cluster service account";
  return rc;
}

namespace detail {

/// ` (of context "NAME")`, or "" when no context is used.
TFJOB_INLINE std::string of_context(const std::string& context_name) {
  return context_name.empty() ? std::string() : " (of context \"" + context_name + "\")";
}

/// The context named by --context or current-context (none when neither names one).
TFJOB_INLINE ContextInfo find_context(const Kubeconfig& kc, const std::string& name, const std::string& files) {
  if (name.empty()) return {};
  auto it = kc.contexts.find(name);
  if (it != kc.contexts.end()) return it->second;
  std::string msg = "context \"" + name + "\" does not exist in " + files;
  if (!kc.contexts.empty()) {
    msg += " (contexts:";
    for (const auto& [k, v] : kc.contexts) msg += " " + k;
    msg += ")";
  }
  throw config_error(msg);
}

/// The selected cluster; one that is not there is an error unless --server replaces it.
TFJOB_INLINE ClusterInfo find_cluster(const Kubeconfig& kc, const SelectedEntries& s, const ConfigOverrides& o,
                                      const std::string& files) {
  if (s.cluster_name.empty()) return {};
  auto it = kc.clusters.find(s.cluster_name);
  if (it != kc.clusters.end()) return it->second;
  if (!o.server.empty()) return {};
  throw config_error("cluster \"" + s.cluster_name + "\"" + of_context(s.context_name) + " does not exist in " + files);
}

/// The selected user; one that is not there is an error unless --token replaces it (a user
/// named with --user must exist).
TFJOB_INLINE AuthInfo find_user(const Kubeconfig& kc, const SelectedEntries& s, const ConfigOverrides& o,
                                const std::string& files) {
  if (s.user_name.empty()) return {};
  auto it = kc.users.find(s.user_name);
  if (it != kc.users.end()) return it->second;
  if (!o.user.empty())
    throw config_error(reasons::user_not_found, "user \"" + s.user_name + "\" does not exist in " + files,
                       " (" + setting::config_user + ")");
  if (!o.token.empty()) return {};
  throw config_error("user \"" + s.user_name + "\"" + of_context(s.context_name) + " does not exist in " + files);
}

/// Context, cluster and user: each flag first, then what the context names.
TFJOB_INLINE SelectedEntries select_entries(const Kubeconfig& kc, const ConfigOverrides& o, const std::string& files) {
  SelectedEntries s;
  s.context_name = !o.context.empty() ? o.context : kc.current_context;
  s.context = find_context(kc, s.context_name, files);
  s.cluster_name = !o.cluster.empty() ? o.cluster : s.context.cluster;
  s.user_name = !o.user.empty() ? o.user : s.context.user;
  s.cluster = find_cluster(kc, s, o, files);
  s.user = find_user(kc, s, o, files);
  return s;
}

/// clientcmd validation.go: "specifying a root certificates file with the insecure flag
/// is not allowed" - the pair given as overrides is refused, as from a kubeconfig.
TFJOB_INLINE void refuse_ca_with_insecure(const ConfigOverrides& o) {
  if (o.insecure_skip_tls_verify.value_or(false) && !o.certificate_authority.empty())
    throw config_error("both a certificate authority (\"" + o.certificate_authority +
                       "\") and insecure-skip-tls-verify were given: specifying a root certificates file with the "
                       "insecure flag is not allowed; drop one of them");
}

/// Cluster overrides (client_config.go getCluster): flags replace what the file says.
TFJOB_INLINE void apply_cluster_flags(ClusterInfo& cluster, const ConfigOverrides& o) {
  if (!o.server.empty()) cluster.server = o.server;
  if ((o.insecure_skip_tls_verify && *o.insecure_skip_tls_verify) || !o.certificate_authority.empty()) {
    cluster.insecure_skip_tls_verify = o.insecure_skip_tls_verify.value_or(false);
    cluster.certificate_authority = o.certificate_authority;
    cluster.certificate_authority_data.clear();
  }
  if (!o.tls_server_name.empty() || !o.server.empty()) cluster.tls_server_name = o.tls_server_name;
}

/// The selected cluster's server, validated, without a trailing '/', https:// when it names
/// no scheme; when there is none, the error says why.
TFJOB_INLINE std::string server_url(const Kubeconfig& kc, const SelectedEntries& s, const std::string& files) {
  if (s.cluster.server.empty()) {
    if (kc.empty())
      throw config_error(reasons::no_configuration,
                         "no configuration has been provided: " +
                             (kc.missing.empty() ? std::string("no kubeconfig found")
                                                 : "kubeconfig \"" + kc.missing.front() + "\" does not exist"),
                         "; set KUBECONFIG or " + setting::kubeconfig_path + ", or " + setting::config_server);
    if (s.context_name.empty())
      throw config_error(reasons::no_current_context, "no current context is set in " + files,
                         "; pick one with " + setting::config_context + " or `kubectl config use-context NAME`");
    throw config_error("cluster \"" + s.cluster_name + "\" of context \"" + s.context_name + "\" has no server in " +
                       files);
  }
  parse_url(s.cluster.server, "server");  // validate early
  std::string server = s.cluster.server;
  while (!server.empty() && server.back() == '/') server.pop_back();
  if (server.find("://") == std::string::npos) server = "https://" + server;
  return server;
}

/// `cluster "NAME" in "FILE"` or `user "NAME" in "FILE"`, for messages.
TFJOB_INLINE std::string entry_label(const std::string& kind, const std::string& name, const std::string& origin) {
  return kind + " \"" + name + "\"" + (origin.empty() ? "" : " in \"" + origin + "\"");
}

/// The cluster's TLS: CA (data, else file; parsed in memory), insecure, server name. A
/// kubeconfig that sets both a CA and insecure is refused, unless --insecure-skip-tls-verify.
TFJOB_INLINE void resolve_cluster_tls(TlsConfig& tls, const ClusterInfo& cluster, const std::string& cl,
                                      const ConfigOverrides& o) {
  tls.insecure_skip_verify = cluster.insecure_skip_tls_verify;
  tls.server_name = cluster.tls_server_name;
  if (!cluster.certificate_authority_data.empty()) {
    tls.ca_pem = cluster.certificate_authority_data;
    tls.ca_source = "certificate-authority-data of " + cl;
  } else if (!cluster.certificate_authority.empty()) {
    tls.ca_pem = read_file(cluster.certificate_authority, "certificate-authority of " + cl);
    tls.ca_source = "certificate-authority \"" + cluster.certificate_authority + "\"";
  }
  if (!tls.ca_pem.empty()) parse_certificates(tls.ca_pem, tls.ca_source);
  if (tls.insecure_skip_verify && !tls.ca_pem.empty() && !o.insecure_skip_tls_verify.value_or(false))
    throw config_error(cl + " sets both a certificate authority and insecure-skip-tls-verify; "
                       "remove one of them");
}

/// User overrides (client_config.go getAuthInfo): flags replace what the file says; a
/// --token replaces every other way the user had to get one.
TFJOB_INLINE void apply_user_flags(AuthInfo& user, const ConfigOverrides& o) {
  if (!o.client_certificate.empty()) {
    user.client_certificate = o.client_certificate;
    user.client_certificate_data.clear();
  }
  if (!o.client_key.empty()) {
    user.client_key = o.client_key;
    user.client_key_data.clear();
  }
  if (!o.token.empty()) {
    user.token = o.token;
    user.token_file.clear();
    user.exec.reset();
    user.auth_provider.clear();
  }
}

/// The client certificate and key (data, else file): both or neither, parsed in memory.
TFJOB_INLINE void resolve_client_certificate(TlsConfig& tls, const AuthInfo& user, const std::string& us) {
  tls.client_cert_pem =
      pem_or_file(user.client_certificate_data, user.client_certificate, "client-certificate of " + us);
  tls.client_key_pem = pem_or_file(user.client_key_data, user.client_key, "client-key of " + us);
  if (tls.client_cert_pem.empty() && tls.client_key_pem.empty()) return;
  if (tls.client_cert_pem.empty()) throw config_error(us + " has a client key but no client certificate");
  if (tls.client_key_pem.empty()) throw config_error(us + " has a client certificate but no client key");
  parse_certificates(tls.client_cert_pem, "client certificate of " + us);
  parse_private_key(tls.client_key_pem, "client key of " + us);
}

/// The static token, else the token file (it must exist now; re-read on every request).
TFJOB_INLINE void resolve_token(AuthConfig& auth, const AuthInfo& user, const std::string& us) {
  auth.token = user.token;
  if (!auth.token.empty() || user.token_file.empty()) return;
  if (!file_exists(user.token_file))
    throw config_error("tokenFile \"" + user.token_file + "\" of " + us + " does not exist");
  auth.token_file = user.token_file;
}

/// Legacy auth-providers (removed from kubectl in 1.26): gcp and azure are refused with
/// their exec replacement named, oidc's id-token serves as a bearer token, the rest refused.
TFJOB_INLINE void resolve_auth_provider(AuthConfig& auth, const AuthInfo& user, const std::string& us) {
  if (user.auth_provider.empty()) return;
  if (user.auth_provider == "gcp")
    throw config_error(us + " uses the legacy auth-provider \"gcp\", which kubectl removed in 1.26. "
                       "Install gke-gcloud-auth-plugin (gcloud components install gke-gcloud-auth-plugin) "
                       "and rerun `gcloud container clusters get-credentials CLUSTER` to get an exec-based kubeconfig");
  if (user.auth_provider == "azure")
    throw config_error(us + " uses the legacy auth-provider \"azure\", which kubectl removed in 1.26. "
                       "Install kubelogin and run `kubelogin convert-kubeconfig` to get an exec-based kubeconfig");
  if (user.auth_provider != "oidc")
    throw config_error(us + " uses auth-provider \"" + user.auth_provider +
                       "\", which is not supported; use a client-go exec credential plugin instead");
  auto it = user.auth_provider_config.find("id-token");
  if (it == user.auth_provider_config.end() || it->second.empty())
    throw config_error(us + " uses auth-provider \"oidc\" without an id-token; use an exec plugin such as "
                       "kubelogin (kubectl oidc-login) instead");
  if (auth.token.empty()) auth.token = it->second;
}

/// An exec plugin's settings, checked as client-go's (clientcmd/validation.go validateExecConfig).
TFJOB_INLINE void validate_exec(const ExecConfig& exec, const std::string& us) {
  if (exec.command.empty()) throw config_error(us + ": exec plugin has no command");
  const auto& av = exec.api_version;
  if (av != "client.authentication.k8s.io/v1" && av != "client.authentication.k8s.io/v1beta1")
    throw config_error(us + ": exec plugin apiVersion \"" + av + "\" is not supported; use "
                       "client.authentication.k8s.io/v1 or client.authentication.k8s.io/v1beta1");
  const auto& im = exec.interactive_mode;
  if (av == "client.authentication.k8s.io/v1" && im.empty())
    throw config_error(us + ": exec plugin interactiveMode must be specified for apiVersion "
                       "client.authentication.k8s.io/v1 (Never, IfAvailable or Always)");
  if (!im.empty() && im != "Never" && im != "IfAvailable" && im != "Always")
    throw config_error(us + ": exec plugin interactiveMode \"" + im + "\" is invalid (Never, IfAvailable or Always)");
}

TFJOB_INLINE std::string exec_cluster_json(const RestConfig& rc) {
  // client-go's clientauthentication Cluster, built by the JSON library: a '"' or '\\' in a
  // kubeconfig's server URL or name stays inside its string
  nlohmann::json j = {{"server", rc.server}};
  if (!rc.tls.server_name.empty()) j["tls-server-name"] = rc.tls.server_name;
  if (rc.tls.insecure_skip_verify) j["insecure-skip-tls-verify"] = true;
  if (!rc.tls.ca_pem.empty()) j["certificate-authority-data"] = base64_encode(rc.tls.ca_pem);
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);  // invalid UTF-8 replaced, not thrown
}

/// The exec credential plugin, used when no token came from elsewhere.
TFJOB_INLINE void resolve_exec(RestConfig& rc, const AuthInfo& user, const std::string& us) {
  if (!user.exec || !rc.auth.token.empty()) return;
  validate_exec(*user.exec, us);
  rc.auth.exec = user.exec;
  if (user.exec->provide_cluster_info) rc.auth.exec_cluster_json = exec_cluster_json(rc);
}

/// Basic authentication as the only way in is refused with advice (API servers dropped it
/// in 1.19).
TFJOB_INLINE void refuse_basic_auth(const RestConfig& rc, const AuthInfo& user, const std::string& us) {
  bool has_auth = !rc.auth.token.empty() || !rc.auth.token_file.empty() || rc.auth.exec ||
                  !rc.tls.client_cert_pem.empty();
  if (!has_auth && (!user.username.empty() || !user.password.empty()))
    throw config_error(us + " uses basic authentication (username/password), which Kubernetes API servers "
                       "no longer accept (removed in 1.19); use a client certificate, a bearer token "
                       "or an exec credential plugin instead");
}

/// --request-timeout and -v, however the rest of the RestConfig was found.
TFJOB_INLINE void apply_request_flags(RestConfig& rc, const ConfigOverrides& o) {
  rc.timeout = parse_duration(o.request_timeout.empty() ? "0" : o.request_timeout, setting::config_request_timeout);
  rc.verbosity = o.verbosity;
}

}  // namespace detail

TFJOB_INLINE RestConfig build_rest_config(const Kubeconfig& kc, const ConfigOverrides& o) {
  const std::string files = kc.describe_files();
  detail::SelectedEntries s = detail::select_entries(kc, o, files);
  detail::refuse_ca_with_insecure(o);
  detail::apply_cluster_flags(s.cluster, o);
  RestConfig rc;
  rc.context = s.context_name;
  rc.server = detail::server_url(kc, s, files);
  const std::string cl = detail::entry_label("cluster", s.cluster_name, s.cluster.location_of_origin);
  const std::string us = detail::entry_label("user", s.user_name, s.user.location_of_origin);
  detail::resolve_cluster_tls(rc.tls, s.cluster, cl, o);
  rc.proxy_url = s.cluster.proxy_url;
  if (!rc.proxy_url.empty()) detail::parse_url(rc.proxy_url, "proxy-url of " + cl);

  detail::apply_user_flags(s.user, o);
  rc.auth.user_name = s.user_name;
  detail::resolve_client_certificate(rc.tls, s.user, us);
  detail::resolve_token(rc.auth, s.user, us);
  detail::resolve_auth_provider(rc.auth, s.user, us);
  detail::resolve_exec(rc, s.user, us);
  detail::refuse_basic_auth(rc, s.user, us);

  const std::string& ctx_ns = s.context.namespace_;
  rc.namespace_ = !o.namespace_.empty() ? o.namespace_ : (!ctx_ns.empty() ? ctx_ns : "default");
  detail::apply_request_flags(rc, o);
  rc.source = (s.context_name.empty() ? std::string("flags") : "context \"" + s.context_name + "\"") + " in " + files;
  return rc;
}

TFJOB_INLINE RestConfig load_config(const ConfigOverrides& o) {
  detail::refuse_ca_with_insecure(o);
  auto rules = LoadingRules::from_environment(o.kubeconfig);
  Kubeconfig kc = rules.load();
  if (kc.empty() && o.kubeconfig.empty() && o.server.empty() && in_cluster_possible(o)) {
    RestConfig rc = in_cluster_config(o);
    detail::apply_request_flags(rc, o);
    if (!o.token.empty()) { rc.auth.token = o.token; rc.auth.token_file.clear(); }
    if (!o.certificate_authority.empty()) {
      rc.tls.ca_pem = detail::read_file(o.certificate_authority, setting::config_certificate_authority);
      rc.tls.ca_source = "\"" + o.certificate_authority + "\"";
    }
    if (o.insecure_skip_tls_verify.value_or(false)) { rc.tls.insecure_skip_verify = true; rc.tls.ca_pem.clear(); }
    return rc;
  }
  return build_rest_config(kc, o);
}

}  // namespace tfjob::kube
#endif  // TFJOB_SDK_DEFINE_KUBE
