#pragma once
/// \file serve's GPU preflight, before anything is applied: submit's GPU check
/// (workflow::gpu_preflight: nodes exposing nvidia.com/gpu, the kube-scheduler's node filter
/// by nodeSelector, affinity and tolerations, GPUs held by running pods) run on the server's
/// pod template, its findings worded for a model server (replicas and --gpus per replica).

#include <tfjob/detail/compiled.hpp>
#include <tfjob/detail/json.hpp>
#include <tfjob/kube/client.hpp>
#include <tfjob/workflow/cluster.hpp>
#include <tfjob/workflow/preflight.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>  // std::max
#include <optional>
#include <string>
#include <vector>

namespace tfjob::serving {

/// The Deployment's pods as the one replica type gpu_preflight reads (it looks only at
/// tfReplicaSpecs.*.{replicas, template}); named "Server".
nlohmann::json gpu_view(const nlohmann::json& deployment);

/// Pure: the GPU findings for a Deployment given every node and (when readable) every pod.
/// Errors: no GPU node, no GPU node the pods may use, more GPUs per replica than any such
/// node has; a warning when the replicas together need more than is free now.
std::vector<Finding> gpu_findings(const nlohmann::json& deployment, const std::vector<nlohmann::json>& nodes,
                                  const std::optional<std::vector<nlohmann::json>>& pods);

/// gpu_findings with the cluster's nodes and pods; nullopt when the nodes cannot be listed
/// (403: the check is skipped, as submit's is). Nothing is asked when no GPU is requested.
std::optional<std::vector<Finding>> gpu_preflight(kube::Client& c, const nlohmann::json& deployment);

}  // namespace tfjob::serving

#if TFJOB_SDK_DEFINE_SERVING
namespace tfjob::serving {

TFJOB_INLINE nlohmann::json gpu_view(const nlohmann::json& deployment) {
  return {{"metadata", {{"name", ""}, {"namespace", tfjob::detail::value_at(deployment, "/metadata/namespace"_json_pointer, std::string())}}},
          {"spec",
           {{"tfReplicaSpecs",
             {{"Server",
               {{"replicas", tfjob::detail::value_at(deployment, "/spec/replicas"_json_pointer, 1)},
                {"template", tfjob::detail::value_at(deployment, "/spec/template"_json_pointer, nlohmann::json::object())}}}}}}}};
}

TFJOB_INLINE std::vector<Finding> gpu_findings(const nlohmann::json& deployment, const std::vector<nlohmann::json>& nodes,
                                               const std::optional<std::vector<nlohmann::json>>& pods) {
  const auto g = workflow::gpu_preflight(gpu_view(deployment), nodes, pods);
  std::vector<Finding> out;
  const std::string per = std::to_string(g.job_max_per_pod);
  for (const auto& f : g.findings) {
    Finding s = f;
    s.replica.clear();
    if (f.code == "NoGpuNodes") {
      s.message = "each replica asks for " + per + " nvidia.com/gpu but no node in the cluster exposes nvidia.com/gpu: the NVIDIA "
                  "device plugin is missing or not running";
      s.fix = "diagnose the GPU nodes (" + setting::gpu_check + "), or serve on CPUs (" + setting::serve_gpus + " 0, the CPU image)";
    } else if (f.code == "NoNodeMatches") {
      s.message = "no GPU node matches the server's node selector and tolerations, so its pods would stay Pending forever. "
                  "GPU nodes:\n" + workflow::gpu_nodes_table(g.nodes);
      s.fix = "fix the node selector (" + setting::serve_node_selector + ") or add the tolerations those nodes need (" + setting::serve_tolerations + ")";
    } else if (f.code == "RequestFitsNoNode") {
      long long most = 0;
      for (const auto& n : g.nodes)
        if (n.schedulable) most = std::max(most, n.allocatable);
      s.message = "each replica asks for " + per + " nvidia.com/gpu but no schedulable node it may use can allocate more than " +
                  std::to_string(most) + "; its pods would stay Pending forever. GPU nodes:\n" + workflow::gpu_nodes_table(g.nodes);
      s.fix = "ask for fewer GPUs per replica (" + setting::serve_gpus + ") and more replicas (" + setting::serve_replicas + ") instead";
    } else if (f.code == "GpusBusy")
      s.message = "the " + std::to_string(tfjob::detail::value_at(deployment, "/spec/replicas"_json_pointer, 1)) + " replicas ask for " +
                  std::to_string(g.job_total) + " nvidia.com/gpu in total but only " + std::to_string(g.cluster_free) +
                  " are free on the nodes they may use right now; some pods will wait in Pending until GPUs free up.\n" +
                  workflow::gpu_nodes_table(g.nodes);
    out.push_back(std::move(s));
  }
  return out;
}

TFJOB_INLINE std::optional<std::vector<Finding>> gpu_preflight(kube::Client& c, const nlohmann::json& deployment) {
  if (workflow::gpu_preflight(gpu_view(deployment), {}, std::nullopt).job_total == 0) return std::vector<Finding>{};
  std::vector<nlohmann::json> nodes;
  try {
    nodes = workflow::list_items(c, workflow::resources::nodes(), "");
  } catch (const api_error& e) {
    if (e.is_forbidden()) return std::nullopt;
    throw;
  }
  std::optional<std::vector<nlohmann::json>> pods;
  try {
    kube::ListParams p;
    p.field_selector = "status.phase!=Succeeded,status.phase!=Failed";
    pods = workflow::list_items(c, workflow::resources::pods(), "", p);
  } catch (const api_error& e) {
    if (!e.is_forbidden()) throw;
  }
  return gpu_findings(deployment, nodes, pods);
}

}  // namespace tfjob::serving
#endif  // TFJOB_SDK_DEFINE_SERVING
