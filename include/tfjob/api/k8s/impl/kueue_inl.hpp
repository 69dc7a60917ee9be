#pragma once
/// \file The bodies of <tfjob/api/k8s/kueue.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_API` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/api/k8s/kueue.hpp>, never this file.

namespace tfjob::k8s {

TFJOB_INLINE bool ClusterQueue::in_cohort() const { return !spec.cohort.empty() || !spec.cohort_name.empty(); }

TFJOB_INLINE const Condition* Workload::condition(const std::string& type) const { return find_condition(status.conditions, type); }

// Each type's fields, listed once for both directions (detail::write_fields, read_fields).

template <class F>
void fields(LocalQueueSpec& v, F& f) {
  f("clusterQueue", v.cluster_queue);
}

template <class F>
void fields(LocalQueueStatus& v, F& f) {
  f("pendingWorkloads", v.pending_workloads);
  f("reservingWorkloads", v.reserving_workloads);
  f("admittedWorkloads", v.admitted_workloads);
  f("conditions", v.conditions);
}

template <class F>
void fields(LocalQueue& v, F& f) {
  f("apiVersion", v.api_version);
  f("kind", v.kind);
  f("metadata", v.metadata);
  f("spec", v.spec);
  f("status", v.status);
}

template <class F>
void fields(ResourceQuota& v, F& f) {
  f("name", v.name);
  f("nominalQuota", v.nominal_quota);
  f("borrowingLimit", v.borrowing_limit);
  f("lendingLimit", v.lending_limit);
}

template <class F>
void fields(FlavorQuotas& v, F& f) {
  f("name", v.name);
  f("resources", v.resources);
}

template <class F>
void fields(ResourceGroup& v, F& f) {
  f("coveredResources", v.covered_resources);
  f("flavors", v.flavors);
}

template <class F>
void fields(ClusterQueueSpec& v, F& f) {
  f("resourceGroups", v.resource_groups);
  f("cohort", v.cohort);
  f("cohortName", v.cohort_name);
  f("queueingStrategy", v.queueing_strategy);
}

template <class F>
void fields(PendingWorkload& v, F& f) {
  f("name", v.name);
  f("namespace", v.namespace_);
}

template <class F>
void fields(PendingWorkloadsStatus& v, F& f) {
  f("head", v.head);
  f("lastChangeTime", v.last_change_time);
}

template <class F>
void fields(ClusterQueueStatus& v, F& f) {
  f("pendingWorkloads", v.pending_workloads);
  f("reservingWorkloads", v.reserving_workloads);
  f("admittedWorkloads", v.admitted_workloads);
  f("pendingWorkloadsStatus", v.pending_workloads_status);
  f("conditions", v.conditions);
}

template <class F>
void fields(ClusterQueue& v, F& f) {
  f("apiVersion", v.api_version);
  f("kind", v.kind);
  f("metadata", v.metadata);
  f("spec", v.spec);
  f("status", v.status);
}

template <class F>
void fields(WorkloadSpec& v, F& f) {
  f("queueName", v.queue_name);
  f("priorityClassName", v.priority_class_name);
  f("priority", v.priority);
  f("active", v.active);
  f("podSets", v.pod_sets);
}

template <class F>
void fields(Admission& v, F& f) {
  f("clusterQueue", v.cluster_queue);
  f("podSetAssignments", v.pod_set_assignments);
}

template <class F>
void fields(WorkloadStatus& v, F& f) {
  f("admission", v.admission);
  f("conditions", v.conditions);
}

template <class F>
void fields(Workload& v, F& f) {
  f("apiVersion", v.api_version);
  f("kind", v.kind);
  f("metadata", v.metadata);
  f("spec", v.spec);
  f("status", v.status);
}

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const LocalQueueSpec& v) { detail::write_fields(j, v); }
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const LocalQueueStatus& v) { detail::write_fields(j, v); }
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const LocalQueue& v) { detail::write_fields(j, v); }
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const ResourceQuota& v) { detail::write_fields(j, v); }
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const FlavorQuotas& v) { detail::write_fields(j, v); }
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const ResourceGroup& v) { detail::write_fields(j, v); }
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const ClusterQueueSpec& v) { detail::write_fields(j, v); }
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const PendingWorkload& v) { detail::write_fields(j, v); }
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const PendingWorkloadsStatus& v) { detail::write_fields(j, v); }
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const ClusterQueueStatus& v) { detail::write_fields(j, v); }
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const ClusterQueue& v) { detail::write_fields(j, v); }
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const WorkloadSpec& v) { detail::write_fields(j, v); }
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const Admission& v) { detail::write_fields(j, v); }
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const WorkloadStatus& v) { detail::write_fields(j, v); }
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const Workload& v) { detail::write_fields(j, v); }

TFJOB_JSON_FN from_json(const TFJOB_JSON& j, LocalQueue& v) { detail::decode_lenient(j, "LocalQueue", v); }
TFJOB_JSON_FN from_json(const TFJOB_JSON& j, ClusterQueue& v) { detail::decode_lenient(j, "ClusterQueue", v); }
TFJOB_JSON_FN from_json(const TFJOB_JSON& j, Workload& v) { detail::decode_lenient(j, "Workload", v); }

TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, LocalQueueSpec& v) { detail::read_fields(d, j, path, v); }
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, LocalQueueStatus& v) { detail::read_fields(d, j, path, v); }
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, LocalQueue& v) { detail::read_fields(d, j, path, v); }
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, ResourceQuota& v) {
  if (!d.object(j, path)) return;
  d.str(j, "name", path, v.name);
  // a quantity: text, or a number read as its text (apimachinery's Quantity.UnmarshalJSON)
  auto quantity = [&](const char* key, std::optional<std::string>& out) {
    const nlohmann::json* q = tfjob::detail::decoder::get(j, key);
    if (!q) return;
    if (q->is_string()) out = q->get<std::string>();
    else if (q->is_number()) out = q->dump();
    else d.wrong(tfjob::detail::decoder::child(path, key), *q, "a quantity (a string or a number)");
  };
  quantity("nominalQuota", v.nominal_quota);
  quantity("borrowingLimit", v.borrowing_limit);
  quantity("lendingLimit", v.lending_limit);
  detail::keep_rest(j, v);
}

TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, FlavorQuotas& v) { detail::read_fields(d, j, path, v); }
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, ResourceGroup& v) { detail::read_fields(d, j, path, v); }
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, ClusterQueueSpec& v) { detail::read_fields(d, j, path, v); }
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, PendingWorkload& v) { detail::read_fields(d, j, path, v); }
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, PendingWorkloadsStatus& v) { detail::read_fields(d, j, path, v); }
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, ClusterQueueStatus& v) { detail::read_fields(d, j, path, v); }
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, ClusterQueue& v) { detail::read_fields(d, j, path, v); }
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, WorkloadSpec& v) { detail::read_fields(d, j, path, v); }
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, Admission& v) { detail::read_fields(d, j, path, v); }
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, WorkloadStatus& v) { detail::read_fields(d, j, path, v); }
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, Workload& v) { detail::read_fields(d, j, path, v); }

}  // namespace tfjob::k8s
