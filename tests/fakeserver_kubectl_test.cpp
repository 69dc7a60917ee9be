// The real kubectl judges the fake API server: if kubectl fails against it, the fake is
// wrong. Runs /usr/bin/kubectl (or the one on PATH) over TLS with the client certificate
// and with bearer tokens; skips with a printed reason where kubectl is absent.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "support/fake_apiserver.hpp"
#include "support/paths.hpp"
#include "support/skip.hpp"

namespace fs = std::filesystem;
using tfjob::test::ContainerScript;
using tfjob::test::FakeApiServer;
using tfjob::test::FakeApiServerOptions;

namespace {

std::string find_kubectl() {
  if (const char* env = std::getenv("KUBECTL")) return env;
  if (fs::exists("/usr/bin/kubectl")) return "/usr/bin/kubectl";
  const char* path = std::getenv("PATH");
  std::stringstream ss(path ? path : "");
  std::string dir;
  while (std::getline(ss, dir, ':'))
    if (!dir.empty() && fs::exists(dir + "/kubectl")) return dir + "/kubectl";
  return "";
}

std::string slurp(const fs::path& p) {
  std::ifstream f(p);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

struct Result {
  int code = -1;
  std::string out, err;
};

/// A temp HOME with the server's kubeconfig; runs kubectl with KUBECONFIG/HOME set.
struct Kubectl {
  std::string bin;
  fs::path dir;
  std::string context;  ///< --context for every command ("" = the kubeconfig's current)
  int counter = 0;
  Kubectl(const FakeApiServer& server, std::string kubectl) : bin(std::move(kubectl)) {
    char tmpl[] = "/tmp/fakeserver-kubectl-XXXXXX";
    dir = mkdtemp(tmpl);
    server.write_kubeconfig((dir / "kubeconfig").string());
  }
  ~Kubectl() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  fs::path write(const std::string& name, const std::string& text) {
    std::ofstream(dir / name) << text;
    return dir / name;
  }
  Result run(const std::string& args, int timeout_s = 60) {
    ++counter;
    fs::path out = dir / ("out" + std::to_string(counter)), err = dir / ("err" + std::to_string(counter));
    std::string cmd = "cd '" + dir.string() + "' && KUBECONFIG='" + (dir / "kubeconfig").string() + "' HOME='" + dir.string() +
                      "' timeout " + std::to_string(timeout_s) + " '" + bin + "' " + (context.empty() ? "" : "--context " + context + " ") + args + " > '" + out.string() + "' 2> '" +
                      err.string() + "'";
    int rc = std::system(cmd.c_str());
    Result r;
    r.code = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
    r.out = slurp(out);
    r.err = slurp(err);
    return r;
  }
};

const char* kTFJob = R"(apiVersion: kubeflow.org/v1
kind: TFJob
metadata:
  name: mnist
  labels:
    app: mnist
spec:
  runPolicy:
    cleanPodPolicy: None
  tfReplicaSpecs:
    Chief:
      replicas: 1
      restartPolicy: OnFailure
      template:
        spec:
          containers:
          - name: tensorflow
            image: ghcr.io/kubectl-tfjob/mnist:v0.1.0
            command: ["python", "/opt/mnist/mnist.py"]
    Worker:
      replicas: 2
      restartPolicy: OnFailure
      template:
        spec:
          containers:
          - name: tensorflow
            image: ghcr.io/kubectl-tfjob/mnist:v0.1.0
)";

const char* kDeployment = R"(apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {app: web}
spec:
  replicas: 2
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: serving
        image: tensorflow/serving:2.14.1
        ports: [{containerPort: 8501}]
)";

#define REQUIRE_KUBECTL(k)                                                   \
  std::string k = find_kubectl();                                           \
  if (k.empty()) {                                                           \
    TFJOB_SKIP("kubectl not found in /usr/bin, PATH or $KUBECTL (fix: bash scripts/install-deps.sh)");  \
  }

}  // namespace

