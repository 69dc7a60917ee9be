#pragma once
/// \file What every Kubernetes object shares: `metav1.ObjectMeta`, and the one decoder that
/// turns JSON into the SDK's value types (the TFJob in api/types.hpp, the core kinds in
/// api/k8s/) without losing what a type does not model.
///
/// Each value type keeps the fields it does not model in `other` (kube-rs keeps a flattened
/// map), so that `to_json(from_json(x)) == x`. A field of the wrong JSON type is not
/// modeled either: it stays in `other` as it came, and the decoder records it. Manifests are
/// decoded strictly (`decode_whole`: every wrong field at once, as a validation_error);
/// objects a server sent are decoded leniently (`decode_lenient`: never throws for a field).

#include <tfjob/detail/compiled.hpp>
#include <tfjob/detail/json.hpp>
#include <tfjob/error.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace tfjob {

/// `metav1.OwnerReference`: the object that owns this one (garbage collection).
struct OwnerReference {
  std::string api_version;
  std::string kind;
  std::string name;
  std::string uid;
  std::optional<bool> controller;
  std::optional<bool> block_owner_deletion;
  nlohmann::json other = nlohmann::json::object();
};

/// `metav1.ObjectMeta`: the fields the SDK reads; the rest (managedFields, ...) stays in `other`.
struct ObjectMeta {
  std::string name;
  std::string generate_name;
  std::string namespace_;
  std::map<std::string, std::string> labels;
  std::map<std::string, std::string> annotations;
  std::string uid;
  std::string resource_version;
  std::optional<std::int64_t> generation;
  std::string creation_timestamp;  ///< RFC 3339, "" when unset
  std::string deletion_timestamp;  ///< RFC 3339, "" unless the object is being deleted
  std::vector<OwnerReference> owner_references;
  std::vector<std::string> finalizers;
  nlohmann::json other = nlohmann::json::object();  ///< managedFields, deletionGracePeriodSeconds, ...

  /// The label's value, or "" when the object has no such label.
  std::string label(const std::string& key) const;
  /// The annotation's value, or "" when absent.
  std::string annotation(const std::string& key) const;
  /// The owner that is this object's controller, or nullptr.
  const OwnerReference* controller() const;
};

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const OwnerReference& o);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const ObjectMeta& m);
/// Decoders: throw `validation_error` listing every field of the wrong JSON type.
TFJOB_JSON_FN from_json(const TFJOB_JSON& j, OwnerReference& o);
TFJOB_JSON_FN from_json(const TFJOB_JSON& j, ObjectMeta& m);

namespace detail {

/// Reads JSON into value types field by field, collecting every field of the wrong type
/// (with its path) instead of stopping at the first. A type T is decoded by an ADL function
/// `decode_fields(decoder&, const nlohmann::json&, const std::string& path, T&)` next to T.
/// A field of the wrong type is left unset (so it stays in the type's `other`); a map or list
/// with one wrong entry is left unset whole, so that nothing is half-modeled.
struct decoder {
  std::vector<field_error> errors;

