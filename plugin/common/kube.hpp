#pragma once
/// \file The plugin's bridge to the SDK's client: kubectl's connection flags (Globals::conn)
/// become `ConfigOverrides`, resolved with clientcmd's rules (cli-runtime config_flags.go):
/// namespace from -n, then the context, then "default"; an explicit --kubeconfig is used
/// alone and must exist; --request-timeout takes 0, 30 (seconds), 30s, 1m, 2h.

#include "command.hpp"

#include <tfjob/kube/client.hpp>
#include <tfjob/kube/config.hpp>

#include <ostream>

namespace tfjob::cli {

/// Globals -> SDK overrides (pure).
inline tfjob::kube::ConfigOverrides overrides_from(const Globals& g) {
  tfjob::kube::ConfigOverrides o;
  const auto& c = g.conn;
  o.kubeconfig = c.kubeconfig;
  o.context = c.context;
  o.cluster = c.cluster;
  o.user = c.user;
  o.namespace_ = c.namespace_;
  o.server = c.server;
  o.token = c.token;
  o.certificate_authority = c.certificate_authority;
  o.client_certificate = c.client_certificate;
  o.client_key = c.client_key;
  o.tls_server_name = c.tls_server_name;
  if (c.insecure_skip_tls_verify) o.insecure_skip_tls_verify = true;
  o.request_timeout = c.request_timeout.empty() ? "0" : c.request_timeout;
  o.verbosity = g.verbosity;
  return o;
}

/// The resolved connection settings for these flags (throws tfjob::config_error); the
/// SDK's warnings and the -v request log go to `err`.
inline tfjob::kube::RestConfig make_rest_config(const Globals& g, std::ostream& err) {
  auto rc = tfjob::kube::load_config(overrides_from(g));
  // the plugin's name to the server: its user agent and the manager of what it writes
  rc.user_agent = tfjob::kube::default_user_agent("kubectl-tfjob");
  rc.field_manager = "kubectl-tfjob";
  rc.chunk_size = g.chunk_size;  // --chunk-size: the page size of every list the command reads
  // The SDK says why it withheld credentials or weakened TLS; the plugin words it.
  rc.warn = [&err](const std::string& why) { err << "warning: " << why << "\n"; };
  rc.log = [&err](const std::string& line) { err << line << "\n"; };  // -v=6 and above
  return rc;
}

}  // namespace tfjob::cli
