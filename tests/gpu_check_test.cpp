// gpu-check end to end against the fake API server (its scheduler and kubelet): GPU and
// CPU nodes, a GPU-labelled node without the device plugin, probe pods whose logs carry
// constructed probe JSON, a probe pod stuck Pending because every GPU is in use, cleanup at
// the end and after SIGINT/SIGTERM, --keep, -o json, --local; and the pure parts
// (inventory, the probe pod, Pending explanations).
#include <catch2/catch.hpp>

#include "support/fake_apiserver.hpp"
#include "support/paths.hpp"
#include "support/workflow_run.hpp"

#include <tfjob/gpu/check.hpp>
#include <tfjob/kube/config.hpp>

#include <csignal>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <mutex>
#include <optional>
#include <fstream>
#include <sstream>
#include <thread>

using nlohmann::json;
using tfjob::test::ContainerScript;
using tfjob::test::FakeApiServer;
using tfjob::test::FakeApiServerOptions;

namespace {

std::string slurp(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}
std::string data(const std::string& name) { return slurp(tfjob::test::source_dir() + "/tests/data/gpu/" + name); }

/// A probe container that prints a constructed report and exits with `code`.
ContainerScript probe_prints(const std::string& file, int code) {
  ContainerScript s;
  std::istringstream in(data(file));
  for (std::string line; std::getline(in, line);) s.lines.push_back(line);
  s.exit_code = code;
  s.run_for = std::chrono::milliseconds(100);
  return s;
}

/// CPU node fake-node-0; V100 nodes fake-gpu-node-0..2 with 2 GPUs each; a node that has GPU
/// Feature Discovery labels but no nvidia.com/gpu (device plugin missing). Node 0's probe
/// prints a healthy V100 report, node 1's a V100 under an R590 driver, node 2's GPUs are
/// all taken by a running trainer pod, so its probe stays Pending.
struct GpuCluster {
  std::unique_ptr<FakeApiServer> server;
  std::string kubeconfig;
  explicit GpuCluster(bool busy_node = true) {
    FakeApiServerOptions o;
    o.controllers = true;
    o.nodes = 1;
    o.gpu_nodes = 3;
    o.gpus_per_node = 2;
    o.pod_start_delay = std::chrono::milliseconds(50);
    server = std::make_unique<FakeApiServer>(o);
    kubeconfig = tfjob::test::temp_dir("gpu-check") + "/kubeconfig";
    server->write_kubeconfig(kubeconfig);
    server->put_object({{"apiVersion", "v1"},
                        {"kind", "Node"},
                        {"metadata",
                         {{"name", "gpu-node-noplugin"},
                          {"labels",
                           {{"kubernetes.io/hostname", "gpu-node-noplugin"},
                            {"nvidia.com/gpu.product", "Tesla-V100-SXM2-16GB"},
                            {"nvidia.com/gpu.count", "8"}}}}},
                        {"spec", {{"taints", json::array({{{"key", "nvidia.com/gpu"}, {"value", "present"}, {"effect", "NoSchedule"}}})}}},
                        {"status",
                         {{"capacity", {{"cpu", "8"}, {"memory", "64Gi"}, {"pods", "110"}}},
                          {"allocatable", {{"cpu", "8"}, {"memory", "64Gi"}, {"pods", "110"}}},
                          {"conditions", json::array({{{"type", "Ready"}, {"status", "True"}}})}}}});
    server->kubelet().script("tfjob-gpu-probe-*-fake-gpu-node-0", probe_prints("v100-healthy.json", 0));
    server->kubelet().script("tfjob-gpu-probe-*-fake-gpu-node-1", probe_prints("v100-driver-too-new.json", 1));
    if (busy_node) {
      ContainerScript forever;
      forever.lines = {"training"};
      forever.exit_code = std::nullopt;
      server->kubelet().script("trainer-busy", forever);
      server->put_object({{"apiVersion", "v1"},
                          {"kind", "Pod"},
                          {"metadata", {{"name", "trainer-busy"}, {"namespace", "default"}}},
                          {"spec",
                           {{"nodeName", "fake-gpu-node-2"},
                            {"restartPolicy", "Never"},
                            {"containers",
                             json::array({{{"name", "main"},
                                           {"image", "tensorflow/tensorflow:2.15.0-gpu"},
                                           {"resources", {{"limits", {{"nvidia.com/gpu", "2"}}}}}}})}}},
                          {"status", {{"phase", "Pending"}}}});
    }
  }
  tfjob::kube::Client client() const {
    tfjob::kube::ConfigOverrides ov;
    ov.kubeconfig = kubeconfig;
    return tfjob::kube::Client(tfjob::kube::load_config(ov));
  }
  std::vector<json> probe_pods() const {
    std::vector<json> out;
    for (auto& p : server->list_objects("pods", "default"))
      if (p["metadata"].value("labels", json::object()).contains(tfjob::gpu::run_label)) out.push_back(p);
    return out;
  }
};

const tfjob::gpu::NodeResult* result_for(const tfjob::gpu::CheckResult& r, const std::string& node) {
  for (const auto& n : r.nodes)
    if (n.node.name == node) return &n;
  return nullptr;
}

}  // namespace

