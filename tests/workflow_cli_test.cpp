// The workflow commands (get/list, describe, wait, delete, logs, completion) run as real
// processes against the fake API server. Jobs here are seeded with the status the operator
// would write, so each command's reading of that status is checked exactly; the operator
// simulation runs in workflow_e2e_test.cpp.
#include <catch2/catch.hpp>

#include "support/fake_apiserver.hpp"
#include "support/fake_cluster.hpp"
#include "support/paths.hpp"
#include "support/workflow_run.hpp"

#include <chrono>
#include <fstream>
#include <future>
#include <thread>

using nlohmann::json;
using tfjob::test::FakeApiServer;
using tfjob::test::FakeApiServerOptions;
using tfjob::test::run_plugin;
using tfjob::test::RunResult;

namespace {

struct Cluster : tfjob::test::FakeCluster {
  explicit Cluster(bool controllers = false)
      : FakeCluster(tfjob::test::with_controllers({}, controllers), "wf-cli") {}
  RunResult run(std::vector<std::string> args, int timeout_s = 60) const { return FakeCluster::run(args, timeout_s); }
};

json condition(const std::string& type, const std::string& status = "True", const std::string& message = "") {
  return {{"type", type}, {"status", status}, {"reason", "TFJob" + type}, {"message", message},
          {"lastTransitionTime", "2024-01-01T00:00:00Z"}, {"lastUpdateTime", "2024-01-01T00:00:00Z"}};
}

json make_job(const std::string& name, const std::string& ns, json conditions = json::array(), json labels = json::object(),
           int workers = 2, int gpus = 0) {
  json c = {{"name", "tensorflow"}, {"image", "tensorflow/tensorflow:2.15.0"}};
  if (gpus) c["resources"] = {{"limits", {{"nvidia.com/gpu", gpus}}}};
  json j = {{"apiVersion", "kubeflow.org/v1"},
            {"kind", "TFJob"},
            {"metadata", {{"name", name}, {"namespace", ns}, {"labels", labels}}},
            {"spec",
             {{"runPolicy", {{"cleanPodPolicy", "None"}}},
              {"tfReplicaSpecs",
               {{"Chief", {{"replicas", 1}, {"restartPolicy", "Never"}, {"template", {{"spec", {{"containers", json::array({c})}}}}}}},
                {"Worker", {{"replicas", workers}, {"restartPolicy", "OnFailure"}, {"template", {{"spec", {{"containers", json::array({c})}}}}}}}}}}}};
  if (!conditions.empty()) j["status"] = {{"conditions", conditions}};
  return j;
}

json pod(const std::string& job, const std::string& type, int index, const std::string& phase, const std::string& node = "fake-node-0") {
  std::string name = job + "-" + type + "-" + std::to_string(index);
  json labels = {{"training.kubeflow.org/job-name", job},
                 {"training.kubeflow.org/operator-name", "tfjob-controller"},
                 {"training.kubeflow.org/replica-type", type},
                 {"training.kubeflow.org/replica-index", std::to_string(index)}};
  if (type == "chief") labels["training.kubeflow.org/job-role"] = "master";
  json p = {{"apiVersion", "v1"},
            {"kind", "Pod"},
            {"metadata", {{"name", name}, {"namespace", "default"}, {"labels", labels}}},
            {"spec", {{"containers", json::array({{{"name", "tensorflow"}, {"image", "tensorflow/tensorflow:2.15.0"}}})}}},
            {"status", {{"phase", phase}}}};
  if (!node.empty()) p["spec"]["nodeName"] = node;
  return p;
}

}  // namespace