  static std::string type_name(const nlohmann::json& v);
  void wrong(const std::string& path, const nlohmann::json& v, const char* want);
  /// j[key] when present and not null, else nullptr.
  static const nlohmann::json* get(const nlohmann::json& j, const char* key);
  /// `path.key`, or `key` at the root.
  static std::string child(const std::string& path, const char* key);
  void str(const nlohmann::json& j, const char* key, const std::string& path, std::string& out);
  void str(const nlohmann::json& j, const char* key, const std::string& path,
           std::optional<std::string>& out);
  template <class Int>
  bool integer(const nlohmann::json& v, const std::string& path, Int& out) {
    if (v.is_number_integer()) {
      bool too_big = v.is_number_unsigned() &&
                     v.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX);
      auto x = too_big ? INT64_MAX : v.get<std::int64_t>();
      if (too_big || x < static_cast<std::int64_t>(std::numeric_limits<Int>::min()) ||
          x > static_cast<std::int64_t>(std::numeric_limits<Int>::max())) {
        errors.push_back({path, "Invalid value", v.dump() + ": out of range for " +
                                                     (sizeof(Int) == 4 ? "int32" : "int64")});
        return false;
      }
      out = static_cast<Int>(x);
      return true;
    }
    if (v.is_number_float()) {
      double d = v.get<double>();
      if (d == static_cast<double>(static_cast<std::int64_t>(d)) &&
          d >= static_cast<double>(std::numeric_limits<Int>::min()) &&
          d <= static_cast<double>(std::numeric_limits<Int>::max())) {
        out = static_cast<Int>(d);
        return true;
      }
    }
    wrong(path, v, "an integer");
    return false;
  }
  template <class Int>
  void integer(const nlohmann::json& j, const char* key, const std::string& path,
               std::optional<Int>& out) {
    if (const auto* v = get(j, key)) {
      Int x{};
      if (integer(*v, child(path, key), x)) out = x;
    }
  }
  template <class Int>
  void integer(const nlohmann::json& j, const char* key, const std::string& path, Int& out) {
    if (const auto* v = get(j, key)) integer(*v, child(path, key), out);
  }
  void boolean(const nlohmann::json& j, const char* key, const std::string& path,
               std::optional<bool>& out);
  void boolean(const nlohmann::json& j, const char* key, const std::string& path, bool& out);
  /// An object of strings (labels, nodeSelector, resource quantities as the server writes them).
  void string_map(const nlohmann::json& j, const char* key, const std::string& path,
                  std::map<std::string, std::string>& out);
  /// Resource quantities (limits, requests, capacity): strings, and numbers as their text
  /// (apimachinery's Quantity.UnmarshalJSON takes `1` for "1"; its MarshalJSON writes a string).
  void quantities(const nlohmann::json& j, const char* key, const std::string& path,
                  std::map<std::string, std::string>& out);
  /// An array of strings (command, args, accessModes, finalizers).
  void strings(const nlohmann::json& j, const char* key, const std::string& path,
               std::vector<std::string>& out);
  /// Any JSON value, kept as it is (a part the SDK passes on without reading: affinity, ...).
  void raw(const nlohmann::json& j, const char* key, nlohmann::json& out);
  /// Checks that `v` is an object; reports it otherwise.
  bool object(const nlohmann::json& v, const std::string& path);

  /// Decodes a value of a type that has `decode_fields`.
  template <class T>
  void decode(const nlohmann::json& j, const std::string& path, T& out) {
    decode_fields(*this, j, path, out);
  }
  /// j[key] as a T (left as it is when absent).
  template <class T>
  void field(const nlohmann::json& j, const char* key, const std::string& path, T& out) {
    if (const auto* v = get(j, key)) decode(*v, child(path, key), out);
  }
  template <class T>
  void field(const nlohmann::json& j, const char* key, const std::string& path, std::optional<T>& out) {
    if (const auto* v = get(j, key)) {
      if (!object(*v, child(path, key))) return;
      T x;
      decode(*v, child(path, key), x);
      out = std::move(x);
    }
  }
  /// j[key] as a list of T; every item must be an object, else the list stays unset.
  template <class T>
  void list(const nlohmann::json& j, const char* key, const std::string& path, std::vector<T>& out) {
    const auto* v = get(j, key);
    if (!v) return;
    const std::string where = child(path, key);
    if (!v->is_array()) return wrong(where, *v, "an array");
    std::vector<T> items(v->size());  // each decoded in place: no move, no growth code per type
    for (std::size_t i = 0; i < v->size(); ++i) {
      const std::string at = where + "[" + std::to_string(i) + "]";
      if (!object((*v)[i], at)) return;
      decode((*v)[i], at, items[i]);
    }
    out = std::move(items);
  }

  void throw_if_errors() const;
};

/// Keep in `other` only what the modeled fields do not reproduce, so that
/// `to_json(from_json(x)) == x` (an explicit `labels: {}` or `enableDynamicWorker: false`
/// survives even though the model cannot tell it from "absent"); a quantity read from a number
/// counts as reproduced by its text, which is what Go's Quantity writes back.
void keep_unmodeled(const nlohmann::json& in, const nlohmann::json& modeled,
                    nlohmann::json& other);

