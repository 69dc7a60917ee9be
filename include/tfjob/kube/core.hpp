#pragma once
/// \file Core Kubernetes resources as JSON-backed value types (kube-rs `DynamicObject` with
/// typed accessors for what the plugin reads). The whole object is kept in `json`, so
/// nothing the server sent is ever lost; each type has its resource_traits.

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
  explicit Object(nlohmann::json j) : json(std::move(j)) {}

  /// A string at a JSON pointer ("" when absent or not a string).
  std::string str(const char* pointer) const {
    const nlohmann::json::json_pointer p(pointer);
    if (!json.contains(p)) return {};
    const auto& v = json.at(p);
    return v.is_string() ? v.get<std::string>() : std::string();
  }
  const nlohmann::json& at_or_null(const char* pointer) const {
    static const nlohmann::json null_value;
    const nlohmann::json::json_pointer p(pointer);
    return json.contains(p) ? json.at(p) : null_value;
  }

  std::string api_version() const { return str("/apiVersion"); }
  std::string kind() const { return str("/kind"); }
  std::string name() const { return str("/metadata/name"); }
  std::string namespace_() const { return str("/metadata/namespace"); }
  std::string uid() const { return str("/metadata/uid"); }
  std::string resource_version() const { return str("/metadata/resourceVersion"); }
  std::string creation_timestamp() const { return str("/metadata/creationTimestamp"); }
  std::string deletion_timestamp() const { return str("/metadata/deletionTimestamp"); }
  std::int64_t generation() const {
    const auto& g = at_or_null("/metadata/generation");
    return g.is_number_integer() ? g.get<std::int64_t>() : 0;
  }
  std::map<std::string, std::string> labels() const { return string_map("/metadata/labels"); }
  std::map<std::string, std::string> annotations() const { return string_map("/metadata/annotations"); }
  std::string label(const std::string& key) const {
    auto l = labels();
    auto it = l.find(key);
    return it == l.end() ? std::string() : it->second;
  }
  const nlohmann::json& metadata() const { return at_or_null("/metadata"); }
  const nlohmann::json& spec() const { return at_or_null("/spec"); }
  const nlohmann::json& status() const { return at_or_null("/status"); }

  void set_name(const std::string& n) { json["metadata"]["name"] = n; }
  void set_namespace(const std::string& n) { json["metadata"]["namespace"] = n; }
  void set_label(const std::string& k, const std::string& v) { json["metadata"]["labels"][k] = v; }

 protected:
  std::map<std::string, std::string> string_map(const char* pointer) const {
    std::map<std::string, std::string> out;
    const auto& m = at_or_null(pointer);
    if (m.is_object())
      for (auto it = m.begin(); it != m.end(); ++it)
        if (it.value().is_string()) out[it.key()] = it.value().get<std::string>();
    return out;
  }
};

inline void to_json(nlohmann::json& j, const Object& o) { j = o.json; }
inline void from_json(const nlohmann::json& j, Object& o) { o.json = j; }

/// An object of a type known only at run time: use `Api<DynamicObject>(client, info, ns)`.
struct DynamicObject : Object {
  using Object::Object;
};

/// core/v1 Pod.
struct Pod : Object {
  using Object::Object;
  std::string phase() const { return str("/status/phase"); }
  std::string node_name() const { return str("/spec/nodeName"); }
  std::string pod_ip() const { return str("/status/podIP"); }
  std::vector<std::string> container_names() const {
    std::vector<std::string> out;
    const auto& cs = at_or_null("/spec/containers");
    if (cs.is_array())
      for (const auto& c : cs) out.push_back(tfjob::detail::value_at(c, "name", ""));
    return out;
  }
  /// status.containerStatuses[] entry for a container (null when absent).
  nlohmann::json container_status(const std::string& container) const {
    const auto& cs = at_or_null("/status/containerStatuses");
    if (cs.is_array())
      for (const auto& c : cs)
        if (tfjob::detail::value_at(c, "name", "") == container) return c;
    return nullptr;
  }
  int restart_count() const {
    int n = 0;
    const auto& cs = at_or_null("/status/containerStatuses");
    if (cs.is_array())
      for (const auto& c : cs) n += tfjob::detail::value_at(c, "restartCount", 0);
    return n;
  }
  /// The Ready condition is True.
  bool ready() const {
    const auto& cs = at_or_null("/status/conditions");
    if (cs.is_array())
      for (const auto& c : cs)
        if (tfjob::detail::value_at(c, "type", "") == "Ready") return tfjob::detail::value_at(c, "status", "") == "True";
    return false;
  }
};

