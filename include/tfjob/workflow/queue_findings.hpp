#pragma once
/// \file Where a job would wait, before it is submitted (pure): what the cluster's queues and
/// gang schedulers make of it, from facts already read (Kueue's LocalQueue and ClusterQueue
/// quota, Volcano's Queue, the scheduler the pods name, whether a gang scheduler runs).
/// Once the job exists: workflow/queue_wait.hpp; reading the facts from a server:
/// workflow/queues.hpp.

#include <tfjob/api/builder.hpp>  // kueue_queue_name_label
#include <tfjob/api/findings.hpp>
#include <tfjob/api/k8s/kueue.hpp>
#include <tfjob/api/quantity.hpp>
#include <tfjob/api/types.hpp>
#include <tfjob/detail/compiled.hpp>
#include <tfjob/setting.hpp>
#include <tfjob/workflow/status.hpp>  // replica_gpus

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

namespace tfjob::workflow {

/// What a Kueue ClusterQueue can give of one resource (kueue apis/kueue/v1beta1/clusterqueue_types.go:
/// spec.resourceGroups[].coveredResources, .flavors[].resources[] {name, nominalQuota, borrowingLimit};
/// spec.cohort, v1beta2's spec.cohortName: borrowing from the cohort, unlimited without a borrowingLimit).
struct KueueQuota {
  bool covered = false;       ///< some resourceGroup covers the resource
  double largest_flavor = 0;  ///< the most one flavor can give (nominalQuota + borrowingLimit)
  double total = 0;           ///< over every flavor
  bool unbounded = false;     ///< in a cohort, a flavor without borrowingLimit: no set upper bound
  std::vector<std::string> evidence;  ///< "flavor default: nominalQuota 8"
};

/// `resource`'s quota in ClusterQueue `cq`. Pure.
KueueQuota kueue_quota(const k8s::ClusterQueue& cq, const std::string& resource);

/// The queueing and gang-scheduling systems a cluster serves.
struct QueueSystems {
  bool kueue = false;              ///< LocalQueue, ClusterQueue and Workload served
  bool volcano = false;            ///< Volcano's PodGroup and Queue served
  bool scheduler_plugins = false;  ///< scheduler-plugins' PodGroup served
  bool known = true;               ///< false: some discovery was forbidden (absence unknown)
  bool gang() const { return volcano || scheduler_plugins; }
};

/// The facts about the queues a job names: whether each exists (nullopt: not asked, e.g.
/// the system is not installed or reading it was forbidden).
struct QueueFacts {
  QueueSystems systems;
  std::optional<bool> local_queue_exists;   ///< the job's Kueue LocalQueue, in its namespace
  std::optional<bool> volcano_queue_exists; ///< schedulingPolicy.queue as a Volcano Queue
  std::string cluster_queue_name;            ///< the LocalQueue's spec.clusterQueue ("" = not read)
  std::optional<k8s::ClusterQueue> cluster_queue;  ///< that ClusterQueue as served (nullopt: absent or not read)
  bool cluster_queue_missing = false;         ///< the LocalQueue names a ClusterQueue that does not exist
  /// Whether the scheduler the pods name (spec.schedulerName, not default-scheduler) was
  /// seen: a Lease of that name or a pod named after it (nullopt: forbidden to look).
  std::optional<bool> scheduler_found;
};

/// The schedulerName the job's pods ask for, when not the default ("" for default-scheduler).
std::string custom_scheduler(const TFJob& job);

/// Findings about where `job` would wait, from `facts`. Pure.
std::vector<Finding> queue_findings(const TFJob& job, const QueueFacts& facts);

namespace detail {

/// One queue_findings pass: what the job says about where it waits (namespace, Kueue
/// LocalQueue, suspend, schedulingPolicy), the facts, and one method per check, each adding
/// its findings to `out` in the order queue_findings calls them.
struct QueueCheck {
  const TFJob& job;
  const QueueFacts& facts;
  std::vector<Finding> out;
  std::string ns, local_queue, queue, ev_label;
  bool suspended = false;
  bool min_available = false;     ///< runPolicy.schedulingPolicy.minAvailable is set
  std::vector<ReplicaGpus> gpus;  ///< per replica type

  /// Read the job's namespace, LocalQueue label, runPolicy.suspend and schedulingPolicy.
  QueueCheck(const TFJob& j, const QueueFacts& f);

  /// Add a warning.
  void add(const char* code, std::string msg, std::vector<std::string> evidence, Text fix);

  /// KueueMissing or LocalQueueNotFound: the LocalQueue the job names cannot admit it.
  void check_local_queue();

  /// VolcanoQueueNotFound: schedulingPolicy.queue names a Volcano Queue that does not exist.
  void check_volcano_queue();

  /// ClusterQueueNotFound: the job's LocalQueue points to a ClusterQueue that does not exist.
  void check_cluster_queue();

  /// NoGpuQuota or GpuQuotaTooSmall: the ClusterQueue's nvidia.com/gpu quota can never cover the job.
  void check_gpu_quota();

  /// SchedulerNotFound or SchedulerUnknown: the custom scheduler the pods name was not seen.
  void check_scheduler();

  /// NoGangScheduling: several GPU pods, a gang scheduler installed, and no minAvailable.
  void check_gang();
};

}  // namespace detail
}  // namespace tfjob::workflow

#if TFJOB_SDK_DEFINE_WORKFLOW
#include <tfjob/workflow/impl/queue_findings_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_WORKFLOW
