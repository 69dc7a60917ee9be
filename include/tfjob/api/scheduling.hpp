#pragma once
/// \file Whether a pod could land on a node, by the kube-scheduler's filters that depend on
/// the pod's spec and the node alone: NodeUnschedulable, NodeAffinity (nodeSelector and the
/// required node affinity) and TaintToleration; and whether the node's allocatable covers
/// one pod's requests (NodeResourcesFit, ignoring what other pods use). Pure functions over
/// `v1.PodSpec` and `v1.Node` as JSON: lint, the GPU preflight and `explain` share them.

#include <tfjob/api/quantity.hpp>
#include <tfjob/detail/compiled.hpp>
#include <tfjob/detail/json.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tfjob::scheduling {

/// Why a node does or does not take a pod.
struct NodeFit {
  std::string node;
  bool schedulable = true;                      ///< not cordoned (or the pod tolerates it)
  std::vector<std::string> selector_misses;     ///< `key=value` of nodeSelector/affinity the node lacks
  std::vector<std::string> untolerated_taints;  ///< `key=value:Effect` the pod does not tolerate
  bool ok() const;
  /// How far from fitting: the number of reasons it does not.
  std::size_t misses() const;
};

namespace detail {
using tfjob::detail::arr_at;
using tfjob::detail::obj_at;
using tfjob::detail::str_at;
/// One NodeSelectorRequirement against the node's labels (k8s.io/component-helpers
/// scheduling/corev1/nodeaffinity: In, NotIn, Exists, DoesNotExist, Gt, Lt).
bool requirement_matches(const nlohmann::json& req, const nlohmann::json& labels);
std::string requirement_text(const nlohmann::json& req);
}  // namespace detail

/// Whether `toleration` tolerates `taint` (k8s.io/api core/v1 `Toleration.ToleratesTaint`):
/// an empty effect matches every effect, an empty key with `Exists` every key, `Exists`
/// ignores the value, `Equal` (the default operator) needs the same value.
bool tolerates(const nlohmann::json& toleration, const nlohmann::json& taint);

/// How `node` stands for a pod with `pod_spec`. Taints with effect NoSchedule or NoExecute
/// filter (PreferNoSchedule only scores); a cordoned node (`spec.unschedulable`) is out
/// unless the pod tolerates `node.kubernetes.io/unschedulable:NoSchedule`, as the
/// NodeUnschedulable plugin rules. nodeSelector and required node affinity terms (ORed,
/// expressions ANDed) must match the node's labels.
NodeFit node_fit(const nlohmann::json& pod_spec, const nlohmann::json& node);

/// What one pod requests, per resource, in base units (NodeResourcesFit's `computePodResourceRequest`:
/// the sum over containers, or the largest init container when larger; a container with
/// limits but no requests requests its limits, as the API server defaults it).
std::map<std::string, double> pod_requests(const nlohmann::json& pod_spec);

/// A node's allocatable, per resource, in base units.
std::map<std::string, double> allocatable(const nlohmann::json& node);

/// Resources of `requests` that exceed `alloc` (a resource the node lacks counts as 0).
std::vector<std::string> exceeds(const std::map<std::string, double>& requests,
                                 const std::map<std::string, double>& alloc);

}  // namespace tfjob::scheduling

