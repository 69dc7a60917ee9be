// Pure serving logic: the manifests serve builds, kubectl's rollout-status wording, pod
// problems, TF Serving's model status, top-k with ImageNet names (1001 classes, 0 = background).
#include <catch2/catch.hpp>

#include <tfjob/serving/image.hpp>
#include <tfjob/serving/manifests.hpp>
#include <tfjob/serving/metrics.hpp>
#include <tfjob/serving/operations.hpp>
#include <tfjob/serving/preflight.hpp>
#include <tfjob/serving/profile.hpp>
#include <tfjob/serving/export_check.hpp>
#include <tfjob/serving/from_job.hpp>
#include <tfjob/serving/model_config.hpp>
#include <tfjob/serving/model_config_text.hpp>
#include <tfjob/serving/signature.hpp>
#include <tfjob/serving/tensorboard.hpp>
#include <tfjob/serving/imagenet_labels.hpp>
#include <tfjob/serving/top_k.hpp>
#include <tfjob/api/manifest.hpp>
#include <tfjob/serving/status.hpp>

#include "support/paths.hpp"
#include "support/tfserving_rest.hpp"
#include "support/workflow_run.hpp"  // temp_dir

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <fstream>
#include <sstream>

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
  CHECK(c["livenessProbe"]["httpGet"]["path"] == "/v1/models/resnet");  // the model's REST status, on the named port
  CHECK(c["livenessProbe"]["httpGet"]["port"] == "http");
  CHECK(c["livenessProbe"]["periodSeconds"].get<int>() * c["livenessProbe"]["failureThreshold"].get<int>() >= 300);
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
  CHECK_THROWS_WITH(build_deployment(s), Catch::Contains("ServeSpec::cpu \"four\""));
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
  CHECK_THROWS_WITH(build_deployment(s), Catch::Contains("(ModelSource::Kind::resnet, ModelSource::url URL"));
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

TEST_CASE("rollout status and pod blockers read typed objects: zero values pass and a malformed field is named", "[serving][typed]") {
  using tfjob::detail::decoded;
  // fields the model writes back by leaving them out (0, [], false) are kept as sent, and read as they are
  json d = {{"metadata", {{"name", "r"}, {"generation", 1}}}, {"spec", {{"replicas", 0}}},
            {"status", {{"observedGeneration", 1}, {"replicas", 0}, {"updatedReplicas", 0}, {"availableReplicas", 0}, {"conditions", json::array()}}}};
  CHECK(rollout_status(decoded<tfjob::k8s::Deployment>(d)).message == "deployment \"r\" successfully rolled out");
  d["status"]["conditions"] = json::array({{{"type", "Available"}, {"status", "True"}}, 7});
  CHECK_THROWS_WITH(rollout_status(decoded<tfjob::k8s::Deployment>(d)), "deployment \"r\": status.conditions[1] is a number, expected an object");
  d["status"]["conditions"] = json::array();
  d["spec"]["replicas"] = 2.0;  // Go's decoder refuses a float for an int32 too
  CHECK_THROWS_WITH(rollout_status(d), "deployment \"r\": spec.replicas is a number, expected an integer");
  auto pod = [](json status) { return decoded<tfjob::k8s::Pod>(json{{"metadata", {{"name", "p"}}}, {"status", std::move(status)}}); };
  const auto running = pod({{"containerStatuses", {{{"name", "c"}, {"ready", false}, {"restartCount", 0}, {"state", {{"running", json::object()}}}}}}});
  REQUIRE(pod_blockers({running}).size() == 1);
  CHECK(pod_blockers({running})[0].kind == PodBlocker::Kind::model_load);
  const auto bad = pod({{"containerStatuses", {{{"name", "c"}, {"state", {{"waiting", "ImagePullBackOff"}}}}}}});
  CHECK_THROWS_WITH(pod_blockers({bad}), "pod \"p\": state.waiting is a string, expected an object");
  CHECK_THROWS_WITH(pod_problems(bad), "pod \"p\": state.waiting is a string, expected an object");
}

TEST_CASE("crash loops and image pull failures are pod problems", "[serving]") {
  json pod = {{"metadata", {{"name", "resnet-abc"}}},
              {"status", {{"initContainerStatuses", json::array({{{"name", "fetch-model"}, {"restartCount", 3},
                                                                  {"state", {{"waiting", {{"reason", "CrashLoopBackOff"}}}}},
                                                                  {"lastState", {{"terminated", {{"exitCode", 1}}}}}}})},
                          {"containerStatuses", json::array({{{"name", "tensorflow-serving"}, {"restartCount", 0},
                                                              {"state", {{"waiting", {{"reason", "PodInitializing"}}}}}}})}}}};
  auto typed = [](const json& j) { return tfjob::detail::decoded<tfjob::k8s::Pod>(j); };
  auto p = pod_problems(typed(pod));
  REQUIRE(p.size() == 1);
  CHECK(p[0].init);
  CHECK(p[0].container == "fetch-model");
  CHECK(p[0].last_exit_code == 1);
  pod["status"]["initContainerStatuses"][0]["restartCount"] = 1;
  CHECK(pod_problems(typed(pod)).empty());  // one crash is not a loop yet
  pod["status"]["containerStatuses"][0]["state"]["waiting"]["reason"] = "ImagePullBackOff";
  CHECK(pod_problems(typed(pod)).size() == 1);
}

TEST_CASE("model status: 200 with LOADING is not ready, END with an error is a failure", "[serving]") {
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

// ---- the model's contract: TF Serving's metadata answer and the request check ----

namespace {
// GET /v1/models/half/metadata as TF Serving 2.x writes it (api_rest.md: a JSON
// GetModelMetadataResponse; int64 sizes and versions as strings, -1 = unknown size).
const char* tf_serving_metadata = R"({
"model_spec":{
 "name": "half",
 "signature_name": "",
 "version": "123"
}
,
"metadata": {"signature_def": {
 "signature_def": {
  "serving_default": {
   "inputs": {
    "x": {"dtype": "DT_FLOAT", "tensor_shape": {"dim": [{"size": "-1", "name": ""}, {"size": "3", "name": ""}], "unknown_rank": false}, "name": "x:0"},
    "tag": {"dtype": "DT_STRING", "tensor_shape": {"dim": [{"size": "-1", "name": ""}], "unknown_rank": false}, "name": "tag:0"}
   },
   "outputs": {
    "y": {"dtype": "DT_FLOAT", "tensor_shape": {"dim": [], "unknown_rank": true}, "name": "y:0"}
   },
   "method_name": "tensorflow/serving/predict"
  },
  "scalar": {
   "inputs": {"n": {"dtype": "DT_INT64", "tensor_shape": {"unknown_rank": false}, "name": "n:0"}},
   "outputs": {},
   "method_name": "tensorflow/serving/predict"
  }
 }
}
}
})";
}  // namespace

TEST_CASE("TF Serving's metadata answer parses into signatures with dtypes and shapes", "[serving][signature]") {
  auto m = parse_model_metadata(tf_serving_metadata);
  CHECK(m.model == "half");
  CHECK(m.version == "123");
  REQUIRE(m.signatures.size() == 2);
  CHECK(m.keys() == "scalar, serving_default");
  const auto& sig = pick_signature(m, "");
  CHECK(sig.key == "serving_default");
  CHECK(sig.method == "tensorflow/serving/predict");
  REQUIRE(sig.inputs.size() == 2);
  const TensorSpec* x = sig.input("x");
  REQUIRE(x);
  CHECK(x->dtype == "DT_FLOAT");
  CHECK(x->shape == std::vector<long long>{-1, 3});
  CHECK(x->tensor_name == "x:0");
  CHECK(shape_text(*x) == "(-1, 3)");
  REQUIRE(sig.outputs.size() == 1);
  CHECK_FALSE(sig.outputs[0].shape);  // unknown_rank
  CHECK(shape_text(sig.outputs[0]) == "unknown rank");
  const TensorSpec& n = pick_signature(m, "scalar").inputs.at(0);
  CHECK(n.shape == std::vector<long long>{});  // no dims: a scalar
  CHECK(shape_text(n) == "()");
  CHECK_THROWS_WITH(pick_signature(m, "classify"),
                    Catch::Contains("model \"half\" version 123 has no signature \"classify\"; its signatures: scalar, serving_default"));

  // proto3's JSON mapping (lowerCamelCase keys, as TF Serving-compatible servers write it)
  auto camel = parse_model_metadata(R"({"modelSpec": {"name": "m", "version": "2"}, "metadata": {"signature_def": {
    "@type": "type.googleapis.com/tensorflow.serving.SignatureDefMap", "signatureDef": {"serving_default": {"inputs":
    {"data": {"dtype": "DT_FLOAT", "tensorShape": {"dim": [{"size": "1"}, {"size": "3"}]}}}, "methodName": "tensorflow/serving/predict"}}}}})");
  CHECK(camel.version == "2");
  CHECK(camel.signatures.at(0).inputs.at(0).shape == std::vector<long long>{1, 3});

  CHECK_THROWS_WITH(parse_model_metadata("<html>502</html>"), Catch::Contains("is not a JSON object"));
  CHECK_THROWS_WITH(parse_model_metadata(R"({"model_spec": {}, "metadata": {}})"),
                    Catch::Contains("has no metadata.signature_def.signature_def map"));
  CHECK_THROWS_WITH(parse_model_metadata(R"({"metadata": {"signature_def": {"signature_def": {"s": {"inputs": {"x":
    {"dtype": "DT_FLOAT", "tensor_shape": {"dim": [{"size": "many"}]}}}}}}}})"),
                    Catch::Contains("signature \"s\" input \"x\": a dim's size is \"many\", expected an integer"));
}

