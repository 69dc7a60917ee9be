#pragma once
/// \file apps/v1 Deployment and batch/v1 Job as value types (k8s.io/api/{apps,batch}/v1
/// `types.go`): their pod template, replicas and rollout status; the rest stays in `other`.

#include <tfjob/api/meta.hpp>
#include <tfjob/api/k8s/pod.hpp>
#include <tfjob/detail/compiled.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tfjob::k8s {

/// `DeploymentCondition` / batch `JobCondition`.
struct WorkloadCondition {
  std::string type;  ///< Available, Progressing, ReplicaFailure; Complete, Failed, ...
  std::string status;
  std::string reason;
  std::string message;
  std::string last_update_time;
  std::string last_transition_time;
  nlohmann::json other = nlohmann::json::object();
};

/// `RollingUpdateDeployment`: maxSurge and maxUnavailable are IntOrString (a count or a
/// percentage), kept as written; null when unset (25% each).
struct RollingUpdateDeployment {
  nlohmann::json max_surge;
  nlohmann::json max_unavailable;
  nlohmann::json other = nlohmann::json::object();
};

/// `DeploymentStrategy`.
struct DeploymentStrategy {
  std::string type;  ///< RollingUpdate (also when unset) or Recreate
  std::optional<RollingUpdateDeployment> rolling_update;
  nlohmann::json other = nlohmann::json::object();
};

/// `DeploymentSpec`.
struct DeploymentSpec {
  std::optional<std::int32_t> replicas;  ///< unset = 1
  nlohmann::json selector;
  PodTemplateSpec template_;
  DeploymentStrategy strategy;
  nlohmann::json other = nlohmann::json::object();
};

/// `DeploymentStatus`.
struct DeploymentStatus {
  std::int64_t observed_generation = 0;
  std::int32_t replicas = 0;
  std::int32_t updated_replicas = 0;
  std::int32_t ready_replicas = 0;
  std::int32_t available_replicas = 0;
  std::int32_t unavailable_replicas = 0;
  std::vector<WorkloadCondition> conditions;
  nlohmann::json other = nlohmann::json::object();
};

/// apps/v1 Deployment.
struct Deployment {
  std::string api_version;
  std::string kind;
  ObjectMeta metadata;
  DeploymentSpec spec;
  DeploymentStatus status;
  nlohmann::json other = nlohmann::json::object();
};

/// batch/v1 `JobSpec`.
struct JobSpec {
  std::optional<std::int32_t> parallelism;
  std::optional<std::int32_t> completions;
  std::optional<std::int32_t> backoff_limit;
  PodTemplateSpec template_;
  nlohmann::json other = nlohmann::json::object();
};

/// batch/v1 `JobStatus`.
struct JobStatus {
  std::int32_t active = 0;
  std::int32_t succeeded = 0;
  std::int32_t failed = 0;
  std::string start_time;
  std::string completion_time;
  std::vector<WorkloadCondition> conditions;
  nlohmann::json other = nlohmann::json::object();
};

/// batch/v1 Job.
struct Job {
  std::string api_version;
  std::string kind;
  ObjectMeta metadata;
  JobSpec spec;
  JobStatus status;
  nlohmann::json other = nlohmann::json::object();
};

void to_json(nlohmann::json& j, const WorkloadCondition& v);
void to_json(nlohmann::json& j, const RollingUpdateDeployment& v);
void to_json(nlohmann::json& j, const DeploymentStrategy& v);
void to_json(nlohmann::json& j, const DeploymentSpec& v);
void to_json(nlohmann::json& j, const DeploymentStatus& v);
void to_json(nlohmann::json& j, const Deployment& v);
void to_json(nlohmann::json& j, const JobSpec& v);
void to_json(nlohmann::json& j, const JobStatus& v);
void to_json(nlohmann::json& j, const Job& v);
/// Decoders: what has the wrong type stays in `other`, untouched; they throw only for a
/// value that is not a JSON object at all.
void from_json(const nlohmann::json& j, Deployment& v);
void from_json(const nlohmann::json& j, Job& v);
void decode_fields(tfjob::detail::decoder& d, const nlohmann::json& j, const std::string& path, WorkloadCondition& v);
void decode_fields(tfjob::detail::decoder& d, const nlohmann::json& j, const std::string& path, RollingUpdateDeployment& v);
void decode_fields(tfjob::detail::decoder& d, const nlohmann::json& j, const std::string& path, DeploymentStrategy& v);
void decode_fields(tfjob::detail::decoder& d, const nlohmann::json& j, const std::string& path, DeploymentSpec& v);
void decode_fields(tfjob::detail::decoder& d, const nlohmann::json& j, const std::string& path, DeploymentStatus& v);
void decode_fields(tfjob::detail::decoder& d, const nlohmann::json& j, const std::string& path, Deployment& v);
void decode_fields(tfjob::detail::decoder& d, const nlohmann::json& j, const std::string& path, JobSpec& v);
void decode_fields(tfjob::detail::decoder& d, const nlohmann::json& j, const std::string& path, JobStatus& v);
void decode_fields(tfjob::detail::decoder& d, const nlohmann::json& j, const std::string& path, Job& v);

}  // namespace tfjob::k8s

