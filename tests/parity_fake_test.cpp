// The parity scenarios (tests/support/parity_scenarios.cpp) against the fake API server; the
// same scenarios run against the real kube-apiserver 1.20 in tests/realapi/parity_test.cpp.
// Both must produce tests/data/parity/expected.json. TFJOB_PARITY_RECORD=FILE writes the
// record (to inspect a divergence).
#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <unistd.h>

#include <tfjob/kube/kube.hpp>

#include "support/fake_apiserver.hpp"
#include "support/parity_scenarios.hpp"

using namespace tfjob::test;

namespace {

tfjob::kube::Client client(const std::string& kubeconfig, const std::string& context) {
  tfjob::kube::ConfigOverrides o;
  o.kubeconfig = kubeconfig;
  o.context = context;
  return tfjob::kube::Client(tfjob::kube::load_config(o));
}

std::string temp_kubeconfig(const FakeApiServer& s, const char* tag) {
  std::string path = "/tmp/tfjob-parity-" + std::string(tag) + "-" + std::to_string(::getpid()) + ".kubeconfig";
  s.write_kubeconfig(path);
  return path;
}

}  // namespace

TEST_CASE("parity: the fake API server answers the scenarios as kube-apiserver 1.20 does", "[parity]") {
  // No controllers: the real tier runs none, and an operator writing TFJob status would add
  // watch events. Logs need the fake kubelet, so they come from a second server with them.
  FakeApiServerOptions opts;
  opts.controllers = false;
  FakeApiServer api(opts);
  FakeApiServer kubelet_server;
  const std::string kc = temp_kubeconfig(api, "api"), kc2 = temp_kubeconfig(kubelet_server, "kubelet");

  ParityTarget t;
  t.name = "fake";
  t.suffix = "fake";
  t.admin = [&] { return client(kc, "fake-cert"); };
  t.limited = [&] { return client(kc, "fake-limited"); };
  t.pod_with_log = [&](const std::string& ns, const std::string& pod, const std::string& container,
                       const std::vector<std::string>& lines) {
    kubelet_server.put_object({{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", ns}}}});
    ContainerScript sc;
    sc.lines = lines;
    sc.exit_code = std::nullopt;  // keeps running, like the real tier's pod
    kubelet_server.kubelet().script(pod, sc, container);
    auto c = client(kc2, "fake-cert");
    tfjob::kube::RequestBuilder pods({"", "v1", "pods", "Pod", true}, ns);
    auto r = c.send(pods.create({{"apiVersion", "v1"},
                                 {"kind", "Pod"},
                                 {"metadata", {{"name", pod}, {"namespace", ns}}},
                                 {"spec", {{"restartPolicy", "Never"},
                                           {"containers", {{{"name", container}, {"image", "ghcr.io/kubectl-tfjob/mnist:v0.1.0"}}}}}}}));
    REQUIRE(r.status == 201);
    REQUIRE(kubelet_server.wait_for([&] {
      auto p = kubelet_server.get_object("pods", ns, pod);
      return p && p->value("/status/phase"_json_pointer, std::string()) == "Running";
    }));
    return c;
  };

  nlohmann::json got = run_parity_scenarios(t);
  std::remove(kc.c_str());
  std::remove(kc2.c_str());
  if (const char* rec = std::getenv("TFJOB_PARITY_RECORD")) std::ofstream(rec) << got.dump(2) << "\n";
  auto diff = parity_diff(parity_expected(), got, kParityFakeGaps);
  for (const auto& d : diff) UNSCOPED_INFO(d);
  CHECK(diff.empty());
}
