#pragma once
/// \file The connection settings a Client uses (rest.Config: server, TLS, auth, timeouts),
/// kubectl's connection flags (cli-runtime config_flags.go), the user agent, and the
/// in-cluster config (rest.InClusterConfig). Part of <tfjob/kube/config.hpp>.

#include <tfjob/detail/compiled.hpp>
#include <tfjob/detail/yaml_reader.hpp>
#include <tfjob/error.hpp>
#include <tfjob/kube/detail/tls.hpp>
#include <tfjob/kube/detail/util.hpp>
#include <tfjob/kube/config/kubeconfig.hpp>
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

}  // namespace tfjob::kube

#if TFJOB_SDK_DEFINE_KUBE
namespace tfjob::kube {

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

}  // namespace tfjob::kube
#endif  // TFJOB_SDK_DEFINE_KUBE
