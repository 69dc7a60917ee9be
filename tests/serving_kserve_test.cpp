// serve --kserve: the InferenceService builder (pure), its status reader, and end to end on
// the fake API server with KServe's group served and a stand-in for its RawDeployment
// controller: serve --kserve → Ready → model AVAILABLE → predict / models / list / delete
// through the predictor's Service; the clear error where KServe is not served.
#include <catch2/catch.hpp>

#include "support/fake_apiserver.hpp"
#include "support/fake_tfserving.hpp"
#include "support/paths.hpp"
#include "support/requests.hpp"
#include "support/tfserving_rest.hpp"
#include "support/workflow_run.hpp"

#include <tfjob/serving/kserve.hpp>

#include <fstream>
#include <memory>
#include <string>
#include <vector>

using nlohmann::json;
namespace ks = tfjob::serving::kserve;

namespace {

tfjob::serving::ServeSpec mnist_spec() {
  tfjob::serving::ServeSpec s;
  s.name = "mnist";
  s.namespace_ = "team-a";
  s.source = tfjob::serving::parse_pvc("tfjob-mnist:export");
  return s;
}

}  // namespace

TEST_CASE("kserve: the InferenceService from serve's spec: TensorFlow predictor, storage from the claim, GPUs, replicas",
          "[serving][kserve]") {
  auto s = mnist_spec();
  s.gpus = 2;
  s.replicas = 3;
  s.cpu = "4";
  s.memory = "8Gi";
  s.node_selector["pool"] = "v100";
  const json o = ks::build_inference_service(s);
  CHECK(o["apiVersion"] == "serving.kserve.io/v1beta1");
  CHECK(o["kind"] == "InferenceService");
  CHECK(o["metadata"]["name"] == "mnist");
  CHECK(o["metadata"]["namespace"] == "team-a");
  CHECK(o["metadata"]["annotations"]["serving.kserve.io/deploymentMode"] == "RawDeployment");
  CHECK(o["metadata"]["labels"]["app.kubernetes.io/managed-by"] == "kubectl-tfjob");
  const json& p = o["spec"]["predictor"];
  CHECK(p["minReplicas"] == 3);
  CHECK(p["maxReplicas"] == 3);
  CHECK(p["nodeSelector"]["pool"] == "v100");
  const json& m = p["model"];
  CHECK(m["modelFormat"]["name"] == "tensorflow");
  CHECK(m["protocolVersion"] == "v1");
  CHECK(m["storageUri"] == "pvc://tfjob-mnist/export/mnist");  // --pvc CLAIM:PATH holds MODEL/<version>/
  CHECK(m["runtimeVersion"] == std::string(tfjob::serving::default_serving_version) + "-gpu");  // the GPU image's tag serve would run
  CHECK(m["resources"]["limits"]["nvidia.com/gpu"] == "2");
  CHECK(m["resources"]["requests"]["cpu"] == "4");
  CHECK(m["resources"]["limits"]["memory"] == "8Gi");
  CHECK_FALSE(m["resources"]["requests"].contains("nvidia.com/gpu"));

  s = mnist_spec();
  s.gpus = 0;
  s.source = tfjob::serving::parse_pvc("claim");
  s.cpu = "2";
  s.ops.autoscale = tfjob::serving::Autoscale{2, 10, 70};
  const json a = ks::build_inference_service(s);
  CHECK(a["spec"]["predictor"]["model"]["runtimeVersion"] == tfjob::serving::default_serving_version);
  CHECK(a["spec"]["predictor"]["model"]["storageUri"] == "pvc://claim/mnist");
  CHECK(a["spec"]["predictor"]["model"]["resources"] == json::parse(R"({"limits": {"cpu": "2"}, "requests": {"cpu": "2"}})"));
  s = mnist_spec();
  s.gpus = 0;
  CHECK_FALSE(json(ks::build_inference_service(s))["spec"]["predictor"]["model"].contains("resources"));
  s = mnist_spec();
  s.gpus = 0;
  s.source = tfjob::serving::parse_pvc("claim");
  s.cpu = "2";
  s.ops.autoscale = tfjob::serving::Autoscale{2, 10, 70};
  CHECK(a["spec"]["predictor"]["minReplicas"] == 2);
  CHECK(a["spec"]["predictor"]["maxReplicas"] == 10);
  CHECK(a["spec"]["predictor"]["scaleMetric"] == "cpu");
  CHECK(a["spec"]["predictor"]["scaleTarget"] == 70);

  s = mnist_spec();
  s.image = "tensorflow/serving:2.15.0";
  CHECK(json(ks::build_inference_service(s))["spec"]["predictor"]["model"]["runtimeVersion"] == "2.15.0");
}

