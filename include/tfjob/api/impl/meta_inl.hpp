#pragma once
/// \file The bodies of <tfjob/api/meta.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_API` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/api/meta.hpp>, never this file.

namespace tfjob {

TFJOB_INLINE std::string ObjectMeta::label(const std::string& key) const {
  auto it = labels.find(key);
  return it == labels.end() ? std::string() : it->second;
}

TFJOB_INLINE std::string ObjectMeta::annotation(const std::string& key) const {
  auto it = annotations.find(key);
  return it == annotations.end() ? std::string() : it->second;
}

TFJOB_INLINE const OwnerReference* ObjectMeta::controller() const {
  for (const auto& o : owner_references)
    if (o.controller.value_or(false)) return &o;
  return nullptr;
}

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const OwnerReference& o) {
  j = detail::with_other(o.other);
  detail::put(j, "apiVersion", o.api_version);
  detail::put(j, "kind", o.kind);
  detail::put(j, "name", o.name);
  detail::put(j, "uid", o.uid);
  detail::put(j, "controller", o.controller);
  detail::put(j, "blockOwnerDeletion", o.block_owner_deletion);
}

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const ObjectMeta& m) {
  j = detail::with_other(m.other);
  detail::put(j, "name", m.name);
  detail::put(j, "generateName", m.generate_name);
  detail::put(j, "namespace", m.namespace_);
  detail::put(j, "labels", m.labels);
  detail::put(j, "annotations", m.annotations);
  detail::put(j, "uid", m.uid);
  detail::put(j, "resourceVersion", m.resource_version);
  detail::put(j, "generation", m.generation);
  detail::put(j, "creationTimestamp", m.creation_timestamp);
  detail::put(j, "deletionTimestamp", m.deletion_timestamp);
  if (!m.owner_references.empty()) {
    auto& a = j["ownerReferences"] = nlohmann::json::array();
    for (const auto& o : m.owner_references) a.push_back(o);
  }
  detail::put(j, "finalizers", m.finalizers);
}

TFJOB_JSON_FN from_json(const TFJOB_JSON& j, OwnerReference& o) { detail::decode_whole(j, "ownerReference", o); }

TFJOB_JSON_FN from_json(const TFJOB_JSON& j, ObjectMeta& m) { detail::decode_whole(j, "metadata", m); }

