// The fake API server's resource table, time/ids, Status errors and selectors.
#include <openssl/evp.h>
#include <openssl/rand.h>

#include <cstdio>
#include <ctime>
#include <sstream>

#include "support/fake_internal.hpp"

namespace tfjob::test::fake {

const std::vector<ResourceInfo>& resources() {
  static const std::vector<ResourceInfo> table = [] {
    std::vector<ResourceInfo> t;
    auto add = [&](ResourceInfo r) { t.push_back(std::move(r)); };
    // core/v1
    add({"", "v1", "pods", "pod", "Pod", true, {"po"}, {"all"}, true, false, true, {"log", "status"}});
    add({"", "v1", "nodes", "node", "Node", false, {"no"}, {}, true, false, true, {"status"}});
    add({"", "v1", "namespaces", "namespace", "Namespace", false, {"ns"}, {}, true, false, true, {"status"}});
    add({"", "v1", "services", "service", "Service", true, {"svc"}, {"all"}, true, false, true, {"proxy", "status"}});
    add({"", "v1", "persistentvolumeclaims", "persistentvolumeclaim", "PersistentVolumeClaim", true, {"pvc"}, {}, true, false, true, {"status"}});
    add({"", "v1", "persistentvolumes", "persistentvolume", "PersistentVolume", false, {"pv"}, {}, true, false, true, {"status"}});
    add({"", "v1", "events", "event", "Event", true, {"ev"}, {}, false, false, true, {}});
    add({"", "v1", "configmaps", "configmap", "ConfigMap", true, {"cm"}, {}, false, false, true, {}});
    add({"", "v1", "secrets", "secret", "Secret", true, {}, {}, false, false, true, {}});
    add({"", "v1", "serviceaccounts", "serviceaccount", "ServiceAccount", true, {"sa"}, {}, false, false, true, {}});
    // apps/v1
    add({"apps", "v1", "deployments", "deployment", "Deployment", true, {"deploy"}, {"all"}, true, true, true, {"status"}});
    add({"apps", "v1", "replicasets", "replicaset", "ReplicaSet", true, {"rs"}, {"all"}, true, true, true, {"status"}});
    // policy/v1, autoscaling/v2 (what serve adds for several replicas and --autoscale)
    add({"policy", "v1", "poddisruptionbudgets", "poddisruptionbudget", "PodDisruptionBudget", true, {"pdb"}, {}, true, true, true, {"status"}});
    add({"autoscaling", "v2", "horizontalpodautoscalers", "horizontalpodautoscaler", "HorizontalPodAutoscaler", true, {"hpa"}, {"all"}, true, false, true, {"status"}});
    // batch/v1
    add({"batch", "v1", "jobs", "job", "Job", true, {}, {"all"}, true, true, true, {"status"}});
    // kubeflow.org/v1 (CRD)
    add({"kubeflow.org", "v1", "tfjobs", "tfjob", "TFJob", true, {"tfjob"}, {"kubeflow"}, true, true, false, {"status"}});
    // serving.kserve.io/v1beta1 (KServe's CRD; 404 unless FakeApiServerOptions::kserve)
    add({"serving.kserve.io", "v1beta1", "inferenceservices", "inferenceservice", "InferenceService", true, {"isvc"}, {}, true, true, false, {"status"}});
    return t;
  }();
  return table;
}

const ResourceInfo* find_resource(const std::string& group, const std::string& version, const std::string& plural) {
  for (const auto& r : resources())
    if (r.group == group && r.version == version && r.plural == plural) return &r;
  return nullptr;
}

const ResourceInfo* find_resource_by_kind(const std::string& api_version, const std::string& kind) {
  for (const auto& r : resources())
    if (r.api_version() == api_version && r.kind == kind) return &r;
  return nullptr;
}

const ResourceInfo* find_resource_name(const std::string& name) {
  for (const auto& r : resources()) {
    if (name == r.plural || name == r.key() || name == r.singular || name == r.kind) return &r;
    if (!r.group.empty() && name == r.singular + "." + r.group) return &r;
  }
  return nullptr;
}

// ---- time, ids -------------------------------------------------------------------

std::string rfc3339(Clock::time_point t) {
  std::time_t tt = Clock::to_time_t(t);
  std::tm tm{};
  gmtime_r(&tt, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string rfc3339_nano(Clock::time_point t) {
  auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
  std::time_t tt = static_cast<std::time_t>(ns / 1000000000);
  long frac = static_cast<long>(ns % 1000000000);
  std::tm tm{};
  gmtime_r(&tt, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  char out[80];
  std::snprintf(out, sizeof out, "%s.%09ldZ", buf, frac);
  return out;
}

std::string now_rfc3339() { return rfc3339(Clock::now()); }

bool parse_rfc3339(const std::string& s, Clock::time_point& out) {
  std::tm tm{};
  int y, mo, d, h, mi;
  double sec;
  if (std::sscanf(s.c_str(), "%d-%d-%dT%d:%d:%lf", &y, &mo, &d, &h, &mi, &sec) != 6) return false;
  tm.tm_year = y - 1900;
  tm.tm_mon = mo - 1;
  tm.tm_mday = d;
  tm.tm_hour = h;
  tm.tm_min = mi;
  tm.tm_sec = 0;
  std::time_t tt = timegm(&tm);
  out = Clock::from_time_t(tt) +
        std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(sec));
  // an offset other than Z
  auto tpos = s.find('T');
  auto plus = s.find_first_of("+-", tpos);
  if (plus != std::string::npos) {
    int oh = 0, om = 0;
    if (std::sscanf(s.c_str() + plus + 1, "%d:%d", &oh, &om) == 2) {
      auto off = std::chrono::hours(oh) + std::chrono::minutes(om);
      out = s[plus] == '+' ? out - off : out + off;
    }
  }
  return true;
}

std::string new_uid() {
  unsigned char b[16];
  RAND_bytes(b, sizeof b);
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  char out[40];
  std::snprintf(out, sizeof out,
                "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1],
                b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
  return out;
}

std::string base64_encode(const std::string& in) {
  std::string out(4 * ((in.size() + 2) / 3) + 1, '\0');
  int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(&out[0]),
                          reinterpret_cast<const unsigned char*>(in.data()), static_cast<int>(in.size()));
  out.resize(static_cast<size_t>(n));
  return out;
}

std::string base64_decode(const std::string& in) {
  if (in.empty() || in.size() % 4 != 0) return {};
  std::string out(3 * in.size() / 4 + 1, '\0');
  int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(&out[0]),
                          reinterpret_cast<const unsigned char*>(in.data()), static_cast<int>(in.size()));
  if (n < 0) return {};
  size_t pad = 0;
  if (in.size() >= 1 && in[in.size() - 1] == '=') ++pad;
  if (in.size() >= 2 && in[in.size() - 2] == '=') ++pad;
  out.resize(static_cast<size_t>(n) - pad);
  return out;
}

bool glob_match(const std::string& p, const std::string& t) {
  size_t pi = 0, ti = 0, star = std::string::npos, mark = 0;
  while (ti < t.size()) {
    if (pi < p.size() && (p[pi] == '?' || p[pi] == t[ti])) {
      ++pi;
      ++ti;
    } else if (pi < p.size() && p[pi] == '*') {
      star = pi++;
      mark = ti;
    } else if (star != std::string::npos) {
      pi = star + 1;
      ti = ++mark;
    } else {
      return false;
    }
  }
  while (pi < p.size() && p[pi] == '*') ++pi;
  return pi == p.size();
}

// kubectl's duration.HumanDuration, abridged.
std::string human_age(Clock::time_point since, Clock::time_point now) {
  long s = static_cast<long>(std::chrono::duration_cast<std::chrono::seconds>(now - since).count());
  if (s < 0) s = 0;
  char buf[32];
  if (s < 120) std::snprintf(buf, sizeof buf, "%lds", s);
  else if (s < 600) std::snprintf(buf, sizeof buf, "%ldm%lds", s / 60, s % 60);
  else if (s < 3 * 3600) std::snprintf(buf, sizeof buf, "%ldm", s / 60);
  else if (s < 8 * 3600) std::snprintf(buf, sizeof buf, "%ldh%ldm", s / 3600, (s % 3600) / 60);
  else if (s < 48 * 3600) std::snprintf(buf, sizeof buf, "%ldh", s / 3600);
  else std::snprintf(buf, sizeof buf, "%ldd", s / 86400);
  return buf;
}

// ---- Status ----------------------------------------------------------------------

std::string reason_for_code(int code) {
  switch (code) {
    case 400: return "BadRequest";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "NotFound";
    case 405: return "MethodNotAllowed";
    case 406: return "NotAcceptable";
    case 409: return "Conflict";
    case 410: return "Expired";
    case 413: return "RequestEntityTooLarge";
    case 415: return "UnsupportedMediaType";
    case 422: return "Invalid";
    case 429: return "TooManyRequests";
    case 500: return "InternalError";
    case 503: return "ServiceUnavailable";
    case 504: return "Timeout";
    default: return code >= 500 ? "InternalError" : "";
  }
}

json status_failure(int code, const std::string& reason, const std::string& message, const json& details) {
  json s = {{"kind", "Status"}, {"apiVersion", "v1"}, {"metadata", json::object()},
            {"status", "Failure"}, {"message", message}, {"reason", reason}};
  if (!details.is_null()) s["details"] = details;
  s["code"] = code;
  return s;
}

json status_success(const json& details) {
  json s = {{"kind", "Status"}, {"apiVersion", "v1"}, {"metadata", json::object()}, {"status", "Success"}};
  if (!details.is_null()) s["details"] = details;
  return s;
}

std::string qualified(const ResourceInfo& ri) { return ri.key(); }

static json details_for(const ResourceInfo& ri, const std::string& name) {
  json d = {{"name", name}};
  if (!ri.group.empty()) d["group"] = ri.group;
  d["kind"] = ri.plural;
  return d;
}

ApiError err_not_found(const ResourceInfo& ri, const std::string& name) {
  return {404, status_failure(404, "NotFound", qualified(ri) + " \"" + name + "\" not found", details_for(ri, name))};
}

ApiError err_already_exists(const ResourceInfo& ri, const std::string& name) {
  return {409, status_failure(409, "AlreadyExists", qualified(ri) + " \"" + name + "\" already exists",
                              details_for(ri, name))};
}

ApiError err_conflict(const ResourceInfo& ri, const std::string& name, const std::string& why) {
  return {409, status_failure(409, "Conflict",
                              "Operation cannot be fulfilled on " + qualified(ri) + " \"" + name + "\": " + why,
                              details_for(ri, name))};
}

ApiError err_bad_request(const std::string& message) { return {400, status_failure(400, "BadRequest", message)}; }

ApiError err_invalid(const ResourceInfo& ri, const std::string& name, const json& causes) {
  json d = details_for(ri, name);
  d["kind"] = ri.kind;
  d["causes"] = causes;
  std::vector<Cause> cs;
  for (const auto& c : causes) cs.push_back({c.value("reason", ""), c.value("message", ""), c.value("field", "")});
  return {422, status_failure(422, "Invalid", causes_message(ri.kind, name, cs), d)};
}

ApiError err_method_not_allowed(const std::string& message) {
  return {405, status_failure(405, "MethodNotAllowed", message)};
}

ApiError err_unsupported_media(const std::string& message) {
  return {415, status_failure(415, "UnsupportedMediaType", message)};
}

ApiError err_gone(const std::string& message) { return {410, status_failure(410, "Expired", message)}; }

json causes_to_json(const std::vector<Cause>& causes) {
  json a = json::array();
  for (const auto& c : causes) a.push_back({{"reason", c.reason}, {"message", c.message}, {"field", c.field}});
  return a;
}

// apimachinery errors.NewInvalid: `Kind "name" is invalid: [a, b]` (no brackets for one).
std::string causes_message(const std::string& kind, const std::string& name, const std::vector<Cause>& causes) {
  std::string m = kind + " \"" + name + "\" is invalid: ";
  if (causes.size() == 1) return m + causes[0].field + ": " + causes[0].message;
  m += "[";
  for (size_t i = 0; i < causes.size(); ++i) {
    if (i) m += ", ";
    m += causes[i].field + ": " + causes[i].message;
  }
  return m + "]";
}

// ---- selectors -------------------------------------------------------------------

static std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

Selector Selector::parse(const std::string& text, bool field, std::string& error) {
  Selector sel;
  // split on commas outside parentheses
  std::vector<std::string> parts;
  std::string cur;
  int depth = 0;
  for (char c : text) {
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if (c == ',' && depth == 0) {
      parts.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty() || !parts.empty()) parts.push_back(cur);
  for (auto p : parts) {
    p = trim(p);
    if (p.empty()) {
      error = "found '', expected: identifier";
      return sel;
    }
    Req r;
    size_t pos;
    if (!field && (pos = p.find(" notin ")) != std::string::npos) {
      r.key = trim(p.substr(0, pos));
      r.op = "notin";
      p = trim(p.substr(pos + 7));
    } else if (!field && (pos = p.find(" in ")) != std::string::npos) {
      r.key = trim(p.substr(0, pos));
      r.op = "in";
      p = trim(p.substr(pos + 4));
    } else if ((pos = p.find("!=")) != std::string::npos) {
      r.key = trim(p.substr(0, pos));
      r.op = "!=";
      r.values = {trim(p.substr(pos + 2))};
    } else if ((pos = p.find("==")) != std::string::npos) {
      r.key = trim(p.substr(0, pos));
      r.op = "=";
      r.values = {trim(p.substr(pos + 2))};
    } else if ((pos = p.find('=')) != std::string::npos) {
      r.key = trim(p.substr(0, pos));
      r.op = "=";
      r.values = {trim(p.substr(pos + 1))};
    } else if (!field && p[0] == '!') {
      r.key = trim(p.substr(1));
      r.op = "!";
    } else if (!field) {
      r.key = p;
      r.op = "exists";
    } else {
      error = "invalid selector: '" + text + "'; can't understand '" + p + "'";
      return sel;
    }
    if (r.op == "in" || r.op == "notin") {
      if (p.size() < 2 || p.front() != '(' || p.back() != ')') {
        error = "unable to parse requirement: found '" + p + "', expected: '('";
        return sel;
      }
      std::stringstream ss(p.substr(1, p.size() - 2));
      std::string v;
      while (std::getline(ss, v, ',')) r.values.push_back(trim(v));
    }
    if (r.key.empty()) {
      error = "unable to parse requirement: found '', expected: identifier";
      return sel;
    }
    sel.reqs.push_back(std::move(r));
  }
  return sel;
}

bool Selector::matches_labels(const json& labels) const {
  for (const auto& r : reqs) {
    bool has = labels.is_object() && labels.contains(r.key);
    std::string v = has && labels[r.key].is_string() ? labels[r.key].get<std::string>() : "";
    if (r.op == "exists" && !has) return false;
    if (r.op == "!" && has) return false;
    if (r.op == "=" && (!has || v != r.values[0])) return false;
    if (r.op == "!=" && has && v == r.values[0]) return false;
    if (r.op == "in" && (!has || std::find(r.values.begin(), r.values.end(), v) == r.values.end())) return false;
    if (r.op == "notin" && has && std::find(r.values.begin(), r.values.end(), v) != r.values.end()) return false;
  }
  return true;
}

bool Selector::matches_fields(const json& object) const {
  for (const auto& r : reqs) {
    const json* cur = &object;
    std::stringstream ss(r.key);
    std::string part;
    bool found = true;
    while (std::getline(ss, part, '.')) {
      if (!cur->is_object() || !cur->contains(part)) {
        found = false;
        break;
      }
      cur = &(*cur)[part];
    }
    std::string v;
    if (found) {
      if (cur->is_string()) v = cur->get<std::string>();
      else if (!cur->is_null()) v = cur->dump();
    }
    if (r.op == "=" && v != r.values[0]) return false;
    if (r.op == "!=" && v == r.values[0]) return false;
  }
  return true;
}

}  // namespace tfjob::test::fake
