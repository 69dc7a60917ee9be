#pragma once
/// \file The training operator v1.9 rules an explanation rests on, each written once as a
/// small pure function with the source it mirrors (kubeflow/training-operator v1.9):
/// which exit codes `ExitCode` retries, which replica decides success, which replicas
/// never end on their own, and which restarts count toward `backoffLimit`.
/// Where api/operator.hpp (the operator's reconcile, shared by the fake and the controller
/// stand-in) already has a rule, this header uses it rather than restating it.

#include <tfjob/api/operator.hpp>
#include <tfjob/detail/compiled.hpp>
#include <tfjob/detail/json.hpp>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace tfjob::rules {

/// Whether restartPolicy `ExitCode` restarts a replica that exited with `code`: the
/// operator's own rule (op::is_retryable_exit_code, train_util.go `IsRetryableExitCode`).
bool exit_code_retryable(int code);

/// Whether restarts under `restart_policy` count toward `runPolicy.backoffLimit`
/// (pkg/controller.v1/common/job.go `PastBackoffLimit`: only OnFailure and Always; the
/// container restarts of running pods are summed. Pods that ExitCode recreates are not
/// counted, so a retryable exit code is retried without limit).
bool counts_toward_backoff(const std::string& restart_policy);

/// Whether `restarts` restarts exhaust `backoff_limit` (PastBackoffLimit: a limit of 0
/// fails on the first restart, else on reaching the limit).
bool past_backoff_limit(int restarts, int backoff_limit);

/// The replica types as the TFJob API spells them (pkg/apis/kubeflow.org/v1/tensorflow_types.go).
bool is_chief_or_master(const std::string& type);

/// How a TFJob's success is decided (pkg/controller.v1/tensorflow/tfjob_controller.go
/// `UpdateJobStatus`): with a Chief or Master, when it succeeds; otherwise when Worker 0
/// succeeds, or with `successPolicy: AllWorkers` when every Worker has. PS and Evaluator
/// replicas never decide it.
struct SuccessRule {
  enum class Kind { chief, worker0, all_workers, none } kind = Kind::none;
  std::string decider;               ///< "Chief", "Master", "Worker" ("" for none)
  bool success_policy_ignored = false;  ///< AllWorkers set, but a Chief/Master decides
  std::vector<std::string> bystanders;  ///< types that do not decide (PS, Evaluator, Workers under a chief)
  /// "the Chief", "Worker 0", "every Worker".
  std::string who() const;
};

SuccessRule success_rule(const nlohmann::json& job);

/// Replica types whose pods run servers that never exit on their own: PS serve variables
/// until killed, an Evaluator polls for new checkpoints (training-operator #774, #1658).
bool never_exits_on_its_own(const std::string& type);

/// The default restart policy of a replica (pkg/apis/kubeflow.org/v1/tensorflow_defaults.go: Never).
std::string restart_policy_of(const nlohmann::json& replica_spec);

}  // namespace tfjob::rules

#if TFJOB_SDK_DEFINE_API
namespace tfjob::rules {

TFJOB_INLINE bool exit_code_retryable(int code) { return op::is_retryable_exit_code(code); }

TFJOB_INLINE bool counts_toward_backoff(const std::string& restart_policy) {
  return restart_policy == "OnFailure" || restart_policy == "Always";
}

TFJOB_INLINE bool past_backoff_limit(int restarts, int backoff_limit) {
  return backoff_limit == 0 ? restarts > 0 : restarts >= backoff_limit;
}

TFJOB_INLINE bool is_chief_or_master(const std::string& type) { return type == "Chief" || type == "Master"; }

TFJOB_INLINE std::string SuccessRule::who() const {
  switch (kind) {
    case Kind::chief: return "the " + decider;
    case Kind::worker0: return "Worker 0";
    case Kind::all_workers: return "every Worker";
    case Kind::none: return "no replica (the job has neither a Chief, a Master nor Workers)";
  }
  return "";
}

TFJOB_INLINE SuccessRule success_rule(const nlohmann::json& job) {
  SuccessRule r;
  const auto specs = job.contains("/spec/tfReplicaSpecs"_json_pointer) && job["/spec/tfReplicaSpecs"_json_pointer].is_object()
                         ? job["/spec/tfReplicaSpecs"_json_pointer]
                         : nlohmann::json::object();
  const auto sp = tfjob::detail::value_at(job, "/spec/successPolicy"_json_pointer, nlohmann::json());
  const bool all_workers = sp.is_string() && sp.get<std::string>() == "AllWorkers";
  for (const char* t : {"Chief", "Master"})
    if (specs.contains(t)) { r.kind = SuccessRule::Kind::chief; r.decider = t; break; }
  if (r.kind == SuccessRule::Kind::chief) {
    r.success_policy_ignored = all_workers;
  } else if (specs.contains("Worker")) {
    r.kind = all_workers ? SuccessRule::Kind::all_workers : SuccessRule::Kind::worker0;
    r.decider = "Worker";
  }
  for (const auto& [t, v] : specs.items())
    if (t != r.decider) r.bystanders.push_back(t);
  return r;
}

TFJOB_INLINE bool never_exits_on_its_own(const std::string& type) { return type == "PS" || type == "Evaluator"; }

TFJOB_INLINE std::string restart_policy_of(const nlohmann::json& replica_spec) {
  auto it = replica_spec.find("restartPolicy");
  return it != replica_spec.end() && it->is_string() && !it->get<std::string>().empty() ? it->get<std::string>() : "Never";
}

}  // namespace tfjob::rules
#endif  // TFJOB_SDK_DEFINE_API
