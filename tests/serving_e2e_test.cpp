// serve and predict as a user runs them, against the fake API server (deployment controller,
// kubelet) with TF Serving's REST API simulated behind its service proxy.
#include <catch2/catch.hpp>

#include "support/fake_apiserver.hpp"
#include <tfjob/kube/config.hpp>
#include <tfjob/kube/detail/process.hpp>
#include <tfjob/kube/detail/util.hpp>
#include <tfjob/kube/local_proxy.hpp>
#include <tfjob/serving/from_job.hpp>
#include <tfjob/serving/serving.hpp>
#include <tfjob/serving/tensorboard.hpp>
#include <httplib.h>
#include "support/fake_tfserving.hpp"
#include "support/tfserving_rest.hpp"
#include "support/paths.hpp"
#include "support/requests.hpp"
#include "support/saved_model_bytes.hpp"
#include "support/skip.hpp"
#include "support/workflow_run.hpp"

#include <tfjob/serving/model_config.hpp>
#include <tfjob/serving/model_config_text.hpp>

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>

#include <atomic>
#include <fstream>
#include <mutex>
#include <thread>

#if __has_include(<stb_image_write.h>)
#define STB_IMAGE_WRITE_IMPLEMENTATION
#define STB_IMAGE_WRITE_STATIC
#include <stb_image_write.h>  // Debian's libstb-dev: real PNG and JPEG files for predict --image
#define TFJOB_HAVE_STB_WRITE 1
#endif

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
    // serve's export check pods list a claim's version directories: by default one good version
    export_listing({"dir 1", "pb 4096 1", "warmup 1"});
  }
  /// What the next export check pods print (the script's records, between its header and end).
  void export_listing(const std::vector<std::string>& records) {
    ContainerScript s;
    s.lines.push_back("tfjob-export-check v1");
    for (const auto& r : records) s.lines.push_back(r);
    s.lines.push_back("end");
    s.exit_code = 0;
    server->kubelet().script("export-check-*", s);
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

  // an answer cut short mid-body (kube-apiserver's proxy losing its connection to the pod, as
  // the real node showed) is asked again: TF Serving's predict has no effect
  const auto fired = c.server->faults().fired();
  c.server->faults().cut_body_after(40, 1, ":predict");
  auto pc = c.run({"predict", "resnet", "--image", c.write("cat3.jpg", jpeg), "--top", "1"});
  INFO(pc.err);
  CHECK(c.server->faults().fired() == fired + 1);
  CHECK(pc.exit_code == 0);
  CHECK(pc.out.find("1      282     tabby") != std::string::npos);

  auto l = c.run({"serve", "list"});
  REQUIRE(l.exit_code == 0);
  CHECK(l.out.find("NAME     MODEL    READY   VERSIONS   LABELS   GPUS   AGE") != std::string::npos);
  CHECK(l.out.find("resnet   resnet   1/1     1          <none>   1") != std::string::npos);
  auto lw = c.run({"serve", "list", "-o", "wide"});
  INFO(lw.err);
  REQUIRE(lw.exit_code == 0);
  CHECK(lw.out.find("ADDRESS                            PORTS                 MODEL-NAME") != std::string::npos);
  CHECK(lw.out.find("resnet.default.svc.cluster.local   8500/gRPC,8501/REST   resnet") != std::string::npos);
  auto lj = c.run({"serve", "list", "-o", "json"});
  REQUIRE(lj.exit_code == 0);
  auto ljs = json::parse(lj.out);
  REQUIRE(ljs.size() == 1);
  CHECK(ljs[0]["address"] == "resnet.default.svc.cluster.local");
  CHECK(ljs[0]["availableVersions"] == json::array({"1"}));
  CHECK(ljs[0]["ports"] == json::parse(R"([{"name": "grpc", "port": 8500, "protocol": "gRPC"}, {"name": "http", "port": 8501, "protocol": "REST"}])"));
  auto ly = c.run({"serve", "list", "-o", "yaml"});
  REQUIRE(ly.exit_code == 0);
  CHECK(ly.out.find("address: resnet.default.svc.cluster.local") != std::string::npos);
  // the served names complete for models, predict and serve delete
  for (const char* cmd : {"models", "predict"}) {
    auto cr = tfjob::test::run_plugin({"__complete", "--kubeconfig", c.kubeconfig, cmd, ""});
    CHECK(cr.out.find("resnet\tmodel server") != std::string::npos);
  }

  auto d = c.run({"serve", "delete", "resnet"});
  REQUIRE(d.exit_code == 0);
  CHECK(d.out.find("deployment.apps/resnet deleted") != std::string::npos);
  CHECK_FALSE(c.server->get_object("services", "default", "resnet"));
  CHECK(c.run({"serve", "delete", "resnet"}).exit_code == 1);
}

TEST_CASE("serve delete keeps a ConfigMap of the server's name that serve did not create", "[serving][e2e][delete]") {
  REQUIRE_FALSE(tfjob::test::plugin_path().empty());
  Cluster c;
  FakeModel m;
  m.load_time = std::chrono::milliseconds(0);
  c.tfs->set_model("resnet", m);
  // the user's own ConfigMaps called resnet and resnet-models (no serve labels, or another server's)
  c.server->put_object({{"apiVersion", "v1"}, {"kind", "ConfigMap"},
                        {"metadata", {{"name", "resnet"}, {"namespace", "default"}, {"labels", {{"app", "mine"}}}}},
                        {"data", {{"settings", "keep me"}}}});
  c.server->put_object({{"apiVersion", "v1"}, {"kind", "ConfigMap"},
                        {"metadata", {{"name", "resnet-models"}, {"namespace", "default"},
                                      {"labels", {{"app.kubernetes.io/managed-by", "kubectl-tfjob"}, {"app.kubernetes.io/instance", "other"}}}}},
                        {"data", {{"models.config", "mine"}}}});
  auto r = c.run({"serve", "resnet", "--model", "resnet", "--gpus", "0", "--timeout", "60s"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  auto d = c.run({"serve", "delete", "resnet"});
  INFO(d.out << d.err);
  REQUIRE(d.exit_code == 0);
  CHECK(d.out.find("deployment.apps/resnet deleted") != std::string::npos);
  CHECK(d.out.find("configmap/") == std::string::npos);
  CHECK(d.err.find("configmap/resnet kept: it does not carry serve's labels (app.kubernetes.io/managed-by=kubectl-tfjob, "
                   "app.kubernetes.io/instance=resnet), so it is not the server's") != std::string::npos);
  CHECK(d.err.find("configmap/resnet-models kept") != std::string::npos);
  auto cm = c.server->get_object("configmaps", "default", "resnet");
  REQUIRE(cm);
  CHECK((*cm)["data"]["settings"] == "keep me");
  REQUIRE(c.server->get_object("configmaps", "default", "resnet-models"));

  // serve's own ConfigMap (--monitoring) goes with the server
  c.server->delete_object("configmaps", "default", "resnet");
  auto r2 = c.run({"serve", "resnet", "--model", "resnet", "--gpus", "0", "--monitoring", "--timeout", "60s"});
  INFO(r2.err);
  REQUIRE(r2.exit_code == 0);
  auto d2 = c.run({"serve", "delete", "resnet"});
  INFO(d2.out << d2.err);
  CHECK(d2.out.find("configmap/resnet deleted") != std::string::npos);
  CHECK_FALSE(c.server->get_object("configmaps", "default", "resnet"));
  CHECK(c.server->get_object("configmaps", "default", "resnet-models"));
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

TEST_CASE("serve's GPU preflight: more GPUs per replica than any node has is refused before anything is applied", "[serving][e2e]") {
  REQUIRE_FALSE(tfjob::test::plugin_path().empty());  // the plugin is a build dependency of this test
  Cluster c;  // two GPU nodes with one GPU each
  auto r = c.run({"serve", "big", "--model", "resnet", "--gpus", "8", "--timeout", "60s"});
  INFO(r.err);
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("refusing to serve \"big\": each replica asks for 8 nvidia.com/gpu but no schedulable node it may use "
                   "can allocate more than 1") != std::string::npos);
  CHECK(r.err.find("fake-gpu-node-0") != std::string::npos);  // the GPU nodes' table
  CHECK(r.err.find("\nfix: ask for fewer GPUs per replica (--gpus) and more replicas (--replicas) instead") != std::string::npos);
  CHECK(r.err.find("ServeSpec::") == std::string::npos);  // the SDK's names for the settings are worded as flags
  CHECK_FALSE(c.server->get_object("deployments.apps", "default", "big"));  // nothing applied
  r = c.run({"serve", "pinned", "--model", "resnet", "--selector", "pool=none", "--timeout", "60s"});
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("no GPU node matches the server's node selector and tolerations") != std::string::npos);
  CHECK(r.err.find("fix: fix the node selector (--selector) or add the tolerations those nodes need (--toleration)") != std::string::npos);
  CHECK_FALSE(c.server->get_object("deployments.apps", "default", "pinned"));
}

TEST_CASE("a rollout that cannot schedule times out with the scheduler's reason", "[serving][e2e]") {
  REQUIRE_FALSE(tfjob::test::plugin_path().empty());  // the plugin is a build dependency of this test
  Cluster c;
  // 3 replicas of 1 GPU on two 1-GPU nodes: the preflight warns, one pod stays Pending
  auto r = c.run({"serve", "big", "--model", "resnet", "--gpus", "1", "--replicas", "3", "--timeout", "3s"});
  INFO(r.err);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("warning: the 3 replicas ask for 3 nvidia.com/gpu in total but only 2 are free") != std::string::npos);
  CHECK(r.err.find("timed out after 3s") != std::string::npos);
  CHECK(r.err.find("nvidia.com/gpu") != std::string::npos);
  CHECK(r.err.find("hint: scheduling: pod big-") != std::string::npos);  // what blocked: the scheduler
  CHECK(r.err.find("readiness probe") == std::string::npos);            // not a probe that never ran
}