#if TFJOB_SDK_DEFINE_API
namespace tfjob::scheduling {

TFJOB_INLINE bool NodeFit::ok() const { return schedulable && selector_misses.empty() && untolerated_taints.empty(); }

TFJOB_INLINE std::size_t NodeFit::misses() const { return (schedulable ? 0 : 1) + selector_misses.size() + untolerated_taints.size(); }

}  // namespace tfjob::scheduling
namespace tfjob::scheduling::detail {

TFJOB_INLINE bool requirement_matches(const nlohmann::json& req, const nlohmann::json& labels) {
  const std::string key = str_at(req, "key"), op = str_at(req, "operator");
  const auto values = tfjob::detail::value_at(req, "values", nlohmann::json::array());
  const bool has = labels.contains(key) && labels[key].is_string();
  const std::string v = has ? labels[key].get<std::string>() : "";
  auto in = [&] {
    for (const auto& x : values) if (x.is_string() && x.get<std::string>() == v) return true;
    return false;
  };
  if (op == "In") return has && in();
  if (op == "NotIn") return !has || !in();
  if (op == "Exists") return has;
  if (op == "DoesNotExist") return !has;
  if ((op == "Gt" || op == "Lt") && has && values.size() == 1 && values[0].is_string()) {
    try {
      long long a = std::stoll(v), b = std::stoll(values[0].get<std::string>());
      return op == "Gt" ? a > b : a < b;
    } catch (...) {
      return false;
    }
  }
  return false;
}

TFJOB_INLINE std::string requirement_text(const nlohmann::json& req) {
  std::string vs;
  for (const auto& x : tfjob::detail::value_at(req, "values", nlohmann::json::array()))
    if (x.is_string()) vs += (vs.empty() ? "" : ",") + x.get<std::string>();
  return str_at(req, "key") + " " + str_at(req, "operator") + (vs.empty() ? "" : " (" + vs + ")");
}

}  // namespace tfjob::scheduling::detail
namespace tfjob::scheduling {

TFJOB_INLINE bool tolerates(const nlohmann::json& toleration, const nlohmann::json& taint) {
  const std::string te = detail::str_at(toleration, "effect"), e = detail::str_at(taint, "effect");
  if (!te.empty() && te != e) return false;
  const std::string tk = detail::str_at(toleration, "key"), k = detail::str_at(taint, "key");
  std::string op = detail::str_at(toleration, "operator");
  if (op.empty()) op = "Equal";
  if (!tk.empty() && tk != k) return false;
  if (tk.empty() && op != "Exists") return false;
  if (op == "Exists") return true;
  return detail::str_at(toleration, "value") == detail::str_at(taint, "value");
}

TFJOB_INLINE NodeFit node_fit(const nlohmann::json& pod_spec, const nlohmann::json& node) {
  using nlohmann::json;
  NodeFit f;
  f.node = tfjob::detail::value_at(node, "/metadata/name"_json_pointer, std::string());
  const json labels = detail::obj_at(node, "/metadata/labels"_json_pointer);
  const json tolerations = tfjob::detail::value_at(pod_spec, "tolerations", json::array());
  auto tolerated = [&](const json& taint) {
    for (const auto& t : tolerations) if (tolerates(t, taint)) return true;
    return false;
  };
  if (tfjob::detail::value_at(node, "/spec/unschedulable"_json_pointer, false))
    f.schedulable = tolerated({{"key", "node.kubernetes.io/unschedulable"}, {"effect", "NoSchedule"}});
  const nlohmann::json owned1 = tfjob::detail::value_at(pod_spec, "nodeSelector", json::object());  // items() of a temporary would dangle
  for (const auto& [k, v] : owned1.items()) {
    const std::string want = v.is_string() ? v.get<std::string>() : v.dump();
    if (!labels.contains(k) || labels[k] != want) f.selector_misses.push_back(k + "=" + want);
  }
  const json terms = detail::arr_at(pod_spec, "/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution/nodeSelectorTerms"_json_pointer);
  if (!terms.empty()) {
    bool any = false;
    std::vector<std::string> first_misses;
    for (const auto& term : terms) {
      std::vector<std::string> misses;
      for (const auto& req : tfjob::detail::value_at(term, "matchExpressions", json::array()))
        if (!detail::requirement_matches(req, labels)) misses.push_back(detail::requirement_text(req));
      if (misses.empty()) { any = true; break; }
      if (first_misses.empty()) first_misses = misses;
    }
    if (!any) for (auto& m : first_misses) f.selector_misses.push_back("affinity " + m);
  }
  for (const auto& taint : detail::arr_at(node, "/spec/taints"_json_pointer)) {
    const std::string effect = detail::str_at(taint, "effect");
    if (effect != "NoSchedule" && effect != "NoExecute") continue;
    if (tolerated(taint)) continue;
    std::string v = detail::str_at(taint, "value");
    f.untolerated_taints.push_back(detail::str_at(taint, "key") + (v.empty() ? "" : "=" + v) + ":" + effect);
  }
  return f;
}

TFJOB_INLINE std::map<std::string, double> pod_requests(const nlohmann::json& pod_spec) {
  using nlohmann::json;
  auto container = [](const json& c) {
    std::map<std::string, double> m;
    const json res = c.is_object() ? tfjob::detail::value_at(c, "resources", json::object()) : json::object();
    const json req = tfjob::detail::value_at(res, "requests", json::object()), lim = tfjob::detail::value_at(res, "limits", json::object());
    for (const json* src : {&lim, &req})
      for (const auto& [k, v] : src->items()) {
        auto q = v.is_string() ? Quantity::try_parse(v.get<std::string>())
                               : v.is_number() ? Quantity::try_parse(v.dump()) : std::nullopt;
        if (q) m[k] = q->value();  // requests, read second, win over limits
      }
    return m;
  };
  std::map<std::string, double> sum, init;
  for (const auto& c : tfjob::detail::value_at(pod_spec, "containers", json::array()))
    for (const auto& [k, v] : container(c)) sum[k] += v;
  for (const auto& c : tfjob::detail::value_at(pod_spec, "initContainers", json::array()))
    for (const auto& [k, v] : container(c)) init[k] = std::max(init[k], v);
  for (const auto& [k, v] : init) sum[k] = std::max(sum[k], v);
  return sum;
}

TFJOB_INLINE std::map<std::string, double> allocatable(const nlohmann::json& node) {
  std::map<std::string, double> m;
  const nlohmann::json owned2 = detail::obj_at(node, "/status/allocatable"_json_pointer);  // items() of a temporary would dangle
  for (const auto& [k, v] : owned2.items()) {
    auto q = v.is_string() ? Quantity::try_parse(v.get<std::string>())
                           : v.is_number() ? Quantity::try_parse(v.dump()) : std::nullopt;
    if (q) m[k] = q->value();
  }
  return m;
}

TFJOB_INLINE std::vector<std::string> exceeds(const std::map<std::string, double>& requests,
                                              const std::map<std::string, double>& alloc) {
  std::vector<std::string> out;
  for (const auto& [k, v] : requests) {
    if (v <= 0) continue;
    auto it = alloc.find(k);
    if (it == alloc.end() || it->second + 1e-9 < v) out.push_back(k);
  }
  return out;
}

}  // namespace tfjob::scheduling
#endif  // TFJOB_SDK_DEFINE_API
