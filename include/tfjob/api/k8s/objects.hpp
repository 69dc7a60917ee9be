#pragma once
/// \file The smaller core/v1 kinds the SDK reads and writes as value types: Namespace,
/// Service, ConfigMap, Secret and PersistentVolumeClaim (k8s.io/api/core/v1 `types.go`).

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

/// `NamespaceStatus`.
struct NamespaceStatus {
  std::string phase;  ///< Active or Terminating
  nlohmann::json other = nlohmann::json::object();
};

/// core/v1 Namespace.
struct Namespace {
  std::string api_version;
  std::string kind;
  ObjectMeta metadata;
  nlohmann::json spec;
  NamespaceStatus status;
  nlohmann::json other = nlohmann::json::object();
};

/// `ServicePort`.
struct ServicePort {
  std::string name;
  std::string protocol;
  std::int32_t port = 0;
  nlohmann::json target_port;  ///< a number or a port name; null when unset
  std::int32_t node_port = 0;
  nlohmann::json other = nlohmann::json::object();
};

/// `ServiceSpec`.
struct ServiceSpec {
  std::string type;  ///< ClusterIP, NodePort, LoadBalancer, ExternalName
  std::string cluster_ip;
  std::vector<ServicePort> ports;
  std::map<std::string, std::string> selector;
  nlohmann::json other = nlohmann::json::object();
};

/// core/v1 Service.
struct Service {
  std::string api_version;
  std::string kind;
  ObjectMeta metadata;
  ServiceSpec spec;
  nlohmann::json status;
  nlohmann::json other = nlohmann::json::object();
};

/// core/v1 ConfigMap.
struct ConfigMap {
  std::string api_version;
  std::string kind;
  ObjectMeta metadata;
  std::map<std::string, std::string> data;
  std::map<std::string, std::string> binary_data;  ///< base64
  nlohmann::json other = nlohmann::json::object();
};

/// core/v1 Secret.
struct Secret {
  std::string api_version;
  std::string kind;
  ObjectMeta metadata;
  std::string type;
  std::map<std::string, std::string> data;  ///< base64 values
  std::map<std::string, std::string> string_data;  ///< write-only plain values
  nlohmann::json other = nlohmann::json::object();
};

/// `PersistentVolumeClaimSpec`.
struct ClaimSpec {
  std::vector<std::string> access_modes;
  std::optional<std::string> storage_class_name;  ///< unset = the default class; "" = none
  std::string volume_name;
  ResourceRequirements resources;
  std::string volume_mode;
  nlohmann::json other = nlohmann::json::object();
};

/// `PersistentVolumeClaimStatus`.
struct ClaimStatus {
  std::string phase;  ///< Pending, Bound, Lost
  std::vector<std::string> access_modes;
  ResourceList capacity;
  nlohmann::json other = nlohmann::json::object();
};

/// core/v1 PersistentVolumeClaim.
struct PersistentVolumeClaim {
  std::string api_version;
  std::string kind;
  ObjectMeta metadata;
  ClaimSpec spec;
  ClaimStatus status;
  nlohmann::json other = nlohmann::json::object();
};

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const NamespaceStatus& v);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const Namespace& v);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const ServicePort& v);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const ServiceSpec& v);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const Service& v);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const ConfigMap& v);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const Secret& v);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const ClaimSpec& v);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const ClaimStatus& v);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const PersistentVolumeClaim& v);
/// Decoders: what has the wrong type stays in `other`, untouched; they throw only for a
/// value that is not a JSON object at all.
TFJOB_JSON_FN from_json(const TFJOB_JSON& j, Namespace& v);
TFJOB_JSON_FN from_json(const TFJOB_JSON& j, Service& v);
TFJOB_JSON_FN from_json(const TFJOB_JSON& j, ConfigMap& v);
TFJOB_JSON_FN from_json(const TFJOB_JSON& j, Secret& v);
TFJOB_JSON_FN from_json(const TFJOB_JSON& j, PersistentVolumeClaim& v);
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, NamespaceStatus& v);
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, Namespace& v);
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, ServicePort& v);
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, ServiceSpec& v);
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, Service& v);
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, ConfigMap& v);
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, Secret& v);
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, ClaimSpec& v);
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, ClaimStatus& v);
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, PersistentVolumeClaim& v);

}  // namespace tfjob::k8s

#if TFJOB_SDK_DEFINE_API
#include <tfjob/api/k8s/impl/objects_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_API