/// `in` and `modeled` say the same: equal, but for a number read as a quantity's text (the
/// one conversion the decoders make, decoder::quantities).
bool same_as_modeled(const nlohmann::json& in, const nlohmann::json& modeled);

/// Start an object from `other` (unmodeled fields), then modeled fields overwrite.
nlohmann::json with_other(const nlohmann::json& other);

/// Sets `j[key]` to `v` unless `v` is empty (Kubernetes' `omitempty`).
template <class V>
void put(nlohmann::json& j, const char* key, const V& v) {
  if (!v.empty()) j[key] = v;
}
template <class V>
void put(nlohmann::json& j, const char* key, const std::optional<V>& v) {
  if (v) j[key] = *v;
}
/// Sets `j[key]` to the value's JSON unless it is an empty object.
template <class V>
void put_object(nlohmann::json& j, const char* key, const V& v) {
  nlohmann::json x = json_of(v);
  if (!x.empty()) j[key] = std::move(x);
}

/// Sets `j[key]` to the list of value types unless it is empty.
template <class T>
void put_list(nlohmann::json& j, const char* key, const std::vector<T>& items) {
  if (items.empty()) return;
  auto& a = j[key] = nlohmann::json::array();
  for (const auto& x : items) a.push_back(json_of(x));
}

/// The last step of every `decode_fields`: what the modeled fields do not reproduce goes to `other`.
template <class T>
void keep_rest(const nlohmann::json& j, T& v) {
  v.other = nlohmann::json::object();
  keep_unmodeled(j, json_of(v), v.other);
}

template <class X>
struct is_optional : std::false_type {};
template <class X>
struct is_optional<std::optional<X>> : std::true_type {};
template <class X>
struct is_vector : std::false_type {};
template <class X>
struct is_vector<std::vector<X>> : std::true_type {};

/// Writes the fields a value type lists in its `fields(v, f)` (one description per type,
/// read by both directions), as Kubernetes writes them: an empty value is left out (`omitempty`).
/// One template that tells the field's type exactly (`if constexpr`), not an overload set: to
/// rank overloads that take `const nlohmann::json&` or `const std::string&`, a compiler asks
/// nlohmann's and std's conversion traits about every nested value type (compile time:
/// BENCHMARKS.md, "Compile time").
struct field_writer {
  nlohmann::json& j;
  template <class X>
  void operator()(const char* k, const X& v) {
    if constexpr (std::is_same_v<X, bool>) {
      if (v) j[k] = true;
    } else if constexpr (std::is_same_v<X, std::int32_t> || std::is_same_v<X, std::int64_t>) {
      if (v) j[k] = v;
    } else if constexpr (std::is_same_v<X, nlohmann::json>) {
      if (!v.is_null()) j[k] = v;
    } else if constexpr (std::is_same_v<X, std::string> || std::is_same_v<X, std::vector<std::string>> ||
                         std::is_same_v<X, std::map<std::string, std::string>>) {
      put(j, k, v);
    } else if constexpr (is_optional<X>::value) {
      using V = typename X::value_type;
      if (!v) return;
      if constexpr (std::is_same_v<V, std::string> || std::is_same_v<V, bool> ||
                    std::is_same_v<V, std::int32_t> || std::is_same_v<V, std::int64_t>) {
        j[k] = *v;
      } else {
        j[k] = json_of(*v);  // a value type
      }
    } else if constexpr (is_vector<X>::value) {
      put_list(j, k, v);
    } else {
      put_object(j, k, v);  // a nested value type
    }
  }
  void quantities(const char* k, const std::map<std::string, std::string>& v) { put(j, k, v); }
};

/// Reads the fields a value type lists in its `fields(v, f)`, through the decoder's readers.
struct field_reader {
  decoder& d;
  const nlohmann::json& j;
  const std::string& path;

