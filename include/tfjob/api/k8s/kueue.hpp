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

void to_json(nlohmann::json& j, const LocalQueueSpec& v);
void to_json(nlohmann::json& j, const LocalQueueStatus& v);
void to_json(nlohmann::json& j, const LocalQueue& v);
void to_json(nlohmann::json& j, const ResourceQuota& v);
void to_json(nlohmann::json& j, const FlavorQuotas& v);
void to_json(nlohmann::json& j, const ResourceGroup& v);
void to_json(nlohmann::json& j, const ClusterQueueSpec& v);
void to_json(nlohmann::json& j, const PendingWorkload& v);
void to_json(nlohmann::json& j, const PendingWorkloadsStatus& v);
void to_json(nlohmann::json& j, const ClusterQueueStatus& v);
void to_json(nlohmann::json& j, const ClusterQueue& v);
void to_json(nlohmann::json& j, const WorkloadSpec& v);
void to_json(nlohmann::json& j, const Admission& v);
void to_json(nlohmann::json& j, const WorkloadStatus& v);
void to_json(nlohmann::json& j, const Workload& v);
/// Decoders: what has the wrong type stays in `other`, untouched; they throw only for a
/// value that is not a JSON object at all.
void from_json(const nlohmann::json& j, LocalQueue& v);
void from_json(const nlohmann::json& j, ClusterQueue& v);
void from_json(const nlohmann::json& j, Workload& v);
void decode_fields(tfjob::detail::decoder& d, const nlohmann::json& j, const std::string& path, LocalQueueSpec& v);
void decode_fields(tfjob::detail::decoder& d, const nlohmann::json& j, const std::string& path, LocalQueueStatus& v);
void decode_fields(tfjob::detail::decoder& d, const nlohmann::json& j, const std::string& path, LocalQueue& v);
void decode_fields(tfjob::detail::decoder& d, const nlohmann::json& j, const std::string& path, ResourceQuota& v);
void decode_fields(tfjob::detail::decoder& d, const nlohmann::json& j, const std::string& path, FlavorQuotas& v);
void decode_fields(tfjob::detail::decoder& d, const nlohmann::json& j, const std::string& path, ResourceGroup& v);
void decode_fields(tfjob::detail::decoder& d, const nlohmann::json& j, const std::string& path, ClusterQueueSpec& v);
void decode_fields(tfjob::detail::decoder& d, const nlohmann::json& j, const std::string& path, PendingWorkload& v);
void decode_fields(tfjob::detail::decoder& d, const nlohmann::json& j, const std::string& path, PendingWorkloadsStatus& v);
void decode_fields(tfjob::detail::decoder& d, const nlohmann::json& j, const std::string& path, ClusterQueueStatus& v);
void decode_fields(tfjob::detail::decoder& d, const nlohmann::json& j, const std::string& path, ClusterQueue& v);
void decode_fields(tfjob::detail::decoder& d, const nlohmann::json& j, const std::string& path, WorkloadSpec& v);
void decode_fields(tfjob::detail::decoder& d, const nlohmann::json& j, const std::string& path, Admission& v);
void decode_fields(tfjob::detail::decoder& d, const nlohmann::json& j, const std::string& path, WorkloadStatus& v);
void decode_fields(tfjob::detail::decoder& d, const nlohmann::json& j, const std::string& path, Workload& v);

}  // namespace tfjob::k8s

#if TFJOB_SDK_DEFINE_API
#include <tfjob/api/k8s/impl/kueue_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_API
