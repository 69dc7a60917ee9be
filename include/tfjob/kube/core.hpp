#pragma once
/// \file Core Kubernetes resources as JSON-backed value types (kube-rs `DynamicObject` with
/// typed accessors for what the plugin reads). The whole object is kept in `json`, so
/// nothing the server sent is ever lost; each type has its resource_traits.

#include <tfjob/detail/compiled.hpp>
#include <tfjob/detail/json.hpp>
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

void to_json(nlohmann::json& j, const Object& o);
void from_json(const nlohmann::json& j, Object& o);

/// An object of a type known only at run time: use `Api<DynamicObject>(client, info, ns)`.
struct DynamicObject : Object {
  using Object::Object;
};

/// core/v1 Pod.
struct Pod : Object {
  using Object::Object;
  std::string phase() const;
  std::string node_name() const;
  std::string pod_ip() const;
  std::vector<std::string> container_names() const;
  int restart_count() const;
  /// The Ready condition is True.
  bool ready() const;
};

/// The status of `container` in a pod's JSON (`status.containerStatuses`,
/// `initContainerStatuses` or `ephemeralContainerStatuses`: a name is unique across the
/// three, ValidatePodSpec), or nullptr when it is not reported.
const nlohmann::json* container_status(const nlohmann::json& pod, const std::string& container);

/// core/v1 Node.
struct Node : Object {
  using Object::Object;
  /// status.allocatable[resource] ("" when absent), e.g. "nvidia.com/gpu".
  std::string allocatable(const std::string& resource) const;
  std::string capacity(const std::string& resource) const;
  bool ready() const;
  bool unschedulable() const;

 private:
  std::string quantity(const char* where, const std::string& resource) const;
};

/// core/v1 Event.
struct Event : Object {
  using Object::Object;
  std::string type() const;
  std::string reason() const;
  std::string message() const;
  std::string involved_kind() const;
  std::string involved_name() const;
  std::string last_timestamp() const;
};

struct Namespace : Object { using Object::Object; };
struct Service : Object { using Object::Object; };
struct ConfigMap : Object { using Object::Object; };
struct Secret : Object { using Object::Object; };
struct PersistentVolumeClaim : Object {
  using Object::Object;
  std::string phase() const;
};
/// apps/v1 Deployment.
struct Deployment : Object {
  using Object::Object;
  int replicas() const;
  int ready_replicas() const;
  int updated_replicas() const;
  int available_replicas() const;
  std::int64_t observed_generation() const;

 private:
  int num(const char* p, int def) const;
};
/// batch/v1 Job.
struct Job : Object { using Object::Object; };

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
TFJOB_KUBE_TRAITS(Pod, "", "v1", "pods", "Pod", true)
TFJOB_KUBE_TRAITS(Node, "", "v1", "nodes", "Node", false)
TFJOB_KUBE_TRAITS(Event, "", "v1", "events", "Event", true)
TFJOB_KUBE_TRAITS(Namespace, "", "v1", "namespaces", "Namespace", false)
TFJOB_KUBE_TRAITS(Service, "", "v1", "services", "Service", true)
TFJOB_KUBE_TRAITS(ConfigMap, "", "v1", "configmaps", "ConfigMap", true)
TFJOB_KUBE_TRAITS(Secret, "", "v1", "secrets", "Secret", true)
TFJOB_KUBE_TRAITS(PersistentVolumeClaim, "", "v1", "persistentvolumeclaims", "PersistentVolumeClaim", true)
TFJOB_KUBE_TRAITS(Deployment, "apps", "v1", "deployments", "Deployment", true)
TFJOB_KUBE_TRAITS(Job, "batch", "v1", "jobs", "Job", true)
#undef TFJOB_KUBE_TRAITS

}  // namespace tfjob::kube

