// The GPU preflight as issue 20's friction list asks: it honours nodeSelector and
// tolerations, does not count the GPUs of the job --replace is about to delete, says each
// finding once, and a claim's reason never comes from an older claim's event.
#include <catch2/catch.hpp>

#include <tfjob/workflow/cluster.hpp>
#include <tfjob/workflow/preflight.hpp>

using nlohmann::json;
using namespace tfjob::workflow;

namespace {
json gpu_replica(int n, int gpus, json extra = json::object()) {
  json spec = {{"containers", json::array({{{"name", "tensorflow"}, {"image", "img"}, {"resources", {{"limits", {{"nvidia.com/gpu", gpus}}}}}}})}};
  spec.update(extra);
  return {{"replicas", n}, {"template", {{"spec", spec}}}};
}
json job(json specs, const std::string& name = "j") {
  return {{"apiVersion", "kubeflow.org/v1"}, {"kind", "TFJob"}, {"metadata", {{"name", name}, {"namespace", "default"}}},
          {"spec", {{"tfReplicaSpecs", specs}}}};
}
json gpu_node(const std::string& name, int gpus, json labels = json::object(), json taints = json::array()) {
  json n = {{"metadata", {{"name", name}, {"labels", labels}}},
            {"status", {{"capacity", {{"nvidia.com/gpu", std::to_string(gpus)}}}, {"allocatable", {{"nvidia.com/gpu", std::to_string(gpus)}}}}}};
  if (!taints.empty()) n["spec"]["taints"] = taints;
  return n;
}
json pod_on(const std::string& node, int gpus, const std::string& job_name, const std::string& ns = "default") {
  return {{"metadata", {{"name", job_name + "-worker-0"}, {"namespace", ns}, {"labels", {{"training.kubeflow.org/job-name", job_name}}}}},
          {"spec", {{"nodeName", node}, {"containers", json::array({{{"name", "tensorflow"}, {"resources", {{"limits", {{"nvidia.com/gpu", gpus}}}}}}})}}},
          {"status", {{"phase", "Running"}}}};
}
}  // namespace

TEST_CASE("GPU preflight honours the nodeSelector", "[explain][preflight]") {
  std::vector<json> nodes = {gpu_node("g-small", 1, {{"pool", "gpu"}}), gpu_node("g-big", 8, {{"pool", "other"}})};
  auto r = gpu_preflight(job({{"Worker", gpu_replica(1, 4, {{"nodeSelector", {{"pool", "gpu"}}}})}}), nodes, std::vector<json>{});
  // before: g-big's 8 GPUs made a 4-GPU pod look schedulable
  REQUIRE(r.findings.size() == 1);
  CHECK(r.findings[0].is_error());
  CHECK(r.findings[0].code == "RequestFitsNoNode");
  CHECK(r.findings[0].message.str().find("each Worker pod asks for 4 nvidia.com/gpu but no schedulable node it may use can allocate more than 1") !=
        std::string::npos);
  r = gpu_preflight(job({{"Worker", gpu_replica(1, 1, {{"nodeSelector", {{"pool", "none"}}}})}}), nodes, std::vector<json>{});
  REQUIRE(r.findings.size() == 1);
  CHECK(r.findings[0].code == "NoNodeMatches");
  CHECK(r.findings[0].message.str().find("g-big: lacks pool=none") != std::string::npos);
}

TEST_CASE("GPU preflight honours taints and tolerations", "[explain][preflight]") {
  json taint = json::array({{{"key", "nvidia.com/gpu"}, {"value", "present"}, {"effect", "NoSchedule"}}});
  std::vector<json> nodes = {gpu_node("g1", 2, json::object(), taint)};
  auto r = gpu_preflight(job({{"Worker", gpu_replica(1, 1)}}), nodes, std::vector<json>{});
  REQUIRE(r.findings.size() == 1);
  CHECK(r.findings[0].code == "NoNodeMatches");
  CHECK(r.findings[0].message.str().find("g1: taint nvidia.com/gpu=present:NoSchedule not tolerated") != std::string::npos);
  json tol = {{"tolerations", json::array({{{"key", "nvidia.com/gpu"}, {"operator", "Exists"}, {"effect", "NoSchedule"}}})}};
  r = gpu_preflight(job({{"Worker", gpu_replica(1, 1, tol)}}), nodes, std::vector<json>{});
  CHECK(r.findings.empty());
  CHECK(r.cluster_free == 2);
}

