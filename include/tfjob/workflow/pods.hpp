#pragma once
/// \file A TFJob's pods: which one is the chief, which one failed, what each is doing.
///
/// Pure functions over pods (`k8s::Pod`, decoded at the client's edge: job_pods, JobWatch).
/// Labels follow the training operator v1.9
/// (`pkg/controller.v1/common`, `pkg/apis/kubeflow.org/v1/common_types.go`), plus the
/// unprefixed and `tf-replica-*` labels that tf-operator v1 and v1alpha2 wrote.

#include <tfjob/api/cluster_words.hpp>
#include <tfjob/api/k8s/pod.hpp>
#include <tfjob/api/labels.hpp>
#include <tfjob/detail/compiled.hpp>
#include <tfjob/detail/json.hpp>
#include <tfjob/detail/order.hpp>
#include <tfjob/workflow/status.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <limits>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace tfjob::workflow {

// label keys: tfjob::labels (tfjob/api/labels.hpp), current and legacy::

/// Label selectors that find a job's pods, current first, then the older operators'.
std::vector<std::string> pod_selectors(const std::string& job);

/// What a pod is, read from its labels and status.
struct PodInfo {
  std::string name;
  std::string replica_type;  ///< lower case as labelled ("chief", "worker"), "" when unlabelled
  int replica_index = -1;
  bool master_role = false;  ///< job-role=master
  std::string phase;         ///< Pending, Running, Succeeded, Failed, Unknown
  std::string node;
  int restarts = 0;          ///< containers' and init containers' (native sidecars') restarts, summed as the operator's backoffLimit does
  long long gpus = 0;
  bool deleting = false;     ///< metadata.deletionTimestamp set
  std::string creation_timestamp;
  std::string uid;
  /// Terminated container with a non-zero exit code, when any (the named container first).
  std::optional<int> exit_code;
  std::string terminated_reason;  ///< e.g. Error, OOMKilled
  std::string waiting_reason;     ///< e.g. ContainerCreating, ImagePullBackOff, CrashLoopBackOff (an init container's when it holds the pod)
  /// Native sidecars (init containers with restartPolicy Always) and their restarts.
  std::vector<std::pair<std::string, int>> sidecars;
};

namespace detail {
std::string lower(std::string s);
}  // namespace detail

/// Read a pod's labels and status. `container` is the one whose exit code matters most.
PodInfo pod_info(const k8s::Pod& pod, const std::string& container = "tensorflow");

/// The pod whose logs are "the job's logs": the one the operator marks
/// `training.kubeflow.org/job-role=master`; else replica type chief, then master; else
/// worker 0; else the same through the labels older operators used (all read by
/// `pod_info`). Pods being deleted lose to live ones; among equals, the newest wins
/// (a restarted pod replaces its predecessor).
std::optional<k8s::Pod> select_chief(const std::vector<k8s::Pod>& pods);

/// The pod of replica `type` (any case) and `index`; newest, live first.
std::optional<k8s::Pod> select_replica(const std::vector<k8s::Pod>& pods, const std::string& type, int index);

/// The pod that made a job fail: a Failed pod or one with a non-zero exit code, the chief
/// first; std::nullopt when none did.
std::optional<k8s::Pod> select_failed(const std::vector<k8s::Pod>& pods);

/// The order a user reads a job in: chief, master, worker, ps, evaluator, then any other
/// type (the operator's replica types, `pkg/apis/kubeflow.org/v1/tensorflow_types.go`).
int replica_rank(const std::string& lower_type);

/// Sort pods as a user reads a job (replica_rank, then type, then index, then name).
void sort_pods(std::vector<k8s::Pod>& pods);

}  // namespace tfjob::workflow

#if TFJOB_SDK_DEFINE_WORKFLOW
#include <tfjob/workflow/impl/pods_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_WORKFLOW
