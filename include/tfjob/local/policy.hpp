#pragma once
/// \file The training operator's job rules for a job whose replicas are local processes:
/// restart policies, backoffLimit, activeDeadlineSeconds, success and failure. Pure: the
/// runner feeds it exits and asks what to do.
///
/// Mirrors kubeflow/training-operator v1.9: `pkg/controller.v1/tensorflow/tfjob_controller.go`
/// (UpdateJobStatus: success by chief/master, else worker 0 or AllWorkers; any failed
/// replica fails the job), `pkg/controller.v1/common/job.go` (backoff limit, deadline;
/// messages and reasons), `pkg/util/train/train_util.go` (IsRetryableExitCode: >= 128).

#include <tfjob/api/operator.hpp>
#include <tfjob/api/types.hpp>
#include <tfjob/detail/compiled.hpp>

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

namespace tfjob::local {

/// What happens to one replica after its process exits.
enum class exit_action {
  succeeded,  ///< done for good, exit code 0
  restart,    ///< start it again (same TF_CONFIG, same port)
  failed,     ///< failed for good
};

/// The operator's rule (api/operator.hpp): exit codes >= 128 are retryable under
/// `restartPolicy: ExitCode`; 1-127 are permanent errors.
using op::is_retryable_exit_code;

/// The decision for one exit under one restart policy.
///
/// `Always` restarts every failed exit like `OnFailure`; a process that exits 0 is done
/// (on a cluster the kubelet would start even that container again and the job could never
/// complete; locally that would be a loop, so the runner treats the exit as success).
exit_action action_for_exit(const std::string& restart_policy, int exit_code);

/// Lower-case replica name as in pod names: `worker-1`, `chief-0`.
std::string short_name(const std::string& type, int index);

/// One replica as the runner tracks it.
struct ReplicaState {
  std::string type;  ///< as in the spec: Chief, Worker, PS...
  int index = 0;
  std::string restart_policy;
  std::string phase = "Pending";  ///< Pending, Running, Restarting, Succeeded, Failed, Stopped
  int restarts = 0;
  int last_exit_code = -1;  ///< -1 until it exits; 128+N when killed by signal N
  std::string name() const;
};

/// The job's rules over its replicas. Feed it starts and exits; it answers whether to
/// restart and when the job has succeeded or failed.
class JobTracker {
 public:
  /// `job` must be defaulted (replicas and restartPolicy set).
  explicit JobTracker(const TFJob& job);

  const std::vector<ReplicaState>& replicas() const { return replicas_; }
  ReplicaState* find(const std::string& type, int index);

  bool finished() const { return !state_.empty(); }
  /// "Succeeded" or "Failed" once finished, "" before.
  const std::string& state() const { return state_; }
  const std::string& reason() const { return reason_; }
  const std::string& message() const { return message_; }
  int total_restarts() const { return total_restarts_; }
  std::optional<std::int64_t> active_deadline_seconds() const { return active_deadline_; }

  void on_started(const std::string& type, int index);

  /// A replica's process ended with `exit_code` (128+N for signal N). After the job has
  /// finished, exits only mark the replica as stopped.
  exit_action on_exit(const std::string& type, int index, int exit_code);

  /// Fails the job when it has been active longer than activeDeadlineSeconds.
  bool check_deadline(std::chrono::steady_clock::duration active);

  /// Ends the job from outside (Ctrl-C, SIGTERM, a start failure).
  void interrupt(const std::string& reason, const std::string& message);

  /// Replica counts per type, as `status.replicaStatuses` (active = running or restarting).
  std::map<std::string, ReplicaStatus> replica_statuses() const;

 private:
  void evaluate();

  void finish(const std::string& state, const std::string& reason, const std::string& message);

  std::string namespace_, name_, success_policy_;
  std::optional<std::int32_t> backoff_limit_;
  std::optional<std::int64_t> active_deadline_;
  bool has_chief_ = false;
  std::vector<ReplicaState> replicas_;
  int total_restarts_ = 0;
  std::string state_, reason_, message_, restarting_message_;
};

}  // namespace tfjob::local

