#pragma once
/// \file The bodies of <tfjob/api/k8s/condition.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_API` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/api/k8s/condition.hpp>, never this file.

namespace tfjob::k8s {

TFJOB_INLINE const Condition* find_condition(const std::vector<Condition>& conditions, const std::string& type) {
  for (const auto& c : conditions)
    if (c.type == type) return &c;
  return nullptr;
}

// Each type's fields, listed once for both directions (detail::write_fields, read_fields).

template <class F>
void fields(Condition& v, F& f) {
  f("type", v.type);
  f("status", v.status);
  f("reason", v.reason);
  f("message", v.message);
  f("lastTransitionTime", v.last_transition_time);
  f("observedGeneration", v.observed_generation);
}

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const Condition& v) { detail::write_fields(j, v); }

TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, Condition& v) { detail::read_fields(d, j, path, v); }

}  // namespace tfjob::k8s