/// core/v1 Node.
struct Node : Object {
  using Object::Object;
  /// status.allocatable[resource] ("" when absent), e.g. "nvidia.com/gpu".
  std::string allocatable(const std::string& resource) const { return quantity("/status/allocatable", resource); }
  std::string capacity(const std::string& resource) const { return quantity("/status/capacity", resource); }
  bool ready() const {
    const auto& cs = at_or_null("/status/conditions");
    if (cs.is_array())
      for (const auto& c : cs)
        if (tfjob::detail::value_at(c, "type", "") == "Ready") return tfjob::detail::value_at(c, "status", "") == "True";
    return false;
  }
  bool unschedulable() const {
    const auto& u = at_or_null("/spec/unschedulable");
    return u.is_boolean() && u.get<bool>();
  }

 private:
  std::string quantity(const char* where, const std::string& resource) const {
    const auto& m = at_or_null(where);
    if (m.is_object() && m.contains(resource) && m[resource].is_string()) return m[resource].get<std::string>();
    return {};
  }
};

/// core/v1 Event.
struct Event : Object {
  using Object::Object;
  std::string type() const { return str("/type"); }
  std::string reason() const { return str("/reason"); }
  std::string message() const { return str("/message"); }
  std::string involved_kind() const { return str("/involvedObject/kind"); }
  std::string involved_name() const { return str("/involvedObject/name"); }
  std::string last_timestamp() const {
    auto t = str("/lastTimestamp");
    return t.empty() ? str("/eventTime") : t;
  }
};

struct Namespace : Object { using Object::Object; };
struct Service : Object { using Object::Object; };
struct ConfigMap : Object { using Object::Object; };
struct Secret : Object { using Object::Object; };
struct PersistentVolumeClaim : Object {
  using Object::Object;
  std::string phase() const { return str("/status/phase"); }
};
/// apps/v1 Deployment.
struct Deployment : Object {
  using Object::Object;
  int replicas() const { return num("/spec/replicas", 1); }
  int ready_replicas() const { return num("/status/readyReplicas", 0); }
  int updated_replicas() const { return num("/status/updatedReplicas", 0); }
  int available_replicas() const { return num("/status/availableReplicas", 0); }
  std::int64_t observed_generation() const { return num("/status/observedGeneration", 0); }

 private:
  int num(const char* p, int def) const {
    const auto& v = at_or_null(p);
    return v.is_number_integer() ? v.get<int>() : def;
  }
};
/// batch/v1 Job.
struct Job : Object { using Object::Object; };

/// An ownerReference to `owner` (an object as the server returned it, with its uid), so
/// the garbage collector deletes the dependent with its owner; `controller` and
/// `blockOwnerDeletion` as controllers set them (apimachinery `metav1.NewControllerRef`):
/// a foreground delete of the owner then waits for the dependent.
inline nlohmann::json owner_reference(const nlohmann::json& owner, bool controller = true) {
  auto s = [&](const char* p) {
    const nlohmann::json::json_pointer ptr(p);
    return owner.contains(ptr) && owner.at(ptr).is_string() ? owner.at(ptr).get<std::string>() : std::string();
  };
  nlohmann::json r = {{"apiVersion", s("/apiVersion")}, {"kind", s("/kind")}, {"name", s("/metadata/name")},
                      {"uid", s("/metadata/uid")}};
  if (controller) r["controller"] = true, r["blockOwnerDeletion"] = true;
  return r;
}

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
