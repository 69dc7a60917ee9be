#pragma once
/// \file Loading connection settings the way kubectl does: kubeconfig files merged by
/// client-go's `clientcmd` rules (tools/clientcmd/loader.go), kubectl's flag overrides
/// (cli-runtime config_flags.go, clientcmd/client_config.go), and the in-cluster fallback
/// (rest.InClusterConfig). Loading config is separate from using it (`Client`).

#include <tfjob/detail/yaml_reader.hpp>
#include <tfjob/error.hpp>
#include <tfjob/kube/detail/tls.hpp>
#include <tfjob/kube/detail/util.hpp>
#include <tfjob/version.hpp>

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
  bool empty() const { return clusters.empty() && users.empty() && contexts.empty() && current_context.empty(); }
  /// "file" or "files a, b" for messages.
  std::string describe_files() const {
    if (files.empty()) return "no kubeconfig file";
    std::string s = files.size() == 1 ? "kubeconfig " : "kubeconfig files ";
    for (size_t i = 0; i < files.size(); ++i) s += (i ? ", " : "") + ("\"" + files[i] + "\"");
    return s;
  }
};

namespace detail {

inline std::string yaml_str(const YAML::Node& n, const char* key) {
  auto v = n[key];
  if (!v || v.IsNull()) return {};
  if (!v.IsScalar()) throw std::runtime_error(std::string("\"") + key + "\" must be a string");
  return v.as<std::string>();
}

inline bool yaml_bool(const YAML::Node& n, const char* key) {
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
inline YAML::Node yaml_map(const YAML::Node& n, const char* key) {
  auto v = n[key];
  if (!v || v.IsNull()) return YAML::Node(YAML::NodeType::Undefined);
  if (!v.IsMap()) throw std::runtime_error(std::string("\"") + key + "\" must be a mapping, not " +
                                           (v.IsScalar() ? "\"" + v.Scalar() + "\"" : std::string("a list")));
  return v;
}

inline std::string decode_data(const std::string& b64, const std::string& what) {
  auto d = base64_decode(b64);
  if (!d) throw std::runtime_error(what + " is not valid base64");
  return *d;
}

/// Resolve a relative path against the directory of the kubeconfig that named it
/// (clientcmd ResolveLocalPaths).
inline std::string resolve_against(const std::string& path, const std::string& origin) {
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

}  // namespace detail

/// Parse one kubeconfig document. `filename` is recorded as every entry's origin and named
/// in errors; relative file references are resolved against it.
inline Kubeconfig parse_kubeconfig(const std::string& text, const std::string& filename = "") {
  using namespace detail;
  const std::string where = filename.empty() ? std::string("kubeconfig") : "config file \"" + filename + "\"";
  Kubeconfig kc;
  if (!filename.empty()) kc.files.push_back(filename);
  YAML::Node root;
  try {
    // Bounds and strictness first, on the parser's events (size, depth, alias expansion,
    // UTF-8, unterminated quotes, which yaml-cpp alone accepts); then the node tree.
    tfjob::detail::YamlLimits lim;
    lim.max_bytes = limits::max_kubeconfig_bytes;
    tfjob::detail::read_yaml_documents(text, "yaml", lim);
    root = YAML::Load(text);
  } catch (const parse_error& e) {
    std::string why = e.what();
    if (why.rfind("yaml: ", 0) == 0) why = why.substr(6);
    throw config_error("error loading " + where + ": yaml: " + why);
  } catch (const YAML::Exception& e) {
    throw config_error("error loading " + where + ": yaml: line " + std::to_string(e.mark.line + 1) +
                       ": " + e.msg);
  }
  if (!root || root.IsNull()) return kc;  // an empty file is an empty config (as client-go)
  if (!root.IsMap()) throw config_error("error loading " + where + ": not a kubeconfig (expected a mapping)");
  std::string entry;
  try {
    kc.current_context = yaml_str(root, "current-context");
    auto list = [&](const char* key) {
      auto n = root[key];
      if (n && !n.IsNull() && !n.IsSequence()) throw std::runtime_error(std::string("\"") + key + "\" must be a list");
      return n;
    };
    for (const auto& c : list("clusters")) {
      std::string name = yaml_str(c, "name");
      entry = "cluster \"" + name + "\": ";
      ClusterInfo ci;
      auto n = yaml_map(c, "cluster");
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
      kc.clusters.emplace(name, std::move(ci));
    }
    for (const auto& u : list("users")) {
      std::string name = yaml_str(u, "name");
      entry = "user \"" + name + "\": ";
      AuthInfo ai;
      auto n = yaml_map(u, "user");
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
        if (auto ex = yaml_map(n, "exec")) {
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
          ai.exec = std::move(e);
        }
      }
      ai.location_of_origin = filename;
      kc.users.emplace(name, std::move(ai));
    }
    for (const auto& c : list("contexts")) {
      std::string name = yaml_str(c, "name");
      entry = "context \"" + name + "\": ";
      ContextInfo ci;
      auto n = yaml_map(c, "context");
      if (n) {
        ci.cluster = yaml_str(n, "cluster");
        ci.user = yaml_str(n, "user");
        ci.namespace_ = yaml_str(n, "namespace");
      }
      ci.location_of_origin = filename;
      kc.contexts.emplace(name, std::move(ci));
    }
  } catch (const config_error&) {
    throw;
  } catch (const std::exception& e) {
    throw config_error("error loading " + where + ": " + entry + e.what());
  }
  return kc;
}

/// Which kubeconfig files to read (clientcmd ClientConfigLoadingRules).
struct LoadingRules {
  std::string explicit_path;            ///< --kubeconfig: used alone, must exist
  std::vector<std::string> precedence;  ///< KUBECONFIG entries, or ~/.kube/config