TEST_CASE("get/list: table, wide, name, json, yaml, -A, -l, not found", "[workflow][cli]") {
  Cluster c;
  c.server->put_object(make_job("mnist", "default", json::array({condition("Created"), condition("Running")}), {{"team", "vision"}}));
  c.server->put_object(make_job("done", "default", json::array({condition("Created"), condition("Running", "False"), condition("Succeeded")})));
  c.server->put_object(make_job("other", "team-a", json::array({condition("Created")})));
  auto st = c.server->get_object("tfjobs", "default", "mnist");
  REQUIRE(st);

  auto r = c.run({"get"});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.rfind("NAME    STATE       AGE\n", 0) == 0);
  CHECK(r.out.find("\ndone    Succeeded   ") != std::string::npos);
  CHECK(r.out.find("\nmnist   Running     ") != std::string::npos);
  CHECK(r.out.find("other") == std::string::npos);

  r = c.run({"list", "-o", "wide", "-l", "team=vision"});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("REPLICAS (ACTIVE/SUCCEEDED/FAILED)") != std::string::npos);
  CHECK(r.out.find("Chief:0/0/0,Worker:0/0/0") != std::string::npos);
  CHECK(r.out.find("done") == std::string::npos);

  r = c.run({"get", "-A"});
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.rfind("NAMESPACE   NAME", 0) == 0);
  CHECK(r.out.find("team-a      other   Created") != std::string::npos);

  r = c.run({"get", "-o", "name"});
  CHECK(r.out == "tfjob.kubeflow.org/done\ntfjob.kubeflow.org/mnist\n");

  r = c.run({"get", "mnist", "-o", "json"});
  REQUIRE(r.exit_code == 0);
  auto j = json::parse(r.out);
  CHECK(j["kind"] == "TFJob");
  CHECK(j["metadata"]["name"] == "mnist");

  r = c.run({"get", "-o", "yaml"});
  CHECK(r.out.find("kind: List") != std::string::npos);
  CHECK(r.out.find("name: mnist") != std::string::npos);

  r = c.run({"get", "nope"});
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("\"nope\" not found") != std::string::npos);

  r = c.run({"get", "-n", "empty-ns"});
  CHECK(r.exit_code == 0);
  CHECK(r.err.find("No resources found in empty-ns namespace.") != std::string::npos);
}

TEST_CASE("get --watch prints each change from the watch", "[workflow][cli]") {
  Cluster c;
  c.server->put_object(make_job("mnist", "default", json::array({condition("Created")})));
  auto fut = std::async(std::launch::async, [&] { return c.run({"get", "mnist", "--watch"}, 8); });
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));
  c.server->put_object(make_job("mnist", "default", json::array({condition("Created"), condition("Running")})));
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  c.server->put_object(make_job("mnist", "default", json::array({condition("Created"), condition("Running", "False"), condition("Succeeded")})));
  auto r = fut.get();
  INFO(r.out << r.err);
  CHECK(r.exit_code == 124);  // --watch runs until stopped
  auto created = r.out.find("Created");
  auto running = r.out.find("Running");
  auto succeeded = r.out.find("Succeeded");
  REQUIRE(created != std::string::npos);
  REQUIRE(running != std::string::npos);
  REQUIRE(succeeded != std::string::npos);
  CHECK(created < running);
  CHECK(running < succeeded);
}

TEST_CASE("wait: reached, impossible with the operator's message, timeout, watch-driven", "[workflow][cli]") {
  Cluster c;
  c.server->put_object(make_job("ok", "default", json::array({condition("Created"), condition("Succeeded")})));
  c.server->put_object(make_job("bad", "default",
                             json::array({condition("Created"), condition("Failed", "True", "TFJob default/bad has failed because 1 Worker replica(s) failed.")})));
  c.server->put_object(make_job("slow", "default", json::array({condition("Created"), condition("Running")})));

  auto r = c.run({"wait", "ok", "--for=condition=Succeeded", "--timeout=10s"});
  CHECK(r.exit_code == 0);
  CHECK(r.out == "tfjob.kubeflow.org/ok condition met\n");

  r = c.run({"wait", "bad", "--for=condition=Succeeded", "--timeout=10s"});
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("1 Worker replica(s) failed") != std::string::npos);

  r = c.run({"wait", "slow", "--for", "condition=Succeeded", "--timeout", "1s"});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("timed out") != std::string::npos);

  r = c.run({"wait", "slow", "--for=condition=Running", "--timeout=5s"});
  CHECK(r.exit_code == 0);

  r = c.run({"wait", "slow", "--for=condition=Bogus"});
  CHECK(r.exit_code == 64);

  r = c.run({"wait", "missing", "--timeout=2s"});
  CHECK(r.exit_code == 1);

  // a change that arrives while waiting ends the wait promptly
  auto fut = std::async(std::launch::async, [&] { return c.run({"wait", "slow", "--for=condition=Succeeded", "--timeout=30s"}); });
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  auto t0 = std::chrono::steady_clock::now();
  c.server->put_object(make_job("slow", "default", json::array({condition("Created"), condition("Running", "False"), condition("Succeeded")})));
  r = fut.get();
  auto waited = std::chrono::steady_clock::now() - t0;
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK(waited < std::chrono::seconds(5));
}