TEST_CASE("kserve: what an InferenceService cannot carry is refused, saying why", "[serving][kserve]") {
  auto s = mnist_spec();
  s.source = {};
  s.source.kind = tfjob::serving::ModelSource::Kind::resnet;
  s.source.url = tfjob::serving::resnet_model_url;
  CHECK_THROWS_WITH(ks::build_inference_service(s), Catch::Contains("reads its model from a claim"));
  s = mnist_spec();
  s.model_name = "digits";
  CHECK_THROWS_WITH(ks::build_inference_service(s), Catch::Contains("KServe names the model after the InferenceService"));
  s = mnist_spec();
  s.image = "example.com/my/serving:1";
  CHECK_THROWS_WITH(ks::build_inference_service(s), Catch::Contains("only the tag can be chosen"));
  s = mnist_spec();
  s.image = "localhost:5000/serving";
  CHECK_THROWS_WITH(ks::build_inference_service(s), Catch::Contains("has no tag"));
  s = mnist_spec();
  s.ops.monitoring = true;
  CHECK_THROWS_WITH(ks::build_inference_service(s), Catch::Contains("monitoring"));
  s = mnist_spec();
  s.replicas = 0;
  CHECK_THROWS_WITH(ks::build_inference_service(s), Catch::Contains("at least 1 replica"));
}

TEST_CASE("kserve: the status reader: Ready, the blocking condition with its reason, a failed load, hostile shapes",
          "[serving][kserve]") {
  auto st = ks::read_state(json::parse(R"({"status": {"url": "http://m.ns.example.com", "address": {"url": "http://m-predictor.ns.svc.cluster.local"},
    "conditions": [{"type": "IngressReady", "status": "True"}, {"type": "PredictorReady", "status": "True"}, {"type": "Ready", "status": "True"}]}})"));
  CHECK(st.ready);
  CHECK(st.predictor_ready == true);
  CHECK(st.address_url == "http://m-predictor.ns.svc.cluster.local");
  CHECK(st.summary() == "InferenceService is Ready at http://m.ns.example.com");

  st = ks::read_state(json::parse(R"({"status": {"conditions": [
    {"type": "PredictorReady", "status": "False", "reason": "MinimumReplicasUnavailable", "message": "Deployment does not have minimum availability."},
    {"type": "Ready", "status": "False", "reason": "MinimumReplicasUnavailable"}]}})"));
  CHECK_FALSE(st.ready);
  CHECK(st.summary() == "PredictorReady is False (MinimumReplicasUnavailable): Deployment does not have minimum availability.");

  st = ks::read_state(json::parse(R"({"status": {"modelStatus": {"transitionStatus": "BlockedByFailedLoad",
    "states": {"activeModelState": "FailedToLoad"}, "lastFailureInfo": {"reason": "ModelLoadFailed", "message": "no saved_model.pb"}}}})"));
  CHECK(st.summary() == "the model failed to load: ModelLoadFailed: no saved_model.pb");

  CHECK(ks::read_state(json::object()).summary() == "waiting for the KServe controller to report a status");
  for (const char* hostile : {R"({"status": 7})", R"({"status": {"conditions": {"a": 1}}})", R"({"status": {"conditions": [1, "x", {"type": 5}]}})",
                              R"({"status": {"url": 5, "address": [], "modelStatus": {"states": "x"}}})", "[]", "null"})
    CHECK_NOTHROW(ks::read_state(json::parse(hostile)).summary());
}

