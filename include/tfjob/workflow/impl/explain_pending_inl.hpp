#pragma once
/// \file The bodies of <tfjob/workflow/explain_pending.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_WORKFLOW` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/workflow/explain_pending.hpp>, never this file.

namespace tfjob::workflow::detail {

/// A Pending pod: what the scheduler, the kubelet or a gang scheduler says holds it back.
TFJOB_INLINE void Explainer::pending(const k8s::Pod& pod, const PodInfo& i, const std::string& type, const std::string& who) {
  const auto why = pending_reason(pod, in.events);
  if (why && (why->reason == "FailedScheduling" || why->reason == "Unschedulable")) return unschedulable(pod, i, type, who, *why);
  if (why && words::image_pull_problem(why->reason)) return image_pull_failed(pod, type, who, *why);
  // a pod a gang scheduler holds back: no default-scheduler verdict, another scheduler's name
  const std::string sched = pod.spec.scheduler_name.empty() ? std::string("default-scheduler") : pod.spec.scheduler_name;
  if ((sched != "default-scheduler" || rp.scheduling_policy) && i.node.empty()) return gang_not_satisfied(type, who, sched);
  if (why) not_started(i, type, who, *why);
}

/// The scheduler said no: a claim, too few GPUs, no node that matches, or its own words
/// (read in each minor's words, 1.20-1.36: api/cluster_words.hpp).
TFJOB_INLINE void Explainer::unschedulable(const k8s::Pod& pod, const PodInfo& i, const std::string& type, const std::string& who, const PendingReason& why) {
  const std::string& m = why.message;
  std::vector<std::string> ev = {who + ": " + why.reason + ": " + m};
  const auto w = words::read_scheduler_message(m);
  if (w.claim) return claims_not_bound(pod, type, who, m, ev);
  if (!w.insufficient.empty()) return insufficient(pod, i, type, who, m, w.insufficient.front(), ev);
  if (w.selector || w.taint) return no_node_matches(pod, type, who, w.taint && !w.selector, ev);
  urgent.push_back(finding(S::warning, "Unschedulable", type, who + " waits for the scheduler: " + m, ev,
                           w.enforced_affinity ? "the scheduler's profile adds a node affinity (addedAffinity) no node matches: "
                                                 "a cluster administrator's setting, not the job's"
                           : w.cordoned        ? "the nodes that would fit are cordoned (kubectl uncordon NODE)"
                                               : ""));
}

/// Which claim the pod waits for, and why it is not bound.
TFJOB_INLINE void Explainer::claims_not_bound(const k8s::Pod& pod, const std::string& type, const std::string& who, const std::string& m, std::vector<std::string> ev) {
  for (const auto& v : pod.spec.volumes) {
    if (!v.persistent_volume_claim) continue;
    const std::string& cn = v.persistent_volume_claim->claim_name;
    auto it = in.claims.find(cn);
    std::string reason;
    if (it == in.claims.end()) {
      reason = m.find("not found") != std::string::npos ? "it does not exist" : "";
    } else if (it->second.status.phase != "Bound") {
      const auto& pvc = it->second;
      reason = pvc_pending_reason(pvc, in.events);
      ev.push_back("persistentvolumeclaim/" + cn + ": " + (pvc.status.phase.empty() ? std::string("Pending") : pvc.status.phase) +
                   ", accessModes " + nlohmann::json(pvc.spec.access_modes).dump() + ", storageClassName " +
                   pvc.spec.storage_class_name.value_or("<none>"));
      if (reason.empty()) reason = "it is not bound yet";
    } else {
      continue;
    }
    urgent.push_back(finding(S::warning, "ClaimNotBound", type,
                             who + " waits for claim \"" + cn + "\": " + (reason.empty() ? "it is not bound" : reason), ev,
                             it == in.claims.end() ? "create the claim " + cn
                                                   : "give the claim a StorageClass that can provision it (or a matching PersistentVolume)"));
  }
}

/// Too little of a resource: for GPUs, the nodes that come closest.
TFJOB_INLINE void Explainer::insufficient(const k8s::Pod& pod, const PodInfo& i, const std::string& type, const std::string& who, const std::string& m,
                  const std::string& res, std::vector<std::string> ev) {
  if (in.nodes && res == "nvidia.com/gpu") {
    // the nodes that come closest: the most free GPUs among those the pod may use
    std::vector<std::pair<long long, std::string>> closest;
    for (const auto& n : *in.nodes) {
      if (!scheduling::node_fit(pod.spec, n).ok()) continue;
      const std::string& nn = n.metadata.name;
      const std::string a = n.allocatable(res);
      long long alloc = a.empty() ? 0 : integer_quantity(nlohmann::json(a));
      if (alloc <= 0) continue;
      long long used = 0;
      for (const auto& p : in.pods)
        if (p.spec.node_name == nn && p.status.phase != "Succeeded" && p.status.phase != "Failed") used += pod_spec_gpus(p.spec);
      closest.emplace_back(alloc - used, nn + ": allocatable " + std::to_string(alloc) + " " + res + ", " +
                                             std::to_string(used) + " taken by pods of this job");
    }
    std::stable_sort(closest.begin(), closest.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    for (size_t k = 0; k < closest.size() && k < 3; ++k) ev.push_back("node " + closest[k].second);
  }
  urgent.push_back(finding(S::warning, res == "nvidia.com/gpu" ? "InsufficientGpu" : "InsufficientResource", type,
                           who + " waits: no node it may use has " + std::to_string(i.gpus) + " free " + res +
                               (res == "nvidia.com/gpu" ? "" : " for it") + " (the scheduler: \"" + m + "\")",
                           ev, "wait for GPUs to free up, or ask for fewer GPUs per pod"));
}

/// No node matches the pod's nodeSelector/affinity, or every node has a taint it does not tolerate.
TFJOB_INLINE void Explainer::no_node_matches(const k8s::Pod& pod, const std::string& type, const std::string& who, bool taint, std::vector<std::string> ev) {
  if (in.nodes) {
    std::vector<scheduling::NodeFit> fits;
    for (const auto& n : *in.nodes) fits.push_back(scheduling::node_fit(pod.spec, n));
    std::stable_sort(fits.begin(), fits.end(), [](const auto& a, const auto& b) { return a.misses() < b.misses(); });
    for (size_t k = 0; k < fits.size() && k < 3; ++k) {
      if (fits[k].ok()) continue;
      std::vector<std::string> why_not;
      for (const auto& sm : fits[k].selector_misses) why_not.push_back("lacks " + sm);
      for (const auto& tt : fits[k].untolerated_taints) why_not.push_back("taint " + tt + " not tolerated");
      if (!fits[k].schedulable) why_not.push_back("cordoned");
      ev.push_back("node " + fits[k].node + ": " + detail::join(why_not));
    }
  }
  urgent.push_back(finding(S::warning, taint ? "TaintNotTolerated" : "NodeSelectorMismatch", type,
                           who + " waits: no node matches its " + (taint ? "tolerations (every node has a taint it does not tolerate)"
                                                                          : "nodeSelector/affinity") +
                               "; the closest nodes are listed",
                           ev, taint ? "add the toleration the closest node needs" : "fix the nodeSelector to labels a node has"));
}

/// The kubelet cannot pull the image.
TFJOB_INLINE void Explainer::image_pull_failed(const k8s::Pod& pod, const std::string& type, const std::string& who, const PendingReason& why) {
  std::string image;
  for (const auto& c : pod.spec.containers)
    if (c.name == "tensorflow" || image.empty()) image = c.image;
  urgent.push_back(finding(S::warning, "ImagePullFailed", type,
                           who + " cannot pull image " + image + (why.message.empty() ? "" : ": " + why.message),
                           {who + ": " + why.reason}, "check the image name and tag, and the pull secret for a private registry"));
}

/// A gang scheduler holds the pod back until the whole job fits.
TFJOB_INLINE void Explainer::gang_not_satisfied(const std::string& type, const std::string& who, const std::string& sched) {
  std::vector<std::string> ev = {who + ": schedulerName " + sched};
  const auto& sp = rp.scheduling_policy;
  std::string min = sp && sp->min_available ? std::to_string(*sp->min_available) : "";
  for (const auto& e : in.events)
    if (e.involved_object.kind == "PodGroup" && e.involved_object.name.find(s.name) != std::string::npos)
      ev.push_back("podgroup event " + e.reason + ": " + e.message);
  int total = 0;
  for (const auto& [t, n] : s.spec_replicas) total = bounded_sum(total, n);
  urgent.push_back(finding(S::warning, "GangNotSatisfied", type,
                           who + " waits for the gang scheduler (" + sched + "): its PodGroup places the job's pods only " +
                               "all together (minAvailable " + (min.empty() ? std::to_string(total) : min) +
                               "), and the cluster cannot fit them all yet, so none starts (training-operator #948)",
                           ev, "free room for the whole job, or lower minAvailable in runPolicy.schedulingPolicy"));
}

/// Scheduled, not started: a mount that fails is in the pod's events.
TFJOB_INLINE void Explainer::not_started(const PodInfo& i, const std::string& type, const std::string& who, const PendingReason& why) {
  std::vector<std::string> ev = {who + ": " + why.reason + (why.message.empty() ? "" : " (" + why.message + ")")};
  std::string code = "ContainerWaiting";
  std::string msg = who + " is scheduled on " + i.node + " but not started: " + why.reason;
  for (const auto& e : events_for(in.events, "Pod", i.name, i.uid)) {
    if (e.reason == "FailedMount" || e.reason == "FailedAttachVolume") {
      code = "VolumeAttachFailed";
      msg = who + " cannot mount its volumes on " + i.node + ": " + e.message;
      ev.push_back("event " + e.reason + ": " + e.message);
    }
  }
  urgent.push_back(finding(S::warning, code.c_str(), type, msg, ev));
}

}  // namespace tfjob::workflow::detail
