// The fake API server: TLS, authentication and authorization, routing, the store, Faults
// and the public FakeApiServer; each request's handling by concern is in fake_handler.hpp.
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

#include "support/fake_handler.hpp"
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

}  // namespace

namespace fake {

std::string header(const httplib::Request& req, const char* key) {
  return req.has_header(key) ? req.get_header_value(key) : std::string();
}

std::string param(const httplib::Request& req, const char* key) {
  return req.has_param(key) ? req.get_param_value(key) : std::string();
}

bool truthy(const std::string& v) { return v == "true" || v == "1" || v == "True"; }

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

}  // namespace fake

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

namespace fake {

void Handler::send(int code, const json& body) {
  res.status = code;
  res.set_content(body.dump(), "application/json");
  rec.status = code;
}
void Handler::send_error(const ApiError& e) { send(e.code, e.status); }

bool Handler::wants_table() const {
  std::string a = strip_ws(header(req, "Accept"));
  return a.find("as=Table") != std::string::npos;
}

// ---- authentication and authorization ----------------------------------------------

// kube-apiserver's authenticators: a client certificate (verified against the client CA
// here, not in the handshake), else a bearer token, else the anonymous user. A presented
// certificate that does not verify and no valid token is 401 (the x509 authenticator's
// error fails the request before anonymous is tried); no credentials at all is
// system:anonymous, whom RBAC then refuses (403).
bool Handler::authenticate() {
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

void Handler::authorize_anonymous_path() {
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

void Handler::authorize(const std::string& verb, const Target& t) {
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

// ---- routing -----------------------------------------------------------------------

bool Handler::parse_target(Target& t) {
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

void Handler::run() {
  rec.received = std::chrono::steady_clock::now();
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
  rec.answered = std::chrono::steady_clock::now();
  {
    std::lock_guard<std::mutex> lk(s.req_mu);
    s.recorded.push_back(rec);
  }
  if (s.opts.log_requests)
    std::fprintf(stderr, "fake-apiserver: %s %s -> %d (%s)\n", req.method.c_str(), req.target.c_str(), rec.status,
                 rec.user.c_str());
}

void Handler::dispatch() {
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
  if (req.method == "GET" && get_non_resource(p)) return;
  Target t;
  if (!parse_target(t))
    throw ApiError{404, fake::status_failure(404, "NotFound", "the server could not find the requested resource",
                                             json{{"causes", {{{"reason", "UnexpectedServerResponse"}, {"message", "404 page not found"}}}}})};
  if (t.ri->namespaced && t.ns.empty() && t.ri->plural != "namespaces" && !t.name.empty())
    throw ApiError{404, fake::status_failure(404, "NotFound", "the server could not find the requested resource")};
  route(t);
}

bool Handler::get_non_resource(const std::string& p) {
  if (p == "/version" || p == "/version/") {
    send(200, fake::version_info());
    return true;
  }
  if (p == "/healthz" || p == "/readyz" || p == "/livez") {
    res.set_content("ok", "text/plain");
    return true;
  }
  if (p == "/api" || p == "/api/") {
    send(200, fake::discovery_api_versions("127.0.0.1:" + std::to_string(s.port)));
    return true;
  }
  if (p == "/apis" || p == "/apis/") {
    json groups = fake::discovery_groups();
    if (!s.opts.kserve) {  // KServe's group only where its CRD is "installed"
      json kept = json::array();
      for (const auto& g : groups["groups"])
        if (g.value("name", "") != fake::kserve_group) kept.push_back(g);
      groups["groups"] = kept;
    }
    send(200, groups);
    return true;
  }
  if (p == "/openapi/v3" || p == "/openapi/v3/") {
    json index = fake::openapi_v3_index();
    if (!s.opts.kserve) index["paths"].erase(std::string("apis/") + fake::kserve_group + "/v1beta1");
    send(200, index);
    return true;
  }
  if (p.rfind("/openapi/v3/", 0) == 0) {
    auto doc = fake::openapi_v3_doc(p.substr(12), s.tfjob_schema);
    if (doc) {
      send(200, *doc);
      return true;
    }
    throw ApiError{404, fake::status_failure(404, "NotFound", "the server could not find the requested resource")};
  }
  std::vector<std::string> seg;
  {
    std::stringstream ss(p);
    std::string x;
    while (std::getline(ss, x, '/'))
      if (!x.empty()) seg.push_back(x);
  }
  if (seg.size() == 2 && seg[0] == "api" && seg[1] == "v1") {
    send(200, fake::discovery_resources("", "v1"));
    return true;
  }
  if (seg.size() == 2 && seg[0] == "apis") {
    json g = fake::discovery_group(seg[1]);
    if (!g.is_null()) {
      send(200, g);
      return true;
    }
  }
  if (seg.size() == 3 && seg[0] == "apis") {
    json r = fake::discovery_resources(seg[1], seg[2]);
    if (!r.is_null()) {
      send(200, r);
      return true;
    }
  }
  return false;
}

void Handler::route(const Target& t) {
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

}  // namespace fake

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
    fake::Handler handler{*this, req, res, {}, {}};
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

bool FakeApiServer::mark_deleting(const std::string& resource, const std::string& ns, const std::string& name,
                                  int grace_period_seconds) {
  const ResourceInfo* ri = fake::find_resource_name(resource);
  if (!ri) throw std::runtime_error("fake-apiserver: unknown resource " + resource);
  std::lock_guard<std::mutex> lk(impl_->mu);
  json* cur = impl_->find_locked(*ri, ns, name);
  if (!cur) return false;
  json& md = (*cur)["metadata"];
  if (!md.contains("deletionTimestamp")) md["deletionTimestamp"] = fake::now_rfc3339();
  md["deletionGracePeriodSeconds"] = grace_period_seconds;
  md["resourceVersion"] = std::to_string(++impl_->rv);
  impl_->emit_locked("MODIFIED", *ri, *cur);
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
