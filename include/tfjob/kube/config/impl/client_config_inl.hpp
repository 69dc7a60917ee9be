#pragma once
/// \file The bodies of <tfjob/kube/config/client_config.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_KUBE` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/kube/config/client_config.hpp>, never this file.

namespace tfjob::kube {

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
