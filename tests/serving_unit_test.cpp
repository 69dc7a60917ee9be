// Pure serving logic: the manifests serve builds, kubectl's rollout-status wording, pod
// problems, TF Serving's model status, top-k with ImageNet names (1001 classes, 0 = background).
#include <catch2/catch.hpp>

#include <tfjob/serving/manifests.hpp>
#include <tfjob/serving/status.hpp>

#include "support/paths.hpp"

#include <fstream>

using nlohmann::json;
using namespace tfjob::serving;

namespace {
ServeSpec resnet() {
  ServeSpec s;
  s.name = "resnet";
  s.source.kind = ModelSource::Kind::resnet;
  s.source.url = resnet_model_url;
  return s;
}
}  // namespace

TEST_CASE("the ResNet deployment uses the GPU image, named ports, GPU limits and an init container", "[serving]") {
  auto d = build_deployment(resnet());
  const auto& c = d["spec"]["template"]["spec"]["containers"][0];
  CHECK(c["image"] == std::string("tensorflow/serving:") + default_serving_version + "-gpu");
  CHECK(c["ports"][0]["name"] == "grpc");
  CHECK(c["ports"][0]["containerPort"] == 8500);
  CHECK(c["ports"][1]["name"] == "http");
  CHECK(c["ports"][1]["containerPort"] == 8501);
  CHECK(c["resources"]["limits"]["nvidia.com/gpu"] == "1");
  CHECK(c["readinessProbe"]["httpGet"]["path"] == "/v1/models/resnet");
  CHECK(c["args"][3] == "--model_base_path=/models/resnet");
  const auto& init = d["spec"]["template"]["spec"]["initContainers"][0];
  CHECK(init["env"][0]["value"] == resnet_model_url);
  CHECK(init["env"][2]["value"] == "1");
  for (auto& [k, v] : d["spec"]["selector"]["matchLabels"].items()) CHECK(d["spec"]["template"]["metadata"]["labels"][k] == v);
  auto svc = build_service(resnet());
  CHECK(svc["spec"]["ports"][1]["port"] == 8501);
  CHECK(svc["spec"]["selector"] == d["spec"]["selector"]["matchLabels"]);
}

TEST_CASE("CPU image, replicas, resources, selector, tolerations", "[serving]") {
  auto s = resnet();
  s.gpus = 0;
  s.replicas = 3;
  s.cpu = "4";
  s.memory = "8Gi";
  s.node_selector["pool"] = "serving";
  s.tolerations.push_back(parse_toleration("nvidia.com/gpu:NoSchedule"));
  auto d = build_deployment(s);
  const auto& c = d["spec"]["template"]["spec"]["containers"][0];
  CHECK(c["image"] == std::string("tensorflow/serving:") + default_serving_version);
  CHECK_FALSE(c["resources"]["limits"].contains("nvidia.com/gpu"));
  CHECK(c["resources"]["requests"]["memory"] == "8Gi");
  CHECK(d["spec"]["replicas"] == 3);
  CHECK(d["spec"]["template"]["spec"]["nodeSelector"]["pool"] == "serving");
  CHECK(d["spec"]["template"]["spec"]["tolerations"][0] == json{{"key", "nvidia.com/gpu"}, {"operator", "Exists"}, {"effect", "NoSchedule"}});
  s.cpu = "four";
  CHECK_THROWS_WITH(build_deployment(s), Catch::Contains("--cpu \"four\""));
}

TEST_CASE("serve --pvc mounts the claim read-only with PATH as subPath", "[serving]") {
  ServeSpec s;
  s.name = "mnist";
  s.source = parse_pvc("tfjob-mnist:/export/");
  CHECK(s.source.claim == "tfjob-mnist");
  CHECK(s.source.path == "export");
  auto d = build_deployment(s);
  const auto& ps = d["spec"]["template"]["spec"];
  CHECK_FALSE(ps.contains("initContainers"));
  CHECK(ps["volumes"][0]["persistentVolumeClaim"]["claimName"] == "tfjob-mnist");
  CHECK(ps["containers"][0]["volumeMounts"][0]["subPath"] == "export");
  CHECK(ps["containers"][0]["volumeMounts"][0]["readOnly"] == true);
  CHECK_THROWS_WITH(parse_pvc(":x"), Catch::Contains("CLAIM[:PATH]"));
  CHECK_THROWS_WITH(parse_pvc("c:../etc"), Catch::Contains("inside the claim"));
}

TEST_CASE("bad specs are refused with what to do", "[serving]") {
  ServeSpec s;
  s.name = "resnet";
  CHECK_THROWS_WITH(build_deployment(s), Catch::Contains("--model resnet"));
  s = resnet();
  s.name = "ResNet_1";
  CHECK_THROWS_WITH(build_deployment(s), Catch::Contains("DNS-1035"));
  s = resnet();
  s.source.kind = ModelSource::Kind::url;
  s.source.url = "ftp://x";
  CHECK_THROWS_WITH(build_deployment(s), Catch::Contains("http(s)://"));
  CHECK_THROWS_WITH(parse_toleration("k:Sometimes"), Catch::Contains("NoSchedule"));
}

