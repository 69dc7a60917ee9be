#pragma once
/// \file The bodies of <tfjob/gpu/check/run.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_GPU` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/gpu/check/run.hpp>, never this file.

namespace tfjob::gpu {

namespace detail {
TFJOB_INLINE std::string random_run_id() {
  std::random_device rd;
  const char* alnum = "abcdefghijklmnopqrstuvwxyz0123456789";
  std::string id;
  for (int i = 0; i < 5; ++i) id += alnum[rd() % 36];
  return id;
}

TFJOB_INLINE std::vector<k8s::Pod> pods_with(kube::Client& client, const std::string& sel, std::vector<std::string>& notes) {
  try {
    kube::ListParams lp;
    lp.label_selector = sel;
    return kube::Api<k8s::Pod>::all(client).list(lp).items;
  } catch (const tfjob::error& e) {
    notes.push_back("cannot list pods " + sel + " in all namespaces: " + e.what());
    return {};
  }
}

TFJOB_INLINE void note_cluster_components(kube::Client& client, CheckResult& res) {
  std::vector<k8s::Pod> plugin;
  for (const auto& sel : device_plugin_selectors())
    for (auto& p : pods_with(client, sel, res.cluster_notes)) plugin.push_back(std::move(p));
  auto validators = pods_with(client, validator_selector, res.cluster_notes);
  for (auto& n : note_gpu_components(res.inventory, plugin, validators)) res.cluster_notes.push_back(std::move(n));
}

TFJOB_INLINE void tell_inventory(const CheckResult& res, const CheckOptions& o) {
  for (const auto& n : res.cluster_notes) tell(o, "cluster: " + n);
  for (const auto& g : res.inventory) {
    std::string drv = g.driver_version.empty() ? "driver unknown" : "driver " + g.driver_version;
    tell(o, g.name + ": " + std::to_string(g.allocatable) + "/" + std::to_string(g.capacity) + " GPUs allocatable, " +
                (g.requested > 0 ? std::to_string(g.requested) + " held by " + std::to_string(g.gpu_pods) + " pod" +
                                       (g.gpu_pods == 1 ? "" : "s") + ", "
                                 : std::string()) +
                (g.product().empty() ? "model unknown" : g.product()) + ", " + drv +
                (g.architecture.empty() ? "" : " (" + g.architecture + ")"));
    for (const auto& n : g.notes) tell(o, g.name + ": " + n);
  }
}

TFJOB_INLINE void require_nodes(const std::set<std::string>& known, const std::vector<std::string>& wanted) {
  for (const auto& want : wanted)
    if (!known.count(want)) throw tfjob::error("node \"" + want + "\" not found");
}

TFJOB_INLINE std::vector<std::size_t> choose_targets(CheckResult& res, const CheckOptions& o) {
  std::vector<std::size_t> probing;  // indices into res.nodes
  for (const auto& g : res.inventory) {
    if (!o.nodes.empty() && std::find(o.nodes.begin(), o.nodes.end(), g.name) == o.nodes.end()) continue;
    NodeResult r;
    r.node = g;
    if (!g.problem.empty()) {
      r.status = NodeStatus::not_ready;
      r.message = g.problem;
      tell(o, g.name + ": not probed: " + g.problem);
    } else if (o.gpus > 0 && o.gpus > g.allocatable) {
      r.status = NodeStatus::skipped;
      r.message = setting::check_gpus + " " + std::to_string(o.gpus) + " but the node allocates " + std::to_string(g.allocatable);
      tell(o, g.name + ": skipped: " + r.message);
    } else {
      r.pod = probe_pod(g, o, res.run_id).metadata.name;
      probing.push_back(res.nodes.size());
      const std::int64_t asks = o.gpus > 0 ? o.gpus : g.allocatable;
      if (g.requested > 0 && asks > g.free())
        tell(o, g.name + ": the probe asks for " + std::to_string(asks) + " GPUs and " + std::to_string(g.free()) +
                    " are free: it waits until pods holding GPUs there end (or probe fewer: " + setting::check_gpus + ")");
    }
    res.nodes.push_back(std::move(r));
  }
  return probing;
}

}  // namespace detail

TFJOB_INLINE CheckResult read_inventory(kube::Client client, const CheckOptions& o) {
  CheckResult res;
  // the nodes in one paged pass, then the pods holding GPUs in another (each page summed per
  // node as it arrives): what the inventory costs is linear in the cluster, its memory in nodes
  std::set<std::string> names;
  res.inventory = read_gpu_inventory(client, {}, o.nodes.empty() ? nullptr : &names);
  if (!res.inventory.empty()) {
    try {
      note_gpu_use(res.inventory, read_gpu_use(client));
    } catch (const api_error& e) {
      if (!e.is_forbidden()) throw;
      res.cluster_notes.push_back("cannot list pods in all namespaces (403): GPUs already held by pods are not known");
    }
    detail::note_cluster_components(client, res);
    detail::tell_inventory(res, o);
  }
  if (!o.nodes.empty()) detail::require_nodes(names, o.nodes);
  return res;
}

TFJOB_INLINE CheckResult run_gpu_check(kube::Client client, const CheckOptions& o) {
  CheckResult res = read_inventory(client, o);
  res.run_id = o.run_id.empty() ? detail::random_run_id() : o.run_id;
  const std::string ns = o.namespace_.empty() ? client.namespace_() : o.namespace_;
  VerdictOptions vopt;
  if (!o.expect.empty()) vopt.expect = normalize_expect(o.expect);
  vopt.strict = o.strict;
  CheckOptions po = o;  // the probe pods' options: the expected family normalised
  po.expect = vopt.expect;

  const std::vector<std::size_t> probing = detail::choose_targets(res, po);
  if (res.inventory.empty()) detail::tell(o, "no node offers nvidia.com/gpu or looks like a GPU node");

  kube::Api<k8s::Pod> pods(client, ns);
  std::vector<std::string> created;
  detail::ProbeCleanup cleanup{pods, created, o.keep, o.progress};  // whatever happens next
  detail::create_probe_pods(pods, res, probing, po, ns, created);
  detail::ProbeFollower(client, ns, o, vopt, res, probing).run(pods);
  return res;
}

}  // namespace tfjob::gpu