TEST_CASE("serve waits for the rollout through two watches: as many requests however long it waits", "[serving][e2e]") {
  REQUIRE_FALSE(tfjob::test::plugin_path().empty());  // the plugin is a build dependency of this test
  Cluster c;  // two GPU nodes with one GPU each: of three replicas one stays Pending
  auto [short_wait, long_wait] = tfjob::test::requests_of_short_and_long_wait(*c.server, [&](const std::string& timeout) {
    auto r = c.run({"serve", "big", "--model", "resnet", "--gpus", "1", "--replicas", "3", "--timeout", timeout});
    INFO(r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("timed out after " + timeout + " waiting for the rollout") != std::string::npos);
    CHECK(r.err.find("hint: scheduling: pod big-") != std::string::npos);
  });
  // the old wait listed the server's pods every 0.5 s beside its watch of the Deployment
  CHECK(long_wait.all == short_wait.all);
  CHECK(short_wait.watches == 2);  // the Deployment, the server's pods
  CHECK(long_wait.watches == 2);
}

namespace {

/// `serve NAME` of three one-GPU replicas on two one-GPU nodes, not waited for, with a
/// progress deadline of 1 s: a cluster admin's (or a policy's) short deadline, a field serve
/// does not manage (it stays)
void serve_with_short_deadline(Cluster& c, const std::string& name) {
  auto r = c.run({"serve", name, "--model", "resnet", "--gpus", "1", "--replicas", "3", "--no-wait"});
  REQUIRE(r.exit_code == 0);
  auto d = *c.server->get_object("deployments.apps", "default", name);
  d["spec"]["progressDeadlineSeconds"] = 1;
  c.server->put_object(d);
}

}  // namespace

TEST_CASE("a rollout past its progress deadline: ProgressDeadlineExceeded with the scheduler's reason, exit 1", "[serving][e2e]") {
  REQUIRE_FALSE(tfjob::test::plugin_path().empty());  // the plugin is a build dependency of this test
  Cluster c;
  serve_with_short_deadline(c, "stuck");
  auto r = c.run({"serve", "stuck", "--model", "resnet", "--gpus", "1", "--replicas", "3", "--timeout", "60s"});
  INFO(r.err);
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("deployment \"stuck\" exceeded its progress deadline") != std::string::npos);
  CHECK(r.err.find("Insufficient nvidia.com/gpu") != std::string::npos);  // why: the pending pod's scheduler event
  CHECK(r.err.find("timed out") == std::string::npos);                     // not a timeout: it ended at once
  CHECK((*c.server->get_object("deployments.apps", "default", "stuck"))["spec"]["progressDeadlineSeconds"] == 1);
}

TEST_CASE("a rollout past its progress deadline before its pods are listed: the verdict waits for them, the reason is said", "[serving][e2e]") {
  REQUIRE_FALSE(tfjob::test::plugin_path().empty());  // the plugin is a build dependency of this test
  Cluster c;
  serve_with_short_deadline(c, "stuck");
  bool gave_up = false;  // the controller has given up before the wait starts
  for (int i = 0; i < 100 && !gave_up; ++i) {
    gave_up = c.server->get_object("deployments.apps", "default", "stuck")->dump().find("ProgressDeadlineExceeded") != std::string::npos;
    if (!gave_up) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  REQUIRE(gave_up);
  // the Deployment's watch decides at its first list; the pods' first lists fail and are
  // tried again after a pause: the report went out with no pods, so without the scheduler's
  // reason (seen on the real server, where the pods' watch had not begun when the Deployment's decided)
  c.server->faults().fail_next(500, 3, "/namespaces/default/pods");
  tfjob::kube::ConfigOverrides ov;
  ov.kubeconfig = c.kubeconfig;
  tfjob::kube::Client client(tfjob::kube::load_config(ov));
  tfjob::serving::WaitOptions o;
  o.deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  auto rep = tfjob::serving::wait_rollout(client, "default", "stuck", o);
  INFO(rep.message << "\n" << rep.diagnosis);
  CHECK(rep.result == tfjob::serving::WaitResult::failed);
  CHECK(rep.message == "deployment \"stuck\" exceeded its progress deadline");
  CHECK(rep.diagnosis.find("Insufficient nvidia.com/gpu") != std::string::npos);  fprintf(stderr, "DBGD %s\n", c.server->get_object("deployments.apps", "default", "stuck")->dump().c_str());
  auto t0 = c.server->requests().front().received; for (auto& q : c.server->requests()) fprintf(stderr, "DBG %s %s %d %ld %ld\n", q.method.c_str(), q.path.c_str(), q.status, (long)std::chrono::duration_cast<std::chrono::milliseconds>(q.received - t0).count(), (long)std::chrono::duration_cast<std::chrono::milliseconds>(q.answered - t0).count());
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
  // the SDK names its own wait; the plugin words it as the command that waits
  CHECK(r.err.find("wait until it is AVAILABLE (kubectl tfjob serve slow), then retry") != std::string::npos);
  CHECK(r.err.find("serving::") == std::string::npos);
  auto l = c.run({"serve", "list", "-o", "json"});
  REQUIRE(l.exit_code == 0);
  CHECK(json::parse(l.out)[0]["availableVersions"] == json::array());  // LOADING is not AVAILABLE
  CHECK(json::parse(l.out)[0]["modelState"].get<std::string>().find("LOADING") != std::string::npos);
  CHECK(c.run({"serve", "list"}).out.find("slow   resnet   1/1     <none>") != std::string::npos);

  c.tfs->set_model("fast", FakeModel{std::chrono::milliseconds(0), "", 1, {}});
  REQUIRE(c.run({"serve", "fast", "--model", "resnet"}).exit_code == 0);
  // checked against the signature before sending: nothing reaches TF Serving
  const int sent_before = c.tfs->predict_requests();
  auto bad = c.write("bad.json", R"({"instances": [{"pixels": [1, 2, 3]}]})");
  r = c.run({"predict", "fast", "--json", bad});
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("instance 0 has no input \"image_bytes\"") != std::string::npos);
  CHECK(r.err.find("input \"image_bytes\" (DT_STRING, shape (-1)) of signature \"serving_default\"") != std::string::npos);
  CHECK(c.tfs->predict_requests() == sent_before);
  // a request that fits the signature but not the model: TF Serving's own words
  auto notjpeg = c.write("notjpeg.json", R"({"instances": [{"b64": "aGVsbG8="}]})");
  r = c.run({"predict", "fast", "--json", notjpeg});
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("TF Serving rejected the prediction (HTTP 400)") != std::string::npos);
  CHECK(r.err.find("Invalid JPEG data") != std::string::npos);
  CHECK(c.tfs->predict_requests() == sent_before + 1);

  // an image that is not there, or not an image: refused before anything is sent (64)
  r = c.run({"predict", "fast", "--image", c.dir + "/missing.jpg"});
  CHECK(r.exit_code == 64);
  CHECK(r.err.find("error: --image: \"" + c.dir + "/missing.jpg\" does not exist") != std::string::npos);
  r = c.run({"predict", "fast", "--image", c.write("notes.txt", "hello")});
  CHECK(r.exit_code == 64);
  CHECK(r.err.find("is not a JPEG or PNG file; give a PNG or JPEG image") != std::string::npos);

  // the MNIST sample's digit is a float tensor: the ResNet signature refuses it by dtype
  auto digit = tfjob::test::source_dir() + "/samples/mnist/digit-1.json";
  r = c.run({"predict", "fast", "--json", digit});
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("instance 0 has 2 dimensions where 0 are expected") != std::string::npos);
}

