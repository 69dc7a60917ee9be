#pragma once
/// \file The bodies of <tfjob/api/k8s/pod.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_API` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/api/k8s/pod.hpp>, never this file.

namespace tfjob::k8s {

TFJOB_INLINE const EnvVar* Container::env_var(const std::string& n) const {
  for (const auto& e : env)
    if (e.name == n) return &e;
  return nullptr;
}

TFJOB_INLINE std::string Container::resource(const std::string& n) const {
  if (auto it = resources.limits.find(n); it != resources.limits.end()) return it->second;
  if (auto it = resources.requests.find(n); it != resources.requests.end()) return it->second;
  return {};
}

TFJOB_INLINE const Container* PodSpec::container(const std::string& n) const {
  for (const auto& c : containers)
    if (c.name == n) return &c;
  for (const auto& c : init_containers)
    if (c.name == n) return &c;
  return nullptr;
}

TFJOB_INLINE Container* PodSpec::container(const std::string& n) {
  return const_cast<Container*>(static_cast<const PodSpec&>(*this).container(n));
}

TFJOB_INLINE std::vector<const Container*> PodSpec::sidecars() const {
  std::vector<const Container*> out;
  for (const auto& c : init_containers)
    if (c.restart_policy == "Always") out.push_back(&c);  // KEP-753: core/v1 ContainerRestartPolicyAlways
  return out;
}

TFJOB_INLINE const PodCondition* PodStatus::condition(const std::string& type) const {
  for (const auto& c : conditions)
    if (c.type == type) return &c;
  return nullptr;
}

TFJOB_INLINE const ContainerStatus* Pod::container_status(const std::string& container) const {
  for (const auto& c : status.container_statuses)
    if (c.name == container) return &c;
  for (const auto& c : status.init_container_statuses)
    if (c.name == container) return &c;
  for (const auto& c : status.ephemeral_container_statuses)  // names are unique across the three (ValidatePodSpec)
    if (c.name == container) return &c;
  return nullptr;
}

TFJOB_INLINE int Pod::restart_count() const {
  int n = 0;
  for (const auto& c : status.container_statuses) n += c.restart_count;
  for (const auto& c : status.init_container_statuses) n += c.restart_count;
  return n;
}

TFJOB_INLINE bool Pod::ready() const {
  const auto* c = status.condition("Ready");
  return c && c->status == "True";
}

TFJOB_INLINE std::vector<std::string> Pod::container_names() const {
  std::vector<std::string> out;
  for (const auto& c : spec.containers) out.push_back(c.name);
  return out;
}


// Each type's fields, listed once for both directions (detail::write_fields, read_fields).

template <class F>
void fields(ResourceRequirements& v, F& f) {
  f.quantities("limits", v.limits);
  f.quantities("requests", v.requests);
}

template <class F>
void fields(EnvVar& v, F& f) {
  f("name", v.name);
  f("value", v.value);
  f("valueFrom", v.value_from);
}

template <class F>
void fields(ContainerPort& v, F& f) {
  f("name", v.name);
  f("containerPort", v.container_port);
  f("protocol", v.protocol);
}

template <class F>
void fields(VolumeMount& v, F& f) {
  f("name", v.name);
  f("mountPath", v.mount_path);
  f("subPath", v.sub_path);
  f("readOnly", v.read_only);
}

template <class F>
void fields(Container& v, F& f) {
  f("name", v.name);
  f("image", v.image);
  f("command", v.command);
  f("args", v.args);
  f("env", v.env);
  f("ports", v.ports);
  f("resources", v.resources);
  f("volumeMounts", v.volume_mounts);
  f("restartPolicy", v.restart_policy);
  f("imagePullPolicy", v.image_pull_policy);
  f("workingDir", v.working_dir);
}

template <class F>
void fields(ClaimVolumeSource& v, F& f) {
  f("claimName", v.claim_name);
  f("readOnly", v.read_only);
}

template <class F>
void fields(Volume& v, F& f) {
  f("name", v.name);
  f("persistentVolumeClaim", v.persistent_volume_claim);
}

template <class F>
void fields(Toleration& v, F& f) {
  f("key", v.key);
  f("operator", v.operator_);
  f("value", v.value);
  f("effect", v.effect);
  f("tolerationSeconds", v.toleration_seconds);
}

template <class F>
void fields(PodSpec& v, F& f) {
  f("containers", v.containers);
  f("initContainers", v.init_containers);
  f("ephemeralContainers", v.ephemeral_containers);
  f("volumes", v.volumes);
  f("nodeName", v.node_name);
  f("nodeSelector", v.node_selector);
  f("tolerations", v.tolerations);
  f("affinity", v.affinity);
  f("restartPolicy", v.restart_policy);
  f("schedulerName", v.scheduler_name);
  f("priorityClassName", v.priority_class_name);
  f("serviceAccountName", v.service_account_name);
}

template <class F>
void fields(PodTemplateSpec& v, F& f) {
  f("metadata", v.metadata);
  f("spec", v.spec);
}

template <class F>
void fields(PodCondition& v, F& f) {
  f("type", v.type);
  f("status", v.status);
  f("reason", v.reason);
  f("message", v.message);
  f("lastTransitionTime", v.last_transition_time);
}

template <class F>
void fields(StateWaiting& v, F& f) {
  f("reason", v.reason);
  f("message", v.message);
}

template <class F>
void fields(StateRunning& v, F& f) {
  f("startedAt", v.started_at);
}

template <class F>
void fields(StateTerminated& v, F& f) {
  f("exitCode", v.exit_code);
  f("signal", v.signal);
  f("reason", v.reason);
  f("message", v.message);
  f("startedAt", v.started_at);
  f("finishedAt", v.finished_at);
  f("containerID", v.container_id);
}

template <class F>
void fields(ContainerState& v, F& f) {
  f("waiting", v.waiting);
  f("running", v.running);
  f("terminated", v.terminated);
}

template <class F>
void fields(ContainerStatus& v, F& f) {
  f("name", v.name);
  f("ready", v.ready);
  f("started", v.started);
  f("restartCount", v.restart_count);
  f("image", v.image);
  f("imageID", v.image_id);
  f("containerID", v.container_id);
  f("state", v.state);
  f("lastState", v.last_state);
}

template <class F>
void fields(PodStatus& v, F& f) {
  f("phase", v.phase);
  f("conditions", v.conditions);
  f("message", v.message);
  f("reason", v.reason);
  f("hostIP", v.host_ip);
  f("podIP", v.pod_ip);
  f("startTime", v.start_time);
  f("nominatedNodeName", v.nominated_node_name);
  f("qosClass", v.qos_class);
  f("containerStatuses", v.container_statuses);
  f("initContainerStatuses", v.init_container_statuses);
  f("ephemeralContainerStatuses", v.ephemeral_container_statuses);
}

template <class F>
void fields(Pod& v, F& f) {
  f("apiVersion", v.api_version);
  f("kind", v.kind);
  f("metadata", v.metadata);
  f("spec", v.spec);
  f("status", v.status);
}

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const ResourceRequirements& v) { detail::write_fields(j, v); }

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const EnvVar& v) { detail::write_fields(j, v); }

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const ContainerPort& v) { detail::write_fields(j, v); }

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const VolumeMount& v) { detail::write_fields(j, v); }

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const Container& v) { detail::write_fields(j, v); }

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const ClaimVolumeSource& v) { detail::write_fields(j, v); }

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const Volume& v) { detail::write_fields(j, v); }

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const Toleration& v) { detail::write_fields(j, v); }

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const PodSpec& v) { detail::write_fields(j, v); }

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const PodTemplateSpec& v) { detail::write_fields(j, v); }

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const PodCondition& v) { detail::write_fields(j, v); }

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const StateWaiting& v) { detail::write_fields(j, v); }

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const StateRunning& v) { detail::write_fields(j, v); }

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const StateTerminated& v) { detail::write_fields(j, v); }

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const ContainerState& v) { detail::write_fields(j, v); }

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const ContainerStatus& v) { detail::write_fields(j, v); }

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const PodStatus& v) { detail::write_fields(j, v); }

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const Pod& v) { detail::write_fields(j, v); }