  void operator()(const char* k, std::string& v) { d.str(j, k, path, v); }
  void operator()(const char* k, std::optional<std::string>& v) { d.str(j, k, path, v); }
  void operator()(const char* k, bool& v) { d.boolean(j, k, path, v); }
  void operator()(const char* k, std::optional<bool>& v) { d.boolean(j, k, path, v); }
  void operator()(const char* k, std::int32_t& v) { d.integer(j, k, path, v); }
  void operator()(const char* k, std::int64_t& v) { d.integer(j, k, path, v); }
  void operator()(const char* k, std::optional<std::int32_t>& v) { d.integer(j, k, path, v); }
  void operator()(const char* k, std::optional<std::int64_t>& v) { d.integer(j, k, path, v); }
  void operator()(const char* k, nlohmann::json& v) { d.raw(j, k, v); }
  void operator()(const char* k, std::map<std::string, std::string>& v) { d.string_map(j, k, path, v); }
  void operator()(const char* k, std::vector<std::string>& v) { d.strings(j, k, path, v); }
  template <class X>
  void operator()(const char* k, std::optional<X>& v) { d.field(j, k, path, v); }
  template <class X>
  void operator()(const char* k, std::vector<X>& v) { d.list(j, k, path, v); }
  template <class X>
  void operator()(const char* k, X& v) { d.field(j, k, path, v); }
  void quantities(const char* k, std::map<std::string, std::string>& v) { d.quantities(j, k, path, v); }
};

/// `to_json` of a type that lists its fields: what it does not model first, then its fields.
template <class T>
void write_fields(nlohmann::json& j, const T& v) {
  j = with_other(v.other);
  field_writer w{j};
  fields(const_cast<T&>(v), w);  // the writer only reads
}

/// `decode_fields` of a type that lists its fields.
template <class T>
void read_fields(decoder& d, const nlohmann::json& j, const std::string& path, T& v) {
  if (!d.object(j, path)) return;
  field_reader r{d, j, path};
  fields(v, r);
  keep_rest(j, v);
}

/// Decodes a whole value rooted at `root` in error paths, throwing every wrong field at once.
template <class T>
void decode_whole(const nlohmann::json& j, const char* root, T& out) {
  decoder d;
  out = {};
  d.decode(j, root, out);
  d.throw_if_errors();
}

/// Decodes an object a server sent: fields of the wrong type stay in `other`, untouched;
/// throws tfjob::error only when `j` is not an object at all (`what` names the kind).
template <class T>
void decode_lenient(const nlohmann::json& j, const char* what, T& out) {
  if (!j.is_object()) throw tfjob::error(std::string("a ") + what + " must be a JSON object, not " + decoder::type_name(j));
  decoder d;
  out = {};
  d.decode(j, "", out);
}

/// An object a server sent (or a saved file held) as T, decoded leniently (decode_lenient):
/// what T does not model or has of the wrong type stays in `other`, so `to_json` gives it back
/// unchanged; a value that is not an object decodes as an empty T.
template <class T>
T decoded(const nlohmann::json& j) {
  T x{};
  if (j.is_object()) decode_lenient(j, "object", x);
  return x;
}

/// Each object of a list, decoded as `decoded` does; the list keeps its length and order.
template <class T>
std::vector<T> decode_each(const std::vector<nlohmann::json>& items) {
  std::vector<T> out;
  out.reserve(items.size());
  for (const auto& j : items) out.push_back(decoded<T>(j));
  return out;
}

/// The JSON of each value, in order (for a call into code that still reads objects as JSON).
template <class T>
std::vector<nlohmann::json> to_json_each(const std::vector<T>& items) {
  std::vector<nlohmann::json> out;
  out.reserve(items.size());
  for (const auto& x : items) out.push_back(json_of(x));
  return out;
}

TFJOB_JSON_FN decode_fields(decoder& d, const TFJOB_JSON& j, const std::string& path, OwnerReference& o);
TFJOB_JSON_FN decode_fields(decoder& d, const TFJOB_JSON& j, const std::string& path, ObjectMeta& m);

}  // namespace detail

/// The metadata of any object a server sent (its kind need not be modeled), decoded leniently
/// (detail::decode_lenient); empty when the object has none, or none that is an object.
ObjectMeta metadata_of(const nlohmann::json& object);

}  // namespace tfjob

#if TFJOB_SDK_DEFINE_API
#include <tfjob/api/impl/meta_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_API
