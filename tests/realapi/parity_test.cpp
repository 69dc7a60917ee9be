// The parity scenarios (tests/support/parity_scenarios.cpp) against the real kube-apiserver
// 1.20 of the realapi tier; tests/parity_fake_test.cpp runs them against the fake. Both must
// produce tests/data/parity/expected.json. Run under `cluster.sh with DIR --` (ctest
// realapi.parity). TFJOB_PARITY_RECORD=FILE writes the record.
#include <catch2/catch.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <string>
#include <thread>
#include <unistd.h>

#include <tfjob/kube/kube.hpp>

#include "support/parity_scenarios.hpp"

using namespace tfjob::test;

namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  if (!v || !*v) FAIL("missing environment variable " << name << " (run under tests/realapi/cluster.sh with DIR --)");
  return v;
}

tfjob::kube::Client client(const char* context_var) {
  tfjob::kube::ConfigOverrides o;
  o.kubeconfig = env("TFJOB_TEST_KUBECONFIG");
  o.context = env(context_var);
  return tfjob::kube::Client(tfjob::kube::load_config(o));
}

std::string now_rfc3339_nanos() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  std::tm tm{};
  gmtime_r(&ts.tv_sec, &tm);
  char buf[64], out[96];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  std::snprintf(out, sizeof out, "%s.%09ldZ", buf, ts.tv_nsec);
  return out;
}

}  // namespace

TEST_CASE("parity: kube-apiserver 1.20 answers the scenarios as recorded", "[realapi][parity]") {
  ParityTarget t;
  t.name = "real";
  t.suffix = "real-" + std::to_string(::getpid()) + "-" + std::to_string(std::time(nullptr) % 100000);
  t.limited_ns = env("TFJOB_TEST_LIMITED_NAMESPACE");
  t.forbidden_ns = env("TFJOB_TEST_FORBIDDEN_NAMESPACE");
  t.admin = [] { return client("TFJOB_TEST_CONTEXT_CERT"); };
  t.limited = [] { return client("TFJOB_TEST_CONTEXT_LIMITED"); };
  // plays scheduler and kubelet: the pod bound to a GPU node, Running, its log in the
  // loopback kubelet's CRI-format file
  t.pod_with_log = [](const std::string& ns, const std::string& pod, const std::string& container,
                      const std::vector<std::string>& lines) {
    auto c = client("TFJOB_TEST_CONTEXT_CERT");
    tfjob::kube::RequestBuilder pods({"", "v1", "pods", "Pod", true}, ns);
    auto r = c.send(pods.create({{"apiVersion", "v1"},
                                 {"kind", "Pod"},
                                 {"metadata", {{"name", pod}, {"namespace", ns}}},
                                 {"spec", {{"nodeName", "gpu-node-0"},
                                           {"restartPolicy", "Never"},
                                           {"containers", {{{"name", container}, {"image", "ghcr.io/kubectl-tfjob/mnist:v0.1.0"}}}}}}}));
    REQUIRE(r.status == 201);
    r = c.send(pods.merge_patch(pod, {{"status", {{"phase", "Running"},
                                                  {"containerStatuses", {{{"name", container}, {"ready", true}, {"restartCount", 0},
                                                                          {"image", "x"}, {"imageID", ""},
                                                                          {"state", {{"running", {{"startedAt", "2026-01-01T00:00:00Z"}}}}}}}}}}},
                                {}, "status"));
    REQUIRE(r.status == 200);
    std::ofstream f(env("TFJOB_REALAPI_KUBELET_LOGS") + "/" + ns + "_" + pod + "_" + container + ".log", std::ios::app);
    for (const auto& l : lines) f << now_rfc3339_nanos() << " stdout F " << l << "\n";
    return c;
  };

  nlohmann::json got = run_parity_scenarios(t);
  if (const char* rec = std::getenv("TFJOB_PARITY_RECORD")) std::ofstream(rec) << got.dump(2) << "\n";
  auto diff = parity_diff(parity_expected(), got);
  for (const auto& d : diff) UNSCOPED_INFO(d);
  CHECK(diff.empty());
}