TEST_CASE("inventory: capacity, allocatable, unhealthy, GFD labels, taints, missing device plugin", "[gpu][check]") {
  using tfjob::k8s::Node;
  auto healthy = json{{"metadata", {{"name", "n1"}, {"labels", {{"kubernetes.io/hostname", "n1-host"}, {"nvidia.com/gpu.product", "Tesla-V100-SXM2-16GB"}, {"nvidia.com/cuda.driver-version.major", "570"}, {"kubernetes.io/os", "linux"}}}}},
                    {"spec", {{"taints", json::array({{{"key", "nvidia.com/gpu"}, {"effect", "NoSchedule"}}})}}},
                    {"status", {{"capacity", {{"nvidia.com/gpu", "8"}}}, {"allocatable", {{"nvidia.com/gpu", "7"}}},
                                {"conditions", json::array({{{"type", "Ready"}, {"status", "True"}}})}}}}.get<Node>();
  auto g = tfjob::gpu::inspect_node(healthy);
  CHECK(g.capacity == 8);
  CHECK(g.allocatable == 7);
  CHECK(g.unhealthy() == 1);
  CHECK(g.hostname == "n1-host");
  CHECK(g.product() == "Tesla-V100-SXM2-16GB");
  CHECK(g.gfd.count("nvidia.com/cuda.driver-version.major") == 1);
  CHECK(g.gfd.count("kubernetes.io/os") == 0);
  CHECK(g.taints.size() == 1);
  CHECK(g.problem.empty());

  auto gke = json{{"metadata", {{"name", "gke-1"}, {"labels", {{"cloud.google.com/gke-accelerator", "nvidia-tesla-v100"}}}}},
                {"status", {{"conditions", json::array({{{"type", "Ready"}, {"status", "True"}}})}}}}.get<Node>();
  auto k = tfjob::gpu::inspect_node(gke);
  CHECK(k.looks_like_gpu);
  CHECK_THAT(k.problem, Catch::Contains("device plugin is missing or broken"));

  auto dead = json{{"metadata", {{"name", "d"}}}, {"status", {{"capacity", {{"nvidia.com/gpu", "4"}}}, {"allocatable", {{"nvidia.com/gpu", "0"}}}}}}.get<Node>();
  CHECK_THAT(tfjob::gpu::inspect_node(dead).problem, Catch::Contains("all 4 GPUs are unhealthy"));

  auto cpu = json{{"metadata", {{"name", "cpu"}}}, {"status", {{"capacity", {{"cpu", "4"}}}}}}.get<Node>();
  auto inv = tfjob::gpu::gpu_inventory({cpu, healthy, gke});
  REQUIRE(inv.size() == 2);
  CHECK(inv[0].name == "gke-1");
  CHECK(inv[1].name == "n1");
}

TEST_CASE("the probe pod: pinned, requests the GPUs, tolerates nvidia.com/gpu, deadline, labels", "[gpu][check]") {
  tfjob::gpu::NodeGpuInfo n;
  n.name = "gke-cluster-pool-v100-1234abcd-xyz0.us-central1-a.c.project.internal";
  n.hostname = "gke-host-1";
  n.allocatable = 4;
  tfjob::gpu::CheckOptions o;
  o.expect = "v100";
  o.deadline_seconds = 120;
  o.image = "registry.example/probe:1";
  auto pod = tfjob::gpu::probe_pod(n, o, "ab12c");
  const json j = pod;
  CHECK(pod.metadata.name.size() <= 63);
  CHECK(pod.metadata.name.rfind("tfjob-gpu-probe-ab12c-", 0) == 0);
  CHECK(pod.metadata.name.back() != '-');
  CHECK(j["metadata"]["labels"][tfjob::gpu::run_label] == "ab12c");
  CHECK(j["metadata"]["annotations"][tfjob::gpu::node_annotation] == n.name);
  CHECK(j["spec"]["nodeSelector"] == json{{"kubernetes.io/hostname", "gke-host-1"}});
  CHECK(j["spec"]["restartPolicy"] == "Never");
  CHECK(j["spec"]["activeDeadlineSeconds"] == 120);
  CHECK(j["spec"]["tolerations"][0] == json{{"key", "nvidia.com/gpu"}, {"operator", "Exists"}});
  const auto& c = j["spec"]["containers"][0];
  CHECK(c["image"] == "registry.example/probe:1");
  CHECK(c["args"] == json{"--expect", "v100", "--watchdog", "101"});  // before the 120 s deadline and the wait's margin
  CHECK(c["resources"]["limits"]["nvidia.com/gpu"] == "4");
  CHECK(c["env"][0]["valueFrom"]["fieldRef"]["fieldPath"] == "spec.nodeName");
  o.strict = true;
  CHECK(tfjob::gpu::probe_pod(n, o, "x").spec.containers[0].args[2] == "--strict");
  o.gpus = 1;
  CHECK(tfjob::gpu::probe_pod(n, o, "x").spec.containers[0].resource("nvidia.com/gpu") == "1");
}