TEST_CASE("GPU preflight does not count the GPUs of the job being replaced", "[explain][preflight]") {
  std::vector<json> nodes = {gpu_node("g1", 2)};
  std::vector<json> pods = {pod_on("g1", 2, "j")};
  auto r = gpu_preflight(job({{"Worker", gpu_replica(2, 1)}}, "j"), nodes, pods);
  CHECK(r.findings.empty());  // before: "asks for 2 in total but only 0 are free"
  CHECK(r.cluster_free == 2);
  // another job's pods (or the same name in another namespace) still count
  r = gpu_preflight(job({{"Worker", gpu_replica(2, 1)}}, "other"), nodes, pods);
  REQUIRE(r.findings.size() == 1);
  CHECK(r.findings[0].code == "GpusBusy");
  r = gpu_preflight(job({{"Worker", gpu_replica(2, 1)}}, "j"), nodes, std::vector<json>{pod_on("g1", 2, "j", "team-b")});
  REQUIRE(r.findings.size() == 1);
}

TEST_CASE("GPU preflight says each finding once", "[explain][preflight]") {
  std::vector<json> nodes = {gpu_node("g1", 1), gpu_node("g2", 1)};
  auto r = gpu_preflight(job({{"Chief", gpu_replica(1, 2)}, {"Worker", gpu_replica(2, 2)}}), nodes, std::vector<json>{});
  // before: one error per replica type, each with the same node table
  REQUIRE(r.findings.size() == 1);
  CHECK(r.findings[0].message.str().find("each Chief and Worker pod asks for 2, 2 nvidia.com/gpu") != std::string::npos);
  const std::string m = r.findings[0].message.str();
  CHECK(m.find("NODE") == m.rfind("NODE"));
  PreflightReport rep;
  rep.findings = {{Finding::Severity::warning, "same"}, {Finding::Severity::warning, "same"}};
  CHECK(tfjob::dedupe(rep.findings).size() == 1);
}

TEST_CASE("a claim's reason never comes from an older claim of the same name", "[explain][preflight]") {
  // as a server sends them, decoded as the SDK's reads decode them (leniently)
  auto claim_of = [](const json& j) { return tfjob::detail::decoded<tfjob::k8s::PersistentVolumeClaim>(j); };
  auto events_of = [](const std::vector<json>& es) { return tfjob::detail::decode_each<tfjob::k8s::Event>(es); };
  json pvc = {{"metadata", {{"name", "data"}, {"uid", "new"}}}, {"spec", {{"storageClassName", "standard"}}}, {"status", {{"phase", "Pending"}}}};
  std::vector<json> events = {
      {{"involvedObject", {{"kind", "PersistentVolumeClaim"}, {"name", "data"}, {"uid", "old"}}}, {"reason", "ProvisioningFailed"},
       {"message", "storageclass.storage.k8s.io \"fast\" not found"}, {"lastTimestamp", "2024-01-01T00:00:00Z"}}};
  // before: the old claim's ProvisioningFailed was reported for the new claim
  CHECK(pvc_pending_reason(claim_of(pvc), events_of(events)) == "");
  events.push_back({{"involvedObject", {{"kind", "PersistentVolumeClaim"}, {"name", "data"}, {"uid", "new"}}}, {"reason", "ProvisioningFailed"},
                    {"message", "no quota"}, {"lastTimestamp", "2024-01-01T00:00:01Z"}});
  CHECK(pvc_pending_reason(claim_of(pvc), events_of(events)) == "ProvisioningFailed: no quota");
}