TEST_CASE("wait: a pod that cannot start ends the wait with the kubelet's reason, not the timeout", "[workflow][cli]") {
  Cluster c;
  c.server->put_object(make_job("noimg", "default", json::array({condition("Created")}), json::object(), 0));
  json p = pod("noimg", "chief", 0, "Pending");
  p["status"]["containerStatuses"] = json::array({{{"name", "tensorflow"}, {"ready", false}, {"restartCount", 0},
      {"image", "tfjob.local/not-here:v1"},
      {"state", {{"waiting", {{"reason", "ErrImageNeverPull"},
                              {"message", "Container image \"tfjob.local/not-here:v1\" is not present with pull policy of Never"}}}}}}});
  c.server->put_object(p);
  auto r = c.run({"wait", "noimg", "--for=condition=Succeeded", "--timeout=120s"});
  INFO(r.err);
  CHECK(r.exit_code == 1);  // not 2: the wait did not run out
  CHECK(r.err.find("a pod cannot start") != std::string::npos);
  CHECK(r.err.find("pod noimg-chief-0: ErrImageNeverPull: Container image \"tfjob.local/not-here:v1\" is not present") != std::string::npos);
  CHECK(r.err.find("ErrImageNeverPull: ErrImageNeverPull") == std::string::npos);
  CHECK(r.err.find("load it onto the node") != std::string::npos);
  // --for=delete does not care whether pods start
  r = c.run({"wait", "noimg", "--for=delete", "--timeout=1s"});
  CHECK(r.exit_code == 2);
  // a pull back-off is not final (a registry can come back): the wait runs to its timeout
  p["status"]["containerStatuses"][0]["state"]["waiting"] = {{"reason", "ImagePullBackOff"}, {"message", "Back-off pulling image"}};
  c.server->put_object(p);
  r = c.run({"wait", "noimg", "--timeout=1s"});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("pod noimg-chief-0: ImagePullBackOff: Back-off pulling image") != std::string::npos);
}

TEST_CASE("wait --progress on a Pending job: a fixed number of requests, however long it waits", "[workflow][cli]") {
  Cluster c;
  c.server->put_object(make_job("pend", "default", json::array({condition("Created")}), json::object(), 0, 1));
  c.server->put_object(pod("pend", "chief", 0, "Pending", ""));
  auto requests_for = [&](const std::string& timeout) {
    c.server->clear_requests();
    auto r = c.run({"wait", "pend", "--progress", "--timeout=" + timeout});
    INFO(r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("pods: 0 running, 1 pending") != std::string::npos);
    int n = 0;
    for (const auto& q : c.server->requests()) {
      UNSCOPED_INFO(q.method << " " << q.path << "?" << q.query);
      ++n;
    }
    return n;
  };
  const int short_wait = requests_for("1s");
  const int long_wait = requests_for("4s");
  // the old wait listed the job's pods and the namespace's events every second
  CHECK(long_wait == short_wait);
  int watches = 0;
  c.server->clear_requests();
  c.run({"wait", "pend", "--progress", "--timeout=1s"});
  for (const auto& q : c.server->requests())
    if (q.query.find("watch=true") != std::string::npos || q.query.find("watch=1") != std::string::npos) ++watches;
  CHECK(watches == 3);  // the job, its pods, the job's events
}

