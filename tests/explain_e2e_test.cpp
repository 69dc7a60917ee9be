// explain and describe's Why end to end: the real plugin against the fake API server's
// operator, scheduler and kubelet — Pending by GPU, by node selector, by an unbound claim;
// an ExitCode retry; a PS still running after success; a failure with its log; pods gone.
// And the GPU preflight's selector and --replace rules on a live cluster.
#include <catch2/catch.hpp>

#include "support/fake_apiserver.hpp"
#include "support/fake_cluster.hpp"
#include "support/paths.hpp"
#include "support/workflow_run.hpp"

#include <tfjob/api/manifest.hpp>

#include <chrono>
#include <filesystem>

using nlohmann::json;
using tfjob::test::ContainerScript;
using tfjob::test::FakeApiServer;
using tfjob::test::FakeApiServerOptions;
using tfjob::test::run_plugin;
using tfjob::test::RunResult;

namespace {

struct Cluster : tfjob::test::FakeCluster {
  explicit Cluster(FakeApiServerOptions o = {}) : FakeCluster(o, "explain-e2e") {}
  /// `explain -o json`, parsed.
  json explain(const std::string& job) {
    auto r = run({"explain", job, "-o", "json"});
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    return json::parse(r.out);
  }
  /// A Chief (running on) and `workers` Workers, `failing` exiting `code` after `lines`,
  /// restartPolicy Never: submitted with --wait, which ends with the job Failed.
  void failed_job(const std::string& name, int workers, const std::string& failing, std::vector<std::string> lines, int code) {
    ContainerScript bad;
    bad.lines = std::move(lines);
    bad.exit_code = code;
    server->kubelet().script(failing, bad);
    ContainerScript chief;
    chief.lines = {"chief up"};
    chief.exit_code = std::nullopt;
    server->kubelet().script(name + "-chief-*", chief);
    auto r = run({"submit", "--name", name, "--image", "tensorflow/tensorflow:2.15.0", "--chief", "--workers", std::to_string(workers),
                  "--gpus", "0", "--restart-policy", "Never", "--wait", "--timeout", "60s"});
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 1);
  }
  /// Waits until the scheduler has said why `pod` waits (a FailedScheduling event about it).
  bool wait_scheduler_verdict(const std::string& pod) {
    return server->wait_for([&] {
      for (const auto& e : server->list_objects("events", "default"))
        if (e.value("reason", "") == "FailedScheduling" && e["involvedObject"].value("name", "") == pod) return true;
      return false;
    });
  }
};

ContainerScript forever(std::vector<std::string> lines = {"serving"}) {
  ContainerScript s;
  s.lines = std::move(lines);
  s.exit_code = std::nullopt;
  return s;
}

const json* finding(const json& x, const std::string& code) {
  for (const auto& f : x["findings"])
    if (f["code"] == code) return &f;
  return nullptr;
}

