// A new user's first day, as the guide has it, against the fake API server (and the real
// kubectl where it judges): submit mnist on TensorFlow's own image with the trainer in a
// ConfigMap the job owns, --rerun, the messages for mistyped words, kubectl's habits in
// get/wait/delete, exec/attach/port-forward by role, and completion through kubectl.
#include <catch2/catch.hpp>

#include "support/fake_apiserver.hpp"
#include "support/fake_cluster.hpp"
#include "support/paths.hpp"
#include "support/skip.hpp"
#include "support/workflow_run.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <future>
#include <sstream>

using nlohmann::json;
using tfjob::test::FakeApiServer;
using tfjob::test::FakeApiServerOptions;
using tfjob::test::run_plugin;
using tfjob::test::RunResult;

namespace {

struct Cluster : tfjob::test::FakeCluster {
  explicit Cluster(bool controllers = true) : FakeCluster(tfjob::test::with_controllers({}, controllers), "guide") {}
  /// The kubeconfig goes first: words after `--` belong to the container's command.
  RunResult run(std::vector<std::string> args, const std::vector<std::string>& env = {}) {
    args.insert(args.begin(), {"--kubeconfig", kubeconfig});
    return run_plugin(args, "", 90, env);
  }
};

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

json job(const std::string& name, int workers, json status = json::object()) {
  json c = {{"name", "tensorflow"}, {"image", "tensorflow/tensorflow:2.18.0"}};
  json j = {{"apiVersion", "kubeflow.org/v1"},
            {"kind", "TFJob"},
            {"metadata", {{"name", name}, {"namespace", "default"}}},
            {"spec",
             {{"runPolicy", {{"cleanPodPolicy", "None"}}},
              {"tfReplicaSpecs",
               {{"Chief", {{"replicas", 1}, {"restartPolicy", "Never"}, {"template", {{"spec", {{"containers", {c}}}}}}}},
                {"Worker", {{"replicas", workers}, {"restartPolicy", "Never"}, {"template", {{"spec", {{"containers", {c}}}}}}}}}}}}};
  if (!status.empty()) j["status"] = status;
  return j;
}

json pod(const std::string& job, const std::string& type, int index, const std::string& node) {
  json labels = {{"training.kubeflow.org/job-name", job},
                 {"training.kubeflow.org/operator-name", "tfjob-controller"},
                 {"training.kubeflow.org/replica-type", type},
                 {"training.kubeflow.org/replica-index", std::to_string(index)}};
  if (type == "chief") labels["training.kubeflow.org/job-role"] = "master";
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", job + "-" + type + "-" + std::to_string(index)}, {"namespace", "default"}, {"labels", labels}}},
          {"spec", {{"nodeName", node}, {"containers", {{{"name", "tensorflow"}, {"image", "tensorflow/tensorflow:2.18.0"}}}}}},
          {"status", {{"phase", "Running"}}}};
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

/// Words of a table row (columns are separated by runs of spaces).
std::vector<std::string> cells(const std::string& row) {
  std::vector<std::string> out;
  std::istringstream in(row);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

}  // namespace

TEST_CASE("submit mnist: TensorFlow's image, the trainer in a ConfigMap the job owns, --rerun, --image", "[guide][e2e]") {
  Cluster c;
  auto r = c.run({"submit", "mnist", "--gpus", "0"});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out == "tfjob.kubeflow.org/mnist created\n");
  CHECK(has(r.err, "configmap/mnist-trainer applied (owned by tfjob.kubeflow.org/mnist, deleted with it)"));
  auto tfjob = c.server->get_object("tfjobs", "default", "mnist");
  REQUIRE(tfjob);
  const std::string uid = tfjob->at("metadata").at("uid");