TFJOB_JSON_FN from_json(const TFJOB_JSON& j, Container& v) { detail::decode_lenient(j, "Container", v); }

TFJOB_JSON_FN from_json(const TFJOB_JSON& j, PodSpec& v) { detail::decode_lenient(j, "PodSpec", v); }

TFJOB_JSON_FN from_json(const TFJOB_JSON& j, PodTemplateSpec& v) { detail::decode_lenient(j, "PodTemplateSpec", v); }

TFJOB_JSON_FN from_json(const TFJOB_JSON& j, ContainerStatus& v) { detail::decode_lenient(j, "ContainerStatus", v); }

TFJOB_JSON_FN from_json(const TFJOB_JSON& j, Pod& v) { detail::decode_lenient(j, "Pod", v); }

TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, ResourceRequirements& v) {
  detail::read_fields(d, j, path, v);
}

TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, EnvVar& v) {
  detail::read_fields(d, j, path, v);
}

TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, ContainerPort& v) {
  detail::read_fields(d, j, path, v);
}

TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, VolumeMount& v) {
  detail::read_fields(d, j, path, v);
}

TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, Container& v) {
  detail::read_fields(d, j, path, v);
}

TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, ClaimVolumeSource& v) {
  detail::read_fields(d, j, path, v);
}

TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, Volume& v) {
  detail::read_fields(d, j, path, v);
}

TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, Toleration& v) {
  detail::read_fields(d, j, path, v);
}

TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, PodSpec& v) {
  detail::read_fields(d, j, path, v);
}

TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, PodTemplateSpec& v) {
  detail::read_fields(d, j, path, v);
}

TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, PodCondition& v) {
  detail::read_fields(d, j, path, v);
}

TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, StateWaiting& v) {
  detail::read_fields(d, j, path, v);
}

TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, StateRunning& v) {
  detail::read_fields(d, j, path, v);
}

TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, StateTerminated& v) {
  detail::read_fields(d, j, path, v);
}

TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, ContainerState& v) {
  detail::read_fields(d, j, path, v);
}

TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, ContainerStatus& v) {
  detail::read_fields(d, j, path, v);
}

TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, PodStatus& v) {
  detail::read_fields(d, j, path, v);
}

TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, Pod& v) {
  detail::read_fields(d, j, path, v);
}

}  // namespace tfjob::k8s
