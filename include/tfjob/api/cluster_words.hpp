#pragma once
/// \file The words of kube-scheduler and the kubelet that the SDK reads (explain, wait,
/// describe, gpu-check, serve), written once, each with the Kubernetes source it mirrors and
/// the minors whose words differ, from 1.20 (the real-node tier's) to 1.36 (GDC 1.36's).
/// Reasons (CamelCase words in a status or event) are an API; messages are not, so every
/// message rule names the wording of each minor, and tests/explain_rules_test.cpp holds a
/// fixture per wording ("the scheduler's and the kubelet's words, 1.20 to 1.36").

#include <tfjob/detail/compiled.hpp>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace tfjob::words {

/// What a FailedScheduling event (or a PodScheduled=False condition) says held a pod back:
/// kube-scheduler's FitError, "0/N nodes are available: <count> <reason>, ...." (pkg/scheduler/
/// framework/types.go FitError.Error(), 1.20-1.36), read filter by filter.
struct SchedulerWords {
  /// NodeResourcesFit: `fmt.Sprintf("Insufficient %v", r.ResourceName)`
  /// (pkg/scheduler/framework/plugins/noderesources/fit.go, the same in 1.20-1.36).
  std::vector<std::string> insufficient;
  /// NodeAffinity, the pod's own nodeSelector / required node affinity (plugins/nodeaffinity/
  /// node_affinity.go ErrReasonPod): 1.20 "node(s) didn't match Pod's node affinity";
  /// 1.21-1.36 "node(s) didn't match Pod's node affinity/selector" (kubernetes #97521);
  /// 1.19 and before (predicates) "node(s) didn't match node selector".
  bool selector = false;
  /// NodeAffinity, the scheduler profile's addedAffinity (ErrReasonEnforced, 1.20-1.36:
  /// "node(s) didn't match scheduler-enforced node affinity", kubernetes #96202): not the
  /// pod's to fix.
  bool enforced_affinity = false;
  /// TaintToleration (plugins/tainttoleration/taint_toleration.go Filter):
  /// 1.20-1.24 "node(s) had taint {k: v}, that the pod didn't tolerate" (kubernetes #87250);
  /// 1.25-1.34 "node(s) had untolerated taint {k: v}" (kubernetes #109119, taken out of the
  /// v1.24 milestone at its code freeze);
  /// 1.35-1.36, and 1.34 patches with kubernetes #135023, "node(s) had untolerated taint(s)"
  /// (kubernetes #134740: no taint keys or values in pod status); and the plugin's
  /// ErrReasonNotMatch, "node(s) had taints that the pod didn't tolerate" (1.17-1.19's
  /// filter words, still the kubelet's admission reason).
  bool taint = false;
  /// NodeUnschedulable: "node(s) were unschedulable" (plugins/nodeunschedulable/
  /// node_unschedulable.go ErrReasonUnschedulable, 1.20-1.36): cordoned nodes.
  bool cordoned = false;
  /// VolumeBinding (plugins/volumebinding/volume_binding.go, 1.20-1.36): "pod has unbound
  /// immediate PersistentVolumeClaims", `persistentvolumeclaim "NAME" not found`, and
  /// ErrReasonBindConflict "node(s) didn't find available persistent volumes to bind".
  bool claim = false;
  bool claim_not_found = false;  ///< the `persistentvolumeclaim "NAME" not found` form
};

/// The filter part of a FailedScheduling message: 1.24 and later append the PostFilter's
/// words, " preemption: 0/N nodes are available: ..." (kubernetes #107775, DefaultPreemption),
/// and 1.37 a placement it found ("preemption: found a potential placement ...", #140180);
/// those repeat "Insufficient ..." and must not be read as the filters' verdict.
std::string scheduler_filters(const std::string& message);

/// Read a FailedScheduling message (any minor 1.20-1.36, see SchedulerWords).
SchedulerWords read_scheduler_message(const std::string& message);

/// Whether the scheduler's message says a node lacks `resource` ("Insufficient nvidia.com/gpu").
bool says_insufficient(const std::string& message, const std::string& resource);

/// The kubelet's waiting reasons for an image it cannot get (pkg/kubelet/images/types.go:
/// ErrImagePull, ImagePullBackOff, ErrImageNeverPull, InvalidImageName; 1.20-1.36).
bool image_pull_problem(const std::string& reason);

/// Whether an ImagePullBackOff message already names the registry's error: 1.32 and later
/// write `Back-off pulling image "IMG": ErrImagePull: <the pull error>` (kubernetes #127918,
/// pkg/kubelet/images/image_manager.go); 1.20-1.31 only `Back-off pulling image "IMG"`, the
/// error being in the kubelet's Failed event.
bool pull_backoff_names_error(const std::string& message);

/// The kubelet's crash-loop waiting reason, "CrashLoopBackOff" (kubecontainer.ErrCrashLoopBackOff),
/// whose message is "back-off <d> restarting failed container=<c> pod=<p>" (pkg/kubelet/
/// kuberuntime/kuberuntime_manager.go doBackOff, 1.20-1.36).
bool crash_loop(const std::string& reason);