TEST_CASE("a predict request is checked against the signature before it is sent", "[serving][signature]") {
  auto m = parse_model_metadata(tf_serving_metadata);
  const Signature& sig = pick_signature(m, "serving_default");
  auto ok = [&](const char* body) { check_request(sig, json::parse(body)); };
  auto bad = [&](const char* body) -> std::string {
    try {
      check_request(sig, json::parse(body));
    } catch (const tfjob::error& e) {
      return e.what();
    }
    return "(accepted)";
  };
  // row format: one object per instance, the batch dimension dropped
  CHECK_NOTHROW(ok(R"({"instances": [{"x": [1, 2, 3], "tag": "a"}, {"x": [4.5, 5, 6], "tag": {"b64": "YQ=="}}]})"));
  // columnar format: the batch dimension kept
  CHECK_NOTHROW(ok(R"({"inputs": {"x": [[1, 2, 3]], "tag": ["a"]}})"));
  std::string e = bad(R"({"instances": [{"x": [1, 2, 3]}]})");
  CHECK_THAT(e, Catch::Contains("instance 0 has no input \"tag\" (input \"tag\" (DT_STRING, shape (-1)) of signature \"serving_default\")"));
  CHECK_THAT(e, Catch::Contains("signature \"serving_default\" takes \"tag\" (DT_STRING, shape (-1)), \"x\" (DT_FLOAT, shape (-1, 3))"));
  CHECK_THAT(bad(R"({"instances": [{"x": [[1, 2, 3]], "tag": "a"}]})"),
             Catch::Contains("instance 0's \"x\" has 2 dimensions where 1 are expected"));
  CHECK_THAT(bad(R"({"instances": [{"x": [1, 2], "tag": "a"}]})"),
             Catch::Contains("instance 0's \"x\" has 2 elements in dimension 0 where 3 are expected"));
  CHECK_THAT(bad(R"({"instances": [{"x": [1, "2", 3], "tag": "a"}]})"),
             Catch::Contains("instance 0's \"x\" holds a string where DT_FLOAT is expected"));
  CHECK_THAT(bad(R"({"instances": [{"x": [1, 2, 3], "tag": 7}]})"),
             Catch::Contains("instance 0's \"tag\" holds an integer where DT_STRING is expected"));
  CHECK_THAT(bad(R"({"instances": [{"x": [1, 2, 3], "tag": "a", "extra": 1}]})"),
             Catch::Contains("instance 0 names input \"extra\", which the signature does not have"));
  CHECK_THAT(bad(R"({"instances": [[1, 2, 3]]})"), Catch::Contains("instance 0 is a list, expected an object naming each input"));
  CHECK_THAT(bad(R"({"inputs": {"x": [1, 2, 3], "tag": ["a"]}})"),
             Catch::Contains("\"inputs\"'s \"x\" has 1 dimension where 2 are expected"));
  CHECK_THAT(bad(R"({"instances": []})"), Catch::Contains("\"instances\" is empty"));
  CHECK_THAT(bad(R"({"signature_name": "x"})"), Catch::Contains("it has neither \"instances\" nor \"inputs\""));

  // one input may be given bare; integers for DT_INT64, floats refused
  const Signature& scalar = pick_signature(m, "scalar");
  CHECK_NOTHROW(check_request(scalar, json::parse(R"({"instances": [3, 4]})")));
  CHECK_NOTHROW(check_request(scalar, json::parse(R"({"instances": [{"n": 3}]})")));
  CHECK_THROWS_WITH(check_request(scalar, json::parse(R"({"instances": [3.5]})")),
                    Catch::Contains("instance 0 holds a number where DT_INT64 is expected"));
  // unknown rank: nothing to check but presence
  Signature any = sig;
  any.inputs = {sig.inputs[0]};
  any.inputs[0].shape.reset();
  CHECK_NOTHROW(check_request(any, json::parse(R"({"instances": [[[[1]]]]})")));
}

TEST_CASE("model REST paths: latest, /versions/N, /labels/L, versions are numbers", "[serving][signature]") {
  CHECK(model_rest_path("m") == "/v1/models/m");
  CHECK(model_rest_path("m", "3") == "/v1/models/m/versions/3");
  CHECK(model_rest_path("m", "", "stable") == "/v1/models/m/labels/stable");
  CHECK_THROWS_WITH(model_rest_path("m", "3", "stable"), Catch::Contains("not both"));
  CHECK_NOTHROW(validate_version("12"));
  CHECK_THROWS_WITH(validate_version("v2"), Catch::Contains("version \"v2\" is not a number"));
}

TEST_CASE("the simulated TF Serving answers metadata, versions and labels as TF Serving does", "[serving][signature]") {
  using namespace tfjob::test;
  auto p = parse_model_path("/v1/models/resnet/labels/stable/metadata");
  REQUIRE(p);
  CHECK(p->model == "resnet");
  CHECK(p->label == "stable");
  CHECK(p->verb == "metadata");
  p = parse_model_path("/v1/models/resnet/versions/2:predict");
  REQUIRE(p);
  CHECK(p->version == "2");
  CHECK(p->verb == "predict");
  CHECK_FALSE(parse_model_path("/v1/models/resnet/versions/two"));
  CHECK_FALSE(parse_model_path("/v2/models/resnet"));

  ServedModel m;
  m.version = 2;
  m.labels = {{"stable", 2}, {"canary", 3}};
  auto r = model_rest("GET", *parse_model_path("/v1/models/resnet/metadata"), "", m);
  REQUIRE(r.status == 200);
  auto meta = parse_model_metadata(r.body);  // the SDK's parser reads the fake's answer
  CHECK(meta.version == "2");
  CHECK(pick_signature(meta, "").inputs.at(0).key == "image_bytes");
  CHECK(pick_signature(meta, "").outputs.at(1).shape == std::vector<long long>{-1, 1001});
  CHECK(model_rest("GET", *parse_model_path("/v1/models/resnet/labels/stable/metadata"), "", m).status == 200);
  r = model_rest("GET", *parse_model_path("/v1/models/resnet/labels/canary/metadata"), "", m);
  CHECK(r.status == 404);
  CHECK(tf_serving_error(r.body) == "Servable not found for request: Specific(resnet, 3)");
  r = model_rest("GET", *parse_model_path("/v1/models/resnet/labels/nightly"), "", m);
  CHECK(r.status == 400);
  CHECK(tf_serving_error(r.body) == "Unrecognized servable version label: nightly");
  r = model_rest("POST", *parse_model_path("/v1/models/resnet:predict"), R"({"signature_name": "nope", "instances": [1]})", m);
  CHECK(r.status == 400);
  CHECK(tf_serving_error(r.body) == "Serving signature key \"nope\" not found.");
  m.signature_def = mnist_signatures();
  CHECK(parse_model_metadata(model_rest("GET", *parse_model_path("/v1/models/mnist/metadata"), "", m).body).signatures.at(0).inputs.at(0).shape ==
        std::vector<long long>{-1, 28, 28});
}

TEST_CASE("a rollout's timeout names what blocked each pod: scheduling, image, crash loop, download, model load", "[serving]") {
  auto pod = [](const std::string& name, json status) {
    return tfjob::detail::decoded<tfjob::k8s::Pod>(json{{"metadata", {{"name", name}}}, {"status", std::move(status)}});
  };
  std::vector<tfjob::k8s::Pod> pods = {
      pod("a", {{"conditions", {{{"type", "PodScheduled"}, {"status", "False"}, {"message", "0/1 nodes are available: 1 Insufficient nvidia.com/gpu."}}}}}),
      pod("b", {{"containerStatuses", {{{"name", "tensorflow-serving"}, {"image", "tensorflow/serving:9"}, {"state", {{"waiting", {{"reason", "ImagePullBackOff"}, {"message", "Back-off pulling image"}}}}}}}}}),
      pod("c", {{"containerStatuses", {{{"name", "tensorflow-serving"}, {"restartCount", 4}, {"state", {{"waiting", {{"reason", "CrashLoopBackOff"}}}}}}}}}),
      pod("d", {{"initContainerStatuses", {{{"name", "download-model"}, {"state", {{"running", {{"startedAt", "x"}}}}}}}}}),
      pod("e", {{"containerStatuses", {{{"name", "tensorflow-serving"}, {"ready", false}, {"state", {{"running", {{"startedAt", "x"}}}}}}}}}),
      pod("f", {{"conditions", {{{"type", "Ready"}, {"status", "True"}}}}}),
  };
  auto b = pod_blockers(pods);
  REQUIRE(b.size() == 5);  // the ready pod blocks nothing
  CHECK(b[0].kind == PodBlocker::Kind::scheduling);
  CHECK(b[1].kind == PodBlocker::Kind::image);
  CHECK(b[2].kind == PodBlocker::Kind::crash_loop);
  CHECK(b[3].kind == PodBlocker::Kind::starting);
  CHECK(b[4].kind == PodBlocker::Kind::model_load);
  const std::string h = blocker_hints(b, "resnet").str();
  CHECK_THAT(h, Catch::Contains("hint: scheduling: pod a is not scheduled (0/1 nodes are available: 1 Insufficient nvidia.com/gpu.)"));
  CHECK_THAT(h, Catch::Contains("hint: image pull: pod b cannot get its image (container tensorflow-serving (tensorflow/serving:9): ImagePullBackOff"));
  CHECK_THAT(h, Catch::Contains("hint: crash loop: pod c"));
  CHECK_THAT(h, Catch::Contains("hint: starting: pod d: init container download-model is still running"));
  CHECK_THAT(h, Catch::Contains("hint: model load: pod e"));
  // only what blocked is named: a Pending pod is not told about readiness probes
  const std::string only = blocker_hints(pod_blockers({pods[0]}), "resnet").str();
  CHECK_THAT(only, Catch::Contains("scheduling"));
  CHECK_THAT(only, !Catch::Contains("readiness"));
}

TEST_CASE("serve --batching: TF Serving's BatchingParameters in text format, every bad key or value refused", "[serving][operations]") {
  auto b = parse_batching("max_batch_size=32,batch_timeout_micros=5000,max_enqueued_batches=100,num_batch_threads=4,"
                          "allowed_batch_sizes=8:16:32,pad_variable_length_inputs=true,thread_pool_name=resnet_pool");
  CHECK(batching_parameters_text(b) ==
        "max_batch_size { value: 32 }\n"
        "batch_timeout_micros { value: 5000 }\n"
        "max_enqueued_batches { value: 100 }\n"
        "num_batch_threads { value: 4 }\n"
        "thread_pool_name { value: \"resnet_pool\" }\n"
        "allowed_batch_sizes: 8\nallowed_batch_sizes: 16\nallowed_batch_sizes: 32\n"
        "pad_variable_length_inputs: true\n");
  CHECK(batching_parameters_text(parse_batching("batch_timeout_micros=0")) == "batch_timeout_micros { value: 0 }\n");
  CHECK_THROWS_WITH(parse_batching("max_batch=32"), Catch::Contains("unknown key \"max_batch\"") && Catch::Contains("max_batch_size"));
  CHECK_THROWS_WITH(parse_batching("max_batch_size=0"), Catch::Contains("max_batch_size=0: \"0\" is not an integer >= 1; give one"));
  CHECK_THROWS_WITH(parse_batching("num_batch_threads=-2"), Catch::Contains("num_batch_threads=-2"));
  CHECK_THROWS_WITH(parse_batching("batch_timeout_micros=5ms"), Catch::Contains("batch_timeout_micros=5ms"));
  CHECK_THROWS_WITH(parse_batching("max_batch_size=99999999999999999999"), Catch::Contains("is not an integer"));
  CHECK_THROWS_WITH(parse_batching("max_batch_size"), Catch::Contains("KEY=VALUE"));
  CHECK_THROWS_WITH(parse_batching("pad_variable_length_inputs=yes"), Catch::Contains("true or false"));
  CHECK_THROWS_WITH(parse_batching("max_batch_size=32,allowed_batch_sizes=16:8:32"), Catch::Contains("must increase"));
  CHECK_THROWS_WITH(parse_batching("max_batch_size=32,allowed_batch_sizes=8:16"), Catch::Contains("must equal max_batch_size (32)"));
  CHECK_THROWS_WITH(parse_batching("allowed_batch_sizes=8"), Catch::Contains("needs max_batch_size"));
  CHECK_THROWS_WITH(parse_batching("thread_pool_name=a\"b"), Catch::Contains("thread_pool_name"));
}

