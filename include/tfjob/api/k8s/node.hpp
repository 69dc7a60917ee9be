#pragma once
/// \file core/v1 Node as a value type (k8s.io/api/core/v1 `types.go`): capacity, allocatable,
/// taints, conditions and the node info the GPU workflows read; the rest stays in `other`.

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

/// `Taint`.
struct Taint {
  std::string key;
  std::string value;
  std::string effect;  ///< NoSchedule, PreferNoSchedule, NoExecute
  std::string time_added;
  nlohmann::json other = nlohmann::json::object();
};

/// `NodeCondition`.
struct NodeCondition {
  std::string type;  ///< Ready, MemoryPressure, DiskPressure, ...
  std::string status;
  std::string reason;
  std::string message;
  std::string last_heartbeat_time;
  std::string last_transition_time;
  nlohmann::json other = nlohmann::json::object();
};

/// `NodeAddress`.
struct NodeAddress {
  std::string type;  ///< InternalIP, Hostname, ...
  std::string address;
  nlohmann::json other = nlohmann::json::object();
};

/// `NodeSystemInfo`.
struct NodeSystemInfo {
  std::string kubelet_version;
  std::string os_image;
  std::string kernel_version;
  std::string container_runtime_version;
  std::string architecture;
  std::string operating_system;
  nlohmann::json other = nlohmann::json::object();
};

/// `NodeSpec`.
struct NodeSpec {
  bool unschedulable = false;
  std::vector<Taint> taints;
  std::string pod_cidr;
  std::string provider_id;
  nlohmann::json other = nlohmann::json::object();
};

/// `NodeStatus`.
struct NodeStatus {
  ResourceList capacity;
  ResourceList allocatable;
  std::vector<NodeCondition> conditions;
  std::vector<NodeAddress> addresses;
  NodeSystemInfo node_info;
  nlohmann::json other = nlohmann::json::object();

  /// The condition of that type, or nullptr.
  const NodeCondition* condition(const std::string& type) const;
};

/// core/v1 Node.
struct Node {
  std::string api_version;
  std::string kind;
  ObjectMeta metadata;
  NodeSpec spec;
  NodeStatus status;
  nlohmann::json other = nlohmann::json::object();

  /// status.allocatable[resource] ("" when absent), e.g. "nvidia.com/gpu".
  std::string allocatable(const std::string& resource) const;
  std::string capacity(const std::string& resource) const;
  /// The Ready condition is True.
  bool ready() const;
};

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const Taint& v);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const NodeCondition& v);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const NodeAddress& v);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const NodeSystemInfo& v);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const NodeSpec& v);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const NodeStatus& v);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const Node& v);
/// Decoders: what has the wrong type stays in `other`, untouched; they throw only for a
/// value that is not a JSON object at all.
TFJOB_JSON_FN from_json(const TFJOB_JSON& j, Node& v);
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, Taint& v);
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, NodeCondition& v);
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, NodeAddress& v);
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, NodeSystemInfo& v);
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, NodeSpec& v);
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, NodeStatus& v);
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, Node& v);

}  // namespace tfjob::k8s

#if TFJOB_SDK_DEFINE_API
#include <tfjob/api/k8s/impl/node_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_API
