// The whole training workflow as a user runs it, against the fake API server's operator,
// kubelet, scheduler and volume simulation: submit (mnist sample + PVC, a claim that cannot
// bind, preflight, apply semantics),
// wait, logs (chief, failed pod, restarts, recreated pods, --all), describe, delete; plus a
// server without the TFJob CRD.
#include <catch2/catch.hpp>

#include "support/fake_apiserver.hpp"
#include "support/fake_cluster.hpp"
#include "support/paths.hpp"
#include "support/workflow_run.hpp"

#include <httplib.h>

#include <chrono>
#include <fstream>
#include <future>
#include <thread>

using nlohmann::json;
using tfjob::test::ContainerScript;
using tfjob::test::FakeApiServer;
using tfjob::test::FakeApiServerOptions;
using tfjob::test::run_plugin;
using tfjob::test::RunResult;

namespace {

struct Cluster : tfjob::test::FakeCluster {
  explicit Cluster(FakeApiServerOptions o = {}) : FakeCluster(tfjob::test::with_controllers(o), "wf-e2e") {}
};

std::string env_of(const json& pod, const std::string& name) {
  for (const auto& c : pod["spec"]["containers"])
    for (const auto& e : c.value("env", json::array()))
      if (e.value("name", "") == name) return e.value("value", "");
  return "";
}

ContainerScript lines_then_exit(std::vector<std::string> lines, int code, std::vector<int> earlier = {}) {
  ContainerScript s;
  s.lines = std::move(lines);
  s.exit_code = code;
  s.line_interval = std::chrono::milliseconds(20);
  s.run_for = std::chrono::milliseconds(300);
  s.restart_exit_codes = std::move(earlier);
  return s;
}

}  // namespace

TEST_CASE("submit mnist: PVC, operator pods with TF_CONFIG, wait, same spec unchanged, another refused, --replace",
          "[workflow][e2e]") {
  Cluster c;
  auto r = c.run({"submit", "mnist", "--gpus", "0", "--wait", "--timeout", "60s"});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out == "tfjob.kubeflow.org/mnist created\n");
  CHECK(r.err.find("persistentvolumeclaim/tfjob-mnist created (10Gi") != std::string::npos);
  CHECK(r.err.find("pods:") != std::string::npos);  // the progress line
  // the default StorageClass's provisioner binds the claim, so nothing is said about it
  CHECK(r.err.find("is Pending") == std::string::npos);
  CHECK(r.err.find("TFJob mnist Succeeded") != std::string::npos);

  auto pvc = c.server->get_object("persistentvolumeclaims", "default", "tfjob-mnist");
  REQUIRE(pvc);
  CHECK(pvc->at("spec").at("resources").at("requests").at("storage") == "10Gi");
  CHECK(pvc->at("status").at("phase") == "Bound");
  CHECK(c.server->get_object("persistentvolumes", "", pvc->at("spec").value("volumeName", "")));

  auto chief = c.server->get_object("pods", "default", "mnist-chief-0");
  REQUIRE(chief);
  CHECK(chief->at("metadata").at("labels").at("training.kubeflow.org/job-role") == "master");
  auto tfc = json::parse(env_of(*chief, "TF_CONFIG"));
  CHECK(tfc["task"] == json({{"type", "chief"}, {"index", 0}}));
  CHECK(tfc["cluster"]["worker"] == json({"mnist-worker-0.default.svc:2222", "mnist-worker-1.default.svc:2222"}));
  auto job = c.server->get_object("tfjobs", "default", "mnist");
  REQUIRE(job);
  auto fields = job->at("metadata").value("managedFields", json::array());
  bool ours = false;
  for (const auto& f : fields) ours |= f.value("manager", "") == "kubectl-tfjob" && f.value("operation", "") == "Apply";
  CHECK(ours);

  // the same spec again: nothing changes
  std::string rv = job->at("metadata").at("resourceVersion");
  r = c.run({"submit", "mnist", "--gpus", "0"});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out == "tfjob.kubeflow.org/mnist unchanged\n");
  CHECK(r.err.find("persistentvolumeclaim/tfjob-mnist exists (left as it is)") != std::string::npos);
  CHECK(c.server->get_object("tfjobs", "default", "mnist")->at("metadata").at("resourceVersion") == rv);

  // another spec: refused, and nothing changes
  r = c.run({"submit", "mnist", "--gpus", "0", "--workers", "3"});
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("already exists in namespace \"default\" with a different spec") != std::string::npos);
  CHECK(r.err.find("--replace") != std::string::npos);
  CHECK(c.server->get_object("tfjobs", "default", "mnist")->at("metadata").at("resourceVersion") == rv);

  // --dry-run=server shows what would be, persists nothing
  r = c.run({"submit", "mnist", "--gpus", "0", "--workers", "3", "--replace", "--dry-run=server", "-o", "json"});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK(json::parse(r.out)["spec"]["tfReplicaSpecs"]["Worker"]["replicas"] == 3);
  CHECK(c.server->get_object("tfjobs", "default", "mnist")->at("metadata").at("resourceVersion") == rv);

  r = c.run({"submit", "mnist", "--gpus", "0", "--workers", "3", "--replace", "-o", "name"});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out == "tfjob.kubeflow.org/mnist\n");
  CHECK(c.server->get_object("tfjobs", "default", "mnist")->at("spec").at("tfReplicaSpecs").at("Worker").at("replicas") == 3);
  CHECK(c.server->wait_for([&] { return c.server->get_object("pods", "default", "mnist-worker-2").has_value(); }));

  // an existing claim is left alone, a named one is used
  r = c.run({"submit", "mnist", "--name", "mnist-b", "--pvc", "my-data", "--pvc-size", "3Gi", "--gpus", "0"});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  auto mine = c.server->get_object("persistentvolumeclaims", "default", "my-data");
  REQUIRE(mine);
  CHECK(mine->at("spec").at("resources").at("requests").at("storage") == "3Gi");
  auto vols = c.server->get_object("tfjobs", "default", "mnist-b")->at("spec").at("tfReplicaSpecs").at("Chief").at("template").at("spec").at("volumes");
  CHECK(vols[0]["persistentVolumeClaim"]["claimName"] == "my-data");
}