TEST_CASE("models NAME and serve print the signatures from TF Serving's metadata", "[serving][e2e]") {
  REQUIRE_FALSE(tfjob::test::plugin_path().empty());  // the plugin is a build dependency of this test
  Cluster c;
  FakeModel m;
  m.load_time = std::chrono::milliseconds(0);
  m.signature_def = tfjob::test::mnist_signatures();
  c.tfs->set_model("mnist", m);
  auto s = c.run({"serve", "mnist", "--model-url", "https://example.com/mnist.tar.gz", "--gpus", "0"});
  INFO(s.err);
  REQUIRE(s.exit_code == 0);
  CHECK(s.out.find("SIGNATURE         ROLE     NAME            DTYPE      SHAPE") != std::string::npos);
  CHECK(s.out.find("serving_default   input    images          DT_FLOAT   (-1, 28, 28)") != std::string::npos);

  auto r = c.run({"models", "mnist"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("model \"mnist\" version 1 on service default/mnist") != std::string::npos);
  CHECK(r.out.find("serving_default   input    images          DT_FLOAT   (-1, 28, 28)") != std::string::npos);
  CHECK(r.out.find("serving_default   output   classes         DT_INT64   (-1)") != std::string::npos);
  CHECK(r.out.find("serving_default   output   probabilities   DT_FLOAT   (-1, 10)") != std::string::npos);

  auto j = c.run({"models", "mnist", "-o", "json"});
  REQUIRE(j.exit_code == 0);
  auto mj = json::parse(j.out);
  CHECK(mj["model"] == "mnist");
  CHECK(mj["version"] == "1");
  CHECK(mj["signatures"][0]["inputs"][0]["shape"] == json::array({-1, 28, 28}));
  CHECK(mj["signatures"][0]["inputs"][0]["dtype"] == "DT_FLOAT");

  auto nosvc = c.run({"models", "nosuch"});
  CHECK(nosvc.exit_code == 1);
  CHECK(nosvc.err.find("service \"nosuch\" not found") != std::string::npos);
  auto nover = c.run({"models", "mnist", "--version", "7"});
  CHECK(nover.exit_code == 1);
  CHECK(nover.err.find("Servable not found for request: Specific(mnist, 7)") != std::string::npos);
  auto badver = c.run({"models", "mnist", "--version", "latest"});
  CHECK(badver.exit_code == 64);
  CHECK(badver.err.find("error: --version: \"latest\" is not a whole number") != std::string::npos);
}

TEST_CASE("predict checks the signature: missing input, rank, dtype, --signature, --version, --label", "[serving][e2e]") {
  REQUIRE_FALSE(tfjob::test::plugin_path().empty());  // the plugin is a build dependency of this test
  Cluster c;
  FakeModel m;
  m.load_time = std::chrono::milliseconds(0);
  m.signature_def = tfjob::test::mnist_signatures();
  m.labels = {{"stable", 1}, {"canary", 2}};
  c.tfs->set_model("digits", m);
  REQUIRE(c.run({"serve", "digits", "--model-url", "https://example.com/mnist.tar.gz", "--gpus", "0"}).exit_code == 0);
  const auto digit = tfjob::test::source_dir() + "/samples/mnist/digit-1.json";

  auto ok = c.run({"predict", "digits", "--json", digit});
  INFO(ok.err);
  REQUIRE(ok.exit_code == 0);
  CHECK(json::parse(ok.out)["predictions"][0]["probabilities"].size() == 10);
  const int sent = c.tfs->predict_requests();

  struct Bad {
    const char* body;
    const char* says;
  };
  for (const Bad& b : {Bad{R"({"instances": [[1, 2, 3]]})", "instance 0 has 1 dimension where 2 are expected"},
                       Bad{R"({"instances": [{"pixels": [[1]]}]})", "instance 0 has no input \"images\""},
                       Bad{R"({"instances": [[[0.5]]]})", "has 1 element in dimension 0 where 28 are expected"},
                       Bad{R"({"inputs": [[0.5]]})", "\"inputs\" has 2 dimensions where 3 are expected"}}) {
    auto r = c.run({"predict", "digits", "--json", c.write("bad.json", b.body)});
    INFO(b.body << "\n" << r.err);
    CHECK(r.exit_code == 1);
    CHECK(r.err.find(b.says) != std::string::npos);
    CHECK(r.err.find("input \"images\" (DT_FLOAT, shape (-1, 28, 28)) of signature \"serving_default\"") != std::string::npos);
  }
  // dtype: a 28x28 of strings
  json strings = json::array();
  for (int i = 0; i < 28; ++i) strings.push_back(json(std::vector<std::string>(28, "x")));
  auto r = c.run({"predict", "digits", "--json", c.write("str.json", json{{"instances", {strings}}}.dump())});
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("holds a string where DT_FLOAT is expected") != std::string::npos);
  // an image to a float signature is decoded first (predict --image): these bytes only start like a JPEG
  r = c.run({"predict", "digits", "--image", c.write("cat.jpg", jpeg)});
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("cannot decode image \"" + c.dir + "/cat.jpg\"") != std::string::npos);
  CHECK(c.tfs->predict_requests() == sent);  // none of them was sent

  r = c.run({"predict", "digits", "--json", digit, "--signature", "classify"});
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("has no signature \"classify\"; its signatures: serving_default") != std::string::npos);
  r = c.run({"predict", "digits", "--json", digit, "--signature", "serving_default", "--version", "1"});
  INFO(r.err);
  CHECK(r.exit_code == 0);
  r = c.run({"predict", "digits", "--json", digit, "--version", "3"});
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("Specific(digits, 3)") != std::string::npos);
  r = c.run({"predict", "digits", "--json", digit, "--label", "stable"});
  INFO(r.err);
  CHECK(r.exit_code == 0);
  r = c.run({"predict", "digits", "--json", digit, "--label", "canary"});  // labels version 2, which is not served
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("Specific(digits, 2)") != std::string::npos);
  r = c.run({"predict", "digits", "--json", digit, "--label", "nightly"});
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("Unrecognized servable version label: nightly") != std::string::npos);
  r = c.run({"predict", "digits", "--json", digit, "--label", "stable", "--version", "1"});
  CHECK(r.exit_code == 64);
  CHECK(c.tfs->predict_requests() == sent + 2);  // the two that fit and named a served version
}

