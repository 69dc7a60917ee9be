#pragma once
/// \file The bodies of <tfjob/api/schema.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_API` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/api/schema.hpp>, never this file.

#include <tfjob/api/detail/tfjob_crd_schema.hpp>  // the embedded schema text
#include <tfjob/api/types.hpp>                    // kind, api_version, group
#include <tfjob/detail/suggest.hpp>               // closest: "did you mean"
#include <tfjob/error.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>

namespace tfjob {

TFJOB_INLINE const char* to_query_value(FieldValidation v) {
  switch (v) {
    case FieldValidation::strict: return "Strict";
    case FieldValidation::warn: return "Warn";
    case FieldValidation::ignore: return "Ignore";
  }
  return "Strict";
}

}  // namespace tfjob
namespace tfjob::schema::detail {

TFJOB_INLINE bool is_quantity_pattern(const std::string& pattern) {
  return pattern ==
         R"(^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$)";
}

TFJOB_INLINE bool matches_quantity_pattern(const std::string& s) {
  auto digits = [&](std::size_t& i) {
    std::size_t b = i;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
    return i > b;
  };
  // ([0-9]+(\.[0-9]*)?)|(\.[0-9]+) from i; false when none
  auto number = [&](std::size_t& i) {
    if (digits(i)) {
      if (i < s.size() && s[i] == '.') {
        ++i;
        digits(i);
      }
      return true;
    }
    if (i < s.size() && s[i] == '.') {
      ++i;
      return digits(i);
    }
    return false;
  };
  std::size_t i = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  if (!number(i)) return false;
  if (i == s.size()) return true;
  const std::string rest = s.substr(i);
  if (rest.size() == 2 && rest[1] == 'i' && std::string("KMGTPE").find(rest[0]) != std::string::npos) return true;
  if (rest.size() == 1 && std::string("numkMGTPE").find(rest[0]) != std::string::npos) return true;
  if (rest[0] == 'e' || rest[0] == 'E') {  // an exponent (a bare E was exa, above)
    std::size_t j = i + 1;
    if (j < s.size() && (s[j] == '+' || s[j] == '-')) ++j;
    return number(j) && j == s.size();
  }
  return false;
}

TFJOB_INLINE std::string json_type(const nlohmann::json& v) {
  if (v.is_null()) return "null";
  if (v.is_boolean()) return "boolean";
  if (v.is_number_integer() || v.is_number_unsigned()) return "integer";
  if (v.is_number()) return "number";
  if (v.is_string()) return "string";
  if (v.is_array()) return "array";
  return "object";
}

// Every field nullable: ObjectMeta is a Go struct, where null decodes as the zero value
// (`creationTimestamp: null` is what kubectl's dry runs print).
TFJOB_INLINE nlohmann::json object_meta_schema() {
  static const char* text = R"({"type":"object","properties":{
    "name":{"type":"string","nullable":true},"generateName":{"type":"string","nullable":true},
    "namespace":{"type":"string","nullable":true},"selfLink":{"type":"string","nullable":true},
    "uid":{"type":"string","nullable":true},"resourceVersion":{"type":"string","nullable":true},
    "generation":{"type":"integer","nullable":true},"creationTimestamp":{"type":"string","nullable":true},
    "deletionTimestamp":{"type":"string","nullable":true},"deletionGracePeriodSeconds":{"type":"integer","nullable":true},
    "labels":{"type":"object","nullable":true,"additionalProperties":{"type":"string"}},
    "annotations":{"type":"object","nullable":true,"additionalProperties":{"type":"string"}},
    "ownerReferences":{"type":"array","nullable":true,"items":{"type":"object","required":["apiVersion","kind","name","uid"],
      "properties":{"apiVersion":{"type":"string"},"kind":{"type":"string"},"name":{"type":"string"},"uid":{"type":"string"},
                    "controller":{"type":"boolean","nullable":true},"blockOwnerDeletion":{"type":"boolean","nullable":true}}}},
    "finalizers":{"type":"array","nullable":true,"items":{"type":"string"}},
    "managedFields":{"type":"array","nullable":true,"items":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}})";
  return nlohmann::json::parse(text);
}

/// A value for a message: strings quoted, long ones cut, objects and lists by their type.
TFJOB_INLINE std::string shown_value(const nlohmann::json& v) {
  if (v.is_object()) return "an object";
  if (v.is_array()) return "a list";
  std::string s = v.dump();
  if (s.size() > 60) s = s.substr(0, 57) + "...";
  return s;
}