TEST_CASE("kubectl lists nodes, namespaces and tfjobs over TLS with the client certificate", "[fakeserver][kubectl]") {
  REQUIRE_KUBECTL(bin);
  FakeApiServerOptions o;
  o.nodes = 2;
  o.gpu_nodes = 1;
  FakeApiServer server(o);
  Kubectl k(server, bin);
  auto r = k.run("get nodes");
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(r.out.find("NAME") == 0);
  CHECK(r.out.find("fake-node-0") != std::string::npos);
  CHECK(r.out.find("fake-node-1") != std::string::npos);
  CHECK(r.out.find("fake-gpu-node-0") != std::string::npos);
  CHECK(r.out.find("Ready") != std::string::npos);
  r = k.run("get tfjobs");
  INFO(r.err);
  CHECK(r.code == 0);
  CHECK(r.err.find("No resources found in default namespace.") != std::string::npos);
  r = k.run("get namespaces -o name");
  CHECK(r.code == 0);
  CHECK(r.out.find("namespace/team-a") != std::string::npos);
  // every resource kind the plugin relies on is discoverable
  r = k.run("api-resources -o name");
  INFO(r.err);
  REQUIRE(r.code == 0);
  for (const char* res : {"tfjobs.kubeflow.org", "pods", "nodes", "deployments.apps", "services", "jobs.batch", "persistentvolumeclaims",
                          "events", "namespaces"})
    CHECK(r.out.find(std::string(res) + "\n") != std::string::npos);
  // requests carried the client certificate identity
  bool saw_admin = false;
  for (const auto& req : server.requests())
    if (req.user == "admin") saw_admin = true;
  CHECK(saw_admin);
}

TEST_CASE("kubectl applies a TFJob, the operator runs it, logs -f streams it, delete cascades (cert and token)", "[fakeserver][kubectl]") {
  REQUIRE_KUBECTL(bin);
  const std::string context = GENERATE(as<std::string>{}, "fake-cert", "fake-token");
  INFO("context " << context);
  FakeApiServer server;
  // the chief prints its lines 50 ms apart and exits 0; `logs -f` must end with the stream
  ContainerScript chief;
  for (int i = 0; i < 8; ++i) chief.lines.push_back("epoch " + std::to_string(i) + " loss=0." + std::to_string(90 - i * 10));
  chief.line_interval = std::chrono::milliseconds(50);
  chief.exit_code = std::nullopt;  // runs until the test finishes it, once `logs -f` follows
  server.kubelet().script("mnist-chief-0", chief);
  ContainerScript worker;
  worker.lines = {"worker up"};
  worker.exit_code = std::nullopt;  // run until the test finishes them
  server.kubelet().script("mnist-worker-*", worker);
  Kubectl k(server, bin);
  k.context = context;
  auto f = k.write("tfjob.yaml", kTFJob);

  auto r = k.run("apply -f " + f.string());
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(r.out == "tfjob.kubeflow.org/mnist created\n");
  r = k.run("apply -f " + f.string());
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(r.out == "tfjob.kubeflow.org/mnist unchanged\n");
  // the unchanged apply wrote nothing: no PATCH reached the server
  for (const auto& req : server.requests()) CHECK(req.method != "PATCH");
  auto job = server.get_object("tfjobs", "default", "mnist");
  REQUIRE(job);
  CHECK((*job)["metadata"]["generation"] == 1);
  CHECK((*job)["metadata"]["annotations"].contains("kubectl.kubernetes.io/last-applied-configuration"));

  r = k.run("get tfjobs");
  CHECK(r.code == 0);
  CHECK(r.out.find("mnist") != std::string::npos);

  REQUIRE(server.wait_for([&] { return server.list_objects("pods", "default").size() == 3; }));
  r = k.run("get pods -l training.kubeflow.org/job-name=mnist,training.kubeflow.org/replica-type=worker -o name");
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(r.out == "pod/mnist-worker-0\npod/mnist-worker-1\n");
  r = k.run("get pods -l training.kubeflow.org/job-role=master -o 'jsonpath={.items[*].metadata.name}'");
  CHECK(r.out == "mnist-chief-0");
  r = k.run("get pod mnist-worker-1 -o 'jsonpath={.spec.containers[0].env[?(@.name==\"TF_CONFIG\")].value}'");
  CHECK(r.out ==
        "{\"cluster\":{\"chief\":[\"mnist-chief-0.default.svc:2222\"],\"worker\":[\"mnist-worker-0.default.svc:2222\","
        "\"mnist-worker-1.default.svc:2222\"]},\"task\":{\"type\":\"worker\",\"index\":1},\"environment\":\"cloud\"}");

  REQUIRE(server.wait_for([&] {
    auto p = server.get_object("pods", "default", "mnist-chief-0");
    return p && (*p)["status"].value("phase", "") == "Running";
  }));
  std::thread finisher([&] {
    server.wait_for([&] {
      for (const auto& req : server.requests())
        if (req.path == "/api/v1/namespaces/default/pods/mnist-chief-0/log" && req.query.find("follow=true") != std::string::npos) return true;
      return false;
    }, std::chrono::seconds(20));
    server.wait_for([&] { return server.kubelet().log("default", "mnist-chief-0", "tensorflow").find("epoch 7") != std::string::npos; });
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    server.kubelet().finish("default", "mnist-chief-0", "tensorflow", 0);
  });
  r = k.run("logs -f mnist-chief-0", 30);
  finisher.join();
  INFO(r.err);
  REQUIRE(r.code == 0);
  std::string want;
  for (const auto& l : chief.lines) want += l + "\n";
  CHECK(r.out == want);
  r = k.run("logs mnist-chief-0 --tail=2");
  CHECK(r.out == chief.lines[6] + "\n" + chief.lines[7] + "\n");

  r = k.run("wait --for=condition=Succeeded tfjob/mnist --timeout=30s", 40);
  INFO(r.err);
  CHECK(r.code == 0);
  CHECK(r.out == "tfjob.kubeflow.org/mnist condition met\n");
  r = k.run("get tfjob mnist -o 'jsonpath={.status.conditions[*].type}'");
  CHECK(r.out == "Created Running Succeeded");

  // a server dry run deletes nothing: kubectl says dryRun in the DeleteOptions body, not the
  // query (the fake deleted for real, which could fake a test's result)
  r = k.run("delete -f " + f.string() + " --dry-run=server");
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(r.out == "tfjob.kubeflow.org \"mnist\" deleted (server dry run)\n");
  CHECK(server.get_object("tfjobs", "default", "mnist"));
  r = k.run("delete -f " + f.string());
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(r.out == "tfjob.kubeflow.org \"mnist\" deleted\n");
  CHECK(server.list_objects("pods", "default").empty());  // the garbage collector took them
  r = k.run("get tfjob mnist");
  CHECK(r.code != 0);
  CHECK(r.err.find("Error from server (NotFound): tfjobs.kubeflow.org \"mnist\" not found") != std::string::npos);
}