bool evidence_has(const json& f, const std::string& needle) {
  for (const auto& e : f["evidence"])
    if (e.get<std::string>().find(needle) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST_CASE("explain/describe: a worker Pending on GPUs, with the scheduler's reason and the closest node", "[explain][e2e]") {
  FakeApiServerOptions o;
  o.gpu_nodes = 1;
  o.gpus_per_node = 1;
  Cluster c(o);
  c.server->kubelet().script("g-*", forever());
  auto r = c.run({"submit", "--name", "g", "--image", "tensorflow/tensorflow:2.15.0-gpu", "--workers", "2", "--gpus", "1"});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  REQUIRE(c.wait_scheduler_verdict("g-worker-1"));
  auto x = c.explain("g");
  INFO(x.dump(2));
  auto* f = finding(x, "InsufficientGpu");
  REQUIRE(f);
  CHECK((*f)["replica"] == "Worker");
  CHECK((*f)["message"].get<std::string>().find("pod g-worker-1 waits: no node it may use has 1 free nvidia.com/gpu") != std::string::npos);
  CHECK(evidence_has(*f, "node fake-gpu-node-0: allocatable 1 nvidia.com/gpu, 1 taken by pods of this job"));
  // describe: the Why section, and the pod's DETAIL column carries the scheduler's words
  r = c.run({"describe", "g"});
  INFO(r.out);
  CHECK(r.out.find("Why:\n  pod g-worker-1 waits: no node it may use has 1 free nvidia.com/gpu") != std::string::npos);
  REQUIRE(r.out.find("\n  g-worker-1 ") != std::string::npos);
  auto line = r.out.substr(r.out.find("\n  g-worker-1 ") + 1);
  line = line.substr(0, line.find('\n'));
  CHECK(line.find("Pending") != std::string::npos);
  CHECK(line.find("nodes are available: 2 Insufficient nvidia.com/gpu.") != std::string::npos);
}

TEST_CASE("explain: Pending by node selector names the node that comes closest", "[explain][e2e]") {
  Cluster c;
  auto r = c.run({"submit", "--name", "s", "--image", "tensorflow/tensorflow:2.15.0", "--workers", "1", "--gpus", "0",
                  "--selector", "pool=training"});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  REQUIRE(c.wait_scheduler_verdict("s-worker-0"));
  auto x = c.explain("s");
  INFO(x.dump(2));
  auto* f = finding(x, "NodeSelectorMismatch");
  REQUIRE(f);
  CHECK(evidence_has(*f, "node fake-node-0: lacks pool=training"));
  // lint with the cluster says it before submit
  r = c.run({"submit", "--name", "s2", "--image", "tensorflow/tensorflow:2.15.0", "--workers", "1", "--gpus", "0",
             "--selector", "pool=training", "--dry-run=server", "--strict"});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("[NoNodeMatches]") != std::string::npos);
  CHECK_FALSE(c.server->get_object("tfjobs", "default", "s2"));
}

TEST_CASE("explain: Pending on a claim that cannot bind says why", "[explain][e2e]") {
  FakeApiServerOptions o;
  o.provision_volumes = false;
  Cluster c(o);
  auto r = c.run({"submit", "mnist", "--gpus", "0"});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  REQUIRE(c.wait_scheduler_verdict("mnist-chief-0"));
  REQUIRE(c.server->wait_for([&] {
    for (const auto& e : c.server->list_objects("events", "default"))
      if (e["involvedObject"].value("kind", "") == "PersistentVolumeClaim") return true;
    return false;
  }));
  auto x = c.explain("mnist");
  INFO(x.dump(2));
  auto* f = finding(x, "ClaimNotBound");
  REQUIRE(f);
  CHECK((*f)["message"].get<std::string>().find("waits for claim \"tfjob-mnist\": FailedBinding: no persistent volumes available for this claim and no storage class is set") !=
        std::string::npos);
  CHECK(evidence_has(*f, "accessModes [\"ReadWriteMany\"]"));
}

TEST_CASE("explain: an ExitCode retry (137) and what decides success", "[explain][e2e]") {
  Cluster c;
  ContainerScript s;
  s.lines = {"try"};
  s.exit_code = 0;
  s.restart_exit_codes = {137};
  c.server->kubelet().script("x-chief-0", s);
  auto r = c.run({"submit", "--name", "x", "--image", "tensorflow/tensorflow:2.15.0", "--chief", "--workers", "1", "--gpus", "0",
                  "--restart-policy", "ExitCode", "--wait", "--timeout", "60s"});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  auto x = c.explain("x");
  INFO(x.dump(2));
  CHECK(x["state"] == "Succeeded");
  auto* f = finding(x, "OperatorRestarted");
  REQUIRE(f);
  CHECK((*f)["message"].get<std::string>().find("the operator restarted replicas") != std::string::npos);
  auto* s2 = finding(x, "SuccessDecidedBy");
  REQUIRE(s2);
  CHECK((*s2)["message"].get<std::string>().find("success is decided by the Chief") != std::string::npos);
}

TEST_CASE("explain: a PS still running after the job Succeeded is normal (#774)", "[explain][e2e]") {
  Cluster c;
  c.server->kubelet().script("p-ps-*", forever({"ps up"}));
  auto r = c.run({"submit", "--name", "p", "--image", "tensorflow/tensorflow:1.15.5", "--chief", "--ps", "1", "--workers", "1",
                  "--gpus", "0", "--wait", "--timeout", "60s"});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  auto x = c.explain("p");
  INFO(x.dump(2));
  auto* f = finding(x, "NeverExitsOnItsOwn");
  REQUIRE(f);
  CHECK((*f)["message"].get<std::string>().find("PS pods still run after the job Succeeded: normal") != std::string::npos);
  CHECK(evidence_has(*f, "p-ps-0"));
  r = c.run({"explain", "p"});
  CHECK(r.out.rfind("TFJob default/p: Succeeded\n", 0) == 0);
  CHECK(r.out.find("[NeverExitsOnItsOwn]") != std::string::npos);
}

TEST_CASE("explain: a failure with its exit code and last log lines, then with the pods gone", "[explain][e2e]") {
  Cluster c;
  c.failed_job("f", 2, "f-worker-1", {"loading data", "Traceback: division by zero"}, 3);
  RunResult r;
  auto x = c.explain("f");
  INFO(x.dump(2));
  REQUIRE(!x["findings"].empty());
  const auto& f = x["findings"][0];
  CHECK(f["code"] == "FirstFailure");
  CHECK(f["replica"] == "Worker");
  CHECK(f["message"].get<std::string>().find("Worker (pod f-worker-1) failed first, with exit code 3") != std::string::npos);
  CHECK(evidence_has(f, "log: Traceback: division by zero"));
  // the pods go (as cleanPodPolicy All or a TTL would take them): status and events remain
  for (const auto& p : c.server->list_objects("pods", "default")) c.server->delete_object("pods", "default", p["metadata"]["name"]);
  x = c.explain("f");
  INFO(x.dump(2));
  CHECK(x["podsGone"] == true);
  auto* g = finding(x, "PodsGone");
  REQUIRE(g);
  CHECK((*g)["message"].get<std::string>().find("can no longer be known") != std::string::npos);
  CHECK(evidence_has(*g, "1 Worker replica(s) failed"));
  r = c.run({"explain", "nope"});
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("tfjobs.kubeflow.org \"nope\" not found") != std::string::npos);
}