/// The walk over an object and its schema, collecting issues.
struct Walker {
  std::vector<Issue>& out;
  Path path;
  /// The object schemas above the current node, with their paths (for "belongs in").
  std::vector<std::pair<const nlohmann::json*, Path>> above;
  /// Unknown fields given a hint so far: past 100 (a hostile or generated manifest) the
  /// rest are named without one, so the walk stays linear in the input.
  std::size_t hinted = 0;

  void issue(Issue::Kind k, const nlohmann::json& v, std::string expected = {}) {
    Issue i;
    i.kind = k;
    i.path = path;
    i.value = v;
    i.expected = std::move(expected);
    out.push_back(std::move(i));
  }

  static bool type_ok(const std::string& want, const nlohmann::json& v) {
    if (want == "object") return v.is_object();
    if (want == "array") return v.is_array();
    if (want == "string") return v.is_string();
    if (want == "boolean") return v.is_boolean();
    // JSON has one number type: 2.0 is an integer to kube-openapi's validator too
    if (want == "integer")
      return v.is_number_integer() || v.is_number_unsigned() ||
             (v.is_number_float() && std::isfinite(v.get<double>()) && std::floor(v.get<double>()) == v.get<double>());
    if (want == "number") return v.is_number();
    return true;
  }

  void check_pattern(const nlohmann::json& s, const nlohmann::json& v) {
    auto p = s.find("pattern");
    if (p == s.end() || !p->is_string() || !v.is_string()) return;
    const std::string& pattern = p->get_ref<const std::string&>();
    if (is_quantity_pattern(pattern) && !matches_quantity_pattern(v.get_ref<const std::string&>()))
      issue(Issue::Kind::pattern, v, pattern);
  }

  /// Where a known field named `name` lives, seen from the object schema `s` at `path`:
  /// below it (up to three levels of properties), else above it; "" when nowhere or in
  /// several places at the nearest level.
  std::string belongs_in(const nlohmann::json& s, const std::string& name) const {
    std::vector<std::pair<const nlohmann::json*, Path>> level{{&s, path}};
    for (int depth = 0; depth < 3 && !level.empty(); ++depth) {
      std::vector<std::pair<const nlohmann::json*, Path>> next;
      std::vector<Path> found;
      for (const auto& [node, at] : level) {
        auto props = node->find("properties");
        if (props == node->end() || !props->is_object()) continue;
        for (const auto& [k, child] : props->items()) {
          if (!child.is_object()) continue;
          Path p = at;
          p.push_back({PathStep::Kind::property, k});
          auto cp = child.find("properties");
          if (cp != child.end() && cp->is_object() && cp->contains(name)) found.push_back(p);
          next.emplace_back(&child, std::move(p));
        }
      }
      if (found.size() == 1) return to_string(found.front());
      if (found.size() > 1) return "";
      level = std::move(next);
    }
    for (auto it = above.rbegin(); it != above.rend(); ++it) {
      auto props = it->first->find("properties");
      if (props != it->first->end() && props->is_object() && props->contains(name))
        return it->second.empty() ? "." : to_string(it->second);
    }
    return "";
  }

  void unknown(const nlohmann::json& s, const std::string& key, const nlohmann::json& v) {
    path.push_back({PathStep::Kind::property, key});
    Issue i;
    i.kind = Issue::Kind::unknown_field;
    i.path = path;
    i.value = v;
    path.pop_back();
    if (hinted++ >= 100) return out.push_back(std::move(i));
    i.belongs_in = belongs_in(s, key);
    if (i.belongs_in.empty()) {
      std::vector<std::string> known;
      auto props = s.find("properties");
      if (props != s.end() && props->is_object())
        for (const auto& [k, _] : props->items()) known.push_back(k);
      i.suggestion = tfjob::detail::closest(key, known);
    }
    out.push_back(std::move(i));
  }