TEST_CASE("explaining a Pending probe pod", "[gpu][check]") {
  auto pod = json{{"metadata", {{"name", "p"}}}, {"status", {{"phase", "Pending"}}}}.get<tfjob::k8s::Pod>();
  auto ev = json{{"type", "Warning"}, {"reason", "FailedScheduling"}, {"involvedObject", {{"kind", "Pod"}, {"name", "p"}}},
                             {"message", "0/3 nodes are available: 1 Insufficient nvidia.com/gpu."}}.get<tfjob::k8s::Event>();
  auto other = json{{"type", "Warning"}, {"reason", "BackOff"}, {"involvedObject", {{"kind", "Pod"}, {"name", "q"}}}, {"message", "x"}}.get<tfjob::k8s::Event>();
  auto why = tfjob::gpu::explain_pending(pod, {ev, other});
  CHECK_THAT(why, Catch::StartsWith("FailedScheduling: 0/3 nodes") && Catch::Contains("GPUs are in use"));
  auto pulling = json{{"metadata", {{"name", "p"}}},
                                {"status", {{"phase", "Pending"}, {"containerStatuses", json::array({{{"name", "probe"}, {"state", {{"waiting", {{"reason", "ImagePullBackOff"}, {"message", "Back-off pulling image \"bad\""}}}}}}})}}}}.get<tfjob::k8s::Pod>();
  CHECK(tfjob::gpu::explain_pending(pulling, {ev}) == "ImagePullBackOff: Back-off pulling image \"bad\"");
  CHECK(tfjob::gpu::explain_pending(pod, {other}) == "waiting to be scheduled");
}

TEST_CASE("gpu-check workflow: probes every GPU node in parallel, explains Pending, deletes its pods", "[gpu][check][e2e]") {
  GpuCluster c;
  tfjob::gpu::CheckOptions o;
  o.deadline_seconds = 4;
  o.poll = std::chrono::milliseconds(100);
  std::vector<std::string> progress;
  o.progress = [&](const tfjob::Text& s) { progress.push_back(s.str()); };
  auto res = tfjob::gpu::run_gpu_check(c.client(), o);
  std::string all;
  for (auto& p : progress) all += p + "\n";
  INFO(all);

  REQUIRE(res.inventory.size() == 4);  // 3 fake GPU nodes + the one without a device plugin
  CHECK(result_for(res, "fake-node-0") == nullptr);
  auto* n0 = result_for(res, "fake-gpu-node-0");
  REQUIRE(n0);
  CHECK(n0->status == tfjob::gpu::NodeStatus::ready);
  REQUIRE(n0->report);
  CHECK(n0->report->devices.size() == 2);
  CHECK(n0->exit_code == 0);
  auto* n1 = result_for(res, "fake-gpu-node-1");
  REQUIRE(n1);
  CHECK(n1->status == tfjob::gpu::NodeStatus::not_ready);
  CHECK(n1->exit_code == 1);
  REQUIRE(n1->report);
  REQUIRE(n1->report->failures.size() == 1);
  CHECK(n1->report->failures[0].check == "driver");
  auto* n2 = result_for(res, "fake-gpu-node-2");
  REQUIRE(n2);
  CHECK(n2->status == tfjob::gpu::NodeStatus::pending);
  CHECK_THAT(n2->message.str(), Catch::Contains("Insufficient nvidia.com/gpu") && Catch::Contains("no result within 4s"));
  auto* np = result_for(res, "gpu-node-noplugin");
  REQUIRE(np);
  CHECK(np->status == tfjob::gpu::NodeStatus::not_ready);
  CHECK(np->pod.empty());
  CHECK_THAT(np->message.str(), Catch::Contains("device plugin is missing"));
  CHECK(res.timed_out);
  CHECK_FALSE(res.all_ready());
  CHECK_THAT(all, Catch::Contains("fake-gpu-node-2: Pending: FailedScheduling"));
  CHECK_THAT(all, Catch::Contains("deleted 3 probe pods"));
  // Every probe pod is gone; the trainer stays.
  CHECK(c.server->wait_for([&] { return c.probe_pods().empty(); }, std::chrono::seconds(5)));
  CHECK(c.server->get_object("pods", "default", "trainer-busy"));

  auto j = tfjob::gpu::check_result_json(res);
  CHECK(j["ready"] == false);
  CHECK(j["nodes"].size() == 4);

  // driven by a watch on the run's pods, not by listing them every poll: over the 4+ s the
  // pending pod waited (poll 100 ms), one list and one watch of the probe pods
  int lists = 0, watches = 0;
  for (const auto& req : c.server->requests())
    if (req.method == "GET" && req.path == "/api/v1/namespaces/default/pods" &&
        req.query.find("gpu-check") != std::string::npos)
      (req.query.find("watch=true") != std::string::npos || req.query.find("watch=1") != std::string::npos ? watches : lists)++;
  CHECK(watches >= 1);
  CHECK(lists <= 2);
}

