#pragma once
/// \file The bodies of <tfjob/kube/config/rest_config.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_KUBE` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/kube/config/rest_config.hpp>, never this file.

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
