#pragma once
/// \file Where the core kinds live in the API (the resource_traits of the value types in
/// api/k8s/: Pod, Node, Event, Namespace, Service, ConfigMap, Secret, PersistentVolumeClaim,
/// Deployment, Job), and `DynamicObject` for a kind known only at run time (kube-rs
/// `DynamicObject`): the JSON as the server sent it, with metadata accessors.

#include <tfjob/detail/compiled.hpp>
#include <tfjob/detail/json.hpp>
#include <tfjob/api/k8s/event.hpp>
#include <tfjob/api/k8s/node.hpp>
#include <tfjob/api/k8s/objects.hpp>
#include <tfjob/api/k8s/pod.hpp>
#include <tfjob/api/k8s/workloads.hpp>
#include <tfjob/kube/resource.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace tfjob::kube {

/// Any Kubernetes object: the JSON as the server sent it, plus metadata accessors.
struct Object {
  nlohmann::json json = nlohmann::json::object();

  Object() = default;
  explicit Object(nlohmann::json j);

  /// A string at a JSON pointer ("" when absent or not a string).
  std::string str(const char* pointer) const;
  const nlohmann::json& at_or_null(const char* pointer) const;

  std::string api_version() const;
  std::string kind() const;
  std::string name() const;
  std::string namespace_() const;
  std::string uid() const;
  std::string resource_version() const;
  std::string creation_timestamp() const;
  std::string deletion_timestamp() const;
  std::int64_t generation() const;
  std::map<std::string, std::string> labels() const;
  std::map<std::string, std::string> annotations() const;
  std::string label(const std::string& key) const;
  const nlohmann::json& metadata() const;
  const nlohmann::json& spec() const;
  const nlohmann::json& status() const;

  void set_name(const std::string& n);
  void set_namespace(const std::string& n);
  void set_label(const std::string& k, const std::string& v);

 protected:
  std::map<std::string, std::string> string_map(const char* pointer) const;
};

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const Object& o);
TFJOB_JSON_FN from_json(const TFJOB_JSON& j, Object& o);

/// An object of a type known only at run time: use `Api<DynamicObject>(client, info, ns)`.
struct DynamicObject : Object {
  using Object::Object;
};

/// An ownerReference to `owner` (an object as the server returned it, with its uid), so
/// the garbage collector deletes the dependent with its owner; `controller` and
/// `blockOwnerDeletion` as controllers set them (apimachinery `metav1.NewControllerRef`):
/// a foreground delete of the owner then waits for the dependent.
nlohmann::json owner_reference(const nlohmann::json& owner, bool controller = true);

#define TFJOB_KUBE_TRAITS(T, G, V, P, K, NS)      \
  template <>                                     \
  struct resource_traits<T> {                     \
    static constexpr const char* group = G;       \
    static constexpr const char* version = V;     \
    static constexpr const char* plural = P;      \
    static constexpr const char* kind = K;        \
    static constexpr bool namespaced = NS;        \
  };
TFJOB_KUBE_TRAITS(k8s::Pod, "", "v1", "pods", "Pod", true)
TFJOB_KUBE_TRAITS(k8s::Node, "", "v1", "nodes", "Node", false)
TFJOB_KUBE_TRAITS(k8s::Event, "", "v1", "events", "Event", true)
TFJOB_KUBE_TRAITS(k8s::Namespace, "", "v1", "namespaces", "Namespace", false)
TFJOB_KUBE_TRAITS(k8s::Service, "", "v1", "services", "Service", true)
TFJOB_KUBE_TRAITS(k8s::ConfigMap, "", "v1", "configmaps", "ConfigMap", true)
TFJOB_KUBE_TRAITS(k8s::Secret, "", "v1", "secrets", "Secret", true)
TFJOB_KUBE_TRAITS(k8s::PersistentVolumeClaim, "", "v1", "persistentvolumeclaims", "PersistentVolumeClaim", true)
TFJOB_KUBE_TRAITS(k8s::Deployment, "apps", "v1", "deployments", "Deployment", true)
TFJOB_KUBE_TRAITS(k8s::Job, "batch", "v1", "jobs", "Job", true)
#undef TFJOB_KUBE_TRAITS

}  // namespace tfjob::kube

#if TFJOB_SDK_DEFINE_KUBE
#include <tfjob/kube/impl/core_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_KUBE
