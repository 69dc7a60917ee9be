#pragma once
/// \file The bodies of <tfjob/kube/core.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_KUBE` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/kube/core.hpp>, never this file.

namespace tfjob::kube {

TFJOB_INLINE Object::Object(nlohmann::json j) : json(std::move(j)) {}

TFJOB_INLINE std::string Object::str(const char* pointer) const {
  const nlohmann::json::json_pointer p(pointer);
  if (!json.contains(p)) return {};
  const auto& v = json.at(p);
  return v.is_string() ? v.get<std::string>() : std::string();
}

TFJOB_INLINE const nlohmann::json& Object::at_or_null(const char* pointer) const {
  static const nlohmann::json null_value;
  const nlohmann::json::json_pointer p(pointer);
  return json.contains(p) ? json.at(p) : null_value;
}

TFJOB_INLINE std::string Object::api_version() const { return str("/apiVersion"); }

TFJOB_INLINE std::string Object::kind() const { return str("/kind"); }

TFJOB_INLINE std::string Object::name() const { return str("/metadata/name"); }

TFJOB_INLINE std::string Object::namespace_() const { return str("/metadata/namespace"); }

TFJOB_INLINE std::string Object::uid() const { return str("/metadata/uid"); }

TFJOB_INLINE std::string Object::resource_version() const { return str("/metadata/resourceVersion"); }

TFJOB_INLINE std::string Object::creation_timestamp() const { return str("/metadata/creationTimestamp"); }

TFJOB_INLINE std::string Object::deletion_timestamp() const { return str("/metadata/deletionTimestamp"); }

TFJOB_INLINE std::int64_t Object::generation() const {
  const auto& g = at_or_null("/metadata/generation");
  return g.is_number_integer() ? g.get<std::int64_t>() : 0;
}

TFJOB_INLINE std::map<std::string, std::string> Object::labels() const { return string_map("/metadata/labels"); }

TFJOB_INLINE std::map<std::string, std::string> Object::annotations() const { return string_map("/metadata/annotations"); }

TFJOB_INLINE std::string Object::label(const std::string& key) const {
  auto l = labels();
  auto it = l.find(key);
  return it == l.end() ? std::string() : it->second;
}

TFJOB_INLINE const nlohmann::json& Object::metadata() const { return at_or_null("/metadata"); }

TFJOB_INLINE const nlohmann::json& Object::spec() const { return at_or_null("/spec"); }

TFJOB_INLINE const nlohmann::json& Object::status() const { return at_or_null("/status"); }

TFJOB_INLINE void Object::set_name(const std::string& n) { json["metadata"]["name"] = n; }

TFJOB_INLINE void Object::set_namespace(const std::string& n) { json["metadata"]["namespace"] = n; }

TFJOB_INLINE void Object::set_label(const std::string& k, const std::string& v) { json["metadata"]["labels"][k] = v; }

TFJOB_INLINE std::map<std::string, std::string> Object::string_map(const char* pointer) const {
  std::map<std::string, std::string> out;
  const auto& m = at_or_null(pointer);
  if (m.is_object())
    for (auto it = m.begin(); it != m.end(); ++it)
      if (it.value().is_string()) out[it.key()] = it.value().get<std::string>();
  return out;
}

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const Object& o) { j = o.json; }

TFJOB_JSON_FN from_json(const TFJOB_JSON& j, Object& o) { o.json = j; }

TFJOB_INLINE nlohmann::json owner_reference(const nlohmann::json& owner, bool controller) {
  auto s = [&](const char* p) {
    const nlohmann::json::json_pointer ptr(p);
    return owner.contains(ptr) && owner.at(ptr).is_string() ? owner.at(ptr).get<std::string>() : std::string();
  };
  nlohmann::json r = {{"apiVersion", s("/apiVersion")}, {"kind", s("/kind")}, {"name", s("/metadata/name")},
                      {"uid", s("/metadata/uid")}};
  if (controller) r["controller"] = true, r["blockOwnerDeletion"] = true;
  return r;
}

}  // namespace tfjob::kube