TEST_CASE("explain -f: a deleted job explained from its archive, log lines included, or from saved objects", "[explain][e2e]") {
  Cluster c;
  c.failed_job("a", 1, "a-worker-0", {"step 10 loss 0.4", "Traceback: out of memory in step 11"}, 2);
  const std::string dir = tfjob::test::temp_dir("explain-archive") + "/a";
  auto r = c.run({"archive", "a", "-o", dir});
  REQUIRE(r.exit_code == 0);
  const json live = c.explain("a");
  // the job and its pods are gone from the cluster: the archive still explains it, by the same rules
  r = c.run({"delete", "a", "--timeout", "20s"});
  REQUIRE(r.exit_code == 0);
  REQUIRE(c.server->wait_for([&] { return c.server->list_objects("pods", "default").empty(); }));
  r = c.run({"explain", "-f", dir, "-o", "json"});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  const json saved = json::parse(r.out);
  REQUIRE(!saved["findings"].empty());
  CHECK(saved["findings"][0]["code"] == "FirstFailure");
  CHECK(saved["findings"][0]["message"] == live["findings"][0]["message"]);
  CHECK(evidence_has(saved["findings"][0], "log: Traceback: out of memory in step 11"));
  CHECK(saved["podsGone"] == false);  // the archive kept them
  r = c.run({"explain", "other", "-f", dir});
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("is of TFJob \"a\", not \"other\"") != std::string::npos);

  // objects saved as kubectl saves them (a List), two jobs in it: the one named is explained
  const std::string state = tfjob::test::temp_dir("explain-state") + "/state.json";
  json list = {{"apiVersion", "v1"}, {"kind", "List"}, {"items", json::array()}};
  for (const auto& f : std::filesystem::directory_iterator(dir + "/pods"))
    list["items"].push_back(tfjob::parse_objects(tfjob::test::slurp(f.path().string())).front());
  json job = tfjob::parse_objects(tfjob::test::slurp(dir + "/tfjob.yaml")).front();
  list["items"].push_back(job);
  job["metadata"]["name"] = "b";
  list["items"].push_back(job);
  tfjob::test::write_file(state, list.dump());
  r = c.run({"explain", "a", "-f", state, "-o", "json"});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(json::parse(r.out)["findings"][0]["code"] == "FirstFailure");
  r = c.run({"explain", "-f", state});
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("several TFJobs are saved here (a, b): name the one to explain") != std::string::npos);
  r = c.run({"explain"});
  CHECK(r.exit_code == 64);
  CHECK(r.err.find("name the TFJob to explain, or give -f with a saved state") != std::string::npos);
}