TEST_CASE("logs -f through Pending: a fixed number of requests however long the pod waits, then its log", "[workflow][cli]") {
  // The fake's kubelet starts the chief after `pending`; the follow waits for it, prints its
  // log and ends with the job. The old follow listed the pods, got the job and listed the
  // namespace's events every 0.5 s (123 requests in 20 s against the real kube-apiserver).
  auto requests_for = [](std::chrono::milliseconds pending, int& watches) {
    FakeApiServerOptions o;
    o.pod_start_delay = pending;
    tfjob::test::FakeCluster c(tfjob::test::with_controllers(o), "wf-cli-logs");
    tfjob::test::ContainerScript sc;
    sc.lines = {"hello from the chief"};
    c.server->kubelet().script("lf-chief-0", sc);
    auto r = c.run({"submit", "--name", "lf", "--image", "tensorflow/tensorflow:2.15.0", "--chief", "--gpus", "0", "-o", "name"});
    REQUIRE(r.exit_code == 0);
    c.server->clear_requests();
    r = c.run({"logs", "lf", "-f", "--color", "never"});
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.out == "hello from the chief\n");
    int n = 0;
    watches = 0;
    for (const auto& q : c.server->requests()) {
      UNSCOPED_INFO(q.method << " " << q.path << "?" << q.query);
      ++n;
      if (q.query.find("watch=true") != std::string::npos || q.query.find("watch=1") != std::string::npos) ++watches;
    }
    return n;
  };
  int short_watches = 0, long_watches = 0;
  // the short wait is long enough that the pod is still Pending when logs -f starts, even on
  // a loaded CI machine (submit and the plugin's start come before it)
  const int short_wait = requests_for(std::chrono::milliseconds(1500), short_watches);
  const int long_wait = requests_for(std::chrono::milliseconds(5000), long_watches);
  CHECK(long_wait == short_wait);
  CHECK(short_watches == 3);  // the job, its pods, the job's events
  CHECK(long_watches == 3);
}

TEST_CASE("the plugin names itself to the server: its user agent, and the field manager of what it writes", "[workflow][cli]") {
  Cluster c;
  c.server->clear_requests();
  auto r = c.run({"submit", "--name", "ua", "--image", "tensorflow/tensorflow:2.15.0", "--gpus", "0", "-o", "name"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  int applies = 0;
  const auto reqs = c.server->requests();
  REQUIRE_FALSE(reqs.empty());
  for (const auto& q : reqs) {
    INFO(q.method << " " << q.path << "?" << q.query);
    // client-go's shape, with the plugin's name (the SDK alone says tfjob-sdk: kube_client_test)
    CHECK(q.user_agent == tfjob::kube::default_user_agent("kubectl-tfjob"));
    if (q.method == "PATCH" && q.content_type.find("apply-patch") != std::string::npos) {
      ++applies;
      CHECK(q.query.find("fieldManager=kubectl-tfjob") != std::string::npos);
    }
  }
  CHECK(applies >= 1);  // a server-side dry run, then the job: each as kubectl-tfjob
  auto job = c.server->get_object("tfjobs", "default", "ua");
  REQUIRE(job);
  bool ours = false;
  for (const auto& f : job->at("metadata").value("managedFields", json::array()))
    ours |= f.value("manager", "") == "kubectl-tfjob" && f.value("operation", "") == "Apply";
  CHECK(ours);
}

TEST_CASE("describe: conditions in order, pods, events, TF_CONFIG", "[workflow][cli]") {
  Cluster c;
  c.server->put_object(make_job("mnist", "default", json::array({condition("Created"), condition("Running")}), {}, 1, 1));
  c.server->put_object(pod("mnist", "chief", 0, "Running"));
  const json worker = c.server->put_object(pod("mnist", "worker", 0, "Pending", ""));
  // as the scheduler records it, with the pod's uid (describe reads it by kubectl describe's field selector)
  c.server->put_object({{"apiVersion", "v1"}, {"kind", "Event"},
                        {"metadata", {{"name", "mnist-worker-0.1"}, {"namespace", "default"}}},
                        {"involvedObject", {{"kind", "Pod"}, {"name", "mnist-worker-0"}, {"namespace", "default"},
                                            {"uid", worker["metadata"]["uid"]}}},
                        {"reason", "FailedScheduling"}, {"type", "Warning"},
                        {"message", "0/3 nodes are available: 3 Insufficient nvidia.com/gpu."},
                        {"lastTimestamp", "2024-01-01T00:00:05Z"}});
  auto r = c.run({"describe", "mnist"});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("Name:         mnist") != std::string::npos);
  CHECK(r.out.find("State:        Running") != std::string::npos);
  CHECK(r.out.find("GPUs:         2") != std::string::npos);
  CHECK(r.out.find("mnist-chief-0    chief    0       Running   fake-node-0") != std::string::npos);
  CHECK(r.out.find("0/3 nodes are available: 3 Insufficient nvidia.com/gpu.") != std::string::npos);
  CHECK(r.out.find("chief-0: {\"cluster\":{\"chief\":[\"mnist-chief-0.default.svc:2222\"],\"worker\":[\"mnist-worker-0.default.svc:2222\"]},\"task\":{\"type\":\"chief\",\"index\":0},\"environment\":\"cloud\"}") != std::string::npos);
  CHECK(r.out.find("Created   True") < r.out.find("Running   True"));
  CHECK(r.out.find("Running   True") != std::string::npos);

  r = c.run({"describe", "nope"});
  CHECK(r.exit_code == 1);
}

TEST_CASE("delete: names, --all, not found, --wait", "[workflow][cli]") {
  Cluster c;
  for (auto n : {"a", "b", "c"}) c.server->put_object(make_job(n, "default"));
  auto r = c.run({"delete", "a", "--wait", "--timeout=20s"});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out == "tfjob.kubeflow.org \"a\" deleted\n");
  CHECK_FALSE(c.server->get_object("tfjobs", "default", "a"));
  r = c.run({"delete", "a"});
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("\"a\" not found") != std::string::npos);
  r = c.run({"delete"});
  CHECK(r.exit_code == 64);
  r = c.run({"delete", "--all", "--cascade=foreground"});
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("\"b\" deleted") != std::string::npos);
  CHECK(r.out.find("\"c\" deleted") != std::string::npos);
}