TEST_CASE("batching and monitoring: the server's ConfigMap mounted, TF Serving's flags reading it", "[serving][operations]") {
  auto s = resnet();
  s.ops.batching = parse_batching("max_batch_size=16");
  s.ops.monitoring = true;
  auto objs = build_objects(s);
  REQUIRE(objs.size() == 3);
  CHECK(objs[0]["kind"] == "ConfigMap");
  CHECK(objs[0]["metadata"]["name"] == "resnet");
  CHECK(objs[0]["data"][batching_file] == "max_batch_size { value: 16 }\n");
  CHECK(objs[0]["data"][monitoring_file] ==
        "prometheus_config {\n  enable: true\n  path: \"/monitoring/prometheus/metrics\"\n}\n");
  const auto& pod = objs[1]["spec"]["template"]["spec"];
  const auto& c = pod["containers"][0];
  std::vector<std::string> args = c["args"].get<std::vector<std::string>>();
  auto has = [&](const std::string& a) { return std::find(args.begin(), args.end(), a) != args.end(); };
  CHECK(has("--enable_batching=true"));
  CHECK(has("--batching_parameters_file=/etc/tfserving/batching_parameters.pbtxt"));
  CHECK(has("--monitoring_config_file=/etc/tfserving/monitoring_config.pbtxt"));
  CHECK(pod["volumes"].back() == json{{"name", "serving-config"}, {"configMap", {{"name", "resnet"}}}});
  CHECK(c["volumeMounts"].back()["mountPath"] == "/etc/tfserving");
  // without either, no ConfigMap and the Deployment is what it was
  auto plain = build_objects(resnet());
  REQUIRE(plain.size() == 2);
  CHECK(plain[0] == build_deployment(resnet()));
}

TEST_CASE("serve --autoscale: an autoscaling/v2 HPA on CPU, which needs a CPU request, a PDB past one replica", "[serving][operations]") {
  auto a = parse_autoscale("2:10:70%");
  CHECK(a.min == 2);
  CHECK(a.max == 10);
  CHECK(a.cpu_percent == 70);
  CHECK(parse_autoscale("1:3:50").cpu_percent == 50);
  CHECK_THROWS_WITH(parse_autoscale("10:2:70%"), Catch::Contains("MAX (2) must be at least MIN (10)"));
  CHECK_THROWS_WITH(parse_autoscale("2:10"), Catch::Contains("MIN:MAX:CPU%"));
  CHECK_THROWS_WITH(parse_autoscale("0:10:70%"), Catch::Contains("MIN:MAX:CPU%"));
  CHECK_THROWS_WITH(parse_autoscale("2:10:x%"), Catch::Contains("MIN:MAX:CPU%"));

  auto s = resnet();
  s.ops.autoscale = a;
  CHECK_THROWS_WITH(build_objects(s), Catch::StartsWith("ServeOperations::autoscale") && Catch::Contains("(ServeSpec::cpu 2)"));
  s.cpu = "2";
  auto objs = build_objects(s);
  REQUIRE(objs.size() == 4);
  CHECK_FALSE(objs[0]["spec"].contains("replicas"));  // the HPA owns the scale
  CHECK(objs[2]["kind"] == "PodDisruptionBudget");
  CHECK(objs[2]["apiVersion"] == "policy/v1");
  CHECK(objs[2]["spec"]["maxUnavailable"] == 1);
  CHECK(objs[2]["spec"]["selector"]["matchLabels"] == objs[0]["spec"]["selector"]["matchLabels"]);
  const auto& h = objs[3];
  CHECK(h["apiVersion"] == "autoscaling/v2");
  CHECK(h["spec"]["scaleTargetRef"] == json{{"apiVersion", "apps/v1"}, {"kind", "Deployment"}, {"name", "resnet"}});
  CHECK(h["spec"]["minReplicas"] == 2);
  CHECK(h["spec"]["maxReplicas"] == 10);
  CHECK(h["spec"]["metrics"][0]["resource"]["target"] == json{{"type", "Utilization"}, {"averageUtilization", 70}});

  auto r = resnet();
  r.replicas = 3;
  auto three = build_objects(r);
  REQUIRE(three.size() == 3);
  CHECK(three[2]["kind"] == "PodDisruptionBudget");
  CHECK(three[0]["spec"]["replicas"] == 3);
  r.replicas = 1;
  CHECK(build_objects(r).size() == 2);  // one replica: no budget
}

TEST_CASE("TF Serving's Prometheus text: request counts by status, latency mean and quantiles", "[serving][metrics]") {
  // The shape TF Serving's exporter writes (util.cc's metrics, '/' as ':').
  const std::string text =
      "# TYPE :tensorflow:serving:request_count counter\n"
      ":tensorflow:serving:request_count{model_name=\"resnet\",status=\"OK\"} 8\n"
      ":tensorflow:serving:request_count{model_name=\"resnet\",status=\"INVALID_ARGUMENT\"} 2\n"
      "# TYPE :tensorflow:serving:request_latency histogram\n"
      ":tensorflow:serving:request_latency_bucket{model_name=\"resnet\",API=\"Predict\",entrypoint=\"REST\",le=\"1000\"} 5\n"
      ":tensorflow:serving:request_latency_bucket{model_name=\"resnet\",API=\"Predict\",entrypoint=\"REST\",le=\"2000\"} 9\n"
      ":tensorflow:serving:request_latency_bucket{model_name=\"resnet\",API=\"Predict\",entrypoint=\"REST\",le=\"+Inf\"} 10\n"
      ":tensorflow:serving:request_latency_sum{model_name=\"resnet\",API=\"Predict\",entrypoint=\"REST\"} 12000\n"
      ":tensorflow:serving:request_latency_count{model_name=\"resnet\",API=\"Predict\",entrypoint=\"REST\"} 10 1700000000000\n"
      ":tensorflow:core:graph_runs{label=\"a \\\"quoted\\\" value\"} 3\n";
  auto samples = parse_prometheus_text(text);
  REQUIRE(samples.size() == 8);
  CHECK(samples.back().labels.at("label") == "a \"quoted\" value");
  auto m = request_metrics(samples);
  REQUIRE(m.size() == 1);
  CHECK(m[0].model == "resnet");
  CHECK(m[0].requests() == 10);
  CHECK(m[0].errors() == 2);
  CHECK(m[0].latency.mean() == Approx(1200));
  CHECK(*m[0].latency.quantile(0.5) == Approx(1000));   // rank 5: the top of the first bucket
  CHECK(*m[0].latency.quantile(0.7) == Approx(1500));   // rank 7: halfway into (1000, 2000]
  CHECK(*m[0].latency.quantile(0.99) == Approx(2000));  // in +Inf: the largest finite bound
  CHECK_THROWS_WITH(parse_prometheus_text("m{a=\"x} 1\n"), Catch::Contains("metrics line 1") && Catch::Contains("unterminated"));
  CHECK_THROWS_WITH(parse_prometheus_text("ok 1\nm{a=\"x\"} one\n"), Catch::Contains("metrics line 2") && Catch::Contains("\"one\""));
  PrometheusLimits lim;
  lim.max_samples = 1;
  CHECK_THROWS_WITH(parse_prometheus_text("a 1\nb 2\n", lim), Catch::Contains("more than 1 samples"));
}

TEST_CASE("the fake's and the stand-in's metrics count what they answered, in TF Serving's format", "[serving][metrics]") {
  tfjob::test::RestMetrics rm;
  auto predict = tfjob::test::parse_model_path("/v1/models/resnet:predict");
  auto status = tfjob::test::parse_model_path("/v1/models/resnet");
  REQUIRE(predict);
  rm.record(*predict, 200, 1500);
  rm.record(*predict, 400, 30);
  rm.record(*status, 200, 5);  // status requests are not request_count's
  auto m = request_metrics(parse_prometheus_text(rm.prometheus_text()));
  REQUIRE(m.size() == 1);
  CHECK(m[0].requests_by_status == std::map<std::string, double>{{"INVALID_ARGUMENT", 1}, {"OK", 1}});
  CHECK(m[0].latency.count == 2);
  CHECK(m[0].latency.sum == Approx(1530));
}

namespace {
Signature sig_with(std::vector<TensorSpec> inputs) {
  Signature s;
  s.key = "serving_default";
  s.inputs = std::move(inputs);
  return s;
}
}  // namespace

TEST_CASE("predict --image: bytes for a DT_STRING input, H x W floats for DT_FLOAT [N,H,W,C] / [N,H,W], else a clear error",
          "[serving][image]") {
  auto p = plan_image_input(sig_with({{"image_bytes", "DT_STRING", std::vector<long long>{-1}, "x:0"}}));
  CHECK(p.kind == ImageInput::Kind::bytes);
  CHECK(image_instance(p, "QUJD", nullptr) == json{{"b64", "QUJD"}});
  auto f = plan_image_input(sig_with({{"input_1", "DT_FLOAT", std::vector<long long>{-1, 224, 224, 3}, "x:0"}}));
  CHECK(f.kind == ImageInput::Kind::float_tensor);
  CHECK(f.height == 224);
  CHECK(f.width == 224);
  CHECK(f.channels == 3);
  auto g = plan_image_input(sig_with({{"images", "DT_FLOAT", std::vector<long long>{-1, 28, 28}, "x:0"}}));
  CHECK(g.channels == 0);
  CHECK_THROWS_WITH(plan_image_input(sig_with({{"x", "DT_INT64", std::vector<long long>{-1, 4}, "x:0"}})),
                    Catch::Contains("signature \"serving_default\" takes x DT_INT64 (-1, 4)") && Catch::Contains("(serving::predict's body)"));
  CHECK_THROWS_WITH(plan_image_input(sig_with({{"x", "DT_FLOAT", std::vector<long long>{-1, 10}, "x:0"}})), Catch::Contains("[N, H, W, C]"));
  CHECK_THROWS_WITH(plan_image_input(sig_with({{"x", "DT_FLOAT", std::vector<long long>{-1, -1, -1, 3}, "x:0"}})),
                    Catch::Contains("height and width are not fixed"));
  CHECK_THROWS_WITH(plan_image_input(sig_with({{"x", "DT_FLOAT", std::vector<long long>{-1, 8, 8, 5}, "x:0"}})), Catch::Contains("5 channels"));
  CHECK_THROWS_WITH(plan_image_input(sig_with({{"x", "DT_FLOAT", std::vector<long long>{-1, 100000, 100000, 3}, "x:0"}})),
                    Catch::Contains("larger than 4096"));
  // two inputs: the image one is named in the instance
  auto n = plan_image_input(sig_with({{"image", "DT_STRING", std::vector<long long>{-1}, "a:0"},
                                      {"k", "DT_INT32", std::vector<long long>{-1}, "b:0"}}));
  CHECK(image_instance(n, "QQ==", nullptr) == json{{"image", {{"b64", "QQ=="}}}});
}