TEST_CASE("submit --follow streams the chief's log to the end of the job", "[workflow][e2e]") {
  Cluster c;
  c.server->kubelet().script("hello-chief-*", lines_then_exit({"epoch 1 loss 0.5", "epoch 2 loss 0.2", "saved model"}, 0));
  auto r = c.run({"submit", "--name", "hello", "--image", "tensorflow/tensorflow:2.15.0", "--chief", "--workers", "1",
                  "--gpus", "0", "--follow", "--timeout", "60s"});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out == "tfjob.kubeflow.org/hello created\nepoch 1 loss 0.5\nepoch 2 loss 0.2\nsaved model\n");
  CHECK(r.err.find("TFJob hello Succeeded") != std::string::npos);
}

TEST_CASE("a failed job: wait says so, logs shows the failed pod and its exit code", "[workflow][e2e]") {
  Cluster c;
  c.server->kubelet().script("bad-worker-1", lines_then_exit({"loading data", "Traceback: division by zero"}, 3));
  c.server->kubelet().script("bad-chief-*", [] { ContainerScript s; s.lines = {"chief up"}; s.exit_code = std::nullopt; return s; }());
  auto r = c.run({"submit", "--name", "bad", "--image", "tensorflow/tensorflow:2.15.0", "--chief", "--workers", "2",
                  "--gpus", "0", "--restart-policy", "Never"});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  r = c.run({"wait", "bad", "--for=condition=Succeeded", "--timeout=60s"});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("Failed") != std::string::npos);
  r = c.run({"logs", "bad"});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 1);
  CHECK(r.out == "loading data\nTraceback: division by zero\n");
  CHECK(r.err.find("pod bad-worker-1 exited with code 3") != std::string::npos);
  r = c.run({"describe", "bad"});
  CHECK(r.out.find("exit code 3") != std::string::npos);
  CHECK(r.out.find("State:        Failed") != std::string::npos);
}

TEST_CASE("logs -f follows restarts under OnFailure and recreated pods under ExitCode", "[workflow][e2e]") {
  // The pods start 3 s after creation, so `logs -f` first finds them not started and
  // then looks again every half second: a first attempt that lasts a few tens of
  // milliseconds usually starts and ends between two looks. Its lines must not be lost.
  FakeApiServerOptions o;
  o.pod_start_delay = std::chrono::milliseconds(3000);
  Cluster c(o);
  SECTION("OnFailure: the container restarts in the same pod") {
    ContainerScript quick = lines_then_exit({"attempt"}, 0, {1});
    quick.run_for = std::chrono::milliseconds(0);
    c.server->kubelet().script("r-chief-0", quick);
    auto r = c.run({"submit", "--name", "r", "--image", "tensorflow/tensorflow:2.15.0", "--chief", "--workers", "1",
                    "--gpus", "0", "--restart-policy", "OnFailure", "-o", "name"});
    REQUIRE(r.exit_code == 0);
    r = c.run({"logs", "r", "-f"});
    INFO(r.out << r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.out == "attempt\nattempt\n");
    CHECK(r.err.find("restarted") != std::string::npos);
  }
  SECTION("ExitCode: a retryable exit code (137) makes the operator recreate the pod") {
    c.server->kubelet().script("x-chief-0", lines_then_exit({"try"}, 0, {137}));
    auto r = c.run({"submit", "--name", "x", "--image", "tensorflow/tensorflow:2.15.0", "--chief", "--workers", "1",
                    "--gpus", "0", "--restart-policy", "ExitCode", "-o", "name"});
    REQUIRE(r.exit_code == 0);
    r = c.run({"logs", "x", "-f"});
    INFO(r.out << r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.out.find("try\n") != std::string::npos);
    CHECK(r.err.find("TFJob x Succeeded") != std::string::npos);
  }
}

