#pragma once
/// \file The bodies of <tfjob/workflow/cluster/reads.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_WORKFLOW` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/workflow/cluster/reads.hpp>, never this file.

namespace tfjob::workflow {

namespace resources {

TFJOB_INLINE kube::ResourceInfo tfjobs() { return kube::resource_info<TFJob>(); }
TFJOB_INLINE kube::ResourceInfo pods() { return kube::resource_info<k8s::Pod>(); }
TFJOB_INLINE kube::ResourceInfo events() { return kube::resource_info<k8s::Event>(); }
TFJOB_INLINE kube::ResourceInfo nodes() { return kube::resource_info<k8s::Node>(); }
TFJOB_INLINE kube::ResourceInfo namespaces() { return kube::resource_info<k8s::Namespace>(); }
TFJOB_INLINE kube::ResourceInfo pvcs() { return kube::resource_info<k8s::PersistentVolumeClaim>(); }
TFJOB_INLINE kube::ResourceInfo configmaps() { return kube::resource_info<k8s::ConfigMap>(); }

}  // namespace resources

TFJOB_INLINE std::vector<nlohmann::json> list_items(kube::Client& c, const kube::ResourceInfo& res, const std::string& ns,
                                                    kube::ListParams p) {
  std::vector<nlohmann::json> out;
  kube::list_pages(c, kube::RequestBuilder(res, ns), std::move(p), [&](kube::ListPage& page) {
    for (auto& i : page.items) out.push_back(std::move(i));
    return true;
  });
  return out;
}

TFJOB_INLINE nlohmann::json node_facts(const nlohmann::json& node) {
  nlohmann::json f = nlohmann::json::object();
  auto copy = [](const nlohmann::json& from, nlohmann::json& to, std::initializer_list<const char*> keys) {
    if (!from.is_object()) return;
    for (const char* k : keys)
      if (auto it = from.find(k); it != from.end()) to[k] = *it;
  };
  copy(node, f, {"apiVersion", "kind"});
  if (auto md = node.find("metadata"); md != node.end() && md->is_object()) {
    f["metadata"] = nlohmann::json::object();
    copy(*md, f["metadata"], {"name", "uid", "resourceVersion", "creationTimestamp", "labels"});
  }
  if (auto sp = node.find("spec"); sp != node.end() && sp->is_object()) {
    f["spec"] = nlohmann::json::object();
    copy(*sp, f["spec"], {"taints", "unschedulable", "providerID"});
  }
  if (auto st = node.find("status"); st != node.end() && st->is_object()) {
    f["status"] = nlohmann::json::object();
    copy(*st, f["status"], {"capacity", "allocatable", "conditions", "nodeInfo"});
  }
  return f;
}

TFJOB_INLINE nlohmann::json pod_gpu_facts(const nlohmann::json& pod) {
  nlohmann::json f = nlohmann::json::object();
  auto copy = [](const nlohmann::json& from, nlohmann::json& to, std::initializer_list<const char*> keys) {
    if (!from.is_object()) return;
    for (const char* k : keys)
      if (auto it = from.find(k); it != from.end()) to[k] = *it;
  };
  copy(pod, f, {"apiVersion", "kind"});
  if (auto md = pod.find("metadata"); md != pod.end() && md->is_object()) {
    f["metadata"] = nlohmann::json::object();
    copy(*md, f["metadata"], {"name", "namespace", "uid", "labels"});
  }
  if (auto sp = pod.find("spec"); sp != pod.end() && sp->is_object()) {
    f["spec"] = nlohmann::json::object();
    copy(*sp, f["spec"], {"nodeName"});
    for (const char* list : {"containers", "initContainers"}) {
      auto cs = sp->find(list);
      if (cs == sp->end() || !cs->is_array()) continue;
      nlohmann::json kept = nlohmann::json::array();
      for (const auto& c : *cs) {
        nlohmann::json k = nlohmann::json::object();
        copy(c, k, {"name", "resources"});
        kept.push_back(std::move(k));
      }
      f["spec"][list] = std::move(kept);
    }
  }
  if (auto st = pod.find("status"); st != pod.end() && st->is_object()) {
    f["status"] = nlohmann::json::object();
    copy(*st, f["status"], {"phase"});
  }
  return f;
}

TFJOB_INLINE std::vector<nlohmann::json> list_active_pods(kube::Client& c) {
  std::vector<nlohmann::json> out;
  kube::ListParams p;
  p.field_selector = "status.phase!=Succeeded,status.phase!=Failed";
  kube::list_pages(c, kube::RequestBuilder(resources::pods(), ""), p, [&](kube::ListPage& page) {
    for (const auto& i : page.items) out.push_back(pod_gpu_facts(i));
    return true;
  });
  return out;
}

TFJOB_INLINE std::vector<nlohmann::json> list_nodes(kube::Client& c) {
  std::vector<nlohmann::json> out;
  kube::list_pages(c, kube::RequestBuilder(resources::nodes(), ""), {}, [&](kube::ListPage& page) {
    for (const auto& n : page.items) out.push_back(node_facts(n));
    return true;
  });
  return out;
}

TFJOB_INLINE std::optional<nlohmann::json> get_opt(kube::Client& c, const kube::ResourceInfo& res, const std::string& ns,
                                                   const std::string& name) {
  try {
    return c.request_json(kube::RequestBuilder(res, ns).get(name));
  } catch (const api_error& e) {
    if (e.is_not_found()) return std::nullopt;
    throw;
  }
}

TFJOB_INLINE TFJob decode_tfjob(const nlohmann::json& job) {
  TFJob t;
  tfjob::detail::decode_lenient(job, "TFJob", t);
  return t;
}

TFJOB_INLINE std::optional<TFJob> get_tfjob(kube::Client& c, const std::string& ns, const std::string& name) {
  auto j = get_opt(c, resources::tfjobs(), ns, name);
  if (!j) return std::nullopt;
  return decode_tfjob(*j);
}

TFJOB_INLINE std::vector<k8s::Pod> job_pods(kube::Client& c, const std::string& ns, const std::string& job) {
  for (const auto& sel : pod_selectors(job)) {
    kube::ListParams p;
    p.label_selector = sel;
    auto pods = list_items(c, resources::pods(), ns, p);
    if (!pods.empty()) return tfjob::detail::decode_each<k8s::Pod>(pods);
  }
  return {};
}

TFJOB_INLINE std::vector<k8s::Event> object_events(kube::Client& c, const std::string& ns, const std::string& kind,
                                                   const std::string& name, const std::string& uid, EventsFrom from) {
  // from the cache: the field selector applied in the server's memory; from etcd each list
  // is a scan of every event of the namespace (125 ms at 10,000 events, BENCHMARKS.md scale)
  auto p = kube::events_about(kind, name, ns, uid);
  if (from == EventsFrom::cache) p.resource_version = "0";
  try {
    return tfjob::detail::decode_each<k8s::Event>(list_items(c, resources::events(), ns, p));
  } catch (const api_error& e) {
    if (e.is_forbidden()) return {};  // events are nice to have; a user may not read them
    throw;
  }
}

namespace detail {

/// One events list of job_events and job_reads: whose events, and what came.
struct EventQuery {
  std::string kind, name, uid;
  std::vector<k8s::Event> got;
};

/// Every query's list at once (object_events; kube::request_concurrency at a time).
TFJOB_INLINE void read_events(kube::Client& c, const std::string& ns, std::vector<EventQuery>& qs,
                              EventsFrom from = EventsFrom::latest) {
  kube::for_each_bounded(qs.size(), kube::request_concurrency, [&](std::size_t i) {
    kube::Client own = c;  // copies share the connections
    qs[i].got = object_events(own, ns, qs[i].kind, qs[i].name, qs[i].uid, from);
  }, [](std::size_t) {});
}

/// The job's events, then each pod's in the order of `pods`, oldest first (a stable sort: the
/// same time keeps that order).
TFJOB_INLINE std::vector<k8s::Event> events_in_order(std::vector<k8s::Event> job_events,
                                                     std::vector<std::vector<k8s::Event>*> per_pod) {
  std::vector<k8s::Event> out = std::move(job_events);
  for (auto* evs : per_pod)
    for (auto& e : *evs) out.push_back(std::move(e));
  tfjob::detail::stable_order_by(out, event_time);  // oldest first, each time read once
  return out;
}

}  // namespace detail

TFJOB_INLINE std::vector<k8s::Event> job_events(kube::Client& c, const std::string& ns, const ObjectMeta& job,
                                                const std::vector<k8s::Pod>& pods, PodEvents which, EventsFrom from) {
  std::vector<detail::EventQuery> qs{{tfjob::kind, job.name, job.uid, {}}};
  for (const auto& pod : pods) {
    if (which == PodEvents::none) break;
    if (which == PodEvents::pending && (pod.status.phase != "Pending" || !pod.spec.node_name.empty())) continue;
    qs.push_back({"Pod", pod.metadata.name, pod.metadata.uid, {}});
  }
  detail::read_events(c, ns, qs, from);
  std::vector<std::vector<k8s::Event>*> per_pod;
  for (std::size_t i = 1; i < qs.size(); ++i) per_pod.push_back(&qs[i].got);
  return detail::events_in_order(std::move(qs[0].got), per_pod);
}

TFJOB_INLINE JobReads job_reads(kube::Client& c, const std::string& ns, const ObjectMeta& job) {
  JobReads out;
  std::vector<detail::EventQuery> mine{{tfjob::kind, job.name, job.uid, {}}};
  // the pods (job_pods: the operator's labels, else an older operator's) beside the job's events
  kube::for_each_bounded(2, kube::request_concurrency, [&](std::size_t i) {
    kube::Client own = c;  // copies share the connections
    if (i == 1) return detail::read_events(own, ns, mine);
    out.pods = job_pods(own, ns, job.name);
  }, [](std::size_t) {});
  // then every pod's events together
  std::vector<detail::EventQuery> pods;
  for (const auto& p : out.pods) pods.push_back({"Pod", p.metadata.name, p.metadata.uid, {}});
  detail::read_events(c, ns, pods);
  std::vector<std::vector<k8s::Event>*> per_pod;
  for (auto& q : pods) per_pod.push_back(&q.got);
  out.events = detail::events_in_order(std::move(mine[0].got), per_pod);
  return out;
}

TFJOB_INLINE bool tfjobs_served(kube::Client& c) {
  const auto r = resources::tfjobs();
  return kube::serves(c, r.group, r.version, r.plural);
}

}  // namespace tfjob::workflow
