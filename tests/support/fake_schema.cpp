// A small structural-schema validator for the TFJob CRD's openAPIV3Schema, reporting
// causes the way apiextensions-apiserver does (type, required, enum, pattern, int-or-string,
// preserve-unknown-fields, additionalProperties), plus pruning and defaulting.
#include <cmath>
#include <fstream>
#include <regex>
#include <sstream>

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
  return true;
}

namespace {

std::string json_type(const json& v) {
  if (v.is_null()) return "null";
  if (v.is_boolean()) return "boolean";
  if (v.is_number_integer() || v.is_number_unsigned()) return "integer";
  if (v.is_number()) return "number";
  if (v.is_string()) return "string";
  if (v.is_array()) return "array";
  return "object";
}

bool type_ok(const std::string& want, const json& v) {
  if (want == "object") return v.is_object();
  if (want == "array") return v.is_array();
  if (want == "string") return v.is_string();
  if (want == "boolean") return v.is_boolean();
  if (want == "integer") return v.is_number_integer() || v.is_number_unsigned() || (v.is_number_float() && std::floor(v.get<double>()) == v.get<double>());
  if (want == "number") return v.is_number();
  return true;
}

std::string quote_value(const json& v) {
  if (v.is_string()) return "\"" + v.get<std::string>() + "\"";
  return v.dump();
}

void walk(const json& s, const json& v, const std::string& path, std::vector<Cause>& out) {
  if (!s.is_object()) return;
  const std::string shown = path.empty() ? "<root>" : path;
  if (v.is_null()) {
    if (s.value("nullable", false)) return;
    if (s.contains("type") || s.value("x-kubernetes-int-or-string", false)) {
      std::string t = s.value("x-kubernetes-int-or-string", false) ? "integer,string" : s.value("type", "");
      out.push_back({"FieldValueInvalid", "Invalid value: \"null\": " + shown + " in body must be of type " + t + ": \"null\"", path});
    }
    return;
  }
  if (s.value("x-kubernetes-int-or-string", false)) {
    if (!(v.is_string() || v.is_number_integer() || v.is_number_unsigned())) {
      out.push_back({"FieldValueInvalid",
                     "Invalid value: \"" + json_type(v) + "\": " + shown + " in body must be of type integer,string: \"" + json_type(v) + "\"", path});
      return;
    }
    // anyOf [{type: integer}, {type: string}] plus an optional pattern for strings
    if (v.is_string() && s.contains("pattern")) {
      std::regex re(s["pattern"].get<std::string>(), std::regex::ECMAScript);
      if (!std::regex_search(v.get<std::string>(), re))
        out.push_back({"FieldValueInvalid", "Invalid value: \"" + v.get<std::string>() + "\": " + shown + " in body should match '" +
                                                s["pattern"].get<std::string>() + "'", path});
    }
    return;
  }
  if (s.contains("type")) {
    std::string t = s["type"];
    if (!type_ok(t, v)) {
      out.push_back({"FieldValueInvalid",
                     "Invalid value: \"" + json_type(v) + "\": " + shown + " in body must be of type " + t + ": \"" + json_type(v) + "\"", path});
      return;
    }
  }
  if (s.contains("enum")) {
    const json& e = s["enum"];
    if (std::find(e.begin(), e.end(), v) == e.end()) {
      std::string sup;
      for (size_t i = 0; i < e.size(); ++i) sup += (i ? ", " : "") + quote_value(e[i]);
      out.push_back({"FieldValueNotSupported", "Unsupported value: " + quote_value(v) + ": supported values: " + sup, path});
    }
  }
  if (v.is_string() && s.contains("pattern")) {
    std::regex re(s["pattern"].get<std::string>(), std::regex::ECMAScript);
    if (!std::regex_search(v.get<std::string>(), re))
      out.push_back({"FieldValueInvalid", "Invalid value: \"" + v.get<std::string>() + "\": " + shown + " in body should match '" +
                                              s["pattern"].get<std::string>() + "'", path});
  }
  if (v.is_number() && s.contains("minimum") && v.get<double>() < s["minimum"].get<double>())
    out.push_back({"FieldValueInvalid", "Invalid value: " + v.dump() + ": " + shown + " in body should be greater than or equal to " +
                                            s["minimum"].dump(), path});
  if (v.is_object()) {
    for (const auto& r : s.value("required", json::array())) {
      std::string k = r.get<std::string>();
      if (!v.contains(k)) out.push_back({"FieldValueRequired", "Required value", path.empty() ? k : path + "." + k});
    }
    const json props = s.value("properties", json::object());
    for (auto it = v.begin(); it != v.end(); ++it) {
      std::string p = path.empty() ? it.key() : path + "." + it.key();
      if (props.contains(it.key())) walk(props[it.key()], it.value(), p, out);
      else if (s.contains("additionalProperties") && s["additionalProperties"].is_object())
        walk(s["additionalProperties"], it.value(), p, out);
    }
  } else if (v.is_array() && s.contains("items")) {
    // kube-apiserver 1.20's CRD schema errors name list items without their index
    for (size_t i = 0; i < v.size(); ++i) walk(s["items"], v[i], path, out);
    if (s.value("x-kubernetes-list-type", "") == "map" && s.contains("x-kubernetes-list-map-keys")) {
      std::vector<json> seen;
      for (size_t i = 0; i < v.size(); ++i) {
        json k = json::object();
        for (const auto& mk : s["x-kubernetes-list-map-keys"]) {
          std::string key = mk;
          k[key] = v[i].is_object() && v[i].contains(key) ? v[i][key] : json();
        }
        if (std::find(seen.begin(), seen.end(), k) != seen.end())
          out.push_back({"FieldValueDuplicate", "Duplicate value: " + k.dump(), path + "[" + std::to_string(i) + "]"});
        seen.push_back(k);
      }
    }
  }
}

void prune_walk(const json& s, json& v, bool top) {
  if (!s.is_object() || s.value("x-kubernetes-preserve-unknown-fields", false)) {
    // keep unknown fields here, but still prune inside known properties
    if (s.is_object() && v.is_object() && s.contains("properties"))
      for (auto it = v.begin(); it != v.end(); ++it)
        if (s["properties"].contains(it.key())) prune_walk(s["properties"][it.key()], it.value(), false);
    return;
  }
  if (v.is_object()) {
    const json props = s.value("properties", json::object());
    const bool has_add = s.contains("additionalProperties") && s["additionalProperties"].is_object();
    for (auto it = v.begin(); it != v.end();) {
      if (top && (it.key() == "apiVersion" || it.key() == "kind" || it.key() == "metadata")) {
        ++it;
        continue;
      }
      if (props.contains(it.key())) {
        prune_walk(props[it.key()], it.value(), false);
        ++it;
      } else if (has_add) {
        prune_walk(s["additionalProperties"], it.value(), false);
        ++it;
      } else if (s.value("type", "") == "object" || s.contains("properties")) {
        it = v.erase(it);
      } else {
        ++it;
      }
    }
  } else if (v.is_array() && s.contains("items")) {
    for (auto& e : v) prune_walk(s["items"], e, false);
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

std::vector<Cause> SchemaValidator::validate(const json& object) const {
  std::vector<Cause> out;
  if (schema_.is_null()) return out;
  json body = object;
  body.erase("metadata");  // metadata is validated by the server's ObjectMeta rules
  walk(schema_, body, "", out);
  return out;
}

void SchemaValidator::prune(json& object) const {
  if (!schema_.is_null()) prune_walk(schema_, object, true);
}

void SchemaValidator::apply_defaults(json& object) const {
  if (!schema_.is_null()) {
    json md = object.contains("metadata") ? object["metadata"] : json();
    default_walk(schema_, object);
    if (!md.is_null()) object["metadata"] = md;
  }
}

}  // namespace tfjob::test::fake
