#pragma once
/// \file The bodies of <tfjob/detail/json.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_CORE` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/detail/json.hpp>, never this file.

namespace tfjob::detail {

TFJOB_INLINE const nlohmann::json* json_at(const nlohmann::json& j, const nlohmann::json::json_pointer& p) {
  return j.contains(p) ? &j[p] : nullptr;  // contains() answers false for a non-index token on an array
}

TFJOB_INLINE const nlohmann::json* json_at(const nlohmann::json& j, const std::string& k) {
  if (!j.is_object()) return nullptr;
  const auto it = j.find(k);
  return it != j.end() ? &*it : nullptr;
}

TFJOB_INLINE const nlohmann::json* json_at(const nlohmann::json& j, const char* k) { return json_at(j, std::string(k)); }

}  // namespace tfjob::detail