TEST_CASE("gpu-check workflow: cancel deletes the pods and keep keeps them", "[gpu][check][e2e]") {
  GpuCluster c(false);
  ContainerScript hang;
  hang.lines = {"{"};  // starts printing, never finishes
  hang.exit_code = std::nullopt;
  c.server->kubelet().script("tfjob-gpu-probe-*", hang);
  std::atomic<bool> cancel{false};
  tfjob::gpu::CheckOptions o;
  o.deadline_seconds = 60;
  o.poll = std::chrono::milliseconds(50);
  o.cancel = &cancel;
  o.progress = [&](const tfjob::Text& t) {
    const std::string s = t.str();
    if (s.find(": Running") != std::string::npos) cancel = true;
  };
  auto t0 = std::chrono::steady_clock::now();
  auto res = tfjob::gpu::run_gpu_check(c.client(), o);
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(30));
  CHECK(res.cancelled);
  CHECK(result_for(res, "fake-gpu-node-0")->status == tfjob::gpu::NodeStatus::cancelled);
  CHECK(c.server->wait_for([&] { return c.probe_pods().empty(); }, std::chrono::seconds(5)));

  cancel = false;
  o.keep = true;
  o.nodes = {"fake-gpu-node-1"};
  res = tfjob::gpu::run_gpu_check(c.client(), o);
  CHECK(res.cancelled);
  REQUIRE(res.nodes.size() == 1);  // --node: only fake-gpu-node-1
  auto pods = c.probe_pods();
  REQUIRE(pods.size() == 1);
  CHECK(pods[0]["metadata"]["annotations"][tfjob::gpu::node_annotation] == "fake-gpu-node-1");
  CHECK(pods[0]["spec"]["nodeName"] == "fake-gpu-node-1");  // the scheduler honoured the pin

  CHECK_THROWS_WITH(([&] {
                      auto o2 = o;
                      o2.nodes = {"no-such-node"};
                      tfjob::gpu::run_gpu_check(c.client(), o2);
                    }()),
                    Catch::Contains("node \"no-such-node\" not found"));
}

TEST_CASE("kubectl tfjob gpu-check: table, -o json, exit codes", "[gpu][check][e2e][cli]") {
  REQUIRE_FALSE(tfjob::test::plugin_path().empty());  // the plugin is a build dependency of this test
  GpuCluster c;
  auto r = tfjob::test::run_plugin({"gpu-check", "--node", "fake-gpu-node-0", "--expect", "v100"}, c.kubeconfig, 60,
                                   {"TFJOB_GPU_CHECK_POLL_MS=100"});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::StartsWith("NODE ") && Catch::Contains("BANDWIDTH GB/s") && Catch::Contains("FP16 TFLOP/s"));
  CHECK_THAT(r.out, Catch::Contains("Tesla V100-SXM2-16GB") && Catch::Contains("570.133.20") && Catch::Contains("READY"));
  CHECK_THAT(r.out, Catch::Contains("811 (90%)"));  // mean of the two GPUs' 812.6 and 809.9 GB/s
  CHECK_THAT(r.err, Catch::Contains("created probe pod default/tfjob-gpu-probe-") && Catch::Contains("deleted 1 probe pod"));

  r = tfjob::test::run_plugin({"gpu-check", "--timeout", "3s", "-o", "json"}, c.kubeconfig, 60, {"TFJOB_GPU_CHECK_POLL_MS=100"});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 1);  // a node is not ready (beats the Pending one's timeout)
  auto j = json::parse(r.out);
  CHECK(j["kind"] == "GpuCheck");
  CHECK(j["ready"] == false);
  std::map<std::string, std::string> status;
  for (auto& n : j["nodes"]) status[n["node"]] = n["status"];
  CHECK(status == std::map<std::string, std::string>{{"fake-gpu-node-0", "ready"}, {"fake-gpu-node-1", "not-ready"},
                                                     {"fake-gpu-node-2", "pending"}, {"gpu-node-noplugin", "not-ready"}});
  CHECK(c.probe_pods().empty());

  r = tfjob::test::run_plugin({"gpu-check", "--node", "fake-gpu-node-2", "--timeout", "2s"}, c.kubeconfig, 60,
                              {"TFJOB_GPU_CHECK_POLL_MS=100"});
  CHECK(r.exit_code == 3);  // only no result in time
  CHECK_THAT(r.out, Catch::Contains("PENDING"));
  CHECK_THAT(r.out, Catch::Contains("Insufficient nvidia.com/gpu"));

  // a model the check does not know: refused as the command line is read (exit 64)
  r = tfjob::test::run_plugin({"gpu-check", "--expect", "p100"}, c.kubeconfig);
  CHECK(r.exit_code == 64);
  CHECK_THAT(r.err, Catch::StartsWith("error: --expect: \"p100\" is not a GPU model this check knows; give a GPU model: v100"));
}