TEST_CASE("a forbidden namespace is explained", "[workflow][cli]") {
  Cluster c;
  auto r = c.run({"get", "--context", "fake-limited", "-n", "default"});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("403") != std::string::npos);
  r = c.run({"get", "--context", "fake-limited"});  // its own namespace team-a
  CHECK(r.exit_code == 0);
  r = c.run({"delete", "x", "--context", "fake-limited", "-n", "default"});
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("you may not delete TFJobs in namespace \"default\"") != std::string::npos);
}

TEST_CASE("completion scripts and the __complete back end", "[workflow][cli]") {
  Cluster c;
  c.server->put_object(make_job("mnist", "default"));
  c.server->put_object(make_job("resnet", "team-a"));
  for (std::string sh : {"bash", "zsh", "fish"}) {
    auto r = run_plugin({"completion", sh});
    CHECK(r.exit_code == 0);
    CHECK(r.out.find("kubectl-tfjob __complete") != std::string::npos);
  }
  auto r = run_plugin({"completion", "tcsh"});
  CHECK(r.exit_code == 64);
  {
    // bash parses the script
    auto b = tfjob::test::run_program("/bin/bash", {"-n", "-c", run_plugin({"completion", "bash"}).out});
    CHECK(b.exit_code == 0);
  }
  r = run_plugin({"__complete", ""});
  CHECK(r.out.find("get\t") != std::string::npos);
  CHECK(r.out.find("logs\t") != std::string::npos);
  CHECK(r.out.find("__complete") == std::string::npos);
  CHECK(r.out.substr(r.out.size() - 3) == ":4\n");
  r = run_plugin({"__complete", "lo"});
  CHECK(r.out.rfind("logs\t", 0) == 0);
  r = run_plugin({"__complete", "logs", "--rep"});
  CHECK(r.out.find("--replica\t") != std::string::npos);
  r = run_plugin({"__complete", "--kubeconfig", c.kubeconfig, "logs", ""});
  INFO(r.out << r.err);
  CHECK(r.out.find("mnist\tTFJob") != std::string::npos);
  CHECK(r.out.find("resnet") == std::string::npos);
  for (std::string verb : {"suspend", "resume", "scale"}) {  // the job verbs complete job names too
    r = run_plugin({"__complete", "--kubeconfig", c.kubeconfig, verb, ""});
    INFO(verb << ": " << r.out << r.err);
    CHECK(r.out.find("mnist\tTFJob") != std::string::npos);
  }
  r = run_plugin({"__complete", "--kubeconfig", c.kubeconfig, "get", "-n", "team-a", "r"});
  CHECK(r.out.find("resnet\tTFJob") != std::string::npos);
  r = run_plugin({"__complete", "--kubeconfig", c.kubeconfig, "get", "-n", ""});
  CHECK(r.out.find("team-a") != std::string::npos);
  r = run_plugin({"__complete", "get", "-o", ""});
  CHECK(r.out.find("wide") != std::string::npos);
}
