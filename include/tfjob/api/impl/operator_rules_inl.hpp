#pragma once
/// \file The bodies of <tfjob/api/operator_rules.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_API` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/api/operator_rules.hpp>, never this file.

namespace tfjob::rules {

TFJOB_INLINE bool exit_code_retryable(int code) { return code >= 128; }

TFJOB_INLINE bool restarts_after_failure(const std::string& restart_policy, int exit_code) {
  return (restart_policy == restart_policy::ExitCode && exit_code_retryable(exit_code)) ||
         restart_policy == restart_policy::OnFailure || restart_policy == restart_policy::Always;
}

TFJOB_INLINE bool counts_toward_backoff(const std::string& restart_policy) {
  return restart_policy == restart_policy::OnFailure || restart_policy == restart_policy::Always;
}

TFJOB_INLINE bool past_backoff_limit(long long restarts, long long backoff_limit) {
  return backoff_limit == 0 ? restarts > 0 : restarts >= backoff_limit;
}

TFJOB_INLINE std::string SuccessRule::who() const {
  switch (kind) {
    case Kind::chief: return "the " + decider;
    case Kind::worker0: return "Worker 0";
    case Kind::all_workers: return "every Worker";
    case Kind::none: return "no replica (the job has neither a Chief, a Master nor Workers)";
  }
  return "";
}

TFJOB_INLINE bool SuccessRule::decides(const std::string& type) const {
  switch (kind) {
    case Kind::chief: return is_chief_or_master(type);
    case Kind::worker0:
    case Kind::all_workers: return type == replica_type::Worker;
    case Kind::none: return false;
  }
  return false;
}

TFJOB_INLINE bool SuccessRule::met(long long replicas, long long succeeded, bool worker0_completed) const {
  const bool all = replicas - succeeded == 0;  // `expected == 0`
  return kind == Kind::worker0 ? all || worker0_completed : kind != Kind::none && all;
}

TFJOB_INLINE SuccessRule success_rule(const std::vector<std::string>& types, const std::string& success_policy) {
  SuccessRule r;
  auto has = [&](const char* t) { return std::find(types.begin(), types.end(), t) != types.end(); };
  const bool all_workers = success_policy == success_policy::AllWorkers;
  for (const char* t : {replica_type::Chief, replica_type::Master})
    if (has(t)) { r.kind = SuccessRule::Kind::chief; r.decider = t; break; }
  if (r.kind == SuccessRule::Kind::chief) {
    r.success_policy_ignored = all_workers;
  } else if (has(replica_type::Worker)) {
    r.kind = all_workers ? SuccessRule::Kind::all_workers : SuccessRule::Kind::worker0;
    r.decider = replica_type::Worker;
  }
  for (const auto& t : types)
    if (t != r.decider) r.bystanders.push_back(t);
  return r;
}

TFJOB_INLINE SuccessRule success_rule(const nlohmann::json& job) {
  std::vector<std::string> types;
  const auto specs = tfjob::detail::value_at(job, "/spec/tfReplicaSpecs"_json_pointer, nlohmann::json::object());
  if (specs.is_object())
    for (const auto& [t, v] : specs.items()) types.push_back(t);
  const auto sp = tfjob::detail::value_at(job, "/spec/successPolicy"_json_pointer, nlohmann::json());
  return success_rule(types, sp.is_string() ? sp.get<std::string>() : std::string());
}

TFJOB_INLINE SuccessRule success_rule(const TFJob& job) {
  std::vector<std::string> types;
  for (const auto& [t, spec] : job.spec.tf_replica_specs) types.push_back(t);
  return success_rule(types, job.spec.success_policy.value_or(""));
}

TFJOB_INLINE std::string succeeded_message(const std::string& ns, const std::string& name) {
  return "TFJob " + ns + "/" + name + " successfully completed.";
}

TFJOB_INLINE std::string replicas_failed_message(const std::string& ns, const std::string& name, long long failed,
                                                 const std::string& type) {
  return "TFJob " + ns + "/" + name + " has failed because " + std::to_string(failed) + " " + type + " replica(s) failed.";
}

TFJOB_INLINE std::string backoff_limit_message(const std::string& name) {
  return "Job " + name + " has failed because it has reached the specified backoff limit";
}

TFJOB_INLINE std::string deadline_message(const std::string& name) {
  return "Job " + name + " has failed because it was active longer than specified deadline";
}

TFJOB_INLINE std::string restarting_message(const std::string& name, const std::string& type) {
  return "job " + name + " is restarting because " + type + " replica(s) failed.";
}

TFJOB_INLINE bool never_exits_on_its_own(const std::string& type) {
  return type == replica_type::PS || type == replica_type::Evaluator;
}

TFJOB_INLINE std::string restart_policy_of(const ReplicaSpec& replica_spec) {
  return replica_spec.restart_policy.empty() ? std::string(default_restart_policy) : replica_spec.restart_policy;
}

TFJOB_INLINE std::string restart_policy_of(const nlohmann::json& replica_spec) {
  auto it = replica_spec.find("restartPolicy");
  return it != replica_spec.end() && it->is_string() && !it->get<std::string>().empty() ? it->get<std::string>()
                                                                                        : default_restart_policy;
}

}  // namespace tfjob::rules
