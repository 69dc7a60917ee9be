#pragma once
/// \file A client config from a context (clientcmd client_config.go DirectClientConfig): the
/// context, cluster and user the flags pick, the flags over them, the server and its TLS,
/// each way to authenticate; and kubectl's whole resolution (load_config). Part of
/// <tfjob/kube/config.hpp>.

#include <tfjob/detail/compiled.hpp>
#include <tfjob/detail/yaml_reader.hpp>
#include <tfjob/error.hpp>
#include <tfjob/kube/detail/tls.hpp>
#include <tfjob/kube/detail/util.hpp>
#include <tfjob/kube/config/kubeconfig.hpp>
#include <tfjob/kube/config/rest_config.hpp>
#include <tfjob/kube/config/validation.hpp>
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
#include <tfjob/kube/config/impl/client_config_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_KUBE
