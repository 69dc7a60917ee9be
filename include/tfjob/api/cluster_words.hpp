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

}  // namespace tfjob::words

#if TFJOB_SDK_DEFINE_API
#include <tfjob/api/impl/cluster_words_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_API