TEST_CASE("kserve: an InferenceService is decoded into its type and written back unchanged", "[serving][kserve][roundtrip]") {
  // what KServe 0.14's controller answers for a RawDeployment InferenceService (its status
  // carries knative's condition severity and fields the type does not model)
  const json j = json::parse(R"({"apiVersion": "serving.kserve.io/v1beta1", "kind": "InferenceService",
    "metadata": {"name": "mnist", "namespace": "team-a", "uid": "u-1", "generation": 2,
                 "annotations": {"serving.kserve.io/deploymentMode": "RawDeployment"}},
    "spec": {"predictor": {"minReplicas": 2, "maxReplicas": 4, "scaleMetric": "cpu", "scaleTarget": 70,
                           "model": {"modelFormat": {"name": "tensorflow", "version": "2"}, "protocolVersion": "v1",
                                     "runtimeVersion": "2.20.0-gpu", "storageUri": "pvc://tfjob-mnist/export/mnist",
                                     "resources": {"limits": {"nvidia.com/gpu": 1, "memory": "8Gi"}}, "env": [{"name": "A", "value": "b"}]},
                           "nodeSelector": {"pool": "v100"},
                           "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
                           "affinity": {"nodeAffinity": {}}, "serviceAccountName": "sa"}},
    "status": {"url": "http://mnist-team-a.example.com", "address": {"url": "http://mnist-predictor.team-a.svc.cluster.local"},
               "observedGeneration": 2,
               "components": {"predictor": {"latestCreatedRevision": "mnist-predictor-00001"}},
               "conditions": [{"type": "PredictorReady", "status": "True", "severity": "Info", "lastTransitionTime": "2026-01-01T00:00:00Z"},
                              {"type": "Ready", "status": "True", "lastTransitionTime": "2026-01-01T00:00:00Z"}],
               "modelStatus": {"transitionStatus": "UpToDate", "copies": {"failedCopies": 0},
                               "states": {"activeModelState": "Loaded", "targetModelState": "Loaded"}}}})");
  const auto isvc = j.get<tfjob::k8s::InferenceService>();
  CHECK(isvc.metadata.name == "mnist");
  CHECK(isvc.spec.predictor.min_replicas == 2);
  CHECK(isvc.spec.predictor.scale_target == 70);
  REQUIRE(isvc.spec.predictor.model.has_value());
  CHECK(isvc.spec.predictor.model->model_format.name == "tensorflow");
  CHECK(isvc.spec.predictor.model->storage_uri == "pvc://tfjob-mnist/export/mnist");
  CHECK(isvc.spec.predictor.model->resources.limits.at("nvidia.com/gpu") == "1");  // a number reads as its text
  REQUIRE(isvc.spec.predictor.tolerations.size() == 1);
  CHECK(isvc.spec.predictor.tolerations[0].operator_ == "Exists");
  CHECK(isvc.status.conditions.at(0).other == json{{"severity", "Info"}});
  REQUIRE(isvc.status.model_status.has_value());
  CHECK(isvc.status.model_status->states->active_model_state == "Loaded");
  json want = j;  // written back: the same object, but the quantity Go's Quantity writes as a string
  want["spec"]["predictor"]["model"]["resources"]["limits"]["nvidia.com/gpu"] = "1";
  CHECK(json(isvc) == want);
  const auto st = ks::read_state(isvc);
  CHECK(st.ready);
  CHECK(st.address_url == "http://mnist-predictor.team-a.svc.cluster.local");

  // fields of the wrong type stay as they came, unread
  const json hostile = json::parse(R"({"kind": "InferenceService", "spec": {"predictor": {"minReplicas": "x", "model": 3}},
    "status": {"url": 5, "conditions": [1, {"type": "Ready"}], "modelStatus": {"states": "x"}}})");
  const auto h = hostile.get<tfjob::k8s::InferenceService>();
  CHECK_FALSE(h.spec.predictor.min_replicas.has_value());
  CHECK_FALSE(h.spec.predictor.model.has_value());
  CHECK(h.status.url.empty());
  CHECK(h.status.conditions.empty());
  CHECK(json(h) == hostile);
  CHECK_THROWS_WITH(json::array().get<tfjob::k8s::InferenceService>(), Catch::Contains("InferenceService must be a JSON object, not array"));

  // what serve builds decodes to itself
  auto s = mnist_spec();
  s.gpus = 1;
  s.tolerations = {json{{"key", "nvidia.com/gpu"}, {"operator", "Exists"}}};
  const json built = ks::build_inference_service(s);
  CHECK(built["spec"]["predictor"]["tolerations"] == json::array({{{"key", "nvidia.com/gpu"}, {"operator", "Exists"}}}));
  CHECK(json(built.get<tfjob::k8s::InferenceService>()) == built);
}

