// kubectl tfjob top node|job against the fake API server: GPU nodes with GPU feature
// discovery labels, pods holding GPUs (TFJob replicas, an init container, a pod that ended,
// one that cannot be scheduled), and NVIDIA's DCGM exporter played by
// tests/support/fake_dcgm_exporter (constructed figures, served through the pod proxy);
// and the pure parts: the Prometheus page, the scheduler's GPU count.
#include <catch2/catch.hpp>

#include "support/fake_apiserver.hpp"
#include "support/fake_dcgm_exporter.hpp"
#include "support/paths.hpp"
#include "support/workflow_run.hpp"

#include <tfjob/gpu/top.hpp>
#include <tfjob/kube/config.hpp>

using nlohmann::json;
using tfjob::test::ContainerScript;
using tfjob::test::FakeApiServer;
using tfjob::test::FakeApiServerOptions;

namespace {

json gpu_node(const std::string& name, int gpus, const std::string& driver) {
  return {{"apiVersion", "v1"},
          {"kind", "Node"},
          {"metadata",
           {{"name", name},
            {"labels",
             {{"kubernetes.io/hostname", name}, {"nvidia.com/gpu.product", "Tesla-V100-SXM2-16GB"}, {"nvidia.com/gpu.family", "volta"},
              {"nvidia.com/cuda.driver-version.full", driver}, {"pool", name == "v100-a" ? "a" : "b"}}}}},
          {"status",
           {{"capacity", {{"nvidia.com/gpu", std::to_string(gpus)}, {"cpu", "32"}, {"memory", "128Gi"}, {"pods", "110"}}},
            {"allocatable", {{"nvidia.com/gpu", std::to_string(gpus)}, {"cpu", "32"}, {"memory", "128Gi"}, {"pods", "110"}}},
            {"conditions", json::array({{{"type", "Ready"}, {"status", "True"}}})}}}};
}

json pod(const std::string& ns, const std::string& name, const std::string& node, int gpus, const std::string& job = "",
         const std::string& type = "", int init_gpus = 0) {
  json labels = json::object();
  if (!job.empty()) {
    labels["training.kubeflow.org/job-name"] = job;
    labels["training.kubeflow.org/replica-type"] = type;
  }
  json spec = {{"restartPolicy", "Never"},
               {"containers", json::array({{{"name", "tensorflow"}, {"image", "tensorflow/tensorflow:2.18.0-gpu"},
                                            {"resources", {{"limits", {{"nvidia.com/gpu", std::to_string(gpus)}}}}}}})}};
  if (!node.empty()) spec["nodeName"] = node;
  if (init_gpus > 0)
    spec["initContainers"] = json::array({{{"name", "warm"}, {"image", "busybox"},
                                           {"resources", {{"limits", {{"nvidia.com/gpu", std::to_string(init_gpus)}}}}}}});
  return {{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", {{"name", name}, {"namespace", ns}, {"labels", labels}}},
          {"spec", spec}, {"status", {{"phase", "Pending"}}}};
}

/// Two V100 nodes (4 and 8 GPUs) and a CPU node; mnist (chief on v100-a with 1 GPU, two
/// workers with 2 GPUs each on v100-a and v100-b) in default; resnet in team-a (a worker on
/// v100-b with 4 GPUs, one that asks for 16 and stays Pending); a notebook on v100-b that
/// uses 1 GPU in its init container only; a finished job pod that no longer holds its GPU.
struct TopCluster {
  std::unique_ptr<FakeApiServer> server;
  std::string kubeconfig;
  TopCluster() {
    FakeApiServerOptions o;
    o.nodes = 1;
    o.gpu_nodes = 0;
    o.pod_start_delay = std::chrono::milliseconds(20);
    server = std::make_unique<FakeApiServer>(o);
    kubeconfig = tfjob::test::temp_dir("gpu-top") + "/kubeconfig";
    server->write_kubeconfig(kubeconfig);
    server->put_object(gpu_node("v100-a", 4, "580.95.05"));
    server->put_object(gpu_node("v100-b", 8, "580.95.05"));
    ContainerScript forever;
    forever.lines = {"training"};
    forever.exit_code = std::nullopt;
    for (const char* g : {"mnist-*", "resnet-*", "notebook"}) server->kubelet().script(g, forever);
    ContainerScript done;
    done.lines = {"done"};
    done.exit_code = 0;
    server->kubelet().script("old-*", done);
    server->put_object({{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "team-a"}}}});
    server->put_object(pod("default", "mnist-chief-0", "v100-a", 1, "mnist", "chief"));
    server->put_object(pod("default", "mnist-worker-0", "v100-a", 2, "mnist", "worker"));
    server->put_object(pod("default", "mnist-worker-1", "v100-b", 2, "mnist", "worker"));
    server->put_object(pod("team-a", "resnet-worker-0", "v100-b", 4, "resnet", "worker"));
    server->put_object(pod("team-a", "resnet-worker-1", "", 16, "resnet", "worker"));
    server->put_object(pod("default", "notebook", "v100-b", 0, "", "", 1));
    server->put_object(pod("default", "old-worker-0", "v100-a", 1, "old", "worker"));
    // every started pod is Running (the ended one Succeeded) before the tests look
    server->wait_for([&] {
      int running = 0, ended = 0;
      for (auto& p : server->list_objects("pods")) {
        auto ph = p["status"].value("phase", "");
        running += ph == "Running";
        ended += ph == "Succeeded";
      }
      return running == 5 && ended == 1;
    });
  }
  tfjob::kube::Client client() const {
    tfjob::kube::ConfigOverrides ov;
    ov.kubeconfig = kubeconfig;
    return tfjob::kube::Client(tfjob::kube::load_config(ov));
  }
};

