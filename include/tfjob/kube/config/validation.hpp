#pragma once
/// \file clientcmd's validation.go rules, applied while a client config is built: a CA with
/// insecure-skip-tls-verify, an exec plugin's apiVersion and interactiveMode, basic auth as
/// the only credential. Part of <tfjob/kube/config.hpp>.

#include <tfjob/detail/compiled.hpp>
#include <tfjob/detail/yaml_reader.hpp>
#include <tfjob/error.hpp>
#include <tfjob/kube/detail/tls.hpp>
#include <tfjob/kube/detail/util.hpp>
#include <tfjob/kube/config/kubeconfig.hpp>
#include <tfjob/kube/config/rest_config.hpp>
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

/// clientcmd validation.go: "specifying a root certificates file with the insecure flag
/// is not allowed" - the pair given as overrides is refused, as from a kubeconfig.
void refuse_ca_with_insecure(const ConfigOverrides& o);

/// An exec plugin's settings, checked as client-go's (clientcmd/validation.go validateExecConfig).
void validate_exec(const ExecConfig& exec, const std::string& us);

/// Basic authentication as the only way in is refused with advice (API servers dropped it
/// in 1.19).
void refuse_basic_auth(const RestConfig& rc, const AuthInfo& user, const std::string& us);

}  // namespace detail

}  // namespace tfjob::kube

#if TFJOB_SDK_DEFINE_KUBE
#include <tfjob/kube/config/impl/validation_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_KUBE