  // the ConfigMap carries the repository's trainer, owned by the job
  auto cm = c.server->get_object("configmaps", "default", "mnist-trainer");
  REQUIRE(cm);
  CHECK(cm->at("data").at("mnist.py") == slurp(tfjob::test::source_dir() + "/samples/mnist/mnist.py"));
  const auto& refs = cm->at("metadata").at("ownerReferences");
  REQUIRE(refs.size() == 1);
  CHECK(refs[0] == json({{"apiVersion", "kubeflow.org/v1"}, {"kind", "TFJob"}, {"name", "mnist"}, {"uid", uid},
                         {"controller", true}, {"blockOwnerDeletion", true}}));
  // the pods run TensorFlow's image and mount it where the command expects mnist.py
  REQUIRE(c.server->wait_for([&] { return c.server->get_object("pods", "default", "mnist-chief-0").has_value(); }));
  auto chief = *c.server->get_object("pods", "default", "mnist-chief-0");
  const auto& ct = chief["spec"]["containers"][0];
  CHECK(ct["image"] == "tensorflow/tensorflow:2.20.0-gpu");
  CHECK(ct["command"] == json({"python", "/opt/mnist/mnist.py"}));
  bool mounted = false;
  for (const auto& m : ct["volumeMounts"]) mounted |= m.value("mountPath", "") == "/opt/mnist" && m.value("name", "") == "trainer";
  CHECK(mounted);
  // the claim a Chief and Workers on different nodes can all mount
  auto pvc = c.server->get_object("persistentvolumeclaims", "default", "tfjob-mnist");
  REQUIRE(pvc);
  CHECK(pvc->at("spec").at("accessModes") == json({"ReadWriteMany"}));
  const std::string pvc_uid = pvc->at("metadata").at("uid");

  // the same job again: unchanged; --rerun deletes and submits it, the claim stays
  r = c.run({"submit", "mnist", "--gpus", "0"});
  CHECK(r.out == "tfjob.kubeflow.org/mnist unchanged\n");
  CHECK(c.server->get_object("tfjobs", "default", "mnist")->at("metadata").at("uid") == uid);
  r = c.run({"submit", "mnist", "--gpus", "0", "--rerun"});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out == "tfjob.kubeflow.org/mnist replaced\n");
  CHECK(has(r.err, "to run it again"));
  auto again = c.server->get_object("tfjobs", "default", "mnist");
  REQUIRE(again);
  const std::string uid2 = again->at("metadata").at("uid");
  CHECK(uid2 != uid);
  cm = c.server->get_object("configmaps", "default", "mnist-trainer");
  REQUIRE(cm);
  CHECK(cm->at("metadata").at("ownerReferences")[0].at("uid") == uid2);
  CHECK(c.server->get_object("persistentvolumeclaims", "default", "tfjob-mnist")->at("metadata").at("uid") == pvc_uid);

  // deleting the job deletes its ConfigMap (the garbage collector follows the owner)
  r = c.run({"delete", "mnist"});
  CHECK(r.exit_code == 0);
  CHECK(c.server->wait_for([&] { return !c.server->get_object("configmaps", "default", "mnist-trainer"); }));

  // --image: an image with the trainer baked in; no ConfigMap, no trainer volume
  r = c.run({"submit", "mnist", "--name", "mnist-own", "--gpus", "0", "--image", "registry.example/mnist:v0.1.0"});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK_FALSE(c.server->get_object("configmaps", "default", "mnist-own-trainer"));
  auto own = c.server->get_object("tfjobs", "default", "mnist-own");
  REQUIRE(own);
  CHECK(own->at("spec").at("tfReplicaSpecs").at("Chief").at("template").at("spec").at("volumes").size() == 1);
  CHECK(own->at("spec").at("tfReplicaSpecs").at("Chief").at("template").at("spec").at("containers")[0].at("image") ==
        "registry.example/mnist:v0.1.0");
}

