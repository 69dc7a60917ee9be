#pragma once
/// \file Kueue's kinds as value types (kueue.x-k8s.io/v1beta1, kueue `apis/kueue/v1beta1/`
/// `localqueue_types.go`, `clusterqueue_types.go`, `workload_types.go`): a namespace's
/// LocalQueue, the ClusterQueue's quota per flavor, the Workload Kueue queues and admits for
/// a job. What the SDK reads is modeled; the rest stays in `other`.

#include <tfjob/api/meta.hpp>
#include <tfjob/api/k8s/condition.hpp>
#include <tfjob/detail/compiled.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tfjob::k8s {

/// `LocalQueueSpec`.
struct LocalQueueSpec {
  std::string cluster_queue;
  nlohmann::json other = nlohmann::json::object();  ///< stopPolicy, ...
};

/// `LocalQueueStatus`: the counts are unset where the server has none.
struct LocalQueueStatus {
  std::optional<std::int64_t> pending_workloads;
  std::optional<std::int64_t> reserving_workloads;
  std::optional<std::int64_t> admitted_workloads;
  std::vector<Condition> conditions;
  nlohmann::json other = nlohmann::json::object();  ///< flavorsReservation, flavorUsage, ...
};

/// Kueue's LocalQueue: a namespace's queue, pointing to a ClusterQueue.
struct LocalQueue {
  std::string api_version;
  std::string kind;
  ObjectMeta metadata;
  LocalQueueSpec spec;
  LocalQueueStatus status;
  nlohmann::json other = nlohmann::json::object();
};

/// `ResourceQuota`: one resource of one flavor. Quantities are text (a number reads as its
/// text, as Go's `resource.Quantity`); unset when absent or not a quantity.
struct ResourceQuota {
  std::string name;
  std::optional<std::string> nominal_quota;
  std::optional<std::string> borrowing_limit;  ///< unset: may borrow without limit (in a cohort)
  std::optional<std::string> lending_limit;
  nlohmann::json other = nlohmann::json::object();
};

/// `FlavorQuotas`.
struct FlavorQuotas {
  std::string name;
  std::vector<ResourceQuota> resources;
  nlohmann::json other = nlohmann::json::object();
};

/// `ResourceGroup`.
struct ResourceGroup {
  std::vector<std::string> covered_resources;
  std::vector<FlavorQuotas> flavors;
  nlohmann::json other = nlohmann::json::object();
};

/// `ClusterQueueSpec`.
struct ClusterQueueSpec {
  std::vector<ResourceGroup> resource_groups;
  std::string cohort;       ///< v1beta1
  std::string cohort_name;  ///< v1beta2's name for it
  std::string queueing_strategy;
  nlohmann::json other = nlohmann::json::object();  ///< namespaceSelector, preemption, admissionChecks, ...
};

/// `ClusterQueuePendingWorkload`.
struct PendingWorkload {
  std::string name;
  std::string namespace_;
  nlohmann::json other = nlohmann::json::object();
};

/// `ClusterQueuePendingWorkloadsStatus`: the head of the queue, in Kueue's order.
struct PendingWorkloadsStatus {
  std::vector<PendingWorkload> head;
  std::string last_change_time;
  nlohmann::json other = nlohmann::json::object();
};

/// `ClusterQueueStatus`.
struct ClusterQueueStatus {
  std::optional<std::int64_t> pending_workloads;
  std::optional<std::int64_t> reserving_workloads;
  std::optional<std::int64_t> admitted_workloads;
  std::optional<PendingWorkloadsStatus> pending_workloads_status;
  std::vector<Condition> conditions;
  nlohmann::json other = nlohmann::json::object();  ///< flavorsReservation, flavorsUsage, ...
};

/// Kueue's ClusterQueue: quota per flavor, shared with a cohort.
struct ClusterQueue {
  std::string api_version;
  std::string kind;
  ObjectMeta metadata;
  ClusterQueueSpec spec;
  ClusterQueueStatus status;
  nlohmann::json other = nlohmann::json::object();

  /// In a cohort (spec.cohort, or v1beta2's spec.cohortName): may borrow from it.
  bool in_cohort() const;
};

/// `WorkloadSpec`.
struct WorkloadSpec {
  std::string queue_name;
  std::string priority_class_name;
  std::optional<std::int32_t> priority;
  std::optional<bool> active;
  nlohmann::json pod_sets;  ///< kept as JSON; null when unset
  nlohmann::json other = nlohmann::json::object();
};

/// `Admission`: where the Workload was admitted.
struct Admission {
  std::string cluster_queue;
  nlohmann::json pod_set_assignments;  ///< kept as JSON; null when unset
  nlohmann::json other = nlohmann::json::object();
};

/// `WorkloadStatus`.
struct WorkloadStatus {
  std::optional<Admission> admission;
  std::vector<Condition> conditions;  ///< QuotaReserved, Admitted, Evicted, Finished, ...
  nlohmann::json other = nlohmann::json::object();
};

/// Kueue's Workload: the unit it queues and admits, one per job.
struct Workload {
  std::string api_version;
  std::string kind;
  ObjectMeta metadata;
  WorkloadSpec spec;
  WorkloadStatus status;
  nlohmann::json other = nlohmann::json::object();

  /// The condition of that type, or nullptr.
  const Condition* condition(const std::string& type) const;
};

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const LocalQueueSpec& v);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const LocalQueueStatus& v);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const LocalQueue& v);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const ResourceQuota& v);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const FlavorQuotas& v);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const ResourceGroup& v);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const ClusterQueueSpec& v);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const PendingWorkload& v);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const PendingWorkloadsStatus& v);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const ClusterQueueStatus& v);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const ClusterQueue& v);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const WorkloadSpec& v);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const Admission& v);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const WorkloadStatus& v);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const Workload& v);
/// Decoders: what has the wrong type stays in `other`, untouched; they throw only for a
/// value that is not a JSON object at all.
TFJOB_JSON_FN from_json(const TFJOB_JSON& j, LocalQueue& v);
TFJOB_JSON_FN from_json(const TFJOB_JSON& j, ClusterQueue& v);
TFJOB_JSON_FN from_json(const TFJOB_JSON& j, Workload& v);
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, LocalQueueSpec& v);
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, LocalQueueStatus& v);
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, LocalQueue& v);
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, ResourceQuota& v);
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, FlavorQuotas& v);
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, ResourceGroup& v);
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, ClusterQueueSpec& v);
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, PendingWorkload& v);
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, PendingWorkloadsStatus& v);
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, ClusterQueueStatus& v);
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, ClusterQueue& v);
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, WorkloadSpec& v);
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, Admission& v);
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, WorkloadStatus& v);
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, Workload& v);

}  // namespace tfjob::k8s

#if TFJOB_SDK_DEFINE_API
#include <tfjob/api/k8s/impl/kueue_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_API