TFJOB_INLINE ObjectMeta metadata_of(const nlohmann::json& object) {
  ObjectMeta m;
  if (!object.is_object()) return m;
  auto it = object.find("metadata");
  if (it != object.end() && it->is_object()) detail::decode_lenient(*it, "metadata", m);
  return m;
}

}  // namespace tfjob
namespace tfjob::detail {

TFJOB_INLINE std::string decoder::type_name(const nlohmann::json& v) {
  switch (v.type()) {
    case nlohmann::json::value_t::null: return "null";
    case nlohmann::json::value_t::boolean: return "boolean";
    case nlohmann::json::value_t::string: return "string";
    case nlohmann::json::value_t::array: return "array";
    case nlohmann::json::value_t::object: return "object";
    case nlohmann::json::value_t::number_float: return "number";
    default: return "integer";
  }
}

TFJOB_INLINE void decoder::wrong(const std::string& path, const nlohmann::json& v, const char* want) {
  std::string shown = v.dump();
  if (shown.size() > 60) shown = shown.substr(0, 57) + "...";
  errors.push_back({path, "Invalid value",
                    shown + ": must be " + want + ", not " + type_name(v)});
}

TFJOB_INLINE const nlohmann::json* decoder::get(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return nullptr;
  return &*it;
}

TFJOB_INLINE std::string decoder::child(const std::string& path, const char* key) {
  return path.empty() ? std::string(key) : path + "." + key;
}

TFJOB_INLINE void decoder::str(const nlohmann::json& j, const char* key, const std::string& path, std::string& out) {
  if (const auto* v = get(j, key)) {
    if (v->is_string()) out = v->get<std::string>();
    else wrong(child(path, key), *v, "a string");
  }
}

TFJOB_INLINE void decoder::str(const nlohmann::json& j, const char* key, const std::string& path,
                               std::optional<std::string>& out) {
  if (const auto* v = get(j, key)) {
    if (v->is_string()) out = v->get<std::string>();
    else wrong(child(path, key), *v, "a string");
  }
}

TFJOB_INLINE void decoder::boolean(const nlohmann::json& j, const char* key, const std::string& path,
                                   std::optional<bool>& out) {
  if (const auto* v = get(j, key)) {
    if (v->is_boolean()) out = v->get<bool>();
    else wrong(child(path, key), *v, "a boolean");
  }
}

TFJOB_INLINE void decoder::boolean(const nlohmann::json& j, const char* key, const std::string& path, bool& out) {
  std::optional<bool> b;
  boolean(j, key, path, b);
  if (b) out = *b;
}

TFJOB_INLINE void decoder::string_map(const nlohmann::json& j, const char* key, const std::string& path,
                                      std::map<std::string, std::string>& out) {
  const auto* v = get(j, key);
  if (!v) return;
  if (!v->is_object()) return wrong(child(path, key), *v, "an object");
  std::map<std::string, std::string> m;
  bool ok = true;
  for (const auto& [k, x] : v->items()) {
    if (x.is_string()) m[k] = x.get<std::string>();
    else wrong(child(path, key) + "." + k, x, "a string"), ok = false;
  }
  if (ok) out = std::move(m);
}

TFJOB_INLINE void decoder::quantities(const nlohmann::json& j, const char* key, const std::string& path,
                                      std::map<std::string, std::string>& out) {
  const auto* v = get(j, key);
  if (!v) return;
  if (!v->is_object()) return wrong(child(path, key), *v, "an object");
  std::map<std::string, std::string> m;
  for (const auto& [k, x] : v->items()) {
    if (x.is_string()) m[k] = x.get<std::string>();
    else if (x.is_number()) m[k] = x.dump();
    else return wrong(child(path, key) + "." + k, x, "a quantity (a string or a number)");
  }
  out = std::move(m);
}

TFJOB_INLINE void decoder::strings(const nlohmann::json& j, const char* key, const std::string& path,
                                   std::vector<std::string>& out) {
  const auto* v = get(j, key);
  if (!v) return;
  if (!v->is_array()) return wrong(child(path, key), *v, "an array");
  std::vector<std::string> s;
  s.reserve(v->size());
  for (std::size_t i = 0; i < v->size(); ++i) {
    if (!(*v)[i].is_string()) return wrong(child(path, key) + "[" + std::to_string(i) + "]", (*v)[i], "a string");
    s.push_back((*v)[i].get<std::string>());
  }
  out = std::move(s);
}

TFJOB_INLINE void decoder::raw(const nlohmann::json& j, const char* key, nlohmann::json& out) {
  if (const auto* v = get(j, key)) out = *v;
}

TFJOB_INLINE bool decoder::object(const nlohmann::json& v, const std::string& path) {
  if (v.is_object()) return true;
  wrong(path, v, "an object");
  return false;
}

TFJOB_INLINE void decoder::throw_if_errors() const {
  if (!errors.empty()) throw validation_error(errors);
}

TFJOB_INLINE bool same_as_modeled(const nlohmann::json& in, const nlohmann::json& modeled) {
  if (in.is_number() && modeled.is_string()) return in.dump() == modeled.get_ref<const std::string&>();
  if (in.type() != modeled.type()) return false;
  if (in.is_object()) {
    if (in.size() != modeled.size()) return false;
    for (auto a = in.begin(), b = modeled.begin(); a != in.end(); ++a, ++b)
      if (a.key() != b.key() || !same_as_modeled(*a, *b)) return false;
    return true;
  }
  if (in.is_array()) {
    if (in.size() != modeled.size()) return false;
    for (std::size_t i = 0; i < in.size(); ++i)
      if (!same_as_modeled(in[i], modeled[i])) return false;
    return true;
  }
  return in == modeled;
}

TFJOB_INLINE void keep_unmodeled(const nlohmann::json& in, const nlohmann::json& modeled,
                                 nlohmann::json& other) {
  other = in;
  for (const auto& [k, v] : modeled.items()) {
    auto it = other.find(k);
    if (it != other.end() && same_as_modeled(*it, v)) other.erase(it);
  }
}

TFJOB_INLINE nlohmann::json with_other(const nlohmann::json& other) {
  return other.is_object() ? other : nlohmann::json::object();
}

TFJOB_JSON_FN decode_fields(decoder& d, const TFJOB_JSON& j, const std::string& path, OwnerReference& o) {
  if (!d.object(j, path)) return;
  d.str(j, "apiVersion", path, o.api_version);
  d.str(j, "kind", path, o.kind);
  d.str(j, "name", path, o.name);
  d.str(j, "uid", path, o.uid);
  d.boolean(j, "controller", path, o.controller);
  d.boolean(j, "blockOwnerDeletion", path, o.block_owner_deletion);
  o.other = nlohmann::json::object();
  keep_unmodeled(j, json_of(o), o.other);
}

TFJOB_JSON_FN decode_fields(decoder& d, const TFJOB_JSON& j, const std::string& path, ObjectMeta& m) {
  if (!d.object(j, path)) return;
  d.str(j, "name", path, m.name);
  d.str(j, "generateName", path, m.generate_name);
  d.str(j, "namespace", path, m.namespace_);
  d.string_map(j, "labels", path, m.labels);
  d.string_map(j, "annotations", path, m.annotations);
  d.str(j, "uid", path, m.uid);
  d.str(j, "resourceVersion", path, m.resource_version);
  d.integer(j, "generation", path, m.generation);
  d.str(j, "creationTimestamp", path, m.creation_timestamp);
  d.str(j, "deletionTimestamp", path, m.deletion_timestamp);
  d.list(j, "ownerReferences", path, m.owner_references);
  d.strings(j, "finalizers", path, m.finalizers);
  m.other = nlohmann::json::object();
  keep_unmodeled(j, json_of(m), m.other);
}

}  // namespace tfjob::detail