TEST_CASE("kubectl tfjob gpu-check: SIGINT and SIGTERM delete the probe pods", "[gpu][check][e2e][cli]") {
  REQUIRE_FALSE(tfjob::test::plugin_path().empty());  // the plugin is a build dependency of this test
  GpuCluster c(false);
  ContainerScript hang;
  hang.lines = {"probe starting"};
  hang.exit_code = std::nullopt;
  c.server->kubelet().script("tfjob-gpu-probe-*", hang);
  for (int sig : {SIGINT, SIGTERM}) {
    INFO("signal " << sig);
    std::string errfile = tfjob::test::temp_dir("gpu-check-sig") + "/stderr";
    // Everything the child needs is prepared before fork (the test process has threads).
    std::string p = tfjob::test::plugin_path();
    std::vector<std::string> env_store{"TFJOB_GPU_CHECK_POLL_MS=100"};
    for (char** e = environ; *e; ++e) env_store.emplace_back(*e);
    std::vector<char*> envp;
    for (auto& e : env_store) envp.push_back(e.data());
    envp.push_back(nullptr);
    pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      int fd = ::open(errfile.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      ::dup2(fd, 2);
      int nul = ::open("/dev/null", O_WRONLY);
      ::dup2(nul, 1);
      const char* argv[] = {p.c_str(), "gpu-check", "--kubeconfig", c.kubeconfig.c_str(), "--timeout", "60s", nullptr};
      ::execve(p.c_str(), const_cast<char* const*>(argv), envp.data());
      ::_exit(127);
    }
    bool running = c.server->wait_for(
        [&] {
          auto pods = c.probe_pods();
          int n = 0;
          for (auto& p : pods) n += p["status"].value("phase", "") == "Running";
          return n == 3;
        },
        std::chrono::seconds(30));
    CHECK(running);
    ::kill(pid, sig);
    int st = 0;
    ::waitpid(pid, &st, 0);
    std::string err = slurp(errfile);
    INFO(err);
    REQUIRE(WIFEXITED(st));
    CHECK(WEXITSTATUS(st) == (sig == SIGINT ? 130 : 143));
    CHECK_THAT(err, Catch::Contains(sig == SIGINT ? "interrupted by SIGINT" : "interrupted by SIGTERM") &&
                        Catch::Contains("deleted 3 probe pods"));
    CHECK(c.probe_pods().empty());
  }
}

TEST_CASE("kubectl tfjob gpu-check --local runs the probe on this machine", "[gpu][check][cli]") {
  REQUIRE_FALSE(tfjob::test::plugin_path().empty());  // the plugin is a build dependency of this test
  auto dir = tfjob::test::temp_dir("gpu-local");
  // A stand-in probe that prints a constructed H200 report (the real one has no GPU here).
  std::string fake = dir + "/probe.sh";
  std::ofstream(fake) << "#!/bin/sh\n[ \"$1\" = --expect ] && [ \"$2\" = h200 ] || exit 9\ncat '"
                      << tfjob::test::source_dir() << "/tests/data/gpu/h200-healthy.json'\n";
  ::chmod(fake.c_str(), 0755);
  auto r = tfjob::test::run_plugin({"gpu-check", "--local", "--expect", "H200", "--probe-path", fake});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("NVIDIA H200") && Catch::Contains("9.0") && Catch::Contains("READY"));

  // A stand-in that prints the no-driver report (the probe exits 2): gpu-check says no GPU
  // with the tool's code for it, 4 (a script can tell "no GPU here"; 2 is "timed out").
  std::string nodrv = dir + "/nodrv.sh";
  std::ofstream(nodrv) << "#!/bin/sh\ncat '" << tfjob::test::source_dir() << "/tests/data/gpu/no-driver.json'\nexit 2\n";
  ::chmod(nodrv.c_str(), 0755);
  r = tfjob::test::run_plugin({"gpu-check", "--local", "--probe-path", nodrv});
  CHECK(r.exit_code == 4);
  CHECK_THAT(r.out, Catch::Contains("NO-GPU"));

  // no probe to run: no result (3, as the help says), one error, no table of a node that failed
  r = tfjob::test::run_plugin({"gpu-check", "--local"}, "", 60, {"TFJOB_GPU_PROBE=" + dir + "/missing-probe"});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 3);
  CHECK_THAT(r.err, Catch::Contains("error: cannot run the GPU probe"));
  CHECK(r.out.empty());
  // a --probe-path that is not there is a mistake on the command line
  r = tfjob::test::run_plugin({"gpu-check", "--local", "--probe-path", dir + "/missing-probe"});
  CHECK(r.exit_code == 64);
  CHECK_THAT(r.err, Catch::StartsWith("error: --probe-path: \"" + dir + "/missing-probe\" does not exist"));

  // The real probe, when built: no GPU here, so not ready with its clear message.
  std::string real = tfjob::test::binary_dir() + "/gpu/tfjob-gpu-probe";
  if (::access(real.c_str(), X_OK) == 0 && ::access("/dev/nvidia0", F_OK) != 0) {
    r = tfjob::test::run_plugin({"gpu-check", "--local", "--probe-path", real});
    CHECK(r.exit_code == 4);  // no NVIDIA driver: no GPU (4), not "not ready"
    CHECK_THAT(r.out, Catch::Contains("NO-GPU") && Catch::Contains("no NVIDIA driver"));
  }
}

