#pragma once
/// \file The bodies of <tfjob/kube/config/validation.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_KUBE` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/kube/config/validation.hpp>, never this file.

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