TEST_CASE("serve --batching --monitoring --replicas 2 --autoscale: ConfigMap, PDB, HPA, serve status counts the requests, delete removes all",
          "[serving][e2e][operations]") {
  REQUIRE_FALSE(tfjob::test::plugin_path().empty());
  Cluster c;
  FakeModel m;
  m.load_time = std::chrono::milliseconds(100);
  c.tfs->set_model("resnet", m);

  // a bad --batching is refused before any request (exit 64), and nothing is applied
  auto bad = c.run({"serve", "resnet", "--model", "resnet", "--batching", "max_batch_size=32,batch_timeout=5"});
  CHECK(bad.exit_code == 64);
  CHECK(bad.err.find("unknown key \"batch_timeout\"") != std::string::npos);
  auto noc = c.run({"serve", "resnet", "--model", "resnet", "--autoscale", "1:4:70%"});
  CHECK(noc.exit_code == 64);
  CHECK(noc.err.find("give them a CPU request too (--cpu 2)") != std::string::npos);
  CHECK_FALSE(c.server->get_object("deployments.apps", "default", "resnet"));

  auto r = c.run({"serve", "resnet", "--model", "resnet", "--gpus", "0", "--cpu", "1", "--autoscale", "1:4:70%",
                  "--batching", "max_batch_size=8,batch_timeout_micros=2000", "--monitoring", "--timeout", "60s"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  for (const char* applied : {"configmap/resnet serverside-applied", "deployment.apps/resnet serverside-applied",
                              "service/resnet serverside-applied", "poddisruptionbudget.policy/resnet serverside-applied",
                              "horizontalpodautoscaler.autoscaling/resnet serverside-applied"})
    CHECK(r.err.find(applied) != std::string::npos);
  auto cm = c.server->get_object("configmaps", "default", "resnet");
  REQUIRE(cm);
  CHECK((*cm)["data"]["batching_parameters.pbtxt"] == "max_batch_size { value: 8 }\nbatch_timeout_micros { value: 2000 }\n");
  auto hpa = c.server->get_object("horizontalpodautoscalers.autoscaling", "default", "resnet");
  REQUIRE(hpa);
  CHECK((*hpa)["spec"]["maxReplicas"] == 4);
  REQUIRE(c.server->get_object("poddisruptionbudgets.policy", "default", "resnet"));

  // status before any prediction, then after two good and one rejected request
  auto s0 = c.run({"serve", "status", "resnet"});
  INFO(s0.err);
  REQUIRE(s0.exit_code == 0);
  CHECK(s0.out.find("model \"resnet\" version 1 is AVAILABLE") != std::string::npos);
  CHECK(s0.out.find("no requests answered yet") != std::string::npos);
  REQUIRE(c.run({"predict", "resnet", "--image", c.write("a.jpg", jpeg)}).exit_code == 0);
  REQUIRE(c.run({"predict", "resnet", "--image", c.write("b.jpg", jpeg + "x")}).exit_code == 0);
  // a PNG: predict sends it (a DT_STRING takes any bytes) and this JPEG-only model rejects it
  auto png = c.run({"predict", "resnet", "--image", c.write("c.png", std::string("\x89PNG\r\n\x1a\n", 8) + "png bytes")});
  CHECK(png.exit_code == 1);
  CHECK(png.err.find("Invalid JPEG data") != std::string::npos);
  auto s1 = c.run({"serve", "status", "resnet"});
  INFO(s1.out << s1.err);
  REQUIRE(s1.exit_code == 0);
  CHECK(s1.out.find("MODEL    REQUESTS   BY-STATUS") != std::string::npos);
  CHECK(s1.out.find("INVALID_ARGUMENT=1,OK=2") != std::string::npos);
  auto sj = c.run({"serve", "status", "resnet", "-o", "json"});
  REQUIRE(sj.exit_code == 0);
  auto j = json::parse(sj.out);
  REQUIRE(j["metrics"].size() == 1);
  CHECK(j["metrics"][0]["requests"] == 3);
  CHECK(j["metrics"][0]["latencyMicros"]["count"] == 3);
  CHECK(j["metrics"][0]["latencyMicros"]["quantiles"].contains("p99"));
  CHECK(j["monitoring"] == true);

  auto d = c.run({"serve", "delete", "resnet"});
  INFO(d.out << d.err);
  REQUIRE(d.exit_code == 0);
  for (const char* gone : {"configmap/resnet deleted", "poddisruptionbudget.policy/resnet deleted",
                           "horizontalpodautoscaler.autoscaling/resnet deleted"})
    CHECK(d.out.find(gone) != std::string::npos);
  CHECK_FALSE(c.server->get_object("configmaps", "default", "resnet"));
  CHECK_FALSE(c.server->get_object("horizontalpodautoscalers.autoscaling", "default", "resnet"));
  CHECK_FALSE(c.server->get_object("poddisruptionbudgets.policy", "default", "resnet"));
}

TEST_CASE("serve status of a server without --monitoring says how to turn it on", "[serving][e2e][operations]") {
  REQUIRE_FALSE(tfjob::test::plugin_path().empty());
  Cluster c;
  FakeModel m;
  m.load_time = std::chrono::milliseconds(50);
  c.tfs->set_model("plain", m);
  auto r = c.run({"serve", "plain", "--model", "resnet", "--gpus", "0", "--timeout", "60s"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  auto s = c.run({"serve", "status", "plain"});
  CHECK(s.exit_code == 0);
  CHECK(s.err.find("not started with --monitoring") != std::string::npos);
  auto none = c.run({"serve", "status", "nosuch"});
  CHECK(none.exit_code == 1);
  CHECK(none.err.find("model server \"nosuch\" not found") != std::string::npos);
}

TEST_CASE("predict --image to a DT_FLOAT [N,28,28] model: PNG and JPEG decoded and resized, a signature taking neither refused",
          "[serving][e2e][image]") {
#ifndef TFJOB_HAVE_STB_WRITE
  TFJOB_SKIP("stb_image_write.h (libstb-dev) is missing, so no PNG/JPEG can be written for this test");
#else
  REQUIRE_FALSE(tfjob::test::plugin_path().empty());
  Cluster c;
  FakeModel m;
  m.load_time = std::chrono::milliseconds(50);
  m.signature_def = tfjob::test::mnist_signatures();
  c.tfs->set_model("mnist", m);
  REQUIRE(c.run({"serve", "mnist", "--model", "resnet", "--gpus", "0", "--timeout", "60s"}).exit_code == 0);

  // a 56x56 gray "1" as PNG and a 64x48 RGB JPEG: both become a 28x28 float tensor
  std::vector<unsigned char> gray(56 * 56, 0), rgb(64 * 48 * 3, 0);
  for (int y = 8; y < 48; ++y)
    for (int x = 24; x < 32; ++x) gray[y * 56 + x] = 255;
  for (std::size_t i = 0; i < rgb.size(); ++i) rgb[i] = static_cast<unsigned char>(i * 7);
  const std::string png = c.dir + "/one.png", jpg = c.dir + "/photo.jpg";
  REQUIRE(stbi_write_png(png.c_str(), 56, 56, 1, gray.data(), 56) != 0);
  REQUIRE(stbi_write_jpg(jpg.c_str(), 64, 48, 3, rgb.data(), 90) != 0);
  for (const auto& f : {png, jpg}) {
    auto r = c.run({"predict", "mnist", "--image", f, "--top", "3"});
    INFO(f << ": " << r.err);
    CHECK(r.exit_code == 0);  // the signature check (rank 2 per instance, floats) passed and TF Serving answered
    CHECK(r.out.find("RANK") != std::string::npos);
  }
  CHECK(c.tfs->predict_requests() == 2);

  // bytes that claim to be a PNG but do not decode: an error naming the file, nothing sent
  auto bad = c.run({"predict", "mnist", "--image", c.write("bad.png", std::string("\x89PNG\r\n\x1a\n", 8) + "garbage")});
  CHECK(bad.exit_code == 1);
  CHECK(bad.err.find("cannot decode image \"" + c.dir + "/bad.png\"") != std::string::npos);
  CHECK(c.tfs->predict_requests() == 2);

  // a model whose signature takes an int64 vector: no conversion from an image
  FakeModel ints = m;
  ints.signature_def = json{{"serving_default",
                             {{"inputs", {{"ids", json::parse(tfjob::test::tensor_info_json("DT_INT64", {-1, 16}, "ids:0"))}}},
                              {"outputs", {{"scores", json::parse(tfjob::test::tensor_info_json("DT_FLOAT", {-1, 2}, "s:0"))}}},
                              {"method_name", "tensorflow/serving/predict"}}}}
                           .dump();
  ints.load_time = std::chrono::milliseconds(0);  // AVAILABLE at once: set_model restarts the load clock
  c.tfs->set_model("mnist", ints);
  auto no = c.run({"predict", "mnist", "--image", png});
  INFO(no.err);
  CHECK(no.exit_code == 1);
  CHECK(no.err.find("takes ids DT_INT64 (-1, 16)") != std::string::npos);
  CHECK(no.err.find("--json FILE") != std::string::npos);
#endif
}

TEST_CASE("tensorboard's local proxy forwards a GET (path and query) and a POST through the API server's service proxy",
          "[serving][e2e][tensorboard]") {
  FakeApiServerOptions o;
  FakeApiServer server(o);
  const std::string dir = tfjob::test::temp_dir("tensorboard-e2e");
  server.write_kubeconfig(dir + "/kubeconfig");
  std::vector<tfjob::test::ProxyRequest> seen;
  std::mutex mu;
  server.set_proxy_handler("*-tensorboard", [&](const tfjob::test::ProxyRequest& r) {
    std::lock_guard<std::mutex> lk(mu);
    seen.push_back(r);
    tfjob::test::ProxyResponse p;
    p.content_type = "text/html";
    p.body = "<html>TensorBoard " + r.method + " " + r.path + "</html>";
    return p;
  });
  tfjob::kube::ConfigOverrides ov;
  ov.kubeconfig = dir + "/kubeconfig";
  tfjob::kube::Client client(tfjob::kube::load_config(ov));
  // TensorBoard's objects, applied as the command applies them
  tfjob::serving::JobLogDir log{"/train/logs", "tfjob-mnist", "logs", "Chief"};
  auto applied = tfjob::serving::apply_objects(client, "default", tfjob::serving::build_tensorboard("mnist-tensorboard", "", log));
  REQUIRE(applied.size() == 2);
  tfjob::kube::LocalProxy proxy(client, tfjob::serving::tensorboard_proxy_prefix("default", "mnist-tensorboard"));
  CHECK(proxy.url() == "http://127.0.0.1:" + std::to_string(proxy.port()) + "/");
  httplib::Client local("127.0.0.1", proxy.port());
  auto res = local.Get("/data/runs?experiment=1");
  REQUIRE(res);
  CHECK(res->status == 200);
  CHECK(res->get_header_value("Content-Type") == "text/html");
  CHECK(res->body == "<html>TensorBoard GET /data/runs</html>");
  auto post = local.Post("/data/plugin/scalars/scalars_multirun", "runs=train", "application/x-www-form-urlencoded");
  REQUIRE(post);
  CHECK(post->status == 200);
  {
    std::lock_guard<std::mutex> lk(mu);
    REQUIRE(seen.size() == 2);
    CHECK(seen[0].service == "mnist-tensorboard");
    CHECK(seen[0].port == "6006");
    CHECK(seen[0].query == "experiment=1");
    CHECK(seen[1].method == "POST");
    CHECK(seen[1].body == "runs=train");
  }
  // a service without a handler: the API server's own answer comes back as it is
  tfjob::kube::LocalProxy other(client, tfjob::serving::tensorboard_proxy_prefix("default", "nothing"));
  httplib::Client l2("127.0.0.1", other.port());
  auto miss = l2.Get("/");
  REQUIRE(miss);
  CHECK(miss->status >= 400);
  CHECK(proxy.requests() == 2);
  proxy.stop();
  CHECK_FALSE(httplib::Client("127.0.0.1", proxy.port()).Get("/"));  // stopped: nothing listens
}

TEST_CASE("tensorboard --dry-run=client -f: the objects for the MNIST sample's log directory", "[serving][e2e][tensorboard]") {
  REQUIRE_FALSE(tfjob::test::plugin_path().empty());
  auto r = tfjob::test::run_plugin({"tensorboard", "-f", tfjob::test::source_dir() + "/samples/mnist/tfjob.yaml", "--dry-run=client", "-o", "json"}, "", 60);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.find("writes its logs to /train/logs: claim tfjob-mnist, directory logs") != std::string::npos);
  CHECK(r.out.find("\"claimName\": \"tfjob-mnist\"") != std::string::npos);
}

TEST_CASE("several models in one server: a model config ConfigMap, version policies, labels moved without a new pod", "[serving][e2e][model-config]") {
  REQUIRE_FALSE(tfjob::test::plugin_path().empty());
  Cluster c;
  FakeModel mnist;
  mnist.load_time = std::chrono::milliseconds(0);
  mnist.disk_versions = {1, 2, 3};
  mnist.signature_def = tfjob::test::mnist_signatures();
  mnist.version_signatures = {{3, tfjob::test::resnet_signatures()}};  // a later export with another contract
  c.tfs->set_model("mnist", mnist);
  FakeModel resnet;
  resnet.load_time = std::chrono::milliseconds(0);
  c.tfs->set_model("resnet", resnet);

  // the claim is checked before anything is applied
  auto nopvc = c.run({"serve", "zoo", "--model", "mnist=pvc:models:export/mnist", "--model", "resnet=resnet", "--gpus", "0"});
  CHECK(nopvc.exit_code == 1);
  CHECK(nopvc.err.find("persistentvolumeclaim \"models\" not found in namespace \"default\": --model mnist=pvc:CLAIM[:PATH]") != std::string::npos);
  c.server->put_object({{"apiVersion", "v1"}, {"kind", "PersistentVolumeClaim"},
                        {"metadata", {{"name", "models"}, {"namespace", "default"}}},
                        {"spec", {{"accessModes", {"ReadWriteOnce"}}, {"resources", {{"requests", {{"storage", "1Gi"}}}}}}}});
  auto bad = c.run({"serve", "zoo", "--model", "mnist=pvc:models", "--model", "resnet=resnet", "--version-label", "stable=1"});
  CHECK(bad.exit_code == 64);
  CHECK(bad.err.find("\"stable=1\" names no model, and this server serves 2 models; name the model (MODEL=... or MODEL:...)") !=
        std::string::npos);

  auto r = c.run({"serve", "zoo", "--model", "mnist=pvc:models:export/mnist", "--model", "resnet=resnet", "--gpus", "0",
                  "--version-policy", "mnist=specific:1,2", "--version-label", "mnist:stable=1", "--version-label", "mnist:canary=1",
                  "--timeout", "60s"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.find("configmap/zoo-models serverside-applied") != std::string::npos);
  CHECK(r.out.find("model \"mnist\" version 2 is AVAILABLE on service default/zoo") != std::string::npos);
  CHECK(r.out.find("model \"resnet\" version 1 is AVAILABLE on service default/zoo") != std::string::npos);
  auto cm = c.server->get_object("configmaps", "default", "zoo-models");
  REQUIRE(cm);
  auto cfg = tfjob::serving::parse_model_config((*cm)["data"]["models.config"].get<std::string>());
  REQUIRE(cfg.models.size() == 2);
  CHECK(cfg.models[0].policy.text() == "specific:1,2");

  auto l = c.run({"serve", "list"});
  INFO(l.err);
  REQUIRE(l.exit_code == 0);
  CHECK(l.out.find("zoo    mnist=pvc:models/export/mnist,resnet=resnet   1/1     mnist:1,2;resnet:1   mnist:canary=1,stable=1;resnet:<none>") !=
        std::string::npos);

  auto pod_before = c.server->list_objects("pods", "default");
  REQUIRE(pod_before.size() == 1);
  const std::string uid = pod_before[0]["metadata"]["uid"];

  // TF Serving's rule: a label only on an AVAILABLE version (3 is on disk, not in the policy)
  auto refused = c.run({"serve", "label", "zoo", "mnist", "canary=3", "--timeout", "10s"});
  CHECK(refused.exit_code == 1);
  CHECK(refused.err.find("version 3 of model \"mnist\" is not AVAILABLE (AVAILABLE: 1, 2): TF Serving only lets a version label "
                         "name an AVAILABLE version") != std::string::npos);
  auto moved = c.run({"serve", "label", "zoo", "mnist", "canary=2", "--timeout", "30s"});
  INFO(moved.err);
  REQUIRE(moved.exit_code == 0);
  CHECK(moved.out == "model \"mnist\" label \"canary\": version 1 -> version 2\n");
  CHECK(moved.err.find("configmap/zoo-models updated") != std::string::npos);
  auto again = c.run({"serve", "label", "zoo", "mnist", "canary=2"});
  CHECK(again.exit_code == 0);
  CHECK(again.err.find("configmap/zoo-models unchanged") != std::string::npos);
  auto unknown = c.run({"serve", "label", "zoo", "nosuch", "canary=2"});
  CHECK(unknown.exit_code == 1);

  // the same pod answers: no new template, no restart
  auto pod_after = c.server->list_objects("pods", "default");
  REQUIRE(pod_after.size() == 1);
  CHECK(pod_after[0]["metadata"]["uid"] == uid);
  auto mc = c.run({"models", "zoo", "--model-name", "mnist", "--label", "canary"});
  INFO(mc.err);
  REQUIRE(mc.exit_code == 0);
  CHECK(mc.out.find("model \"mnist\" version 2 on service default/zoo") != std::string::npos);
  auto ms = c.run({"models", "zoo", "--model-name", "mnist", "--label", "stable"});
  CHECK(ms.out.find("model \"mnist\" version 1 on service default/zoo") != std::string::npos);
  auto p = c.run({"predict", "zoo", "--model-name", "resnet", "--image", c.write("cat.jpg", jpeg), "--top", "1"});
  INFO(p.err);
  CHECK(p.exit_code == 0);

  // delete takes the ConfigMap with it
  auto d = c.run({"serve", "delete", "zoo"});
  CHECK(d.out.find("configmap/zoo-models deleted") != std::string::npos);
  CHECK_FALSE(c.server->get_object("configmaps", "default", "zoo-models"));
}

TEST_CASE("serve label on a one-model server says it has no model config", "[serving][e2e][model-config]") {
  Cluster c;
  FakeModel m;
  m.load_time = std::chrono::milliseconds(0);
  c.tfs->set_model("resnet", m);
  REQUIRE(c.run({"serve", "resnet", "--model", "resnet", "--timeout", "60s"}).exit_code == 0);
  auto r = c.run({"serve", "label", "resnet", "resnet", "stable=1"});
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("serves one model by flags, without a model config file, so it has no version labels") != std::string::npos);
}

TEST_CASE("serve --from-job: the export of a succeeded TFJob on its claim, a later export waited for with --wait-version", "[serving][e2e][from-job]") {
  Cluster c;
  FakeModel m;
  m.load_time = std::chrono::milliseconds(0);
  m.disk_versions = {1};
  m.signature_def = tfjob::test::mnist_signatures();
  c.tfs->set_model("mnist", m);
  c.server->put_object({{"apiVersion", "v1"}, {"kind", "PersistentVolumeClaim"},
                        {"metadata", {{"name", "tfjob-mnist"}, {"namespace", "default"}}},
                        {"spec", {{"accessModes", {"ReadWriteOnce"}}, {"resources", {{"requests", {{"storage", "1Gi"}}}}}}}});
  json job = json::parse(R"({"apiVersion": "kubeflow.org/v1", "kind": "TFJob", "metadata": {"name": "train", "namespace": "default"},
    "spec": {"tfReplicaSpecs": {"Chief": {"replicas": 1, "restartPolicy": "Never", "template": {"spec": {
      "containers": [{"name": "tensorflow", "image": "tensorflow/tensorflow:2.21.0",
                      "args": ["python", "mnist.py", "--export-dir=/train/export/mnist"],
                      "volumeMounts": [{"name": "train", "mountPath": "/train"}]}],
      "volumes": [{"name": "train", "persistentVolumeClaim": {"claimName": "tfjob-mnist"}}]}}}}},
    "status": {"conditions": [{"type": "Created", "status": "True"}, {"type": "Running", "status": "False"}]}})");
  c.server->put_object(job);
  auto early = c.run({"serve", "mnist", "--from-job", "train", "--gpus", "0"});
  CHECK(early.exit_code == 1);
  CHECK(early.err.find("tfjob \"train\" has not succeeded yet (") != std::string::npos);
  CHECK_FALSE(c.server->get_object("deployments.apps", "default", "mnist"));

  job["status"]["conditions"].push_back({{"type", "Succeeded"}, {"status", "True"}});
  c.server->put_object(job);
  auto r = c.run({"serve", "mnist", "--from-job", "train", "--gpus", "0", "--timeout", "60s"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.find("tfjob/train: the Chief exported to /train/export/mnist, on claim tfjob-mnist at export/mnist") != std::string::npos);
  // the training image's TensorFlow is newer than the served TF Serving release: said, with both
  CHECK(r.err.find("warning: the model was exported by TensorFlow 2.21.0 (training image tensorflow/tensorflow:2.21.0) and is served "
                   "by TF Serving 2.20.0 (tensorflow/serving:2.20.0)") != std::string::npos);
  CHECK(r.out.find("model \"mnist\" version 1 is AVAILABLE") != std::string::npos);
  auto dep = c.server->get_object("deployments.apps", "default", "mnist");
  REQUIRE(dep);
  CHECK((*dep)["spec"]["template"]["spec"]["containers"][0]["volumeMounts"][1]["subPath"] == "export/mnist");

  // a later run exported version 2: TF Serving's file system poll serves it (latest:1)
  m.disk_versions = {1, 2};
  c.tfs->set_model("mnist", m);
  auto w = c.run({"serve", "mnist", "--from-job", "train", "--gpus", "0", "--wait-version", "2", "--timeout", "60s"});
  INFO(w.err);
  REQUIRE(w.exit_code == 0);
  CHECK(w.out.find("model \"mnist\" version 2 is AVAILABLE") != std::string::npos);
  auto never = c.run({"serve", "mnist", "--from-job", "train", "--gpus", "0", "--wait-version", "5", "--timeout", "3s"});
  CHECK(never.exit_code == 2);
  CHECK(never.err.find("waiting for version 5 of model \"mnist\" (TF Serving has: version 2 AVAILABLE)") != std::string::npos);
}

TEST_CASE("the guide's TensorFlow line: submit mnist's model, served by serve's default and read by tensorboard's, gives no version warning",
          "[serving][e2e][from-job][guide]") {
  REQUIRE_FALSE(tfjob::test::plugin_path().empty());
  Cluster c;
  FakeModel m;
  m.load_time = std::chrono::milliseconds(0);
  m.signature_def = tfjob::test::mnist_signatures();
  c.tfs->set_model("mnist", m);
  // the guide's step 5 as the plugin renders it, then finished as the operator would
  auto dry = c.run({"submit", "mnist", "--gpus", "0", "--dry-run=client", "-o", "json"});
  INFO(dry.err);
  REQUIRE(dry.exit_code == 0);
  json job;
  for (const auto& item : json::parse(dry.out).value("items", json::array({json::parse(dry.out)})))
    if (item.value("kind", "") == "TFJob") job = item;
  REQUIRE(job.is_object());
  const std::string image = job["spec"]["tfReplicaSpecs"]["Chief"]["template"]["spec"]["containers"][0]["image"];
  CHECK(image == "tensorflow/tensorflow:" + std::string(tfjob::serving::default_serving_version) + "-gpu");
  CHECK(std::string(tfjob::serving::default_tensorboard_image) == "tensorflow/tensorflow:" + std::string(tfjob::serving::default_serving_version));
  c.server->put_object({{"apiVersion", "v1"}, {"kind", "PersistentVolumeClaim"},
                        {"metadata", {{"name", "tfjob-mnist"}, {"namespace", "default"}}},
                        {"spec", {{"accessModes", {"ReadWriteMany"}}, {"resources", {{"requests", {{"storage", "10Gi"}}}}}}}});
  job["metadata"]["namespace"] = "default";
  job["status"] = {{"conditions", {{{"type", "Created"}, {"status", "True"}}, {{"type", "Succeeded"}, {"status", "True"}}}}};
  c.server->put_object(job);
  // the SavedModel as that release writes it, read by the export check pod
  c.export_listing({"dir 1", "pb 4096 1", "warmup 1", "head 1",
                    tfjob::kube::detail::base64_encode(tfjob::test::saved_model_pb(tfjob::serving::default_serving_version)), "endhead"});
  auto r = c.run({"serve", "mnist", "--from-job", "mnist", "--gpus", "0", "--timeout", "60s"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.find("exported by TensorFlow " + std::string(tfjob::serving::default_serving_version)) != std::string::npos);
  CHECK(r.err.find("warning: the model was exported by") == std::string::npos);
  CHECK(r.out.find("model \"mnist\" version 1 is AVAILABLE") != std::string::npos);
  // and what decides the warning agrees: the training image's release is not newer than the server's
  CHECK(tfjob::serving::tf_version_warning(tfjob::serving::tf_release_of_image(image), "training image " + image,
                                           tfjob::serving::default_serving_version, "tensorflow/serving").empty());
}

TEST_CASE("serve's export check: a version without saved_model.pb refused before anything is applied, no warmup warned, the SavedModel's TF version",
          "[serving][e2e][export-check]") {
  REQUIRE_FALSE(tfjob::test::plugin_path().empty());
  Cluster c;
  FakeModel m;
  m.load_time = std::chrono::milliseconds(0);
  c.tfs->set_model("mnist", m);
  c.server->put_object({{"apiVersion", "v1"}, {"kind", "PersistentVolumeClaim"},
                        {"metadata", {{"name", "models"}, {"namespace", "default"}}},
                        {"spec", {{"accessModes", {"ReadWriteOnce"}}, {"resources", {{"requests", {{"storage", "1Gi"}}}}}}}});
  c.export_listing({"dir 1", "pb 4096 1", "warmup 1", "dir 2"});
  auto r = c.run({"serve", "mnist", "--pvc", "models:export", "--gpus", "0", "--timeout", "60s"});
  INFO(r.err);
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("refusing to serve \"mnist\": the export check found\n  model \"mnist\" (export/mnist on claim models): version "
                   "directory export/mnist/2 has no saved_model.pb") != std::string::npos);
  CHECK_FALSE(c.server->get_object("deployments.apps", "default", "mnist"));
  // the check pod was deleted, whatever it found
  auto pods = c.server->list_objects("pods", "default");
  CHECK(pods.empty());

  // a good export without warmup requests, written by a TensorFlow newer than the default server: both said, then served
  const std::string head = tfjob::kube::detail::base64_encode(tfjob::test::saved_model_pb("2.21.0"));
  c.export_listing({"dir 1", "pb 4096 1", "head 1", head, "endhead"});
  r = c.run({"serve", "mnist", "--pvc", "models:export", "--gpus", "0", "--timeout", "60s"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.find("warning: model \"mnist\" (export/mnist on claim models): version 1 has no warmup file "
                   "(export/mnist/1/assets.extra/tf_serving_warmup_requests): the first requests will be slow") != std::string::npos);
  CHECK(r.err.find("model \"mnist\" (export/mnist on claim models): version 1 hold a SavedModel, exported by TensorFlow 2.21.0") !=
        std::string::npos);
  CHECK(r.err.find("warning: the model was exported by TensorFlow 2.21.0 (saved_model.pb of version 1 (export/mnist/1)) and is served "
                   "by TF Serving 2.20.0 (tensorflow/serving:2.20.0)") != std::string::npos);
  CHECK(r.out.find("model \"mnist\" version 1 is AVAILABLE") != std::string::npos);

  // --no-export-check: no pod, TF Serving judges
  c.export_listing({"nodir"});
  auto n = c.run({"serve", "mnist", "--pvc", "models:export", "--gpus", "0", "--no-export-check", "--timeout", "60s"});
  INFO(n.err);
  CHECK(n.exit_code == 0);
  CHECK(n.err.find("export-check") == std::string::npos);
}

TEST_CASE("kubectl tfjob tensorboard JOB: applies TensorBoard, prints the local URL, proxies to it, and Ctrl-C removes it unless --keep",
          "[serving][e2e][tensorboard]") {
  REQUIRE_FALSE(tfjob::test::plugin_path().empty());  // the plugin is a build dependency of this test
  Cluster c;
  std::atomic<int> served{0};
  c.server->set_proxy_handler("*-tensorboard", [&](const tfjob::test::ProxyRequest& r) {
    ++served;
    tfjob::test::ProxyResponse p;
    p.content_type = "text/html";
    p.body = "<html>TensorBoard " + r.method + " " + r.path + "</html>";
    return p;
  });
  c.server->put_object({{"apiVersion", "v1"}, {"kind", "PersistentVolumeClaim"},
                        {"metadata", {{"name", "tfjob-mnist"}, {"namespace", "default"}}},
                        {"spec", {{"accessModes", {"ReadWriteOnce"}}, {"resources", {{"requests", {{"storage", "1Gi"}}}}}}}});
  c.server->put_object(json::parse(R"({"apiVersion": "kubeflow.org/v1", "kind": "TFJob", "metadata": {"name": "train", "namespace": "default"},
    "spec": {"tfReplicaSpecs": {"Chief": {"replicas": 1, "restartPolicy": "Never", "template": {"spec": {
      "containers": [{"name": "tensorflow", "image": "tensorflow/tensorflow:2.18.0",
                      "args": ["python", "mnist.py", "--log-dir=/train/logs"],
                      "volumeMounts": [{"name": "train", "mountPath": "/train"}]}],
      "volumes": [{"name": "train", "persistentVolumeClaim": {"claimName": "tfjob-mnist"}}]}}}}}})"));
  for (const bool keep : {false, true}) {
    INFO("--keep " << keep);
    std::vector<std::string> argv = {tfjob::test::plugin_path(), "tensorboard", "train", "--kubeconfig", c.kubeconfig, "--timeout", "60s"};
    if (keep) argv.push_back("--keep");
    tfjob::kube::detail::ChildSpec spec;
    spec.program = argv[0];
    spec.argv = argv;
    spec.stderr_to_pipe = true;
    spec.die_with_parent = true;
    auto child = tfjob::kube::detail::start_child(spec);
    REQUIRE(child.pid > 0);
    // the command's output up to the URL it prints (kubectl proxy's words), or its end
    std::string out;
    std::string url;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (url.empty() && std::chrono::steady_clock::now() < deadline) {
      pollfd pfd{child.out_fd, POLLIN, 0};
      if (::poll(&pfd, 1, 200) <= 0) continue;
      char buf[4096];
      const ssize_t n = ::read(child.out_fd, buf, sizeof buf);
      if (n <= 0) break;
      out.append(buf, static_cast<std::size_t>(n));
      const auto at = out.find("TensorBoard: http://127.0.0.1:");
      if (at != std::string::npos && out.find('\n', at) != std::string::npos)
        url = out.substr(at + 13, out.find('\n', at) - at - 13);
    }
    INFO(out);
    REQUIRE_FALSE(url.empty());
    CHECK(out.find("tfjob train (Chief) writes its logs to /train/logs: claim tfjob-mnist, directory logs") != std::string::npos);
    CHECK(out.find("Starting to serve on 127.0.0.1:") != std::string::npos);
    REQUIRE(c.server->get_object("deployments.apps", "default", "train-tensorboard"));
    REQUIRE(c.server->get_object("services", "default", "train-tensorboard"));
    const int port = std::stoi(url.substr(url.rfind(':') + 1));
    auto res = httplib::Client("127.0.0.1", port).Get("/#scalars");
    REQUIRE(res);
    CHECK(res->status == 200);
    CHECK(res->body == "<html>TensorBoard GET /</html>");
    ::kill(child.pid, SIGINT);  // Ctrl-C
    tfjob::kube::detail::read_to_end(child.out_fd, out);
    ::close(child.out_fd);
    const int status = tfjob::kube::detail::wait_child(child.pid);
    INFO(out);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
    if (keep) {
      CHECK(out.find("kept deployment.apps/train-tensorboard and service/train-tensorboard (--keep)") != std::string::npos);
      CHECK(c.server->get_object("deployments.apps", "default", "train-tensorboard"));
      CHECK(c.server->get_object("services", "default", "train-tensorboard"));
    } else {
      CHECK(out.find("deleted deployment.apps/train-tensorboard and service/train-tensorboard") != std::string::npos);
      CHECK_FALSE(c.server->get_object("services", "default", "train-tensorboard"));
      CHECK_FALSE(c.server->get_object("deployments.apps", "default", "train-tensorboard"));
    }
    CHECK_FALSE(httplib::Client("127.0.0.1", port).Get("/"));  // the proxy stopped with the command
  }
  CHECK(served.load() == 2);
}

TEST_CASE("serve --profile edge: a CPU-only ResNet-50 server sized for an edge node, served and predicted, and refused when it does not fit",
          "[serving][e2e][profile]") {
  REQUIRE_FALSE(tfjob::test::plugin_path().empty());
  FakeApiServerOptions o;  // one CPU node, then sized as GDC's edge profile's minimum node reports itself
  o.gpu_nodes = 0;
  o.pod_start_delay = std::chrono::milliseconds(50);
  FakeApiServer server(o);
  FakeTfServing tfs(server);
  const std::string dir = tfjob::test::temp_dir("serving-edge");
  server.write_kubeconfig(dir + "/kubeconfig");
  auto run = [&](std::vector<std::string> args) { return tfjob::test::run_plugin(args, dir + "/kubeconfig", 60); };
  json node = *server.get_object("nodes", "", "fake-node-0");
  node["status"]["capacity"]["cpu"] = "2";
  node["status"]["capacity"]["memory"] = "4Gi";
  node["status"]["allocatable"]["cpu"] = "1900m";       // the kubelet's reservations taken off
  node["status"]["allocatable"]["memory"] = "3629331252";
  server.put_object(node);
  auto system_pod = [&](const std::string& name, const std::string& cpu, const std::string& mem) {
    server.put_object({{"apiVersion", "v1"}, {"kind", "Pod"},
                       {"metadata", {{"name", name}, {"namespace", "kube-system"}}},
                       {"spec", {{"nodeName", "fake-node-0"},
                                 {"containers", {{{"name", "c"}, {"image", "k8s.gcr.io/pause:3.9"},
                                                  {"resources", {{"requests", {{"cpu", cpu}, {"memory", mem}}}}}}}}}}});
  };
  system_pod("control-plane-and-add-ons", "1250m", "1194Mi");  // the profile's estimate of what the cluster keeps

  FakeModel m;
  m.load_time = std::chrono::milliseconds(0);
  tfs.set_model("edge", m);
  auto r = run({"serve", "edge", "--model", "resnet", "--profile", "edge", "--timeout", "60s"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("model \"edge\" version 1 is AVAILABLE") != std::string::npos);
  auto d = server.get_object("deployments.apps", "default", "edge");
  REQUIRE(d);
  const json c = (*d)["spec"]["template"]["spec"]["containers"][0];
  CHECK(c["image"] == std::string("tensorflow/serving:") + tfjob::serving::default_serving_version);  // the CPU image
  CHECK(c["resources"]["limits"] == json({{"cpu", "2"}, {"memory", "1536Mi"}}));
  CHECK((*d)["spec"]["strategy"]["rollingUpdate"]["maxSurge"] == 0);
  // predict --image against it, through the API server's service proxy
  const std::string img = dir + "/cat.jpg";
  std::ofstream(img, std::ios::binary) << jpeg;
  auto p = run({"predict", "edge", "--image", img, "--top", "3"});
  INFO(p.err);
  CHECK(p.exit_code == 0);

  // two replicas: more than the node has left, refused before anything is applied, with the budget
  r = run({"serve", "edge2", "--model", "resnet", "--profile", "edge", "--replicas", "2", "--timeout", "60s"});
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("refusing to serve \"edge2\" with the edge profile:\n  the server's pods request 1 CPU (2 replicas x 500m) but only "
                   "650m is left") != std::string::npos);
  CHECK(r.err.find("= 650m CPU, 2267Mi: left for the model server") != std::string::npos);
  CHECK_FALSE(server.get_object("deployments.apps", "default", "edge2"));
  // a GPU asked for with the edge profile: a usage error naming the flag
  r = run({"serve", "edge3", "--model", "resnet", "--profile", "edge", "--gpus", "1"});
  CHECK(r.exit_code == 64);
  CHECK(r.err.find("--gpus 1: the edge profile serves on CPUs") != std::string::npos);
  r = run({"serve", "edge3", "--model", "resnet", "--profile", "tiny"});
  CHECK(r.exit_code == 64);
  CHECK(r.err.rfind("error: --profile: \"tiny\" is not one of them; give edge", 0) == 0);  // the flag layer's form

  // a second server on the node, beside the first: the cluster's own figures (the first one's pod
  // holds 500m of the 650m) refuse it, though the profile alone would pass it
  r = run({"serve", "edge4", "--model", "resnet", "--profile", "edge", "--timeout", "60s"});
  INFO(r.err);
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("refusing to serve \"edge4\": each server pod requests 500m CPU and 1536Mi of memory but no node it may use has "
                   "that much free") != std::string::npos);
  CHECK(r.err.find("node fake-node-0: allocatable 1900m CPU, 3461Mi; its pods request 1750m, 2730Mi; free 150m, 731Mi") !=
        std::string::npos);
  CHECK(r.err.find("fix: request less (--cpu, --memory), fewer replicas (--replicas), or free the node") != std::string::npos);
  CHECK_FALSE(server.get_object("deployments.apps", "default", "edge4"));
}

TEST_CASE("serve --profile edge --pvc: the export check weighs the model, one too large for the server's memory is refused",
          "[serving][e2e][profile]") {
  REQUIRE_FALSE(tfjob::test::plugin_path().empty());
  Cluster c;
  FakeModel m;
  m.load_time = std::chrono::milliseconds(0);
  c.tfs->set_model("clf", m);
  c.server->put_object({{"apiVersion", "v1"}, {"kind", "PersistentVolumeClaim"},
                        {"metadata", {{"name", "models"}, {"namespace", "default"}}},
                        {"spec", {{"accessModes", {"ReadWriteOnce"}}, {"resources", {{"requests", {{"storage", "1Gi"}}}}}}}});
  // a 700 MB model (VGG-sized): about 1.7 GiB in TF Serving, more than the 1536Mi limit
  c.export_listing({"dir 1", "pb 400000 1", "vars 700000000 1", "warmup 1"});
  auto r = c.run({"serve", "clf", "--pvc", "models:export", "--profile", "edge", "--timeout", "60s"});
  INFO(r.err);
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("refusing to serve \"clf\" with the edge profile:\n  the model is 667Mi (the export check: saved_model.pb and "
                   "variables/ of version 1 (export/clf/1)); TF Serving would need about 1791Mi") != std::string::npos);
  CHECK(r.err.find("(--batching max_batch_size=N), or give the server more memory (--memory) on a node that has it") != std::string::npos);
  CHECK_FALSE(c.server->get_object("deployments.apps", "default", "clf"));
  // a MobileNet-sized one (14 MB) is served
  c.export_listing({"dir 1", "pb 300000 1", "vars 14000000 1", "warmup 1"});
  r = c.run({"serve", "clf", "--pvc", "models:export", "--profile", "edge", "--timeout", "60s"});
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.err.find("model: 13Mi (the export check: saved_model.pb and variables/ of version 1 (export/clf/1)), about 483Mi in TF "
                   "Serving (an estimate) of the server's 1536Mi") != std::string::npos);
}
