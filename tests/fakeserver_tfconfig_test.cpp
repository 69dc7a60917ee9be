// Two independent implementations of the training operator's TF_CONFIG rules must agree:
// the fake API server's operator (tests/support/fake_controllers.cpp) and the SDK's
// `tfjob::gen_tf_config` (include/tfjob/api/tf_config.hpp).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "support/fake_apiserver.hpp"
#include "tfjob/api/tf_config.hpp"
#include "tfjob/api/types.hpp"

using nlohmann::json;
using tfjob::test::FakeApiServer;
using tfjob::test::FakeApiServerOptions;

namespace {
json replica(int n, int port = 0) {
  json c = {{"name", "tensorflow"}, {"image", "busybox"}};
  if (port) c["ports"] = json::array({{{"name", "tfjob-port"}, {"containerPort", port}}});
  return {{"replicas", n}, {"template", {{"spec", {{"containers", json::array({c})}}}}}};
}
}  // namespace

TEST_CASE("the fake operator's TF_CONFIG equals the SDK's gen_tf_config for every replica", "[fakeserver][tfconfig]") {
  FakeApiServerOptions o;
  o.pod_start_delay = std::chrono::milliseconds(0);
  FakeApiServer s(o);
  const std::vector<json> jobs = {
      {{"apiVersion", "kubeflow.org/v1"}, {"kind", "TFJob"}, {"metadata", {{"name", "full"}, {"namespace", "team-a"}}},
       {"spec", {{"tfReplicaSpecs", {{"Chief", replica(1)}, {"PS", replica(2)}, {"Worker", replica(3)}, {"Evaluator", replica(1)}}}}}},
      {{"apiVersion", "kubeflow.org/v1"}, {"kind", "TFJob"}, {"metadata", {{"name", "ported"}, {"namespace", "default"}}},
       {"spec", {{"tfReplicaSpecs", {{"Worker", replica(2, 3333)}, {"Master", replica(1, 4444)}}}}}},
      {{"apiVersion", "kubeflow.org/v1"}, {"kind", "TFJob"}, {"metadata", {{"name", "single"}, {"namespace", "default"}}},
       {"spec", {{"tfReplicaSpecs", {{"Worker", replica(1)}}}}}},
  };
  for (const auto& j : jobs) {
    s.put_object(j);
    tfjob::TFJob job = j.get<tfjob::TFJob>();
    int total = 0;
    for (const auto& [type, spec] : j["spec"]["tfReplicaSpecs"].items()) total += spec["replicas"].get<int>();
    const std::string ns = j["metadata"]["namespace"];
    REQUIRE(s.wait_for([&] {
      int n = 0;
      for (const auto& p : s.list_objects("pods", ns))
        if (p["metadata"]["labels"].value("training.kubeflow.org/job-name", "") == j["metadata"]["name"]) ++n;
      return n == total;
    }));
    for (const auto& [type, spec] : j["spec"]["tfReplicaSpecs"].items()) {
      for (int i = 0; i < spec["replicas"].get<int>(); ++i) {
        std::string lower = type;
        for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        auto pod = s.get_object("pods", ns, j["metadata"]["name"].get<std::string>() + "-" + lower + "-" + std::to_string(i));
        REQUIRE(pod);
        std::optional<std::string> from_fake;
        for (const auto& e : (*pod)["spec"]["containers"][0].value("env", json::array()))
          if (e["name"] == "TF_CONFIG") from_fake = e["value"].get<std::string>();
        auto from_sdk = tfjob::gen_tf_config(job, type, i);
        INFO(j["metadata"]["name"] << " " << type << " " << i);
        CHECK(from_fake == from_sdk);
      }
    }
  }
}
