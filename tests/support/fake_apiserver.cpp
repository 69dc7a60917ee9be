// The fake API server: TLS, auth, routing, the store, CRUD, list, watch, logs, proxy.
#include "support/fake_apiserver.hpp"

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <poll.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <list>
#include <sstream>

#include "support/fake_server_impl.hpp"
#include "support/paths.hpp"

namespace tfjob::test {

using fake::ApiError;
using fake::json;
using fake::ResourceInfo;

namespace {

/// One thread per connection: watches and followed logs hold their connection for long.
class ThreadPerTask : public httplib::TaskQueue {
 public:
  void enqueue(std::function<void()> fn) override {
    std::lock_guard<std::mutex> lk(mu_);
    reap_locked();
    auto done = std::make_shared<std::atomic<bool>>(false);
    threads_.push_back({std::thread([fn = std::move(fn), done] {
                          fn();
                          done->store(true);
                        }),
                        done});
  }
  void shutdown() override {
    std::list<Entry> all;
    {
      std::lock_guard<std::mutex> lk(mu_);
      all.swap(threads_);
    }
    for (auto& e : all) e.t.join();
  }

 private:
  struct Entry {
    std::thread t;
    std::shared_ptr<std::atomic<bool>> done;
  };
  void reap_locked() {
    for (auto it = threads_.begin(); it != threads_.end();) {
      if (it->done->load()) {
        it->t.join();
        it = threads_.erase(it);
      } else {
        ++it;
      }
    }
  }
  std::mutex mu_;
  std::list<Entry> threads_;
};

std::string random_token(const std::string& prefix) {
  std::string u = fake::new_uid();
  u.erase(std::remove(u.begin(), u.end(), '-'), u.end());
  return prefix + u;
}

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

/// What a request is about, parsed from its path.
struct Target {
  const ResourceInfo* ri = nullptr;
  std::string ns, name, sub, rest;  ///< rest: what follows the subresource (proxy path)
  bool watch_prefix = false;
};

std::string header(const httplib::Request& req, const char* key) {
  return req.has_header(key) ? req.get_header_value(key) : std::string();
}

std::string param(const httplib::Request& req, const char* key) {
  return req.has_param(key) ? req.get_param_value(key) : std::string();
}

bool truthy(const std::string& v) { return v == "true" || v == "1" || v == "True"; }

/// Is the peer gone? (checked while a stream idles; a client never sends during a stream)
bool peer_gone(const httplib::Request& req) {
  if (!req.ssl) return false;
  int fd = SSL_get_fd(const_cast<SSL*>(req.ssl));
  if (fd < 0) return false;
  struct pollfd p{fd, static_cast<short>(POLLIN | POLLRDHUP), 0};
  if (::poll(&p, 1, 0) <= 0) return false;
  return (p.revents & (POLLIN | POLLRDHUP | POLLHUP | POLLERR)) != 0;
}

std::string strip_ws(std::string s) {
  s.erase(std::remove_if(s.begin(), s.end(), [](char c) { return c == ' '; }), s.end());
  return s;
}

}  // namespace

// ---- Faults ------------------------------------------------------------------------

bool Faults::Impl::take(fake::FaultRule::Kind kind, const std::string& method, const std::string& path,
                        fake::FaultRule& out, const std::string& query) {
  std::lock_guard<std::mutex> lk(mu);
  for (auto it = rules.begin(); it != rules.end(); ++it) {
    if (it->kind != kind) continue;
    if (!it->path.empty() && path.find(it->path) == std::string::npos) continue;
    if (!it->method.empty() && it->method != method) continue;
    if (!it->query.empty() && query.find(it->query) == std::string::npos) continue;
    out = *it;
    if (--it->count <= 0) rules.erase(it);
    ++fired;
    return true;
  }
  return false;
}

void Faults::fail_next(int status, int count, const std::string& path, const std::string& method) {
  fake::FaultRule r;
  r.kind = fake::FaultRule::fail;
  r.status = status;
  r.count = count;
  r.path = path;
  r.method = method;
  std::lock_guard<std::mutex> lk(impl_->mu);
  impl_->rules.push_back(r);
}

void Faults::throttle_next(int retry_after_seconds, int count, const std::string& path) {
  fake::FaultRule r;
  r.kind = fake::FaultRule::fail;
  r.status = 429;
  r.retry_after = retry_after_seconds;
  r.count = count;
  r.path = path;
  std::lock_guard<std::mutex> lk(impl_->mu);
  impl_->rules.push_back(r);
}

void Faults::unavailable_next(int count, const std::string& path) { fail_next(503, count, path); }

void Faults::gone_next(int count, const std::string& path) {
  fake::FaultRule r;
  r.kind = fake::FaultRule::gone;
  r.count = count;
  r.path = path;
  std::lock_guard<std::mutex> lk(impl_->mu);
  impl_->rules.push_back(r);
}

void Faults::drop_watch_after(int events, int count, bool abrupt) {
  fake::FaultRule r;
  r.kind = fake::FaultRule::drop_watch;
  r.events = events;
  r.count = count;
  r.abrupt = abrupt;
  std::lock_guard<std::mutex> lk(impl_->mu);
  impl_->rules.push_back(r);
}

void Faults::cut_body_after(std::size_t bytes, int count, const std::string& path) {
  fake::FaultRule r;
  r.kind = fake::FaultRule::cut;
  r.bytes = bytes;
  r.count = count;
  r.path = path;
  std::lock_guard<std::mutex> lk(impl_->mu);
  impl_->rules.push_back(r);
}

void Faults::stall_next(std::chrono::milliseconds delay, int count, const std::string& path) {
  fake::FaultRule r;
  r.kind = fake::FaultRule::stall;
  r.delay = delay;
  r.count = count;
  r.path = path;
  std::lock_guard<std::mutex> lk(impl_->mu);
  impl_->rules.push_back(r);
}

void Faults::answer_next(int status, const std::string& body, int count, const std::string& path,
                         const std::string& query, const std::string& method, const std::string& content_type) {
  fake::FaultRule r;
  r.kind = fake::FaultRule::raw;
  r.status = status;
  r.body = body;
  r.count = count;
  r.path = path;
  r.query = query;
  r.method = method;
  r.content_type = content_type;
  std::lock_guard<std::mutex> lk(impl_->mu);
  impl_->rules.push_back(r);
}

void Faults::compact_history() {
  auto* s = impl_->server;
  std::lock_guard<std::mutex> lk(s->mu);
  s->history.clear();
  s->compacted_rv = ++s->rv;  // a fresh rv nobody has seen: every older watch start is too old
  s->cv.notify_all();
}

void Faults::clear() {
  std::lock_guard<std::mutex> lk(impl_->mu);
  impl_->rules.clear();
}

std::size_t Faults::fired() const {
  std::lock_guard<std::mutex> lk(impl_->mu);
  return impl_->fired;
}

// ---- the store ---------------------------------------------------------------------

json* FakeApiServer::Impl::find_locked(const ResourceInfo& ri, const std::string& ns, const std::string& name) {
  auto& m = objects[ri.key()];
  auto it = m.find(okey(ri.namespaced ? ns : "", name));
  return it == m.end() ? nullptr : &it->second;
}

std::vector<json> FakeApiServer::Impl::list_locked(const ResourceInfo& ri, const std::string& ns) const {
  std::vector<json> out;
  auto it = objects.find(ri.key());
  if (it == objects.end()) return out;
  for (const auto& [k, v] : it->second)
    if (ns.empty() || !ri.namespaced || v["metadata"].value("namespace", "") == ns) out.push_back(v);
  return out;
}

void FakeApiServer::Impl::emit_locked(const std::string& type, const ResourceInfo& ri, const json& obj) {
  fake::Event e{rv, type, ri.key(), obj["metadata"].value("namespace", ""), obj};
  history.push_back(std::move(e));
  while (history.size() > opts.watch_history) {
    compacted_rv = history.front().rv;
    history.pop_front();
  }
  cv.notify_all();
}

json FakeApiServer::Impl::create_locked(const ResourceInfo& ri, json obj) {
  auto& md = obj["metadata"];
  if (!md.contains("name") || md["name"].get<std::string>().empty()) {
    std::string base = md.value("generateName", "");
    std::string name;
    do {
      std::string u = fake::new_uid();
      name = base + u.substr(0, 5);
    } while (find_locked(ri, md.value("namespace", ""), name));
    md["name"] = name;
  }
  if (!ri.namespaced) md.erase("namespace");
  md["uid"] = fake::new_uid();
  md["resourceVersion"] = std::to_string(++rv);
  md["creationTimestamp"] = fake::now_rfc3339();
  md.erase("deletionTimestamp");
  if (ri.has_generation) md["generation"] = 1;
  else md.erase("generation");
  obj["apiVersion"] = ri.api_version();
  obj["kind"] = ri.kind;
  objects[ri.key()][okey(md.value("namespace", ""), md["name"].get<std::string>())] = obj;
  emit_locked("ADDED", ri, obj);
  return obj;
}

static json without_volatile(json o) {
  o["metadata"].erase("resourceVersion");
  if (o["metadata"].contains("managedFields") && o["metadata"]["managedFields"].is_array())
    for (auto& e : o["metadata"]["managedFields"]) e.erase("time");
  return o;
}

json FakeApiServer::Impl::update_locked(const ResourceInfo& ri, json obj, bool status_write) {
  const std::string ns = obj["metadata"].value("namespace", "");
  const std::string name = obj["metadata"].value("name", "");
  json* cur = find_locked(ri, ns, name);
  if (!cur) throw fake::err_not_found(ri, name);
  json old = *cur;
  json& md = obj["metadata"];
  for (const char* k : {"uid", "creationTimestamp", "generation", "deletionTimestamp"}) {
    if (old["metadata"].contains(k)) md[k] = old["metadata"][k];
    else md.erase(k);
  }
  if (!ri.namespaced) md.erase("namespace");
  obj["apiVersion"] = ri.api_version();
  obj["kind"] = ri.kind;
  if (ri.has_status) {
    if (status_write) {
      json keep = old;  // a status write changes only status (and who manages it)
      if (obj.contains("status")) keep["status"] = obj["status"];
      else keep.erase("status");
      if (obj["metadata"].contains("managedFields")) keep["metadata"]["managedFields"] = obj["metadata"]["managedFields"];
      obj = keep;
    } else if (old.contains("status")) {
      obj["status"] = old["status"];
    } else {
      obj.erase("status");
    }
  }
  if (without_volatile(obj) == without_volatile(old)) return old;  // a no-op write keeps its rv
  if (ri.has_generation) {
    auto spec_of = [](json o) {
      o.erase("metadata");
      o.erase("status");
      return o;
    };
    if (spec_of(obj) != spec_of(old)) obj["metadata"]["generation"] = old["metadata"].value("generation", 0) + 1;
  }
  obj["metadata"]["resourceVersion"] = std::to_string(++rv);
  *cur = obj;
  emit_locked("MODIFIED", ri, obj);
  return obj;
}

json FakeApiServer::Impl::remove_locked(const ResourceInfo& ri, const std::string& ns, const std::string& name,
                                        const std::string& propagation) {
  auto& m = objects[ri.key()];
  auto it = m.find(okey(ri.namespaced ? ns : "", name));
  if (it == m.end()) throw fake::err_not_found(ri, name);
  json obj = it->second;
  m.erase(it);
  const std::string uid = obj["metadata"].value("uid", "");
  obj["metadata"]["resourceVersion"] = std::to_string(++rv);
  emit_locked("DELETED", ri, obj);
  // the garbage collector: dependents go too (Background/Foreground), or lose the owner (Orphan)
  for (const auto& r : fake::resources()) {
    std::vector<std::pair<std::string, std::string>> doomed;
    for (auto& [k, o] : objects[r.key()]) {
      const auto& refs = o["metadata"].value("ownerReferences", json::array());
      bool owned = std::any_of(refs.begin(), refs.end(), [&](const json& ref) { return ref.value("uid", "") == uid; });
      if (!owned) continue;
      if (propagation == "Orphan") {
        json upd = o;
        json kept = json::array();
        for (const auto& ref : refs)
          if (ref.value("uid", "") != uid) kept.push_back(ref);
        upd["metadata"]["ownerReferences"] = kept;
        if (kept.empty()) upd["metadata"].erase("ownerReferences");
        upd["metadata"]["resourceVersion"] = std::to_string(++rv);
        o = upd;
        emit_locked("MODIFIED", r, o);
      } else {
        doomed.emplace_back(o["metadata"].value("namespace", ""), o["metadata"].value("name", ""));
      }
    }
    for (const auto& [dns, dname] : doomed) {
      if (find_locked(r, dns, dname)) remove_locked(r, dns, dname, "Background");
    }
  }
  if (ri.plural == "namespaces") {  // the namespace controller: everything inside goes
    for (const auto& r : fake::resources()) {
      if (!r.namespaced) continue;
      for (const auto& o : list_locked(r, name))
        if (find_locked(r, name, o["metadata"]["name"])) remove_locked(r, name, o["metadata"]["name"], "Background");
    }
  }
  return obj;
}

std::string FakeApiServer::Impl::pod_ip_locked() {
  ++ip_counter;
  return "10.244." + std::to_string((ip_counter / 250) % 250) + "." + std::to_string(ip_counter % 250 + 2);
}

// ---- request handling --------------------------------------------------------------

namespace {

struct Caller {
  std::string user;
  bool admin = false;
  bool anonymous = false;
  std::vector<std::string> namespaces;  ///< limited users
};

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

}  // namespace

struct Handler {
  FakeApiServer::Impl& s;
  const httplib::Request& req;
  httplib::Response& res;
  RecordedRequest rec;
  Caller caller;