TEST_CASE("cluster-wide before any probe: GFD driver vs architecture, unhealthy GPUs, no GFD, device plugin and validator", "[gpu][check]") {
  using tfjob::k8s::Node;
  using tfjob::k8s::Pod;
  auto node = [](const std::string& name, json labels, int cap, int alloc) {
    labels["kubernetes.io/hostname"] = name;
    return json{{"metadata", {{"name", name}, {"labels", labels}}},
                     {"status", {{"capacity", {{"nvidia.com/gpu", std::to_string(cap)}}}, {"allocatable", {{"nvidia.com/gpu", std::to_string(alloc)}}},
                                 {"conditions", json::array({{{"type", "Ready"}, {"status", "True"}}})}}}}.get<Node>();
  };
  // GFD >= 0.15 labels: a V100 node whose GPU Operator upgrade brought R590
  auto v590 = tfjob::gpu::inspect_node(node("v-590", {{"nvidia.com/gpu.product", "Tesla-V100-SXM2-16GB"}, {"nvidia.com/gpu.family", "volta"},
                                                      {"nvidia.com/cuda.driver-version.major", "590"}, {"nvidia.com/cuda.driver-version.minor", "44"},
                                                      {"nvidia.com/cuda.driver-version.revision", "01"}}, 8, 8));
  CHECK(v590.driver_major == 590);
  CHECK(v590.driver_version == "590.44.01");
  CHECK(v590.architecture == "volta");
  CHECK_THAT(v590.problem, Catch::Contains("does not drive Volta") && Catch::Contains("R580") && Catch::Contains("August 2028"));
  // older GFD labels, compute capability 7.0 and R580: fine; 7 of 8 allocatable: a note
  auto v580 = tfjob::gpu::inspect_node(node("v-580", {{"nvidia.com/gpu.product", "Tesla-V100-SXM2-16GB"}, {"nvidia.com/gpu.compute.major", "7"},
                                                      {"nvidia.com/gpu.compute.minor", "0"}, {"nvidia.com/cuda.driver.major", "580"},
                                                      {"nvidia.com/cuda.driver.minor", "95"}, {"nvidia.com/cuda.driver.rev", "05"}}, 8, 7));
  CHECK(v580.architecture == "volta");
  CHECK(v580.driver_version == "580.95.05");
  CHECK(v580.problem.empty());
  REQUIRE(v580.notes.size() == 2);
  // R580 drives Volta, but it is the last branch: the note gives its end of life
  CHECK_THAT(v580.notes[0], Catch::Contains("Volta under driver 580.95.05") && Catch::Contains("last branch") &&
                                Catch::Contains("August 2028"));
  CHECK_THAT(v580.notes[1], Catch::Contains("1 of 8 GPUs unhealthy"));
  // a driver below the CUDA 12 floor (R525) is named, on any architecture; R525 itself is not
  auto t470 = tfjob::gpu::inspect_node(node("t-470", {{"nvidia.com/gpu.family", "turing"}, {"nvidia.com/gpu.product", "Tesla-T4"},
                                                      {"nvidia.com/cuda.driver-version.major", "470"}, {"nvidia.com/cuda.driver-version.minor", "256"},
                                                      {"nvidia.com/cuda.driver-version.revision", "02"}}, 1, 1));
  CHECK(t470.problem.empty());
  REQUIRE(t470.notes.size() == 1);
  CHECK_THAT(t470.notes[0], Catch::Contains("driver 470.256.02 is older than R525") && Catch::Contains("upgrade the driver"));
  CHECK(tfjob::gpu::inspect_node(node("t-525", {{"nvidia.com/gpu.family", "turing"}, {"nvidia.com/gpu.product", "Tesla-T4"},
                                               {"nvidia.com/cuda.driver-version.major", "525"}}, 1, 1)).notes.empty());
  // an Ampere node under R590 is fine
  CHECK(tfjob::gpu::inspect_node(node("a-590", {{"nvidia.com/gpu.family", "ampere"}, {"nvidia.com/gpu.product", "NVIDIA-A100"},
                                               {"nvidia.com/cuda.driver-version.major", "590"}}, 8, 8)).problem.empty());
  // capacity without any GFD label
  auto bare = tfjob::gpu::inspect_node(node("bare", json::object(), 2, 2));
  REQUIRE(bare.notes.size() == 1);
  CHECK_THAT(bare.notes[0], Catch::Contains("no GPU feature discovery labels"));

  std::vector<tfjob::gpu::NodeGpuInfo> inv{v580, bare};
  auto pod = [](const std::string& ns, const std::string& name, const std::string& node, json status) {
    return json{{"metadata", {{"name", name}, {"namespace", ns}}}, {"spec", {{"nodeName", node}}}, {"status", status}}.get<Pod>();
  };
  std::vector<Pod> plugins{
      pod("gpu-operator", "nvidia-device-plugin-daemonset-a", "v-580",
          {{"phase", "Running"}, {"conditions", json::array({{{"type", "Ready"}, {"status", "True"}}})}}),
      pod("gpu-operator", "nvidia-device-plugin-daemonset-b", "bare",
          {{"phase", "Running"}, {"conditions", json::array({{{"type", "Ready"}, {"status", "False"}}})},
           {"containerStatuses", json::array({{{"name", "nvidia-device-plugin"}, {"state", {{"waiting", {{"reason", "CrashLoopBackOff"}, {"message", "back-off 5m0s"}}}}}}})}})};
  std::vector<Pod> validators{pod("gpu-operator", "nvidia-operator-validator-x", "v-580",
                                  {{"phase", "Pending"},
                                   {"initContainerStatuses", json::array({{{"name", "driver-validation"}, {"state", {{"running", json::object()}}}},
                                                                          {{"name", "cuda-validation"}, {"state", {{"waiting", {{"reason", "CrashLoopBackOff"}}}}}}})}})};
  auto cluster = tfjob::gpu::note_gpu_components(inv, plugins, validators);
  CHECK(cluster.empty());
  std::string all0, all1;
  for (auto& n : inv[0].notes) all0 += n + "\n";
  for (auto& n : inv[1].notes) all1 += n + "\n";
  CHECK_THAT(all0, Catch::Contains("GPU Operator validator gpu-operator/nvidia-operator-validator-x is Pending (cuda-validation: CrashLoopBackOff)"));
  CHECK_THAT(all0, !Catch::Contains("NVIDIA device plugin gpu-operator"));
  CHECK_THAT(all1, Catch::Contains("NVIDIA device plugin gpu-operator/nvidia-device-plugin-daemonset-b is Running (nvidia-device-plugin: CrashLoopBackOff: back-off 5m0s)"));
  CHECK_THAT(all1, Catch::Contains("GPU Operator validator: no pod on this node"));
  std::vector<tfjob::gpu::NodeGpuInfo> inv2{bare};
  auto none = tfjob::gpu::note_gpu_components(inv2, {}, {});
  REQUIRE(none.size() == 1);
  CHECK_THAT(none[0], Catch::Contains("no NVIDIA device plugin pods found"));
}

