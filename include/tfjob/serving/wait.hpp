#pragma once
/// \file Waiting for a server: its object (a Deployment's rollout as `kubectl rollout status`
/// judges it, an InferenceService's conditions) and its pods through two long-lived watches,
/// failing early on pods that crash-loop or cannot pull their image; and TF Serving's model
/// status, asked through the service proxy until a version is AVAILABLE.

#include <tfjob/detail/compiled.hpp>
#include <tfjob/error.hpp>
#include <tfjob/kube/api.hpp>
#include <tfjob/kube/client.hpp>
#include <tfjob/kube/core.hpp>
#include <tfjob/kube/side_task.hpp>
#include <tfjob/serving/diagnose.hpp>
#include <tfjob/serving/manifests.hpp>
#include <tfjob/serving/proxy.hpp>
#include <tfjob/serving/resources.hpp>
#include <tfjob/serving/status.hpp>

#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace tfjob::serving {

/// How a wait ended.
enum class WaitResult { ready, failed, timeout, not_found, cancelled };  ///< cancelled: WaitOptions::cancel
struct WaitReport {
  WaitResult result = WaitResult::timeout;
  std::string message;       ///< last status line, or the failure
  std::string diagnosis;     ///< pods, events and logs when it failed or timed out
  std::string version;       ///< model wait: the AVAILABLE version
  /// A rollout's or InferenceService's timeout: what held each pod not ready back, from the
  /// pods as their watch last delivered them (blocker_hints words them).
  std::vector<PodBlocker> blockers;
};

struct WaitOptions {
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  std::chrono::milliseconds interval{500};  ///< between looks where TF Serving is asked (no watch exists)
  int crashloop_restarts = 2;  ///< a CrashLoopBackOff with this many restarts fails the wait
  std::function<void(const std::string&)> on_progress;
  const std::atomic<bool>* cancel = nullptr;  ///< raise to end the wait (WaitResult::cancelled)
};

/// The label selector of serve's server pods.
std::string server_pod_selector(const std::string& name);

/// One look at the object a wait is about (a Deployment's rollout, an InferenceService's
/// conditions): still waiting, ready, or failed for good; its message is the progress line.
struct ObjectVerdict {
  enum class Kind { waiting, ready, failed } kind = Kind::waiting;
  std::string message;
};

/// What a wait on an object and its pods (wait_object_and_pods) says: what the object is
/// called in messages, and what to say when its pods fail or none exists at a timeout.
struct ObjectWaitWords {
  std::string what;     ///< `deployment "x"`: "... not found in namespace", "... was deleted"
  std::string failing;  ///< the message when its pods crash-loop or cannot pull their image
  std::string no_pods;  ///< a timeout's diagnosis when it has no pod yet ("": the pods' own)
};

/// Waits on the object `name` of `res` and on its pods (`pod_selector`) through two
/// long-lived watches however long it lasts, never a periodic request: `judge` reads each
/// change of the object (ready or failed ends the wait); a pod that crash-loops or cannot
/// pull its image (pod_problems) ends it at once, since the object does not change for that.
/// Ends at `o.deadline`, or when `o.cancel` is raised (seen within 100 ms). `on_progress` gets
/// each new verdict's message on this thread. After the end: one list of the namespace's
/// events and, for failing pods, their logs (the diagnosis).
WaitReport wait_object_and_pods(kube::Client& c, const std::string& ns, const kube::ResourceInfo& res,
                                const std::string& name, const std::string& pod_selector, const WaitOptions& o,
                                const std::function<ObjectVerdict(const nlohmann::json&)>& judge,
                                const ObjectWaitWords& words);

/// Waits for the Deployment's rollout as `kubectl rollout status` does: its status judged by
/// kubectl's rules on every change the watch delivers (not polled), failed early on
/// ProgressDeadlineExceeded, and on a pod that crash-loops or cannot pull its image (the
/// server's pods watched beside it: pods do not change the Deployment when they do).
WaitReport wait_rollout(kube::Client& c, const std::string& ns, const std::string& name, const WaitOptions& o);

/// One look at the model's status through the proxy.
struct ModelProbe {
  enum class Kind { available, loading, failed, no_version, unreachable } kind = Kind::unreachable;
  std::string message;  ///< for people
  std::string version;  ///< when available
  ModelStatus status;   ///< TF Serving's answer, when it gave one
};

ModelProbe probe_model(kube::Client& c, const std::string& ns, const std::string& service, const std::string& model);

/// Waits until TF Serving reports a version of `model` AVAILABLE (HTTP 200 with LOADING is
/// not ready); fails at once when a version ends with an error.
WaitReport wait_model(kube::Client& c, const std::string& ns, const std::string& service, const std::string& model,
                      const WaitOptions& o);

}  // namespace tfjob::serving

#if TFJOB_SDK_DEFINE_SERVING
#include <tfjob/serving/impl/wait_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_SERVING
