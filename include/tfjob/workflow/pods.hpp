#pragma once
/// \file A TFJob's pods: which one is the chief, which one failed, what each is doing.
///
/// Pure functions over pods as JSON (`v1.Pod`). Labels follow the training operator v1.9
/// (`pkg/controller.v1/common`, `pkg/apis/kubeflow.org/v1/common_types.go`), plus the
/// unprefixed and `tf-replica-*` labels that tf-operator v1 and v1alpha2 wrote.

#include <tfjob/api/cluster_words.hpp>
#include <tfjob/api/labels.hpp>
#include <tfjob/detail/compiled.hpp>
#include <tfjob/detail/json.hpp>
#include <tfjob/workflow/status.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <limits>
#include <optional>
#include <string>
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
PodInfo pod_info(const nlohmann::json& pod, const std::string& container = "tensorflow");

/// The pod whose logs are "the job's logs": the one the operator marks
/// `training.kubeflow.org/job-role=master`; else replica type chief, then master; else
/// worker 0; else the same through the labels older operators used (all read by
/// `pod_info`). Pods being deleted lose to live ones; among equals, the newest wins
/// (a restarted pod replaces its predecessor).
std::optional<nlohmann::json> select_chief(const std::vector<nlohmann::json>& pods);

/// The pod of replica `type` (any case) and `index`; newest, live first.
std::optional<nlohmann::json> select_replica(const std::vector<nlohmann::json>& pods,
                                             const std::string& type, int index);

/// The pod that made a job fail: a Failed pod or one with a non-zero exit code, the chief
/// first; std::nullopt when none did.
std::optional<nlohmann::json> select_failed(const std::vector<nlohmann::json>& pods);

/// The order a user reads a job in: chief, master, worker, ps, evaluator, then any other
/// type (the operator's replica types, `pkg/apis/kubeflow.org/v1/tensorflow_types.go`).
int replica_rank(const std::string& lower_type);

/// Sort pods as a user reads a job (replica_rank, then type, then index, then name).
void sort_pods(std::vector<nlohmann::json>& pods);

}  // namespace tfjob::workflow

