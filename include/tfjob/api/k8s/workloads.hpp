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

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const WorkloadCondition& v);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const RollingUpdateDeployment& v);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const DeploymentStrategy& v);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const DeploymentSpec& v);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const DeploymentStatus& v);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const Deployment& v);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const JobSpec& v);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const JobStatus& v);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const Job& v);
/// Decoders: what has the wrong type stays in `other`, untouched; they throw only for a
/// value that is not a JSON object at all.
TFJOB_JSON_FN from_json(const TFJOB_JSON& j, Deployment& v);
TFJOB_JSON_FN from_json(const TFJOB_JSON& j, Job& v);
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, WorkloadCondition& v);
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, RollingUpdateDeployment& v);
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, DeploymentStrategy& v);
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, DeploymentSpec& v);
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, DeploymentStatus& v);
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, Deployment& v);
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, JobSpec& v);
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, JobStatus& v);
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, Job& v);

}  // namespace tfjob::k8s

#if TFJOB_SDK_DEFINE_API
#include <tfjob/api/k8s/impl/workloads_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_API