TEST_CASE("kserve: the predictor as serve's GPU preflight reads it", "[serving][kserve]") {
  auto s = mnist_spec();
  s.gpus = 4;
  s.replicas = 2;
  const json v = ks::preflight_view(ks::build_inference_service(s));
  CHECK(v["spec"]["replicas"] == 2);
  CHECK(v["spec"]["template"]["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/gpu"] == "4");
  CHECK_NOTHROW(ks::preflight_view(json::parse(R"({"spec": {"predictor": {"minReplicas": "x", "model": 3}}})")));
}

// ---- end to end: the plugin against the fake API server ---------------------------------

namespace {

struct KServeCluster {
  std::unique_ptr<tfjob::test::FakeApiServer> server;
  std::unique_ptr<tfjob::test::FakeTfServing> tfs;
  std::string dir, kubeconfig;
  explicit KServeCluster(bool kserve = true) {
    tfjob::test::FakeApiServerOptions o;
    o.gpu_nodes = 2;
    o.pod_start_delay = std::chrono::milliseconds(50);
    o.kserve = kserve;
    server = std::make_unique<tfjob::test::FakeApiServer>(o);
    tfs = std::make_unique<tfjob::test::FakeTfServing>(*server);
    dir = tfjob::test::temp_dir("serving-kserve");
    kubeconfig = dir + "/kubeconfig";
    server->write_kubeconfig(kubeconfig);
  }
  tfjob::test::RunResult run(std::vector<std::string> args, int timeout_s = 60) {
    return tfjob::test::run_plugin(args, kubeconfig, timeout_s);
  }
  void claim(const std::string& name) {
    server->put_object({{"apiVersion", "v1"}, {"kind", "PersistentVolumeClaim"},
                        {"metadata", {{"name", name}, {"namespace", "default"}}},
                        {"spec", {{"accessModes", {"ReadWriteOnce"}}, {"resources", {{"requests", {{"storage", "1Gi"}}}}}}}});
  }
};

}  // namespace

TEST_CASE("serve --kserve on a cluster without KServe: what is missing and what to do, nothing applied", "[serving][kserve][e2e]") {
  REQUIRE_FALSE(tfjob::test::plugin_path().empty());
  KServeCluster c(false);
  c.claim("tfjob-mnist");
  auto r = c.run({"serve", "mnist", "--pvc", "tfjob-mnist:export", "--kserve", "--gpus", "0"});
  INFO(r.err);
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("this cluster does not serve inferenceservices.serving.kserve.io/v1beta1 (KServe's InferenceService), so "
                   "--kserve cannot be used: install KServe") != std::string::npos);
  CHECK(r.err.find("or drop --kserve") != std::string::npos);
  CHECK(c.server->list_objects("deployments.apps").empty());
  // flags an InferenceService cannot carry are usage errors, before any request
  auto u = c.run({"serve", "mnist", "--model", "resnet", "--kserve"});
  CHECK(u.exit_code == 64);
  CHECK(u.err.find("give --pvc CLAIM[:PATH]") != std::string::npos);
  u = c.run({"serve", "mnist", "--pvc", "tfjob-mnist", "--kserve", "--monitoring"});
  CHECK(u.exit_code == 64);
  // predict of a name nothing serves keeps serve's own hint
  auto p = c.run({"predict", "mnist", "--json", tfjob::test::source_dir() + "/samples/mnist/digit-1.json"});
  CHECK(p.exit_code == 1);
  CHECK(p.err.find("service \"mnist\" not found") != std::string::npos);
}

