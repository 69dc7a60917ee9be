#pragma once
/// \file What queues and gang schedulers a cluster runs, from API discovery, and the facts
/// the queue rules need, read from the server as typed objects (api/k8s/kueue.hpp,
/// api/k8s/gang.hpp): Kueue (LocalQueue, ClusterQueue, Workload), Volcano (PodGroup, Queue),
/// scheduler-plugins' coscheduling (PodGroup), the Leases schedulers hold.
///
/// The rules themselves are pure: `queue_findings` before a job is submitted
/// (workflow/queue_findings.hpp), `queue_wait_findings` once it exists
/// (workflow/queue_wait.hpp); `check_queues` and `gather_queue_state` ask the server for
/// their facts.

#include <tfjob/api/k8s/gang.hpp>
#include <tfjob/api/k8s/kueue.hpp>
#include <tfjob/api/types.hpp>
#include <tfjob/detail/compiled.hpp>
#include <tfjob/error.hpp>
#include <tfjob/kube/api.hpp>
#include <tfjob/kube/client.hpp>
#include <tfjob/kube/discovery.hpp>
#include <tfjob/kube/request.hpp>
#include <tfjob/workflow/cluster.hpp>  // object_events, resources::pods, resources::events
#include <tfjob/workflow/queue_findings.hpp>
#include <tfjob/workflow/queue_wait.hpp>

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace tfjob::workflow {

namespace resources {
/// Kueue's (kueue.x-k8s.io/v1beta1, the version Kueue serves since v0.3).
kube::ResourceInfo kueue_local_queues();
kube::ResourceInfo kueue_cluster_queues();
kube::ResourceInfo kueue_workloads();
/// Volcano's (scheduling.volcano.sh/v1beta1: what the operator v1.9 creates).
kube::ResourceInfo volcano_pod_groups();
kube::ResourceInfo volcano_queues();
/// scheduler-plugins' coscheduling (scheduling.x-k8s.io/v1alpha1: the operator v1.9's).
kube::ResourceInfo scheduler_plugins_pod_groups();
/// The leader-election Leases schedulers hold (coordination.k8s.io/v1).
kube::ResourceInfo leases();
}  // namespace resources

/// What discovery says (404 = not installed; a discovery the user may not read leaves
/// `known` false, so no absence is claimed).
QueueSystems detect_queue_systems(kube::Client& c);

/// Whether a scheduler named `name` shows in the cluster, as a user would look for it: a
/// leader-election Lease of that name in any namespace (kube-scheduler's
/// leaderElection.resourceName, as the "configure multiple schedulers" guide sets it), a
/// pod in kube-system named after it, or an event it recorded. nullopt when neither may be read; a cluster without
/// Leases (404) is only asked for pods.
std::optional<bool> scheduler_seen(kube::Client& c, const std::string& name);

/// Asks the server the facts `queue_findings` needs for `job` in `ns`, and returns its
/// findings. A 403 on any lookup leaves that fact unknown (no finding from it).
std::vector<Finding> check_queues(kube::Client& c, const std::string& ns, const TFJob& job);

/// Reads `QueueState` for `job` (as served) in `ns`. Best effort: what may not be read, or
/// fails to be read, stays empty (the queue's word makes an explanation more precise; its
/// absence never fails `explain`, `describe` or `wait`).
QueueState gather_queue_state(kube::Client& c, const std::string& ns, const TFJob& job);

/// The events of the job's PodGroup (queue_wait_findings reads them), by their own field
/// selector; none when there is no PodGroup or they may not be read.
std::vector<k8s::Event> queue_events(kube::Client& c, const std::string& ns, const QueueState& q);

}  // namespace tfjob::workflow

#if TFJOB_SDK_DEFINE_WORKFLOW
#include <tfjob/workflow/impl/queues_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_WORKFLOW
