#pragma once
/// \file Checks `submit` makes before it creates anything, as pure functions over what the
/// server returned (nodes, pods, the job), so each rule is unit-tested without a cluster.

#include <tfjob/api/findings.hpp>
#include <tfjob/api/k8s/node.hpp>
#include <tfjob/api/k8s/pod.hpp>
#include <tfjob/api/labels.hpp>
#include <tfjob/api/lint.hpp>
#include <tfjob/api/scheduling.hpp>
#include <tfjob/api/types.hpp>
#include <tfjob/detail/compiled.hpp>
#include <tfjob/detail/json.hpp>
#include <tfjob/detail/table.hpp>
#include <tfjob/kube/detail/util.hpp>  // redact_url
#include <tfjob/workflow/status.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace tfjob::workflow {

/// The command that installs the Kubeflow training operator v1.9 (its README's
/// "standalone" install; the repository is now kubeflow/trainer, v1.9.4 the newest v1.9
/// patch), printed when the TFJob CRD is not served. samples/training-operator pins the
/// same ref (tests/tools/check_facts.py keeps every copy in step).
inline constexpr const char* operator_install_command =
    "kubectl apply --server-side -k \"github.com/kubeflow/trainer.git/manifests/overlays/standalone?ref=v1.9.4\"";

/// The message for a cluster that does not serve kubeflow.org/v1 tfjobs.
std::string crd_missing_message(const std::string& server = {});

/// One problem found before submitting (the SDK's finding: code, replica, evidence, fix).
using Finding = tfjob::Finding;

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
std::string gpu_nodes_table(const std::vector<GpuNode>& nodes);

/// GPU preflight for `job` (TFJob JSON) given every node and, when readable, every pod in
/// the cluster (`all_pods`: std::nullopt when listing pods was forbidden; free GPUs are then
/// taken to be the allocatable ones). A replica type may only use the nodes its template's
/// nodeSelector, required node affinity and tolerations allow (scheduling::node_fit, as the
/// kube-scheduler filters). GPUs held by the pods of a job with this job's name and
/// namespace are not counted as used: they are this job's own (unchanged) or will go with
/// it (`--replace`). Rules:
/// - no node exposes nvidia.com/gpu → error: the NVIDIA device plugin is missing;
/// - no GPU node matches a replica's selector and tolerations → error, naming the closest;
/// - a pod asks for more than the largest allocatable on any node it may use → error,
///   listing the GPU nodes once (replica types with the same problem share one finding);
/// - the job asks for more than is free on the nodes it may use → warning (pods will wait).
GpuPreflight gpu_preflight(const TFJob& job, const std::vector<k8s::Node>& nodes,
                           const std::optional<std::vector<k8s::Pod>>& all_pods,
                           const std::string& resource = "nvidia.com/gpu");
/// The same for the job, nodes and pods as a server sent them (each decoded once, leniently).
GpuPreflight gpu_preflight(const nlohmann::json& job, const std::vector<nlohmann::json>& nodes,
                           const std::optional<std::vector<nlohmann::json>>& all_pods,
                           const std::string& resource = "nvidia.com/gpu");

/// Whether an image is TensorFlow 2 (the lint rule's test, tfjob/api/lint.hpp).
using tfjob::lint::is_tf2_image;

/// The TF2 + `Master` warning (lint rule MasterWithTF2): TF2's MultiWorkerMirroredStrategy
/// reads `chief` from TF_CONFIG, and a `master` task is not treated as the chief.
std::optional<Finding> tf2_master_warning(const nlohmann::json& job);

}  // namespace tfjob::workflow

#if TFJOB_SDK_DEFINE_WORKFLOW
#include <tfjob/workflow/impl/preflight_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_WORKFLOW
