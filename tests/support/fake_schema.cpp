// The fake's structural schema for the TFJob CRD: the SDK's validator judges (type,
// required, enum, pattern, int-or-string, preserve-unknown-fields, additionalProperties,
// list-map keys); the fake words its causes as apiextensions-apiserver does, prunes unknown
// fields and applies the schema's defaults.
#include <fstream>
#include <sstream>

#include <tfjob/api/schema.hpp>

#include "support/fake_internal.hpp"

namespace tfjob::test::fake {

bool SchemaValidator::load_crd(const std::string& path, std::string& error) {
  std::ifstream f(path);
  if (!f) {
    error = "cannot read the TFJob CRD " + path;
    return false;
  }
  std::stringstream ss;
  ss << f.rdbuf();
  try {
    crd_ = yaml_to_json(ss.str());
  } catch (const std::exception& e) {
    error = "cannot parse the TFJob CRD " + path + ": " + e.what();
    return false;
  }
  for (const auto& v : crd_["spec"].value("versions", json::array()))
    if (v.value("name", "") == "v1") schema_ = v["schema"]["openAPIV3Schema"];
  if (schema_.is_null()) {
    error = "the CRD " + path + " has no v1 openAPIV3Schema";
    return false;
  }
  judge_.emplace(schema_);
  return true;
}

namespace {

// kube-apiserver 1.20's CRD schema errors name list items without their index.
std::string body_path(const tfjob::schema::Path& p) {
  tfjob::schema::Path named;
  for (const auto& step : p)
    if (step.kind != tfjob::schema::PathStep::Kind::index) named.push_back(step);
  return tfjob::schema::to_string(named);
}

std::string quote_value(const json& v) {
  if (v.is_string()) return "\"" + v.get<std::string>() + "\"";
  return v.dump();
}

/// One issue of the SDK's validator as apiextensions-apiserver words it (a 422's cause).
Cause to_cause(const tfjob::schema::Issue& i) {
  using K = tfjob::schema::Issue::Kind;
  const std::string path = body_path(i.path);
  const std::string shown = path.empty() ? "<root>" : path;
  const std::string type = tfjob::schema::detail::json_type(i.value);
  switch (i.kind) {
    case K::wrong_type:
      return {"FieldValueInvalid", "Invalid value: \"" + type + "\": " + shown + " in body must be of type " + i.expected + ": \"" + type + "\"",
              path};
    case K::pattern:
      return {"FieldValueInvalid", "Invalid value: \"" + i.value.get<std::string>() + "\": " + shown + " in body should match '" + i.expected + "'",
              path};
    case K::out_of_range:
      return {"FieldValueInvalid", "Invalid value: " + i.value.dump() + ": " + shown + " in body should be " +
                                       (i.expected.rfind(">=", 0) == 0 ? "greater than or equal to " : "less than or equal to ") +
                                       i.expected.substr(3), path};
    case K::unsupported_value: {
      std::string sup;
      for (size_t k = 0; k < i.supported.size(); ++k) sup += (k ? ", " : "") + quote_value(i.supported[k]);
      return {"FieldValueNotSupported", "Unsupported value: " + quote_value(i.value) + ": supported values: " + sup, path};
    }
    case K::required: return {"FieldValueRequired", "Required value", path};
    case K::duplicate: {
      tfjob::schema::Path parent(i.path.begin(), i.path.end() - 1);
      return {"FieldValueDuplicate", "Duplicate value: " + i.value.dump(), body_path(parent) + "[" + i.path.back().name + "]"};
    }
    default: return {"FieldValueInvalid", i.message(), path};
  }
}

void default_walk(const json& s, json& v) {
  if (!s.is_object()) return;
  if (v.is_object()) {
    const json props = s.value("properties", json::object());
    for (auto it = props.begin(); it != props.end(); ++it)
      if (!v.contains(it.key()) && it.value().contains("default")) v[it.key()] = it.value()["default"];
    for (auto it = v.begin(); it != v.end(); ++it) {
      if (props.contains(it.key())) default_walk(props[it.key()], it.value());
      else if (s.contains("additionalProperties") && s["additionalProperties"].is_object()) default_walk(s["additionalProperties"], it.value());
    }
  } else if (v.is_array() && s.contains("items")) {
    for (auto& e : v) default_walk(s["items"], e);
  }
}

}  // namespace

// The SDK's validator judges (tfjob/api/schema.hpp, one mechanism for the client and this
// server); what is the server's own stays here: the causes in apiextensions' words, metadata
// left to the ObjectMeta rules (Handler::validate_meta), pruning and defaulting.
std::vector<Cause> SchemaValidator::validate(const json& object) const {
  std::vector<Cause> out;
  if (!judge_) return out;
  for (const auto& i : judge_->validate(object)) {
    if (i.kind == tfjob::schema::Issue::Kind::unknown_field) continue;  // pruned, not refused
    if (!i.path.empty() && i.path.front().name == "metadata") continue;  // ObjectMeta's own rules
    out.push_back(to_cause(i));
  }
  return out;
}

std::vector<std::string> SchemaValidator::prune(json& object) const {
  std::vector<std::string> pruned;
  if (!judge_) return pruned;
  // an unknown field is never inside another, and only object keys go: indexes stay valid
  for (const auto& i : judge_->validate(object))
    if (i.kind == tfjob::schema::Issue::Kind::unknown_field) {
      auto ptr = tfjob::schema::to_pointer(i.path);
      object[ptr.parent_pointer()].erase(i.path.back().name);
      pruned.push_back(i.field());
    }
  return pruned;
}

void SchemaValidator::apply_defaults(json& object) const {
  if (!schema_.is_null()) {
    json md = object.contains("metadata") ? object["metadata"] : json();
    default_walk(schema_, object);
    if (!md.is_null()) object["metadata"] = md;
  }
}

}  // namespace tfjob::test::fake
