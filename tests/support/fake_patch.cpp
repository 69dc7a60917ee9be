// YAML decoding and the patch flavours the fake API server accepts: JSON merge patch,
// strategic merge patch (as kubectl sends for built-in kinds) and server-side apply.
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <cstdlib>
#include <stdexcept>

#include "support/fake_internal.hpp"

namespace tfjob::test::fake {

// ---- YAML → JSON (YAML 1.1 booleans as sigs.k8s.io/yaml resolves them) ------------------

static json scalar_to_json(const YAML::Node& n) {
  const std::string& s = n.Scalar();
  if (n.Tag() == "!") return s;  // quoted: always a string
  if (n.Tag() == "tag:yaml.org,2002:str" || n.Tag() == "!!str") return s;
  if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL") return nullptr;
  if (s == "true" || s == "True" || s == "TRUE" || s == "yes" || s == "Yes" || s == "YES" || s == "on" || s == "On" || s == "ON") return true;
  if (s == "false" || s == "False" || s == "FALSE" || s == "no" || s == "No" || s == "NO" || s == "off" || s == "Off" || s == "OFF") return false;
  // integers
  {
    const char* c = s.c_str();
    char* end = nullptr;
    int base = 10;
    std::string digits = s;
    bool neg = false;
    if (!digits.empty() && (digits[0] == '-' || digits[0] == '+')) {
      neg = digits[0] == '-';
      digits = digits.substr(1);
    }
    if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) {
      base = 16;
      digits = digits.substr(2);
    } else if (digits.size() > 2 && digits[0] == '0' && digits[1] == 'o') {
      base = 8;
      digits = digits.substr(2);
    }
    (void)c;
    if (!digits.empty() && digits.find_first_not_of(base == 16 ? "0123456789abcdefABCDEF" : "0123456789") == std::string::npos) {
      errno = 0;
      long long v = std::strtoll(digits.c_str(), &end, base);
      if (errno == 0 && *end == '\0') return neg ? -v : v;
    }
  }
  // floats
  if (s == ".inf" || s == ".Inf" || s == "+.inf") return std::numeric_limits<double>::infinity();
  if (s == "-.inf" || s == "-.Inf") return -std::numeric_limits<double>::infinity();
  if (s.find_first_of("0123456789") != std::string::npos &&
      s.find_first_not_of("0123456789.eE+-") == std::string::npos && s.find_first_of(".eE") != std::string::npos) {
    char* end = nullptr;
    double d = std::strtod(s.c_str(), &end);
    if (*end == '\0') return d;
  }
  return s;
}

static json node_to_json(const YAML::Node& n) {
  switch (n.Type()) {
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      return nullptr;
    case YAML::NodeType::Scalar:
      return scalar_to_json(n);
    case YAML::NodeType::Sequence: {
      json a = json::array();
      for (const auto& e : n) a.push_back(node_to_json(e));
      return a;
    }
    case YAML::NodeType::Map: {
      json o = json::object();
      for (const auto& kv : n) o[kv.first.as<std::string>()] = node_to_json(kv.second);
      return o;
    }
  }
  return nullptr;
}

