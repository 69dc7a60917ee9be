#pragma once
/// \file The training operator's job rules for a job whose replicas are local processes:
/// restart policies, backoffLimit, activeDeadlineSeconds, success and failure. Pure: the
/// runner feeds it exits and asks what to do.
///
/// The operator's rules are the SDK's, each written once (tfjob/api/operator_rules.hpp, with
/// their kubeflow/training-operator v1.9 sources): which exits come back (ReconcilePods,
/// IsRetryableExitCode), backoffLimit (PastBackoffLimit), who decides success
/// (UpdateJobStatus), and the conditions' words.

#include <tfjob/api/operator_rules.hpp>
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

  std::string namespace_, name_;
  rules::SuccessRule success_;
  std::optional<std::int32_t> backoff_limit_;
  std::optional<std::int64_t> active_deadline_;
  std::vector<ReplicaState> replicas_;
  int total_restarts_ = 0;
  std::string state_, reason_, message_, restarting_message_;
};

}  // namespace tfjob::local

#if TFJOB_SDK_DEFINE_LOCAL
#include <tfjob/local/impl/policy_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_LOCAL