TEST_CASE("mistyped words, bare kubectl tfjob, job names, help", "[guide][cli]") {
  // a word that names no sample: refused before anything is sent, a usage error (docs/cli.md)
  auto r = run_plugin({"submit", "mnsit", "--dry-run=client"});
  CHECK(r.exit_code == 64);
  CHECK(r.out.empty());
  CHECK(has(r.err, "error: SAMPLE: \"mnsit\" is not a built-in sample (did you mean mnist?); give one of hello, mnist"));
  r = run_plugin({"submit", "resnet", "--dry-run=client"});
  CHECK(r.exit_code == 64);
  CHECK(has(r.err, "error: SAMPLE: \"resnet\" is not a built-in sample; give one of hello, mnist"));

  r = run_plugin({"sbumit", "mnist"});
  INFO(r.err);
  CHECK(r.exit_code == 64);
  CHECK(has(r.err, "error: unknown command \"sbumit\" for \"kubectl tfjob\""));
  CHECK(has(r.err, "Did you mean this?\n\tsubmit"));
  CHECK_FALSE(has(r.err, "A subcommand is required"));
  r = run_plugin({"-n", "team-a", "frobnicate"});
  CHECK(r.exit_code == 64);
  CHECK(has(r.err, "unknown command \"frobnicate\""));

  r = run_plugin({});
  CHECK(r.exit_code == 0);
  CHECK(has(r.out, "submit"));
  CHECK(has(r.out, "gpu-check"));
  CHECK(r.err.empty());

  r = run_plugin({"submit", "hello", "--dry-run=client", "-o", "json"});
  REQUIRE(r.exit_code == 0);
  CHECK(json::parse(r.out)["metadata"]["name"] == "hello");

  // --help shows the real default of --dry-run (none), not the bare flag's value
  r = run_plugin({"submit", "--help"});
  CHECK(r.exit_code == 0);
  CHECK(has(r.out, "--dry-run [=none|client|server]"));
  CHECK(has(r.out, "Default none"));
  CHECK(has(r.out, "--rerun"));
  // every subcommand's help says its exit codes
  auto names = run_plugin({"__complete", ""});
  int checked = 0;
  for (const auto& l : lines(names.out)) {
    if (l.empty() || l[0] == ':') continue;
    std::string cmd = l.substr(0, l.find('\t'));
    auto h = run_plugin({cmd, "--help"});
    INFO(cmd);
    CHECK(has(h.out, "Exit codes:"));
    ++checked;
  }
  CHECK(checked >= 15);
}

TEST_CASE("get: -o jsonpath and custom-columns as kubectl parses them, --sort-by, DURATION and NODE", "[guide][cli]") {
  Cluster c(false);
  c.server->put_object(job("b", 2, {{"startTime", "2024-01-01T00:00:00Z"}, {"completionTime", "2024-01-01T00:01:40Z"}}));
  c.server->put_object(job("a", 5));
  c.server->put_object(pod("b", "chief", 0, "gpu-node-7"));
  c.server->put_object(pod("b", "worker", 0, "gpu-node-3"));

  auto r = c.run({"get", "-o", "jsonpath={.items[*].metadata.name}", "--sort-by=.metadata.name"});
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out == "a b");
  r = c.run({"get", "--sort-by", "{.spec.tfReplicaSpecs.Worker.replicas}", "-o",
             "jsonpath={range .items[*]}{.metadata.name}={.spec.tfReplicaSpecs.Worker.replicas}{\"\\n\"}{end}"});
  CHECK(r.out == "b=2\na=5\n");
  r = c.run({"get", "b", "-o", "jsonpath={.status.completionTime}"});
  CHECK(r.out == "2024-01-01T00:01:40Z");
  r = c.run({"get", "-o", "custom-columns=NAME:.metadata.name,WORKERS:.spec.tfReplicaSpecs.Worker.replicas,DONE:.status.completionTime",
             "--sort-by=.metadata.name"});
  INFO(r.out << r.err);
  auto ls = lines(r.out);
  REQUIRE(ls.size() == 3);
  CHECK(cells(ls[0]) == std::vector<std::string>{"NAME", "WORKERS", "DONE"});
  CHECK(cells(ls[1]) == std::vector<std::string>{"a", "5", "<none>"});
  CHECK(cells(ls[2]) == std::vector<std::string>{"b", "2", "2024-01-01T00:01:40Z"});

  r = c.run({"get", "-o", "wide", "--sort-by=.metadata.name"});
  ls = lines(r.out);
  REQUIRE(ls.size() == 3);
  auto head = cells(ls[0]);
  CHECK(head[head.size() - 2] == "DURATION");
  CHECK(head.back() == "NODE");
  auto b = cells(ls[2]);
  CHECK(b[0] == "b");
  CHECK(b[b.size() - 2] == "100s");  // kubectl HumanDuration: seconds below 2 minutes
  CHECK(b.back() == "gpu-node-7");  // the chief's node, not worker 0's
  CHECK(cells(ls[1]).back() == "<none>");

  r = c.run({"get", "-o", "jsonpath={.items[*"});
  CHECK(r.exit_code != 0);
  CHECK(has(r.err, "jsonpath"));
  r = c.run({"get", "-o", "jsonpath={.items[0].nope}"});
  CHECK(r.exit_code == 1);
  CHECK(has(r.err, "nope is not found"));
  r = c.run({"get", "-o", "table"});
  CHECK(r.exit_code == 64);
  CHECK(has(r.err, "error: --output: \"table\" is not one of them; give wide, json, yaml, name, jsonpath=... or custom-columns=..."));
}

