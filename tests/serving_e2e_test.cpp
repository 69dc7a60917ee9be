// serve and predict as a user runs them, against the fake API server (deployment controller,
// kubelet) with TF Serving's REST API simulated behind its service proxy.
#include <catch2/catch.hpp>

#include "support/fake_apiserver.hpp"
#include "support/fake_tfserving.hpp"
#include "support/paths.hpp"
#include "support/workflow_run.hpp"

#include <fstream>

using nlohmann::json;
using tfjob::test::ContainerScript;
using tfjob::test::FakeApiServer;
using tfjob::test::FakeApiServerOptions;
using tfjob::test::FakeModel;
using tfjob::test::FakeTfServing;
using tfjob::test::RunResult;

namespace {

struct Cluster {
  std::unique_ptr<FakeApiServer> server;
  std::unique_ptr<FakeTfServing> tfs;
  std::string dir, kubeconfig;
  Cluster() {
    FakeApiServerOptions o;
    o.gpu_nodes = 2;
    o.pod_start_delay = std::chrono::milliseconds(50);
    server = std::make_unique<FakeApiServer>(o);
    tfs = std::make_unique<FakeTfServing>(*server);
    dir = tfjob::test::temp_dir("serving-e2e");
    kubeconfig = dir + "/kubeconfig";
    server->write_kubeconfig(kubeconfig);
  }
  RunResult run(std::vector<std::string> args, int timeout_s = 60) { return tfjob::test::run_plugin(args, kubeconfig, timeout_s); }
  std::string write(const std::string& name, const std::string& bytes) {
    std::ofstream(dir + "/" + name, std::ios::binary) << bytes;
    return dir + "/" + name;
  }
};

const std::string jpeg = std::string("\xFF\xD8\xFF\xE0", 4) + "fake jpeg bytes of a cat";

}  // namespace

