#pragma once
/// \file The one-line progress `submit --wait` and `logs -f` show on stderr while a job
/// starts: its state, its pods by phase, and why pending pods wait (the scheduler's own
/// words from `FailedScheduling` events, or the container's waiting reason).

#include <tfjob/api/k8s/event.hpp>
#include <tfjob/api/k8s/pod.hpp>
#include <tfjob/api/types.hpp>
#include <tfjob/detail/compiled.hpp>
#include <tfjob/detail/json.hpp>
#include <tfjob/detail/order.hpp>
#include <tfjob/workflow/pods.hpp>
#include <tfjob/workflow/status.hpp>

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace tfjob::workflow {

/// Why one pending pod is not running yet.
struct PendingReason {
  std::string pod;
  std::string reason;   ///< e.g. FailedScheduling, ImagePullBackOff, ContainerCreating
  std::string message;  ///< e.g. "0/3 nodes are available: 3 Insufficient nvidia.com/gpu."
};

/// Whether a container waiting for `reason` will not start until the user acts: the image
/// is not on the node and imagePullPolicy is Never, or the image reference does not parse
/// (kubelet pkg/kubelet/images/types.go: ErrImageNeverPull, ErrInvalidImageName). Pull
/// back-offs (ImagePullBackOff, ErrImagePull) are not: a registry can come back.
bool cannot_start(const std::string& reason);

/// A snapshot of a starting or running job.
struct Progress {
  std::string state;  ///< the job's state (Created, Running...), "" before the operator saw it
  int pending = 0, running = 0, succeeded = 0, failed = 0;
  int expected = 0;   ///< pods the spec asks for
  std::vector<PendingReason> waiting;
  /// `Running · pods 1/3 running, 2 pending · worker-1: 0/3 nodes are available: ...`
  std::string line() const;
};

namespace detail {
/// The time an event orders by: lastTimestamp, else eventTime, else firstTimestamp, else its creation.
std::string event_time(const k8s::Event& e);
}  // namespace detail

/// Events about one object (matched by kind, name and, when both carry one, uid), oldest first.
std::vector<k8s::Event> events_for(const std::vector<k8s::Event>& events, const std::string& kind,
                                   const std::string& name, const std::string& uid = {});

/// Why `pod` (Pending) is not running yet: unscheduled, the scheduler's latest
/// `FailedScheduling` event (matched by uid), else the PodScheduled=False condition; once
/// scheduled, the container's waiting reason and message. std::nullopt when it says nothing.
std::optional<PendingReason> pending_reason(const k8s::Pod& pod, const std::vector<k8s::Event>& events);

/// Build the progress snapshot from the job's summary, its pods and their events (any others are ignored).
Progress progress(const JobSummary& job, const std::vector<k8s::Pod>& pods, const std::vector<k8s::Event>& events);
/// The same from the job.
Progress progress(const TFJob& job, const std::vector<k8s::Pod>& pods, const std::vector<k8s::Event>& events);

}  // namespace tfjob::workflow

#if TFJOB_SDK_DEFINE_WORKFLOW
#include <tfjob/workflow/impl/progress_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_WORKFLOW
