#pragma once
/// \file The bodies of <tfjob/api/k8s/node.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_API` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/api/k8s/node.hpp>, never this file.

namespace tfjob::k8s {

TFJOB_INLINE const NodeCondition* NodeStatus::condition(const std::string& type) const {
  for (const auto& c : conditions)
    if (c.type == type) return &c;
  return nullptr;
}

TFJOB_INLINE std::string Node::allocatable(const std::string& resource) const {
  auto it = status.allocatable.find(resource);
  return it == status.allocatable.end() ? std::string() : it->second;
}

TFJOB_INLINE std::string Node::capacity(const std::string& resource) const {
  auto it = status.capacity.find(resource);
  return it == status.capacity.end() ? std::string() : it->second;
}

TFJOB_INLINE bool Node::ready() const {
  const auto* c = status.condition("Ready");
  return c && c->status == "True";
}


// Each type's fields, listed once for both directions (detail::write_fields, read_fields).

template <class F>
void fields(Taint& v, F& f) {
  f("key", v.key);
  f("value", v.value);
  f("effect", v.effect);
  f("timeAdded", v.time_added);
}

template <class F>
void fields(NodeCondition& v, F& f) {
  f("type", v.type);
  f("status", v.status);
  f("reason", v.reason);
  f("message", v.message);
  f("lastHeartbeatTime", v.last_heartbeat_time);
  f("lastTransitionTime", v.last_transition_time);
}

template <class F>
void fields(NodeAddress& v, F& f) {
  f("type", v.type);
  f("address", v.address);
}

template <class F>
void fields(NodeSystemInfo& v, F& f) {
  f("kubeletVersion", v.kubelet_version);
  f("osImage", v.os_image);
  f("kernelVersion", v.kernel_version);
  f("containerRuntimeVersion", v.container_runtime_version);
  f("architecture", v.architecture);
  f("operatingSystem", v.operating_system);
}

template <class F>
void fields(NodeSpec& v, F& f) {
  f("unschedulable", v.unschedulable);
  f("taints", v.taints);
  f("podCIDR", v.pod_cidr);
  f("providerID", v.provider_id);
}

template <class F>
void fields(NodeStatus& v, F& f) {
  f.quantities("capacity", v.capacity);
  f.quantities("allocatable", v.allocatable);
  f("conditions", v.conditions);
  f("addresses", v.addresses);
  f("nodeInfo", v.node_info);
}

template <class F>
void fields(Node& v, F& f) {
  f("apiVersion", v.api_version);
  f("kind", v.kind);
  f("metadata", v.metadata);
  f("spec", v.spec);
  f("status", v.status);
}

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const Taint& v) { detail::write_fields(j, v); }

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const NodeCondition& v) { detail::write_fields(j, v); }

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const NodeAddress& v) { detail::write_fields(j, v); }

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const NodeSystemInfo& v) { detail::write_fields(j, v); }

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const NodeSpec& v) { detail::write_fields(j, v); }

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const NodeStatus& v) { detail::write_fields(j, v); }

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const Node& v) { detail::write_fields(j, v); }

TFJOB_JSON_FN from_json(const TFJOB_JSON& j, Node& v) { detail::decode_lenient(j, "Node", v); }

TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, Taint& v) {
  detail::read_fields(d, j, path, v);
}

TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, NodeCondition& v) {
  detail::read_fields(d, j, path, v);
}

TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, NodeAddress& v) {
  detail::read_fields(d, j, path, v);
}

TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, NodeSystemInfo& v) {
  detail::read_fields(d, j, path, v);
}

TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, NodeSpec& v) {
  detail::read_fields(d, j, path, v);
}

TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, NodeStatus& v) {
  detail::read_fields(d, j, path, v);
}

TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, Node& v) {
  detail::read_fields(d, j, path, v);
}

}  // namespace tfjob::k8s
