#pragma once
/// \file core/v1 Pod as a value type (k8s.io/api/core/v1 `types.go`): what the SDK reads of a
/// pod's spec and status is modeled; everything else stays in each struct's `other`, so a pod
/// that is decoded and written again is JSON-equal to what the server sent.

#include <tfjob/api/meta.hpp>
#include <tfjob/detail/compiled.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tfjob::k8s {

/// Resource name -> quantity as the server writes it ("nvidia.com/gpu" -> "2"); a number in a
/// manifest reads as its text, as apimachinery's Quantity does.
using ResourceList = std::map<std::string, std::string>;

/// `ResourceRequirements`.
struct ResourceRequirements {
  ResourceList limits;
  ResourceList requests;
  nlohmann::json other = nlohmann::json::object();
};

/// `EnvVar`: a value, or where it comes from (`valueFrom`, kept as JSON).
struct EnvVar {
  std::string name;
  std::string value;
  nlohmann::json value_from;  ///< null when unset
  nlohmann::json other = nlohmann::json::object();
};

/// `ContainerPort`.
struct ContainerPort {
  std::string name;
  std::int32_t container_port = 0;
  std::string protocol;
  nlohmann::json other = nlohmann::json::object();
};

/// `VolumeMount`.
struct VolumeMount {
  std::string name;
  std::string mount_path;
  std::string sub_path;
  bool read_only = false;
  nlohmann::json other = nlohmann::json::object();
};

/// `Container` (also an init container; `restart_policy` "Always" makes one a native
/// sidecar, Kubernetes 1.28+).
struct Container {
  std::string name;
  std::string image;
  std::vector<std::string> command;
  std::vector<std::string> args;
  std::vector<EnvVar> env;
  std::vector<ContainerPort> ports;
  ResourceRequirements resources;
  std::vector<VolumeMount> volume_mounts;
  std::string restart_policy;
  std::string image_pull_policy;
  std::string working_dir;
  nlohmann::json other = nlohmann::json::object();  ///< probes, securityContext, envFrom, ...

  /// The env var of that name, or nullptr.
  const EnvVar* env_var(const std::string& name) const;
  /// The limit (else the request) of a resource, "" when neither is set.
  std::string resource(const std::string& name) const;
};

/// `PersistentVolumeClaimVolumeSource`.
struct ClaimVolumeSource {
  std::string claim_name;
  bool read_only = false;
  nlohmann::json other = nlohmann::json::object();
};

/// `Volume`: its claim is modeled; every other source (emptyDir, configMap, ...) stays in `other`.
struct Volume {
  std::string name;
  std::optional<ClaimVolumeSource> persistent_volume_claim;
  nlohmann::json other = nlohmann::json::object();
};

/// `Toleration`.
struct Toleration {
  std::string key;
  std::string operator_;  ///< Exists or Equal ("" = Equal)
  std::string value;
  std::string effect;  ///< "" = every effect
  std::optional<std::int64_t> toleration_seconds;
  nlohmann::json other = nlohmann::json::object();
};

/// `PodSpec`.
struct PodSpec {
  std::vector<Container> containers;
  std::vector<Container> init_containers;
  /// `EphemeralContainer`s (kubectl debug): a Container's fields, `targetContainerName` kept in `other`.
  std::vector<Container> ephemeral_containers;
  std::vector<Volume> volumes;
  std::string node_name;
  std::map<std::string, std::string> node_selector;
  std::vector<Toleration> tolerations;
  nlohmann::json affinity;  ///< `Affinity`, kept as JSON (the scheduling fit reads it); null when unset
  std::string restart_policy;
  std::string scheduler_name;
  std::string priority_class_name;
  std::string service_account_name;
  nlohmann::json other = nlohmann::json::object();

  /// The container of that name (regular containers first, then init containers), or nullptr.
  const Container* container(const std::string& name) const;
  Container* container(const std::string& name);
  /// The init containers with `restartPolicy: Always`: native sidecars (KEP-753: 1.28 alpha
  /// behind SidecarContainers, 1.29 beta and on by default, 1.33 GA; pkg/api/v1/pod
  /// IsRestartableInitContainer). The kubelet starts one before the containers, restarts it
  /// whatever the pod's restartPolicy, reports it in initContainerStatuses, and stops it once
  /// the containers have ended: it never decides whether the pod succeeded. Before 1.28 the
  /// field does not exist (the API server drops it).
  std::vector<const Container*> sidecars() const;
};

/// `PodTemplateSpec`.
struct PodTemplateSpec {
  ObjectMeta metadata;
  PodSpec spec;
  nlohmann::json other = nlohmann::json::object();
};