TEST_CASE("bilinear resize with half-pixel centres, gray from RGB by BT.601 luma, scaled to [0,1]", "[serving][image]") {
  // 2x2 RGB: red, green / blue, white
  DecodedImage img{2, 2, 3, {255, 0, 0, 0, 255, 0, 0, 0, 255, 255, 255, 255}};
  auto same = resize_bilinear(img, 2, 2, 3);
  REQUIRE(same.size() == 12);
  CHECK(same[0] == Approx(1.0));
  CHECK(same[1] == Approx(0.0));
  CHECK(same[4] == Approx(1.0));  // green's G
  auto one = resize_bilinear(img, 1, 1, 3);  // the centre: the mean of the four
  CHECK(one[0] == Approx((255 + 0 + 0 + 255) / 4.0 / 255));
  CHECK(one[1] == Approx((0 + 255 + 0 + 255) / 4.0 / 255));
  auto gray = resize_bilinear(img, 2, 2, 1);
  CHECK(gray[0] == Approx(0.299));
  CHECK(gray[3] == Approx(1.0));
  // upscaling a 1x2 gray ramp to 1x4: the edges clamp, the inside interpolates
  DecodedImage ramp{2, 1, 1, {0, 255}};
  auto up = resize_bilinear(ramp, 1, 4, 1);
  CHECK(up[0] == Approx(0.0));
  CHECK(up[1] == Approx(0.25));
  CHECK(up[2] == Approx(0.75));
  CHECK(up[3] == Approx(1.0));
  // gray+alpha to RGB: the gray repeated, alpha dropped
  DecodedImage ga{1, 1, 2, {51, 7}};
  CHECK(resize_bilinear(ga, 1, 1, 3) == std::vector<float>{0.2f, 0.2f, 0.2f});
  DecodedImage broken{4, 4, 3, {1, 2, 3}};
  CHECK_THROWS_WITH(resize_bilinear(broken, 2, 2, 3), Catch::Contains("inconsistent"));
  // an MNIST-like [H][W] instance
  auto g = plan_image_input(sig_with({{"images", "DT_FLOAT", std::vector<long long>{-1, 2, 2}, "x:0"}}));
  auto inst = image_instance(g, "", &img);
  REQUIRE(inst.size() == 2);
  CHECK(inst[1][1].get<double>() == Approx(1.0));
}

TEST_CASE("tensorboard: the job's log directory on its claim, from --log-dir / --logdir, TensorBoard's Deployment and Service",
          "[serving][tensorboard]") {
  std::ifstream in(tfjob::test::source_dir() + "/samples/mnist/tfjob.yaml");
  std::stringstream ss;
  ss << in.rdbuf();
  json job;
  for (auto& d : tfjob::parse_objects(ss.str(), "tfjob.yaml"))
    if (d.value("kind", "") == "TFJob") job = d;
  REQUIRE(job.is_object());
  auto log = find_job_log_dir(job.get<tfjob::TFJob>());
  CHECK(log.container_path == "/train/logs");
  CHECK(log.claim == "tfjob-mnist");
  CHECK(log.sub_path == "logs");
  auto objs = build_tensorboard("mnist-tensorboard", "", log);
  REQUIRE(objs.size() == 2);
  const auto& pod = objs[0]["spec"]["template"]["spec"];
  CHECK(pod["volumes"][0]["persistentVolumeClaim"] == json{{"claimName", "tfjob-mnist"}, {"readOnly", true}});
  CHECK(pod["containers"][0]["volumeMounts"][0]["subPath"] == "logs");
  CHECK(pod["containers"][0]["args"][0] == "--logdir=/logs");
  CHECK(objs[1]["spec"]["ports"][0]["port"] == 6006);
  CHECK(objs[1]["spec"]["selector"] == objs[0]["spec"]["selector"]["matchLabels"]);
  CHECK(tensorboard_proxy_prefix("ns", "t") == "/api/v1/namespaces/ns/services/t:6006/proxy");

  // the flag as two words, a mount with its own subPath, the deepest claim mount wins
  json j = json::parse(R"({"metadata": {"name": "j"}, "spec": {"tfReplicaSpecs": {"Worker": {"template": {"spec": {
    "containers": [{"name": "tensorflow", "args": ["train.py", "--logdir", "/mnt/data/runs/7"],
                    "volumeMounts": [{"name": "root", "mountPath": "/mnt"}, {"name": "d", "mountPath": "/mnt/data/", "subPath": "team"}]}],
    "volumes": [{"name": "root", "persistentVolumeClaim": {"claimName": "big"}}, {"name": "d", "persistentVolumeClaim": {"claimName": "data"}}]}}}}}})");
  auto l2 = find_job_log_dir(j.get<tfjob::TFJob>());
  CHECK(l2.claim == "data");
  CHECK(l2.sub_path == "team/runs/7");
  CHECK(l2.replica == "Worker");
  CHECK(find_job_log_dir(j.get<tfjob::TFJob>(), "/mnt/other").claim == "big");
  // not on a claim; no flag at all
  j["spec"]["tfReplicaSpecs"]["Worker"]["template"]["spec"]["containers"][0]["args"] = json::array({"--log_dir=/tmp/logs"});
  CHECK_THROWS_WITH(find_job_log_dir(j.get<tfjob::TFJob>()), Catch::Contains("\"/tmp/logs\", which is not on a PersistentVolumeClaim"));
  j["spec"]["tfReplicaSpecs"]["Worker"]["template"]["spec"]["containers"][0]["args"] = json::array({"train.py"});
  CHECK_THROWS_WITH(find_job_log_dir(j.get<tfjob::TFJob>()), Catch::Contains("names no log directory") && Catch::Contains("(find_job_log_dir::override_dir DIR,"));
}

TEST_CASE("serve flags --model NAME=SOURCE, --version-policy and --version-label parse, and say what is wrong", "[serving][model-config]") {
  auto m = parse_model_flag("mnist=pvc:tfjob-mnist:export/mnist");
  CHECK(m.name == "mnist");
  CHECK(m.base_path == "/models/mnist");
  CHECK(m.source.kind == ModelSource::Kind::pvc);
  CHECK(m.source.claim == "tfjob-mnist");
  CHECK(m.source.path == "export/mnist");
  CHECK(parse_model_flag("a=pvc:models").source.path == "a");  // PATH defaults to NAME
  CHECK(parse_model_flag("r=resnet").source.url == resnet_model_url);
  CHECK(parse_model_flag("c=https://h/m.tar.gz").source.kind == ModelSource::Kind::url);
  CHECK_THROWS_WITH(parse_model_flag("mnist"), Catch::Contains("give NAME=SOURCE"));
  CHECK_THROWS_WITH(parse_model_flag("m=ftp://x"), Catch::Contains("is none of resnet, an http(s):// SavedModel tarball, or pvc:CLAIM[:PATH]"));
  // gs:// is no URL curl fetches: it failed in the init container, after the apply
  CHECK_THROWS_WITH(parse_model_flag("m=gs://bucket/m.tar.gz"),
                    Catch::Contains("\"gs://bucket/m.tar.gz\": gs:// is not fetched (the model is downloaded with curl); give the "
                                    "object's https://storage.googleapis.com/bucket/m.tar.gz URL"));
  CHECK_THROWS_WITH(parse_model_flag("a/b=resnet"), Catch::Contains("model name \"a/b\" may use letters"));
  CHECK_THROWS_WITH(parse_model_flag("m=pvc:c:../x"), Catch::Contains("must stay inside the claim"));

  auto [pm, p] = parse_version_policy_flag("mnist=latest:2");
  CHECK(pm == "mnist");
  CHECK(p.kind == VersionPolicy::Kind::latest);
  CHECK(p.num_versions == 2);
  CHECK(parse_version_policy_flag("all").second.kind == VersionPolicy::Kind::all);
  CHECK(parse_version_policy_flag("specific:1,3").second.versions == std::vector<std::int64_t>{1, 3});
  CHECK_THROWS_WITH(parse_version_policy_flag("latest:0"), Catch::Contains("N is not a whole number from 1"));
  CHECK_THROWS_WITH(parse_version_policy_flag("specific:1,,2"), Catch::Contains("\"\" is not a version number"));
  CHECK_THROWS_WITH(parse_version_policy_flag("newest"), Catch::Contains("give [MODEL=]latest:N, all or specific:V[,V...]"));
  CHECK_THROWS_WITH(parse_version_policy_flag("latest:99999999999999999999"), Catch::Contains("N is not a whole number from 1"));

  // which versions on disk each policy serves (file_system_storage_path_source.proto)
  VersionPolicy latest2;
  latest2.num_versions = 2;
  CHECK(latest2.select({3, 1, 7, 5}) == std::vector<std::int64_t>{5, 7});
  CHECK(parse_version_policy_flag("all").second.select({2, 1}) == std::vector<std::int64_t>{1, 2});
  CHECK(parse_version_policy_flag("specific:1,9").second.select({1, 2, 3}) == std::vector<std::int64_t>{1});

  auto l = parse_label_assignment("mnist:canary=2", "--version-label");
  CHECK(l.model == "mnist");
  CHECK(l.label == "canary");
  CHECK(l.version == 2);
  CHECK_THROWS_WITH(parse_label_assignment("canary", "LABEL=VERSION"), Catch::Contains("give LABEL=VERSION"));
  CHECK_THROWS_WITH(parse_label_assignment("canary=two", "LABEL=VERSION"), Catch::Contains("VERSION is not a model version number"));
  CHECK_THROWS_WITH(parse_label_assignment("can/ary=2", "LABEL=VERSION"), Catch::Contains("LABEL has a character other than letters"));
}

TEST_CASE("the model config renders as TF Serving's text format and reads back, hand-written forms too", "[serving][model-config]") {
  ModelServerConfig c;
  auto a = parse_model_flag("mnist=pvc:tfjob-mnist:export/mnist");
  a.policy = parse_version_policy_flag("specific:1,2").second;
  a.labels = {{"stable", 1}, {"canary", 2}};
  auto b = parse_model_flag("resnet=resnet");
  b.policy = parse_version_policy_flag("latest:2").second;
  c.models = {a, b};
  const std::string text = render_model_config(c);
  CHECK(text.find("model_config_list {\n  config {\n    name: \"mnist\"\n    base_path: \"/models/mnist\"\n"
                  "    model_platform: \"tensorflow\"\n    model_version_policy {\n      specific {\n"
                  "        versions: 1\n        versions: 2\n      }\n    }\n") == 0);
  CHECK(text.find("    version_labels {\n      key: \"canary\"\n      value: 2\n    }\n") != std::string::npos);
  CHECK(text.find("      latest {\n        num_versions: 2\n      }\n") != std::string::npos);
  auto back = parse_model_config(text);
  REQUIRE(back.models.size() == 2);
  CHECK(back.models[0].name == "mnist");
  CHECK(back.models[0].policy == a.policy);
  CHECK(back.models[0].labels == a.labels);
  CHECK(back.models[1].policy == b.policy);

  // as people write it (TF Serving's docs/serving_config.md): single quotes, "field: {", comments
  auto hand = parse_model_config(R"(# two models
model_config_list: {
  config: {
    name: 'email_model', base_path: '/s/saved_models', model_platform: 'tensorflow'
    model_version_policy: { all: {} }
    version_labels { key: 'production' value: 1 }
    logging_config { sampling_config { sampling_rate: 0.1 } }
  }
})");
  REQUIRE(hand.models.size() == 1);
  CHECK(hand.models[0].policy.kind == VersionPolicy::Kind::all);
  CHECK(hand.models[0].labels.at("production") == 1);

  CHECK_THROWS_WITH(parse_model_config("model_config_list {\n config {\n name: \"a\"\n"), Catch::Contains("a message is not closed with '}'"));
  CHECK_THROWS_WITH(parse_model_config("model_config_list {\n config {\n name: \"a\"\n base_path: 7 } }"),
                    "model config line 4: field \"base_path\" takes a quoted string");
  CHECK_THROWS_WITH(parse_model_config("model_config_list { config { base_path: \"/m\" } }"), Catch::Contains("a config has no name"));
  CHECK_THROWS_WITH(parse_model_config("model_config_list { config { name: \"a\" base_path: \"/a\" model_version_policy { newest {} } } }"),
                    Catch::Contains("use latest, all or specific"));
  CHECK_THROWS_WITH(parse_model_config("model_config_list { config { name: 'a' base_path: '/a' } config { name: 'a' base_path: '/b' } }"),
                    Catch::Contains("model \"a\" is configured twice"));
  CHECK_THROWS_WITH(parse_model_config(std::string(40, '{')), Catch::Contains("expected a field name"));
  CHECK_THROWS_WITH(parse_model_config("x " + std::string(40, '{')), Catch::Contains("nested deeper than 16"));

  set_version_label(back, "mnist", "canary", 1);
  CHECK(back.models[0].labels.at("canary") == 1);
  CHECK_THROWS_WITH(set_version_label(back, "nosuch", "canary", 1), "model \"nosuch\" is not served by this server (it serves: mnist, resnet)");
}