json yaml_to_json(const std::string& text) {
  try {
    return node_to_json(YAML::Load(text));
  } catch (const YAML::Exception& e) {
    throw std::runtime_error("yaml: line " + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
}

// ---- JSON merge patch ----------------------------------------------------------------------

json apply_merge_patch(const json& target, const json& patch) {
  json r = target;
  r.merge_patch(patch);
  return r;
}

// ---- strategic merge patch ---------------------------------------------------------------

/// The patchMergeKey of a list field (k8s.io/api struct tags), "" = atomic (replace).
static std::string merge_key(const std::string& field, const json& sample) {
  static const std::map<std::string, std::string> keys = {
      {"containers", "name"}, {"initContainers", "name"}, {"ephemeralContainers", "name"}, {"env", "name"},
      {"volumes", "name"}, {"volumeMounts", "mountPath"}, {"volumeDevices", "devicePath"}, {"imagePullSecrets", "name"},
      {"hostAliases", "ip"}, {"conditions", "type"}, {"ownerReferences", "uid"}, {"topologySpreadConstraints", "topologyKey"},
      {"resourceClaims", "name"}, {"readinessGates", "conditionType"}, {"schedulingGates", "name"}};
  auto it = keys.find(field);
  if (it != keys.end()) return it->second;
  if (field == "ports") {
    if (sample.is_object() && sample.contains("containerPort")) return "containerPort";
    return "port";
  }
  return "";
}

static bool primitive_merge_list(const std::string& field) { return field == "finalizers"; }

static const json* find_by_key(const json& list, const std::string& key, const json& value) {
  for (const auto& e : list)
    if (e.is_object() && e.contains(key) && e[key] == value) return &e;
  return nullptr;
}

static json smp(const json& original, const json& patch);

static json merge_list(const json& original, const json& patch, const std::string& field) {
  if (!original.is_array()) {
    // nothing to merge with: drop directives
    json out = json::array();
    for (const auto& e : patch) {
      if (e.is_object() && e.value("$patch", "") == "delete") continue;
      if (e.is_object()) {
        json c = e;
        c.erase("$patch");
        out.push_back(c);
      } else {
        out.push_back(e);
      }
    }
    return out;
  }
  const json sample = !patch.empty() ? patch[0] : (!original.empty() ? original[0] : json());
  std::string key = merge_key(field, sample);
  if (patch.size() == 1 && patch[0].is_object() && patch[0].value("$patch", "") == "replace") return json::array();
  if (!key.empty() && sample.is_object()) {
    json out = original;
    for (const auto& e : patch) {
      if (!e.is_object() || !e.contains(key)) {
        out.push_back(e);
        continue;
      }
      bool del = e.value("$patch", "") == "delete";
      json::iterator found = out.end();
      for (auto it = out.begin(); it != out.end(); ++it)
        if (it->is_object() && it->contains(key) && (*it)[key] == e[key]) found = it;
      if (del) {
        if (found != out.end()) out.erase(found);
      } else if (found != out.end()) {
        *found = smp(*found, e);
      } else {
        json c = smp(json::object(), e);
        out.push_back(c);
      }
    }
    return out;
  }
  if (primitive_merge_list(field)) {
    json out = original;
    for (const auto& e : patch)
      if (std::find(out.begin(), out.end(), e) == out.end()) out.push_back(e);
    return out;
  }
  return patch;
}

static json smp(const json& original, const json& patch) {
  if (!patch.is_object()) return patch;
  json out = original.is_object() ? original : json::object();
  if (patch.value("$patch", "") == "replace") {
    json r = patch;
    r.erase("$patch");
    return r;
  }
  if (patch.value("$patch", "") == "delete") return nullptr;
  std::map<std::string, json> orders;
  for (auto it = patch.begin(); it != patch.end(); ++it) {
    const std::string& k = it.key();
    const json& v = it.value();
    if (k == "$patch" || k == "$retainKeys") continue;
    if (k.rfind("$setElementOrder/", 0) == 0) {
      orders[k.substr(17)] = v;
      continue;
    }
    if (k.rfind("$deleteFromPrimitiveList/", 0) == 0) {
      std::string f = k.substr(25);
      if (out.contains(f) && out[f].is_array()) {
        json kept = json::array();
        for (const auto& e : out[f])
          if (std::find(v.begin(), v.end(), e) == v.end()) kept.push_back(e);
        out[f] = kept;
      }
      continue;
    }
    if (v.is_null()) {
      out.erase(k);
    } else if (v.is_object()) {
      json r = smp(out.contains(k) ? out[k] : json::object(), v);
      if (r.is_null()) out.erase(k);
      else out[k] = r;
    } else if (v.is_array()) {
      out[k] = merge_list(out.contains(k) ? out[k] : json(), v, k);
    } else {
      out[k] = v;
    }
  }
  for (const auto& [f, order] : orders) {
    if (!out.contains(f) || !out[f].is_array()) continue;
    const json& list = out[f];
    json sorted = json::array();
    std::vector<bool> used(list.size(), false);
    for (const auto& o : order) {
      for (size_t i = 0; i < list.size(); ++i) {
        if (used[i]) continue;
        bool match;
        if (o.is_object()) {
          match = list[i].is_object();
          for (auto kv = o.begin(); match && kv != o.end(); ++kv) match = list[i].contains(kv.key()) && list[i][kv.key()] == kv.value();
        } else {
          match = list[i] == o;
        }
        if (match) {
          sorted.push_back(list[i]);
          used[i] = true;
          break;
        }
      }
    }
    for (size_t i = 0; i < list.size(); ++i)
      if (!used[i]) sorted.push_back(list[i]);
    out[f] = sorted;
  }
  if (patch.contains("$retainKeys") && patch["$retainKeys"].is_array()) {
    const json& keep = patch["$retainKeys"];
    for (auto it = out.begin(); it != out.end();) {
      if (std::find(keep.begin(), keep.end(), it.key()) == keep.end()) it = out.erase(it);
      else ++it;
    }
  }
  return out;
}

json apply_strategic_merge_patch(const json& target, const json& patch) { return smp(target, patch); }

// ---- server-side apply (simplified) --------------------------------------------------------

static json ssa_merge(const json& live, const json& applied, const json& prev, const std::string& field);

static json ssa_list(const json& live, const json& applied, const json& prev, const std::string& field) {
  const json sample = !applied.empty() ? applied[0] : json();
  std::string key = merge_key(field, sample);
  if (key.empty() || !sample.is_object() || !live.is_array()) return applied;
  json out = json::array();
  // keep live items not removed by this manager, merged with the applied one of the same key
  for (const auto& l : live) {
    if (!l.is_object() || !l.contains(key)) {
      out.push_back(l);
      continue;
    }
    const json* a = find_by_key(applied, key, l[key]);
    const json* p = prev.is_array() ? find_by_key(prev, key, l[key]) : nullptr;
    if (a) out.push_back(ssa_merge(l, *a, p ? *p : json(), ""));
    else if (!p) out.push_back(l);  // someone else's item
  }
  for (const auto& a : applied)
    if (!find_by_key(out, key, a.value(key, json()))) out.push_back(a);
  return out;
}

static json ssa_merge(const json& live, const json& applied, const json& prev, const std::string& field) {
  if (!applied.is_object()) {
    if (applied.is_array()) return ssa_list(live, applied, prev, field);
    return applied;
  }
  json out = live.is_object() ? live : json::object();
  for (auto it = applied.begin(); it != applied.end(); ++it) {
    const json p = prev.is_object() && prev.contains(it.key()) ? prev[it.key()] : json();
    const json l = out.contains(it.key()) ? out[it.key()] : json();
    out[it.key()] = ssa_merge(l, it.value(), p, it.key());
  }
  if (prev.is_object())
    for (auto it = prev.begin(); it != prev.end(); ++it)
      if (!applied.contains(it.key())) out.erase(it.key());  // no longer applied: the owner lets go
  return out;
}

json apply_server_side(const json& live, const json& applied, const json& previously_applied) {
  json prev = previously_applied;
  if (prev.is_object() && prev.contains("metadata")) {
    prev["metadata"].erase("name");
    prev["metadata"].erase("namespace");
  }
  json out = ssa_merge(live, applied, prev, "");
  out["metadata"]["name"] = live["metadata"]["name"];
  return out;
}

// ---- metadata.managedFields (FieldsV1, simplified) ------------------------------------------

namespace {
/// Fields the server sets itself: never part of a manager's set.
bool server_field(const std::string& path, const std::string& key) {
  if (path.empty()) return key == "apiVersion" || key == "kind" || key == "status";
  if (path == "metadata")
    return key == "name" || key == "namespace" || key == "uid" || key == "resourceVersion" || key == "generation" ||
           key == "creationTimestamp" || key == "deletionTimestamp" || key == "deletionGracePeriodSeconds" ||
           key == "managedFields" || key == "selfLink";
  return false;
}

/// The FieldsV1 set of `v` (maps recurse as "f:<key>"; lists and scalars are leaves: lists
/// are atomic here, see docs/fake-apiserver.md).
json fields_of(const json& v, const std::string& path) {
  json out = json::object();
  if (!v.is_object()) return out;
  for (auto it = v.begin(); it != v.end(); ++it) {
    if (server_field(path, it.key())) continue;
    out["f:" + it.key()] = it.value().is_object() && !it.value().empty()
                               ? fields_of(it.value(), path.empty() ? it.key() : path + "." + it.key())
                               : json::object();
  }
  return out;
}

/// The fields of `now` whose value differs from `before` (added or changed).
json changed_fields(const json& before, const json& now, const std::string& path) {
  json out = json::object();
  if (!now.is_object()) return out;
  for (auto it = now.begin(); it != now.end(); ++it) {
    if (server_field(path, it.key())) continue;
    const json* b = before.is_object() && before.contains(it.key()) ? &before[it.key()] : nullptr;
    if (b && *b == it.value()) continue;
    std::string sub = path.empty() ? it.key() : path + "." + it.key();
    if (it.value().is_object() && !it.value().empty()) {
      json c = b && b->is_object() ? changed_fields(*b, it.value(), sub) : fields_of(it.value(), sub);
      if (!c.empty()) out["f:" + it.key()] = c;
    } else {
      out["f:" + it.key()] = json::object();
    }
  }
  return out;
}

/// a ∪ b
json union_fields(json a, const json& b) {
  for (auto it = b.begin(); it != b.end(); ++it) {
    if (!a.contains(it.key()) || a[it.key()].empty()) a[it.key()] = it.value();
    else if (!it.value().empty()) a[it.key()] = union_fields(a[it.key()], it.value());
  }
  return a;
}

/// a without the leaves of b (a leaf of b removes the whole subtree of a under it).
json minus_fields(const json& a, const json& b) {
  json out = json::object();
  for (auto it = a.begin(); it != a.end(); ++it) {
    if (!b.contains(it.key())) {
      out[it.key()] = it.value();
      continue;
    }
    const json& bv = b[it.key()];
    if (bv.empty()) continue;                 // b owns this field (and all below it)
    if (it.value().empty()) {                 // a owns the field as a leaf; b only parts below it
      out[it.key()] = it.value();
      continue;
    }
    json sub = minus_fields(it.value(), bv);
    if (!sub.empty()) out[it.key()] = sub;
  }
  return out;
}
}  // namespace

void record_managed_fields(json& obj, const json& before, const std::string& manager, const std::string& operation,
                           const json& applied, bool force, const std::string& api_version, const std::string& subresource) {
  // the server's own record counts, never what the client sent back
  json entries = json::array();
  if (before.is_object() && before.contains("metadata") && before["metadata"].contains("managedFields") &&
      before["metadata"]["managedFields"].is_array())
    entries = before["metadata"]["managedFields"];
  json mine;
  if (operation == "Apply") {
    mine = fields_of(applied, "");
  } else {
    if (subresource == "status") {  // a status write owns what changed under status
      const json bs = before.is_object() ? before.value("status", json()) : json();
      const json ns = obj.value("status", json());
      mine = json::object();
      if (bs != ns) {
        json c = ns.is_object() ? changed_fields(bs, ns, "status") : json::object();
        if (!c.empty() || !ns.is_object()) mine["f:status"] = c;
      }
    } else {
      mine = changed_fields(before, obj, "");
    }
  }
  // the fields this write takes over leave the other managers: those whose value it changed
  // (Update always; Apply only when forced: without force a differing value was a conflict).
  // A field applied with the value it already had stays shared with its other owners.
  const json taken = operation == "Apply" ? changed_fields(before.is_object() ? before : json::object(), obj, "") : mine;
  json out = json::array();
  bool found = false;
  for (auto e : entries) {
    bool same = e.value("manager", "") == manager && e.value("operation", "") == operation &&
                e.value("subresource", "") == subresource;
    if (same) {
      found = true;
      json fs = operation == "Apply" ? mine : union_fields(e.value("fieldsV1", json::object()), mine);
      if (fs != e.value("fieldsV1", json::object())) {
        e["fieldsV1"] = fs;
        e["time"] = now_rfc3339();
        e["apiVersion"] = api_version;
      }
      if (!fs.empty()) out.push_back(e);
      continue;
    }
    if (operation == "Update" || force) {
      json fs = minus_fields(e.value("fieldsV1", json::object()), taken);
      if (fs.empty()) continue;
      if (fs != e.value("fieldsV1", json::object())) e["fieldsV1"] = fs;
    }
    out.push_back(e);
  }
  if (!found && !mine.empty()) {
    json e = {{"manager", manager}, {"operation", operation}, {"apiVersion", api_version},
              {"time", now_rfc3339()}, {"fieldsType", "FieldsV1"}, {"fieldsV1", mine}};
    if (!subresource.empty()) e["subresource"] = subresource;
    out.push_back(e);
  }
  if (out.empty()) obj["metadata"].erase("managedFields");
  else obj["metadata"]["managedFields"] = out;
}

std::string manager_from_user_agent(const std::string& user_agent) {
  std::string m = user_agent.substr(0, user_agent.find('/'));
  if (m.size() > 128) m.resize(128);
  return m;
}

}  // namespace tfjob::test::fake