TEST_CASE("a probe image that cannot be pulled fails its node at once with the registry's message", "[gpu][check][e2e]") {
  auto pulling = json{{"metadata", {{"name", "p"}}},
                                {"status", {{"phase", "Pending"}, {"containerStatuses", json::array({{{"name", "probe"}, {"state", {{"waiting", {{"reason", "ImagePullBackOff"}, {"message", "Back-off pulling image \"r/x:1\""}}}}}}})}}}}.get<tfjob::k8s::Pod>();
  auto failed = json{{"type", "Warning"}, {"reason", "Failed"}, {"involvedObject", {{"kind", "Pod"}, {"name", "p"}}},
                                 {"message", "Failed to pull image \"r/x:1\": rpc error: code = NotFound desc = r/x:1: not found"}}.get<tfjob::k8s::Event>();
  CHECK(tfjob::gpu::image_pull_failure(pulling, {failed}) ==
        "ImagePullBackOff: Failed to pull image \"r/x:1\": rpc error: code = NotFound desc = r/x:1: not found");
  auto creating = json{{"metadata", {{"name", "p"}}}, {"status", {{"phase", "Pending"}}}}.get<tfjob::k8s::Pod>();
  CHECK(tfjob::gpu::image_pull_failure(creating, {failed}).empty());
  auto pull = json{{"type", "Normal"}, {"reason", "Pulling"}, {"involvedObject", {{"kind", "Pod"}, {"name", "p"}}}, {"message", "Pulling image \"r/x:1\""}}.get<tfjob::k8s::Event>();
  CHECK(tfjob::gpu::explain_pending(creating, {pull}) == "pulling the probe image: Pulling image \"r/x:1\"");

  // End to end: the fake kubelet never starts the pod (a long start delay) and the test plays
  // the kubelet's pull failure on it; the run must end long before its 60 s deadline.
  FakeApiServerOptions fo;
  fo.controllers = true;
  fo.nodes = 0;
  fo.gpu_nodes = 1;
  fo.gpus_per_node = 1;
  fo.pod_start_delay = std::chrono::minutes(10);
  FakeApiServer server(fo);
  auto kc = tfjob::test::temp_dir("gpu-pull") + "/kubeconfig";
  server.write_kubeconfig(kc);
  tfjob::kube::ConfigOverrides ov;
  ov.kubeconfig = kc;
  tfjob::kube::Client client(tfjob::kube::load_config(ov));
  tfjob::gpu::CheckOptions o;
  o.deadline_seconds = 60;
  o.poll = std::chrono::milliseconds(100);
  o.image = "registry.invalid/tfjob-gpu-probe:v0";
  std::vector<std::string> progress;
  std::mutex pm;
  o.progress = [&](const tfjob::Text& s) {
    std::lock_guard<std::mutex> lk(pm);
    progress.push_back(s.str());
  };
  std::optional<tfjob::gpu::CheckResult> res;
  std::thread t([&] { res = tfjob::gpu::run_gpu_check(client, o); });
  std::string pod_name;
  bool scheduled = server.wait_for([&] {
    for (auto& p : server.list_objects("pods", "default"))
      if (p["spec"].value("nodeName", "") == "fake-gpu-node-0" && p["metadata"]["labels"].contains(tfjob::gpu::run_label)) {
        pod_name = p["metadata"]["name"];
        return true;
      }
    return false;
  }, std::chrono::seconds(20));
  REQUIRE(scheduled);
  auto p = *server.get_object("pods", "default", pod_name);
  p["status"]["containerStatuses"] = json::array({{{"name", "probe"}, {"image", o.image}, {"ready", false}, {"restartCount", 0},
                                                   {"state", {{"waiting", {{"reason", "ErrImagePull"}, {"message", "failed to pull and unpack image"}}}}}}});
  server.put_object({{"apiVersion", "v1"}, {"kind", "Event"},
                     {"metadata", {{"name", pod_name + ".pull"}, {"namespace", "default"}}},
                     // as the kubelet records it: the pod's uid too (read by its field selector)
                     {"involvedObject", {{"kind", "Pod"}, {"name", pod_name}, {"namespace", "default"}, {"uid", p["metadata"]["uid"]}}},
                     {"type", "Warning"}, {"reason", "Failed"},
                     {"message", "Failed to pull image \"" + o.image + "\": dial tcp: lookup registry.invalid: no such host"}});
  server.put_object(p);
  t.join();
  REQUIRE(res);
  std::string all;
  for (auto& l : progress) all += l + "\n";
  INFO(all);
  REQUIRE(res->nodes.size() == 1);
  const auto& n = res->nodes[0];
  CHECK(n.status == tfjob::gpu::NodeStatus::failed);
  CHECK(n.reason == "ImagePull");
  CHECK_THAT(n.message.str(), Catch::Contains("no such host") && Catch::Contains("gpu/Dockerfile"));
  CHECK_FALSE(res->timed_out);
  CHECK(res->outcome() == tfjob::gpu::CheckOutcome::not_ready);
  CHECK_THAT(all, Catch::Contains("fake-gpu-node-0: 1/1 GPUs allocatable"));
  CHECK_THAT(all, Catch::Contains("no NVIDIA device plugin pods found"));
}