  void send(int code, const json& body) {
    res.status = code;
    res.set_content(body.dump(), "application/json");
    rec.status = code;
  }
  void send_error(const ApiError& e) { send(e.code, e.status); }

  json read_body() const {
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

  // -- auth ---------------------------------------------------------------------------
  /// kube-apiserver's authenticators: a client certificate (verified against the client CA
  /// here, not in the handshake), else a bearer token, else the anonymous user. A presented
  /// certificate that does not verify and no valid token is 401 (the x509 authenticator's
  /// error fails the request before anonymous is tried); no credentials at all is
  /// system:anonymous, whom RBAC then refuses (403).
  bool authenticate() {
    std::string auth = header(req, "Authorization");
    bool bad_cert = false;
    if (req.ssl) {
      X509* peer = SSL_get0_peer_certificate(req.ssl);
      if (peer && SSL_get_verify_result(req.ssl) != X509_V_OK) {
        bad_cert = true;
        peer = nullptr;
      }
      if (peer) {
        X509_NAME* subj = X509_get_subject_name(peer);
        char cn[256] = {0};
        X509_NAME_get_text_by_NID(subj, NID_commonName, cn, sizeof cn);
        caller.user = cn;
        int idx = -1;
        while ((idx = X509_NAME_get_index_by_NID(subj, NID_organizationName, idx)) >= 0) {
          ASN1_STRING* d = X509_NAME_ENTRY_get_data(X509_NAME_get_entry(subj, idx));
          std::string org(reinterpret_cast<const char*>(ASN1_STRING_get0_data(d)), static_cast<size_t>(ASN1_STRING_length(d)));
          if (org == "system:masters") caller.admin = true;
        }
        return true;
      }
    }
    if (auth.size() > 7 && (auth.compare(0, 7, "Bearer ") == 0 || auth.compare(0, 7, "bearer ") == 0)) {
      std::string tok = auth.substr(7);
      while (!tok.empty() && tok.back() == ' ') tok.pop_back();
      std::lock_guard<std::mutex> lk(s.mu);  // add_token() may run meanwhile
      auto it = s.tokens.find(tok);
      if (it != s.tokens.end()) {
        caller.user = it->second.user;
        caller.admin = it->second.namespaces.empty();
        caller.namespaces = it->second.namespaces;
        return true;
      }
      return false;  // a token that is not valid: 401
    }
    if (bad_cert) return false;
    caller.user = "system:anonymous";
    caller.anonymous = true;
    return true;
  }

  /// What system:anonymous may read without RBAC (the system:public-info-viewer role).
  void authorize_anonymous_path() {
    if (!caller.anonymous) return;
    const std::string& p = req.path;
    if (p == "/version" || p == "/version/" || p == "/healthz" || p == "/readyz" || p == "/livez") return;
    if (p.rfind("/api/", 0) == 0 || p.rfind("/apis/", 0) == 0) {
      // resource paths are judged by authorize(); discovery documents are not public
      size_t depth = static_cast<size_t>(std::count(p.begin(), p.end(), '/'));
      bool discovery = p.rfind("/api/", 0) == 0 ? depth <= 2 : depth <= 3;
      if (!discovery) return;
    }
    std::string verb = req.method == "GET" ? "get" : req.method == "POST" ? "post" : req.method == "PUT" ? "put"
                      : req.method == "PATCH" ? "patch" : req.method == "DELETE" ? "delete" : "get";
    throw ApiError{403, fake::status_failure(403, "Forbidden", "forbidden: User \"system:anonymous\" cannot " + verb +
                                                                   " path \"" + p + "\"", json::object())};
  }

  /// RBAC, abridged: admins anything; limited users only inside their namespaces.
  void authorize(const std::string& verb, const Target& t) {
    if (caller.admin) return;
    bool ok = t.ri && t.ri->namespaced && !t.ns.empty() &&
              std::find(caller.namespaces.begin(), caller.namespaces.end(), t.ns) != caller.namespaces.end();
    if (ok) return;
    std::string res_name = t.ri ? t.ri->plural : "namespaces";
    if (!t.sub.empty()) res_name += "/" + t.sub;
    std::string grp = t.ri ? t.ri->group : "";
    std::string msg;
    if (!t.name.empty()) msg = res_name.substr(0, res_name.find('/')) + (grp.empty() ? "" : "." + grp) + " \"" + t.name + "\" is forbidden: ";
    else msg = res_name.substr(0, res_name.find('/')) + (grp.empty() ? "" : "." + grp) + " is forbidden: ";
    msg += "User \"" + caller.user + "\" cannot " + verb + " resource \"" + res_name + "\" in API group \"" + grp + "\"";
    msg += (t.ri && t.ri->namespaced && !t.ns.empty()) ? " in the namespace \"" + t.ns + "\"" : " at the cluster scope";
    json d = {{"kind", t.ri ? t.ri->plural : "namespaces"}};
    if (!t.name.empty()) d["name"] = t.name;
    if (!grp.empty()) d["group"] = grp;
    throw ApiError{403, fake::status_failure(403, "Forbidden", msg, d)};
  }

  // -- routing ------------------------------------------------------------------------
  bool parse_target(Target& t) {
    std::vector<std::string> seg;
    {
      std::stringstream ss(req.path);
      std::string p;
      while (std::getline(ss, p, '/'))
        if (!p.empty()) seg.push_back(p);
    }
    std::string group, version;
    size_t i;
    if (seg.size() >= 2 && seg[0] == "api") {
      version = seg[1];
      i = 2;
    } else if (seg.size() >= 3 && seg[0] == "apis") {
      group = seg[1];
      version = seg[2];
      i = 3;
    } else {
      return false;
    }
    if (i < seg.size() && seg[i] == "watch") {
      t.watch_prefix = true;
      ++i;
    }
    if (i >= seg.size()) return false;
    if (seg[i] == "namespaces" && i + 2 < seg.size() && find_resource(group, version, seg[i + 2])) {
      t.ns = seg[i + 1];
      i += 2;
    }
    t.ri = fake::find_resource(group, version, seg[i]);
    if (!t.ri) return false;
    ++i;
    if (i < seg.size()) t.name = seg[i++];
    if (i < seg.size()) t.sub = seg[i++];
    if (t.ri->plural == "namespaces" && !t.name.empty()) t.ns = t.name;
    // the rest keeps the raw path's slashes (proxy paths)
    if (i < seg.size()) {
      std::string marker = "/" + t.sub + "/";
      auto pos = req.path.find(marker, req.path.find("/" + t.name + "/"));
      t.rest = pos == std::string::npos ? "" : req.path.substr(pos + marker.size() - 1);
    } else if (!t.sub.empty() && req.path.size() > 0 && req.path.back() == '/') {
      t.rest = "/";
    }
    return true;
  }
  static const ResourceInfo* find_resource(const std::string& g, const std::string& v, const std::string& p) {
    return fake::find_resource(g, v, p);
  }

  void run() {
    rec.method = req.method;
    rec.path = req.path;
    auto q = req.target.find('?');
    rec.query = q == std::string::npos ? "" : req.target.substr(q + 1);
    rec.user_agent = header(req, "User-Agent");
    rec.content_type = header(req, "Content-Type");
    rec.accept = header(req, "Accept");
    try {
      dispatch();
    } catch (const ApiError& e) {
      send_error(e);
    } catch (const std::exception& e) {
      send(500, fake::status_failure(500, "InternalError", std::string("Internal error occurred: ") + e.what()));
    }
    if (rec.status == 0) rec.status = res.status;
    {
      std::lock_guard<std::mutex> lk(s.req_mu);
      s.recorded.push_back(rec);
    }
    if (s.opts.log_requests)
      std::fprintf(stderr, "fake-apiserver: %s %s -> %d (%s)\n", req.method.c_str(), req.target.c_str(), rec.status,
                   rec.user.c_str());
  }

  void dispatch() {
    fake::FaultRule rule;
    if (s.faults_impl.take(fake::FaultRule::stall, req.method, req.path, rule)) {
      auto until = std::chrono::steady_clock::now() + rule.delay;
      while (std::chrono::steady_clock::now() < until && !s.stopping)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (!authenticate()) {
      send(401, fake::status_failure(401, "Unauthorized", "Unauthorized"));
      return;
    }
    rec.user = caller.user;
    authorize_anonymous_path();
    if (s.faults_impl.take(fake::FaultRule::raw, req.method, req.path, rule, rec.query)) {
      res.status = rule.status;
      res.set_content(rule.body, rule.content_type.c_str());
      rec.status = rule.status;
      return;
    }
    if (s.faults_impl.take(fake::FaultRule::fail, req.method, req.path, rule)) {
      std::string msg = rule.status == 429 ? "Too many requests, please try again later."
                        : rule.status == 503 ? "the server is currently unable to handle the request"
                                             : "injected failure";
      json d;
      if (rule.retry_after >= 0) {
        d = {{"retryAfterSeconds", rule.retry_after}};
        res.set_header("Retry-After", std::to_string(rule.retry_after));
      }
      send(rule.status, fake::status_failure(rule.status, fake::reason_for_code(rule.status), msg, d));
      return;
    }
    const std::string& p = req.path;
    if (!s.opts.kserve && (p.rfind(std::string("/apis/") + fake::kserve_group, 0) == 0 ||
                           p.rfind(std::string("/openapi/v3/apis/") + fake::kserve_group, 0) == 0))
      throw ApiError{404, fake::status_failure(404, "NotFound", "the server could not find the requested resource")};
    if (req.method == "GET") {
      if (p == "/version" || p == "/version/") return send(200, fake::version_info());
      if (p == "/healthz" || p == "/readyz" || p == "/livez") {
        res.set_content("ok", "text/plain");
        return;
      }
      if (p == "/api" || p == "/api/") return send(200, fake::discovery_api_versions("127.0.0.1:" + std::to_string(s.port)));
      if (p == "/apis" || p == "/apis/") {
        json groups = fake::discovery_groups();
        if (!s.opts.kserve) {  // KServe's group only where its CRD is "installed"
          json kept = json::array();
          for (const auto& g : groups["groups"])
            if (g.value("name", "") != fake::kserve_group) kept.push_back(g);
          groups["groups"] = kept;
        }
        return send(200, groups);
      }
      if (p == "/openapi/v3" || p == "/openapi/v3/") {
        json index = fake::openapi_v3_index();
        if (!s.opts.kserve) index["paths"].erase(std::string("apis/") + fake::kserve_group + "/v1beta1");
        return send(200, index);
      }
      if (p.rfind("/openapi/v3/", 0) == 0) {
        auto doc = fake::openapi_v3_doc(p.substr(12), s.tfjob_schema);
        if (doc) return send(200, *doc);
        throw ApiError{404, fake::status_failure(404, "NotFound", "the server could not find the requested resource")};
      }
      std::vector<std::string> seg;
      {
        std::stringstream ss(p);
        std::string x;
        while (std::getline(ss, x, '/'))
          if (!x.empty()) seg.push_back(x);
      }
      if (seg.size() == 2 && seg[0] == "api" && seg[1] == "v1") return send(200, fake::discovery_resources("", "v1"));
      if (seg.size() == 2 && seg[0] == "apis") {
        json g = fake::discovery_group(seg[1]);
        if (!g.is_null()) return send(200, g);
      }
      if (seg.size() == 3 && seg[0] == "apis") {
        json r = fake::discovery_resources(seg[1], seg[2]);
        if (!r.is_null()) return send(200, r);
      }
    }
    Target t;
    if (!parse_target(t))
      throw ApiError{404, fake::status_failure(404, "NotFound", "the server could not find the requested resource",
                                               json{{"causes", {{{"reason", "UnexpectedServerResponse"}, {"message", "404 page not found"}}}}})};
    if (t.ri->namespaced && t.ns.empty() && t.ri->plural != "namespaces" && !t.name.empty())
      throw ApiError{404, fake::status_failure(404, "NotFound", "the server could not find the requested resource")};
    route(t);
  }

  void route(const Target& t) {
    const ResourceInfo& ri = *t.ri;
    const std::string& m = req.method;
    bool watch = t.watch_prefix || truthy(param(req, "watch"));
    if (t.sub == "log" && ri.plural == "pods") {
      authorize("get", t);
      if (m != "GET") throw fake::err_method_not_allowed("the server does not allow this method on the requested resource");
      return pod_log(t);
    }
    if (t.sub == "proxy" && (ri.plural == "services" || ri.plural == "pods")) {
      authorize(m == "GET" ? "get" : "create", t);
      return service_proxy(t, ri.plural);
    }
    if (!t.sub.empty() && t.sub != "status")
      throw ApiError{404, fake::status_failure(404, "NotFound", "the server could not find the requested resource")};
    if (t.name.empty()) {
      if (m == "GET") {
        authorize(watch ? "watch" : "list", t);
        return watch ? do_watch(t) : do_list(t);
      }
      if (m == "POST") {
        authorize("create", t);
        return do_create(t);
      }
      if (m == "DELETE") {
        authorize("deletecollection", t);
        return do_delete_collection(t);
      }
      throw fake::err_method_not_allowed("the server does not allow this method on the requested resource");
    }
    if (watch && m == "GET") {
      authorize("watch", t);
      return do_watch(t);
    }
    if (m == "GET") {
      authorize("get", t);
      return do_get(t);
    }
    if (m == "PUT") {
      authorize("update", t);
      return do_update(t);
    }
    if (m == "PATCH") {
      authorize("patch", t);
      return do_patch(t);
    }
    if (m == "DELETE") {
      authorize("delete", t);
      return do_delete(t);
    }
    throw fake::err_method_not_allowed("the server does not allow this method on the requested resource");
  }

  bool wants_table() const {
    std::string a = strip_ws(header(req, "Accept"));
    return a.find("as=Table") != std::string::npos;
  }

  void check_namespace_exists(const Target& t) {
    if (!t.ri->namespaced || t.ns.empty()) return;
    const ResourceInfo* nsri = fake::find_resource("", "v1", "namespaces");
    std::lock_guard<std::mutex> lk(s.mu);
    if (!s.find_locked(*nsri, "", t.ns)) throw fake::err_not_found(*nsri, t.ns);
  }

  // -- get / list -----------------------------------------------------------------------
  void do_get(const Target& t) {
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

  void do_list(const Target& t) {
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
      std::string tok = fake::base64_encode(json{{"v", "meta.k8s.io/v1"}, {"rv", list_rv}, {"start", items[limit - 1].first}}.dump());
      std::replace(tok.begin(), tok.end(), '+', '-');
      std::replace(tok.begin(), tok.end(), '/', '_');
      while (!tok.empty() && tok.back() == '=') tok.pop_back();
      meta["continue"] = tok;
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

  // -- create / update / patch / delete --------------------------------------------------
  std::vector<fake::Cause> validate_meta(const ResourceInfo& ri, const json& obj) {
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

  /// Pruning, defaulting and schema validation for TFJobs (as apiextensions does, in
  /// that order); minimal checks for builtins.
  void validate_object(const ResourceInfo& ri, json& obj) {
    if (ri.plural == "tfjobs" && s.tfjob_schema.loaded()) {
      json before = obj;
      s.tfjob_schema.prune(obj);
      std::string fv = param(req, "fieldValidation");
      if (before != obj) {
        auto unknown = unknown_fields(before, obj, "");
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

  static std::vector<std::string> unknown_fields(const json& a, const json& b, const std::string& path) {
    std::vector<std::string> out;
    if (a.is_object()) {
      for (auto it = a.begin(); it != a.end(); ++it) {
        std::string p = path.empty() ? it.key() : path + "." + it.key();
        if (!b.is_object() || !b.contains(it.key())) out.push_back(p);
        else {
          auto sub = unknown_fields(it.value(), b[it.key()], p);
          out.insert(out.end(), sub.begin(), sub.end());
        }
      }
    } else if (a.is_array() && b.is_array()) {
      for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
        auto sub = unknown_fields(a[i], b[i], path + "[" + std::to_string(i) + "]");
        out.insert(out.end(), sub.begin(), sub.end());
      }
    }
    return out;
  }

  void check_kind(const Target& t, const json& obj) {
    if (!obj.is_object()) throw fake::err_bad_request("the body of the request was not a JSON object");
    std::string av = obj.value("apiVersion", ""), kind = obj.value("kind", "");
    if ((!av.empty() && av != t.ri->api_version()) || (!kind.empty() && kind != t.ri->kind))
      throw fake::err_bad_request("the API version in the data (" + av + ") does not match the expected API version (" +
                                  t.ri->api_version() + ")");
    std::string ons = obj.contains("metadata") ? obj["metadata"].value("namespace", "") : "";
    if (t.ri->namespaced && !ons.empty() && ons != t.ns)
      throw fake::err_bad_request("the namespace of the provided object does not match the namespace sent on the request");
  }

  bool dry_run() const { return req.has_param("dryRun"); }

  /// The field manager of a create/update/patch: ?fieldManager=, else the User-Agent's
  /// program name (kube-apiserver's default).
  std::string update_manager() const {
    std::string m = param(req, "fieldManager");
    return m.empty() ? fake::manager_from_user_agent(header(req, "User-Agent")) : m;
  }

  void do_create(const Target& t) {
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

  void check_rv(const Target& t, const json& incoming, const json& current) {
    std::string want = incoming.contains("metadata") ? incoming["metadata"].value("resourceVersion", "") : "";
    if (!want.empty() && want != current["metadata"].value("resourceVersion", ""))
      throw fake::err_conflict(*t.ri, t.name, "the object has been modified; please apply your changes to the latest version and try again");
  }

  void do_update(const Target& t) {
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

  void do_patch(const Target& t) {
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

  void do_apply(const Target& t) {
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
    // conflicts: another manager applied a different value for a field this config sets
    if (!force) {
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

  static json strip_common(const json& other, const json& mine) {
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

  static void collect_conflicts(const json& mine, const json& other, const json& live, const std::string& path,
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

  void do_delete(const Target& t) {
    std::string propagation = param(req, "propagationPolicy");
    json precond;
    if (!req.body.empty()) {
      try {
        json opts = json::parse(req.body);
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
    if (dry_run()) return send(200, *cur);
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

  void do_delete_collection(const Target& t) {
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

  // -- watch -----------------------------------------------------------------------------
  void do_watch(const Target& t);
  void pod_log(const Target& t);
  void service_proxy(const Target& t, const std::string& plural);
};

namespace {

/// Shared state of one streamed response (lives as long as the provider).
struct Stream {
  std::size_t written = 0;
  std::size_t cut_at = 0;  ///< 0 = never
  bool cut = false;
  /// Writes through the cut knob; false when the connection must close now.
  bool write(httplib::DataSink& sink, const std::string& data) {
    if (cut_at && written + data.size() >= cut_at) {
      std::size_t n = cut_at - written;
      if (n) sink.write(data.data(), n);
      written += n;
      cut = true;
      return false;
    }
    written += data.size();
    return sink.write(data.data(), data.size());
  }
};

/// A watch event's object: the object itself, or a one-row Table when the client asked
/// for tables (`kubectl get -w`).
json watch_object(const ResourceInfo& ri, json o, bool table = false) {
  o["apiVersion"] = ri.api_version();
  o["kind"] = ri.kind;
  if (table) return fake::to_table(ri, {o}, json{{"resourceVersion", o["metadata"].value("resourceVersion", "")}});
  return o;
}

}  // namespace

void Handler::do_watch(const Target& t) {
  std::string err;
  auto lsel = fake::Selector::parse(param(req, "labelSelector"), false, err);
  if (!err.empty()) throw fake::err_bad_request(err);
  auto fsel = fake::Selector::parse(param(req, "fieldSelector"), true, err);
  if (!err.empty()) throw fake::err_bad_request(err);
  if (!t.name.empty()) fsel.reqs.push_back({"metadata.name", "=", {t.name}});
  const bool bookmarks = truthy(param(req, "allowWatchBookmarks"));
  const bool table = wants_table();
  std::optional<std::chrono::steady_clock::time_point> deadline;
  if (req.has_param("timeoutSeconds")) {
    try {
      deadline = std::chrono::steady_clock::now() + std::chrono::seconds(std::stol(param(req, "timeoutSeconds")));
    } catch (...) {
      throw fake::err_bad_request("invalid timeoutSeconds");
    }
  }
  fake::FaultRule rule;
  bool gone = s.faults_impl.take(fake::FaultRule::gone, req.method, req.path, rule);
  int drop_after = -1;
  bool abrupt = true;
  if (s.faults_impl.take(fake::FaultRule::drop_watch, req.method, req.path, rule)) {
    drop_after = rule.events;
    abrupt = rule.abrupt;
  }
  auto stream = std::make_shared<Stream>();
  if (s.faults_impl.take(fake::FaultRule::cut, req.method, req.path, rule)) stream->cut_at = rule.bytes;

  const ResourceInfo ri = *t.ri;
  const std::string ns = ri.namespaced ? t.ns : "";
  std::string rvs = param(req, "resourceVersion");
  std::uint64_t cursor = 0;
  std::vector<std::string> initial;
  {
    std::lock_guard<std::mutex> lk(s.mu);
    if (rvs.empty() || rvs == "0") {
      // "any": the current state as ADDED events, then changes
      for (const auto& o : s.list_locked(ri, ns)) {
        if (!lsel.matches_labels(o["metadata"].value("labels", json::object())) || !fsel.matches_fields(o)) continue;
        initial.push_back(json{{"type", "ADDED"}, {"object", watch_object(ri, o, table)}}.dump() + "\n");
      }
      cursor = s.rv;
    } else {
      try {
        cursor = std::stoull(rvs);
      } catch (...) {
        throw fake::err_bad_request("invalid resource version: " + rvs);
      }
      if (cursor < s.compacted_rv) {
        gone = true;
        rvs = std::to_string(cursor) + " (" + std::to_string(s.compacted_rv + 1) + ")";
      }
    }
  }
  if (gone) {
    // a real apiserver's watch cache answers 200, then one ERROR event with the 410 Status
    std::string line = json{{"type", "ERROR"},
                            {"object", fake::status_failure(410, "Expired", "too old resource version: " + (rvs.empty() ? std::string("0") : rvs))}}
                           .dump() +
                       "\n";
    rec.status = 200;
    res.status = 200;
    res.set_chunked_content_provider("application/json", [line, stream](size_t, httplib::DataSink& sink) {
      if (!stream->write(sink, line)) return false;
      sink.done();
      return true;
    });
    return;
  }
  rec.status = 200;
  res.status = 200;
  const auto bookmark_every = s.opts.bookmark_interval;
  FakeApiServer::Impl* sp = &s;
  const httplib::Request* rq = &req;
  auto state = std::make_shared<std::tuple<std::uint64_t, std::vector<std::string>, int>>(cursor, std::move(initial), 0);
  res.set_chunked_content_provider(
      "application/json",
      [sp, rq, ri, ns, lsel, fsel, bookmarks, table, deadline, drop_after, abrupt, stream, state, bookmark_every](size_t, httplib::DataSink& sink) {
        auto& [cur, init, sent] = *state;
        auto finish = [&](bool clean) {
          if (clean) sink.done();
          return clean;
        };
        for (auto& line : init) {
          if (drop_after >= 0 && sent >= drop_after) return finish(!abrupt);
          if (!stream->write(sink, line)) return false;
          ++sent;
        }
        init.clear();
        auto next_bookmark = std::chrono::steady_clock::now() + bookmark_every;
        for (;;) {
          std::vector<std::string> out;
          bool do_bookmark = false;
          {
            std::unique_lock<std::mutex> lk(sp->mu);
            auto wake = std::chrono::steady_clock::now() + std::chrono::milliseconds(250);
            if (bookmarks && next_bookmark < wake) wake = next_bookmark;
            if (deadline && *deadline < wake) wake = *deadline;
            sp->cv.wait_until(lk, wake, [&] { return sp->stopping || (!sp->history.empty() && sp->history.back().rv > cur); });
            if (sp->stopping) return finish(true);
            if (cur < sp->compacted_rv && !sp->history.empty() && sp->history.front().rv > cur + 1) {
              out.push_back(json{{"type", "ERROR"},
                                 {"object", fake::status_failure(410, "Expired", "too old resource version: " + std::to_string(cur) + " (" +
                                                                                     std::to_string(sp->compacted_rv + 1) + ")")}}
                                .dump() +
                            "\n");
              lk.unlock();
              stream->write(sink, out[0]);
              return finish(true);
            }
            auto it = std::upper_bound(sp->history.begin(), sp->history.end(), cur,
                                       [](std::uint64_t v, const fake::Event& e) { return v < e.rv; });
            const std::string rkey = ri.key();
            for (; it != sp->history.end(); ++it) {
              const fake::Event& e = *it;
              cur = e.rv;
              if (e.rkey != rkey || (!ns.empty() && e.ns != ns)) continue;
              bool now_match = lsel.matches_labels(e.object["metadata"].value("labels", json::object())) && fsel.matches_fields(e.object);
              if (!now_match && e.type != "MODIFIED") continue;
              std::string type = e.type;
              if (e.type == "MODIFIED") {
                // did it match before? find the previous state in history (or assume it did)
                bool before = true;
                if (!lsel.reqs.empty() || !fsel.reqs.empty()) {
                  before = false;
                  for (auto jt = std::make_reverse_iterator(it); jt != sp->history.rend(); ++jt) {
                    if (jt->rkey == rkey && jt->object["metadata"]["uid"] == e.object["metadata"]["uid"]) {
                      before = jt->type != "DELETED" && lsel.matches_labels(jt->object["metadata"].value("labels", json::object())) &&
                               fsel.matches_fields(jt->object);
                      break;
                    }
                  }
                }
                if (!before && !now_match) continue;
                if (!before) type = "ADDED";
                else if (!now_match) type = "DELETED";
              }
              out.push_back(json{{"type", type}, {"object", watch_object(ri, e.object, table)}}.dump() + "\n");
            }
            if (out.empty() && bookmarks && std::chrono::steady_clock::now() >= next_bookmark) {
              do_bookmark = true;
              cur = sp->rv;
            }
          }
          for (const auto& line : out) {
            if (drop_after >= 0 && sent >= drop_after) return finish(!abrupt);
            if (!stream->write(sink, line)) return false;
            ++sent;
          }
          if (do_bookmark) {
            json bm = {{"type", "BOOKMARK"},
                       {"object", {{"kind", ri.kind}, {"apiVersion", ri.api_version()},
                                   {"metadata", {{"resourceVersion", std::to_string(cur)}, {"creationTimestamp", nullptr}}}}}};
            if (!stream->write(sink, bm.dump() + "\n")) return false;
            next_bookmark = std::chrono::steady_clock::now() + bookmark_every;
          }
          if (drop_after >= 0 && sent >= drop_after) return finish(!abrupt);
          if (deadline && std::chrono::steady_clock::now() >= *deadline) return finish(true);
          if (out.empty() && !do_bookmark && peer_gone(*rq)) return false;
        }
      });
}

// ---- logs ----------------------------------------------------------------------------

void fake::append_synthetic_line(std::string& out, std::uint64_t index, std::size_t bytes) {
  // "line %012llu " then a rotating alphabet: cheap to make, easy to check
  static const std::string pattern = [] {
    std::string p;
    while (p.size() < 65536 + 64) p += "abcdefghijklmnopqrstuvwxyz0123456789";
    return p;
  }();
  char head[32];
  int n = std::snprintf(head, sizeof head, "line %012llu ", static_cast<unsigned long long>(index));
  std::size_t h = static_cast<std::size_t>(n);
  if (bytes <= h) {
    out.append(head, bytes);
    return;
  }
  out.append(head, h);
  std::size_t rest = bytes - h, off = static_cast<std::size_t>((index + h) % 36);
  while (rest > 0) {
    std::size_t take = std::min(rest, std::size_t{65536});
    out.append(pattern, off, take);
    rest -= take;
    off = (off + take) % 36;
  }
}

std::string fake::synthetic_line(std::uint64_t index, std::size_t bytes) {
  std::string s;
  append_synthetic_line(s, index, bytes);
  return s;
}

void Handler::pod_log(const Target& t) {
  const ResourceInfo* pods = fake::find_resource("", "v1", "pods");
  json pod;
  {
    std::lock_guard<std::mutex> lk(s.mu);
    json* p = s.find_locked(*pods, t.ns, t.name);
    if (!p) throw fake::err_not_found(*pods, t.name);
    pod = *p;
  }
  std::string container = param(req, "container");
  std::vector<std::string> names;
  for (const auto& c : pod["spec"].value("containers", json::array())) names.push_back(c.value("name", ""));
  if (container.empty()) {
    if (names.size() != 1) {
      std::string list;
      for (const auto& n : names) list += (list.empty() ? "" : " ") + n;
      throw fake::err_bad_request("a container name must be specified for pod " + t.name + ", choose one of: [" + list + "]");
    }
    container = names[0];
  } else if (std::find(names.begin(), names.end(), container) == names.end()) {
    std::string list;
    for (const auto& n : names) list += (list.empty() ? "" : " ") + n;
    throw fake::err_bad_request("container " + container + " is not valid for pod " + t.name);
  }
  const bool follow = truthy(param(req, "follow"));
  const bool previous = truthy(param(req, "previous"));
  const bool timestamps = truthy(param(req, "timestamps"));
  long tail = -1;
  std::optional<fake::Clock::time_point> since;
  std::size_t limit_bytes = 0;
  try {
    if (req.has_param("tailLines")) tail = std::stol(param(req, "tailLines"));
    if (req.has_param("sinceSeconds")) since = fake::Clock::now() - std::chrono::seconds(std::stol(param(req, "sinceSeconds")));
    if (req.has_param("limitBytes")) limit_bytes = std::stoul(param(req, "limitBytes"));
  } catch (...) {
    throw fake::err_bad_request("invalid log options");
  }
  if (req.has_param("sinceTime")) {
    fake::Clock::time_point tp;
    if (!fake::parse_rfc3339(param(req, "sinceTime"), tp)) throw fake::err_bad_request("invalid sinceTime: " + param(req, "sinceTime"));
    since = tp;
  }
  const std::string key = pod["metadata"].value("uid", "") + "/" + container;
  auto& k = s.kubelet_impl;
  size_t run_index;
  {
    std::lock_guard<std::mutex> lk(k.mu);
    auto it = k.containers.find(key);
    if (it == k.containers.end() || it->second.runs.empty()) {
      std::string reason = pod["status"].value("phase", "") == "Pending" ? "ContainerCreating" : "PodInitializing";
      throw fake::err_bad_request("container \"" + container + "\" in pod \"" + t.name + "\" is waiting to start: " + reason);
    }
    auto& cs = it->second;
    if (previous) {
      if (cs.runs.size() < 2 && !(cs.runs.size() == 1 && cs.restart_pending))
        throw fake::err_bad_request("previous terminated container \"" + container + "\" in pod \"" + t.name + "\" not found");
      run_index = cs.restart_pending ? cs.runs.size() - 1 : cs.runs.size() - 2;
    } else {
      run_index = cs.runs.size() - 1;
    }
  }
  auto stream = std::make_shared<Stream>();
  fake::FaultRule rule;
  if (s.faults_impl.take(fake::FaultRule::cut, req.method, req.path, rule)) stream->cut_at = rule.bytes;
  struct LogState {
    size_t entry = 0;         // next log entry
    std::uint64_t gen_i = 0;  // within a generated entry
    bool started = false;
    bool line_start = true;  // at a line's first record
    std::uint64_t line_bytes = 0;  // of the current line, in the records sent
    std::size_t limit = 0, sent = 0;
  };
  auto st = std::make_shared<LogState>();
  st->limit = limit_bytes;
  // tailLines / sinceTime: pick the first entry to send
  {
    std::lock_guard<std::mutex> lk(k.mu);
    const auto& log = k.containers[key].runs[run_index].log;
    size_t first = 0;
    if (since) {
      while (first < log.size() && log[first].t < *since) ++first;
    }
    if (tail >= 0) {
      // tailLines counts lines, not records: a line of several partial records (and the
      // log's unterminated last line) is one line (the kubelet's tail.FindTailLineStartIndex)
      std::uint64_t need = static_cast<std::uint64_t>(tail);
      size_t e = log.size();
      std::uint64_t gen_skip = 0;
      while (e > first && need > 0) {
        const auto& en = log[e - 1];
        if (e - 1 > first && log[e - 2].partial) {  // not the start of its line
          --e;
          continue;
        }
        std::uint64_t n = en.gen_count ? en.gen_count : 1;
        if (n <= need) {
          need -= n;
          --e;
        } else {
          gen_skip = n - need;
          need = 0;
          --e;
          break;
        }
      }
      if (need == 0 && e < log.size() && log[e].gen_count && gen_skip) st->gen_i = gen_skip;
      first = std::max(first, e);
    }
    st->entry = first;
  }
  rec.status = 200;
  res.status = 200;
  FakeApiServer::Impl* sp = &s;
  const httplib::Request* rq = &req;
  res.set_chunked_content_provider("text/plain", [sp, rq, key, run_index, follow, timestamps, st, stream](size_t, httplib::DataSink& sink) {
    auto& k = sp->kubelet_impl;
    std::string buf;
    for (;;) {
      bool ended = false;
      buf.clear();
      {
        std::unique_lock<std::mutex> lk(k.mu);
        auto it = k.containers.find(key);
        if (it == k.containers.end() || it->second.runs.size() <= run_index) {
          ended = true;
        } else {
          const auto& run = it->second.runs[run_index];
          if (st->entry >= run.log.size()) {
            if (!follow || run.terminated || sp->stopping) {
              ended = true;
            } else {
              k.cv.wait_for(lk, std::chrono::milliseconds(250));
              lk.unlock();
              if (peer_gone(*rq)) return false;
              continue;
            }
          } else {
            // copy out up to ~256 KiB
            while (st->entry < run.log.size() && buf.size() < 256 * 1024) {
              const auto& en = run.log[st->entry];
              // the kubelet prefixes every CRI entry (kuberuntime/logs/logs.go logWriter.write):
              // a line's first, and each further 16 KiB entry of a long line (what containerd
              // writes as partial entries); the fake's other partial records (an unterminated
              // tail that a later write continues, which containerd would hold back) are not
              std::string ts = timestamps && (st->line_start || (st->line_bytes > 0 && st->line_bytes % 16384 == 0))
                                   ? fake::rfc3339_nano(en.t) + " " : "";
              if (en.gen_count) {
                while (st->gen_i < en.gen_count && buf.size() < 256 * 1024) {
                  buf += ts;
                  fake::append_synthetic_line(buf, st->gen_i, en.gen_bytes);
                  buf += '\n';
                  ++st->gen_i;
                }
                if (st->gen_i >= en.gen_count) {
                  st->gen_i = 0;
                  ++st->entry;
                }
              } else {
                buf += ts;
                buf += en.text;
                if (!en.partial) buf += '\n';
                st->line_start = !en.partial;
                st->line_bytes = en.partial ? st->line_bytes + en.text.size() : 0;
                ++st->entry;
              }
            }
          }
        }
      }
      if (!buf.empty()) {
        if (st->limit) {
          if (st->sent >= st->limit) ended = true;
          else if (st->sent + buf.size() > st->limit) buf.resize(st->limit - st->sent);
        }
        if (!buf.empty() && !ended) {
          st->sent += buf.size();
          if (!stream->write(sink, buf)) return false;
          continue;
        }
      }
      if (ended) {
        sink.done();
        return true;
      }
    }
  });
}

// services/NAME:PORT/proxy and pods/NAME:PORT/proxy alike: a handler registered for the
// name answers (ProxyRequest::resource says which kind was asked).
void Handler::service_proxy(const Target& t, const std::string& plural) {
  std::string svc = t.name, port;
  auto colon = svc.find(':');
  if (colon != std::string::npos) {
    port = svc.substr(colon + 1);
    svc = svc.substr(0, colon);
  }
  const ResourceInfo* services = fake::find_resource("", "v1", plural);
  {
    std::lock_guard<std::mutex> lk(s.mu);
    if (!s.find_locked(*services, t.ns, svc)) throw fake::err_not_found(*services, svc);
  }
  ProxyHandler h;
  {
    std::lock_guard<std::mutex> lk(s.proxy_mu);
    for (auto it = s.proxies.rbegin(); it != s.proxies.rend(); ++it)
      if (fake::glob_match(it->first, svc)) {
        h = it->second;
        break;
      }
  }
  if (!h)
    throw ApiError{503, fake::status_failure(503, "ServiceUnavailable", "no endpoints available for service \"" + svc + "\"")};
  ProxyRequest pr;
  pr.resource = plural;
  pr.method = req.method;
  pr.ns = t.ns;
  pr.service = svc;
  pr.port = port;
  pr.path = t.rest.empty() ? "/" : t.rest;
  auto q = req.target.find('?');
  pr.query = q == std::string::npos ? "" : req.target.substr(q + 1);
  pr.body = req.body;
  pr.content_type = header(req, "Content-Type");
  ProxyResponse r = h(pr);
  res.status = r.status;
  rec.status = r.status;
  res.set_content(r.body, r.content_type);
}

// ---- lifecycle -----------------------------------------------------------------------

void FakeApiServer::Impl::seed() {
  std::lock_guard<std::mutex> lk(mu);
  const ResourceInfo* nsri = fake::find_resource("", "v1", "namespaces");
  for (const char* n : {"default", "kube-system", "kube-public", "kube-node-lease", "team-a"}) {
    json o = {{"apiVersion", "v1"}, {"kind", "Namespace"},
              {"metadata", {{"name", n}, {"labels", {{"kubernetes.io/metadata.name", n}}}}},
              {"spec", {{"finalizers", {"kubernetes"}}}}, {"status", {{"phase", "Active"}}}};
    create_locked(*nsri, o);
  }
  const ResourceInfo* nodes = fake::find_resource("", "v1", "nodes");
  auto add_node = [&](const std::string& name, int gpus) {
    json cap = {{"cpu", "8"}, {"memory", "32Gi"}, {"pods", "110"}, {"ephemeral-storage", "100Gi"}};
    json labels = {{"kubernetes.io/hostname", name}, {"kubernetes.io/os", "linux"}, {"kubernetes.io/arch", "amd64"}};
    if (gpus > 0) {
      cap["nvidia.com/gpu"] = std::to_string(gpus);
      labels["nvidia.com/gpu.present"] = "true";
      labels["nvidia.com/gpu.product"] = "Tesla-V100-SXM2-16GB";
      labels["nvidia.com/gpu.count"] = std::to_string(gpus);
    }
    std::string now = fake::now_rfc3339();
    json o = {{"apiVersion", "v1"}, {"kind", "Node"},
              {"metadata", {{"name", name}, {"labels", labels}}},
              {"spec", {{"podCIDR", "10.244.0.0/24"}}},
              {"status",
               {{"capacity", cap},
                {"allocatable", cap},
                {"conditions",
                 {{{"type", "Ready"}, {"status", "True"}, {"reason", "KubeletReady"}, {"message", "kubelet is posting ready status"},
                   {"lastHeartbeatTime", now}, {"lastTransitionTime", now}}}},
                {"addresses", {{{"type", "InternalIP"}, {"address", "192.168.0." + std::to_string(10 + ip_counter++)}}, {{"type", "Hostname"}, {"address", name}}}},
                {"nodeInfo",
                 {{"kubeletVersion", "v1.32.0"}, {"containerRuntimeVersion", "containerd://1.7.0"}, {"osImage", "Ubuntu 22.04 LTS"},
                  {"kernelVersion", "5.15.0"}, {"operatingSystem", "linux"}, {"architecture", "amd64"}}}}}};
    create_locked(*nodes, o);
  };
  for (int i = 0; i < opts.nodes; ++i) add_node("fake-node-" + std::to_string(i), 0);
  for (int i = 0; i < opts.gpu_nodes; ++i) add_node("fake-gpu-node-" + std::to_string(i), opts.gpus_per_node);
  const ResourceInfo* svc = fake::find_resource("", "v1", "services");
  json k = {{"apiVersion", "v1"}, {"kind", "Service"},
            {"metadata", {{"name", "kubernetes"}, {"namespace", "default"}, {"labels", {{"component", "apiserver"}, {"provider", "kubernetes"}}}}},
            {"spec", {{"type", "ClusterIP"}, {"clusterIP", "10.96.0.1"}, {"clusterIPs", {"10.96.0.1"}},
                      {"ports", {{{"name", "https"}, {"port", 443}, {"protocol", "TCP"}, {"targetPort", 6443}}}}}}};
  create_locked(*svc, k);
}

void FakeApiServer::Impl::start() {
  const std::string cert_pem = pki.server.cert, key_pem = pki.server.key, ca = pki.ca.cert;
  server = std::make_unique<httplib::SSLServer>([&](SSL_CTX& ctx) {
    SSL_CTX_set_min_proto_version(&ctx, TLS1_2_VERSION);
    SSL_CTX_set_options(&ctx, SSL_OP_NO_COMPRESSION | SSL_OP_NO_SESSION_RESUMPTION_ON_RENEGOTIATION);
    BIO* b = BIO_new_mem_buf(cert_pem.data(), static_cast<int>(cert_pem.size()));
    X509* c = PEM_read_bio_X509(b, nullptr, nullptr, nullptr);
    BIO_free(b);
    b = BIO_new_mem_buf(key_pem.data(), static_cast<int>(key_pem.size()));
    EVP_PKEY* k = PEM_read_bio_PrivateKey(b, nullptr, nullptr, nullptr);
    BIO_free(b);
    bool ok = c && k && SSL_CTX_use_certificate(&ctx, c) == 1 && SSL_CTX_use_PrivateKey(&ctx, k) == 1;
    X509_free(c);
    EVP_PKEY_free(k);
    if (!ok) return false;
    // client certificates: requested, verified against our CA when given (tokens need none)
    X509_STORE* store = SSL_CTX_get_cert_store(&ctx);
    b = BIO_new_mem_buf(ca.data(), static_cast<int>(ca.size()));
    X509* cac = PEM_read_bio_X509(b, nullptr, nullptr, nullptr);
    BIO_free(b);
    if (!cac) return false;
    X509_STORE_add_cert(store, cac);
    STACK_OF(X509_NAME)* names = sk_X509_NAME_new_null();
    sk_X509_NAME_push(names, X509_NAME_dup(X509_get_subject_name(cac)));
    SSL_CTX_set_client_CA_list(&ctx, names);
    X509_free(cac);
    // The handshake accepts any client certificate; the request's authentication judges it
    // (SSL_get_verify_result), so a bad one is a 401 as kube-apiserver answers, not a
    // failed handshake.
    SSL_CTX_set_verify(&ctx, SSL_VERIFY_PEER, [](int, X509_STORE_CTX*) { return 1; });
    return true;
  });
  if (!server->is_valid()) throw std::runtime_error("fake-apiserver: could not set up TLS");
  server->new_task_queue = [] { return new ThreadPerTask(); };
  server->set_keep_alive_max_count(100000);
  server->set_keep_alive_timeout(30);
  server->set_read_timeout(30);
  server->set_write_timeout(30);
  server->set_payload_max_length(64u << 20);
  server->set_pre_routing_handler([](const httplib::Request& req, httplib::Response&) {
    // No response compression: httplib would gzip-buffer watch and log streams.
    auto& headers = const_cast<httplib::Request&>(req).headers;  // req is a non-const local in httplib
    headers.erase("Accept-Encoding");
    return httplib::Server::HandlerResponse::Unhandled;
  });
  auto h = [this](const httplib::Request& req, httplib::Response& res) {
    Handler handler{*this, req, res, {}, {}};
    handler.run();
  };
  server->Get(".*", h);
  server->Post(".*", h);
  server->Put(".*", h);
  server->Patch(".*", h);
  server->Delete(".*", h);
  server->Options(".*", h);
  if (opts.port == 0) {
    port = server->bind_to_any_port(opts.host);
    if (port <= 0) throw std::runtime_error("fake-apiserver: could not bind " + opts.host);
  } else {
    if (!server->bind_to_port(opts.host, opts.port))
      throw std::runtime_error("fake-apiserver: could not bind " + opts.host + ":" + std::to_string(opts.port));
    port = opts.port;
  }
  server_thread = std::thread([this] { server->listen_after_bind(); });
  if (opts.controllers) controller_thread = std::thread([this] { controller_loop(); });
}

void FakeApiServer::Impl::stop() {
  stopping = true;
  {
    std::lock_guard<std::mutex> lk(mu);
    cv.notify_all();
  }
  {
    std::lock_guard<std::mutex> lk(kubelet_impl.mu);
    kubelet_impl.cv.notify_all();
  }
  if (controller_thread.joinable()) controller_thread.join();
  if (server) server->stop();
  if (server_thread.joinable()) server_thread.join();
}

void FakeApiServer::Impl::controller_loop() {
  while (!stopping) {
    {
      std::lock_guard<std::mutex> lk(mu);
      reconcile_tfjobs_locked();
      reconcile_deployments_locked();
      reconcile_jobs_locked();
      reconcile_volumes_locked();
      reconcile_inferenceservices_locked();
      reconcile_pods_locked();
    }
    std::this_thread::sleep_for(opts.controller_interval);
  }
}

// ---- the public face ----------------------------------------------------------------

FakeApiServer::FakeApiServer(FakeApiServerOptions options) : impl_(std::make_unique<Impl>()) {
  Impl& s = *impl_;
  s.opts = std::move(options);
  s.faults_impl.server = &s;
  s.kubelet_impl.server = &s;
  s.pki = FakePki::generate();
  s.admin_token = random_token("admin-");
  s.limited_token = random_token("team-a-");
  s.tokens[s.admin_token] = {"admin", {}};
  s.tokens[s.limited_token] = {"team-a-dev", {"team-a"}};
  std::string crd = s.opts.crd_file.empty() ? crd_file() : s.opts.crd_file;
  std::string err;
  if (!s.tfjob_schema.load_crd(crd, err)) throw std::runtime_error("fake-apiserver: " + err);
  s.seed();
  s.start();
}

FakeApiServer::~FakeApiServer() { impl_->stop(); }

std::string FakeApiServer::url() const { return "https://127.0.0.1:" + std::to_string(impl_->port); }
int FakeApiServer::port() const { return impl_->port; }
const FakePki& FakeApiServer::pki() const { return impl_->pki; }
std::string FakeApiServer::ca_pem() const { return impl_->pki.ca.cert; }
std::string FakeApiServer::client_cert_pem() const { return impl_->pki.admin_client.cert; }
std::string FakeApiServer::client_key_pem() const { return impl_->pki.admin_client.key; }
std::string FakeApiServer::admin_token() const { return impl_->admin_token; }
std::string FakeApiServer::limited_token() const { return impl_->limited_token; }

void FakeApiServer::add_token(const std::string& token, const std::string& user, const std::vector<std::string>& namespaces) {
  std::lock_guard<std::mutex> lk(impl_->mu);
  impl_->tokens[token] = {user, namespaces};
}

void FakeApiServer::remove_token(const std::string& token) {
  std::lock_guard<std::mutex> lk(impl_->mu);
  impl_->tokens.erase(token);
}

std::string FakeApiServer::kubeconfig_yaml() const {
  auto b64 = [](const std::string& s) { return fake::base64_encode(s); };
  std::ostringstream o;
  o << "apiVersion: v1\nkind: Config\npreferences: {}\n"
    << "current-context: fake-cert\n"
    << "clusters:\n- name: fake\n  cluster:\n    server: " << url() << "\n    certificate-authority-data: " << b64(ca_pem()) << "\n"
    << "contexts:\n"
    << "- name: fake-cert\n  context:\n    cluster: fake\n    user: fake-admin-cert\n    namespace: default\n"
    << "- name: fake-token\n  context:\n    cluster: fake\n    user: fake-admin-token\n    namespace: default\n"
    << "- name: fake-limited\n  context:\n    cluster: fake\n    user: fake-team-a\n    namespace: team-a\n"
    << "users:\n"
    << "- name: fake-admin-cert\n  user:\n    client-certificate-data: " << b64(client_cert_pem())
    << "\n    client-key-data: " << b64(client_key_pem()) << "\n"
    << "- name: fake-admin-token\n  user:\n    token: " << admin_token() << "\n"
    << "- name: fake-team-a\n  user:\n    token: " << limited_token() << "\n";
  return o.str();
}

void FakeApiServer::write_kubeconfig(const std::string& path) const {
  std::ofstream f(path, std::ios::trunc);
  if (!f) throw std::runtime_error("fake-apiserver: cannot write kubeconfig " + path);
  f << kubeconfig_yaml();
  if (!f) throw std::runtime_error("fake-apiserver: cannot write kubeconfig " + path);
}

json FakeApiServer::put_object(const json& object) {
  const ResourceInfo* ri = fake::find_resource_by_kind(object.value("apiVersion", ""), object.value("kind", ""));
  if (!ri) throw std::runtime_error("fake-apiserver: put_object: unknown apiVersion/kind " + object.value("apiVersion", "") + "/" + object.value("kind", ""));
  json obj = object;
  if (!obj.contains("metadata") || obj["metadata"].value("name", "").empty())
    throw std::runtime_error("fake-apiserver: put_object: metadata.name is required");
  if (ri->namespaced && obj["metadata"].value("namespace", "").empty()) obj["metadata"]["namespace"] = "default";
  std::lock_guard<std::mutex> lk(impl_->mu);
  if (impl_->find_locked(*ri, obj["metadata"].value("namespace", ""), obj["metadata"]["name"])) {
    obj["metadata"].erase("resourceVersion");
    json out = impl_->update_locked(*ri, obj, false);
    if (ri->has_status && object.contains("status")) {
      json st = out;
      st["status"] = object["status"];
      out = impl_->update_locked(*ri, st, true);
    }
    return out;
  }
  return impl_->create_locked(*ri, obj);
}

std::optional<json> FakeApiServer::get_object(const std::string& resource, const std::string& ns, const std::string& name) const {
  const ResourceInfo* ri = fake::find_resource_name(resource);
  if (!ri) throw std::runtime_error("fake-apiserver: unknown resource " + resource);
  std::lock_guard<std::mutex> lk(impl_->mu);
  json* o = impl_->find_locked(*ri, ns, name);
  if (!o) return std::nullopt;
  return *o;
}

bool FakeApiServer::delete_object(const std::string& resource, const std::string& ns, const std::string& name) {
  const ResourceInfo* ri = fake::find_resource_name(resource);
  if (!ri) throw std::runtime_error("fake-apiserver: unknown resource " + resource);
  std::lock_guard<std::mutex> lk(impl_->mu);
  if (!impl_->find_locked(*ri, ns, name)) return false;
  impl_->remove_locked(*ri, ns, name, "Background");
  return true;
}

std::vector<json> FakeApiServer::list_objects(const std::string& resource, const std::string& ns) const {
  const ResourceInfo* ri = fake::find_resource_name(resource);
  if (!ri) throw std::runtime_error("fake-apiserver: unknown resource " + resource);
  std::lock_guard<std::mutex> lk(impl_->mu);
  return impl_->list_locked(*ri, ns);
}

std::uint64_t FakeApiServer::resource_version() const {
  std::lock_guard<std::mutex> lk(impl_->mu);
  return impl_->rv;
}

bool FakeApiServer::wait_for(const std::function<bool()>& pred, std::chrono::milliseconds timeout) const {
  auto until = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    if (pred()) return true;
    if (std::chrono::steady_clock::now() >= until) return pred();
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

Faults& FakeApiServer::faults() { return impl_->faults; }
Kubelet& FakeApiServer::kubelet() { return impl_->kubelet; }

void FakeApiServer::set_proxy_handler(const std::string& service_glob, ProxyHandler handler) {
  std::lock_guard<std::mutex> lk(impl_->proxy_mu);
  impl_->proxies.emplace_back(service_glob, std::move(handler));
}

std::vector<RecordedRequest> FakeApiServer::requests() const {
  std::lock_guard<std::mutex> lk(impl_->req_mu);
  return impl_->recorded;
}

void FakeApiServer::clear_requests() {
  std::lock_guard<std::mutex> lk(impl_->req_mu);
  impl_->recorded.clear();
}

}  // namespace tfjob::test