  /// KUBECONFIG split on ':' (deduplicated), else `$HOME/.kube/config`.
  static LoadingRules from_environment(const std::string& explicit_path = "") {
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

  /// Read and merge (clientcmd loader.go Load): missing files in the list are skipped; for
  /// clusters, users and contexts the first file to define a name wins and the whole entry
  /// is kept; the first file that sets current-context wins.
  Kubeconfig load() const {
    std::vector<std::string> files;
    if (!explicit_path.empty()) {
      struct stat st {};
      if (::stat(explicit_path.c_str(), &st) != 0)
        throw config_error("the kubeconfig file \"" + explicit_path + "\" given with --kubeconfig does not exist");
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
  int verbosity = 0;                  ///< -v: 6 and above log each request to stderr
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
inline std::string default_user_agent(const std::string& name) {
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
  std::function<void(const std::string&)> log;  ///< default: stderr
  /// Told once per Client why it weakened or withheld something (credentials not sent
  /// over plain http://, TLS verification off); the application words it. Default: stderr.
  std::function<void(const std::string&)> warn;
  std::string context;           ///< kubeconfig context used ("" for in-cluster/flags)
  std::string source;            ///< e.g. `context "x" in kubeconfig "/path"`, for messages
  bool in_cluster = false;
};

namespace detail {

inline std::string pem_or_file(const std::string& data, const std::string& file, const std::string& what) {
  if (!data.empty()) return data;
  if (!file.empty()) return read_file(file, what + " file");
  return {};
}

inline bool file_exists(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0;
}

}  // namespace detail

/// A server URL fit to print: a password in it is replaced by "xxxxx", as Go's
/// url.URL.Redacted() does for kubectl (https://user:xxxxx@host).
inline std::string redact_url(const std::string& url) {
  auto scheme = url.find("://");
  std::size_t start = scheme == std::string::npos ? 0 : scheme + 3;
  auto end = url.find_first_of("/?#", start);
  std::string authority = url.substr(start, end == std::string::npos ? std::string::npos : end - start);
  auto at = authority.rfind('@');
  if (at == std::string::npos) return url;
  std::string userinfo = authority.substr(0, at);
  auto colon = userinfo.find(':');
  if (colon == std::string::npos) return url;
  return url.substr(0, start) + userinfo.substr(0, colon) + ":xxxxx" + url.substr(start + at);
}

/// Whether the process runs inside a pod (rest.InClusterConfig's preconditions).
inline bool in_cluster_possible(const ConfigOverrides& o = {}) {
  const char* host = std::getenv("KUBERNETES_SERVICE_HOST");
  const char* port = std::getenv("KUBERNETES_SERVICE_PORT");
  return host && *host && port && *port && detail::file_exists(o.service_account_dir + "/token");
}

/// rest.InClusterConfig: server from KUBERNETES_SERVICE_HOST/PORT, the service-account token
/// (re-read on every request), CA and namespace files.
inline RestConfig in_cluster_config(const ConfigOverrides& o = {}) {
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

/// Resolve a merged kubeconfig plus flag overrides into a RestConfig
/// (clientcmd DirectClientConfig.ClientConfig / Namespace).
inline RestConfig build_rest_config(const Kubeconfig& kc, const ConfigOverrides& o) {
  RestConfig rc;
  const std::string files = kc.describe_files();
  std::string ctx_name = !o.context.empty() ? o.context : kc.current_context;
  ContextInfo ctx;
  if (!ctx_name.empty()) {
    auto it = kc.contexts.find(ctx_name);
    if (it == kc.contexts.end()) {
      std::string msg = "context \"" + ctx_name + "\" does not exist in " + files;
      if (!kc.contexts.empty()) {
        msg += " (contexts:";
        for (const auto& [k, v] : kc.contexts) msg += " " + k;
        msg += ")";
      }
      throw config_error(msg);
    }
    ctx = it->second;
  }
  rc.context = ctx_name;
  std::string cluster_name = !o.cluster.empty() ? o.cluster : ctx.cluster;
  std::string user_name = !o.user.empty() ? o.user : ctx.user;

  ClusterInfo cluster;
  if (!cluster_name.empty()) {
    auto it = kc.clusters.find(cluster_name);
    if (it != kc.clusters.end()) {
      cluster = it->second;
    } else if (o.server.empty()) {
      throw config_error("cluster \"" + cluster_name + "\"" +
                         (ctx_name.empty() ? std::string() : " (of context \"" + ctx_name + "\")") +
                         " does not exist in " + files);
    }
  }
  AuthInfo user;
  if (!user_name.empty()) {
    auto it = kc.users.find(user_name);
    if (it != kc.users.end()) {
      user = it->second;
    } else if (!o.user.empty()) {
      throw config_error("user \"" + user_name + "\" given with --user does not exist in " + files);
    } else if (o.token.empty()) {
      throw config_error("user \"" + user_name + "\"" +
                         (ctx_name.empty() ? std::string() : " (of context \"" + ctx_name + "\")") +
                         " does not exist in " + files);
    }
  }

  // clientcmd validation.go: "specifying a root certificates file with the insecure flag
  // is not allowed" - the pair given as overrides is refused, as from a kubeconfig.
  if (o.insecure_skip_tls_verify.value_or(false) && !o.certificate_authority.empty())
    throw config_error("both a certificate authority (\"" + o.certificate_authority +
                       "\") and insecure-skip-tls-verify were given: specifying a root certificates file with the "
                       "insecure flag is not allowed; drop one of them");
  // Cluster overrides (client_config.go getCluster).
  if (!o.server.empty()) cluster.server = o.server;
  if ((o.insecure_skip_tls_verify && *o.insecure_skip_tls_verify) || !o.certificate_authority.empty()) {
    cluster.insecure_skip_tls_verify = o.insecure_skip_tls_verify.value_or(false);
    cluster.certificate_authority = o.certificate_authority;
    cluster.certificate_authority_data.clear();
  }
  if (!o.tls_server_name.empty() || !o.server.empty()) cluster.tls_server_name = o.tls_server_name;

  if (cluster.server.empty()) {
    if (kc.empty())
      throw config_error("no configuration has been provided: " +
                         (kc.missing.empty() ? std::string("no kubeconfig found")
                                             : "kubeconfig \"" + kc.missing.front() + "\" does not exist") +
                         "; set KUBECONFIG or --kubeconfig, or pass --server");
    if (ctx_name.empty())
      throw config_error("no current context is set in " + files +
                         "; pick one with --context or `kubectl config use-context NAME`");
    throw config_error("cluster \"" + cluster_name + "\" of context \"" + ctx_name + "\" has no server in " + files);
  }
  detail::parse_url(cluster.server, "server");  // validate early
  rc.server = cluster.server;
  while (!rc.server.empty() && rc.server.back() == '/') rc.server.pop_back();
  if (rc.server.find("://") == std::string::npos) rc.server = "https://" + rc.server;

  const std::string cl = "cluster \"" + cluster_name + "\"" +
                         (cluster.location_of_origin.empty() ? "" : " in \"" + cluster.location_of_origin + "\"");
  const std::string us = "user \"" + user_name + "\"" +
                         (user.location_of_origin.empty() ? "" : " in \"" + user.location_of_origin + "\"");
  rc.tls.insecure_skip_verify = cluster.insecure_skip_tls_verify;
  rc.tls.server_name = cluster.tls_server_name;
  if (!cluster.certificate_authority_data.empty()) {
    rc.tls.ca_pem = cluster.certificate_authority_data;
    rc.tls.ca_source = "certificate-authority-data of " + cl;
  } else if (!cluster.certificate_authority.empty()) {
    rc.tls.ca_pem = detail::read_file(cluster.certificate_authority, "certificate-authority of " + cl);
    rc.tls.ca_source = "certificate-authority \"" + cluster.certificate_authority + "\"";
  }
  if (!rc.tls.ca_pem.empty()) detail::parse_certificates(rc.tls.ca_pem, rc.tls.ca_source);
  if (rc.tls.insecure_skip_verify && !rc.tls.ca_pem.empty() && o.insecure_skip_tls_verify.value_or(false) == false)
    throw config_error(cl + " sets both a certificate authority and insecure-skip-tls-verify; "
                       "remove one of them");
  rc.proxy_url = cluster.proxy_url;
  if (!rc.proxy_url.empty()) detail::parse_url(rc.proxy_url, "proxy-url of " + cl);

  // User overrides (client_config.go getAuthInfo): flags replace what the file says.
  if (!o.client_certificate.empty()) { user.client_certificate = o.client_certificate; user.client_certificate_data.clear(); }
  if (!o.client_key.empty()) { user.client_key = o.client_key; user.client_key_data.clear(); }
  if (!o.token.empty()) {
    user.token = o.token;
    user.token_file.clear();
    user.exec.reset();
    user.auth_provider.clear();
  }
  rc.auth.user_name = user_name;
  rc.tls.client_cert_pem = detail::pem_or_file(user.client_certificate_data, user.client_certificate,
                                               "client-certificate of " + us);
  rc.tls.client_key_pem = detail::pem_or_file(user.client_key_data, user.client_key, "client-key of " + us);
  if (!rc.tls.client_cert_pem.empty() || !rc.tls.client_key_pem.empty()) {
    if (rc.tls.client_cert_pem.empty()) throw config_error(us + " has a client key but no client certificate");
    if (rc.tls.client_key_pem.empty()) throw config_error(us + " has a client certificate but no client key");
    detail::parse_certificates(rc.tls.client_cert_pem, "client certificate of " + us);
    detail::parse_private_key(rc.tls.client_key_pem, "client key of " + us);
  }
  rc.auth.token = user.token;
  if (rc.auth.token.empty() && !user.token_file.empty()) {
    if (!detail::file_exists(user.token_file))
      throw config_error("tokenFile \"" + user.token_file + "\" of " + us + " does not exist");
    rc.auth.token_file = user.token_file;
  }
  if (!user.auth_provider.empty()) {
    if (user.auth_provider == "gcp")
      throw config_error(us + " uses the legacy auth-provider \"gcp\", which kubectl removed in 1.26. "
                         "Install gke-gcloud-auth-plugin (gcloud components install gke-gcloud-auth-plugin) "
                         "and rerun `gcloud container clusters get-credentials CLUSTER` to get an exec-based kubeconfig");
    if (user.auth_provider == "azure")
      throw config_error(us + " uses the legacy auth-provider \"azure\", which kubectl removed in 1.26. "
                         "Install kubelogin and run `kubelogin convert-kubeconfig` to get an exec-based kubeconfig");
    if (user.auth_provider == "oidc") {
      auto it = user.auth_provider_config.find("id-token");
      if (it == user.auth_provider_config.end() || it->second.empty())
        throw config_error(us + " uses auth-provider \"oidc\" without an id-token; use an exec plugin such as "
                           "kubelogin (kubectl oidc-login) instead");
      if (rc.auth.token.empty()) rc.auth.token = it->second;
    } else {
      throw config_error(us + " uses auth-provider \"" + user.auth_provider +
                         "\", which is not supported; use a client-go exec credential plugin instead");
    }
  }
  if (user.exec && rc.auth.token.empty()) {
    if (user.exec->command.empty()) throw config_error(us + ": exec plugin has no command");
    auto& av = user.exec->api_version;
    if (av != "client.authentication.k8s.io/v1" && av != "client.authentication.k8s.io/v1beta1")
      throw config_error(us + ": exec plugin apiVersion \"" + av + "\" is not supported; use "
                         "client.authentication.k8s.io/v1 or client.authentication.k8s.io/v1beta1");
    auto& im = user.exec->interactive_mode;
    if (av == "client.authentication.k8s.io/v1" && im.empty())
      throw config_error(us + ": exec plugin interactiveMode must be specified for apiVersion "
                         "client.authentication.k8s.io/v1 (Never, IfAvailable or Always)");
    if (!im.empty() && im != "Never" && im != "IfAvailable" && im != "Always")
      throw config_error(us + ": exec plugin interactiveMode \"" + im + "\" is invalid (Never, IfAvailable or Always)");
    rc.auth.exec = user.exec;
    if (user.exec->provide_cluster_info) {
      std::string j = "{\"server\":\"" + rc.server + "\"";
      if (!rc.tls.server_name.empty()) j += ",\"tls-server-name\":\"" + rc.tls.server_name + "\"";
      if (rc.tls.insecure_skip_verify) j += ",\"insecure-skip-tls-verify\":true";
      if (!rc.tls.ca_pem.empty()) j += ",\"certificate-authority-data\":\"" + detail::base64_encode(rc.tls.ca_pem) + "\"";
      j += "}";
      rc.auth.exec_cluster_json = j;
    }
  }
  bool has_auth = !rc.auth.token.empty() || !rc.auth.token_file.empty() || rc.auth.exec ||
                  !rc.tls.client_cert_pem.empty();
  if (!has_auth && (!user.username.empty() || !user.password.empty()))
    throw config_error(us + " uses basic authentication (username/password), which Kubernetes API servers "
                       "no longer accept (removed in 1.19); use a client certificate, a bearer token "
                       "or an exec credential plugin instead");

  rc.namespace_ = !o.namespace_.empty() ? o.namespace_ : (!ctx.namespace_.empty() ? ctx.namespace_ : "default");
  rc.timeout = detail::parse_duration(o.request_timeout.empty() ? "0" : o.request_timeout, "--request-timeout");
  rc.verbosity = o.verbosity;
  rc.source = (ctx_name.empty() ? std::string("flags") : "context \"" + ctx_name + "\"") + " in " + files;
  return rc;
}

/// kubectl's whole resolution: explicit --kubeconfig or KUBECONFIG/~/.kube/config merged,
/// flags applied, and the in-cluster config when there is no kubeconfig at all.
inline RestConfig load_config(const ConfigOverrides& o = {}) {
  if (o.insecure_skip_tls_verify.value_or(false) && !o.certificate_authority.empty())
    throw config_error("both a certificate authority (\"" + o.certificate_authority +
                       "\") and insecure-skip-tls-verify were given: specifying a root certificates file with the "
                       "insecure flag is not allowed; drop one of them");
  auto rules = LoadingRules::from_environment(o.kubeconfig);
  Kubeconfig kc = rules.load();
  if (kc.empty() && o.kubeconfig.empty() && o.server.empty() && in_cluster_possible(o)) {
    RestConfig rc = in_cluster_config(o);
    rc.timeout = detail::parse_duration(o.request_timeout.empty() ? "0" : o.request_timeout, "--request-timeout");
    rc.verbosity = o.verbosity;
    if (!o.token.empty()) { rc.auth.token = o.token; rc.auth.token_file.clear(); }
    if (!o.certificate_authority.empty()) {
      rc.tls.ca_pem = detail::read_file(o.certificate_authority, "--certificate-authority");
      rc.tls.ca_source = "\"" + o.certificate_authority + "\"";
    }
    if (o.insecure_skip_tls_verify.value_or(false)) { rc.tls.insecure_skip_verify = true; rc.tls.ca_pem.clear(); }
    return rc;
  }
  return build_rest_config(kc, o);
}

}  // namespace tfjob::kube
