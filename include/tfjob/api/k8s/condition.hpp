#pragma once
/// \file `metav1.Condition` (k8s.io/apimachinery `pkg/apis/meta/v1/types.go`), the condition the
/// CRDs here write: Kueue's, and Volcano's `PodGroupCondition` (its `transitionID` stays in `other`).

#include <tfjob/api/meta.hpp>
#include <tfjob/detail/compiled.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tfjob::k8s {

/// `metav1.Condition` (Kueue's conditions) and Volcano's `PodGroupCondition` (its
/// `transitionID` stays in `other`).
struct Condition {
  std::string type;
  std::string status;  ///< "True", "False", "Unknown"
  std::string reason;
  std::string message;
  std::string last_transition_time;
  std::optional<std::int64_t> observed_generation;
  nlohmann::json other = nlohmann::json::object();
};

/// The condition of that type in `conditions`, or nullptr.
const Condition* find_condition(const std::vector<Condition>& conditions, const std::string& type);

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const Condition& v);
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, Condition& v);

}  // namespace tfjob::k8s

#if TFJOB_SDK_DEFINE_API
#include <tfjob/api/k8s/impl/condition_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_API