TEST_CASE("serve --kserve: InferenceService Ready, model AVAILABLE, predict and models through the predictor, list, delete",
          "[serving][kserve][e2e]") {
  REQUIRE_FALSE(tfjob::test::plugin_path().empty());
  KServeCluster c;
  tfjob::test::FakeModel m;
  m.load_time = std::chrono::milliseconds(800);
  m.signature_def = tfjob::test::mnist_signatures();
  c.tfs->set_model("mnist", m);

  auto nc = c.run({"serve", "mnist", "--pvc", "tfjob-mnist:export", "--kserve", "--gpus", "0"});
  CHECK(nc.exit_code == 1);  // the claim is checked first, as serve does
  CHECK(nc.err.find("persistentvolumeclaim \"tfjob-mnist\" not found") != std::string::npos);
  CHECK_FALSE(c.server->get_object("inferenceservices.serving.kserve.io", "default", "mnist"));

  c.claim("tfjob-mnist");
  auto r = c.run({"serve", "mnist", "--pvc", "tfjob-mnist:export", "--kserve", "--gpus", "1", "--timeout", "60s"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.find("inferenceservice.serving.kserve.io/mnist serverside-applied") != std::string::npos);
  CHECK(r.err.find("InferenceService is Ready") != std::string::npos);
  CHECK(r.out.find("model \"mnist\" version 1 is AVAILABLE on inferenceservice default/mnist (predictor service mnist-predictor:80") !=
        std::string::npos);
  CHECK(r.out.find("serving_default") != std::string::npos);  // the signatures, through the predictor
  auto isvc = c.server->get_object("inferenceservices.serving.kserve.io", "default", "mnist");
  REQUIRE(isvc);
  CHECK((*isvc)["spec"]["predictor"]["model"]["storageUri"] == "pvc://tfjob-mnist/export/mnist");
  CHECK((*isvc)["spec"]["predictor"]["model"]["resources"]["limits"]["nvidia.com/gpu"] == "1");
  // serve made no Deployment of its own: the predictor's is KServe's (the stand-in's)
  CHECK_FALSE(c.server->get_object("deployments.apps", "default", "mnist"));
  REQUIRE(c.server->get_object("deployments.apps", "default", "mnist-predictor"));

  const auto digit = tfjob::test::source_dir() + "/samples/mnist/digit-1.json";
  const int before = c.tfs->predict_requests();
  auto p = c.run({"predict", "mnist", "--json", digit});
  INFO(p.err);
  REQUIRE(p.exit_code == 0);
  CHECK(json::parse(p.out).contains("predictions"));
  CHECK(c.tfs->predict_requests() == before + 1);
  auto mo = c.run({"models", "mnist"});
  INFO(mo.err);
  REQUIRE(mo.exit_code == 0);
  CHECK(mo.out.find("model \"mnist\" version 1") != std::string::npos);

  auto l = c.run({"serve", "list"});
  INFO(l.err);
  REQUIRE(l.exit_code == 0);
  CHECK(l.out.find("mnist   pvc:tfjob-mnist/export   1/1     1") != std::string::npos);
  auto ln = c.run({"serve", "list", "-o", "name"});
  CHECK(ln.out.find("inferenceservice.serving.kserve.io/mnist") != std::string::npos);
  auto cr = tfjob::test::run_plugin({"__complete", "--kubeconfig", c.kubeconfig, "predict", ""});
  CHECK(cr.out.find("mnist\tmodel server") != std::string::npos);

  auto d = c.run({"serve", "delete", "mnist"});
  INFO(d.err);
  REQUIRE(d.exit_code == 0);
  CHECK(d.out.find("inferenceservice.serving.kserve.io/mnist deleted") != std::string::npos);
  CHECK_FALSE(c.server->get_object("inferenceservices.serving.kserve.io", "default", "mnist"));
}

TEST_CASE("serve --kserve: predictor pods that crash-loop fail the wait with serve's pod diagnosis", "[serving][kserve][e2e]") {
  REQUIRE_FALSE(tfjob::test::plugin_path().empty());
  KServeCluster c;
  c.claim("models");
  tfjob::test::ContainerScript crash;
  crash.lines = {"No versions of servable bad found under base path /mnt/models"};
  crash.exit_code = 1;
  c.server->kubelet().script("bad-predictor-*", crash);
  auto r = c.run({"serve", "bad", "--pvc", "models", "--kserve", "--gpus", "0", "--timeout", "60s"});
  INFO(r.err);
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("inferenceservice \"bad\" will not become Ready: its predictor pods are failing") != std::string::npos);
  CHECK(r.err.find("CrashLoopBackOff") != std::string::npos);
  CHECK(r.err.find("No versions of servable bad found under base path /mnt/models") != std::string::npos);  // last logs
}

