#pragma once
/// \file The bodies of <tfjob/workflow/queues.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_WORKFLOW` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/workflow/queues.hpp>, never this file.

namespace tfjob::workflow {

namespace resources {

TFJOB_INLINE kube::ResourceInfo kueue_local_queues() { return {"kueue.x-k8s.io", "v1beta1", "localqueues", "LocalQueue", true}; }
TFJOB_INLINE kube::ResourceInfo kueue_cluster_queues() { return {"kueue.x-k8s.io", "v1beta1", "clusterqueues", "ClusterQueue", false}; }
TFJOB_INLINE kube::ResourceInfo kueue_workloads() { return {"kueue.x-k8s.io", "v1beta1", "workloads", "Workload", true}; }
TFJOB_INLINE kube::ResourceInfo volcano_pod_groups() { return {"scheduling.volcano.sh", "v1beta1", "podgroups", "PodGroup", true}; }
TFJOB_INLINE kube::ResourceInfo volcano_queues() { return {"scheduling.volcano.sh", "v1beta1", "queues", "Queue", false}; }
TFJOB_INLINE kube::ResourceInfo scheduler_plugins_pod_groups() { return {"scheduling.x-k8s.io", "v1alpha1", "podgroups", "PodGroup", true}; }
TFJOB_INLINE kube::ResourceInfo leases() { return {"coordination.k8s.io", "v1", "leases", "Lease", true}; }

}  // namespace resources

TFJOB_INLINE QueueSystems detect_queue_systems(kube::Client& c) {
  QueueSystems q;
  auto has = [&](const kube::ResourceInfo& r) {
    try {
      return kube::serves(c, r.group, r.version, r.plural);
    } catch (const api_error& e) {
      if (!e.is_forbidden()) throw;
      q.known = false;
      return false;
    }
  };
  q.kueue = has(resources::kueue_local_queues()) && has(resources::kueue_cluster_queues()) && has(resources::kueue_workloads());
  q.volcano = has(resources::volcano_pod_groups()) && has(resources::volcano_queues());
  q.scheduler_plugins = has(resources::scheduler_plugins_pod_groups());
  return q;
}

TFJOB_INLINE std::optional<bool> scheduler_seen(kube::Client& c, const std::string& name) {
  bool readable = false;
  try {
    bool found = false;
    kube::Api<k8s::Lease>(c, resources::leases(), "").list_pages({}, [&](kube::ObjectList<k8s::Lease>& page) {
      for (const auto& l : page.items) found = found || l.metadata.name == name;
      return !found;
    });
    if (found) return true;
    readable = true;
  } catch (const api_error& e) {
    if (!e.is_forbidden() && !e.is_not_found()) throw;
  }
  try {
    bool found = false;
    kube::Api<k8s::Pod>(c, "kube-system").list_pages({}, [&](kube::ObjectList<k8s::Pod>& page) {
      for (const auto& p : page.items) found = found || p.metadata.name.rfind(name, 0) == 0;
      return !found;
    });
    if (found) return true;
    readable = true;
  } catch (const api_error& e) {
    if (!e.is_forbidden()) throw;
  }
  // a scheduler records its events as its schedulerName (kube-scheduler's per-profile
  // recorder; Volcano's "volcano"): one event from that source in any namespace is enough
  // (the core/v1 Event field selector `source`; events expire, so none proves nothing alone)
  try {
    kube::ListParams p;
    p.field_selector = "source=" + name;
    p.limit = 1;
    if (!kube::Api<k8s::Event>::all(c).list_page(p).items.empty()) return true;
    readable = true;
  } catch (const api_error& e) {
    if (!e.is_forbidden() && e.code() != 400) throw;  // 400: a server that cannot select events by source
  }
  return readable ? std::optional<bool>(false) : std::nullopt;
}

TFJOB_INLINE std::vector<Finding> check_queues(kube::Client& c, const std::string& ns, const TFJob& job) {
  QueueFacts f;
  f.systems = detect_queue_systems(c);
  const std::string local_queue = job.metadata.label(kueue_queue_name_label);
  if (f.systems.kueue && !local_queue.empty()) {
    try {
      auto lq = kube::Api<k8s::LocalQueue>(c, resources::kueue_local_queues(), ns).get_opt(local_queue);
      f.local_queue_exists = lq.has_value();
      if (lq) f.cluster_queue_name = lq->spec.cluster_queue;
      if (!f.cluster_queue_name.empty()) {
        f.cluster_queue = kube::Api<k8s::ClusterQueue>(c, resources::kueue_cluster_queues(), "").get_opt(f.cluster_queue_name);
        f.cluster_queue_missing = !f.cluster_queue;
      }
    } catch (const api_error& e) {
      if (!e.is_forbidden()) throw;  // a ClusterQueue a user may not read: its quota is unknown, nothing said
    }
  }
  if (const std::string sched = custom_scheduler(job); !sched.empty()) f.scheduler_found = scheduler_seen(c, sched);
  const auto& sp = job.spec.run_policy.scheduling_policy;
  const std::string queue = sp ? sp->queue : "";
  if (f.systems.volcano && !queue.empty()) {
    try {
      f.volcano_queue_exists = kube::Api<k8s::VolcanoQueue>(c, resources::volcano_queues(), "").get_opt(queue).has_value();
    } catch (const api_error& e) {
      if (!e.is_forbidden()) throw;  // forbidden: whether it exists is unknown
    }
  }
  if (job.metadata.namespace_ == ns) return queue_findings(job, f);  // no copy of its templates
  TFJob in_ns = job;
  in_ns.metadata.namespace_ = ns;
  return queue_findings(in_ns, f);
}

TFJOB_INLINE QueueState gather_queue_state(kube::Client& c, const std::string& ns, const TFJob& job) {
  QueueState q;
  QueueSystems sys;
  try {
    sys = detect_queue_systems(c);
  } catch (const tfjob::error&) {
    return q;
  }
  auto optional_read = [](auto fn) {
    try {
      fn();
    } catch (const tfjob::error&) {
      // 403, 404, or a server error: that fact stays unknown
    }
  };
  const std::string& name = job.metadata.name;
  if (sys.kueue) {
    optional_read([&] {
      // Kueue labels a job's Workload with the job's uid (kueue pkg/controller/constants:
      // JobUIDLabel), so one selector finds it in a namespace of any size; only when it finds
      // none (no Workload yet, or a Kueue older than the label) is the namespace's list read
      const std::string& uid = job.metadata.uid;
      kube::Api<k8s::Workload> workloads(c, resources::kueue_workloads(), ns);
      kube::ListParams lp;
      if (!uid.empty()) lp.label_selector = std::string(kueue_job_uid_label) + "=" + uid;
      for (auto& w : workloads.list(lp).items)
        if (detail::owned_by(w.metadata, job.metadata)) q.workloads.push_back(std::move(w));
      if (q.workloads.empty() && !uid.empty())
        for (auto& w : workloads.list().items)
          if (detail::owned_by(w.metadata, job.metadata)) q.workloads.push_back(std::move(w));
      q.workloads_read = true;
    });
    std::string lq = job.metadata.label(kueue_queue_name_label);
    if (!q.workloads.empty() && lq.empty()) lq = q.workloads.front().spec.queue_name;
    if (!lq.empty())
      optional_read([&] { q.local_queue = kube::Api<k8s::LocalQueue>(c, resources::kueue_local_queues(), ns).get_opt(lq); });
    std::string cq = q.local_queue ? q.local_queue->spec.cluster_queue : "";
    if (cq.empty() && !q.workloads.empty() && q.workloads.front().status.admission)
      cq = q.workloads.front().status.admission->cluster_queue;
    if (!cq.empty())
      optional_read([&] { q.cluster_queue = kube::Api<k8s::ClusterQueue>(c, resources::kueue_cluster_queues(), "").get_opt(cq); });
  }
  if (!name.empty() && sys.volcano)
    optional_read([&] {
      q.pod_group = kube::Api<k8s::PodGroup>(c, resources::volcano_pod_groups(), ns).get_opt(name);
      if (q.pod_group) q.pod_group_system = "Volcano";
    });
  if (!name.empty() && !q.pod_group && sys.scheduler_plugins)
    optional_read([&] {
      q.pod_group = kube::Api<k8s::PodGroup>(c, resources::scheduler_plugins_pod_groups(), ns).get_opt(name);
      if (q.pod_group) q.pod_group_system = "scheduler-plugins";
    });
  return q;
}

TFJOB_INLINE std::vector<k8s::Event> queue_events(kube::Client& c, const std::string& ns, const QueueState& q) {
  if (!q.pod_group) return {};
  try {
    return object_events(c, ns, "PodGroup", q.pod_group->metadata.name, q.pod_group->metadata.uid);
  } catch (const tfjob::error&) {
    return {};  // best effort, as the rest of the queue state
  }
}

}  // namespace tfjob::workflow