TEST_CASE("kubectl rollout status follows the deployment controller", "[fakeserver][kubectl]") {
  REQUIRE_KUBECTL(bin);
  FakeApiServer server;
  Kubectl k(server, bin);
  auto f = k.write("deploy.yaml", kDeployment);
  auto r = k.run("apply -f " + f.string());
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(r.out == "deployment.apps/web created\n");
  r = k.run("rollout status deployment/web --timeout=30s", 40);
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(r.out.find("deployment \"web\" successfully rolled out") != std::string::npos);
  auto d = server.get_object("deployments", "default", "web");
  REQUIRE(d);
  CHECK((*d)["status"]["availableReplicas"] == 2);
  CHECK((*d)["status"]["observedGeneration"] == 1);
  // `get -w` asks for Table watch events and prints the server's columns
  r = k.run("get deployment web -w", 8);
  CHECK(r.code == 124);  // still watching when timeout(1) stopped it
  CHECK(r.out.find("UP-TO-DATE") != std::string::npos);
  CHECK(r.out.find("web    2/2     2            2") != std::string::npos);
  // a new image is a new ReplicaSet; the rollout completes again (strategic merge patch)
  std::string v2 = kDeployment;
  v2.replace(v2.find("2.14.1"), 6, "2.15.0");
  f = k.write("deploy.yaml", v2);
  r = k.run("apply -f " + f.string());
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(r.out == "deployment.apps/web configured\n");
  r = k.run("rollout status deployment/web --timeout=30s", 40);
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(r.out.find("successfully rolled out") != std::string::npos);
  d = server.get_object("deployments", "default", "web");
  CHECK((*d)["metadata"]["generation"] == 2);
  CHECK((*d)["spec"]["template"]["spec"]["containers"][0]["image"] == "tensorflow/serving:2.15.0");
  CHECK((*d)["spec"]["template"]["spec"]["containers"].size() == 1);
  REQUIRE(server.wait_for([&] { return server.list_objects("replicasets", "default").size() == 1; }));
  r = k.run("get pods -l app=web -o 'jsonpath={.items[*].spec.containers[0].image}'");
  CHECK(r.out == "tensorflow/serving:2.15.0 tensorflow/serving:2.15.0");
  r = k.run("delete deployment web");
  CHECK(r.code == 0);
  CHECK(server.list_objects("pods", "default").empty());
}