const tfjob::gpu::NodeTop* node_of(const tfjob::gpu::TopResult& r, const std::string& n) {
  for (const auto& x : r.nodes)
    if (x.name == n) return &x;
  return nullptr;
}
const tfjob::gpu::JobTop* job_of(const tfjob::gpu::TopResult& r, const std::string& n) {
  for (const auto& x : r.jobs)
    if (x.name == n) return &x;
  return nullptr;
}

}  // namespace

TEST_CASE("top: the DCGM exporter's page and the scheduler's GPU count (pure)", "[gpu][top]") {
  const std::string page =
      "# HELP DCGM_FI_DEV_GPU_UTIL GPU utilization (in %).\n# TYPE DCGM_FI_DEV_GPU_UTIL gauge\n"
      "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\",UUID=\"GPU-a\",modelName=\"Tesla V100-SXM2-16GB\",Hostname=\"n1\",container=\"tensorflow\",namespace=\"default\",pod=\"mnist-worker-0\"} 87\n"
      "DCGM_FI_DEV_GPU_UTIL{gpu=\"1\",UUID=\"GPU-b\",modelName=\"Tesla V100-SXM2-16GB\",Hostname=\"n1\"} 0\n"
      "DCGM_FI_DEV_FB_USED{gpu=\"0\",UUID=\"GPU-a\",Hostname=\"n1\",note=\"a \\\"quoted\\\" }label\"} 14000\n"
      "DCGM_FI_DEV_FB_FREE{gpu=\"0\",UUID=\"GPU-a\",Hostname=\"n1\"} 2160\n"
      "DCGM_FI_DEV_SM_CLOCK{gpu=\"0\",UUID=\"GPU-a\",Hostname=\"n1\"} 1380\n"
      "DCGM_FI_DEV_FB_USED{gpu=\"2\"} not-a-number\n";
  auto ms = tfjob::gpu::parse_dcgm_metrics(page);
  REQUIRE(ms.size() == 2);
  CHECK(ms[0].node == "n1");
  CHECK(ms[0].uuid == "GPU-a");
  CHECK(ms[0].util_percent == 87.0);
  CHECK(ms[0].fb_used_mib == 14000.0);
  CHECK(ms[0].fb_free_mib == 2160.0);
  CHECK(ms[0].pod == "mnist-worker-0");
  CHECK(ms[1].util_percent == 0.0);
  CHECK_FALSE(ms[1].fb_used_mib.has_value());
  CHECK(tfjob::gpu::parse_dcgm_metrics(page, "node-from-pod")[0].node == "node-from-pod");
  CHECK(tfjob::gpu::parse_dcgm_metrics(page, "", 1).size() == 1);  // bounded

  tfjob::k8s::Pod p(pod("default", "x", "n", 2, "", "", 3));
  CHECK(tfjob::gpu::pod_gpus(p) == 3);  // the init container's 3 outweigh the containers' 2
  tfjob::k8s::Pod q(pod("default", "y", "n", 2, "", "", 1));
  CHECK(tfjob::gpu::pod_gpus(q) == 2);
}