TEST_CASE("serve resnet: rollout, LOADING then AVAILABLE, predict top-5 with ImageNet names, list, delete", "[serving][e2e]") {
  REQUIRE_FALSE(tfjob::test::plugin_path().empty());  // the plugin is a build dependency of this test
  Cluster c;
  FakeModel m;
  m.load_time = std::chrono::milliseconds(1500);
  m.top = {{282, 0.62}, {283, 0.21}, {286, 0.08}, {285, 0.03}, {287, 0.02}};
  c.tfs->set_model("resnet", m);

  auto r = c.run({"serve", "resnet", "--model", "resnet", "--timeout", "60s"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("model \"resnet\" version 1 is AVAILABLE") != std::string::npos);
  CHECK(r.err.find("deployment.apps/resnet serverside-applied") != std::string::npos);
  CHECK(r.err.find("successfully rolled out") != std::string::npos);
  CHECK(r.err.find("LOADING") != std::string::npos);  // 200 with LOADING was not taken as ready
  CHECK(c.tfs->loading_answers() >= 1);
  auto dep = c.server->get_object("deployments.apps", "default", "resnet");
  REQUIRE(dep);
  CHECK((*dep)["spec"]["template"]["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/gpu"] == "1");
  REQUIRE(c.server->get_object("services", "default", "resnet"));

  auto p = c.run({"predict", "resnet", "--image", c.write("cat.jpg", jpeg), "--top", "5"});
  INFO(p.err);
  REQUIRE(p.exit_code == 0);
  // rank, class index, ImageNet name (index 282 = tabby: no off-by-one), score
  CHECK(p.out.find("RANK   CLASS   LABEL") != std::string::npos);
  auto l1 = p.out.find("1      282     tabby");
  auto l2 = p.out.find("2      283     tiger cat");
  auto l3 = p.out.find("3      286     Egyptian cat");
  auto l4 = p.out.find("4      285     Siamese cat");
  auto l5 = p.out.find("5      287     cougar");
  CHECK(l1 != std::string::npos);
  CHECK(l2 > l1);
  CHECK(l3 > l2);
  CHECK(l4 > l3);
  CHECK(l5 != std::string::npos);
  CHECK(p.out.find("0.6200") != std::string::npos);

  auto pj = c.run({"predict", "resnet", "--image", c.write("cat2.jpg", jpeg), "--top", "2", "-o", "json"});
  REQUIRE(pj.exit_code == 0);
  auto j = json::parse(pj.out);
  CHECK(j[0]["top"][0]["label"] == "tabby");
  CHECK(j[0]["top"].size() == 2);

  auto l = c.run({"serve", "list"});
  REQUIRE(l.exit_code == 0);
  CHECK(l.out.find("NAME     MODEL    READY   GPUS   AGE") != std::string::npos);
  CHECK(l.out.find("resnet   resnet   1/1     1") != std::string::npos);

  auto d = c.run({"serve", "delete", "resnet"});
  REQUIRE(d.exit_code == 0);
  CHECK(d.out.find("deployment.apps/resnet deleted") != std::string::npos);
  CHECK_FALSE(c.server->get_object("services", "default", "resnet"));
  CHECK(c.run({"serve", "delete", "resnet"}).exit_code == 1);
}

TEST_CASE("an update rolls out a new model version", "[serving][e2e]") {
  REQUIRE_FALSE(tfjob::test::plugin_path().empty());  // the plugin is a build dependency of this test
  Cluster c;
  FakeModel m;
  m.load_time = std::chrono::milliseconds(500);
  c.tfs->set_model("clf", m);
  auto r1 = c.run({"serve", "clf", "--model-url", "https://example.com/clf-v1.tar.gz", "--gpus", "0"});
  INFO(r1.err);
  REQUIRE(r1.exit_code == 0);
  CHECK(r1.out.find("version 1 is AVAILABLE") != std::string::npos);
  auto rs_before = c.server->list_objects("replicasets.apps", "default");
  REQUIRE(rs_before.size() == 1);
  const int loading_before = c.tfs->loading_answers();

  auto r2 = c.run({"serve", "clf", "--model-url", "https://example.com/clf-v2.tar.gz", "--model-version", "2", "--gpus", "0"});
  INFO(r2.err);
  REQUIRE(r2.exit_code == 0);
  CHECK(r2.out.find("version 2 is AVAILABLE") != std::string::npos);
  CHECK(c.tfs->loading_answers() > loading_before);  // the new version loaded again
  auto dep = c.server->get_object("deployments.apps", "default", "clf");
  REQUIRE(dep);
  CHECK((*dep)["metadata"]["generation"] == 2);
  CHECK((*dep)["status"]["updatedReplicas"] == 1);
  auto rs_after = c.server->list_objects("replicasets.apps", "default");
  REQUIRE(rs_after.size() == 1);  // the old ReplicaSet is gone
  CHECK(rs_after[0]["metadata"]["name"] != rs_before[0]["metadata"]["name"]);
  // the same spec again changes nothing (server-side apply) and is AVAILABLE at once
  auto r3 = c.run({"serve", "clf", "--model-url", "https://example.com/clf-v2.tar.gz", "--model-version", "2", "--gpus", "0"});
  REQUIRE(r3.exit_code == 0);
  CHECK((*c.server->get_object("deployments.apps", "default", "clf"))["metadata"]["generation"] == 2);
}

TEST_CASE("a rollout that never becomes ready: crash loop reported with events and last logs", "[serving][e2e]") {
  REQUIRE_FALSE(tfjob::test::plugin_path().empty());  // the plugin is a build dependency of this test
  Cluster c;
  ContainerScript crash;
  crash.lines = {"2026-01-01 00:00:00: E tensorflow_serving/sources/storage_path/file_system_storage_path_source.cc:353]",
                 "No versions of servable bad found under base path /models/bad"};
  crash.exit_code = 1;
  c.server->kubelet().script("bad-*", crash);
  auto r = c.run({"serve", "bad", "--pvc", "models", "--gpus", "0", "--timeout", "60s"});
  // the claim does not exist: refused before anything is created
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("persistentvolumeclaim \"models\" not found") != std::string::npos);
  CHECK_FALSE(c.server->get_object("deployments.apps", "default", "bad"));

  c.server->put_object({{"apiVersion", "v1"}, {"kind", "PersistentVolumeClaim"},
                        {"metadata", {{"name", "models"}, {"namespace", "default"}}},
                        {"spec", {{"accessModes", {"ReadWriteOnce"}}, {"resources", {{"requests", {{"storage", "1Gi"}}}}}}}});
  r = c.run({"serve", "bad", "--pvc", "models", "--gpus", "0", "--timeout", "60s"});
  INFO(r.err);
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("will not become ready") != std::string::npos);
  CHECK(r.err.find("CrashLoopBackOff") != std::string::npos);
  CHECK(r.err.find("No versions of servable bad found under base path") != std::string::npos);  // last logs
  CHECK(r.err.find("event ") != std::string::npos);
}

TEST_CASE("a rollout that cannot schedule times out with the scheduler's reason", "[serving][e2e]") {
  REQUIRE_FALSE(tfjob::test::plugin_path().empty());  // the plugin is a build dependency of this test
  Cluster c;
  auto r = c.run({"serve", "big", "--model", "resnet", "--gpus", "8", "--timeout", "3s"});
  INFO(r.err);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("timed out after 3s") != std::string::npos);
  CHECK(r.err.find("nvidia.com/gpu") != std::string::npos);
}

