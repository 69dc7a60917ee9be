#pragma once
/// \file The kubeflow.org/v1 TFJob as plain value types, mirroring the training operator
/// v1.9 (`pkg/apis/kubeflow.org/v1/{tensorflow,common}_types.go`).
///
/// Pod templates are kept as `nlohmann::json` (the SDK does not re-model core/v1), and
/// every struct keeps the fields it does not model in `other`, so a manifest that is
/// parsed and emitted again is JSON-equal to the input (kube-rs keeps a flattened map).

#include <tfjob/detail/compiled.hpp>
#include <tfjob/api/meta.hpp>
#include <tfjob/api/k8s/pod.hpp>
#include <tfjob/detail/json.hpp>
#include <tfjob/error.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tfjob {

/// Group/version and kind of the resource.
inline constexpr const char* api_group = "kubeflow.org";
inline constexpr const char* api_version = "kubeflow.org/v1";
inline constexpr const char* kind = "TFJob";

/// Replica types (`TFJobReplicaType*`): the keys of `spec.tfReplicaSpecs`.
namespace replica_type {
inline constexpr const char* Chief = "Chief";
inline constexpr const char* Master = "Master";
inline constexpr const char* PS = "PS";
inline constexpr const char* Worker = "Worker";
inline constexpr const char* Evaluator = "Evaluator";
/// Every type the operator knows, in the order its defaulting walks them.
const std::vector<std::string>& all();
}  // namespace replica_type

/// `spec.runPolicy.cleanPodPolicy` values.
namespace clean_pod_policy {
inline constexpr const char* All = "All";
inline constexpr const char* Running = "Running";
inline constexpr const char* None = "None";
}  // namespace clean_pod_policy

/// `spec.tfReplicaSpecs[*].restartPolicy` values (`ExitCode`: restart on retryable codes).
namespace restart_policy {
inline constexpr const char* Always = "Always";
inline constexpr const char* OnFailure = "OnFailure";
inline constexpr const char* Never = "Never";
inline constexpr const char* ExitCode = "ExitCode";
}  // namespace restart_policy

/// `spec.successPolicy` values ("" = the chief, or worker 0, decides).
namespace success_policy {
inline constexpr const char* Default = "";
inline constexpr const char* AllWorkers = "AllWorkers";
}  // namespace success_policy

/// `status.conditions[*].type` values.
namespace condition_type {
inline constexpr const char* Created = "Created";
inline constexpr const char* Running = "Running";
inline constexpr const char* Restarting = "Restarting";
inline constexpr const char* Succeeded = "Succeeded";
inline constexpr const char* Suspended = "Suspended";
inline constexpr const char* Failed = "Failed";
}  // namespace condition_type

/// Operator constants (`TFJobDefault*`).
inline constexpr const char* default_container_name = "tensorflow";
inline constexpr const char* default_port_name = "tfjob-port";
inline constexpr int default_port = 2222;
inline constexpr const char* default_restart_policy = "Never";
/// `runPolicy.managedBy` values the operator accepts.
inline constexpr const char* managed_by_kubeflow = "kubeflow.org/training-operator";
inline constexpr const char* managed_by_multikueue = "kueue.x-k8s.io/multikueue";

/// `SchedulingPolicy` (gang scheduling with Volcano / scheduler-plugins).
struct SchedulingPolicy {
  std::optional<std::int32_t> min_available;
  std::string queue;
  /// resource name -> quantity (string or number, as written); null when unset.
  nlohmann::json min_resources;
  std::string priority_class;
  std::optional<std::int32_t> schedule_timeout_seconds;
  nlohmann::json other = nlohmann::json::object();
};

/// `RunPolicy`: what happens around the replicas (cleanup, deadlines, retries).
struct RunPolicy {
  std::optional<std::string> clean_pod_policy;               ///< All, Running, None
  std::optional<std::int32_t> ttl_seconds_after_finished;
  std::optional<std::int64_t> active_deadline_seconds;
  std::optional<std::int32_t> backoff_limit;
  std::optional<SchedulingPolicy> scheduling_policy;
  std::optional<bool> suspend;
  std::optional<std::string> managed_by;
  nlohmann::json other = nlohmann::json::object();
};

/// `ReplicaSpec`: how many pods of one type, from which template, restarted how.
struct ReplicaSpec {
  std::optional<std::int32_t> replicas;  ///< defaulted to 1
  /// A core/v1 PodTemplateSpec, kept as JSON ({"metadata":..,"spec":{"containers":[..]}});
  /// null when absent.
  nlohmann::json template_;
  std::string restart_policy;  ///< Always, OnFailure, Never, ExitCode; defaulted to Never
  nlohmann::json other = nlohmann::json::object();

  /// Replicas with the operator's default (1) applied.
  std::int32_t replicas_or_default() const { return replicas.value_or(1); }
};

/// `TFJobSpec`.
struct TFJobSpec {
  RunPolicy run_policy;
  std::optional<std::string> success_policy;  ///< "" or AllWorkers
  /// Keyed by replica type (Chief, Master, PS, Worker, Evaluator).
  std::map<std::string, ReplicaSpec> tf_replica_specs;
  bool enable_dynamic_worker = false;
  nlohmann::json other = nlohmann::json::object();
};

/// `JobCondition`.
struct JobCondition {
  std::string type;    ///< Created, Running, Restarting, Succeeded, Suspended, Failed
  std::string status;  ///< "True", "False", "Unknown"
  std::string reason;
  std::string message;
  std::string last_update_time;      ///< RFC 3339
  std::string last_transition_time;  ///< RFC 3339
  nlohmann::json other = nlohmann::json::object();
};