/// `PodCondition`.
struct PodCondition {
  std::string type;  ///< PodScheduled, Initialized, ContainersReady, Ready, ...
  std::string status;  ///< "True", "False", "Unknown"
  std::string reason;
  std::string message;
  std::string last_transition_time;
  nlohmann::json other = nlohmann::json::object();
};

/// `ContainerStateWaiting`.
struct StateWaiting {
  std::string reason;  ///< ContainerCreating, ImagePullBackOff, CrashLoopBackOff, ...
  std::string message;
  nlohmann::json other = nlohmann::json::object();
};

/// `ContainerStateRunning`.
struct StateRunning {
  std::string started_at;
  nlohmann::json other = nlohmann::json::object();
};

/// `ContainerStateTerminated`.
struct StateTerminated {
  std::int32_t exit_code = 0;
  std::int32_t signal = 0;
  std::string reason;  ///< Completed, Error, OOMKilled, ...
  std::string message;  ///< the termination message
  std::string started_at;
  std::string finished_at;
  std::string container_id;
  nlohmann::json other = nlohmann::json::object();
};

/// `ContainerState`: at most one of the three is set.
struct ContainerState {
  std::optional<StateWaiting> waiting;
  std::optional<StateRunning> running;
  std::optional<StateTerminated> terminated;
  nlohmann::json other = nlohmann::json::object();
};

/// `ContainerStatus`.
struct ContainerStatus {
  std::string name;
  bool ready = false;
  std::optional<bool> started;
  std::int32_t restart_count = 0;
  std::string image;
  std::string image_id;
  std::string container_id;
  ContainerState state;
  ContainerState last_state;
  nlohmann::json other = nlohmann::json::object();
};

/// `PodStatus`.
struct PodStatus {
  std::string phase;  ///< Pending, Running, Succeeded, Failed, Unknown
  std::vector<PodCondition> conditions;
  std::string message;
  std::string reason;  ///< e.g. Evicted
  std::string host_ip;
  std::string pod_ip;
  std::string start_time;
  std::string nominated_node_name;
  std::string qos_class;
  std::vector<ContainerStatus> container_statuses;
  std::vector<ContainerStatus> init_container_statuses;
  std::vector<ContainerStatus> ephemeral_container_statuses;
  nlohmann::json other = nlohmann::json::object();

  /// The condition of that type, or nullptr.
  const PodCondition* condition(const std::string& type) const;
};

/// core/v1 Pod.
struct Pod {
  std::string api_version;
  std::string kind;
  ObjectMeta metadata;
  PodSpec spec;
  PodStatus status;
  nlohmann::json other = nlohmann::json::object();

  /// The status of a container (regular, init or ephemeral: a name is unique across the
  /// three), or nullptr when it is not reported.
  const ContainerStatus* container_status(const std::string& container) const;
  /// The sum of every container's restarts (init containers included).
  int restart_count() const;
  /// The Ready condition is True.
  bool ready() const;
  /// The container names, in the spec's order.
  std::vector<std::string> container_names() const;
};

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const ResourceRequirements& v);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const EnvVar& v);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const ContainerPort& v);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const VolumeMount& v);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const Container& v);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const ClaimVolumeSource& v);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const Volume& v);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const Toleration& v);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const PodSpec& v);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const PodTemplateSpec& v);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const PodCondition& v);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const StateWaiting& v);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const StateRunning& v);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const StateTerminated& v);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const ContainerState& v);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const ContainerStatus& v);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const PodStatus& v);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const Pod& v);
/// Decoders: what has the wrong type stays in `other`, untouched; they throw only for a
/// value that is not a JSON object at all.
TFJOB_JSON_FN from_json(const TFJOB_JSON& j, Container& v);
TFJOB_JSON_FN from_json(const TFJOB_JSON& j, PodSpec& v);
TFJOB_JSON_FN from_json(const TFJOB_JSON& j, PodTemplateSpec& v);
TFJOB_JSON_FN from_json(const TFJOB_JSON& j, ContainerStatus& v);
TFJOB_JSON_FN from_json(const TFJOB_JSON& j, Pod& v);
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, ResourceRequirements& v);
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, EnvVar& v);
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, ContainerPort& v);
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, VolumeMount& v);
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, Container& v);
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, ClaimVolumeSource& v);
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, Volume& v);
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, Toleration& v);
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, PodSpec& v);
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, PodTemplateSpec& v);
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, PodCondition& v);
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, StateWaiting& v);
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, StateRunning& v);
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, StateTerminated& v);
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, ContainerState& v);
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, ContainerStatus& v);
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, PodStatus& v);
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, Pod& v);

}  // namespace tfjob::k8s

#if TFJOB_SDK_DEFINE_API
#include <tfjob/api/k8s/impl/pod_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_API