#if TFJOB_SDK_DEFINE_KUBE
namespace tfjob::kube {

TFJOB_INLINE Object::Object(nlohmann::json j) : json(std::move(j)) {}

TFJOB_INLINE std::string Object::str(const char* pointer) const {
  const nlohmann::json::json_pointer p(pointer);
  if (!json.contains(p)) return {};
  const auto& v = json.at(p);
  return v.is_string() ? v.get<std::string>() : std::string();
}

TFJOB_INLINE const nlohmann::json& Object::at_or_null(const char* pointer) const {
  static const nlohmann::json null_value;
  const nlohmann::json::json_pointer p(pointer);
  return json.contains(p) ? json.at(p) : null_value;
}

TFJOB_INLINE std::string Object::api_version() const { return str("/apiVersion"); }

TFJOB_INLINE std::string Object::kind() const { return str("/kind"); }

TFJOB_INLINE std::string Object::name() const { return str("/metadata/name"); }

TFJOB_INLINE std::string Object::namespace_() const { return str("/metadata/namespace"); }

TFJOB_INLINE std::string Object::uid() const { return str("/metadata/uid"); }

TFJOB_INLINE std::string Object::resource_version() const { return str("/metadata/resourceVersion"); }

TFJOB_INLINE std::string Object::creation_timestamp() const { return str("/metadata/creationTimestamp"); }

TFJOB_INLINE std::string Object::deletion_timestamp() const { return str("/metadata/deletionTimestamp"); }

TFJOB_INLINE std::int64_t Object::generation() const {
  const auto& g = at_or_null("/metadata/generation");
  return g.is_number_integer() ? g.get<std::int64_t>() : 0;
}

TFJOB_INLINE std::map<std::string, std::string> Object::labels() const { return string_map("/metadata/labels"); }

TFJOB_INLINE std::map<std::string, std::string> Object::annotations() const { return string_map("/metadata/annotations"); }

TFJOB_INLINE std::string Object::label(const std::string& key) const {
  auto l = labels();
  auto it = l.find(key);
  return it == l.end() ? std::string() : it->second;
}

TFJOB_INLINE const nlohmann::json& Object::metadata() const { return at_or_null("/metadata"); }

TFJOB_INLINE const nlohmann::json& Object::spec() const { return at_or_null("/spec"); }

TFJOB_INLINE const nlohmann::json& Object::status() const { return at_or_null("/status"); }

TFJOB_INLINE void Object::set_name(const std::string& n) { json["metadata"]["name"] = n; }

TFJOB_INLINE void Object::set_namespace(const std::string& n) { json["metadata"]["namespace"] = n; }

TFJOB_INLINE void Object::set_label(const std::string& k, const std::string& v) { json["metadata"]["labels"][k] = v; }

TFJOB_INLINE std::map<std::string, std::string> Object::string_map(const char* pointer) const {
  std::map<std::string, std::string> out;
  const auto& m = at_or_null(pointer);
  if (m.is_object())
    for (auto it = m.begin(); it != m.end(); ++it)
      if (it.value().is_string()) out[it.key()] = it.value().get<std::string>();
  return out;
}

TFJOB_INLINE void to_json(nlohmann::json& j, const Object& o) { j = o.json; }

TFJOB_INLINE void from_json(const nlohmann::json& j, Object& o) { o.json = j; }

TFJOB_INLINE std::string Pod::phase() const { return str("/status/phase"); }

TFJOB_INLINE std::string Pod::node_name() const { return str("/spec/nodeName"); }

TFJOB_INLINE std::string Pod::pod_ip() const { return str("/status/podIP"); }

TFJOB_INLINE std::vector<std::string> Pod::container_names() const {
  std::vector<std::string> out;
  const auto& cs = at_or_null("/spec/containers");
  if (cs.is_array())
    for (const auto& c : cs) out.push_back(tfjob::detail::value_at(c, "name", ""));
  return out;
}

TFJOB_INLINE const nlohmann::json* container_status(const nlohmann::json& pod, const std::string& container) {
  const auto st = pod.find("status");
  if (st == pod.end() || !st->is_object()) return nullptr;
  for (const char* k : {"containerStatuses", "initContainerStatuses", "ephemeralContainerStatuses"}) {
    auto l = st->find(k);
    if (l == st->end() || !l->is_array()) continue;
    for (const auto& c : *l)
      if (tfjob::detail::value_at(c, "name", "") == container) return &c;
  }
  return nullptr;
}

TFJOB_INLINE int Pod::restart_count() const {
  int n = 0;
  const auto& cs = at_or_null("/status/containerStatuses");
  if (cs.is_array())
    for (const auto& c : cs) n += tfjob::detail::value_at(c, "restartCount", 0);
  return n;
}

TFJOB_INLINE bool Pod::ready() const {
  const auto& cs = at_or_null("/status/conditions");
  if (cs.is_array())
    for (const auto& c : cs)
      if (tfjob::detail::value_at(c, "type", "") == "Ready") return tfjob::detail::value_at(c, "status", "") == "True";
  return false;
}

TFJOB_INLINE std::string Node::allocatable(const std::string& resource) const { return quantity("/status/allocatable", resource); }

TFJOB_INLINE std::string Node::capacity(const std::string& resource) const { return quantity("/status/capacity", resource); }

TFJOB_INLINE bool Node::ready() const {
  const auto& cs = at_or_null("/status/conditions");
  if (cs.is_array())
    for (const auto& c : cs)
      if (tfjob::detail::value_at(c, "type", "") == "Ready") return tfjob::detail::value_at(c, "status", "") == "True";
  return false;
}

TFJOB_INLINE bool Node::unschedulable() const {
  const auto& u = at_or_null("/spec/unschedulable");
  return u.is_boolean() && u.get<bool>();
}

TFJOB_INLINE std::string Node::quantity(const char* where, const std::string& resource) const {
  const auto& m = at_or_null(where);
  if (m.is_object() && m.contains(resource) && m[resource].is_string()) return m[resource].get<std::string>();
  return {};
}

TFJOB_INLINE std::string Event::type() const { return str("/type"); }

TFJOB_INLINE std::string Event::reason() const { return str("/reason"); }

TFJOB_INLINE std::string Event::message() const { return str("/message"); }

TFJOB_INLINE std::string Event::involved_kind() const { return str("/involvedObject/kind"); }

TFJOB_INLINE std::string Event::involved_name() const { return str("/involvedObject/name"); }

TFJOB_INLINE std::string Event::last_timestamp() const {
  auto t = str("/lastTimestamp");
  return t.empty() ? str("/eventTime") : t;
}

TFJOB_INLINE std::string PersistentVolumeClaim::phase() const { return str("/status/phase"); }

TFJOB_INLINE int Deployment::replicas() const { return num("/spec/replicas", 1); }

TFJOB_INLINE int Deployment::ready_replicas() const { return num("/status/readyReplicas", 0); }

TFJOB_INLINE int Deployment::updated_replicas() const { return num("/status/updatedReplicas", 0); }

TFJOB_INLINE int Deployment::available_replicas() const { return num("/status/availableReplicas", 0); }

TFJOB_INLINE std::int64_t Deployment::observed_generation() const { return num("/status/observedGeneration", 0); }

TFJOB_INLINE int Deployment::num(const char* p, int def) const {
  const auto& v = at_or_null(p);
  return v.is_number_integer() ? v.get<int>() : def;
}

TFJOB_INLINE nlohmann::json owner_reference(const nlohmann::json& owner, bool controller) {
  auto s = [&](const char* p) {
    const nlohmann::json::json_pointer ptr(p);
    return owner.contains(ptr) && owner.at(ptr).is_string() ? owner.at(ptr).get<std::string>() : std::string();
  };
  nlohmann::json r = {{"apiVersion", s("/apiVersion")}, {"kind", s("/kind")}, {"name", s("/metadata/name")},
                      {"uid", s("/metadata/uid")}};
  if (controller) r["controller"] = true, r["blockOwnerDeletion"] = true;
  return r;
}

}  // namespace tfjob::kube
#endif  // TFJOB_SDK_DEFINE_KUBE