/// `ReplicaStatus`.
struct ReplicaStatus {
  std::int32_t active = 0;
  std::int32_t succeeded = 0;
  std::int32_t failed = 0;
  nlohmann::json label_selector;  ///< metav1.LabelSelector; null when absent
  std::string selector;
  nlohmann::json other = nlohmann::json::object();
};

/// `JobStatus`.
struct JobStatus {
  std::vector<JobCondition> conditions;
  std::map<std::string, ReplicaStatus> replica_statuses;
  std::string start_time;           ///< RFC 3339, "" when unset
  std::string completion_time;      ///< RFC 3339, "" when unset
  std::string last_reconcile_time;  ///< RFC 3339, "" when unset
  nlohmann::json other = nlohmann::json::object();

  /// The condition of this type, or nullptr.
  const JobCondition* condition(std::string_view type) const;
  /// True when a condition of this type has status "True".
  bool has_condition(std::string_view type) const;
  bool succeeded() const;
  bool failed() const;
  /// Succeeded or Failed: the operator will not run it again.
  bool finished() const;
};

/// A kubeflow.org/v1 TFJob.
struct TFJob {
  std::string api_version = tfjob::api_version;
  std::string kind = tfjob::kind;
  ObjectMeta metadata;
  TFJobSpec spec;
  std::optional<JobStatus> status;
  nlohmann::json other = nlohmann::json::object();

  /// The replica spec of a type (exact key), or nullptr.
  const ReplicaSpec* replica(std::string_view type) const;
  ReplicaSpec* replica(std::string_view type);
  bool has_replica(std::string_view type) const;
  /// Sum of replicas over every replica type (unset counts as 1).
  int total_replicas() const;
};

// ---- pod template helpers (JSON-level; the template stays untyped) ---------------------

/// `template.spec.containers` of a replica, or nullptr when absent.
const nlohmann::json* containers(const ReplicaSpec& r);
nlohmann::json* containers(ReplicaSpec& r);

/// The container named `tensorflow` of a replica, or nullptr.
const nlohmann::json* tensorflow_container(const ReplicaSpec& r);
nlohmann::json* tensorflow_container(ReplicaSpec& r);

/// The replica's pod template as a value type, decoded from `template_` (which stays JSON so
/// that a manifest round-trips byte for byte); an absent or non-object template is empty.
/// Readers take what they need from this, not from JSON pointers into `template_`.
k8s::PodTemplateSpec pod_template(const ReplicaSpec& r);

/// Lower-case ASCII copy (replica types appear lower-case in names, labels and TF_CONFIG).
std::string to_lower(std::string_view s);

/// ASCII case-insensitive equality (Go `strings.EqualFold` for ASCII input).
bool equal_fold(std::string_view a, std::string_view b);

/// The canonical spelling of a replica type given in any case ("WORKER" -> "Worker"),
/// or std::nullopt when it is not one of the five types.
std::optional<std::string> canonical_replica_type(std::string_view t);

/// `IsChiefOrMaster`.
bool is_chief_or_master(std::string_view t);

// ---- JSON converters (ADL) ---------------------------------------------------------------

namespace detail {
TFJOB_JSON_FN decode_fields(decoder& d, const TFJOB_JSON& j, const std::string& path, SchedulingPolicy& s);
TFJOB_JSON_FN decode_fields(decoder& d, const TFJOB_JSON& j, const std::string& path, RunPolicy& r);
TFJOB_JSON_FN decode_fields(decoder& d, const TFJOB_JSON& j, const std::string& path, ReplicaSpec& r);
TFJOB_JSON_FN decode_fields(decoder& d, const TFJOB_JSON& j, const std::string& path, TFJobSpec& s);
TFJOB_JSON_FN decode_fields(decoder& d, const TFJOB_JSON& j, const std::string& path, JobCondition& c);
TFJOB_JSON_FN decode_fields(decoder& d, const TFJOB_JSON& j, const std::string& path, ReplicaStatus& r);
TFJOB_JSON_FN decode_fields(decoder& d, const TFJOB_JSON& j, const std::string& path, JobStatus& s);
TFJOB_JSON_FN decode_fields(decoder& d, const TFJOB_JSON& j, const std::string& path, TFJob& t);
}  // namespace detail

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const SchedulingPolicy& s);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const RunPolicy& r);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const ReplicaSpec& r);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const TFJobSpec& s);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const JobCondition& c);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const ReplicaStatus& r);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const JobStatus& s);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const TFJob& t);

/// Decoders: throw `validation_error` listing every field of the wrong JSON type.
TFJOB_JSON_FN from_json(const TFJOB_JSON& j, SchedulingPolicy& s);
TFJOB_JSON_FN from_json(const TFJOB_JSON& j, RunPolicy& r);
TFJOB_JSON_FN from_json(const TFJOB_JSON& j, ReplicaSpec& r);
TFJOB_JSON_FN from_json(const TFJOB_JSON& j, TFJobSpec& s);
TFJOB_JSON_FN from_json(const TFJOB_JSON& j, JobCondition& c);
TFJOB_JSON_FN from_json(const TFJOB_JSON& j, ReplicaStatus& r);
TFJOB_JSON_FN from_json(const TFJOB_JSON& j, JobStatus& s);
/// Decodes a TFJob. Field paths in errors are rooted at the object (`spec.runPolicy...`).
TFJOB_JSON_FN from_json(const TFJOB_JSON& j, TFJob& t);

}  // namespace tfjob

#if TFJOB_SDK_DEFINE_API
#include <tfjob/api/impl/types_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_API