/// The kubelet's BackOff event for a container it will restart (events.BackOffStartContainer):
/// 1.20-1.25 "Back-off restarting failed container"; 1.26-1.36 "Back-off restarting failed
/// container <c> in pod <p>" (kubernetes #113216). `container` set: that container's only
/// (1.26+ name it; the older words fit any).
bool restart_backoff_event(const std::string& reason, const std::string& message, const std::string& container = {});

/// A container the kernel's OOM killer ended: terminated reason "OOMKilled" (set by the
/// runtime through CRI, containerd's and CRI-O's word, 1.20-1.36), exit code 137.
bool oom_killed(const std::string& terminated_reason);

/// Whether `name` is a native sidecar of a pod spec: an init container with `restartPolicy:
/// Always` (KEP-753: 1.28 alpha behind SidecarContainers, 1.29 beta and on by default, 1.33
/// GA; pkg/api/v1/pod IsRestartableInitContainer). The kubelet starts it before the
/// containers, restarts it whatever the pod's restartPolicy, reports it in
/// initContainerStatuses, and stops it once the containers have ended: it never decides
/// whether the pod succeeded. Before 1.28 the field does not exist (the API server drops it).
bool restartable_init_container(const nlohmann::json& pod_spec, const std::string& name);

}  // namespace tfjob::words

#if TFJOB_SDK_DEFINE_API
namespace tfjob::words {

TFJOB_INLINE std::string scheduler_filters(const std::string& message) {
  const auto p = message.find(" preemption: ");
  return p == std::string::npos ? message : message.substr(0, p);
}

TFJOB_INLINE SchedulerWords read_scheduler_message(const std::string& message) {
  SchedulerWords w;
  const std::string m = scheduler_filters(message);
  auto has = [&](const char* s) { return m.find(s) != std::string::npos; };
  for (std::size_t at = m.find("Insufficient "); at != std::string::npos; at = m.find("Insufficient ", at + 13)) {
    auto end = m.find_first_of(" ,", at + 13);  // "Insufficient nvidia.com/gpu." (the name has dots)
    std::string res = m.substr(at + 13, end == std::string::npos ? std::string::npos : end - at - 13);
    while (!res.empty() && res.back() == '.') res.pop_back();
    if (!res.empty()) w.insufficient.push_back(res);
  }
  w.enforced_affinity = has("scheduler-enforced node affinity");
  w.selector = has("didn't match Pod's node affinity") || has("didn't match node selector");
  w.taint = has("untolerated taint") || (has("had taint") && has("didn't tolerate"));
  w.cordoned = has("were unschedulable");
  w.claim_not_found = has("persistentvolumeclaim \"") && has("\" not found");
  w.claim = w.claim_not_found || has("PersistentVolumeClaim") || has("persistentvolumeclaim") ||
            has("available persistent volumes to bind");
  return w;
}

TFJOB_INLINE bool says_insufficient(const std::string& message, const std::string& resource) {
  for (const auto& r : read_scheduler_message(message).insufficient)
    if (r == resource) return true;
  return false;
}

TFJOB_INLINE bool image_pull_problem(const std::string& reason) {
  return reason == "ErrImagePull" || reason == "ImagePullBackOff" || reason == "ErrImageNeverPull" || reason == "InvalidImageName";
}

TFJOB_INLINE bool pull_backoff_names_error(const std::string& message) {
  // `Back-off pulling image "IMG"` (a quoted reference, so a colon in it is no separator)
  const auto q = message.find('"');
  const auto q2 = q == std::string::npos ? std::string::npos : message.find('"', q + 1);
  return q2 != std::string::npos && message.find(": ", q2) != std::string::npos;
}

TFJOB_INLINE bool crash_loop(const std::string& reason) { return reason == "CrashLoopBackOff"; }

TFJOB_INLINE bool restart_backoff_event(const std::string& reason, const std::string& message, const std::string& container) {
  if (reason != "BackOff" || message.rfind("Back-off restarting failed container", 0) != 0) return false;
  if (container.empty() || message == "Back-off restarting failed container") return true;
  return message.rfind("Back-off restarting failed container " + container + " in pod ", 0) == 0;
}

TFJOB_INLINE bool oom_killed(const std::string& terminated_reason) { return terminated_reason == "OOMKilled"; }

TFJOB_INLINE bool restartable_init_container(const nlohmann::json& pod_spec, const std::string& name) {
  if (!pod_spec.is_object()) return false;
  auto ics = pod_spec.find("initContainers");
  if (ics == pod_spec.end() || !ics->is_array()) return false;
  for (const auto& c : *ics) {
    if (!c.is_object()) continue;
    auto n = c.find("name"), rp = c.find("restartPolicy");
    if (n != c.end() && n->is_string() && *n == name) return rp != c.end() && rp->is_string() && *rp == "Always";
  }
  return false;
}

}  // namespace tfjob::words
#endif  // TFJOB_SDK_DEFINE_API
