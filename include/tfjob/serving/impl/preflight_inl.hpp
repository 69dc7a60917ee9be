#pragma once
/// \file The bodies of <tfjob/serving/preflight.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_SERVING` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/serving/preflight.hpp>, never this file.

namespace tfjob::serving {

TFJOB_INLINE nlohmann::json gpu_view(const k8s::Deployment& deployment) {
  return {{"metadata", {{"name", ""}, {"namespace", deployment.metadata.namespace_}}},
          {"spec",
           {{"tfReplicaSpecs",
             {{"Server",
               {{"replicas", deployment.spec.replicas.value_or(1)},
                {"template", nlohmann::json(deployment.spec.template_)}}}}}}}};
}

TFJOB_INLINE std::vector<Finding> gpu_findings(const k8s::Deployment& deployment, const std::vector<nlohmann::json>& nodes,
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
      s.message = "the " + std::to_string(deployment.spec.replicas.value_or(1)) + " replicas ask for " +
                  std::to_string(g.job_total) + " nvidia.com/gpu in total but only " + std::to_string(g.cluster_free) +
                  " are free on the nodes they may use right now; some pods will wait in Pending until GPUs free up.\n" +
                  workflow::gpu_nodes_table(g.nodes);
    out.push_back(std::move(s));
  }
  return out;
}

namespace detail {

/// Every node and, when readable, every pod not yet ended (what the kube-scheduler counts on
/// a node); nullopt when the nodes cannot be listed (403).
TFJOB_INLINE std::optional<std::pair<std::vector<nlohmann::json>, std::optional<std::vector<nlohmann::json>>>> nodes_and_pods(
    kube::Client& c) {
  std::vector<nlohmann::json> nodes;
  try {
    nodes = workflow::list_nodes(c);
  } catch (const api_error& e) {
    if (e.is_forbidden()) return std::nullopt;
    throw;
  }
  std::optional<std::vector<nlohmann::json>> pods;
  try {
    pods = workflow::list_active_pods(c);
  } catch (const api_error& e) {
    if (!e.is_forbidden()) throw;
  }
  return std::make_pair(std::move(nodes), std::move(pods));
}

}  // namespace detail

TFJOB_INLINE std::optional<std::vector<Finding>> gpu_preflight(kube::Client& c, const k8s::Deployment& deployment) {
  if (workflow::gpu_preflight(gpu_view(deployment), {}, std::nullopt).job_total == 0) return std::vector<Finding>{};
  auto np = detail::nodes_and_pods(c);
  if (!np) return std::nullopt;
  return gpu_findings(deployment, np->first, np->second);
}

TFJOB_INLINE std::vector<Finding> capacity_findings(const k8s::Deployment& deployment, const std::vector<nlohmann::json>& nodes,
                                                    const std::optional<std::vector<nlohmann::json>>& pods) {
  using nlohmann::json;
  const k8s::PodSpec& pod_spec = deployment.spec.template_.spec;
  auto req = scheduling::pod_requests(pod_spec);
  const double cpu = req.count("cpu") ? req["cpu"] : 0.0, mem = req.count("memory") ? req["memory"] : 0.0;
  if (cpu <= 0 && mem <= 0) return {};
  const int replicas = deployment.spec.replicas.value_or(1);
  const std::string& server = deployment.metadata.name;
  const std::string& ns = deployment.metadata.namespace_;
  auto mine = [&](const k8s::Pod& p) {  // a pod of this server's earlier rollout
    return p.metadata.namespace_ == ns && p.metadata.label(keys::instance) == server &&
           p.metadata.label(keys::name) == "tensorflow-serving";
  };
  std::vector<k8s::Pod> typed_pods;  // decoded once, not once per node
  if (pods)
    for (const auto& p : *pods)
      if (p.is_object()) typed_pods.push_back(tfjob::detail::from_json_of<k8s::Pod>(p));
  std::vector<std::string> rows;
  int room = 0;
  bool any_usable = false;
  for (const auto& nj : nodes) {
    const k8s::Node n = tfjob::detail::decoded<k8s::Node>(nj);  // decoded once per node
    if (!scheduling::node_fit(pod_spec, n).ok()) continue;
    any_usable = true;
    const std::string& name = n.metadata.name;
    auto alloc = scheduling::allocatable(n);
    double used_cpu = 0, used_mem = 0;
    if (pods)
      for (const auto& p : typed_pods) {
        if (p.spec.node_name != name || mine(p)) continue;
        if (p.status.phase == "Succeeded" || p.status.phase == "Failed") continue;
        auto r = scheduling::pod_requests(p.spec);
        used_cpu += r.count("cpu") ? r["cpu"] : 0.0;
        used_mem += r.count("memory") ? r["memory"] : 0.0;
      }
    const double free_cpu = (alloc.count("cpu") ? alloc["cpu"] : 0.0) - used_cpu;
    const double free_mem = (alloc.count("memory") ? alloc["memory"] : 0.0) - used_mem;
    int fits = 1 << 20;
    if (cpu > 0) fits = std::min(fits, free_cpu < cpu ? 0 : static_cast<int>(free_cpu / cpu + 1e-9));
    if (mem > 0) fits = std::min(fits, free_mem < mem ? 0 : static_cast<int>(free_mem / mem + 1e-9));
    room += fits;
    rows.push_back("node " + name + ": allocatable " + cpu_text(static_cast<std::int64_t>((alloc.count("cpu") ? alloc["cpu"] : 0.0) * 1000 + 0.5)) +
                   " CPU, " + mib_text(static_cast<std::int64_t>(alloc.count("memory") ? alloc["memory"] : 0.0)) + "; its pods request " +
                   cpu_text(static_cast<std::int64_t>(used_cpu * 1000 + 0.5)) + ", " + mib_text(static_cast<std::int64_t>(used_mem)) +
                   "; free " + cpu_text(static_cast<std::int64_t>(free_cpu * 1000 + 0.5)) + ", " +
                   mib_text(static_cast<std::int64_t>(free_mem)) + (pods ? "" : " (the pods could not be listed)"));
  }
  const std::string each = "each server pod requests " + cpu_text(static_cast<std::int64_t>(cpu * 1000 + 0.5)) + " CPU and " +
                           mib_text(static_cast<std::int64_t>(mem)) + " of memory";
  std::vector<Finding> out;
  if (!any_usable) return out;  // the selector and taints: the GPU preflight and the scheduler say it
  if (room == 0 || room < replicas) {
    Finding f(Finding::Severity::error,
              room == 0 ? each + " but no node it may use has that much free, so its pods would stay Pending"
                        : each + " and the " + std::to_string(replicas) + " replicas need room for " + std::to_string(replicas) +
                              " but the nodes it may use have room for " + std::to_string(room) + ", so the rest would stay Pending");
    f.code = "ServerFitsNoNode";
    f.evidence = rows;
    f.fix = "request less (" + setting::serve_cpu + ", " + setting::serve_memory + "), fewer replicas (" + setting::serve_replicas +
            "), or free the node";
    out.push_back(std::move(f));
  }
  return out;
}

TFJOB_INLINE std::optional<std::vector<Finding>> capacity_preflight(kube::Client& c, const k8s::Deployment& deployment) {
  auto np = detail::nodes_and_pods(c);
  if (!np) return std::nullopt;
  return capacity_findings(deployment, np->first, np->second);
}

}  // namespace tfjob::serving
