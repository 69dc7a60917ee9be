#pragma once
/// \file serve's preflight, before anything is applied: submit's GPU check
/// (workflow::gpu_preflight: nodes exposing nvidia.com/gpu, the kube-scheduler's node filter
/// by nodeSelector, affinity and tolerations, GPUs held by running pods) run on the server's
/// pod template, its findings worded for a model server (replicas and GPUs per replica); and,
/// for a serving profile, whether the server's CPU and memory requests fit the nodes now.

#include <tfjob/detail/compiled.hpp>
#include <tfjob/api/k8s/node.hpp>
#include <tfjob/api/k8s/pod.hpp>
#include <tfjob/api/k8s/workloads.hpp>
#include <tfjob/api/scheduling.hpp>
#include <tfjob/kube/client.hpp>
#include <tfjob/serving/manifests.hpp>
#include <tfjob/serving/profile.hpp>  // cpu_text, mib_text
#include <tfjob/workflow/cluster.hpp>
#include <tfjob/workflow/preflight.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>  // std::max
#include <optional>
#include <utility>
#include <string>
#include <vector>

namespace tfjob::serving {

/// The Deployment's pods as the one replica type gpu_preflight reads (it looks only at
/// tfReplicaSpecs.*.{replicas, template}); named "Server". (workflow::gpu_preflight and
/// api/scheduling.hpp read JSON: what is handed to them is written from the typed values.)
nlohmann::json gpu_view(const k8s::Deployment& deployment);

/// Pure: the GPU findings for a Deployment given every node and (when readable) every pod.
/// Errors: no GPU node, no GPU node the pods may use, more GPUs per replica than any such
/// node has; a warning when the replicas together need more than is free now.
std::vector<Finding> gpu_findings(const k8s::Deployment& deployment, const std::vector<nlohmann::json>& nodes,
                                  const std::optional<std::vector<nlohmann::json>>& pods);

/// gpu_findings with the cluster's nodes and pods; nullopt when the nodes cannot be listed
/// (403: the check is skipped, as submit's is). Nothing is asked when no GPU is requested.
std::optional<std::vector<Finding>> gpu_preflight(kube::Client& c, const k8s::Deployment& deployment);

/// The CPU and memory a server pod requests, against each node it may use (scheduling::node_fit)
/// less what the pods already bound there request (the kube-scheduler's NodeResourcesFit, with
/// the pods it would count): an error when no node has room for one pod, or when the nodes
/// together have room for fewer pods than the Deployment's replicas. The server's own pods
/// (an earlier rollout of the same name) are not counted: they are replaced. Nothing is found
/// when the pods request neither CPU nor memory. `pods` std::nullopt (listing them was
/// forbidden): the nodes' allocatable alone.
std::vector<Finding> capacity_findings(const k8s::Deployment& deployment, const std::vector<nlohmann::json>& nodes,
                                       const std::optional<std::vector<nlohmann::json>>& pods);

/// capacity_findings with the cluster's nodes and pods; nullopt when the nodes cannot be listed
/// (403: the check is skipped).
std::optional<std::vector<Finding>> capacity_preflight(kube::Client& c, const k8s::Deployment& deployment);

}  // namespace tfjob::serving

#if TFJOB_SDK_DEFINE_SERVING
#include <tfjob/serving/impl/preflight_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_SERVING
