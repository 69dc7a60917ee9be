#pragma once
/// \file Checks `submit` makes before it creates anything, as pure functions over what the
/// server returned (nodes, pods, the job), so each rule is unit-tested without a cluster.

#include <tfjob/workflow/status.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <optional>
#include <regex>
#include <string>
#include <vector>

namespace tfjob::workflow {

/// The command that installs the Kubeflow training operator v1.9 (its README's
/// "standalone" install; the repository is now kubeflow/trainer, v1.9.4 the newest v1.9
/// patch), printed when the TFJob CRD is not served. samples/training-operator pins the
/// same ref (tests/tools/check_facts.py keeps every copy in step).
inline constexpr const char* operator_install_command =
    "kubectl apply --server-side -k \"github.com/kubeflow/trainer.git/manifests/overlays/standalone?ref=v1.9.4\"";

/// The message for a cluster that does not serve kubeflow.org/v1 tfjobs.
inline std::string crd_missing_message(const std::string& server = {}) {
  std::string s = "the cluster";
  if (!server.empty()) s += " at " + server;
  s += " does not serve TFJobs (kubeflow.org/v1, resource tfjobs): the Kubeflow training operator "
       "is not installed.\nInstall training operator v1.9 with:\n  ";
  s += operator_install_command;
  s += "\nthen wait for it: kubectl -n kubeflow rollout status deployment/training-operator";
  return s;
}

/// One problem found before submitting.
struct Finding {
  enum class Severity { warning, error } severity = Severity::warning;
  std::string message;
  bool is_error() const { return severity == Severity::error; }
};

/// One node's view of `nvidia.com/gpu`.
struct GpuNode {
  std::string name;
  long long capacity = 0, allocatable = 0, requested = 0;  ///< requested: by non-terminated pods on it
  bool schedulable = true;                                   ///< false when cordoned
  long long free() const { return std::max(0LL, allocatable - requested); }
};

/// The GPU picture of a cluster and the verdict for one job.
struct GpuPreflight {
  std::vector<GpuNode> nodes;      ///< nodes exposing nvidia.com/gpu (capacity > 0)
  long long job_total = 0;         ///< GPUs the whole job asks for
  long long job_max_per_pod = 0;   ///< the largest single-pod request
  long long cluster_free = 0;      ///< free GPUs on schedulable nodes
  std::vector<Finding> findings;
};

/// Table of GPU nodes: `NODE  CAPACITY  ALLOCATABLE  REQUESTED  FREE`.
inline std::string gpu_nodes_table(const std::vector<GpuNode>& nodes) {
  size_t w = 4;
  for (const auto& n : nodes) w = std::max(w, n.name.size() + (n.schedulable ? 0 : 11));
  auto pad = [](std::string s, size_t n) { s.resize(std::max(n, s.size()), ' '); return s; };
  std::string out = "  " + pad("NODE", w) + "   CAPACITY   ALLOCATABLE   REQUESTED   FREE\n";
  for (const auto& n : nodes) {
    out += "  " + pad(n.name + (n.schedulable ? "" : " (cordoned)"), w) + "   " +
           pad(std::to_string(n.capacity), 8) + "   " + pad(std::to_string(n.allocatable), 11) + "   " +
           pad(std::to_string(n.requested), 9) + "   " + std::to_string(n.free()) + "\n";
  }
  return out;
}

/// GPU preflight for `job` (TFJob JSON) given every node and, when readable, every pod in
/// the cluster (`all_pods`: std::nullopt when listing pods was forbidden; free GPUs are then
/// taken to be the allocatable ones). Rules:
/// - no node exposes nvidia.com/gpu → error: the NVIDIA device plugin is missing;
/// - a pod asks for more than the largest allocatable on any schedulable node → error,
///   listing the GPU nodes;
/// - the job asks for more than is free in total → warning (pods will wait).
inline GpuPreflight gpu_preflight(const nlohmann::json& job, const std::vector<nlohmann::json>& nodes,
                                  const std::optional<std::vector<nlohmann::json>>& all_pods,
                                  const std::string& resource = "nvidia.com/gpu") {
  GpuPreflight r;
  std::vector<std::pair<std::string, long long>> per_type;
  for (const auto& rg : replica_gpus(job)) {
    r.job_total += rg.gpus_per_pod * rg.replicas;
    r.job_max_per_pod = std::max(r.job_max_per_pod, rg.gpus_per_pod);
    if (rg.gpus_per_pod > 0) per_type.emplace_back(rg.type, rg.gpus_per_pod);
  }
  for (const auto& n : nodes) {
    GpuNode g;
    g.name = n.value("/metadata/name"_json_pointer, std::string());
    const auto cap = n.value("/status/capacity"_json_pointer, nlohmann::json::object());
    const auto alloc = n.value("/status/allocatable"_json_pointer, nlohmann::json::object());
    if (cap.contains(resource)) g.capacity = integer_quantity(cap[resource]);
    if (alloc.contains(resource)) g.allocatable = integer_quantity(alloc[resource]);
    if (g.capacity <= 0 && g.allocatable <= 0) continue;
    g.schedulable = !n.value("/spec/unschedulable"_json_pointer, false);
    if (all_pods) {
      for (const auto& p : *all_pods) {
        if (p.value("/spec/nodeName"_json_pointer, std::string()) != g.name) continue;
        std::string phase = p.value("/status/phase"_json_pointer, std::string());
        if (phase == "Succeeded" || phase == "Failed") continue;
        if (p.contains("spec")) g.requested += pod_spec_gpus(p["spec"], resource);
      }
    }
    r.nodes.push_back(g);
  }
  std::sort(r.nodes.begin(), r.nodes.end(), [](const GpuNode& a, const GpuNode& b) { return a.name < b.name; });
  for (const auto& g : r.nodes) if (g.schedulable) r.cluster_free += g.free();
  if (r.job_total == 0) return r;

  if (r.nodes.empty()) {
    r.findings.push_back({Finding::Severity::error,
                          "the job asks for " + std::to_string(r.job_total) + " " + resource +
                              " but no node in the cluster exposes " + resource +
                              ": the NVIDIA device plugin is missing or not running (install the NVIDIA GPU "
                              "operator or device plugin).\nRun \"kubectl tfjob gpu-check\" to diagnose the GPU "
                              "nodes, or submit with --gpus 0 to train on CPUs."});
    return r;
  }
  long long max_alloc = 0;
  for (const auto& g : r.nodes) if (g.schedulable) max_alloc = std::max(max_alloc, g.allocatable);
  for (const auto& [type, n] : per_type) {
    if (n > max_alloc) {
      r.findings.push_back({Finding::Severity::error,
                            "each " + type + " pod asks for " + std::to_string(n) + " " + resource +
                                " but no schedulable node can allocate more than " + std::to_string(max_alloc) +
                                "; its pods would stay Pending forever. GPU nodes:\n" + gpu_nodes_table(r.nodes) +
                                "Lower --gpus (GPUs per pod) and raise --workers instead."});
    }
  }
  bool fatal = std::any_of(r.findings.begin(), r.findings.end(), [](const Finding& f) { return f.is_error(); });
  if (!fatal && r.job_total > r.cluster_free) {
    r.findings.push_back({Finding::Severity::warning,
                          "the job asks for " + std::to_string(r.job_total) + " " + resource + " in total but only " +
                              std::to_string(r.cluster_free) + " are free" +
                              (all_pods ? std::string() : std::string(" (allocatable; pods could not be listed)")) +
                              " right now; some pods will wait in Pending until GPUs free up.\n" +
                              gpu_nodes_table(r.nodes)});
  }
  return r;
}

/// Whether an image is TensorFlow 2: a `tensorflow`/`tf` image tagged `2.x`, `latest` or
/// `nightly` (TF2 since 2019), or any image whose name or tag says `tf2`.
inline bool is_tf2_image(const std::string& image) {
  std::string img = image;
  if (auto at = img.find('@'); at != std::string::npos) img = img.substr(0, at);
  std::string repo = img, tag = "latest";
  auto slash = img.rfind('/');
  auto colon = img.rfind(':');
  if (colon != std::string::npos && (slash == std::string::npos || colon > slash)) {
    repo = img.substr(0, colon);
    tag = img.substr(colon + 1);
  }
  std::string name = repo.substr(repo.rfind('/') == std::string::npos ? 0 : repo.rfind('/') + 1);
  auto lower = [](std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
  };
  name = lower(name);
  tag = lower(tag);
  static const std::regex tf2_word("(^|[^a-z0-9])tf-?2([^0-9]|$)");
  if (std::regex_search(name, tf2_word) || std::regex_search(tag, tf2_word)) return true;
  bool tf_image = name.find("tensorflow") != std::string::npos || name == "tf" ||
                  name.rfind("tf-", 0) == 0;
  if (!tf_image) return false;
  static const std::regex v2("^v?2\\.[0-9]+");
  if (std::regex_search(tag, v2)) return true;
  if (name == "tensorflow" && (tag.rfind("latest", 0) == 0 || tag.rfind("nightly", 0) == 0)) return true;
  return false;
}

/// The TF2 + `Master` warning: TF2's MultiWorkerMirroredStrategy reads `chief` from
/// TF_CONFIG, and a `master` task is not treated as the chief.
inline std::optional<Finding> tf2_master_warning(const nlohmann::json& job) {
  const auto specs = job.value("/spec/tfReplicaSpecs"_json_pointer, nlohmann::json::object());
  if (!specs.contains("Master")) return std::nullopt;
  std::string tf2;
  for (const auto& [type, rs] : specs.items()) {
    for (const auto& c : rs.value("/template/spec/containers"_json_pointer, nlohmann::json::array())) {
      std::string image = c.value("image", "");
      if (is_tf2_image(image)) { tf2 = image; break; }
    }
    if (!tf2.empty()) break;
  }
  if (tf2.empty()) return std::nullopt;
  return Finding{Finding::Severity::warning,
                 "the job has a Master replica but image " + tf2 +
                     " is TensorFlow 2: MultiWorkerMirroredStrategy expects a \"chief\" task in TF_CONFIG and "
                     "does not treat \"master\" as the chief. Use a Chief replica (--chief) instead of Master."};
}

}  // namespace tfjob::workflow
