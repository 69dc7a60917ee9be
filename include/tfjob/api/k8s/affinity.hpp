#pragma once
/// \file core/v1 `Affinity` as value types (k8s.io/api/core/v1 `types.go`): the node affinity
/// the scheduler filters by (required `nodeSelectorTerms` of `matchExpressions`); the preferred
/// terms and pod (anti-)affinity stay JSON, and the rest stays in `other`. A `PodSpec` keeps
/// its affinity as JSON (so that a pod round-trips unchanged); `affinity(spec)` reads it.

#include <tfjob/api/meta.hpp>
#include <tfjob/api/k8s/pod.hpp>
#include <tfjob/detail/compiled.hpp>

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace tfjob::k8s {

/// `NodeSelectorRequirement`: `key operator values` against a node's labels (or fields).
struct NodeSelectorRequirement {
  std::string key;
  std::string operator_;  ///< In, NotIn, Exists, DoesNotExist, Gt, Lt
  std::vector<std::string> values;
  nlohmann::json other = nlohmann::json::object();
};

/// `NodeSelectorTerm`: its requirements ANDed.
struct NodeSelectorTerm {
  std::vector<NodeSelectorRequirement> match_expressions;
  std::vector<NodeSelectorRequirement> match_fields;
  nlohmann::json other = nlohmann::json::object();
};

/// `NodeSelector`: its terms ORed.
struct NodeSelector {
  std::vector<NodeSelectorTerm> node_selector_terms;
  nlohmann::json other = nlohmann::json::object();
};

/// `NodeAffinity`.
struct NodeAffinity {
  std::optional<NodeSelector> required;  ///< requiredDuringSchedulingIgnoredDuringExecution
  nlohmann::json preferred;              ///< preferredDuringSchedulingIgnoredDuringExecution, as JSON (scores only)
  nlohmann::json other = nlohmann::json::object();
};

/// `Affinity`.
struct Affinity {
  std::optional<NodeAffinity> node_affinity;
  nlohmann::json pod_affinity;       ///< as JSON; null when unset
  nlohmann::json pod_anti_affinity;  ///< as JSON; null when unset
  nlohmann::json other = nlohmann::json::object();
};

/// The pod's affinity, decoded from `spec.affinity` as a server sends it (a field of the
/// wrong type is kept, not read); empty when it has none.
Affinity affinity(const PodSpec& spec);

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const NodeSelectorRequirement& v);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const NodeSelectorTerm& v);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const NodeSelector& v);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const NodeAffinity& v);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const Affinity& v);
/// Decoder: what has the wrong type stays in `other`, untouched; it throws only for a value
/// that is not a JSON object at all.
TFJOB_JSON_FN from_json(const TFJOB_JSON& j, Affinity& v);
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, NodeSelectorRequirement& v);
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, NodeSelectorTerm& v);
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, NodeSelector& v);
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, NodeAffinity& v);
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, Affinity& v);

}  // namespace tfjob::k8s

#if TFJOB_SDK_DEFINE_API
#include <tfjob/api/k8s/impl/affinity_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_API
