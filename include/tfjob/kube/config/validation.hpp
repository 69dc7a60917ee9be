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
namespace tfjob::kube {

namespace detail {

TFJOB_INLINE void refuse_ca_with_insecure(const ConfigOverrides& o) {
  if (o.insecure_skip_tls_verify.value_or(false) && !o.certificate_authority.empty())
    throw config_error("both a certificate authority (\"" + o.certificate_authority +
                       "\") and insecure-skip-tls-verify were given: specifying a root certificates file with the "
                       "insecure flag is not allowed; drop one of them");
}

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

TFJOB_INLINE void refuse_basic_auth(const RestConfig& rc, const AuthInfo& user, const std::string& us) {
  bool has_auth = !rc.auth.token.empty() || !rc.auth.token_file.empty() || rc.auth.exec ||
                  !rc.tls.client_cert_pem.empty();
  if (!has_auth && (!user.username.empty() || !user.password.empty()))
    throw config_error(us + " uses basic authentication (username/password), which Kubernetes API servers "
                       "no longer accept (removed in 1.19); use a client certificate, a bearer token "
                       "or an exec credential plugin instead");
}

}  // namespace detail

}  // namespace tfjob::kube
#endif  // TFJOB_SDK_DEFINE_KUBE