TEST_CASE("a rollout past its progress deadline: ProgressDeadlineExceeded with the scheduler's reason, exit 1", "[serving][e2e]") {
  REQUIRE_FALSE(tfjob::test::plugin_path().empty());  // the plugin is a build dependency of this test
  Cluster c;
  auto r = c.run({"serve", "stuck", "--model", "resnet", "--gpus", "8", "--no-wait"});
  REQUIRE(r.exit_code == 0);
  // a cluster admin's (or a policy's) short deadline, a field serve does not manage: it stays
  auto d = *c.server->get_object("deployments.apps", "default", "stuck");
  d["spec"]["progressDeadlineSeconds"] = 1;
  c.server->put_object(d);
  r = c.run({"serve", "stuck", "--model", "resnet", "--gpus", "8", "--timeout", "60s"});
  INFO(r.err);
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("deployment \"stuck\" exceeded its progress deadline") != std::string::npos);
  CHECK(r.err.find("Insufficient nvidia.com/gpu") != std::string::npos);  // why: the pending pod's scheduler event
  CHECK(r.err.find("timed out") == std::string::npos);                     // not a timeout: it ended at once
  CHECK((*c.server->get_object("deployments.apps", "default", "stuck"))["spec"]["progressDeadlineSeconds"] == 1);
}

TEST_CASE("a model that fails to load: TF Serving's error, exit 1", "[serving][e2e]") {
  REQUIRE_FALSE(tfjob::test::plugin_path().empty());  // the plugin is a build dependency of this test
  Cluster c;
  FakeModel m;
  m.load_time = std::chrono::milliseconds(200);
  m.fail_message = "Could not find SavedModel .pb or .pbtxt at supplied export directory path: /models/broken/1";
  c.tfs->set_model("broken", m);
  auto r = c.run({"serve", "broken", "--model-url", "https://example.com/not-a-savedmodel.tar.gz", "--gpus", "0"});
  INFO(r.err);
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("failed to load") != std::string::npos);
  CHECK(r.err.find("Could not find SavedModel") != std::string::npos);
  CHECK(r.err.find("<numeric version>/saved_model.pb") != std::string::npos);  // the layout hint
}

TEST_CASE("predict errors: service not found, not loaded yet, TF Serving's message, unreadable image", "[serving][e2e]") {
  REQUIRE_FALSE(tfjob::test::plugin_path().empty());  // the plugin is a build dependency of this test
  Cluster c;
  auto img = c.write("cat.jpg", jpeg);
  auto r = c.run({"predict", "nosuch", "--image", img});
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("service \"nosuch\" not found in namespace \"default\"") != std::string::npos);

  FakeModel slow;
  slow.load_time = std::chrono::hours(1);
  c.tfs->set_model("slow", slow);
  auto s = c.run({"serve", "slow", "--model", "resnet", "--no-wait"});
  REQUIRE(s.exit_code == 0);
  REQUIRE(c.server->wait_for([&] {
    auto d = c.server->get_object("deployments.apps", "default", "slow");
    return d && (*d)["status"].value("availableReplicas", 0) == 1;
  }));
  r = c.run({"predict", "slow", "--image", img});
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("model \"slow\" is not loaded yet") != std::string::npos);
  CHECK(r.err.find("LOADING") != std::string::npos);

  c.tfs->set_model("fast", FakeModel{std::chrono::milliseconds(0), "", 1, {}});
  REQUIRE(c.run({"serve", "fast", "--model", "resnet"}).exit_code == 0);
  auto bad = c.write("bad.json", R"({"instances": [{"pixels": [1, 2, 3]}]})");
  r = c.run({"predict", "fast", "--json", bad});
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("TF Serving rejected the prediction (HTTP 400)") != std::string::npos);
  CHECK(r.err.find("does not have named input: image_bytes") != std::string::npos);

  r = c.run({"predict", "fast", "--image", c.dir + "/missing.jpg"});
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("cannot read image") != std::string::npos);
  r = c.run({"predict", "fast", "--image", c.write("notes.txt", "hello")});
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("not a JPEG or PNG") != std::string::npos);

  auto digit = tfjob::test::source_dir() + "/samples/mnist/digit-1.json";
  r = c.run({"predict", "fast", "--json", digit});
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(json::parse(r.out)["predictions"][0]["probabilities"].size() == 10);
}