TEST_CASE("top node and top job against the fake API server with the DCGM exporter stand-in", "[gpu][top][e2e]") {
  TopCluster c;
  tfjob::test::FakeDcgmExporter dcgm(*c.server, {"v100-a", "v100-b"});
  tfjob::test::FakeGpuMetrics m;
  m.util_percent = 90;
  m.fb_used_mib = 12000;
  m.fb_free_mib = 4160;
  m.pod = "mnist-worker-0";
  m.pod_namespace = "default";
  m.container = "tensorflow";
  dcgm.set_gpu("v100-a", 0, m);
  m.util_percent = 70;
  m.fb_used_mib = 8000;
  m.fb_free_mib = 8160;
  dcgm.set_gpu("v100-a", 1, m);
  m = {};
  m.util_percent = 40;
  m.fb_used_mib = 2000;
  m.fb_free_mib = 14160;
  dcgm.set_gpu("v100-b", 0, m);
  REQUIRE(c.server->wait_for([&] {
    auto p = c.server->get_object("pods", "gpu-operator", "nvidia-dcgm-exporter-v100-b");
    return p && (*p)["status"].value("phase", "") == "Running";
  }));

  tfjob::gpu::TopOptions o;
  auto r = tfjob::gpu::run_top(c.client(), o);
  INFO(tfjob::gpu::top_result_json(r).dump(2));
  REQUIRE(r.nodes.size() == 2);  // the CPU node is not a GPU node
  auto* a = node_of(r, "v100-a");
  auto* b = node_of(r, "v100-b");
  REQUIRE(a);
  REQUIRE(b);
  CHECK(a->allocatable == 4);
  CHECK(a->requested == 3);  // chief 1 + worker 2; the finished pod's GPU is free again
  CHECK(a->free() == 1);
  CHECK(a->model == "Tesla-V100-SXM2-16GB");
  CHECK(a->driver == "580.95.05");
  CHECK(b->requested == 7);  // worker 2 + resnet 4 + the notebook's init container 1; the Pending 16 holds none
  CHECK(b->free() == 1);
  CHECK(b->pods == 3);
  REQUIRE(a->load.util_percent);
  CHECK(*a->load.util_percent == Approx(80));
  CHECK(*a->load.mem_used_mib == Approx(20000));
  CHECK(*a->load.mem_total_mib == Approx(32320));
  CHECK(*b->load.util_percent == Approx(40));
  CHECK(r.metrics_sources.size() == 2);
  CHECK(r.metrics_note.empty());
  CHECK(dcgm.scrapes() == 2);  // one page per exporter pod, through the pod proxy

  o.nodes = false;
  o.jobs = true;
  o.all_namespaces = true;
  r = tfjob::gpu::run_top(c.client(), o);
  INFO(tfjob::gpu::top_result_json(r).dump(2));
  REQUIRE(r.jobs.size() == 2);  // mnist, resnet (the finished "old" job holds nothing and is gone)
  auto* mn = job_of(r, "mnist");
  auto* rn = job_of(r, "resnet");
  REQUIRE(mn);
  REQUIRE(rn);
  CHECK(mn->gpus() == 5);
  REQUIRE(mn->replicas.size() == 2);
  CHECK(mn->replicas[0].type == "chief");
  CHECK(mn->replicas[0].nodes == std::vector<std::string>{"v100-a"});
  CHECK(mn->replicas[1].type == "worker");
  CHECK(mn->replicas[1].gpus == 4);
  CHECK(mn->replicas[1].nodes == std::vector<std::string>{"v100-a", "v100-b"});
  CHECK(mn->load.gpus == 2);  // the exporter maps two GPUs to mnist-worker-0
  CHECK(rn->namespace_ == "team-a");
  CHECK(rn->gpus() == 4);
  CHECK(rn->replicas[0].pending == 1);

  o.all_namespaces = false;  // the client's namespace: default
  r = tfjob::gpu::run_top(c.client(), o);
  REQUIRE(r.jobs.size() == 1);
  CHECK(r.jobs[0].name == "mnist");
}