  void walk_object(const nlohmann::json& s, const nlohmann::json& v) {
    if (auto req = s.find("required"); req != s.end() && req->is_array())
      for (const auto& r : *req)
        if (r.is_string() && !v.contains(r.get<std::string>())) {
          path.push_back({PathStep::Kind::property, r.get<std::string>()});
          issue(Issue::Kind::required, nullptr);
          path.pop_back();
        }
    auto props = s.find("properties");
    const bool has_props = props != s.end() && props->is_object();
    auto addl = s.find("additionalProperties");
    const bool addl_schema = addl != s.end() && addl->is_object();
    const bool addl_any = addl != s.end() && addl->is_boolean() && addl->get<bool>();
    const bool preserve = s.value("x-kubernetes-preserve-unknown-fields", false);
    // structural schemas: an object's fields are its properties, the additionalProperties
    // map, or anything under x-kubernetes-preserve-unknown-fields; the rest is pruned
    const bool closed = !preserve && !addl_any && (has_props || s.value("type", "") == "object");
    above.emplace_back(&s, path);
    for (const auto& [k, x] : v.items()) {
      if (has_props && props->contains(k)) {
        path.push_back({PathStep::Kind::property, k});
        walk((*props)[k], x);
        path.pop_back();
      } else if (addl_schema) {
        path.push_back({PathStep::Kind::key, k});
        walk(*addl, x);
        path.pop_back();
      } else if (closed) {
        unknown(s, k, x);
      }
    }
    above.pop_back();
  }

  void walk_array(const nlohmann::json& s, const nlohmann::json& v) {
    auto items = s.find("items");
    if (items != s.end() && items->is_object())
      for (std::size_t i = 0; i < v.size(); ++i) {
        path.push_back({PathStep::Kind::index, std::to_string(i)});
        walk(*items, v[i]);
        path.pop_back();
      }
    const std::string list_type = s.value("x-kubernetes-list-type", "");
    auto keys = s.find("x-kubernetes-list-map-keys");
    if (list_type != "set" && !(list_type == "map" && keys != s.end() && keys->is_array())) return;
    std::vector<nlohmann::json> seen;
    for (std::size_t i = 0; i < v.size(); ++i) {
      nlohmann::json k;
      if (list_type == "set") {
        k = v[i];
      } else {
        k = nlohmann::json::object();
        for (const auto& mk : *keys) {
          if (!mk.is_string()) continue;
          const std::string key = mk.get<std::string>();
          k[key] = v[i].is_object() && v[i].contains(key) ? v[i][key] : nlohmann::json();
        }
      }
      if (std::find(seen.begin(), seen.end(), k) != seen.end()) {
        path.push_back({PathStep::Kind::index, std::to_string(i)});
        issue(Issue::Kind::duplicate, k);
        path.pop_back();
      }
      seen.push_back(std::move(k));
    }
  }

