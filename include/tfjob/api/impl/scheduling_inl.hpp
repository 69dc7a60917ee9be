#pragma once
/// \file The bodies of <tfjob/api/scheduling.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_API` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/api/scheduling.hpp>, never this file.

namespace tfjob::scheduling {

TFJOB_INLINE bool NodeFit::ok() const { return schedulable && selector_misses.empty() && untolerated_taints.empty(); }

TFJOB_INLINE std::size_t NodeFit::misses() const { return (schedulable ? 0 : 1) + selector_misses.size() + untolerated_taints.size(); }

}  // namespace tfjob::scheduling
namespace tfjob::scheduling::detail {

TFJOB_INLINE bool requirement_matches(const k8s::NodeSelectorRequirement& req, const std::map<std::string, std::string>& labels) {
  const std::string& op = req.operator_;
  const auto it = labels.find(req.key);
  const bool has = it != labels.end();
  const std::string v = has ? it->second : "";
  auto in = [&] { return std::find(req.values.begin(), req.values.end(), v) != req.values.end(); };
  if (op == "In") return has && in();
  if (op == "NotIn") return !has || !in();
  if (op == "Exists") return has;
  if (op == "DoesNotExist") return !has;
  if ((op == "Gt" || op == "Lt") && has && req.values.size() == 1) {
    try {
      long long a = std::stoll(v), b = std::stoll(req.values[0]);
      return op == "Gt" ? a > b : a < b;
    } catch (...) {
      return false;
    }
  }
  return false;
}

TFJOB_INLINE std::string requirement_text(const k8s::NodeSelectorRequirement& req) {
  std::string vs;
  for (const auto& x : req.values) vs += (vs.empty() ? "" : ",") + x;
  return req.key + " " + req.operator_ + (vs.empty() ? "" : " (" + vs + ")");
}

TFJOB_INLINE k8s::PodSpec served_pod_spec(const nlohmann::json& pod_spec) {
  k8s::PodSpec s;
  if (!pod_spec.is_object()) return s;
  // what node_fit and pod_requests read, the rest left out (copying it was most of the cost)
  nlohmann::json read = nlohmann::json::object();
  for (const char* k : {"nodeSelector", "affinity", "tolerations"})
    if (auto it = pod_spec.find(k); it != pod_spec.end()) read[k] = *it;
  for (const char* k : {"containers", "initContainers"}) {
    auto it = pod_spec.find(k);
    if (it == pod_spec.end()) continue;
    if (!it->is_array()) { read[k] = *it; continue; }  // the decoder says what is wrong with it
    auto& out = read[k] = nlohmann::json::array();
    for (const auto& c : *it) {
      if (!c.is_object()) { out.push_back(c); continue; }
      nlohmann::json kept = nlohmann::json::object();
      for (const char* f : {"name", "resources"})
        if (auto ft = c.find(f); ft != c.end()) kept[f] = *ft;
      out.push_back(std::move(kept));
    }
  }
  from_json(read, s);
  return s;
}

/// Quantities in base units; what does not parse as one is left out.
TFJOB_INLINE void add_quantities(const k8s::ResourceList& from, std::map<std::string, double>& to) {
  for (const auto& [k, v] : from)
    if (auto q = Quantity::try_parse(v)) to[k] = q->value();
}

}  // namespace tfjob::scheduling::detail
namespace tfjob::scheduling {

TFJOB_INLINE bool tolerates(const k8s::Toleration& toleration, const k8s::Taint& taint) {
  if (!toleration.effect.empty() && toleration.effect != taint.effect) return false;
  const std::string op = toleration.operator_.empty() ? "Equal" : toleration.operator_;
  if (!toleration.key.empty() && toleration.key != taint.key) return false;
  if (toleration.key.empty() && op != "Exists") return false;
  if (op == "Exists") return true;
  return toleration.value == taint.value;
}

TFJOB_INLINE NodeFit node_fit(const k8s::PodSpec& pod_spec, const k8s::Node& node) {
  NodeFit f;
  f.node = node.metadata.name;
  const auto& labels = node.metadata.labels;
  auto tolerated = [&](const k8s::Taint& taint) {
    for (const auto& t : pod_spec.tolerations)
      if (tolerates(t, taint)) return true;
    return false;
  };
  if (node.spec.unschedulable) {
    k8s::Taint cordon;
    cordon.key = "node.kubernetes.io/unschedulable";
    cordon.effect = "NoSchedule";
    f.schedulable = tolerated(cordon);
  }
  for (const auto& [k, want] : pod_spec.node_selector) {
    const auto it = labels.find(k);
    if (it == labels.end() || it->second != want) f.selector_misses.push_back(k + "=" + want);
  }
  const k8s::Affinity affinity = k8s::affinity(pod_spec);
  if (affinity.node_affinity && affinity.node_affinity->required && !affinity.node_affinity->required->node_selector_terms.empty()) {
    bool any = false;
    std::vector<std::string> first_misses;
    for (const auto& term : affinity.node_affinity->required->node_selector_terms) {
      std::vector<std::string> misses;
      for (const auto& req : term.match_expressions)
        if (!detail::requirement_matches(req, labels)) misses.push_back(detail::requirement_text(req));
      if (misses.empty()) { any = true; break; }
      if (first_misses.empty()) first_misses = misses;
    }
    if (!any) for (auto& m : first_misses) f.selector_misses.push_back("affinity " + m);
  }
  for (const auto& taint : node.spec.taints) {
    if (taint.effect != "NoSchedule" && taint.effect != "NoExecute") continue;
    if (tolerated(taint)) continue;
    f.untolerated_taints.push_back(taint.key + (taint.value.empty() ? "" : "=" + taint.value) + ":" + taint.effect);
  }
  return f;
}

TFJOB_INLINE std::map<std::string, double> pod_requests(const k8s::PodSpec& pod_spec) {
  auto container = [](const k8s::Container& c) {
    std::map<std::string, double> m;
    detail::add_quantities(c.resources.limits, m);
    detail::add_quantities(c.resources.requests, m);  // requests, read second, win over limits
    return m;
  };
  std::map<std::string, double> sum, init;
  for (const auto& c : pod_spec.containers)
    for (const auto& [k, v] : container(c)) sum[k] += v;
  for (const auto& c : pod_spec.init_containers)
    for (const auto& [k, v] : container(c)) init[k] = std::max(init[k], v);
  for (const auto& [k, v] : init) sum[k] = std::max(sum[k], v);
  return sum;
}

TFJOB_INLINE std::map<std::string, double> pod_requests(const nlohmann::json& pod_spec) {
  return pod_requests(detail::served_pod_spec(pod_spec));
}

TFJOB_INLINE std::map<std::string, double> allocatable(const k8s::Node& node) {
  std::map<std::string, double> m;
  detail::add_quantities(node.status.allocatable, m);
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
