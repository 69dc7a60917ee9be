#pragma once
/// \file The training operator's reconcile for one TFJob, as one pure function: given the
/// job and the pods and services it controls, what to create, what to delete, and the
/// status to write. Test machinery, not the SDK: the fake API server's operator
/// (tests/support/fake_controllers.cpp) and the real node's controller stand-in
/// (tests/realnode/controller/) link it (CMake target tfjob_test_operator); no I/O, the
/// caller applies the plan. The rules it shares with the product (success, retryable exit
/// codes, backoff, the conditions' words) are the SDK's, tfjob/api/operator_rules.hpp.
///
/// Mirrors kubeflow/training-operator v1.9:
/// - `pkg/controller.v1/common/job.go` ReconcileJobs (finished, suspend/resume,
///   backoffLimit, activeDeadlineSeconds, ttlSecondsAfterFinished, cleanPodPolicy),
/// - `pkg/controller.v1/tensorflow/tfjob_controller.go` (UpdateJobStatus,
///   IsWorker0Completed, onOwnerCreateFunc) and `tensorflow/util.go` (setRestartPolicy),
/// - `pkg/controller.v1/common/pod.go` (ReconcilePods, createNewPod, GetPodSlices,
///   updateJobReplicaStatuses), `common/service.go` (ReconcileServices, CreateNewService),
/// - `pkg/util/status.go` (UpdateJobConditions, filterOutCondition).
/// Pods and services are core/v1 objects kept as JSON.

#include <tfjob/api/types.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tfjob::op {

/// How the operator was started.
struct OperatorOptions {
  /// The operator's `CUSTOM_CLUSTER_DOMAIN`: TF_CONFIG hosts end in `.svc.{domain}`.
  std::string cluster_domain;
};

/// What the controller observed: the pods and services of the job's namespace that the
/// job controls (others are ignored, so passing every object of the namespace is fine).
struct Observed {
  std::vector<nlohmann::json> pods;
  std::vector<nlohmann::json> services;
};

/// An event the operator records on the TFJob.
struct JobEvent {
  std::string type;  ///< Normal or Warning
  std::string reason;
  std::string message;
};

/// What to do. Apply in order: delete, create, write status, delete the job.
struct Plan {
  std::vector<nlohmann::json> create_pods;      ///< complete Pod objects
  std::vector<nlohmann::json> create_services;  ///< complete Service objects
  std::vector<std::string> delete_pods;         ///< names, in the job's namespace
  std::vector<std::string> delete_services;
  /// The status to write through the status subresource; unset when it did not change.
  std::optional<JobStatus> status;
  /// ttlSecondsAfterFinished has passed: delete the TFJob (its pods go by GC).
  bool delete_job = false;
  /// Look again after this many seconds even if nothing changes (deadline, TTL).
  std::optional<std::int64_t> requeue_after;
  std::vector<JobEvent> events;

  bool empty() const;
};

/// `metadata.name` of a core/v1 object ("" when unset).
std::string object_name(const nlohmann::json& obj);

/// `UpdateJobConditions` (pkg/util/status.go): nothing changes once the job has Failed;
/// the same type, status and reason is a no-op; lastTransitionTime is kept while the
/// status stays; Running and Restarting replace each other; Succeeded and Failed turn a
/// Running condition False. The new condition goes last.
void update_condition(JobStatus& st, const std::string& type, const std::string& status,
                      const std::string& why, const std::string& message, const std::string& now);

/// The Pod the operator creates for replica `index` of `rtype` (`createNewPod`): the
/// template's spec, labels, annotations and finalizers; name `{job}-{type}-{i}`; the
/// operator's labels; TF_CONFIG appended to the `tensorflow` container's env; restartPolicy
/// from the replica spec (`ExitCode` becomes `Never`); the job as controlling owner. `job`
/// must be defaulted (with_defaults) and namespaced.
nlohmann::json desired_pod(const TFJob& job, const std::string& rtype, int index, const OperatorOptions& opts = {});

/// The headless Service of one replica (`CreateNewService`); nullopt when the replica has
/// no `tensorflow` container (`GetPortsFromJob`: "failed to find the port").
std::optional<nlohmann::json> desired_service(const TFJob& job, const std::string& rtype, int index);

/// One reconcile of `job` (as stored; defaulting is applied here like `Scheme.Default` in
/// the operator's Reconcile) at Unix time `now`. Returns what to change.
Plan reconcile(const TFJob& stored, const Observed& seen, std::int64_t now, const OperatorOptions& opts = {});

}  // namespace tfjob::op
