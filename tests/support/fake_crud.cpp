// The fake API server's reads and writes: get, list (tables, paging, selectors), create,
// update, patch, server-side apply, delete and deletecollection, with the validation and
// defaults kube-apiserver applies on the way in.
#include <algorithm>
#include <sstream>

#include "support/fake_handler.hpp"

namespace tfjob::test::fake {

namespace {

bool is_dns_subdomain(const std::string& s) {
  if (s.empty() || s.size() > 253) return false;
  auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  std::stringstream ss(s);
  std::string label;
  size_t count = 0;
  while (std::getline(ss, label, '.')) {
    ++count;
    if (label.empty() || !alnum(label.front()) || !alnum(label.back())) return false;
    for (char c : label)
      if (!alnum(c) && c != '-') return false;
  }
  return count > 0 && s.back() != '.';
}

bool is_dns_label(const std::string& s) {
  return s.size() <= 63 && s.find('.') == std::string::npos && is_dns_subdomain(s);
}

/// Applies the defaults kube-apiserver would (abridged: what clients look at).
void default_builtin(const ResourceInfo& ri, json& obj, FakeApiServer::Impl& s) {
  if (ri.plural == "pods") {
    auto& spec = obj["spec"];
    if (!spec.contains("restartPolicy")) spec["restartPolicy"] = "Always";
    if (!spec.contains("schedulerName")) spec["schedulerName"] = "default-scheduler";
    if (!spec.contains("dnsPolicy")) spec["dnsPolicy"] = "ClusterFirst";
    if (!spec.contains("terminationGracePeriodSeconds")) spec["terminationGracePeriodSeconds"] = 30;
    for (auto& c : spec["containers"]) {
      if (!c.contains("imagePullPolicy")) {
        std::string img = c.value("image", "");
        bool latest = img.find(':') == std::string::npos || img.size() >= 7 && img.substr(img.size() - 7) == ":latest";
        c["imagePullPolicy"] = latest ? "Always" : "IfNotPresent";
      }
      if (!c.contains("terminationMessagePath")) c["terminationMessagePath"] = "/dev/termination-log";
      if (!c.contains("terminationMessagePolicy")) c["terminationMessagePolicy"] = "File";
    }
    obj["status"] = {{"phase", "Pending"}, {"qosClass", "BestEffort"}};
  } else if (ri.plural == "deployments") {
    auto& spec = obj["spec"];
    if (!spec.contains("replicas")) spec["replicas"] = 1;
    if (!spec.contains("revisionHistoryLimit")) spec["revisionHistoryLimit"] = 10;
    if (!spec.contains("progressDeadlineSeconds")) spec["progressDeadlineSeconds"] = 600;
    if (!spec.contains("strategy"))
      spec["strategy"] = {{"type", "RollingUpdate"}, {"rollingUpdate", {{"maxSurge", "25%"}, {"maxUnavailable", "25%"}}}};
  } else if (ri.plural == "services") {
    auto& spec = obj["spec"];
    if (!spec.contains("type")) spec["type"] = "ClusterIP";
    if (!spec.contains("sessionAffinity")) spec["sessionAffinity"] = "None";
    if (!spec.contains("clusterIP")) {
      std::lock_guard<std::mutex> lk(s.mu);
      ++s.ip_counter;
      spec["clusterIP"] = "10.96." + std::to_string((s.ip_counter / 250) % 250) + "." + std::to_string(s.ip_counter % 250 + 2);
    }
    if (spec["clusterIP"] != "None") spec["clusterIPs"] = json::array({spec["clusterIP"]});
    if (spec.contains("ports"))
      for (auto& p : spec["ports"]) {
        if (!p.contains("protocol")) p["protocol"] = "TCP";
        if (!p.contains("targetPort") && p.contains("port")) p["targetPort"] = p["port"];
      }
  } else if (ri.plural == "namespaces") {
    obj["status"] = {{"phase", "Active"}};
    obj["spec"] = {{"finalizers", {"kubernetes"}}};
  } else if (ri.plural == "persistentvolumeclaims") {
    if (!obj["spec"].contains("volumeMode")) obj["spec"]["volumeMode"] = "Filesystem";
    // the DefaultStorageClass admission plugin, when the cluster has a default class
    if (s.opts.provision_volumes && !obj["spec"].contains("storageClassName")) obj["spec"]["storageClassName"] = "standard";
    obj["status"] = {{"phase", "Pending"}};
  }
}

json strip_common(const json& other, const json& mine) {
  if (!other.is_object() || !mine.is_object()) return other;
  json out = json::object();
  for (auto it = other.begin(); it != other.end(); ++it) {
    if (!mine.contains(it.key())) out[it.key()] = it.value();
    else if (it.value().is_object() && mine[it.key()].is_object()) {
      json sub = strip_common(it.value(), mine[it.key()]);
      if (!sub.empty()) out[it.key()] = sub;
    }
  }
  return out;
}

void collect_conflicts(const json& mine, const json& other, const json& live, const std::string& path,
                       const std::string& mgr, std::vector<fake::Cause>& out) {
  if (!mine.is_object() || !other.is_object()) return;
  for (auto it = mine.begin(); it != mine.end(); ++it) {
    if (path.empty() && (it.key() == "apiVersion" || it.key() == "kind")) continue;
    if (path == ".metadata" && (it.key() == "name" || it.key() == "namespace")) continue;
    if (!other.contains(it.key())) continue;
    std::string p = path + "." + it.key();
    const json& o = other[it.key()];
    const json lv = live.is_object() && live.contains(it.key()) ? live[it.key()] : json();
    if (it.value().is_object() && o.is_object()) {
      collect_conflicts(it.value(), o, lv, p, mgr, out);
    } else if (it.value() != o && lv == o) {
      out.push_back({"FieldManagerConflict", "conflict with \"" + mgr + "\": " + p, p});
    }
  }
}

/// 409 when another manager applied a different value for a field this config sets
/// (`akey`: "rkey/ns/name/", the prefix of s.applied's keys for this object).
void check_apply_conflicts(FakeApiServer::Impl& s, const std::string& akey, const std::string& manager,
                           const json& applied, const json& current) {
  std::vector<fake::Cause> conflicts;
  std::lock_guard<std::mutex> lk(s.mu);
  for (const auto& [k, other] : s.applied) {
    if (k.rfind(akey, 0) != 0 || k == akey + manager) continue;
    std::string other_mgr = k.substr(akey.size());
    collect_conflicts(applied, other, current, "", other_mgr, conflicts);
  }
  if (!conflicts.empty()) {
    std::string msg = "Apply failed with " + std::to_string(conflicts.size()) + " conflict" + (conflicts.size() > 1 ? "s" : "") + ": ";
    for (size_t i = 0; i < conflicts.size(); ++i) msg += (i ? "\n" : "") + conflicts[i].message;
    // kube-apiserver's apply conflict Status names no object: its details hold the causes only
    json d = {{"causes", fake::causes_to_json(conflicts)}};
    throw ApiError{409, fake::status_failure(409, "Conflict", msg, d)};
  }
}

/// A list's continue token: base64.RawURLEncoding of {v, rv, start}, as kube-apiserver's.
std::string encode_continue(std::uint64_t list_rv, const std::string& start) {
  std::string tok = fake::base64_encode(json{{"v", "meta.k8s.io/v1"}, {"rv", list_rv}, {"start", start}}.dump());
  std::replace(tok.begin(), tok.end(), '+', '-');
  std::replace(tok.begin(), tok.end(), '/', '_');
  while (!tok.empty() && tok.back() == '=') tok.pop_back();
  return tok;
}

/// The continue token's JSON; 400 when it does not decode.
json decode_continue(const std::string& cont) {
  json tok;
  try {
    std::string b64 = cont;  // base64.RawURLEncoding, as kube-apiserver's tokens
    std::replace(b64.begin(), b64.end(), '-', '+');
    std::replace(b64.begin(), b64.end(), '_', '/');
    while (b64.size() % 4) b64 += '=';
    tok = json::parse(fake::base64_decode(b64));
  } catch (...) {
    throw fake::err_bad_request("continue key is not valid: illegal base64 data");
  }
  return tok;
}

}  // namespace

json Handler::read_body() const {
  if (req.body.empty()) throw fake::err_bad_request("the request body is empty");
  if (header(req, "Content-Type").find("protobuf") != std::string::npos)  // JSON only here
    throw fake::err_unsupported_media("the body of the request was in an unknown format - accepted media types include: "
                                      "application/json, application/yaml");
  try {
    return json::parse(req.body);
  } catch (const std::exception&) {
  }
  try {
    return fake::yaml_to_json(req.body);
  } catch (const std::exception& e) {
    throw fake::err_bad_request(std::string("the body of the request could not be decoded: ") + e.what());
  }
}

void Handler::check_namespace_exists(const Target& t) {
  if (!t.ri->namespaced || t.ns.empty()) return;
  const ResourceInfo* nsri = fake::find_resource("", "v1", "namespaces");
  std::lock_guard<std::mutex> lk(s.mu);
  if (!s.find_locked(*nsri, "", t.ns)) throw fake::err_not_found(*nsri, t.ns);
}

void Handler::do_get(const Target& t) {
  json obj;
  {
    std::lock_guard<std::mutex> lk(s.mu);
    json* o = s.find_locked(*t.ri, t.ns, t.name);
    if (!o) throw fake::err_not_found(*t.ri, t.name);
    obj = *o;
  }
  if (wants_table()) return send(200, fake::to_table(*t.ri, {obj}, json{{"resourceVersion", obj["metadata"]["resourceVersion"]}}));
  send(200, obj);
}

void Handler::do_list(const Target& t) {
  {
    fake::FaultRule rule;
    if (s.faults_impl.take(fake::FaultRule::gone, req.method, req.path, rule))
      throw fake::err_gone("The provided continue parameter is too old to display a consistent list result. "
                           "You can start a new list without the continue parameter.");
  }
  std::string err;
  auto lsel = fake::Selector::parse(param(req, "labelSelector"), false, err);
  if (!err.empty()) throw fake::err_bad_request("unable to parse requirement: " + err);
  auto fsel = fake::Selector::parse(param(req, "fieldSelector"), true, err);
  if (!err.empty()) throw fake::err_bad_request(err);
  long limit = 0;
  if (req.has_param("limit")) {
    try {
      limit = std::stol(param(req, "limit"));
    } catch (...) {
      throw fake::err_bad_request("invalid limit: " + param(req, "limit"));
    }
  }
  std::string start;
  std::uint64_t list_rv;
  std::vector<std::pair<std::string, json>> items;
  {
    std::lock_guard<std::mutex> lk(s.mu);
    list_rv = s.rv;
    std::string cont = param(req, "continue");
    if (!cont.empty()) {
      json tok = decode_continue(cont);
      start = tok.value("start", "");
      std::uint64_t trv = tok.value("rv", std::uint64_t{0});
      if (trv < s.compacted_rv)
        throw fake::err_gone("The provided continue parameter is too old to display a consistent list result. You "
                             "can start a new list without the continue parameter, or use the continue token in "
                             "this response to retrieve the remainder of the results. Continuing with the provided "
                             "token results in an inconsistent list - objects that were created, modified, or "
                             "deleted between the time the first chunk was returned and now may show up in the list.");
      list_rv = trv;
    }
    auto it = s.objects.find(t.ri->key());
    if (it != s.objects.end()) {
      for (const auto& [k, v] : it->second) {
        if (!start.empty() && k <= start) continue;
        if (t.ri->namespaced && !t.ns.empty() && v["metadata"].value("namespace", "") != t.ns) continue;
        if (!lsel.matches_labels(v["metadata"].value("labels", json::object()))) continue;
        if (!fsel.matches_fields(v)) continue;
        items.emplace_back(k, v);
      }
    }
  }
  json meta = {{"resourceVersion", std::to_string(list_rv)}};
  if (limit > 0 && static_cast<size_t>(limit) < items.size()) {
    meta["continue"] = encode_continue(list_rv, items[limit - 1].first);
    if (param(req, "labelSelector").empty() && param(req, "fieldSelector").empty())
      meta["remainingItemCount"] = items.size() - static_cast<size_t>(limit);
    items.resize(static_cast<size_t>(limit));
  }
  std::vector<json> objs;
  objs.reserve(items.size());
  for (auto& [k, v] : items) objs.push_back(std::move(v));
  if (wants_table()) return send(200, fake::to_table(*t.ri, objs, meta));
  json list = {{"kind", t.ri->kind + "List"}, {"apiVersion", t.ri->api_version()}, {"metadata", meta}};
  json arr = json::array();
  for (auto& o : objs) {
    if (t.ri->builtin) {  // typed lists omit each item's kind and apiVersion
      o.erase("kind");
      o.erase("apiVersion");
    }
    arr.push_back(std::move(o));
  }
  list["items"] = std::move(arr);
  send(200, list);
}

std::vector<fake::Cause> Handler::validate_meta(const ResourceInfo& ri, const json& obj) {
  std::vector<fake::Cause> causes;
  const json& md = obj.value("metadata", json::object());
  std::string name = md.value("name", "");
  if (name.empty() && md.value("generateName", "").empty()) {
    causes.push_back({"FieldValueRequired", "Required value: name or generateName is required", "metadata.name"});
  } else if (!name.empty()) {
    bool ok = (ri.plural == "namespaces" || ri.plural == "services") ? is_dns_label(name) : is_dns_subdomain(name);
    if (!ok) {
      std::string rule = (ri.plural == "namespaces" || ri.plural == "services")
                             ? "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
                             : "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
      causes.push_back({"FieldValueInvalid", "Invalid value: \"" + name + "\": " + rule, "metadata.name"});
    }
  }
  return causes;
}

// Pruning, defaulting and schema validation for TFJobs (as apiextensions does, in
// that order); minimal checks for builtins.
void Handler::validate_object(const ResourceInfo& ri, json& obj) {
  if (ri.plural == "tfjobs" && s.tfjob_schema.loaded()) {
    auto unknown = s.tfjob_schema.prune(obj);
    // fieldValidation (kube-apiserver >= 1.25 on by default, GA in 1.27): Strict refuses
    // unknown fields, Warn (the default) says each in a Warning header, Ignore drops them
    // silently; the fake plays a server that knows the parameter (1.20 ignores it, tests/realapi)
    std::string fv = param(req, "fieldValidation");
    if (!unknown.empty()) {
      if (fv == "Strict") {
        std::string msg = ri.kind + " in version \"" + ri.version + "\" cannot be handled as a " + ri.kind + ": strict decoding error: ";
        for (size_t i = 0; i < unknown.size(); ++i) msg += (i ? ", " : "") + std::string("unknown field \"") + unknown[i] + "\"";
        throw fake::err_bad_request(msg);
      }
      if (fv != "Ignore")
        for (const auto& u : unknown) res.set_header("Warning", "299 - \"unknown field \\\"" + u + "\\\"\"");
    }
    s.tfjob_schema.apply_defaults(obj);
  }
  auto causes = validate_meta(ri, obj);
  std::string name = obj["metadata"].value("name", obj["metadata"].value("generateName", ""));
  if (ri.plural == "tfjobs" && s.tfjob_schema.loaded()) {
    auto more = s.tfjob_schema.validate(obj);
    causes.insert(causes.end(), more.begin(), more.end());
  }
  if (ri.plural == "pods") {
    const json& cs = obj["spec"].value("containers", json::array());
    if (cs.empty()) causes.push_back({"FieldValueRequired", "Required value", "spec.containers"});
    for (size_t i = 0; i < cs.size(); ++i)
      if (cs[i].value("image", "").empty())
        causes.push_back({"FieldValueRequired", "Required value", "spec.containers[" + std::to_string(i) + "].image"});
  }
  if (ri.plural == "deployments") {
    const json& tl = obj["spec"]["template"]["metadata"].value("labels", json::object());
    const json& ml = obj["spec"]["selector"].value("matchLabels", json::object());
    bool match = !ml.empty();
    for (auto it = ml.begin(); it != ml.end(); ++it)
      if (!tl.contains(it.key()) || tl[it.key()] != it.value()) match = false;
    if (!match)
      causes.push_back({"FieldValueInvalid", "Invalid value: " + tl.dump() + ": `selector` does not match template `labels`",
                        "spec.template.metadata.labels"});
  }
  if (!causes.empty()) throw fake::err_invalid(ri, name, fake::causes_to_json(causes));
}

void Handler::check_kind(const Target& t, const json& obj) {
  if (!obj.is_object()) throw fake::err_bad_request("the body of the request was not a JSON object");
  std::string av = obj.value("apiVersion", ""), kind = obj.value("kind", "");
  if ((!av.empty() && av != t.ri->api_version()) || (!kind.empty() && kind != t.ri->kind))
    throw fake::err_bad_request("the API version in the data (" + av + ") does not match the expected API version (" +
                                t.ri->api_version() + ")");
  std::string ons = obj.contains("metadata") ? obj["metadata"].value("namespace", "") : "";
  if (t.ri->namespaced && !ons.empty() && ons != t.ns)
    throw fake::err_bad_request("the namespace of the provided object does not match the namespace sent on the request");
}

bool Handler::dry_run() const { return req.has_param("dryRun"); }

std::string Handler::update_manager() const {
  std::string m = param(req, "fieldManager");
  return m.empty() ? fake::manager_from_user_agent(header(req, "User-Agent")) : m;
}

void Handler::do_create(const Target& t) {
  if (!t.sub.empty()) throw fake::err_method_not_allowed("the server does not allow this method on the requested resource");
  json obj = read_body();
  check_kind(t, obj);
  check_namespace_exists(t);
  if (t.ri->namespaced) obj["metadata"]["namespace"] = t.ns;
  validate_object(*t.ri, obj);
  if (t.ri->has_status && t.ri->plural != "namespaces") obj.erase("status");
  default_builtin(*t.ri, obj, s);
  std::lock_guard<std::mutex> lk(s.mu);
  std::string name = obj["metadata"].value("name", "");
  if (!name.empty() && s.find_locked(*t.ri, t.ns, name)) throw fake::err_already_exists(*t.ri, name);
  fake::record_managed_fields(obj, json(), update_manager(), "Update", json(), false, t.ri->api_version());
  if (dry_run()) {
    obj["metadata"]["uid"] = fake::new_uid();
    obj["metadata"]["creationTimestamp"] = fake::now_rfc3339();
    if (t.ri->has_generation) obj["metadata"]["generation"] = 1;
    obj["apiVersion"] = t.ri->api_version();
    obj["kind"] = t.ri->kind;
    return send(201, obj);
  }
  send(201, s.create_locked(*t.ri, obj));
}

void Handler::check_rv(const Target& t, const json& incoming, const json& current) {
  std::string want = incoming.contains("metadata") ? incoming["metadata"].value("resourceVersion", "") : "";
  if (!want.empty() && want != current["metadata"].value("resourceVersion", ""))
    throw fake::err_conflict(*t.ri, t.name, "the object has been modified; please apply your changes to the latest version and try again");
}

void Handler::do_update(const Target& t) {
  json obj = read_body();
  check_kind(t, obj);
  if (obj["metadata"].value("name", "") != t.name)
    throw fake::err_bad_request("the name of the object (" + obj["metadata"].value("name", "") +
                                ") does not match the name on the URL (" + t.name + ")");
  if (t.ri->namespaced) obj["metadata"]["namespace"] = t.ns;
  bool status_write = t.sub == "status";
  if (!status_write) validate_object(*t.ri, obj);
  std::lock_guard<std::mutex> lk(s.mu);
  json* cur = s.find_locked(*t.ri, t.ns, t.name);
  if (!cur) throw fake::err_not_found(*t.ri, t.name);
  check_rv(t, obj, *cur);
  fake::record_managed_fields(obj, *cur, update_manager(), "Update", json(), false, t.ri->api_version(),
                              status_write ? "status" : "");
  if (dry_run()) return send(200, obj);
  send(200, s.update_locked(*t.ri, obj, status_write));
}

void Handler::do_patch(const Target& t) {
  std::string ct = header(req, "Content-Type");
  ct = ct.substr(0, ct.find(';'));
  bool status_write = t.sub == "status";
  if (ct == "application/apply-patch+yaml") return do_apply(t);
  json patch = read_body();
  json current;
  {
    std::lock_guard<std::mutex> lk(s.mu);
    json* cur = s.find_locked(*t.ri, t.ns, t.name);
    if (!cur) throw fake::err_not_found(*t.ri, t.name);
    current = *cur;
  }
  json patched;
  try {
    if (ct == "application/merge-patch+json") {
      patched = fake::apply_merge_patch(current, patch);
    } else if (ct == "application/json-patch+json") {
      patched = current.patch(patch);
    } else if (ct == "application/strategic-merge-patch+json") {
      if (!t.ri->builtin)
        throw fake::err_unsupported_media(
            "the body of the request was in an unknown format - accepted media types include: "
            "application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml");
      patched = fake::apply_strategic_merge_patch(current, patch);
    } else {
      throw fake::err_unsupported_media(
          "the body of the request was in an unknown format - accepted media types include: "
          "application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml" +
          std::string(t.ri->builtin ? ", application/strategic-merge-patch+json" : ""));
    }
  } catch (const ApiError&) {
    throw;
  } catch (const std::exception& e) {
    throw ApiError{422, fake::status_failure(422, "Invalid", std::string("the server rejected our request due to an error in our request: ") + e.what())};
  }
  if (!patched.is_object()) throw fake::err_bad_request("the patch did not produce an object");
  if (patched["metadata"].value("name", "") != t.name)
    throw fake::err_bad_request("metadata.name: Invalid value: the name may not be changed by a patch");
  if (patch.is_object() && patch.contains("metadata")) check_rv(t, patch, current);
  if (!status_write) validate_object(*t.ri, patched);
  std::lock_guard<std::mutex> lk(s.mu);
  json* cur = s.find_locked(*t.ri, t.ns, t.name);
  if (!cur) throw fake::err_not_found(*t.ri, t.name);
  if ((*cur)["metadata"]["resourceVersion"] != current["metadata"]["resourceVersion"]) {
    // changed meanwhile: re-apply like the server's retry loop would
    current = *cur;
    if (ct == "application/merge-patch+json") patched = fake::apply_merge_patch(current, patch);
    else if (ct == "application/json-patch+json") patched = current.patch(patch);
    else patched = fake::apply_strategic_merge_patch(current, patch);
  }
  patched["metadata"]["resourceVersion"] = (*cur)["metadata"]["resourceVersion"];
  fake::record_managed_fields(patched, *cur, update_manager(), "Update", json(), false, t.ri->api_version(),
                              status_write ? "status" : "");
  if (dry_run()) return send(200, patched);
  send(200, s.update_locked(*t.ri, patched, status_write));
}

void Handler::do_apply(const Target& t) {
  std::string manager = param(req, "fieldManager");
  if (manager.empty())
    throw ApiError{422, fake::status_failure(422, "Invalid",
                                             "PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Required value: is required for apply patch",
                                             {{"group", "meta.k8s.io"}, {"kind", "PatchOptions"},
                                              {"causes", {{{"reason", "FieldValueRequired"}, {"message", "Required value: is required for apply patch"},
                                                           {"field", "fieldManager"}}}}})};
  json applied = read_body();
  if (!applied.is_object()) throw fake::err_bad_request("the applied configuration is not an object");
  if (applied.value("apiVersion", "").empty() || applied.value("kind", "").empty())
    throw fake::err_bad_request("apiVersion and kind must be set in the applied configuration");
  check_kind(t, applied);
  if (applied["metadata"].value("name", "") != t.name)
    throw fake::err_bad_request("the name of the object (" + applied["metadata"].value("name", "") +
                                ") does not match the name on the URL (" + t.name + ")");
  bool force = truthy(param(req, "force"));
  std::string akey = t.ri->key() + "/" + t.ns + "/" + t.name + "/";
  json current;
  bool exists;
  {
    std::lock_guard<std::mutex> lk(s.mu);
    json* cur = s.find_locked(*t.ri, t.ns, t.name);
    exists = cur != nullptr;
    if (cur) current = *cur;
  }
  if (!exists) {
    check_namespace_exists(t);
    json obj = applied;
    if (t.ri->namespaced) obj["metadata"]["namespace"] = t.ns;
    validate_object(*t.ri, obj);
    if (t.ri->has_status && t.sub != "status") obj.erase("status");
    default_builtin(*t.ri, obj, s);
    std::lock_guard<std::mutex> lk(s.mu);
    if (s.find_locked(*t.ri, t.ns, t.name)) throw fake::err_conflict(*t.ri, t.name, "the object was created meanwhile");
    fake::record_managed_fields(obj, json(), manager, "Apply", applied, force, t.ri->api_version(),
                                t.sub == "status" ? "status" : "");
    if (dry_run()) return send(201, obj);
    s.applied[akey + manager] = applied;
    return send(201, s.create_locked(*t.ri, obj));
  }
  if (!force) check_apply_conflicts(s, akey, manager, applied, current);
  json prev;
  {
    std::lock_guard<std::mutex> lk(s.mu);
    auto it = s.applied.find(akey + manager);
    if (it != s.applied.end()) prev = it->second;
  }
  json merged = fake::apply_server_side(current, applied, prev);
  if (t.ri->namespaced) merged["metadata"]["namespace"] = t.ns;
  bool status_write = t.sub == "status";
  if (!status_write) validate_object(*t.ri, merged);
  std::lock_guard<std::mutex> lk(s.mu);
  json* cur = s.find_locked(*t.ri, t.ns, t.name);
  if (!cur) throw fake::err_not_found(*t.ri, t.name);
  merged["metadata"]["resourceVersion"] = (*cur)["metadata"]["resourceVersion"];
  fake::record_managed_fields(merged, *cur, manager, "Apply", applied, force, t.ri->api_version(),
                              status_write ? "status" : "");
  if (dry_run()) return send(200, merged);
  s.applied[akey + manager] = applied;
  if (force)  // forced fields now belong to this manager: drop them from the others' configs
    for (auto& [k, other] : s.applied)
      if (k.rfind(akey, 0) == 0 && k != akey + manager) other = strip_common(other, applied);
  send(200, s.update_locked(*t.ri, merged, status_write));
}

void Handler::do_delete(const Target& t) {
  std::string propagation = param(req, "propagationPolicy");
  json precond;
  bool dry = dry_run();
  if (!req.body.empty()) {
    try {
      json opts = json::parse(req.body);
      // kubectl delete --dry-run=server says it in the body's DeleteOptions, not the query
      if (auto d = opts.find("dryRun"); d != opts.end() && d->is_array() && !d->empty()) dry = true;
      if (propagation.empty()) propagation = opts.value("propagationPolicy", "");
      if (opts.contains("preconditions")) precond = opts["preconditions"];
      if (propagation.empty() && opts.contains("orphanDependents") && opts["orphanDependents"] == true) propagation = "Orphan";
    } catch (const std::exception&) {
      throw fake::err_bad_request("the body of the DELETE request is not valid DeleteOptions JSON");
    }
  }
  if (propagation.empty()) propagation = "Background";
  if (propagation != "Background" && propagation != "Foreground" && propagation != "Orphan")
    throw ApiError{422, fake::status_failure(422, "Invalid", "DeleteOptions.meta.k8s.io \"\" is invalid: propagationPolicy: Unsupported value: \"" + propagation +
                                                                 "\": supported values: \"Foreground\", \"Background\", \"Orphan\", \"nil\"",
                                         {{"group", "meta.k8s.io"}, {"kind", "DeleteOptions"},
                                          {"causes", {{{"reason", "FieldValueNotSupported"},
                                                       {"message", "Unsupported value: \"" + propagation + "\""},
                                                       {"field", "propagationPolicy"}}}}})};
  std::lock_guard<std::mutex> lk(s.mu);
  json* cur = s.find_locked(*t.ri, t.ns, t.name);
  if (!cur) throw fake::err_not_found(*t.ri, t.name);
  if (precond.is_object()) {
    if (precond.contains("uid") && precond["uid"] != (*cur)["metadata"]["uid"])
      throw fake::err_conflict(*t.ri, t.name, "Precondition failed: UID in precondition: " + precond["uid"].get<std::string>() +
                                                  ", UID in object meta: " + (*cur)["metadata"].value("uid", ""));
    if (precond.contains("resourceVersion") && precond["resourceVersion"] != (*cur)["metadata"]["resourceVersion"])
      throw fake::err_conflict(*t.ri, t.name, "Precondition failed: ResourceVersion in precondition: " +
                                                  precond["resourceVersion"].get<std::string>() + ", ResourceVersion in object meta: " +
                                                  (*cur)["metadata"].value("resourceVersion", ""));
  }
  if (dry) return send(200, *cur);
  json gone = s.remove_locked(*t.ri, t.ns, t.name, propagation);
  // kube-apiserver answers with the object while it still exists (graceful pod deletion;
  // Foreground/Orphan: deletionTimestamp and the finalizer set, generation bumped, removed
  // later by the garbage collector, here at once), else with a Success Status naming it.
  if (propagation == "Foreground" || propagation == "Orphan") {
    auto& md = gone["metadata"];
    md["deletionTimestamp"] = fake::now_rfc3339();
    md["deletionGracePeriodSeconds"] = 0;
    md["finalizers"] = json::array({propagation == "Foreground" ? "foregroundDeletion" : "orphan"});
    if (t.ri->has_generation) md["generation"] = md.value("generation", 0) + 1;
    return send(200, gone);
  }
  if (t.ri->plural == "pods" || t.ri->plural == "namespaces") return send(200, gone);
  json d = {{"name", t.name}, {"kind", t.ri->plural}, {"uid", gone["metadata"].value("uid", "")}};
  if (!t.ri->group.empty()) d["group"] = t.ri->group;
  send(200, fake::status_success(d));
}

void Handler::do_delete_collection(const Target& t) {
  std::string err;
  auto lsel = fake::Selector::parse(param(req, "labelSelector"), false, err);
  if (!err.empty()) throw fake::err_bad_request(err);
  std::lock_guard<std::mutex> lk(s.mu);
  json arr = json::array();
  for (const auto& o : s.list_locked(*t.ri, t.ns)) {
    if (!lsel.matches_labels(o["metadata"].value("labels", json::object()))) continue;
    const std::string n = o["metadata"]["name"];
    if (s.find_locked(*t.ri, o["metadata"].value("namespace", ""), n))
      arr.push_back(s.remove_locked(*t.ri, o["metadata"].value("namespace", ""), n, "Background"));
  }
  send(200, json{{"kind", t.ri->kind + "List"}, {"apiVersion", t.ri->api_version()},
                 {"metadata", {{"resourceVersion", std::to_string(s.rv)}}}, {"items", arr}});
}

}  // namespace tfjob::test::fake
