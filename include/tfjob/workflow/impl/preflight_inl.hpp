#pragma once
/// \file The bodies of <tfjob/workflow/preflight.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_WORKFLOW` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/workflow/preflight.hpp>, never this file.

namespace tfjob::workflow {

TFJOB_INLINE std::string crd_missing_message(const std::string& server) {
  std::string s = "the cluster";
  if (!server.empty()) s += " at " + kube::redact_url(server);
  s += " does not serve TFJobs (kubeflow.org/v1, resource tfjobs): the Kubeflow training operator "
       "is not installed.\nInstall training operator v1.9 with:\n  ";
  s += operator_install_command;
  s += "\nthen wait for it: kubectl -n kubeflow rollout status deployment/training-operator";
  return s;
}

TFJOB_INLINE std::string gpu_nodes_table(const std::vector<GpuNode>& nodes) {
  std::vector<std::vector<std::string>> rows{{"NODE", "CAPACITY", "ALLOCATABLE", "REQUESTED", "FREE"}};
  for (const auto& n : nodes)
    rows.push_back({n.name + (n.schedulable ? "" : " (cordoned)"), std::to_string(n.capacity), std::to_string(n.allocatable),
                    std::to_string(n.requested), std::to_string(n.free())});
  return tfjob::detail::render_table(rows, "  ");
}

namespace detail {

/// What one replica type asks of a GPU node: GPUs per pod, and its pod template's spec
/// (for scheduling::node_fit).
struct GpuTypeNeed {
  std::string type;
  long long per_pod = 0;
  k8s::PodSpec pod_spec;  ///< what scheduling::node_fit reads of it, decoded once
};

/// The job's GPU totals (into `r`) and the replica types that ask for GPUs.
TFJOB_INLINE std::vector<GpuTypeNeed> gpu_needs_by_type(const TFJob& job, GpuPreflight& r) {
  std::vector<GpuTypeNeed> per_type;
  for (const auto& [type, rs] : job.spec.tf_replica_specs) {
    const nlohmann::json* spec_json = tfjob::detail::json_at(rs.template_, "spec");
    auto spec = scheduling::detail::served_pod_spec(spec_json ? *spec_json : nlohmann::json());  // not the containers' env
    const long long per_pod = pod_spec_gpus(spec);
    const long long replicas = bounded_count(rs.replicas_or_default());
    r.job_total = bounded_count(static_cast<long double>(r.job_total) + static_cast<long double>(per_pod) * replicas);
    r.job_max_per_pod = std::max(r.job_max_per_pod, per_pod);
    if (per_pod > 0) per_type.push_back({type, per_pod, std::move(spec)});
  }
  return per_type;
}

/// Orders `nodes` by name, and their objects `objs` (same positions) with them.
TFJOB_INLINE void sort_gpu_nodes(std::vector<GpuNode>& nodes, std::vector<const k8s::Node*>& objs) {
  std::vector<size_t> order(nodes.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return nodes[a].name < nodes[b].name; });
  {
    std::vector<GpuNode> sorted;
    std::vector<const k8s::Node*> node_objs;
    for (size_t i : order) { sorted.push_back(nodes[i]); node_objs.push_back(objs[i]); }
    nodes = std::move(sorted);
    objs = std::move(node_objs);
  }
}

/// The nodes exposing `resource`, by name, into `r.nodes` (what the pods on each ask for,
/// but the job's own pods); returns their objects, in the same order.
TFJOB_INLINE std::vector<const k8s::Node*> collect_gpu_nodes(const TFJob& job, const std::vector<k8s::Node>& nodes,
                                                             const std::optional<std::vector<k8s::Pod>>& all_pods,
                                                             const std::string& resource, GpuPreflight& r) {
  const std::string& job_name = job.metadata.name;
  const std::string& job_ns = job.metadata.namespace_;
  auto own_pod = [&](const k8s::Pod& p) {
    if (job_name.empty() || p.metadata.namespace_ != job_ns) return false;
    return p.metadata.label(labels::job_name) == job_name;
  };
  // a quantity as the server wrote it ("4"), or 0 when the node has none
  auto quantity = [](const std::string& q) { return q.empty() ? 0LL : integer_quantity(nlohmann::json(q)); };
  // what the other pods hold on each node, in one pass over them (not one per node)
  std::unordered_map<std::string, long long> held;
  if (all_pods)
    for (const auto& p : *all_pods) {
      const std::string& node = p.spec.node_name;
      if (node.empty()) continue;
      const std::string& phase = p.status.phase;
      if (phase == "Succeeded" || phase == "Failed") continue;
      if (own_pod(p)) continue;
      held[node] += pod_spec_gpus(p.spec, resource);
    }
  std::vector<const k8s::Node*> gpu_node_objs;
  for (const auto& n : nodes) {
    GpuNode g;
    g.name = n.metadata.name;
    g.capacity = quantity(n.capacity(resource));
    g.allocatable = quantity(n.allocatable(resource));
    if (g.capacity <= 0 && g.allocatable <= 0) continue;
    g.schedulable = !n.spec.unschedulable;
    if (auto h = held.find(g.name); h != held.end()) g.requested = h->second;
    r.nodes.push_back(g);
    gpu_node_objs.push_back(&n);
  }
  sort_gpu_nodes(r.nodes, gpu_node_objs);
  return gpu_node_objs;
}

/// The NoGpuNodes error: no node exposes `resource`.
TFJOB_INLINE Finding no_gpu_nodes_finding(long long job_total, const std::string& resource) {
  Finding f{Finding::Severity::error,
            "the job asks for " + std::to_string(job_total) + " " + resource +
                " but no node in the cluster exposes " + resource +
                ": the NVIDIA device plugin is missing or not running (install the NVIDIA GPU "
                "operator or device plugin)"};
  f.code = "NoGpuNodes";
  f.fix = "diagnose the GPU nodes (" + setting::gpu_check + "), or ask for no GPU (" + setting::builder_gpus + " 0) to train on CPUs";
  return f;
}

/// The NoNodeMatches error for replica `type`, naming the (at most 3) GPU nodes it misses least.
TFJOB_INLINE Finding no_node_matches_finding(const std::string& type, std::vector<scheduling::NodeFit> fits) {
  std::stable_sort(fits.begin(), fits.end(), [](const auto& a, const auto& b) { return a.misses() < b.misses(); });
  std::string closest;
  for (size_t i = 0; i < fits.size() && i < 3; ++i) {
    std::string why;
    for (const auto& m : fits[i].selector_misses) why += (why.empty() ? "" : ", ") + std::string("lacks ") + m;
    for (const auto& x : fits[i].untolerated_taints) why += (why.empty() ? "" : ", ") + std::string("taint ") + x + " not tolerated";
    if (!fits[i].schedulable) why += (why.empty() ? "" : ", ") + std::string("cordoned");
    closest += "  " + fits[i].node + ": " + why + "\n";
  }
  Finding f{Finding::Severity::error,
            "no GPU node can take a " + type + " pod: none matches its nodeSelector, node affinity and tolerations, "
            "so its pods would stay Pending forever. The closest GPU nodes:\n" + closest +
            "Fix the nodeSelector or add the toleration those nodes need."};
  f.code = "NoNodeMatches";
  f.replica = type;
  return f;
}

/// Which GPU nodes the replica types may use, and the types whose pods ask for more than
/// any of them can allocate.
struct GpuFitScan {
  std::vector<bool> usable;                               ///< per node (r.nodes): some type may use it
  std::map<long long, std::vector<std::string>> too_big;  // max allocatable -> types (one finding each)
  std::map<long long, long long> too_big_need;
};

/// Each type against each GPU node (scheduling::node_fit); a type no node fits gets its
/// NoNodeMatches error in `r.findings`.
TFJOB_INLINE GpuFitScan scan_gpu_fits(const std::vector<GpuTypeNeed>& per_type, const std::vector<const k8s::Node*>& gpu_node_objs,
                                      GpuPreflight& r) {
  // the GPU nodes each type may use; the free GPUs on the nodes any type may use
  GpuFitScan s;
  s.usable.assign(r.nodes.size(), false);
  for (const auto& t : per_type) {
    long long max_alloc = 0;
    bool any = false;
    std::vector<scheduling::NodeFit> fits;
    for (size_t i = 0; i < r.nodes.size(); ++i) {
      auto fit = scheduling::node_fit(t.pod_spec, *gpu_node_objs[i]);
      fits.push_back(fit);
      if (!fit.ok()) continue;
      any = true;
      s.usable[i] = true;
      max_alloc = std::max(max_alloc, r.nodes[i].allocatable);
    }
    if (!any) {
      r.findings.push_back(no_node_matches_finding(t.type, std::move(fits)));
      continue;
    }
    if (t.per_pod > max_alloc) {
      s.too_big[max_alloc].push_back(t.type);
      s.too_big_need[max_alloc] = std::max(s.too_big_need[max_alloc], t.per_pod);
    }
  }
  return s;
}

/// The RequestFitsNoNode errors: one per largest allocatable, naming the types that ask for more.
TFJOB_INLINE void add_request_fits_no_node(const GpuFitScan& s, const std::vector<GpuTypeNeed>& per_type, const std::string& resource,
                                           GpuPreflight& r) {
  for (const auto& [max_alloc, types] : s.too_big) {
    std::string who;
    for (size_t i = 0; i < types.size(); ++i) who += (i == 0 ? "" : i + 1 == types.size() ? " and " : ", ") + types[i];
    std::string asks;
    for (const auto& t : per_type)
      for (const auto& x : types)
        if (x == t.type) asks += (asks.empty() ? "" : ", ") + std::to_string(t.per_pod);
    Finding f{Finding::Severity::error,
              "each " + who + " pod asks for " + asks + " " + resource +
                  " but no schedulable node it may use can allocate more than " + std::to_string(max_alloc) +
                  "; its pods would stay Pending forever. GPU nodes:\n" + gpu_nodes_table(r.nodes)};
    f.code = "RequestFitsNoNode";
    f.fix = "ask for fewer GPUs per pod (" + setting::builder_gpus + ") and more workers (" + setting::builder_workers + ") instead";
    f.replica = types.size() == 1 ? types[0] : "";
    r.findings.push_back(f);
  }
}

/// The free GPUs on the usable nodes (`r.cluster_free`), and the GpusBusy warning when the
/// job asks for more and nothing fatal was found.
TFJOB_INLINE void add_gpus_busy_warning(const std::vector<bool>& usable, bool pods_listed, const std::string& resource, GpuPreflight& r) {
  for (size_t i = 0; i < r.nodes.size(); ++i)
    if (usable[i] && r.nodes[i].schedulable) r.cluster_free += r.nodes[i].free();
  bool fatal = std::any_of(r.findings.begin(), r.findings.end(), [](const Finding& f) { return f.is_error(); });
  if (!fatal && r.job_total > r.cluster_free) {
    Finding f{Finding::Severity::warning,
              "the job asks for " + std::to_string(r.job_total) + " " + resource + " in total but only " +
                  std::to_string(r.cluster_free) + " are free" +
                  (pods_listed ? std::string() : std::string(" (allocatable; pods could not be listed)")) +
                  " on the nodes it may use right now; some pods will wait in Pending until GPUs free up.\n" +
                  gpu_nodes_table(r.nodes)};
    f.code = "GpusBusy";
    r.findings.push_back(f);
  }
}

}  // namespace detail