TEST_CASE("kubectl sees a 422 with causes for an invalid TFJob", "[fakeserver][kubectl]") {
  REQUIRE_KUBECTL(bin);
  FakeApiServer server;
  Kubectl k(server, bin);
  auto f = k.write("bad.yaml", R"(apiVersion: kubeflow.org/v1
kind: TFJob
metadata:
  name: bad
spec:
  runPolicy:
    cleanPodPolicy: 3
  tfReplicaSpecs:
    Worker:
      replicas: two
      template:
        spec:
          containers:
          - image: busybox
)");
  auto r = k.run("apply -f " + f.string());
  CHECK(r.code != 0);
  CHECK(r.err.find("The TFJob \"bad\" is invalid:") != std::string::npos);
  CHECK(r.err.find("spec.tfReplicaSpecs.Worker.replicas: Invalid value: \"string\"") != std::string::npos);
  CHECK(r.err.find("spec.runPolicy.cleanPodPolicy: Invalid value: \"integer\"") != std::string::npos);
  CHECK(r.err.find("spec.tfReplicaSpecs.Worker.template.spec.containers.name: Required value") != std::string::npos);
  CHECK_FALSE(server.get_object("tfjobs", "default", "bad"));
  // unknown fields: kubectl asks for strict field validation and gets a 400
  auto g = k.write("unknown.yaml", R"(apiVersion: kubeflow.org/v1
kind: TFJob
metadata:
  name: odd
spec:
  tfReplicas: 3
  tfReplicaSpecs:
    Worker:
      template:
        spec:
          containers:
          - name: tensorflow
            image: busybox
)");
  r = k.run("apply -f " + g.string());
  CHECK(r.code != 0);
  CHECK(r.err.find("strict decoding error: unknown field \"spec.tfReplicas\"") != std::string::npos);
}

TEST_CASE("a token limited to team-a is forbidden elsewhere, a wrong token is unauthorized", "[fakeserver][kubectl]") {
  REQUIRE_KUBECTL(bin);
  FakeApiServer server;
  Kubectl k(server, bin);
  auto r = k.run("--context fake-limited get pods");
  INFO(r.err);
  CHECK(r.code == 0);
  CHECK(r.err.find("No resources found in team-a namespace.") != std::string::npos);
  r = k.run("--context fake-limited get pods -n default");
  CHECK(r.code != 0);
  CHECK(r.err.find("Error from server (Forbidden): pods is forbidden: User \"team-a-dev\" cannot list resource \"pods\" in API "
                   "group \"\" in the namespace \"default\"") != std::string::npos);
  r = k.run("--context fake-limited get nodes");
  CHECK(r.code != 0);
  CHECK(r.err.find("cannot list resource \"nodes\" in API group \"\" at the cluster scope") != std::string::npos);
  r = k.run("--context fake-token --token not-a-real-token get pods");
  CHECK(r.code != 0);
  CHECK(r.err.find("Unauthorized") != std::string::npos);
  CHECK(r.err.find("not-a-real-token") == std::string::npos);
}

TEST_CASE("the standalone fake-apiserver writes a kubeconfig, serves kubectl and stops on SIGTERM", "[fakeserver][kubectl]") {
  REQUIRE_KUBECTL(bin);
  std::string exe = tfjob::test::binary_dir() + "/tests/fake-apiserver";
  REQUIRE(fs::exists(exe));
  char tmpl[] = "/tmp/fakeserver-standalone-XXXXXX";
  fs::path dir = mkdtemp(tmpl);
  fs::path kc = dir / "kubeconfig", out = dir / "stdout";
  pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    FILE* o = std::freopen(out.c_str(), "w", stdout);
    (void)o;
    execl(exe.c_str(), exe.c_str(), "--port", "0", "--kubeconfig-out", kc.c_str(), "--nodes", "3", "--gpu-nodes", "2", (char*)nullptr);
    _exit(127);
  }
  std::string url;
  for (int i = 0; i < 200 && url.empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    std::string s = slurp(out);
    if (s.find('\n') != std::string::npos) url = s.substr(0, s.find('\n'));
  }
  CHECK(url.rfind("https://127.0.0.1:", 0) == 0);
  std::string cmd = "KUBECONFIG='" + kc.string() + "' HOME='" + dir.string() + "' timeout 30 '" + bin +
                    "' get nodes -l nvidia.com/gpu.present=true -o name > '" + (dir / "nodes").string() + "' 2>&1";
  int rc = std::system(cmd.c_str());
  CHECK(WEXITSTATUS(rc) == 0);
  CHECK(slurp(dir / "nodes") == "node/fake-gpu-node-0\nnode/fake-gpu-node-1\n");
  cmd = "KUBECONFIG='" + kc.string() + "' HOME='" + dir.string() + "' timeout 30 '" + bin + "' --context fake-token get nodes -o name > '" +
        (dir / "all").string() + "' 2>&1";
  rc = std::system(cmd.c_str());
  CHECK(WEXITSTATUS(rc) == 0);
  CHECK(slurp(dir / "all").find("node/fake-node-2") != std::string::npos);
  kill(pid, SIGTERM);
  int status = 0;
  for (int i = 0; i < 200; ++i) {
    if (waitpid(pid, &status, WNOHANG) == pid) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    if (i == 199) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      FAIL("fake-apiserver did not stop on SIGTERM");
    }
  }
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  std::error_code ec;
  fs::remove_all(dir, ec);
}
