#pragma once
/// \file What `explain` reads about a job (workflow/explain.hpp): the facts as value types,
/// decoded once where they come in, from a cluster (`gather`) or from saved objects
/// (`explain_input`: what `kubectl get -o yaml` or `archive` wrote), and the rule for which
/// failed pod's log it quotes.

#include <tfjob/api/k8s/event.hpp>
#include <tfjob/api/k8s/node.hpp>
#include <tfjob/api/k8s/objects.hpp>
#include <tfjob/api/k8s/pod.hpp>
#include <tfjob/api/labels.hpp>
#include <tfjob/api/types.hpp>
#include <tfjob/detail/compiled.hpp>
#include <tfjob/detail/json.hpp>
#include <tfjob/kube/client.hpp>
#include <tfjob/kube/core.hpp>
#include <tfjob/kube/logs.hpp>
#include <tfjob/workflow/cluster.hpp>
#include <tfjob/workflow/pods.hpp>
#include <tfjob/workflow/queues.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <ctime>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace tfjob::workflow {

/// Everything an explanation reads. Only `job` is required; the rest makes it more precise.
struct ExplainInput {
  TFJob job;                                        ///< the TFJob as served (spec + status)
  std::vector<k8s::Pod> pods;                       ///< its pods
  std::vector<k8s::Event> events;                   ///< the job's, its pods', claims' and PodGroup's events
  std::optional<std::vector<k8s::Node>> nodes;      ///< every node, when readable
  std::map<std::string, k8s::PersistentVolumeClaim> claims;  ///< claims the job mounts, by name
  std::optional<k8s::Namespace> namespace_object;   ///< the job's namespace, when readable
  std::map<std::string, std::vector<std::string>> logs;  ///< last log lines of failed pods, by pod name
  QueueState queue;  ///< its Kueue Workload and queues, its PodGroup (workflow/queues.hpp), when served
  std::time_t now = std::time(nullptr);
};

namespace detail {
/// The log explain quotes for a pod, by the rule `gather` reads it with: none unless the pod
/// failed (phase Failed, or a container that exited non-zero); the `tensorflow` container's
/// (else the first container's); the crashed attempt's when the pod restarted in place.
struct QuotedLog {
  std::string container;
  bool previous = false;
};
std::optional<QuotedLog> quoted_log(const k8s::Pod& pod);

/// The last `n` lines of a log, each cut at 500 bytes (a log line can be long).
std::vector<std::string> quoted_lines(const std::string& text, int n);
}  // namespace detail

/// An ExplainInput from saved objects (what `kubectl get -o yaml` or `archive` wrote), an
/// object at a time, as a stream gives them (ManifestReader::each: a List's items one by one):
/// sorted by kind as `gather` reads them from a cluster, and only what explain reads is kept, so
/// that the state of a crowded namespace is never held whole. Kept: the TFJob named `name` (the
/// only one when `name` is empty), its pods by the operator's labels, the events about the job,
/// its pods, a PodGroup or a PersistentVolumeClaim, every Node, PersistentVolumeClaim,
/// Namespace, Kueue Workload and queue, and the PodGroup named after the job. Objects may come
/// in any order (a job's pods before the job). `now` stays the caller's: the time the state was saved.
class SavedState {
 public:
  explicit SavedState(std::string name = {});

  /// One saved object, of any kind (what explain does not read is let go).
  void add(const nlohmann::json& object);

  /// The job's ExplainInput; std::nullopt when no TFJob named `name` was added (none at all,
  /// when `name` is empty). Throws tfjob::error when `name` is empty and several TFJobs were.
  std::optional<ExplainInput> finish();

 private:
  /// Whether an event about `kind` `name` may be one explain reads, as far as is known yet.
  bool wanted(const std::string& kind, const std::string& name) const;
  const std::string& job() const { return job_name_; }  ///< the job's name ("" until known)

  std::string name_;
  std::string job_name_;
  std::vector<std::string> jobs_;  ///< every TFJob's name, in order
  std::optional<nlohmann::json> job_;
  std::vector<std::string> pod_names_;
  std::map<std::string, std::pair<k8s::PodGroup, std::string>> pod_groups_;  ///< by name, with their system
  ExplainInput in_;  ///< pods and events (filtered again once the job is known), nodes, claims, queues
};

/// SavedState over `objects` (Lists expanded, as parse_objects gives them).
std::optional<ExplainInput> explain_input(const std::vector<nlohmann::json>& objects, const std::string& name = {});

/// Read what `explain` needs from the cluster: the job (std::nullopt when absent), its pods,
/// their events and the job's (each object's by its field selector, never the namespace's),
/// nodes (node_facts) and the namespace (when readable), the claims it mounts, and
/// the last `log_lines` lines of each failed pod's `tensorflow` container.
std::optional<ExplainInput> gather(kube::Client& c, const std::string& ns, const std::string& name, int log_lines = 10);

}  // namespace tfjob::workflow

#if TFJOB_SDK_DEFINE_WORKFLOW
#include <tfjob/workflow/impl/explain_facts_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_WORKFLOW