TEST_CASE("preflight on a live cluster: --selector is honoured, --replace does not count the old job's GPUs", "[explain][e2e][preflight]") {
  FakeApiServerOptions o;
  o.gpu_nodes = 1;
  o.gpus_per_node = 2;
  Cluster c(o);
  c.server->kubelet().script("r-*", forever());
  // the GPU node has no pool=a100 label: no GPU node can take the pod, nothing is created
  auto r = c.run({"submit", "--name", "r", "--image", "tensorflow/tensorflow:2.15.0-gpu", "--workers", "1", "--gpus", "1",
                  "--selector", "pool=a100"});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("no GPU node can take a Worker pod") != std::string::npos);
  CHECK(r.err.find("fake-gpu-node-0: lacks pool=a100") != std::string::npos);
  CHECK(r.err.find("[NoNodeMatches]") == std::string::npos);  // said once: by the GPU check, not again as lint's warning
  CHECK_FALSE(c.server->get_object("tfjobs", "default", "r"));
  // a job holding both GPUs, replaced by one that needs both: no "only 0 are free" warning
  r = c.run({"submit", "--name", "r", "--image", "tensorflow/tensorflow:2.15.0-gpu", "--workers", "2", "--gpus", "1"});
  REQUIRE(r.exit_code == 0);
  REQUIRE(c.server->wait_for([&] {
    int running = 0;
    for (const auto& p : c.server->list_objects("pods", "default"))
      running += p["spec"].value("nodeName", "") != "" ? 1 : 0;
    return running == 2;
  }));
  r = c.run({"submit", "--name", "r", "--image", "tensorflow/tensorflow:2.16.1-gpu", "--workers", "2", "--gpus", "1", "--replace"});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out == "tfjob.kubeflow.org/r replaced\n");
  CHECK(r.err.find("are free") == std::string::npos);
}

TEST_CASE("submit: cleanPodPolicy All / a TTL warn unless --follow --save keeps the logs", "[explain][e2e][lint]") {
  Cluster c;
  const std::string file = tfjob::test::source_dir() + "/tests/data/explain/lint/LogsDeletedAfterFinish.yaml";
  // the preflight (cluster path) says it: the logs go with the pods
  auto r = c.run({"submit", "-f", file, "--dry-run=server"});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.find("[LogsDeletedAfterFinish]") != std::string::npos);
  CHECK(r.err.find("fix: save the logs while it runs (submit --follow --save DIR, or kubectl tfjob wait JOB --save DIR)") != std::string::npos);
  // saving every replica's log while following: nothing to warn about, and the log is there
  const std::string dir = tfjob::test::binary_dir() + "/explain-e2e-saved";
  std::filesystem::remove_all(dir);
  r = c.run({"submit", "-f", file, "--follow", "--save", dir, "--timeout", "60s"});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.err.find("LogsDeletedAfterFinish") == std::string::npos);
  CHECK(std::filesystem::exists(dir + "/lint-clean-all-worker-0.tensorflow.log"));
}
