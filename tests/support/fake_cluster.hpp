#pragma once
// A fake API server with a kubeconfig for it, and the plugin run against it as a user would:
// the fixture the plugin's end-to-end areas share (each adds its own helpers on top).
#include "support/fake_apiserver.hpp"
#include "support/workflow_run.hpp"

#include <tfjob/kube/config.hpp>

#include <memory>
#include <string>
#include <vector>

namespace tfjob::test {

struct FakeCluster {
  std::unique_ptr<FakeApiServer> server;
  std::string kubeconfig;
  /// `prefix` names the temporary directory that holds the kubeconfig.
  FakeCluster(FakeApiServerOptions o, const std::string& prefix) {
    server = std::make_unique<FakeApiServer>(o);
    kubeconfig = temp_dir(prefix) + "/kubeconfig";
    server->write_kubeconfig(kubeconfig);
  }
  /// The plugin with `--kubeconfig` for this server appended.
  RunResult run(std::vector<std::string> args, int timeout_s = 90) const {
    return run_plugin(args, kubeconfig, timeout_s);
  }
};

/// An SDK client configuration for `s` as its admin: its CA and client certificate.
inline kube::RestConfig admin_config(const FakeApiServer& s) {
  kube::RestConfig rc;
  rc.server = s.url();
  rc.tls.ca_pem = s.ca_pem();
  rc.tls.client_cert_pem = s.client_cert_pem();
  rc.tls.client_key_pem = s.client_key_pem();
  return rc;
}

/// Options with the fake's controllers (operator, scheduler, kubelet...) on or off.
inline FakeApiServerOptions with_controllers(FakeApiServerOptions o, bool on = true) {
  o.controllers = on;
  return o;
}

}  // namespace tfjob::test