TEST_CASE("kubectl tfjob top: tables, -o json, -A, -l, and no DCGM exporter", "[gpu][top][e2e][cli]") {
  REQUIRE_FALSE(tfjob::test::plugin_path().empty());  // the plugin is a build dependency of this test
  TopCluster c;
  auto r = tfjob::test::run_plugin({"top", "node"}, c.kubeconfig);
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::StartsWith("NODE ") && Catch::Contains("ALLOCATABLE") && Catch::Contains("GPU-UTIL"));
  CHECK_THAT(r.out, Catch::Contains("GPUs allocatable/requested/free in the cluster: 12/10/2"));
  CHECK_THAT(r.err, Catch::Contains("DCGM exporter is not installed"));

  r = tfjob::test::run_plugin({"top", "node", "-l", "pool=b", "-o", "json"}, c.kubeconfig);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  auto j = json::parse(r.out);
  CHECK(j["kind"] == "GpuTop");
  REQUIRE(j["nodes"].size() == 1);
  CHECK(j["nodes"][0]["node"] == "v100-b");
  CHECK(j["nodes"][0]["free"] == 1);
  CHECK(j["nodes"][0]["metrics"]["utilizationPercent"].is_null());
  CHECK_THAT(j["metricsNote"].get<std::string>(), Catch::Contains("not installed"));

  tfjob::test::FakeDcgmExporter dcgm(*c.server, {"v100-a", "v100-b"});
  tfjob::test::FakeGpuMetrics m;
  m.util_percent = 55;
  m.fb_used_mib = 4096;
  m.fb_free_mib = 12288;
  dcgm.set_gpu("v100-a", 0, m);
  REQUIRE(c.server->wait_for([&] {
    int n = 0;
    for (auto& p : c.server->list_objects("pods", "gpu-operator")) n += p["status"].value("phase", "") == "Running";
    return n == 2;
  }));
  r = tfjob::test::run_plugin({"top", "job", "-A"}, c.kubeconfig);
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::StartsWith("NAMESPACE ") && Catch::Contains("REPLICA-GPUS"));
  CHECK_THAT(r.out, Catch::Contains("team-a") && Catch::Contains("resnet") && Catch::Contains("v100-a,v100-b"));
  r = tfjob::test::run_plugin({"top", "node"}, c.kubeconfig);
  CHECK_THAT(r.out, Catch::Contains("55%") && Catch::Contains("4.0/16.0 GiB"));
  CHECK(r.err.find("DCGM") == std::string::npos);

  r = tfjob::test::run_plugin({"top", "node", "-A"}, c.kubeconfig);
  CHECK(r.exit_code == 64);
  r = tfjob::test::run_plugin({"top", "gpus"}, c.kubeconfig);
  CHECK(r.exit_code == 64);
  CHECK_THAT(r.err, Catch::StartsWith("error: WHAT: \"gpus\" is not one of them; give node, nodes, job or jobs"));
}