TEST_CASE("several models with --batching, --monitoring and --autoscale: both ConfigMaps, both mounts, every flag, PDB and HPA",
          "[serving][model-config][operations]") {
  ServeSpec s;
  s.name = "zoo";
  s.gpus = 0;
  s.cpu = "1";
  s.ops.batching = parse_batching("max_batch_size=8");
  s.ops.monitoring = true;
  s.ops.autoscale = parse_autoscale("1:3:70%");
  ModelServerConfig c;
  c.models = {parse_model_flag("a=pvc:claim:export/a"), parse_model_flag("b=pvc:claim:export/b")};
  auto objs = build_model_config_objects(s, c, 5);
  std::vector<std::string> kinds;
  for (const auto& o : objs) kinds.push_back(o["kind"].get<std::string>() + "/" + o["metadata"]["name"].get<std::string>());
  CHECK(kinds == std::vector<std::string>{"ConfigMap/zoo-models", "ConfigMap/zoo", "Deployment/zoo", "Service/zoo",
                                          "PodDisruptionBudget/zoo", "HorizontalPodAutoscaler/zoo"});
  const json& dep = objs[2];
  CHECK_FALSE(dep["spec"].contains("replicas"));  // the HPA's
  const json& ctr = dep["spec"]["template"]["spec"]["containers"][0];
  const auto args = ctr["args"].get<std::vector<std::string>>();
  for (const char* a : {"--model_config_file=/etc/tfserving-models/models.config", "--enable_batching=true",
                        "--batching_parameters_file=/etc/tfserving/batching_parameters.pbtxt",
                        "--monitoring_config_file=/etc/tfserving/monitoring_config.pbtxt"})
    CHECK(std::find(args.begin(), args.end(), a) != args.end());
  std::set<std::string> paths;
  for (const auto& m : ctr["volumeMounts"]) CHECK(paths.insert(m["mountPath"].get<std::string>()).second);  // no path twice
  CHECK(paths.count("/etc/tfserving") == 1);
  CHECK(paths.count("/etc/tfserving-models") == 1);
}

TEST_CASE("several models: a ConfigMap with the model config, the server reading it on a poll, a volume per model", "[serving][model-config]") {
  ServeSpec s;
  s.name = "zoo";
  s.namespace_ = "team-a";
  s.gpus = 0;
  ModelServerConfig c;
  c.models = {parse_model_flag("mnist=pvc:tfjob-mnist:export/mnist"), parse_model_flag("resnet=resnet")};
  c.models[0].labels = {{"stable", 1}};
  auto objs = build_model_config_objects(s, c, 5);
  REQUIRE(objs.size() == 3);
  const json& cm = objs[0];
  CHECK(cm["kind"] == "ConfigMap");
  CHECK(cm["metadata"]["name"] == "zoo-models");
  CHECK(cm["metadata"]["namespace"] == "team-a");
  CHECK(parse_model_config(cm["data"]["models.config"].get<std::string>()).models.size() == 2);
  const json& dep = objs[1];
  CHECK(dep["kind"] == "Deployment");
  CHECK(dep["metadata"]["annotations"]["serving.kubectl-tfjob.io/models"] == "mnist,resnet");
  CHECK(dep["metadata"]["annotations"]["serving.kubectl-tfjob.io/model-config"] == "zoo-models");
  CHECK(objs[2]["metadata"]["annotations"]["serving.kubectl-tfjob.io/model-config"] == "zoo-models");  // the Service too
  const json& pod = dep["spec"]["template"]["spec"];
  const json& args = pod["containers"][0]["args"];
  CHECK(args == json::array({"--port=8500", "--rest_api_port=8501", "--model_config_file=/etc/tfserving-models/models.config",
                             "--model_config_file_poll_wait_seconds=5"}));
  // the ConfigMap without subPath (the kubelet updates it in place), each model at its base_path
  const json& mounts = pod["containers"][0]["volumeMounts"];
  CHECK(mounts[0] == json{{"name", "model-config"}, {"mountPath", "/etc/tfserving-models"}, {"readOnly", true}});
  CHECK(mounts[1] == json{{"name", "model-0"}, {"mountPath", "/models/mnist"}, {"readOnly", true}, {"subPath", "export/mnist"}});
  CHECK(mounts[2] == json{{"name", "model-1"}, {"mountPath", "/models/resnet"}});
  CHECK(pod["volumes"][1]["persistentVolumeClaim"]["claimName"] == "tfjob-mnist");
  CHECK(pod["volumes"][2].contains("emptyDir"));
  REQUIRE(pod["initContainers"].size() == 1);  // only the downloaded model needs one
  CHECK(pod["initContainers"][0]["name"] == "fetch-1");
  CHECK(pod["initContainers"][0]["volumeMounts"][0]["mountPath"] == "/models/resnet");
  CHECK(pod["containers"][0]["readinessProbe"]["httpGet"]["path"] == "/v1/models/mnist");

  // two models on one claim: one volume, two subPath mounts
  ModelServerConfig two;
  two.models = {parse_model_flag("a=pvc:models:export/a"), parse_model_flag("b=pvc:models:export/b")};
  auto two_pod = build_model_config_objects(s, two)[1]["spec"]["template"]["spec"];
  CHECK(two_pod["volumes"].size() == 2);  // the ConfigMap and the claim
  CHECK(two_pod["containers"][0]["volumeMounts"][2] ==
        json{{"name", "model-0"}, {"mountPath", "/models/b"}, {"readOnly", true}, {"subPath", "export/b"}});

  c.models[0].policy = parse_version_policy_flag("specific:2").second;
  CHECK_THROWS_WITH(build_model_config_objects(s, c), Catch::Contains("version 1 is not among the versions its policy serves (specific:2)"));
  c.models[1].name = "mnist";
  c.models[0].labels.clear();
  CHECK_THROWS_WITH(build_model_config_objects(s, c), Catch::Contains("ModelServerConfig::models mnist is given twice"));
}

TEST_CASE("the simulated TF Serving reads a model config: policies pick versions, a label may only name an AVAILABLE one", "[serving][model-config]") {
  const std::string cfg = R"(model_config_list {
  config { name: "a" base_path: "/models/a" model_platform: "tensorflow"
           model_version_policy { latest { num_versions: 2 } } version_labels { key: "stable" value: 2 } }
  config { name: "b" base_path: "/models/b" model_platform: "tensorflow" model_version_policy { specific { versions: 1 } } }
})";
  auto disk = [](const std::string& base) { return base == "/models/a" ? std::vector<int>{1, 2, 3} : std::vector<int>{1, 2}; };
  auto load = tfjob::test::load_model_config(cfg, disk, {}, false);
  CHECK(load.error.empty());
  REQUIRE(load.models.size() == 2);
  CHECK(load.models[0].versions == std::vector<int>{2, 3});
  CHECK(load.models[0].labels == std::map<std::string, int>{{"stable", 2}});
  CHECK(load.models[1].versions == std::vector<int>{1});

  // stable -> 1: version 1 of "a" is not served (latest 2 = 2, 3): refused, the labels in force stay
  std::string moved = cfg;
  moved.replace(moved.find("value: 2"), 8, "value: 1");
  auto refused = tfjob::test::load_model_config(moved, disk, {{"a", {{"stable", 2}}}}, false);
  CHECK(refused.error == "Request to assign label to version 1 of model a, which is not currently available for inference.");
  CHECK(refused.models[0].labels.at("stable") == 2);
  CHECK(tfjob::test::load_model_config(moved, disk, {{"a", {{"stable", 2}}}}, true).models[0].labels.at("stable") == 1);
  CHECK_FALSE(tfjob::test::load_model_config("model_config_list {", disk, {}, false).error.empty());

  // the REST answers of a model serving 2 and 3: all versions' status, a label's own version
  tfjob::test::ServedModel m;
  m.versions = {2, 3};
  m.labels = {{"stable", 2}};
  m.version_signatures = {{3, tfjob::test::mnist_signatures()}};
  auto st = parse_model_status(tfjob::test::model_rest("GET", *tfjob::test::parse_model_path("/v1/models/a"), "", m).body);
  CHECK(st.available_versions() == std::vector<std::string>{"2", "3"});
  auto by_label = parse_model_status(tfjob::test::model_rest("GET", *tfjob::test::parse_model_path("/v1/models/a/labels/stable"), "", m).body);
  REQUIRE(by_label.versions.size() == 1);
  CHECK(by_label.versions[0].version == "2");
  auto latest_meta = json::parse(tfjob::test::model_rest("GET", *tfjob::test::parse_model_path("/v1/models/a/metadata"), "", m).body);
  CHECK(latest_meta["model_spec"]["version"] == "3");
  CHECK(latest_meta["metadata"]["signature_def"]["signature_def"]["serving_default"]["inputs"].contains("images"));  // v3's own
  CHECK(tfjob::test::model_rest("GET", *tfjob::test::parse_model_path("/v1/models/a/versions/1"), "", m).status == 404);
}

