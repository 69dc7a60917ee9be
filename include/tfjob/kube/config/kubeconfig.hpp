#pragma once
/// \file The kubeconfig model (clientcmd/api/types.go), its parser, and loading as client-go's
/// loader.go does: KUBECONFIG list or ~/.kube/config merged (first file to define a name
/// wins), relative paths resolved against the file that named them, an explicit file used
/// alone. Part of <tfjob/kube/config.hpp>.

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

}  // namespace tfjob::kube

#if TFJOB_SDK_DEFINE_KUBE
#include <tfjob/kube/config/impl/kubeconfig_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_KUBE
