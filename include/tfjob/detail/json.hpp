#pragma once
/// \file Reading JSON that came from outside (a server's answer, a manifest, a watch event)
/// without trusting its shape. nlohmann's `j.value(k, d)` throws when `j` is not an object
/// (type_error 306), when the value has another type than `d` (type_error 302) and, for a
/// JSON pointer, when a step is an array and the token is not an index (parse_error 109);
/// a hostile or merely unexpected answer must give the fallback instead. These readers are
/// the one way the SDK reads such fields: they never throw and never convert out of range.

#include <tfjob/detail/compiled.hpp>

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>

namespace tfjob::detail {

/// The JSON of a value type, from its ADL `to_json` called directly: `nlohmann::json(v)` would
/// say the same, through a converting constructor whose traits cost compile time for every
/// type (BENCHMARKS.md, "Compile time").
template <class V>
nlohmann::json json_of(const V& v) {
  nlohmann::json j;
  to_json(j, v);
  return j;
}

/// `j.get<V>()` the same way: V's ADL `from_json` (the function nlohmann's adl_serializer
/// calls, so it decodes and throws alike), without nlohmann's conversion traits.
template <class V>
V from_json_of(const nlohmann::json& j) {
  V v{};
  from_json(j, v);
  return v;
}

/// The value at `p` in `j`, or nullptr when a step is missing or cannot be taken.
const nlohmann::json* json_at(const nlohmann::json& j, const nlohmann::json::json_pointer& p);
/// The value at key `k` of object `j`, or nullptr (also when `j` is not an object).
const nlohmann::json* json_at(const nlohmann::json& j, const std::string& k);
const nlohmann::json* json_at(const nlohmann::json& j, const char* k);

/// `v` as a T when it holds one exactly (an integer in T's range, a number for a floating T,
/// a string, a boolean; for a JSON fallback, the fallback's type, or anything when the
/// fallback is null); else `fallback`.
template <class T>
inline T json_as(const nlohmann::json* v, T fallback) {
  if (!v) return fallback;
  if constexpr (std::is_same_v<T, nlohmann::json>) {
    if (fallback.is_null() || v->type() == fallback.type() || (v->is_number() && fallback.is_number())) return *v;
    return fallback;
  } else if constexpr (std::is_same_v<T, bool>) {
    return v->is_boolean() ? v->get<bool>() : fallback;
  } else if constexpr (std::is_same_v<T, std::string>) {
    return v->is_string() ? v->get<std::string>() : fallback;
  } else if constexpr (std::is_integral_v<T>) {
    if (v->is_number_unsigned()) {
      const auto u = v->get<std::uint64_t>();
      return u <= static_cast<std::uint64_t>(std::numeric_limits<T>::max()) ? static_cast<T>(u) : fallback;
    }
    if (v->is_number_integer()) {
      const auto i = v->get<std::int64_t>();
      if constexpr (std::is_unsigned_v<T>) {
        return i >= 0 && static_cast<std::uint64_t>(i) <= static_cast<std::uint64_t>(std::numeric_limits<T>::max()) ? static_cast<T>(i) : fallback;
      } else {
        return i >= static_cast<std::int64_t>(std::numeric_limits<T>::min()) && i <= static_cast<std::int64_t>(std::numeric_limits<T>::max())
                   ? static_cast<T>(i) : fallback;
      }
    }
    if (v->is_number_float()) {  // 2.0 reads as 2; 2.5, NaN and what T cannot hold give the fallback
      const double d = v->get<double>();
      if (!std::isfinite(d) || d != std::floor(d)) return fallback;
      const double upper = std::ldexp(1.0, std::numeric_limits<T>::digits);  // 2^digits: the first value T cannot hold
      if (d < static_cast<double>(std::numeric_limits<T>::min()) || d >= upper) return fallback;
      return static_cast<T>(d);
    }
    return fallback;
  } else if constexpr (std::is_floating_point_v<T>) {
    return v->is_number() ? v->get<T>() : fallback;
  } else {
    static_assert(std::is_same_v<T, nlohmann::json>, "json_as: a string, bool, number or nlohmann::json");
    return fallback;
  }
}

/// `j.value(p, fallback)` that never throws: the value at `p` (a JSON pointer or a key) when it
/// is there with the fallback's type, else the fallback.
template <class K, class T>
inline T value_at(const nlohmann::json& j, const K& p, T fallback) {
  return json_as<T>(json_at(j, p), std::move(fallback));
}
template <class K>
inline std::string value_at(const nlohmann::json& j, const K& p, const char* fallback) {
  return json_as<std::string>(json_at(j, p), std::string(fallback));
}

/// The common shapes, by name.
template <class K>
inline std::string str_at(const nlohmann::json& j, const K& p) { return value_at(j, p, std::string()); }
template <class K>
inline bool bool_at(const nlohmann::json& j, const K& p) { return value_at(j, p, false); }
template <class K>
inline nlohmann::json obj_at(const nlohmann::json& j, const K& p) { return value_at(j, p, nlohmann::json::object()); }
template <class K>
inline nlohmann::json arr_at(const nlohmann::json& j, const K& p) { return value_at(j, p, nlohmann::json::array()); }

}  // namespace tfjob::detail

#if TFJOB_SDK_DEFINE_CORE
#include <tfjob/detail/impl/json_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_CORE