TEST_CASE("wait --for=delete and several names, delete waits by default", "[guide][cli]") {
  Cluster c(false);
  for (auto n : {"a", "b", "c", "d"}) c.server->put_object(job(n, 1));
  auto waiting = std::async(std::launch::async, [&] { return c.run({"wait", "a", "b", "--for=delete", "--timeout=60s"}); });
  // the wait sees them go, whether it started watching before or after (already gone counts)
  c.server->delete_object("tfjobs", "default", "a");
  c.server->delete_object("tfjobs", "default", "b");
  auto r = waiting.get();
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out == "tfjob.kubeflow.org/a condition met\ntfjob.kubeflow.org/b condition met\n");
  r = c.run({"wait", "c", "--for=delete", "--timeout=1s"});
  CHECK(r.exit_code == 2);
  CHECK(has(r.err, "timed out after 1s waiting for the deletion of tfjob.kubeflow.org/c"));
  r = c.run({"wait", "c", "--for=gone"});
  CHECK(r.exit_code == 64);
  CHECK(has(r.err, "error: --for: \"gone\" is neither delete nor condition=...; give delete or condition="));

  r = c.run({"delete", "c"});
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(has(r.err, "waiting for tfjob.kubeflow.org/c to be gone"));
  r = c.run({"delete", "d", "--wait=false"});
  CHECK(r.exit_code == 0);
  CHECK_FALSE(has(r.err, "waiting for"));
}

TEST_CASE("exec, attach and port-forward find the replica's pod and hand over to kubectl", "[guide][cli]") {
  Cluster c(false);
  c.server->put_object(job("mnist", 2));
  c.server->put_object(pod("mnist", "chief", 0, "n1"));
  c.server->put_object(pod("mnist", "worker", 0, "n2"));
  c.server->put_object(pod("mnist", "worker", 1, "n3"));
  // a kubectl on PATH that records what it was asked to do
  const std::string dir = tfjob::test::temp_dir("guide-kubectl");
  {
    std::ofstream s(dir + "/kubectl");
    s << "#!/bin/sh\nprintf '%s\\n' \"$@\" > \"$KUBECTL_ARGS\"\nexit 7\n";
  }
  ::chmod((dir + "/kubectl").c_str(), 0755);
  const std::string args = dir + "/args";
  std::vector<std::string> env = {"PATH=" + dir + ":" + (std::getenv("PATH") ? std::getenv("PATH") : "/usr/bin:/bin"),
                                  "KUBECTL_ARGS=" + args};
  auto handed = [&] { return lines(slurp(args)); };

  auto r = c.run({"exec", "mnist", "--", "nvidia-smi", "-L"}, env);
  INFO(r.err);
  CHECK(r.exit_code == 7);  // kubectl's own exit code
  CHECK(handed() == std::vector<std::string>{"exec", "--kubeconfig=" + c.kubeconfig, "--namespace=default", "pod/mnist-chief-0",
                                             "--container=tensorflow", "--", "nvidia-smi", "-L"});
  r = c.run({"exec", "mnist", "--replica", "Worker", "--index", "1", "-it", "--", "bash"}, env);
  auto a = handed();
  REQUIRE_FALSE(a.empty());
  CHECK(a[0] == "exec");
  CHECK(std::count(a.begin(), a.end(), "--stdin") == 1);
  CHECK(std::count(a.begin(), a.end(), "--tty") == 1);
  CHECK(std::count(a.begin(), a.end(), "pod/mnist-worker-1") == 1);
  r = c.run({"attach", "mnist", "--replica", "worker"}, env);
  a = handed();
  REQUIRE_FALSE(a.empty());
  CHECK(a.front() == "attach");
  CHECK(std::count(a.begin(), a.end(), "pod/mnist-worker-0") == 1);
  r = c.run({"port-forward", "mnist", "6006", "8080:2222"}, env);
  a = handed();
  REQUIRE(a.size() >= 3);
  CHECK(a.front() == "port-forward");
  CHECK(std::vector<std::string>(a.end() - 3, a.end()) == std::vector<std::string>{"pod/mnist-chief-0", "6006", "8080:2222"});

  r = c.run({"exec", "mnist", "--replica", "worker", "--index", "7", "--", "ls"}, env);
  CHECK(r.exit_code == 1);
  CHECK(has(r.err, "TFJob \"mnist\" has no worker pod with index 7 (its pods: "));
  r = c.run({"exec", "nope", "--", "ls"}, env);
  CHECK(r.exit_code == 1);
  CHECK(has(r.err, "\"nope\" not found"));
}