TEST_CASE("rollout status words it like kubectl rollout status", "[serving]") {
  json d = {{"metadata", {{"name", "resnet"}, {"generation", 2}}}, {"spec", {{"replicas", 2}}},
            {"status", {{"observedGeneration", 1}}}};
  CHECK(rollout_status(d).message == "Waiting for deployment spec update to be observed...");
  d["status"] = {{"observedGeneration", 2}, {"replicas", 3}, {"updatedReplicas", 1}, {"availableReplicas", 2}};
  CHECK(rollout_status(d).message == "Waiting for deployment \"resnet\" rollout to finish: 1 out of 2 new replicas have been updated...");
  d["status"]["updatedReplicas"] = 2;
  CHECK(rollout_status(d).message == "Waiting for deployment \"resnet\" rollout to finish: 1 old replicas are pending termination...");
  d["status"]["replicas"] = 2;
  d["status"]["availableReplicas"] = 1;
  CHECK(rollout_status(d).message == "Waiting for deployment \"resnet\" rollout to finish: 1 of 2 updated replicas are available...");
  d["status"]["availableReplicas"] = 2;
  CHECK(rollout_status(d).done);
  d["status"]["conditions"] = json::array({{{"type", "Progressing"}, {"status", "False"}, {"reason", "ProgressDeadlineExceeded"}}});
  auto r = rollout_status(d);
  CHECK(r.failed);
  CHECK(r.message == "deployment \"resnet\" exceeded its progress deadline");
}

TEST_CASE("crash loops and image pull failures are pod problems", "[serving]") {
  json pod = {{"metadata", {{"name", "resnet-abc"}}},
              {"status", {{"initContainerStatuses", json::array({{{"name", "fetch-model"}, {"restartCount", 3},
                                                                  {"state", {{"waiting", {{"reason", "CrashLoopBackOff"}}}}},
                                                                  {"lastState", {{"terminated", {{"exitCode", 1}}}}}}})},
                          {"containerStatuses", json::array({{{"name", "tensorflow-serving"}, {"restartCount", 0},
                                                              {"state", {{"waiting", {{"reason", "PodInitializing"}}}}}}})}}}};
  auto p = pod_problems(pod);
  REQUIRE(p.size() == 1);
  CHECK(p[0].init);
  CHECK(p[0].container == "fetch-model");
  CHECK(p[0].last_exit_code == 1);
  pod["status"]["initContainerStatuses"][0]["restartCount"] = 1;
  CHECK(pod_problems(pod).empty());  // one crash is not a loop yet
  pod["status"]["containerStatuses"][0]["state"]["waiting"]["reason"] = "ImagePullBackOff";
  CHECK(pod_problems(pod).size() == 1);
}

TEST_CASE("model status: 200 with LOADING is not ready; END with an error is a failure", "[serving]") {
  auto loading = parse_model_status(R"({"model_version_status":[{"version":"1","state":"LOADING","status":{"error_code":"OK","error_message":""}}]})");
  CHECK_FALSE(loading.available_version());
  CHECK_FALSE(loading.failed_version());
  auto two = parse_model_status(R"({"model_version_status":[{"version":"2","state":"AVAILABLE","status":{"error_code":"OK"}},{"version":"10","state":"AVAILABLE","status":{"error_code":"OK"}}]})");
  CHECK(two.available_version() == std::string("10"));
  auto bad = parse_model_status(R"({"model_version_status":[{"version":"1","state":"END","status":{"error_code":"NOT_FOUND","error_message":"Could not find SavedModel .pb or .pbtxt at supplied export directory path"}}]})");
  REQUIRE(bad.failed_version());
  CHECK(bad.failed_version()->error_message.find("SavedModel") != std::string::npos);
  CHECK_THROWS_WITH(parse_model_status("{}"), Catch::Contains("model_version_status"));
  CHECK(tf_serving_error(R"({"error":"boom"})") == "boom");
}

TEST_CASE("top-k names ImageNet classes without an off-by-one", "[serving]") {
  REQUIRE(imagenet_labels.size() == 1001);
  CHECK(imagenet_labels[0] == "background");
  CHECK(imagenet_labels[1] == "tench");
  CHECK(imagenet_labels[282] == "tabby");
  CHECK(imagenet_labels[1000] == "toilet tissue");
  // the shipped header matches its source file line by line
  std::ifstream in(tfjob::test::source_dir() + "/include/tfjob/serving/data/imagenet_labels.txt");
  std::string line;
  std::size_t i = 0;
  while (std::getline(in, line)) {
    REQUIRE(i < imagenet_labels.size());
    CHECK(imagenet_labels[i++] == line);
  }
  CHECK(i == 1001);

  std::vector<double> s(1001, 0.0001);
  s[282] = 0.6;
  s[283] = 0.2;
  s[286] = 0.1;
  auto top = top_k(prediction_scores(json{{"classes", 282}, {"probabilities", s}}), 3);
  REQUIRE(top.size() == 3);
  CHECK(top[0].index == 282);
  CHECK(top[0].label == "tabby");
  CHECK(top[1].label == "tiger cat");
  CHECK(top[2].label == "Egyptian cat");
  std::vector<double> s1000(1000, 0.0);
  s1000[281] = 1;  // a 1000-class model: index 281 = tabby
  CHECK(top_k(s1000, 1)[0].label == "tabby");
  CHECK(top_k({0.1, 0.9}, 5).size() == 2);
  CHECK_THROWS_WITH(prediction_scores(json{{"x", 1}}), Catch::Contains("probabilities"));
}