TEST_CASE("serve --kserve: GPU preflight before applying, and a timeout that names the Pending pods", "[serving][kserve][e2e]") {
  REQUIRE_FALSE(tfjob::test::plugin_path().empty());
  KServeCluster c;  // two GPU nodes with one GPU each
  c.claim("models");
  auto r = c.run({"serve", "big", "--pvc", "models", "--kserve", "--gpus", "8"});
  INFO(r.err);
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("refusing to serve \"big\": each replica asks for 8 nvidia.com/gpu") != std::string::npos);
  CHECK_FALSE(c.server->get_object("inferenceservices.serving.kserve.io", "default", "big"));
  auto t = c.run({"serve", "wide", "--pvc", "models", "--kserve", "--gpus", "1", "--replicas", "3", "--timeout", "3s"});
  INFO(t.err);
  CHECK(t.exit_code == 2);
  CHECK(t.err.find("waiting for inferenceservice \"wide\" to be Ready: PredictorReady is False (MinimumReplicasUnavailable)") !=
        std::string::npos);
  CHECK(t.err.find("hint: scheduling: pod wide-predictor-") != std::string::npos);  // what blocked: the scheduler
}

TEST_CASE("serve --kserve waits for Ready through two watches: as many requests however long it waits", "[serving][kserve][e2e]") {
  REQUIRE_FALSE(tfjob::test::plugin_path().empty());
  KServeCluster c;  // two GPU nodes with one GPU each: of three replicas one stays Pending
  c.claim("models");
  auto [short_wait, long_wait] = tfjob::test::requests_of_short_and_long_wait(*c.server, [&](const std::string& timeout) {
    auto r = c.run({"serve", "wide", "--pvc", "models", "--kserve", "--gpus", "1", "--replicas", "3", "--timeout", timeout});
    INFO(r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("waiting for inferenceservice \"wide\" to be Ready: PredictorReady is False (MinimumReplicasUnavailable)") !=
          std::string::npos);
    CHECK(r.err.find("hint: scheduling: pod wide-predictor-") != std::string::npos);
  });
  // the old wait got the InferenceService and listed its predictor pods every 0.5 s
  CHECK(long_wait.all == short_wait.all);
  CHECK(short_wait.watches == 2);  // the InferenceService, its predictor pods
  CHECK(long_wait.watches == 2);
}
