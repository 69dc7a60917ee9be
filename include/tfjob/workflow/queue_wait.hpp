#pragma once
/// \file Where a submitted job waits (pure): from its Kueue Workload, the LocalQueue and
/// ClusterQueue it waits in, and its PodGroup (Volcano's or scheduler-plugins'), as typed
/// objects already read (`QueueState`, filled by workflow/queues.hpp's `gather_queue_state`),
/// and whether it holds GPUs partly Running. Before submission: workflow/queue_findings.hpp.

#include <tfjob/api/builder.hpp>  // kueue_queue_name_label
#include <tfjob/api/findings.hpp>
#include <tfjob/api/k8s/event.hpp>
#include <tfjob/api/k8s/gang.hpp>
#include <tfjob/api/k8s/kueue.hpp>
#include <tfjob/api/types.hpp>
#include <tfjob/detail/compiled.hpp>
#include <tfjob/setting.hpp>
#include <tfjob/workflow/pods.hpp>            // pod_info
#include <tfjob/workflow/progress.hpp>        // events_for
#include <tfjob/workflow/queue_findings.hpp>  // Finding
#include <tfjob/workflow/status.hpp>          // summarize

#include <nlohmann/json.hpp>

#include <algorithm>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace tfjob::workflow {

/// What the queues say about one submitted job: its Kueue Workload with the LocalQueue and
/// ClusterQueue it waits in, and its PodGroup (Volcano's or scheduler-plugins'), as the
/// server has them. Empty where the system is not installed or may not be read.
struct QueueState {
  bool workloads_read = false;                  ///< Kueue is served and its Workloads were listed
  std::vector<k8s::Workload> workloads;         ///< Workloads the job owns (ownerReferences)
  std::optional<k8s::LocalQueue> local_queue;
  std::optional<k8s::ClusterQueue> cluster_queue;
  std::optional<k8s::PodGroup> pod_group;       ///< named after the job (the operator v1.9 names it so)
  std::string pod_group_system;                 ///< "Volcano" or "scheduler-plugins"
};

/// The label Kueue puts on a job's Workload: the job's uid (kueue pkg/controller/constants JobUIDLabel).
inline constexpr const char* kueue_job_uid_label = "kueue.x-k8s.io/job-uid";

/// Findings that say a job waits in a queue and not for a node, from its Kueue Workload
/// (QuotaReserved, Admitted, Evicted; the queue's pending count and the position where the
/// ClusterQueue's status lists it) and its PodGroup's phase and events; and a job partly
/// Running while the rest waits, holding GPUs for nothing. Pure.
std::vector<Finding> queue_wait_findings(const TFJob& job, const std::vector<k8s::Pod>& pods,
                                         const std::vector<k8s::Event>& events, const QueueState& q);

namespace detail {

/// Whether `obj` is owned by the TFJob with metadata `job`: by uid, or by kind and name when
/// the job has no uid yet.
bool owned_by(const ObjectMeta& obj, const ObjectMeta& job);

}  // namespace detail
}  // namespace tfjob::workflow

#if TFJOB_SDK_DEFINE_WORKFLOW
#include <tfjob/workflow/impl/queue_wait_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_WORKFLOW
