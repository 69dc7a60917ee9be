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
  /// (the SDK writes to no stream of its own). Unset: nothing is logged. Requests sent at
  /// once (kube::for_each_bounded: a submit of many jobs, a job's lists) call it from
  /// several threads: it must be safe to call so (a lock around the write).
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
#include <tfjob/kube/config/impl/rest_config_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_KUBE