TEST_CASE("gpu-check never goes silent: a running probe is told with its last line", "[gpu][check][e2e]") {
  GpuCluster c(false);
  ContainerScript slow;
  slow.lines = {"tfjob-gpu-probe: gpu0: gemm-fp16"};
  slow.exit_code = std::nullopt;  // runs until the test ends it
  c.server->kubelet().script("tfjob-gpu-probe-*", slow);
  std::atomic<bool> cancel{false};
  tfjob::gpu::CheckOptions o;
  o.deadline_seconds = 60;
  o.poll = std::chrono::milliseconds(100);
  o.running_every = std::chrono::milliseconds(200);
  o.nodes = {"fake-gpu-node-0"};
  o.cancel = &cancel;
  std::vector<std::string> lines;
  o.progress = [&](const tfjob::Text& t) {
    const std::string s = t.str();
    lines.push_back(s);
    if (s.find("running for") != std::string::npos && s.find("gpu0: gemm-fp16") != std::string::npos) cancel = true;
  };
  auto res = tfjob::gpu::run_gpu_check(c.client(), o);
  std::string all;
  for (auto& l : lines) all += l + "\n";
  INFO(all);
  CHECK(res.cancelled);
  CHECK_THAT(all, Catch::Contains("fake-gpu-node-0: running for ") && Catch::Contains(": tfjob-gpu-probe: gpu0: gemm-fp16"));
}

TEST_CASE("gpu-check node status: an enum spelled as before, and the run's outcome from it", "[gpu][check]") {
  using tfjob::gpu::NodeStatus;
  CHECK(std::string(to_string(NodeStatus::not_ready)) == "not-ready");
  CHECK(std::string(to_string(NodeStatus::no_result)) == "no-result");
  for (const char* v : {"ready", "not-ready", "no-gpu", "no-result"})
    CHECK(std::string(to_string(tfjob::gpu::node_status_of_probe(v))) == v);
  CHECK(tfjob::gpu::node_status_of_probe("READY") == NodeStatus::failed);  // not a verdict the probe writes
  CHECK(tfjob::gpu::node_status_of_probe("") == NodeStatus::failed);

  auto outcome = [](std::vector<NodeStatus> ss) {
    tfjob::gpu::CheckResult r;
    for (auto s : ss) {
      tfjob::gpu::NodeResult n;
      n.status = s;
      r.nodes.push_back(n);
    }
    return r.outcome();
  };
  using tfjob::gpu::CheckOutcome;
  CHECK(outcome({NodeStatus::ready, NodeStatus::skipped}) == CheckOutcome::ready);
  CHECK(outcome({NodeStatus::skipped}) == CheckOutcome::no_gpu);
  CHECK(outcome({NodeStatus::ready, NodeStatus::timeout}) == CheckOutcome::no_result);
  CHECK(outcome({NodeStatus::no_gpu, NodeStatus::pending}) == CheckOutcome::no_gpu);
  CHECK(outcome({NodeStatus::no_gpu, NodeStatus::failed}) == CheckOutcome::not_ready);
  CHECK(outcome({NodeStatus::cancelled}) == CheckOutcome::no_result);

  // The probe's verdict becomes the node's status, spelled as before in -o json.
  tfjob::gpu::NodeResult n;
  tfjob::gpu::judge_probe_output(n, R"({"schema":"kubectl-tfjob/gpu-probe/v1","status":"no-gpu","message":"none"})", {});
  CHECK(n.status == NodeStatus::no_gpu);
  tfjob::gpu::CheckResult r;
  r.nodes.push_back(n);
  CHECK(tfjob::gpu::check_result_json(r)["nodes"][0]["status"] == "no-gpu");
}