TFJOB_INLINE GpuPreflight gpu_preflight(const nlohmann::json& job, const std::vector<nlohmann::json>& nodes,
                                        const std::optional<std::vector<nlohmann::json>>& all_pods,
                                        const std::string& resource) {
  std::optional<std::vector<k8s::Pod>> pods;
  if (all_pods) pods = tfjob::detail::decode_each<k8s::Pod>(*all_pods);
  return gpu_preflight(tfjob::detail::decoded<TFJob>(job), tfjob::detail::decode_each<k8s::Node>(nodes), pods, resource);
}

TFJOB_INLINE GpuPreflight gpu_preflight(const TFJob& job, const std::vector<k8s::Node>& nodes,
                                        const std::optional<std::vector<k8s::Pod>>& all_pods,
                                        const std::string& resource) {
  GpuPreflight r;
  const auto per_type = detail::gpu_needs_by_type(job, r);
  const auto gpu_node_objs = detail::collect_gpu_nodes(job, nodes, all_pods, resource, r);
  if (r.job_total == 0) {
    for (const auto& g : r.nodes) if (g.schedulable) r.cluster_free += g.free();
    return r;
  }

  if (r.nodes.empty()) {
    r.findings.push_back(detail::no_gpu_nodes_finding(r.job_total, resource));
    return r;
  }
  const auto fits = detail::scan_gpu_fits(per_type, gpu_node_objs, r);
  detail::add_request_fits_no_node(fits, per_type, resource, r);
  detail::add_gpus_busy_warning(fits.usable, all_pods.has_value(), resource, r);
  return r;
}

TFJOB_INLINE std::optional<Finding> tf2_master_warning(const nlohmann::json& job) {
  auto v = tfjob::lint::master_with_tf2(job);
  if (v.empty()) return std::nullopt;
  return v.front();
}

}  // namespace tfjob::workflow