TEST_CASE("serve --from-job: the trainer's --export-dir on its claim, and the TF release of the images", "[serving][from-job]") {
  json job = json::parse(R"({"apiVersion": "kubeflow.org/v1", "kind": "TFJob", "metadata": {"name": "mnist"},
    "spec": {"tfReplicaSpecs": {
      "Chief": {"template": {"spec": {
        "containers": [{"name": "tensorflow", "image": "tensorflow/tensorflow:2.18.0-gpu",
                        "args": ["python", "mnist.py", "--export-dir=/train/export/mnist"],
                        "volumeMounts": [{"name": "train", "mountPath": "/train"}, {"name": "tmp", "mountPath": "/train/tmp"}]}],
        "volumes": [{"name": "train", "persistentVolumeClaim": {"claimName": "tfjob-mnist"}}, {"name": "tmp", "emptyDir": {}}]}}},
      "Worker": {"replicas": 2, "template": {"spec": {"containers": [{"name": "tensorflow", "image": "x"}]}}}}}})");
  auto e = job_export(job.get<tfjob::TFJob>());
  CHECK(e.replica == "Chief");
  CHECK(e.claim == "tfjob-mnist");
  CHECK(e.path == "export/mnist");
  CHECK(e.container_path == "/train/export/mnist");
  CHECK(e.image == "tensorflow/tensorflow:2.18.0-gpu");
  auto m = model_from_export("mnist", e);
  CHECK(m.source.claim == "tfjob-mnist");
  CHECK(m.source.path == "export/mnist");
  // --export-dir given: wins; a subPath mount is followed; a directory on no claim is refused
  CHECK(job_export(job.get<tfjob::TFJob>(), "/train/./other/../models").path == "models");
  CHECK_THROWS_WITH(job_export(job.get<tfjob::TFJob>(), "/train/tmp/m"), Catch::Contains("is on no persistent volume claim"));
  CHECK_THROWS_WITH(job_export(job.get<tfjob::TFJob>(), "models"), Catch::Contains("is not an absolute path"));
  json sub = job;
  sub["spec"]["tfReplicaSpecs"]["Chief"]["template"]["spec"]["containers"][0]["volumeMounts"][0]["subPath"] = "runs/7";
  CHECK(job_export(sub.get<tfjob::TFJob>()).path == "runs/7/export/mnist");
  json none = job;
  none["spec"]["tfReplicaSpecs"]["Chief"]["template"]["spec"]["containers"][0]["args"] = json::array({"python", "mnist.py"});
  CHECK_THROWS_WITH(job_export(none.get<tfjob::TFJob>()), Catch::Contains("no --export-dir in the args of its Chief, Worker containers"));
  json sep = job;
  sep["spec"]["tfReplicaSpecs"]["Chief"]["template"]["spec"]["containers"][0]["args"] = json::array({"--export_dir", "/train/e"});
  CHECK(job_export(sep.get<tfjob::TFJob>()).path == "e");

  CHECK(tf_release_of_image("tensorflow/tensorflow:2.18.0-gpu") == "2.18.0");
  CHECK(tf_release_of_image("registry:5000/team/trainer:2.15") == "2.15");
  CHECK(tf_release_of_image("registry:5000/team/trainer") == "");
  CHECK(tf_release_of_image("tensorflow/tensorflow:latest-gpu") == "");
  CHECK(tf_version_warning("2.18.0", "training image tensorflow/tensorflow:2.18.0-gpu", "2.16.1", "tensorflow/serving:2.16.1") ==
        "the model was exported by TensorFlow 2.18.0 (training image tensorflow/tensorflow:2.18.0-gpu) and is served by TF Serving "
        "2.16.1 (tensorflow/serving:2.16.1): a SavedModel from a newer TensorFlow may use ops this server does not know "
        "(\"Op type not registered\"); serve it with TF Serving 2.18.0 or newer (ServeSpec::serving_version 2.18.0)");
  CHECK(tf_version_warning("2.16.0", "x", "2.16.1", "y").empty());  // same minor release: loads
  CHECK(tf_version_warning("2.15.0", "x", "2.16.1", "y").empty());
  CHECK(tf_version_warning("", "x", "2.16.1", "y").empty());
  CHECK(tf_version_warning("99999999999.1", "x", "2.16.1", "y").empty());  // not a release: no overflow, no warning
}

// ---- the export check (export_check.hpp) and the SavedModel's own TF version (saved_model.hpp)

#include <tfjob/serving/export_check.hpp>
#include <tfjob/serving/saved_model.hpp>
#include "support/saved_model_bytes.hpp"

TEST_CASE("saved_model_info reads MetaInfoDef.tensorflow_version from a prefix, and is safe on anything else", "[serving][unit][export-check]") {
  const std::string pb = tfjob::test::saved_model_pb("2.18.0", 5000, 100000);
  auto i = saved_model_info(pb);
  CHECK(i.parsed);
  CHECK(i.tensorflow_version == "2.18.0");
  CHECK(i.tensorflow_git_version == "v2.18.0-rc0-g1234567");
  // a prefix that holds the MetaInfoDef is enough: the graph after it is cut
  auto p = saved_model_info(pb.substr(0, 6000));
  CHECK(p.tensorflow_version == "2.18.0");
  // a prefix ending inside the op list: not reached, said so
  auto t = saved_model_info(pb.substr(0, 1000));
  CHECK(t.parsed);
  CHECK(t.tensorflow_version.empty());
  CHECK(t.truncated);
  // not a SavedModel at all (the real-node tier's stand-in files), empty, hostile varints
  CHECK_FALSE(saved_model_info("not a real SavedModel: the stand-in serves what it finds").parsed);
  CHECK_FALSE(saved_model_info("").parsed);
  CHECK_FALSE(saved_model_info(std::string(20, '\xff')).parsed);
  CHECK(saved_model_info(std::string("\x12\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 11)).tensorflow_version.empty());
  // a version with control characters is not taken as one
  CHECK(saved_model_info(tfjob::test::saved_model_pb(std::string("2.1\n8", 5))).tensorflow_version.empty());
}

TEST_CASE("the export check pod: claim read-only, the path as data (not in the script), the server's node selector", "[serving][unit][export-check]") {
  ExportCheckSpec s;
  s.server = "mnist";
  s.namespace_ = "ml";
  s.claim = "tfjob-mnist";
  s.path = "export/it's \"mine\"; rm -rf /";
  s.image = "tensorflow/serving:2.16.1-gpu";
  s.node_selector = {{"nvidia.com/gpu.present", "true"}};
  s.pod_name = "export-check-mnist-abcde";
  auto pod = build_export_check_pod(s);
  CHECK(pod["metadata"]["name"] == "export-check-mnist-abcde");
  CHECK(pod["metadata"]["namespace"] == "ml");
  CHECK(pod["metadata"]["labels"]["app.kubernetes.io/name"] == "tfjob-export-check");
  const auto& spec = pod["spec"];
  CHECK(spec["restartPolicy"] == "Never");
  CHECK(spec["automountServiceAccountToken"] == false);
  CHECK(spec["nodeSelector"]["nvidia.com/gpu.present"] == "true");
  CHECK(spec["volumes"][0]["persistentVolumeClaim"] == json({{"claimName", "tfjob-mnist"}, {"readOnly", true}}));
  const auto& c = spec["containers"][0];
  CHECK(c["volumeMounts"][0]["readOnly"] == true);
  CHECK_FALSE(c["volumeMounts"][0].contains("subPath"));
  CHECK(c["env"][0] == json({{"name", "EXPORT_DIR"}, {"value", s.path}}));
  CHECK(c["command"][2].get<std::string>().find("rm -rf") == std::string::npos);  // the path never enters the script
  CHECK(c["image"] == "tensorflow/serving:2.16.1-gpu");
  s.claim.clear();
  CHECK_THROWS_WITH(build_export_check_pod(s), Catch::Contains("needs a claim"));
}

TEST_CASE("the export check's log: versions, sizes, heads, and the verdict", "[serving][unit][export-check]") {
  const std::string head = tfjob::kube::detail::base64_encode(tfjob::test::saved_model_pb("2.18.0").substr(0, 2000));
  std::string b64;  // wrapped at 76 columns, as base64(1) writes it
  for (std::size_t i = 0; i < head.size(); i += 76) b64 += head.substr(i, 76) + "\n";
  const std::string log = "some image banner\ntfjob-export-check v1\nfile README\ndir tmp\ndir 1\npb   4096 1\nwarmup 1\n"
                          "dir 2\npb 70000 2\nhead 2\n" + b64 + "endhead\ndir 3\nend\n";
  auto l = parse_export_check_log(log);
  REQUIRE(l.complete);
  CHECK(l.exists);
  CHECK(l.files == std::vector<std::string>{"README"});
  CHECK(l.other_dirs == std::vector<std::string>{"tmp"});
  REQUIRE(l.versions.size() == 3);
  CHECK(l.versions[0].pb_size == 4096);
  CHECK(l.versions[0].warmup);
  CHECK(l.versions[1].pb_size == 70000);
  CHECK_FALSE(l.versions[2].saved_model_pb);
  auto v = judge_export(l, "export/mnist", "model \"mnist\"");
  REQUIRE(v.errors.size() == 1);
  CHECK(v.errors[0] == "model \"mnist\": version directory export/mnist/3 has no saved_model.pb, so TF Serving cannot load version 3 "
                       "(an export still being written, or one that failed: remove the directory or export again)");
  REQUIRE(v.warnings.size() == 1);
  CHECK(v.warnings[0] == "model \"mnist\": version 2 has no warmup file (export/mnist/2/assets.extra/tf_serving_warmup_requests): "
                         "the first requests will be slow");
  CHECK(v.tensorflow_version == "2.18.0");
  CHECK(v.tensorflow_from == "saved_model.pb of version 2 (export/mnist/2)");
  CHECK(v.versions == std::vector<std::int64_t>{1, 2});
  CHECK(export_tf_warning(v, "tensorflow/tensorflow:2.15.0", "2.16.1", "tensorflow/serving:2.16.1").str() ==
        "the model was exported by TensorFlow 2.18.0 (saved_model.pb of version 2 (export/mnist/2)) and is served by TF Serving 2.16.1 "
        "(tensorflow/serving:2.16.1): a SavedModel from a newer TensorFlow may use ops this server does not know (\"Op type not "
        "registered\"); serve it with TF Serving 2.18.0 or newer (ServeSpec::serving_version 2.18.0)");
  ExportVerdict none;  // the SavedModel's version unknown: the training image's tag decides
  CHECK(export_tf_warning(none, "tensorflow/tensorflow:2.18.0", "2.16.1", "tensorflow/serving:2.16.1")
            .str()
            .find("(training image tensorflow/tensorflow:2.18.0)") != std::string::npos);

  // a SavedModel straight in the directory, no version directory
  auto flat = judge_export(parse_export_check_log("tfjob-export-check v1\nfile saved_model.pb\ndir variables\nend\n"), "export", "m");
  REQUIRE(flat.errors.size() == 1);
  CHECK(flat.errors[0] == "m: no version directory in export (it holds saved_model.pb, variables/): TF Serving serves "
                          "export/<number>/saved_model.pb; a SavedModel written straight into export is never found: move it into export/1/");
  auto gone = judge_export(parse_export_check_log("tfjob-export-check v1\nnodir\nend\n"), "export", "m");
  CHECK(gone.errors.at(0).find("the directory export does not exist on the claim") != std::string::npos);
  auto cut = judge_export(parse_export_check_log("tfjob-export-check v1\ndir 1\n"), "export", "m");
  CHECK(cut.errors.at(0).find("did not finish its listing") != std::string::npos);
  auto empty = judge_export(parse_export_check_log("tfjob-export-check v1\ndir 1\npb 0 1\nend\n"), "", "m");
  CHECK(empty.errors.at(0) == "m: 1/saved_model.pb is empty (0 bytes): an export that did not finish");
  // bounded: a hostile log with a million version lines keeps at most export_check_max_entries
  std::string many = "tfjob-export-check v1\n";
  for (int i = 0; i < 5000; ++i) many += "dir " + std::to_string(i) + "\npb 1 " + std::to_string(i) + "\n";
  CHECK(parse_export_check_log(many + "end\n").versions.size() == export_check_max_entries);
}

TEST_CASE("the real-node scenario's saved_model.pb bytes read as TensorFlow 2.18.0", "[serving][unit][export-check]") {
  // tests/realnode/scenarios.sh serve-from-job writes these bytes as the trainer's export
  auto b = tfjob::kube::detail::base64_decode("CAESNgotCgR2MS4wEgkKBwoFQ29uc3QiBXNlcnZlKgYyLjE4LjAyC3YyLjE4LjAtcmMwEgVncmFwaA==");
  REQUIRE(b);
  CHECK(saved_model_info(*b).tensorflow_version == "2.18.0");
  CHECK(saved_model_info(*b).tensorflow_git_version == "v2.18.0-rc0");
}

TEST_CASE("autoscaler_status reads an HPA as the HPA controller reports it, totally", "[serving][unit][operations]") {
  auto hpa = json::parse(R"({"spec": {"minReplicas": 1, "maxReplicas": 3, "metrics": [{"type": "Resource",
      "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 50}}}]},
    "status": {"currentReplicas": 1, "desiredReplicas": 1, "conditions": [
      {"type": "AbleToScale", "status": "True", "reason": "SucceededGetScale", "message": "the HPA controller was able to get the target's current scale"},
      {"type": "ScalingActive", "status": "False", "reason": "FailedGetResourceMetric",
       "message": "the HPA was unable to compute the replica count: unable to get metrics for resource cpu"}]}})");
  auto a = autoscaler_status(hpa);
  CHECK(a.min == 1);
  CHECK(a.max == 3);
  CHECK(a.target_cpu_percent == 50);
  CHECK(a.current_replicas == 1);
  CHECK_FALSE(a.current_cpu_percent);
  REQUIRE(a.conditions.size() == 2);
  CHECK(a.conditions[1].reason == "FailedGetResourceMetric");
  CHECK(a.no_metrics());
  hpa["status"]["currentMetrics"] = json::parse(R"([{"type": "Resource", "resource": {"name": "cpu", "current": {"averageUtilization": 37}}}])");
  hpa["status"]["conditions"][1]["status"] = "True";
  a = autoscaler_status(hpa);
  CHECK(a.current_cpu_percent == 37);
  CHECK_FALSE(a.no_metrics());
  // fields of the wrong type are left out, not thrown about
  auto odd = autoscaler_status(json::parse(R"({"spec": {"minReplicas": "two", "metrics": 5}, "status": {"conditions": [3, {"type": 1}], "currentReplicas": -4}})"));
  CHECK(odd.min == 1);
  CHECK(odd.conditions.empty());
  CHECK_FALSE(odd.current_replicas);
}

TEST_CASE("an HPA is decoded into its type and written back unchanged, and serve's own decodes to itself", "[serving][unit][operations][roundtrip]") {
  // as the HPA controller of Kubernetes 1.34 writes it: a behavior, a Pods metric and a
  // condition time the type does not model are kept
  const json j = json::parse(R"({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
    "metadata": {"name": "resnet", "namespace": "default", "resourceVersion": "7", "labels": {"app.kubernetes.io/instance": "resnet"}},
    "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "resnet"}, "minReplicas": 2, "maxReplicas": 6,
             "metrics": [{"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 70}}},
                         {"type": "Pods", "pods": {"metric": {"name": "qps"}, "target": {"type": "AverageValue", "averageValue": "10"}}}],
             "behavior": {"scaleDown": {"stabilizationWindowSeconds": 300}}},
    "status": {"currentReplicas": 3, "desiredReplicas": 4, "lastScaleTime": "2026-01-01T00:00:00Z",
               "currentMetrics": [{"type": "Resource", "resource": {"name": "cpu", "current": {"averageUtilization": 91, "averageValue": "455m"}}}],
               "conditions": [{"type": "AbleToScale", "status": "True", "reason": "ReadyForNewScale", "lastTransitionTime": "2026-01-01T00:00:00Z"}]}})");
  const auto hpa = j.get<tfjob::k8s::HorizontalPodAutoscaler>();
  CHECK(hpa.spec.max_replicas == 6);
  REQUIRE(hpa.spec.metrics.size() == 2);
  CHECK_FALSE(hpa.spec.metrics[1].resource.has_value());
  CHECK(hpa.spec.metrics[1].other.contains("pods"));
  CHECK(json(hpa) == j);
  auto a = autoscaler_status(hpa);
  CHECK(a.min == 2);
  CHECK(a.max == 6);
  CHECK(a.target_cpu_percent == 70);
  CHECK(a.current_cpu_percent == 91);
  CHECK(a.desired_replicas == 4);
  REQUIRE(a.conditions.size() == 1);
  CHECK(a.conditions[0].reason == "ReadyForNewScale");

  ServeOperations ops;
  ops.autoscale = Autoscale{1, 5, 60};
  const auto built = build_hpa("resnet", "default", json{{"app.kubernetes.io/instance", "resnet"}}, ops);
  REQUIRE(built);
  CHECK((*built)["spec"]["metrics"][0] ==
        json::parse(R"({"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 60}}})"));
  CHECK((*built)["spec"]["scaleTargetRef"]["name"] == "resnet");
  CHECK(json(built->get<tfjob::k8s::HorizontalPodAutoscaler>()) == *built);
}