  void walk(const nlohmann::json& s, const nlohmann::json& v) {
    if (!s.is_object()) return;
    const bool int_or_string = s.value("x-kubernetes-int-or-string", false);
    if (v.is_null()) {
      if (!s.value("nullable", false) && (s.contains("type") || int_or_string))
        issue(Issue::Kind::wrong_type, v, int_or_string ? "integer,string" : s.value("type", ""));
      return;
    }
    if (int_or_string) {
      if (!(v.is_string() || v.is_number_integer() || v.is_number_unsigned()))
        return issue(Issue::Kind::wrong_type, v, "integer,string");
      return check_pattern(s, v);
    }
    if (auto t = s.find("type"); t != s.end() && t->is_string() && !type_ok(t->get<std::string>(), v))
      return issue(Issue::Kind::wrong_type, v, t->get<std::string>());
    if (auto e = s.find("enum"); e != s.end() && e->is_array() && std::find(e->begin(), e->end(), v) == e->end()) {
      issue(Issue::Kind::unsupported_value, v);
      out.back().supported.assign(e->begin(), e->end());
    }
    check_pattern(s, v);
    if (v.is_number()) {
      auto mn = s.find("minimum");
      if (mn != s.end() && mn->is_number() && v.get<double>() < mn->get<double>()) issue(Issue::Kind::out_of_range, v, ">= " + mn->dump());
      auto mx = s.find("maximum");
      if (mx != s.end() && mx->is_number() && v.get<double>() > mx->get<double>()) issue(Issue::Kind::out_of_range, v, "<= " + mx->dump());
    }
    if (v.is_object()) walk_object(s, v);
    else if (v.is_array()) walk_array(s, v);
  }
};

}  // namespace tfjob::schema::detail
namespace tfjob::schema {

TFJOB_INLINE std::string to_string(const Path& p) {
  std::string s;
  for (const auto& step : p) {
    if (step.kind == PathStep::Kind::index) s += "[" + step.name + "]";
    else s += (s.empty() ? "" : ".") + step.name;
  }
  return s;
}

TFJOB_INLINE nlohmann::json::json_pointer to_pointer(const Path& p) {
  nlohmann::json::json_pointer ptr;
  for (const auto& step : p) ptr /= step.name;
  return ptr;
}

TFJOB_INLINE std::string Issue::message() const {
  const std::string f = field();
  switch (kind) {
    case Kind::unknown_field: {
      // kube-apiserver's strict decoding error (`unknown field "spec.runPolcy"`), and why
      std::string m = "unknown field \"" + f + "\"";
      if (!belongs_in.empty()) m += "; it belongs " + (belongs_in == "." ? std::string("at the top level") : "in " + belongs_in);
      else if (!suggestion.empty()) m += "; did you mean \"" + suggestion + "\"?";
      return m;
    }
    case Kind::wrong_type:
      return f + ": Invalid value: " + detail::shown_value(value) + ": must be of type " + expected +
             (value.is_null() ? "" : ", not " + detail::json_type(value));
    case Kind::unsupported_value: {
      std::string m = f + ": Unsupported value: " + detail::shown_value(value) + ": supported values: ";
      for (std::size_t i = 0; i < supported.size(); ++i) m += (i ? ", " : "") + detail::shown_value(supported[i]);
      return m;
    }
    case Kind::required: return f + ": Required value";
    case Kind::pattern:
      return f + ": Invalid value: " + detail::shown_value(value) +
             (detail::is_quantity_pattern(expected) ? ": must be a quantity, e.g. 500m, 2, 1.5Gi, 64Mi" : ": must match '" + expected + "'");
    case Kind::out_of_range: return f + ": Invalid value: " + detail::shown_value(value) + ": must be " + expected;
    case Kind::duplicate: return f + ": Duplicate value: " + value.dump();
    case Kind::wrong_kind:
      if (value.is_null() || (value.is_string() && value.get<std::string>().empty()))
        return "kind is not set: a TFJob manifest says kind: TFJob (apiVersion: kubeflow.org/v1)";
      if (suggestion.empty()) return "expected kind TFJob (apiVersion kubeflow.org/v1), got kind " + detail::shown_value(value);
      return "kind " + detail::shown_value(value) + " is not TFJob; did you mean \"" + suggestion + "\"? (kinds are case-sensitive)";
    case Kind::wrong_api_version: return "apiVersion " + detail::shown_value(value) + " " + expected;
  }
  return f;
}

TFJOB_INLINE std::string Issue::fix() const {
  switch (kind) {
    case Kind::unknown_field:
      if (!belongs_in.empty()) return belongs_in == "." ? "move it to the top level" : "move it into " + belongs_in;
      if (!suggestion.empty()) return "rename it to " + suggestion;
      return "remove it: the API server would drop it (it is not in the TFJob schema)";
    case Kind::wrong_kind: return "kind: TFJob";
    case Kind::wrong_api_version: return "apiVersion: kubeflow.org/v1";
    default: return "";
  }
}

TFJOB_INLINE std::string Issue::replica() const {
  if (path.size() > 2 && path[0].name == "spec" && path[1].name == "tfReplicaSpecs") return path[2].name;
  return "";
}

TFJOB_INLINE const char* code(Issue::Kind k) {
  switch (k) {
    case Issue::Kind::unknown_field: return "UnknownField";
    case Issue::Kind::wrong_type: return "FieldWrongType";
    case Issue::Kind::unsupported_value: return "UnsupportedValue";
    case Issue::Kind::required: return "RequiredField";
    case Issue::Kind::pattern:
    case Issue::Kind::out_of_range: return "InvalidValue";
    case Issue::Kind::duplicate: return "DuplicateValue";
    case Issue::Kind::wrong_kind: return "WrongKind";
    case Issue::Kind::wrong_api_version: return "WrongApiVersion";
  }
  return "";
}

TFJOB_INLINE Schema::Schema(nlohmann::json open_api_v3) : schema_(std::move(open_api_v3)) {
  // apiextensions judges the root metadata by ObjectMeta's Go type, whatever the schema says
  // there (structural schemas may only have `type: object`): so does the validator
  object_meta_ = schema_;
  if (object_meta_.is_object()) object_meta_["properties"]["metadata"] = detail::object_meta_schema();
}

TFJOB_INLINE Schema Schema::from_crd(const nlohmann::json& crd, const std::string& version) {
  const nlohmann::json versions = crd.is_object() ? crd.value("spec", nlohmann::json::object()).value("versions", nlohmann::json())
                                                  : nlohmann::json();
  if (versions.is_array())
    for (const auto& v : versions)
      if (v.is_object() && v.value("name", "") == version) {
        auto s = v.find("schema");
        if (s != v.end() && s->is_object() && s->contains("openAPIV3Schema")) return Schema((*s)["openAPIV3Schema"]);
      }
  throw error("the CustomResourceDefinition has no version \"" + version + "\" with an openAPIV3Schema");
}

TFJOB_INLINE std::vector<Issue> Schema::validate(const nlohmann::json& object) const {
  std::vector<Issue> out;
  detail::Walker w{out, {}, {}, 0};
  w.walk(object_meta_, object);
  return out;
}

TFJOB_INLINE std::string_view tfjob_schema_text() { return detail::tfjob_crd_schema_json; }

TFJOB_INLINE const Schema& tfjob_schema() {
  static const Schema s(nlohmann::json::parse(detail::tfjob_crd_schema_json));
  return s;
}

namespace detail {
/// The kind the user meant as TFJob: equal but for case, or within two edits.
TFJOB_INLINE bool near_tfjob(const std::string& k) {
  return !k.empty() && tfjob::detail::closest(k, {std::string(tfjob::kind)}) == tfjob::kind;
}
}  // namespace detail

TFJOB_INLINE DocumentKind classify(const nlohmann::json& object) {
  if (!object.is_object()) return DocumentKind::other;
  const auto k = object.find("kind");
  const auto av = object.find("apiVersion");
  const std::string kind = k != object.end() && k->is_string() ? k->get<std::string>() : "";
  const std::string api = av != object.end() && av->is_string() ? av->get<std::string>() : "";
  if (kind == tfjob::kind) return DocumentKind::tfjob;
  if (detail::near_tfjob(kind)) return DocumentKind::near_miss;
  // under kubeflow.org with no kind, or a kind that is no other Kubeflow job: meant as a TFJob
  const bool kubeflow = api.rfind(std::string(tfjob::api_group) + "/", 0) == 0;
  if (kubeflow && kind.empty()) return DocumentKind::near_miss;
  if (kind.empty() && (object.contains("spec") && object["spec"].is_object() && object["spec"].contains("tfReplicaSpecs")))
    return DocumentKind::near_miss;
  return DocumentKind::other;
}

TFJOB_INLINE std::vector<Issue> check_type_meta(const nlohmann::json& object) {
  std::vector<Issue> out;
  if (!object.is_object()) return out;
  const nlohmann::json kind = object.value("kind", nlohmann::json());
  if (kind != tfjob::kind) {
    Issue i;
    i.kind = Issue::Kind::wrong_kind;
    i.path = {{PathStep::Kind::property, "kind"}};
    i.value = kind;
    const bool near = kind.is_string() && detail::near_tfjob(kind.get<std::string>());
    if (near) i.suggestion = tfjob::kind;
    out.push_back(std::move(i));
    if (!near && classify(object) == DocumentKind::other) return out;  // another kind: its apiVersion is its own
  }
  const nlohmann::json av = object.value("apiVersion", nlohmann::json());
  if (!av.is_null() && av != "" && av != tfjob::api_version) {
    Issue i;
    i.kind = Issue::Kind::wrong_api_version;
    i.path = {{PathStep::Kind::property, "apiVersion"}};
    i.value = av;
    const std::string s = av.is_string() ? av.get<std::string>() : "";
    const std::string group = s.substr(0, s.find('/'));
    // the operator v1.9 serves tfjobs only as kubeflow.org/v1 (its CRD has one version);
    // v1alpha1, v1alpha2, v1beta1 and v1beta2 were the tf-operator's before its v1 API
    if (s.empty() || s.find('/') == std::string::npos) i.expected = "is not TFJob's group: TFJobs are apiVersion: kubeflow.org/v1";
    else if (group == tfjob::api_group)
      i.expected = "is not served by the training operator v1.9, which serves TFJob only as kubeflow.org/v1: use apiVersion: kubeflow.org/v1";
    else i.expected = "does not serve TFJob: TFJobs are apiVersion: kubeflow.org/v1 (group kubeflow.org)";
    out.push_back(std::move(i));
  }
  return out;
}

TFJOB_INLINE std::vector<Issue> check_tfjob(const nlohmann::json& object) {
  auto out = check_type_meta(object);
  if (!out.empty() || !object.is_object()) return out;
  return tfjob_schema().validate(object);
}

}  // namespace tfjob::schema