/// A job and a model server the completion cases complete the names of.
static void put_completion_objects(Cluster& c) {
  c.server->put_object(job("mnist", 1));
  c.server->put_object({{"apiVersion", "apps/v1"},
                        {"kind", "Deployment"},
                        {"metadata",
                         {{"name", "resnet"},
                          {"namespace", "default"},
                          {"labels", {{"app.kubernetes.io/managed-by", "kubectl-tfjob"}, {"app.kubernetes.io/name", "tensorflow-serving"},
                                      {"app.kubernetes.io/instance", "resnet"}}}}},
                        {"spec", {{"replicas", 1}, {"template", {{"spec", {{"containers", json::array()}}}}}}}});
}

TEST_CASE("completion: --for=, -o=, serve list|delete and served names, through the plugin's __complete", "[guide][cli]") {
  Cluster c(false);
  put_completion_objects(c);
  auto r = run_plugin({"__complete", "wait", "mnist", "--for="});
  CHECK(has(r.out, "--for=condition=Succeeded\n"));
  CHECK(has(r.out, "--for=delete\n"));
  CHECK(r.out.substr(r.out.size() - 3) == ":4\n");
  r = run_plugin({"__complete", "get", "-o="});
  CHECK(has(r.out, "-o=wide\n"));
  r = run_plugin({"__complete", "serve", ""});
  CHECK(has(r.out, "list\t"));
  CHECK(has(r.out, "delete\t"));
  r = run_plugin({"__complete", "--kubeconfig", c.kubeconfig, "serve", "delete", ""});
  INFO(r.out << r.err);
  CHECK(has(r.out, "resnet\tmodel server"));
  CHECK_FALSE(has(r.out, "mnist"));
}

TEST_CASE("completion: the real kubectl completes kubectl tfjob through kubectl_complete-tfjob", "[guide][cli]") {
  auto kubectl = tfjob::test::run_program("/bin/sh", {"-c", "command -v kubectl"});
  if (kubectl.exit_code != 0)
    TFJOB_SKIP("no kubectl on PATH (fix: bash scripts/install-deps.sh installs Debian's kubernetes-client)");
  Cluster c(false);
  put_completion_objects(c);
  // the helper is in the build tree next to the binary, and the real kubectl uses it
  const std::string bin = tfjob::test::binary_dir() + "/plugin";
  struct stat st {};
  REQUIRE(::stat((bin + "/kubectl_complete-tfjob").c_str(), &st) == 0);
  CHECK((st.st_mode & S_IXUSR) != 0);
  std::string k = kubectl.out.substr(0, kubectl.out.find('\n'));
  std::vector<std::string> env = {"PATH=" + bin + ":" + (std::getenv("PATH") ? std::getenv("PATH") : "/usr/bin:/bin"),
                                  "KUBECONFIG=" + c.kubeconfig};
  auto kr = tfjob::test::run_program(k, {"__complete", "tfjob", "wait", "mnist", "--for="}, 60, env);
  INFO(kr.out << kr.err);
  CHECK(has(kr.out, "--for=condition=Succeeded"));
  kr = tfjob::test::run_program(k, {"__complete", "tfjob", "get", "-o="}, 60, env);
  CHECK(has(kr.out, "-o=json"));
  kr = tfjob::test::run_program(k, {"__complete", "tfjob", "serve", "delete", ""}, 60, env);
  CHECK(has(kr.out, "resnet"));
  kr = tfjob::test::run_program(k, {"__complete", "tfjob", "exec", ""}, 60, env);
  CHECK(has(kr.out, "mnist"));
}