TEST_CASE("logs --all prefixes each replica, --replica/--index picks one", "[workflow][e2e]") {
  Cluster c;
  c.server->kubelet().script("multi-chief-0", lines_then_exit({"i am chief"}, 0));
  c.server->kubelet().script("multi-worker-0", lines_then_exit({"i am worker 0"}, 0));
  c.server->kubelet().script("multi-worker-1", lines_then_exit({"i am worker 1"}, 0));
  auto r = c.run({"submit", "--name", "multi", "--image", "tensorflow/tensorflow:2.15.0", "--chief", "--workers", "2",
                  "--gpus", "0", "--wait", "--timeout", "60s"});
  REQUIRE(r.exit_code == 0);
  r = c.run({"logs", "multi", "--all", "--color", "never"});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("[chief-0] i am chief\n") != std::string::npos);
  CHECK(r.out.find("[worker-1] i am worker 1\n") != std::string::npos);
  r = c.run({"logs", "multi", "--all", "--color", "always"});
  CHECK(r.out.find("\033[") != std::string::npos);
  r = c.run({"logs", "multi", "--replica", "worker", "--index", "1"});
  CHECK(r.out == "i am worker 1\n");
  r = c.run({"logs", "multi"});
  CHECK(r.out == "i am chief\n");
  r = c.run({"logs", "multi", "-c", "sidecar"});
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("no container \"sidecar\"") != std::string::npos);
  r = c.run({"delete", "multi", "--cascade=foreground", "--wait", "--timeout=30s"});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK_FALSE(c.server->get_object("tfjobs", "default", "multi"));
}

TEST_CASE("GPU preflight and pending pods with the scheduler's reason", "[workflow][e2e]") {
  SECTION("no GPU node at all: the device plugin is missing, nothing is created") {
    Cluster c;
    auto r = c.run({"submit", "mnist"});
    INFO(r.out << r.err);
    CHECK(r.exit_code == 1);
    CHECK(r.err.find("NVIDIA device plugin is missing") != std::string::npos);
    CHECK(r.err.find("gpu-check") != std::string::npos);
    CHECK_FALSE(c.server->get_object("tfjobs", "default", "mnist"));
    CHECK_FALSE(c.server->get_object("persistentvolumeclaims", "default", "tfjob-mnist"));
  }
  SECTION("a pod larger than any node: the GPU nodes are listed") {
    FakeApiServerOptions o;
    o.gpu_nodes = 2;
    o.gpus_per_node = 1;
    Cluster c(o);
    auto r = c.run({"submit", "mnist", "--gpus", "2"});
    INFO(r.out << r.err);
    CHECK(r.exit_code == 1);
    CHECK(r.err.find("pod asks for 2, 2 nvidia.com/gpu but no schedulable node it may use can allocate more than 1") != std::string::npos);
    CHECK(r.err.find("fake-gpu-node-0") != std::string::npos);
    CHECK_FALSE(c.server->get_object("tfjobs", "default", "mnist"));
  }
  SECTION("more than is free: a warning, then pods wait with the scheduler's message") {
    FakeApiServerOptions o;
    o.gpu_nodes = 1;
    o.gpus_per_node = 1;
    Cluster c(o);
    c.server->kubelet().script("mnist-*", [] { ContainerScript s; s.lines = {"training"}; s.exit_code = std::nullopt; return s; }());
    auto r = c.run({"submit", "mnist", "--wait", "--timeout", "4s"});
    INFO(r.out << r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("warning: the job asks for 3 nvidia.com/gpu in total but only 1 are free") != std::string::npos);
    CHECK(r.err.find("Insufficient nvidia.com/gpu") != std::string::npos);
    CHECK(r.err.find("timed out") != std::string::npos);
  }
}

