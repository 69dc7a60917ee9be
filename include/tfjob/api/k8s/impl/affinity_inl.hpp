#pragma once
/// \file The bodies of <tfjob/api/k8s/affinity.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_API` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/api/k8s/affinity.hpp>, never this file.

namespace tfjob::k8s {

TFJOB_INLINE Affinity affinity(const PodSpec& spec) {
  Affinity a;
  if (spec.affinity.is_object()) from_json(spec.affinity, a);
  return a;
}

// Each type's fields, listed once for both directions (detail::write_fields, read_fields).

template <class F>
void fields(NodeSelectorRequirement& v, F& f) {
  f("key", v.key);
  f("operator", v.operator_);
  f("values", v.values);
}

template <class F>
void fields(NodeSelectorTerm& v, F& f) {
  f("matchExpressions", v.match_expressions);
  f("matchFields", v.match_fields);
}

template <class F>
void fields(NodeSelector& v, F& f) {
  f("nodeSelectorTerms", v.node_selector_terms);
}

template <class F>
void fields(NodeAffinity& v, F& f) {
  f("requiredDuringSchedulingIgnoredDuringExecution", v.required);
  f("preferredDuringSchedulingIgnoredDuringExecution", v.preferred);
}

template <class F>
void fields(Affinity& v, F& f) {
  f("nodeAffinity", v.node_affinity);
  f("podAffinity", v.pod_affinity);
  f("podAntiAffinity", v.pod_anti_affinity);
}

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const NodeSelectorRequirement& v) { detail::write_fields(j, v); }
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const NodeSelectorTerm& v) { detail::write_fields(j, v); }
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const NodeSelector& v) { detail::write_fields(j, v); }
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const NodeAffinity& v) { detail::write_fields(j, v); }
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const Affinity& v) { detail::write_fields(j, v); }

TFJOB_JSON_FN from_json(const TFJOB_JSON& j, Affinity& v) { detail::decode_lenient(j, "Affinity", v); }

TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, NodeSelectorRequirement& v) { detail::read_fields(d, j, path, v); }
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, NodeSelectorTerm& v) { detail::read_fields(d, j, path, v); }
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, NodeSelector& v) { detail::read_fields(d, j, path, v); }
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, NodeAffinity& v) { detail::read_fields(d, j, path, v); }
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, Affinity& v) { detail::read_fields(d, j, path, v); }

}  // namespace tfjob::k8s