#if TFJOB_SDK_DEFINE_LOCAL
namespace tfjob::local {

TFJOB_INLINE exit_action action_for_exit(const std::string& restart_policy, int exit_code) {
  if (exit_code == 0) return exit_action::succeeded;
  if (restart_policy == restart_policy::OnFailure || restart_policy == restart_policy::Always)
    return exit_action::restart;
  if (restart_policy == restart_policy::ExitCode)
    return is_retryable_exit_code(exit_code) ? exit_action::restart : exit_action::failed;
  return exit_action::failed;  // Never (the default)
}

TFJOB_INLINE std::string short_name(const std::string& type, int index) {
  return to_lower(type) + "-" + std::to_string(index);
}

TFJOB_INLINE std::string ReplicaState::name() const { return short_name(type, index); }

TFJOB_INLINE JobTracker::JobTracker(const TFJob& job)
    : namespace_(job.metadata.namespace_.empty() ? "default" : job.metadata.namespace_),
      name_(job.metadata.name),
      success_policy_(job.spec.success_policy.value_or("")),
      backoff_limit_(job.spec.run_policy.backoff_limit),
      active_deadline_(job.spec.run_policy.active_deadline_seconds) {
  for (const auto& [type, spec] : job.spec.tf_replica_specs) {
    for (int i = 0; i < spec.replicas_or_default(); ++i) {
      ReplicaState r;
      r.type = type;
      r.index = i;
      r.restart_policy = spec.restart_policy.empty() ? restart_policy::Never : spec.restart_policy;
      replicas_.push_back(r);
    }
    if (is_chief_or_master(type)) has_chief_ = true;
  }
}

TFJOB_INLINE ReplicaState* JobTracker::find(const std::string& type, int index) {
  for (auto& r : replicas_)
    if (r.type == type && r.index == index) return &r;
  return nullptr;
}

TFJOB_INLINE void JobTracker::on_started(const std::string& type, int index) {
  if (auto* r = find(type, index)) r->phase = "Running";
}

TFJOB_INLINE exit_action JobTracker::on_exit(const std::string& type, int index, int exit_code) {
  ReplicaState* r = find(type, index);
  if (!r) return exit_action::failed;
  r->last_exit_code = exit_code;
  if (finished()) {
    r->phase = exit_code == 0 ? "Succeeded" : "Stopped";
    return exit_code == 0 ? exit_action::succeeded : exit_action::failed;
  }
  exit_action a = action_for_exit(r->restart_policy, exit_code);
  if (a == exit_action::restart) {
    // job.go PastBackoffLimit: the job fails once the restarts reach backoffLimit (any
    // restart when it is 0). The operator counts only OnFailure/Always restarts (the
    // kubelet's restartCount); the runner counts ExitCode restarts too, so a replica
    // that keeps being killed cannot loop forever.
    if (backoff_limit_ && total_restarts_ + 1 >= std::max<std::int32_t>(*backoff_limit_, 1)) {
      r->phase = "Failed";
      finish("Failed", "BackoffLimitExceeded",
             "Job " + name_ + " has failed because it has reached the specified backoff limit");
      return exit_action::failed;
    }
    ++r->restarts;
    ++total_restarts_;
    r->phase = "Restarting";
    restarting_message_ = "TFJob " + namespace_ + "/" + name_ + " is restarting because 1 " + type +
                          " replica(s) failed.";
    return a;
  }
  r->phase = a == exit_action::succeeded ? "Succeeded" : "Failed";
  evaluate();
  return a;
}

TFJOB_INLINE bool JobTracker::check_deadline(std::chrono::steady_clock::duration active) {
  if (finished() || !active_deadline_) return false;
  if (active < std::chrono::seconds(*active_deadline_)) return false;
  finish("Failed", "DeadlineExceeded", "Job " + name_ + " has failed because it was active longer than specified deadline");
  return true;
}

TFJOB_INLINE void JobTracker::interrupt(const std::string& reason, const std::string& message) {
  if (!finished()) finish("Failed", reason, message);
}

TFJOB_INLINE std::map<std::string, ReplicaStatus> JobTracker::replica_statuses() const {
  std::map<std::string, ReplicaStatus> out;
  for (const auto& r : replicas_) {
    auto& s = out[r.type];
    if (r.phase == "Succeeded") ++s.succeeded;
    else if (r.phase == "Failed") ++s.failed;
    else if (r.phase == "Running" || r.phase == "Restarting") ++s.active;
  }
  return out;
}

// tfjob_controller.go UpdateJobStatus, for the replica types that decide the outcome.
TFJOB_INLINE void JobTracker::evaluate() {
  int chief_expected = 0, workers = 0, workers_succeeded = 0;
  bool worker0_succeeded = false;
  std::map<std::string, int> failed;
  for (const auto& r : replicas_) {
    if (r.phase == "Failed") ++failed[r.type];
    if (is_chief_or_master(r.type) && r.phase != "Succeeded") ++chief_expected;
    if (r.type == replica_type::Worker) {
      ++workers;
      if (r.phase == "Succeeded") {
        ++workers_succeeded;
        if (r.index == 0) worker0_succeeded = true;
      }
    }
  }
  for (const auto& [type, n] : failed) {
    if (n > 0) {
      finish("Failed", "TFJobFailed", "TFJob " + namespace_ + "/" + name_ + " has failed because " +
                                          std::to_string(n) + " " + type + " replica(s) failed.");
      return;
    }
  }
  bool done = has_chief_ ? chief_expected == 0
                         : (workers > 0 && (workers_succeeded == workers ||
                                            (worker0_succeeded && success_policy_ != success_policy::AllWorkers)));
  if (done) finish("Succeeded", "TFJobSucceeded", "TFJob " + namespace_ + "/" + name_ + " successfully completed.");
}

TFJOB_INLINE void JobTracker::finish(const std::string& state, const std::string& reason, const std::string& message) {
  state_ = state;
  reason_ = reason;
  message_ = message;
}

}  // namespace tfjob::local
#endif  // TFJOB_SDK_DEFINE_LOCAL