#if TFJOB_SDK_DEFINE_API
namespace tfjob::k8s {

// Each type's fields, listed once for both directions (detail::write_fields, read_fields).

template <class F>
void fields(WorkloadCondition& v, F& f) {
  f("type", v.type);
  f("status", v.status);
  f("reason", v.reason);
  f("message", v.message);
  f("lastUpdateTime", v.last_update_time);
  f("lastTransitionTime", v.last_transition_time);
}

template <class F>
void fields(RollingUpdateDeployment& v, F& f) {
  f("maxSurge", v.max_surge);
  f("maxUnavailable", v.max_unavailable);
}

template <class F>
void fields(DeploymentStrategy& v, F& f) {
  f("type", v.type);
  f("rollingUpdate", v.rolling_update);
}

template <class F>
void fields(DeploymentSpec& v, F& f) {
  f("replicas", v.replicas);
  f("selector", v.selector);
  f("template", v.template_);
  f("strategy", v.strategy);
}

template <class F>
void fields(DeploymentStatus& v, F& f) {
  f("observedGeneration", v.observed_generation);
  f("replicas", v.replicas);
  f("updatedReplicas", v.updated_replicas);
  f("readyReplicas", v.ready_replicas);
  f("availableReplicas", v.available_replicas);
  f("unavailableReplicas", v.unavailable_replicas);
  f("conditions", v.conditions);
}

template <class F>
void fields(Deployment& v, F& f) {
  f("apiVersion", v.api_version);
  f("kind", v.kind);
  f("metadata", v.metadata);
  f("spec", v.spec);
  f("status", v.status);
}

template <class F>
void fields(JobSpec& v, F& f) {
  f("parallelism", v.parallelism);
  f("completions", v.completions);
  f("backoffLimit", v.backoff_limit);
  f("template", v.template_);
}

template <class F>
void fields(JobStatus& v, F& f) {
  f("active", v.active);
  f("succeeded", v.succeeded);
  f("failed", v.failed);
  f("startTime", v.start_time);
  f("completionTime", v.completion_time);
  f("conditions", v.conditions);
}

template <class F>
void fields(Job& v, F& f) {
  f("apiVersion", v.api_version);
  f("kind", v.kind);
  f("metadata", v.metadata);
  f("spec", v.spec);
  f("status", v.status);
}

TFJOB_INLINE void to_json(nlohmann::json& j, const WorkloadCondition& v) { detail::write_fields(j, v); }

TFJOB_INLINE void to_json(nlohmann::json& j, const RollingUpdateDeployment& v) { detail::write_fields(j, v); }

TFJOB_INLINE void to_json(nlohmann::json& j, const DeploymentStrategy& v) { detail::write_fields(j, v); }

TFJOB_INLINE void to_json(nlohmann::json& j, const DeploymentSpec& v) { detail::write_fields(j, v); }

TFJOB_INLINE void to_json(nlohmann::json& j, const DeploymentStatus& v) { detail::write_fields(j, v); }

TFJOB_INLINE void to_json(nlohmann::json& j, const Deployment& v) { detail::write_fields(j, v); }

TFJOB_INLINE void to_json(nlohmann::json& j, const JobSpec& v) { detail::write_fields(j, v); }

TFJOB_INLINE void to_json(nlohmann::json& j, const JobStatus& v) { detail::write_fields(j, v); }

TFJOB_INLINE void to_json(nlohmann::json& j, const Job& v) { detail::write_fields(j, v); }

TFJOB_INLINE void from_json(const nlohmann::json& j, Deployment& v) { detail::decode_lenient(j, "Deployment", v); }

TFJOB_INLINE void from_json(const nlohmann::json& j, Job& v) { detail::decode_lenient(j, "Job", v); }

TFJOB_INLINE void decode_fields(tfjob::detail::decoder& d, const nlohmann::json& j, const std::string& path, WorkloadCondition& v) {
  detail::read_fields(d, j, path, v);
}

TFJOB_INLINE void decode_fields(tfjob::detail::decoder& d, const nlohmann::json& j, const std::string& path, RollingUpdateDeployment& v) {
  detail::read_fields(d, j, path, v);
}

TFJOB_INLINE void decode_fields(tfjob::detail::decoder& d, const nlohmann::json& j, const std::string& path, DeploymentStrategy& v) {
  detail::read_fields(d, j, path, v);
}

TFJOB_INLINE void decode_fields(tfjob::detail::decoder& d, const nlohmann::json& j, const std::string& path, DeploymentSpec& v) {
  detail::read_fields(d, j, path, v);
}

TFJOB_INLINE void decode_fields(tfjob::detail::decoder& d, const nlohmann::json& j, const std::string& path, DeploymentStatus& v) {
  detail::read_fields(d, j, path, v);
}

TFJOB_INLINE void decode_fields(tfjob::detail::decoder& d, const nlohmann::json& j, const std::string& path, Deployment& v) {
  detail::read_fields(d, j, path, v);
}

TFJOB_INLINE void decode_fields(tfjob::detail::decoder& d, const nlohmann::json& j, const std::string& path, JobSpec& v) {
  detail::read_fields(d, j, path, v);
}

TFJOB_INLINE void decode_fields(tfjob::detail::decoder& d, const nlohmann::json& j, const std::string& path, JobStatus& v) {
  detail::read_fields(d, j, path, v);
}

TFJOB_INLINE void decode_fields(tfjob::detail::decoder& d, const nlohmann::json& j, const std::string& path, Job& v) {
  detail::read_fields(d, j, path, v);
}

}  // namespace tfjob::k8s
#endif  // TFJOB_SDK_DEFINE_API
