#pragma once
/// \file The training operator v1.9's job rules, each written once as a small pure function
/// with the source it mirrors (kubeflow/training-operator v1.9): which exit codes
/// `ExitCode` retries, which failed replicas come back, which restarts count toward
/// `backoffLimit`, which replica decides success, and the words of the conditions the
/// rules write. `explain` and the local runner call them, and so do the test stand-ins of
/// the operator (tests/support/operator/: the fake API server's and the real node's).

#include <tfjob/api/types.hpp>
#include <tfjob/detail/compiled.hpp>
#include <tfjob/detail/json.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>  // std::find
#include <string>
#include <vector>

namespace tfjob::rules {

/// The condition reasons the operator writes: `commonutil.NewReason(TFJobKind, Job*Reason)`
/// (pkg/util/status.go: "TFJob" + "Created", "Running", ...).
namespace reason {
inline constexpr const char* created = "TFJobCreated";
inline constexpr const char* running = "TFJobRunning";
inline constexpr const char* restarting = "TFJobRestarting";
inline constexpr const char* succeeded = "TFJobSucceeded";
inline constexpr const char* failed = "TFJobFailed";
inline constexpr const char* suspended = "TFJobSuspended";
inline constexpr const char* resumed = "TFJobResumed";
}  // namespace reason

/// Whether restartPolicy `ExitCode` restarts a replica that exited with `code`
/// (pkg/util/train/train_util.go `IsRetryableExitCode`: `exitCode >= 128`, i.e. killed by a
/// signal such as 137 SIGKILL or 143 SIGTERM; 1-127 are permanent errors).
bool exit_code_retryable(int code);

/// Whether a replica whose pod failed with `exit_code` is started again under
/// `restart_policy` (pkg/controller.v1/common/pod.go `ReconcilePods`: ExitCode with a
/// retryable code, OnFailure and Always; Never, and ExitCode with a permanent code, fail).
bool restarts_after_failure(const std::string& restart_policy, int exit_code);

/// Whether restarts under `restart_policy` count toward `runPolicy.backoffLimit`
/// (pkg/core/job.go `PastBackoffLimit` sums the container restartCounts of the Running pods
/// of OnFailure, Always and ExitCode replicas; an ExitCode pod runs with restartPolicy Never
/// (tensorflow/util.go `setRestartPolicy`) and is recreated, not restarted, so its count
/// stays 0: only OnFailure and Always restarts count, and a retryable exit code is retried
/// without limit).
bool counts_toward_backoff(const std::string& restart_policy);

/// Whether `restarts` restarts exhaust `backoff_limit` (PastBackoffLimit: a limit of 0
/// fails on the first restart, else on reaching the limit).
bool past_backoff_limit(long long restarts, long long backoff_limit);

/// How a TFJob's success is decided (pkg/controller.v1/tensorflow/tfjob_controller.go
/// `UpdateJobStatus`): with a Chief or Master (`ContainsChiefOrMasterSpec`), when it
/// succeeds; otherwise when Worker 0 succeeds, or with `successPolicy: AllWorkers` when
/// every Worker has. PS and Evaluator replicas never decide it.
struct SuccessRule {
  enum class Kind { chief, worker0, all_workers, none } kind = Kind::none;
  std::string decider;               ///< "Chief", "Master", "Worker" ("" for none)
  bool success_policy_ignored = false;  ///< AllWorkers set, but a Chief/Master decides
  std::vector<std::string> bystanders;  ///< types that do not decide (PS, Evaluator, Workers under a chief)
  /// "the Chief", "Worker 0", "every Worker".
  std::string who() const;
  /// Whether replicas of `type` decide: Chief and Master when the job has either
  /// (`IsChiefOrMaster`), else Worker.
  bool decides(const std::string& type) const;
  /// UpdateJobStatus's test for a deciding type with `replicas` replicas of which
  /// `succeeded` succeeded: all of them (`expected == 0`), or, for Workers under the default
  /// policy, Worker 0 completed (`IsWorker0Completed`: its pod Succeeded with exit code 0).
  bool met(long long replicas, long long succeeded, bool worker0_completed) const;
};

/// The rule for a job with replica types `types` (as the spec spells them) and
/// `success_policy` ("" or "AllWorkers").
SuccessRule success_rule(const std::vector<std::string>& types, const std::string& success_policy);
/// The rule for a TFJob as JSON (any shape: what is not a replica spec is ignored).
SuccessRule success_rule(const nlohmann::json& job);
/// The rule for a typed TFJob.
SuccessRule success_rule(const TFJob& job);

/// The Succeeded condition's message (UpdateJobStatus): "TFJob {ns}/{name} successfully completed."
std::string succeeded_message(const std::string& ns, const std::string& name);
/// The Failed condition's message when replicas failed for good (UpdateJobStatus):
/// "TFJob {ns}/{name} has failed because {n} {type} replica(s) failed."
std::string replicas_failed_message(const std::string& ns, const std::string& name, long long failed,
                                    const std::string& type);
/// The Failed condition's message at backoffLimit (pkg/controller.v1/common/job.go
/// `ReconcileJobs`): "Job {name} has failed because it has reached the specified backoff limit".
std::string backoff_limit_message(const std::string& name);
/// The Failed condition's message at activeDeadlineSeconds (ReconcileJobs): "Job {name} has
/// failed because it was active longer than specified deadline".
std::string deadline_message(const std::string& name);
/// The Restarting condition's message (pkg/controller.v1/common/pod.go `ReconcilePods`):
/// "job {name} is restarting because {type} replica(s) failed."
std::string restarting_message(const std::string& name, const std::string& type);

/// Replica types whose pods run servers that never exit on their own: PS serve variables
/// until killed, an Evaluator polls for new checkpoints (training-operator #774, #1658).
bool never_exits_on_its_own(const std::string& type);

/// The restart policy of a replica as JSON, defaulted (pkg/apis/kubeflow.org/v1/
/// tensorflow_defaults.go `setDefaultRestartPolicy`: Never).
std::string restart_policy_of(const nlohmann::json& replica_spec);
/// The same for a typed replica spec.
std::string restart_policy_of(const ReplicaSpec& replica_spec);

}  // namespace tfjob::rules

#if TFJOB_SDK_DEFINE_API
#include <tfjob/api/impl/operator_rules_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_API
