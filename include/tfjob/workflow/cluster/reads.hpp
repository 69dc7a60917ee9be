#pragma once
/// \file What the training workflow reads of a cluster: where each kind lives (resources),
/// lists read page by page, an object or NotFound, a TFJob decoded at the client's edge, a
/// job's pods and events, nodes and active pods as the GPU checks read them, and whether
/// TFJobs are served. Part of <tfjob/workflow/cluster.hpp>.

#include <tfjob/api/k8s/event.hpp>
#include <tfjob/api/k8s/pod.hpp>
#include <tfjob/api/labels.hpp>
#include <tfjob/api/meta.hpp>
#include <tfjob/api/types.hpp>
#include <tfjob/detail/compiled.hpp>
#include <tfjob/detail/json.hpp>
#include <tfjob/detail/order.hpp>
#include <tfjob/error.hpp>
#include <tfjob/kube/client.hpp>
#include <tfjob/kube/core.hpp>
#include <tfjob/kube/discovery.hpp>
#include <tfjob/kube/pager.hpp>
#include <tfjob/kube/request.hpp>
#include <tfjob/kube/side_task.hpp>
#include <tfjob/kube/tfjob_resource.hpp>
#include <tfjob/workflow/pods.hpp>
#include <tfjob/workflow/progress.hpp>
#include <tfjob/workflow/status.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tfjob::workflow {

/// The kinds the workflow reads and writes, each from its one description (resource_traits).
namespace resources {
kube::ResourceInfo tfjobs();
kube::ResourceInfo pods();
kube::ResourceInfo events();
kube::ResourceInfo nodes();
kube::ResourceInfo namespaces();
kube::ResourceInfo pvcs();
kube::ResourceInfo configmaps();
}  // namespace resources

/// Every item of a list, read page by page (kube::list_pages) and held together: for lists
/// whose length the caller bounds (a job's pods, a selector's few objects). A list that
/// grows with the cluster is read with kube::list_pages, each page decoded into what the
/// caller needs (list_nodes, gpu::run_top).
std::vector<nlohmann::json> list_items(kube::Client& c, const kube::ResourceInfo& res, const std::string& ns,
                                       kube::ListParams p = {});

/// What the workflow reads of a node (scheduling fit, GPUs, lint): its name, labels,
/// taints, cordon, conditions, capacity and allocatable, and nothing else (not its images,
/// annotations or managed fields, most of a real node's bytes).
nlohmann::json node_facts(const nlohmann::json& node);

/// Every node, each decoded into node_facts as its page arrives.
std::vector<nlohmann::json> list_nodes(kube::Client& c);

/// What the GPU checks read of a pod: its name, namespace and labels, node, phase, and its
/// containers' resources (pod_spec_gpus), nothing else.
nlohmann::json pod_gpu_facts(const nlohmann::json& pod);

/// The pods in every namespace that hold resources, as kubectl describe node selects them
/// (field selector status.phase!=Succeeded,status.phase!=Failed: kubectl describe.go,
/// describeNode), each decoded into pod_gpu_facts as its page arrives.
std::vector<nlohmann::json> list_active_pods(kube::Client& c);

/// The object, or std::nullopt when the server says NotFound.
std::optional<nlohmann::json> get_opt(kube::Client& c, const kube::ResourceInfo& res, const std::string& ns,
                                      const std::string& name);

/// A TFJob as a server sent it, decoded leniently (api/meta.hpp decode_lenient: a field of the
/// wrong type stays in `other`, as it came); throws only for what is not an object.
TFJob decode_tfjob(const nlohmann::json& job);

/// The TFJob decoded (decode_tfjob), or std::nullopt when the server says NotFound.
std::optional<TFJob> get_tfjob(kube::Client& c, const std::string& ns, const std::string& name);

/// A job's pods: by the current operator's labels, else by the older operators' labels;
/// each decoded leniently here, at the client's edge (tfjob::detail::decoded).
std::vector<k8s::Pod> job_pods(kube::Client& c, const std::string& ns, const std::string& job);

/// Where a list of events is read: etcd (a consistent read, as kubectl's lists: every event
/// written before it was asked, at the price of a scan of the namespace's events), or the API
/// server's watch cache (resourceVersion=0, as client-go's informers list: filtered in its
/// memory, 2x to 4x faster at 10,000 events, but behind by what the cache has not yet seen —
/// CI met an event written just before the read missing from it, so no command uses it yet).
enum class EventsFrom { latest, cache };

/// The events about one object (kube::events_about: kubectl describe's field selector), one
/// list that holds nothing else of the namespace.
/// None when the user may not read events (they explain, they are not required). Each
/// decoded leniently here, at the client's edge.
std::vector<k8s::Event> object_events(kube::Client& c, const std::string& ns, const std::string& kind,
                                          const std::string& name, const std::string& uid = {},
                                          EventsFrom from = EventsFrom::latest);

/// Whose events job_events reads besides the job's own.
enum class PodEvents {
  all,      ///< every pod's (describe, explain, the archive)
  pending,  ///< only pods Pending and not yet bound to a node: those progress explains
  none,
};

/// The events of a job (by its metadata: name and uid) and of its pods, each object's read by
/// its own field selector (object_events): one request for the job, one per pod `which`
/// picks, so what it costs follows the job and never the namespace; sent at once
/// (kube::for_each_bounded, kube::request_concurrency at a time). Oldest first.
std::vector<k8s::Event> job_events(kube::Client& c, const std::string& ns, const ObjectMeta& job,
                                   const std::vector<k8s::Pod>& pods, PodEvents which = PodEvents::all,
                                   EventsFrom from = EventsFrom::latest);

/// A job's pods and events, read as job_pods and job_events read them, for describe and
/// explain.
struct JobReads {
  std::vector<k8s::Pod> pods;      ///< as job_pods
  std::vector<k8s::Event> events;  ///< as job_events with PodEvents::all: oldest first
};

/// job_pods and job_events with the lists sent at once: the pods by the operator's labels
/// beside the job's events, then (an older operator's labels when the first found no pod)
/// every pod's events together. At most kube::request_concurrency requests at a time.
JobReads job_reads(kube::Client& c, const std::string& ns, const ObjectMeta& job);

/// Whether the server serves kubeflow.org/v1 tfjobs (API discovery).
bool tfjobs_served(kube::Client& c);

}  // namespace tfjob::workflow

#if TFJOB_SDK_DEFINE_WORKFLOW
#include <tfjob/workflow/cluster/impl/reads_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_WORKFLOW