TEST_CASE("a claim that cannot bind: submit says why, the pods wait with the scheduler's reason", "[workflow][e2e]") {
  SECTION("no default StorageClass") {
    FakeApiServerOptions o;
    o.provision_volumes = false;
    Cluster c(o);
    auto r = c.run({"submit", "mnist", "--gpus", "0", "--wait", "--timeout", "5s"});
    INFO(r.out << r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("persistentvolumeclaim/tfjob-mnist is Pending: FailedBinding: no persistent volumes available for this "
                     "claim and no storage class is set") != std::string::npos);
    CHECK(r.err.find("pod has unbound immediate PersistentVolumeClaims") != std::string::npos);  // --wait's progress
    CHECK(r.err.find("timed out") != std::string::npos);
    auto chief = c.server->get_object("pods", "default", "mnist-chief-0");
    REQUIRE(chief);
    CHECK(chief->at("spec").value("nodeName", "").empty());
  }
  SECTION("a StorageClass that does not exist") {
    Cluster c;
    auto r = c.run({"submit", "mnist", "--gpus", "0", "--storage-class", "fast", "--wait", "--timeout", "5s"});
    INFO(r.out << r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("persistentvolumeclaim/tfjob-mnist is Pending: ProvisioningFailed: storageclass.storage.k8s.io \"fast\" not found") !=
          std::string::npos);
    CHECK(r.err.find("pod has unbound immediate PersistentVolumeClaims") != std::string::npos);
  }
}

TEST_CASE("TF2 image with a Master replica is warned about", "[workflow][e2e]") {
  Cluster c;
  auto r = c.run({"submit", "--name", "m", "--image", "tensorflow/tensorflow:2.15.0", "--master", "--workers", "1",
                  "--gpus", "0", "--dry-run=server"});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.err.find("warning: the job has a Master replica but image tensorflow/tensorflow:2.15.0 is TensorFlow 2") != std::string::npos);
  CHECK(r.out == "tfjob.kubeflow.org/m created (server dry run)\n");
  CHECK_FALSE(c.server->get_object("tfjobs", "default", "m"));
}

TEST_CASE("namespace missing, forbidden namespace", "[workflow][e2e]") {
  Cluster c;
  auto r = c.run({"submit", "mnist", "--gpus", "0", "-n", "nowhere"});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("namespace \"nowhere\" does not exist") != std::string::npos);
  CHECK(r.err.find("kubectl create namespace nowhere") != std::string::npos);
  CHECK(r.err.find("(or choose another with -n)") != std::string::npos);  // the SDK's ConfigOverrides::namespace_, worded
  r = c.run({"submit", "mnist", "--gpus", "0", "--context", "fake-limited", "-n", "default"});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("you may not create TFJobs in namespace \"default\"") != std::string::npos);
  CHECK(r.err.find("pick a namespace you may use with -n") != std::string::npos);
  CHECK(r.err.find("ConfigOverrides") == std::string::npos);
  CHECK_FALSE(c.server->get_object("tfjobs", "default", "mnist"));
  r = c.run({"submit", "mnist", "--gpus", "0", "--context", "fake-limited"});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK(c.server->get_object("tfjobs", "team-a", "mnist"));
}

TEST_CASE("a cluster without the TFJob CRD gets the operator's install command", "[workflow][e2e]") {
  // An API server that serves the core group but not kubeflow.org (plain HTTP on loopback).
  httplib::Server srv;
  srv.set_error_handler([](const httplib::Request&, httplib::Response& res) {
    json st = {{"kind", "Status"}, {"apiVersion", "v1"}, {"status", "Failure"}, {"message", "the server could not find the requested resource"},
               {"reason", "NotFound"}, {"code", 404}};
    res.set_content(st.dump(), "application/json");
  });
  srv.Get("/api/v1/namespaces/default", [](const httplib::Request&, httplib::Response& res) {
    res.set_content(json({{"kind", "Namespace"}, {"apiVersion", "v1"}, {"metadata", {{"name", "default"}}}}).dump(), "application/json");
  });
  int port = srv.bind_to_any_port("127.0.0.1");
  std::thread t([&] { srv.listen_after_bind(); });
  std::string dir = tfjob::test::temp_dir("wf-nocrd");
  std::ofstream(dir + "/kubeconfig") << "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: http://127.0.0.1:"
                                     << port << "\ncontexts:\n- name: c\n  context:\n    cluster: c\n    user: u\ncurrent-context: c\nusers:\n- name: u\n  user: {}\n";
  auto r = run_plugin({"submit", "mnist", "--gpus", "0"}, dir + "/kubeconfig", 30);
  auto g = run_plugin({"get"}, dir + "/kubeconfig", 30);
  srv.stop();
  t.join();
  INFO(r.out << r.err);
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("does not serve TFJobs") != std::string::npos);
  CHECK(r.err.find("kubectl apply --server-side -k \"github.com/kubeflow/trainer.git/manifests/overlays/standalone?ref=v1.9.4\"") !=
        std::string::npos);
  CHECK(g.exit_code == 1);
  CHECK(g.err.find("standalone?ref=v1.9.4") != std::string::npos);
}