#if TFJOB_SDK_DEFINE_WORKFLOW
namespace tfjob::workflow {

TFJOB_INLINE std::vector<std::string> pod_selectors(const std::string& job) {
  return {std::string(labels::job_name) + "=" + job, std::string(labels::legacy::job_name) + "=" + job,
          std::string(labels::legacy::tf_job_name) + "=" + job};
}

namespace detail {

TFJOB_INLINE std::string label_of(const nlohmann::json& pod, const char* key) {
  const auto& m = tfjob::detail::value_at(pod, "/metadata/labels"_json_pointer, nlohmann::json::object());
  auto it = m.find(key);
  return (it != m.end() && it->is_string()) ? it->get<std::string>() : std::string();
}

TFJOB_INLINE std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

TFJOB_INLINE int to_int(const std::string& s, int dflt = -1) {
  try {
    size_t p = 0;
    int v = std::stoi(s, &p);
    return p == s.size() ? v : dflt;
  } catch (...) {
    return dflt;
  }
}

}  // namespace detail

TFJOB_INLINE PodInfo pod_info(const nlohmann::json& pod, const std::string& container) {
  using detail::label_of;
  PodInfo p;
  p.name = tfjob::detail::value_at(pod, "/metadata/name"_json_pointer, std::string());
  p.uid = tfjob::detail::value_at(pod, "/metadata/uid"_json_pointer, std::string());
  p.creation_timestamp = tfjob::detail::value_at(pod, "/metadata/creationTimestamp"_json_pointer, std::string());
  p.deleting = pod.contains("metadata") && pod["metadata"].contains("deletionTimestamp") &&
               !pod["metadata"]["deletionTimestamp"].is_null();
  std::string t = label_of(pod, labels::replica_type);
  if (t.empty()) t = label_of(pod, labels::legacy::replica_type);
  if (t.empty()) t = label_of(pod, labels::legacy::tf_replica_type);
  p.replica_type = detail::lower(t);
  std::string i = label_of(pod, labels::replica_index);
  if (i.empty()) i = label_of(pod, labels::legacy::replica_index);
  if (i.empty()) i = label_of(pod, labels::legacy::tf_replica_index);
  p.replica_index = detail::to_int(i);
  std::string role = label_of(pod, labels::job_role);
  if (role.empty()) role = label_of(pod, labels::legacy::job_role);
  p.master_role = role == "master";
  p.phase = tfjob::detail::value_at(pod, "/status/phase"_json_pointer, std::string("Pending"));
  p.node = tfjob::detail::value_at(pod, "/spec/nodeName"_json_pointer, std::string());
  if (pod.contains("spec")) p.gpus = pod_spec_gpus(pod["spec"]);
  const auto statuses = tfjob::detail::value_at(pod, "/status/containerStatuses"_json_pointer, nlohmann::json::array());
  // the named container first, then the others
  std::vector<nlohmann::json> ordered;
  for (const auto& c : statuses) if (tfjob::detail::value_at(c, "name", "") == container) ordered.push_back(c);
  for (const auto& c : statuses) if (tfjob::detail::value_at(c, "name", "") != container) ordered.push_back(c);
  for (const auto& c : ordered) {
    const int r = tfjob::detail::value_at(c, "restartCount", 0);  // a server's count: bounded, never summed past INT_MAX
    if (r > 0) p.restarts = r > std::numeric_limits<int>::max() - p.restarts ? std::numeric_limits<int>::max() : p.restarts + r;
    if (p.waiting_reason.empty())
      p.waiting_reason = tfjob::detail::value_at(c, "/state/waiting/reason"_json_pointer, std::string());
    for (const char* where : {"/state/terminated", "/lastState/terminated"}) {
      nlohmann::json::json_pointer ptr(where);
      const nlohmann::json* term = tfjob::detail::json_at(c, ptr);
      if (p.exit_code || !term) continue;
      const int code = tfjob::detail::value_at(*term, "exitCode", 0);
      if (code == 0) continue;
      p.exit_code = code;
      p.terminated_reason = tfjob::detail::value_at(*term, "reason", "");
    }
  }
  // Init containers: their restarts count toward backoffLimit as the containers' do (training
  // operator v1.9 pkg/core/job.go PastBackoffLimit sums InitContainerStatuses' restartCount);
  // one that waits holds the pod back (kubectl shows Init:<reason>); a regular one that failed
  // failed the pod. A native sidecar's exit (stopped by the kubelet after the containers,
  // e.g. 143) says nothing about the replica.
  const auto spec = tfjob::detail::value_at(pod, "spec", nlohmann::json::object());
  for (const auto& c : tfjob::detail::value_at(pod, "/status/initContainerStatuses"_json_pointer, nlohmann::json::array())) {
    const std::string cname = tfjob::detail::value_at(c, "name", "");
    const bool sidecar = words::restartable_init_container(spec, cname);
    const int r = tfjob::detail::value_at(c, "restartCount", 0);
    if (r > 0) p.restarts = r > std::numeric_limits<int>::max() - p.restarts ? std::numeric_limits<int>::max() : p.restarts + r;
    if (sidecar) p.sidecars.emplace_back(cname, r);
    const std::string w = tfjob::detail::value_at(c, "/state/waiting/reason"_json_pointer, std::string());
    if (!w.empty() && w != "PodInitializing" && (p.waiting_reason.empty() || p.waiting_reason == "PodInitializing"))
      p.waiting_reason = w;
    if (sidecar || p.exit_code) continue;
    const nlohmann::json* term = tfjob::detail::json_at(c, "/state/terminated"_json_pointer);
    if (term && tfjob::detail::value_at(*term, "exitCode", 0) != 0) {
      p.exit_code = tfjob::detail::value_at(*term, "exitCode", 0);
      p.terminated_reason = tfjob::detail::value_at(*term, "reason", "");
    }
  }
  return p;
}

TFJOB_INLINE std::optional<nlohmann::json> select_chief(const std::vector<nlohmann::json>& pods) {
  auto rank = [](const nlohmann::json& pod) {
    using detail::label_of;
    // current labels first (ranks 0-3), then legacy (4-7)
    std::string role = label_of(pod, labels::job_role);
    std::string type = detail::lower(label_of(pod, labels::replica_type));
    std::string idx = label_of(pod, labels::replica_index);
    if (role == "master") return 0;
    if (type == "chief") return 1;
    if (type == "master") return 2;
    if (type == "worker" && idx == "0") return 3;
    std::string lrole = label_of(pod, labels::legacy::job_role);
    std::string ltype = detail::lower(label_of(pod, labels::legacy::replica_type));
    if (ltype.empty()) ltype = detail::lower(label_of(pod, labels::legacy::tf_replica_type));
    std::string lidx = label_of(pod, labels::legacy::replica_index);
    if (lidx.empty()) lidx = label_of(pod, labels::legacy::tf_replica_index);
    if (lrole == "master") return 4;
    if (ltype == "chief") return 5;
    if (ltype == "master") return 6;
    if (ltype == "worker" && lidx == "0") return 7;
    return 100;
  };
  const nlohmann::json* best = nullptr;
  int best_rank = 100;
  bool best_deleting = true;
  std::string best_created;
  for (const auto& p : pods) {
    int r = rank(p);
    if (r >= 100) continue;
    PodInfo info = pod_info(p);
    bool better = !best || r < best_rank || (r == best_rank && best_deleting && !info.deleting) ||
                  (r == best_rank && best_deleting == info.deleting && info.creation_timestamp > best_created);
    if (better) {
      best = &p;
      best_rank = r;
      best_deleting = info.deleting;
      best_created = info.creation_timestamp;
    }
  }
  if (!best) return std::nullopt;
  return *best;
}

TFJOB_INLINE std::optional<nlohmann::json> select_replica(const std::vector<nlohmann::json>& pods,
                                                          const std::string& type, int index) {
  const nlohmann::json* best = nullptr;
  PodInfo bi;
  for (const auto& p : pods) {
    PodInfo i = pod_info(p);
    if (i.replica_type != detail::lower(type) || i.replica_index != index) continue;
    if (!best || (bi.deleting && !i.deleting) ||
        (bi.deleting == i.deleting && i.creation_timestamp > bi.creation_timestamp)) {
      best = &p;
      bi = i;
    }
  }
  if (!best) return std::nullopt;
  return *best;
}

TFJOB_INLINE std::optional<nlohmann::json> select_failed(const std::vector<nlohmann::json>& pods) {
  std::vector<nlohmann::json> failed;
  for (const auto& p : pods) {
    PodInfo i = pod_info(p);
    if (i.phase == "Failed" || (i.exit_code && *i.exit_code != 0)) failed.push_back(p);
  }
  if (failed.empty()) return std::nullopt;
  if (auto c = select_chief(failed)) return c;
  std::sort(failed.begin(), failed.end(), [](const nlohmann::json& a, const nlohmann::json& b) {
    return pod_info(a).name < pod_info(b).name;
  });
  return failed.front();
}

TFJOB_INLINE int replica_rank(const std::string& lower_type) {
  static const char* o[] = {"chief", "master", "worker", "ps", "evaluator"};
  for (int i = 0; i < 5; ++i)
    if (lower_type == o[i]) return i;
  return 5;
}

TFJOB_INLINE void sort_pods(std::vector<nlohmann::json>& pods) {
  std::stable_sort(pods.begin(), pods.end(), [&](const nlohmann::json& a, const nlohmann::json& b) {
    PodInfo x = pod_info(a), y = pod_info(b);
    if (replica_rank(x.replica_type) != replica_rank(y.replica_type)) return replica_rank(x.replica_type) < replica_rank(y.replica_type);
    if (x.replica_type != y.replica_type) return x.replica_type < y.replica_type;
    if (x.replica_index != y.replica_index) return x.replica_index < y.replica_index;
    return x.name < y.name;
  });
}

}  // namespace tfjob::workflow
#endif  // TFJOB_SDK_DEFINE_WORKFLOW
