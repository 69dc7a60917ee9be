#pragma once
/// \file The bodies of <tfjob/local/policy.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_LOCAL` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/local/policy.hpp>, never this file.

namespace tfjob::local {

TFJOB_INLINE exit_action action_for_exit(const std::string& restart_policy, int exit_code) {
  if (exit_code == 0) return exit_action::succeeded;
  return rules::restarts_after_failure(restart_policy, exit_code) ? exit_action::restart : exit_action::failed;
}

TFJOB_INLINE std::string short_name(const std::string& type, int index) {
  return to_lower(type) + "-" + std::to_string(index);
}

TFJOB_INLINE std::string ReplicaState::name() const { return short_name(type, index); }

TFJOB_INLINE JobTracker::JobTracker(const TFJob& job)
    : namespace_(job.metadata.namespace_.empty() ? "default" : job.metadata.namespace_),
      name_(job.metadata.name),
      success_(rules::success_rule(job)),
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
    if (backoff_limit_ && rules::past_backoff_limit(total_restarts_ + 1, *backoff_limit_)) {
      r->phase = "Failed";
      finish("Failed", "BackoffLimitExceeded", rules::backoff_limit_message(name_));
      return exit_action::failed;
    }
    ++r->restarts;
    ++total_restarts_;
    r->phase = "Restarting";
    restarting_message_ = rules::restarting_message(name_, type);
    return a;
  }
  r->phase = a == exit_action::succeeded ? "Succeeded" : "Failed";
  evaluate();
  return a;
}

TFJOB_INLINE bool JobTracker::check_deadline(std::chrono::steady_clock::duration active) {
  if (finished() || !active_deadline_) return false;
  if (active < std::chrono::seconds(*active_deadline_)) return false;
  finish("Failed", "DeadlineExceeded", rules::deadline_message(name_));
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

// tfjob_controller.go UpdateJobStatus: any replica failed for good fails the job; the
// deciding replicas (rules::SuccessRule) succeed it.
TFJOB_INLINE void JobTracker::evaluate() {
  struct Counts {
    int replicas = 0, succeeded = 0, failed = 0;
  };
  std::map<std::string, Counts> by_type;
  bool worker0_succeeded = false;  // IsWorker0Completed: exited 0 (a local replica's Succeeded)
  for (const auto& r : replicas_) {
    auto& c = by_type[r.type];
    ++c.replicas;
    if (r.phase == "Failed") ++c.failed;
    if (r.phase == "Succeeded") {
      ++c.succeeded;
      if (r.type == replica_type::Worker && r.index == 0) worker0_succeeded = true;
    }
  }
  for (const auto& [type, c] : by_type) {
    if (c.failed > 0) {
      finish("Failed", rules::reason::failed, rules::replicas_failed_message(namespace_, name_, c.failed, type));
      return;
    }
  }
  for (const auto& [type, c] : by_type)
    if (success_.decides(type) && success_.met(c.replicas, c.succeeded, worker0_succeeded)) {
      finish("Succeeded", rules::reason::succeeded, rules::succeeded_message(namespace_, name_));
      return;
    }
}

TFJOB_INLINE void JobTracker::finish(const std::string& state, const std::string& reason, const std::string& message) {
  state_ = state;
  reason_ = reason;
  message_ = message;
}

}  // namespace tfjob::local