namespace {
/// What one pod asks of a node counted the way a cautious reader would: every container's
/// request and every init container's, added up (more than the scheduler's rule, which takes
/// the largest init container only when it is larger than the containers' sum).
std::pair<std::int64_t, std::int64_t> all_requests(const json& pod_spec) {
  std::int64_t cpu = 0, mem = 0;
  for (const char* list : {"containers", "initContainers"})
    for (const auto& c : pod_spec.value(list, json::array())) {
      const json r = c.value("resources", json::object()).value("requests", json::object());
      if (r.contains("cpu")) cpu += tfjob::Quantity::parse(r["cpu"].get<std::string>()).milli_value();
      if (r.contains("memory")) mem += tfjob::Quantity::parse(r["memory"].get<std::string>()).int_value();
    }
  return {cpu, mem};
}

/// serve NAME --model resnet --profile edge, as objects.
std::vector<json> edge_objects(int replicas = 1, bool keep_replicas = false) {
  ServeSpec s = resnet();
  s.name = "edge";
  s.replicas = replicas;
  ProfileKeep keep;
  keep.replicas = keep_replicas;
  apply_profile(s, edge_profile(), keep);
  return build_objects(s);
}

const json& deployment_of(const std::vector<json>& objs) {
  for (const auto& o : objs)
    if (o.value("kind", "") == "Deployment") return o;
  FAIL("no Deployment");
  return objs.front();
}
}  // namespace

TEST_CASE("the edge profile's budget: the documented node less the kubelet's reservations and the system pods, each sourced",
          "[serving][profile]") {
  const auto p = edge_profile();
  const auto& n = p.node;
  CHECK(n.capacity.cpu_milli == 2000);
  CHECK(n.capacity.memory_bytes == 4096LL * 1024 * 1024);
  CHECK_FALSE(n.capacity.estimate);  // GDC's documented minimum
  CHECK(n.capacity.source.find("node-machine-prerequisites") != std::string::npos);
  // 80m + 1% of 2 CPUs; 330 MiB + 5% of 4 GiB; the 100 MiB eviction threshold
  CHECK(n.allocatable_cpu_milli() == 1900);
  CHECK(mib_text(n.allocatable_memory_bytes()) == "3461Mi");
  // kubeadm's control plane requests, CoreDNS's, and the estimate for GDC's add-ons
  CHECK(n.free_cpu_milli() == 650);
  CHECK(mib_text(n.free_memory_bytes()) == "2267Mi");
  for (const auto& l : n.reserved) CHECK(l.estimate);  // bare metal publishes none: said so
  for (const auto& l : n.system_pods) {
    INFO(l.what);
    CHECK_FALSE(l.source.empty());
  }
  const std::string text = budget_text(n);
  CHECK(text.find("= 1900m CPU, 3461Mi: the node's allocatable") != std::string::npos);
  CHECK(text.find("= 650m CPU, 2267Mi: left for the model server") != std::string::npos);
  CHECK(text.find("[estimate]") != std::string::npos);
  CHECK(profile_names() == std::vector<std::string>{"edge"});
  try {
    find_profile("tiny");
    FAIL("an unknown profile was accepted");
  } catch (const tfjob::error& e) {
    CHECK(std::string(e.what()) == "ServingProfile::name \"tiny\" is not a serving profile (known: edge)");
    CHECK(e.reason() == tfjob::reasons::invalid_setting);
  }
}

TEST_CASE("serve --profile edge: the rendered objects' requests, init containers included, fit the edge node, and too many do not",
          "[serving][profile]") {
  const auto p = edge_profile();
  const auto objs = edge_objects();
  const json& d = deployment_of(objs);
  const json pod = d["spec"]["template"]["spec"];
  // the download's init container carries requests too, so nothing on the pod is unaccounted
  REQUIRE(pod["initContainers"].size() == 1);
  CHECK(pod["initContainers"][0]["resources"]["requests"] == json({{"cpu", "100m"}, {"memory", "128Mi"}}));
  // one replica, and no surge pod during a rollout: one pod at a time on the node
  CHECK(d["spec"]["replicas"] == 1);
  CHECK(d["spec"]["strategy"] == json({{"type", "RollingUpdate"}, {"rollingUpdate", {{"maxSurge", 0}, {"maxUnavailable", 1}}}}));
  const auto [cpu, mem] = all_requests(pod);
  CHECK(cpu == 600);                                  // 500m TF Serving + 100m the download
  CHECK(mem == (1536LL + 128) * 1024 * 1024);
  CHECK(cpu <= p.node.free_cpu_milli());              // 650m left
  CHECK(mem <= p.node.free_memory_bytes());           // 2267Mi left
  CHECK(cpu <= p.node.allocatable_cpu_milli());
  auto f = fit_to_node(objs, p.node);
  INFO(f.problems.size());
  CHECK(f.ok());
  CHECK(f.pods == 1);
  CHECK(f.pod_cpu_milli == 500);  // the scheduler's rule: the init container (100m) is not larger than the containers' sum
  CHECK(f.limit_memory_bytes == 1536LL * 1024 * 1024);

  // two replicas: 1000m does not fit in 650m
  auto two = fit_to_node(edge_objects(2, true), p.node);
  REQUIRE_FALSE(two.ok());
  CHECK(two.problems.at(0) ==
        "the server's pods request 1 CPU (2 replicas x 500m) but only 650m is left on the node after what the cluster keeps for itself "
        "(allocatable 1900m CPU, 3461Mi memory, less its own pods' requests)");
  CHECK(two.problems.at(1).find("the server's pods request 3072Mi of memory (2 replicas x 1536Mi) but only 2267Mi is left") == 0);
  // the same server with Kubernetes' default rollout: a surge pod beside the old one
  auto surging = edge_objects();
  for (auto& o : surging)
    if (o.value("kind", "") == "Deployment") o["spec"].erase("strategy");
  auto sf = fit_to_node(surging, p.node);
  REQUIRE_FALSE(sf.ok());
  CHECK(sf.problems.at(0).find("(1 replica + 1 surge pod during a rollout x 500m)") != std::string::npos);
  // an init container larger than the rest counts by itself (the scheduler's rule)
  auto big_init = edge_objects();
  for (auto& o : big_init)
    if (o.value("kind", "") == "Deployment")
      o["spec"]["template"]["spec"]["initContainers"][0]["resources"]["requests"]["memory"] = "3Gi";
  auto bf = fit_to_node(big_init, p.node);
  REQUIRE_FALSE(bf.ok());
  CHECK(bf.problems.at(0).find("request 3072Mi of memory (1 replica x 3072Mi)") != std::string::npos);
  // an autoscaler may scale it to its maximum: that is what must fit
  ServeSpec a = resnet();
  apply_profile(a, p);
  a.ops.autoscale = Autoscale{1, 3, 80};
  auto af = fit_to_node(build_objects(a), p.node);
  REQUIRE_FALSE(af.ok());
  CHECK(af.problems.at(0).find("3 replicas (the autoscaler's maximum)") != std::string::npos);
}

TEST_CASE("apply_profile: the CPU image, TF Serving's thread and batching settings for 2 vCPUs, what was given kept",
          "[serving][profile]") {
  const auto p = edge_profile();
  ServeSpec s = resnet();
  apply_profile(s, p);
  CHECK(s.gpus == 0);
  CHECK(s.effective_image() == std::string("tensorflow/serving:") + default_serving_version);  // TF Serving's CPU image
  const auto objs = build_objects(s);
  const json& d = deployment_of(objs);
  const json c = d["spec"]["template"]["spec"]["containers"][0];
  CHECK(c["resources"] == json({{"requests", {{"cpu", "500m"}, {"memory", "1536Mi"}}}, {"limits", {{"cpu", "2"}, {"memory", "1536Mi"}}}}));
  const auto args = c["args"].get<std::vector<std::string>>();
  for (const char* a : {"--tensorflow_intra_op_parallelism=2", "--tensorflow_inter_op_parallelism=1", "--rest_api_num_threads=16",
                        "--enable_batching=true"})
    CHECK(std::find(args.begin(), args.end(), a) != args.end());
  // TF Serving refuses session parallelism together with both intra- and inter-op (server.cc)
  CHECK(std::none_of(args.begin(), args.end(), [](const std::string& a) { return a.rfind("--tensorflow_session_parallelism", 0) == 0; }));
  std::string batching;
  for (const auto& o : objs)
    if (o.value("kind", "") == "ConfigMap") batching = o["data"][batching_file].get<std::string>();
  CHECK(batching == "max_batch_size { value: 8 }\nbatch_timeout_micros { value: 0 }\nmax_enqueued_batches { value: 2 }\n"
                    "num_batch_threads { value: 2 }\n");
  // given on purpose: kept (and judged by the fit), the thread flag the user set not added twice
  ServeSpec k = resnet();
  k.cpu = "1";
  k.memory = "2Gi";
  k.replicas = 1;
  k.extra_args = {"--rest_api_num_threads=4"};
  ProfileKeep keep;
  keep.cpu = keep.memory = true;
  apply_profile(k, p, keep);
  CHECK(k.cpu == "1");
  CHECK(k.cpu_limit.empty());
  CHECK(k.memory == "2Gi");
  CHECK(std::count_if(k.extra_args.begin(), k.extra_args.end(), [](const std::string& a) { return a.rfind("--rest_api_num_threads", 0) == 0; }) == 1);
  CHECK_FALSE(fit_to_node(build_objects(k), p.node).ok());  // 1 CPU is more than the 650m left
  // GPUs asked for on purpose: refused, naming the setting
  ServeSpec g = resnet();
  g.gpus = 1;
  ProfileKeep gk;
  gk.gpus = true;
  try {
    apply_profile(g, p, gk);
    FAIL("a GPU server was shaped by the edge profile");
  } catch (const tfjob::error& e) {
    CHECK(std::string(e.what()) == "ServeSpec::gpus 1: the edge profile serves on CPUs (its nodes have no GPU); leave it out or give 0");
  }
  // a CPU limit below the request is what the API server refuses
  ServeSpec bad = resnet();
  bad.gpus = 0;
  bad.cpu = "2";
  bad.cpu_limit = "1";
  CHECK_THROWS_WITH(validate(bad), Catch::Contains("ServeSpec::cpu_limit 1 is less than the CPU request (ServeSpec::cpu 2)"));
}

TEST_CASE("the model's size against the server's memory: ResNet-50 fits the edge profile, a 700 MB model does not",
          "[serving][profile]") {
  const auto p = edge_profile();
  ServeSpec s = resnet();
  apply_profile(s, p);
  const auto r = resnet_model_size();
  CHECK(r.bytes == 98000000);
  // 200 MiB runtime + 2 x 98 MB + 8 images x 32 MiB = about 642 MiB, within 1536Mi
  CHECK(mib_text(estimated_server_memory(p, r.bytes, 8)) == "642Mi");
  CHECK_FALSE(model_fit(s, p, r));
  const auto w = model_fit(s, p, {700LL * 1000 * 1000, "the export check: version 1"});
  REQUIRE(w);
  CHECK(w->str().find("the model is 667Mi (the export check: version 1); TF Serving would need about 1791Mi to serve it in batches of up "
                "to 8") == 0);
  CHECK(w->str().find("but the server's memory limit is 1536Mi") != std::string::npos);
  // its advice names the settings by key
  CHECK(w->settings() == std::vector<tfjob::setting>{tfjob::setting::serve_batching, tfjob::setting::serve_memory});
  // fewer images a batch lowers the estimate
  s.ops.batching->max_batch_size = 1;
  CHECK(mib_text(estimated_server_memory(p, 700LL * 1000 * 1000, 1)) == "1567Mi");
}

TEST_CASE("the export check weighs the model: its variables/ read by the script, the highest version's size in the verdict",
          "[serving][unit][export-check]") {
  auto l = parse_export_check_log("tfjob-export-check v1\ndir 1\npb 4096 1\nvars 1000 1\ndir 2\npb 5000 2\nvars   98000000 2\nend\n");
  REQUIRE(l.versions.size() == 2);
  CHECK(l.versions[1].variables_size == 98000000);
  auto v = judge_export(l, "export/m", "m");
  REQUIRE(v.model_bytes);
  CHECK(*v.model_bytes == 98005000);
  CHECK(v.model_from == "the export check: saved_model.pb and variables/ of version 2 (export/m/2)");
  // a SavedModel without variables/: its size is not known
  CHECK_FALSE(judge_export(parse_export_check_log("tfjob-export-check v1\ndir 1\npb 10 1\nend\n"), "", "m").model_bytes);

  // the script itself, on a real directory (its /export mount stood in for by a temp dir)
  const std::string root = tfjob::test::temp_dir("export-check-script");
  std::filesystem::create_directories(root + "/m/3/variables");
  std::ofstream(root + "/m/3/saved_model.pb", std::ios::binary) << std::string(300, 'p');
  std::ofstream(root + "/m/3/variables/variables.index", std::ios::binary) << std::string(123, 'i');
  std::ofstream(root + "/m/3/variables/variables.data-00000-of-00001", std::ios::binary) << std::string(4000, 'd');
  std::string script = export_check_script();
  const std::string mount = "d=\"/export/${EXPORT_DIR}\"";
  REQUIRE(script.find(mount) == 0);
  script.replace(0, mount.size(), "d=\"" + root + "/${EXPORT_DIR}\"");
  std::ofstream(root + "/check.sh") << script;
  const std::string out = root + "/out.log";
  REQUIRE(std::system(("EXPORT_DIR=m sh " + root + "/check.sh > " + out).c_str()) == 0);
  std::ifstream in(out);
  std::stringstream log;
  log << in.rdbuf();
  INFO(log.str());
  auto got = judge_export(parse_export_check_log(log.str()), "m", "m");
  REQUIRE(got.model_bytes);
  CHECK(*got.model_bytes == 300 + 123 + 4000);
}

TEST_CASE("capacity_findings: the server's requests against what each node has left, its own old pods not counted",
          "[serving][profile]") {
  ServeSpec s = resnet();
  s.namespace_ = "default";
  apply_profile(s, edge_profile());
  json d = build_deployment(s);
  auto node = [](const std::string& cpu, const std::string& mem) {
    return json{{"metadata", {{"name", "edge-node"}, {"labels", json::object()}}},
                {"status", {{"allocatable", {{"cpu", cpu}, {"memory", mem}}}}}};
  };
  auto pod = [](const std::string& name, const std::string& cpu, const std::string& mem, json labels = json::object()) {
    return json{{"metadata", {{"name", name}, {"namespace", "default"}, {"labels", labels}}},
                {"spec", {{"nodeName", "edge-node"}, {"containers", {{{"name", "c"}, {"resources", {{"requests", {{"cpu", cpu}, {"memory", mem}}}}}}}}}},
                {"status", {{"phase", "Running"}}}};
  };
  const std::vector<json> nodes = {node("1900m", "3461Mi")};
  // the cluster's own pods leave 650m: the server (500m, 1536Mi) fits
  std::vector<json> pods = {pod("system", "1250m", "1194Mi")};
  CHECK(capacity_findings(d.get<tfjob::k8s::Deployment>(), nodes, pods).empty());
  // another workload takes 200m: no room
  pods.push_back(pod("other", "200m", "64Mi"));
  auto f = capacity_findings(d.get<tfjob::k8s::Deployment>(), nodes, pods);
  REQUIRE(f.size() == 1);
  CHECK(f[0].is_error());
  CHECK(f[0].code == "ServerFitsNoNode");
  CHECK(f[0].message == "each server pod requests 500m CPU and 1536Mi of memory but no node it may use has that much free, so its pods "
                        "would stay Pending");
  CHECK(f[0].evidence.at(0) == "node edge-node: allocatable 1900m CPU, 3461Mi; its pods request 1450m, 1258Mi; free 450m, 2203Mi");
  // the same server's earlier pod is replaced, not counted
  pods.back() = pod("resnet-abc", "500m", "1536Mi", selector_labels("resnet"));
  CHECK(capacity_findings(d.get<tfjob::k8s::Deployment>(), nodes, pods).empty());
  // a server that requests nothing is not judged
  CHECK(capacity_findings(build_deployment(resnet()).get<tfjob::k8s::Deployment>(), nodes, pods).empty());
}
