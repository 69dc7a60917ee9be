// The fake API server seen with raw HTTP (cpp-httplib over TLS): auth and TLS failures,
// Status shapes, list paging and selectors, watch semantics, apply, logs, proxy, and each
// fault knob (fail, 429 + Retry-After, 503, 410 on list and watch, dropped watch, cut body,
// stall past a client timeout).
#include <openssl/pem.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include "support/fake_apiserver.hpp"

using nlohmann::json;
using tfjob::test::ContainerScript;
using tfjob::test::FakeApiServer;
using tfjob::test::FakeApiServerOptions;

namespace {

X509* pem_cert(const std::string& pem) {
  BIO* b = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  X509* c = PEM_read_bio_X509(b, nullptr, nullptr, nullptr);
  BIO_free(b);
  return c;
}

EVP_PKEY* pem_key(const std::string& pem) {
  BIO* b = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  EVP_PKEY* k = PEM_read_bio_PrivateKey(b, nullptr, nullptr, nullptr);
  BIO_free(b);
  return k;
}

/// A TLS client trusting `ca`, optionally presenting a client certificate.
struct Client {
  X509* cert = nullptr;
  EVP_PKEY* key = nullptr;
  std::unique_ptr<httplib::SSLClient> cli;
  Client(const FakeApiServer& s, const std::string& ca, const std::string& cert_pem = "", const std::string& key_pem = "",
         const std::string& host = "127.0.0.1") {
    if (!cert_pem.empty()) {
      cert = pem_cert(cert_pem);
      key = pem_key(key_pem);
      cli = std::make_unique<httplib::SSLClient>(host, s.port(), cert, key);
    } else {
      cli = std::make_unique<httplib::SSLClient>(host, s.port());
    }
    X509_STORE* store = X509_STORE_new();
    X509* c = pem_cert(ca);
    X509_STORE_add_cert(store, c);
    X509_free(c);
    cli->set_ca_cert_store(store);
    cli->enable_server_certificate_verification(true);
    cli->set_read_timeout(10, 0);
  }
  ~Client() {
    cli.reset();
    if (cert) X509_free(cert);
    if (key) EVP_PKEY_free(key);
  }
};

std::unique_ptr<Client> admin(const FakeApiServer& s) {
  return std::make_unique<Client>(s, s.ca_pem(), s.client_cert_pem(), s.client_key_pem());
}

httplib::Headers bearer(const std::string& token) { return {{"Authorization", "Bearer " + token}}; }

json make_tfjob(const std::string& name, int workers = 1) {
  return {{"apiVersion", "kubeflow.org/v1"}, {"kind", "TFJob"}, {"metadata", {{"name", name}, {"labels", {{"team", "vision"}}}}},
          {"spec", {{"tfReplicaSpecs", {{"Worker", {{"replicas", workers}, {"template", {{"spec", {{"containers", {{{"name", "tensorflow"}, {"image", "busybox"}}}}}}}}}}}}}}};
}

const char* kJobs = "/apis/kubeflow.org/v1/namespaces/default/tfjobs";

/// Reads a watch stream until `stop` says so or the stream ends; returns the events.
std::vector<json> watch(httplib::SSLClient& cli, const std::string& path, size_t max_events, httplib::Error* err = nullptr,
                        int* status = nullptr) {
  std::vector<json> events;
  std::string buf;
  auto res = cli.Get(
      path, httplib::Headers{}, [&](const httplib::Response& r) {
        if (status) *status = r.status;
        return true;
      },
      [&](const char* data, size_t n) {
        buf.append(data, n);
        size_t pos;
        while ((pos = buf.find('\n')) != std::string::npos) {
          events.push_back(json::parse(buf.substr(0, pos)));
          buf.erase(0, pos + 1);
          if (events.size() >= max_events) return false;
        }
        return true;
      });
  if (err) *err = res.error();
  return events;
}

}  // namespace

TEST_CASE("TLS: the CA verifies the server, client certs and tokens authenticate, the rest is refused", "[fakeserver][tls]") {
  FakeApiServer s(FakeApiServerOptions{});
  {  // admin client certificate
    auto c = admin(s);
    auto r = c->cli->Get("/api/v1/namespaces");
    REQUIRE(r);
    CHECK(r->status == 200);
  }
  {  // the serving cert also covers "localhost"
    Client c(s, s.ca_pem(), "", "", "localhost");
    auto r = c.cli->Get("/version", bearer(s.admin_token()));
    REQUIRE(r);
    CHECK(r->status == 200);
  }
  {  // no credentials: the anonymous user, whom RBAC refuses (kube-apiserver's --anonymous-auth default)
    Client c(s, s.ca_pem());
    auto r = c.cli->Get("/api/v1/pods");
    REQUIRE(r);
    CHECK(r->status == 403);
    CHECK(json::parse(r->body)["message"] ==
          "pods is forbidden: User \"system:anonymous\" cannot list resource \"pods\" in API group \"\" at the cluster scope");
    r = c.cli->Get("/apis");
    REQUIRE(r);
    CHECK(r->status == 403);
    CHECK(json::parse(r->body)["message"] == "forbidden: User \"system:anonymous\" cannot get path \"/apis\"");
    r = c.cli->Get("/version");  // public (system:public-info-viewer)
    REQUIRE(r);
    CHECK(r->status == 200);
    // a token that is not valid: 401 Status
    r = c.cli->Get("/api/v1/pods", bearer("wrong"));
    REQUIRE(r);
    CHECK(r->status == 401);
    s.add_token("rotating", "bot");
    CHECK(c.cli->Get("/api/v1/namespaces/default/pods", bearer("rotating"))->status == 200);
    s.remove_token("rotating");
    CHECK(c.cli->Get("/api/v1/namespaces/default/pods", bearer("rotating"))->status == 401);
  }
  {  // a client that trusts another CA refuses the server
    Client c(s, s.pki().wrong_ca.cert);
    auto r = c.cli->Get("/version");
    CHECK_FALSE(r);
    CHECK(r.error() == httplib::Error::SSLServerVerification);
  }
  // A client certificate that does not verify: the handshake succeeds and the request is
  // 401, as kube-apiserver answers (its x509 authenticator's error fails the request).
  for (const auto* bad : {&s.pki().expired_client, &s.pki().wrong_ca_client}) {
    Client c(s, s.ca_pem(), bad->cert, bad->key);
    auto r = c.cli->Get("/version");
    REQUIRE(r);
    CHECK(r->status == 401);
    CHECK(json::parse(r->body)["reason"] == "Unauthorized");
    r = c.cli->Get("/api/v1/pods", bearer(s.admin_token()));  // a valid token still counts
    REQUIRE(r);
    CHECK(r->status == 200);
  }
  {  // a non-admin certificate user authenticates but may not list
    auto p = s.pki().issue_client("jane", "developers");
    Client c(s, s.ca_pem(), p.cert, p.key);
    auto r = c.cli->Get("/api/v1/namespaces/default/pods");
    REQUIRE(r);
    CHECK(r->status == 403);
    CHECK(json::parse(r->body)["message"] ==
          "pods is forbidden: User \"jane\" cannot list resource \"pods\" in API group \"\" in the namespace \"default\"");
  }
}

TEST_CASE("CRUD answers with kube-apiserver shaped objects and Status errors", "[fakeserver][crud]") {
  FakeApiServerOptions o;
  o.controllers = false;  // nobody else writes the objects meanwhile
  FakeApiServer s(o);
  auto c = admin(s);
  auto& cli = *c->cli;
  auto r = cli.Post(kJobs, make_tfjob("a").dump(), "application/json");
  REQUIRE(r);
  REQUIRE(r->status == 201);
  json created = json::parse(r->body);
  CHECK(created["metadata"]["uid"].get<std::string>().size() == 36);
  CHECK(created["metadata"]["generation"] == 1);
  CHECK(created["metadata"]["namespace"] == "default");
  CHECK_FALSE(created["metadata"]["creationTimestamp"].get<std::string>().empty());
  CHECK(std::stoull(created["metadata"]["resourceVersion"].get<std::string>()) > 0);
  // CRD defaulting: runPolicy.suspend absent stays absent (no runPolicy); with runPolicy it defaults
  json j2 = make_tfjob("b");
  j2["spec"]["runPolicy"] = {{"cleanPodPolicy", "All"}};
  r = cli.Post(kJobs, j2.dump(), "application/json");
  REQUIRE(r);
  CHECK(json::parse(r->body)["spec"]["runPolicy"]["suspend"] == false);

  r = cli.Post(kJobs, make_tfjob("a").dump(), "application/json");
  REQUIRE(r);
  CHECK(r->status == 409);
  CHECK(json::parse(r->body) == json::parse(R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",
     "message":"tfjobs.kubeflow.org \"a\" already exists","reason":"AlreadyExists",
     "details":{"name":"a","group":"kubeflow.org","kind":"tfjobs"},"code":409})"));

  r = cli.Get(std::string(kJobs) + "/nope");
  REQUIRE(r);
  CHECK(r->status == 404);
  CHECK(json::parse(r->body) == json::parse(R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",
     "message":"tfjobs.kubeflow.org \"nope\" not found","reason":"NotFound",
     "details":{"name":"nope","group":"kubeflow.org","kind":"tfjobs"},"code":404})"));

  // update with a stale resourceVersion: 409 Conflict
  json stale = created;
  stale["metadata"]["labels"]["x"] = "1";
  r = cli.Put(std::string(kJobs) + "/a", stale.dump(), "application/json");
  REQUIRE(r);
  REQUIRE(r->status == 200);
  json updated = json::parse(r->body);
  CHECK(updated["metadata"]["generation"] == 1);  // labels are not spec
  r = cli.Put(std::string(kJobs) + "/a", stale.dump(), "application/json");
  REQUIRE(r);
  CHECK(r->status == 409);
  CHECK(json::parse(r->body)["reason"] == "Conflict");
  CHECK(json::parse(r->body)["message"] ==
        "Operation cannot be fulfilled on tfjobs.kubeflow.org \"a\": the object has been modified; please apply your changes to the latest version and try again");

  // merge patch on the spec bumps generation; a no-op patch keeps the resourceVersion
  r = cli.Patch(std::string(kJobs) + "/a", R"({"spec":{"tfReplicaSpecs":{"Worker":{"replicas":3}}}})", "application/merge-patch+json");
  REQUIRE(r);
  REQUIRE(r->status == 200);
  json patched = json::parse(r->body);
  CHECK(patched["metadata"]["generation"] == 2);
  r = cli.Patch(std::string(kJobs) + "/a", R"({"spec":{"tfReplicaSpecs":{"Worker":{"replicas":3}}}})", "application/merge-patch+json");
  REQUIRE(r);
  CHECK(json::parse(r->body)["metadata"]["resourceVersion"] == patched["metadata"]["resourceVersion"]);
  // strategic merge patch is refused for a custom resource, as a real server does
  r = cli.Patch(std::string(kJobs) + "/a", R"({"metadata":{"labels":{"y":"2"}}})", "application/strategic-merge-patch+json");
  REQUIRE(r);
  CHECK(r->status == 415);
  // json patch
  r = cli.Patch(std::string(kJobs) + "/a", R"([{"op":"replace","path":"/spec/tfReplicaSpecs/Worker/replicas","value":4}])",
                "application/json-patch+json");
  REQUIRE(r);
  CHECK(json::parse(r->body)["spec"]["tfReplicaSpecs"]["Worker"]["replicas"] == 4);

  // 422 with causes
  json bad = make_tfjob("bad");
  bad["spec"]["tfReplicaSpecs"]["Worker"]["replicas"] = "x";
  bad["metadata"]["name"] = "Bad_Name";
  r = cli.Post(kJobs, bad.dump(), "application/json");
  REQUIRE(r);
  CHECK(r->status == 422);
  json st = json::parse(r->body);
  CHECK(st["reason"] == "Invalid");
  CHECK(st["details"]["kind"] == "TFJob");
  CHECK(st["details"]["group"] == "kubeflow.org");
  REQUIRE(st["details"]["causes"].size() == 2);
  CHECK(st["details"]["causes"][0]["field"] == "metadata.name");
  CHECK(st["details"]["causes"][0]["reason"] == "FieldValueInvalid");
  CHECK(st["details"]["causes"][1] ==
        json{{"reason", "FieldValueInvalid"}, {"field", "spec.tfReplicaSpecs.Worker.replicas"},
             {"message", "Invalid value: \"string\": spec.tfReplicaSpecs.Worker.replicas in body must be of type integer: \"string\""}});

  // namespaces that do not exist
  r = cli.Post("/apis/kubeflow.org/v1/namespaces/nowhere/tfjobs", make_tfjob("a").dump(), "application/json");
  REQUIRE(r);
  CHECK(r->status == 404);
  CHECK(json::parse(r->body)["message"] == "namespaces \"nowhere\" not found");

  // delete returns the object; a second delete is 404
  r = cli.Delete(std::string(kJobs) + "/a", R"({"propagationPolicy":"Foreground"})", "application/json");
  REQUIRE(r);
  CHECK(r->status == 200);
  CHECK(json::parse(r->body)["metadata"]["name"] == "a");
  r = cli.Delete(std::string(kJobs) + "/a");
  REQUIRE(r);
  CHECK(r->status == 404);
}

TEST_CASE("lists page with limit/continue and filter with label and field selectors", "[fakeserver][list]") {
  FakeApiServerOptions o;
  o.controllers = false;
  FakeApiServer s(o);
  for (int i = 0; i < 7; ++i) {
    json j = make_tfjob("job-" + std::to_string(i));
    j["metadata"]["namespace"] = "default";
    j["metadata"]["labels"]["parity"] = i % 2 ? "odd" : "even";
    s.put_object(j);
  }
  auto c = admin(s);
  std::vector<std::string> names;
  std::string cont;
  int pages = 0;
  do {
    auto r = c->cli->Get(std::string(kJobs) + "?limit=3" + (cont.empty() ? "" : "&continue=" + cont));
    REQUIRE(r);
    REQUIRE(r->status == 200);
    json l = json::parse(r->body);
    CHECK(l["kind"] == "TFJobList");
    for (const auto& it : l["items"]) {
      names.push_back(it["metadata"]["name"]);
      CHECK(it["kind"] == "TFJob");  // custom resource lists keep kind
    }
    cont = l["metadata"].value("continue", "");
    if (!cont.empty()) CHECK(l["metadata"]["remainingItemCount"] == 7 - 3 * (pages + 1));
    ++pages;
  } while (!cont.empty());
  CHECK(pages == 3);
  CHECK(names == std::vector<std::string>{"job-0", "job-1", "job-2", "job-3", "job-4", "job-5", "job-6"});
  auto r = c->cli->Get(std::string(kJobs) + "?labelSelector=parity%3Dodd");
  CHECK(json::parse(r->body)["items"].size() == 3);
  r = c->cli->Get(std::string(kJobs) + "?labelSelector=parity%20in%20(odd,even),team!%3Dnlp");
  CHECK(json::parse(r->body)["items"].size() == 7);
  r = c->cli->Get(std::string(kJobs) + "?fieldSelector=metadata.name%3Djob-4");
  json l = json::parse(r->body);
  REQUIRE(l["items"].size() == 1);
  CHECK(l["items"][0]["metadata"]["name"] == "job-4");
  // builtin lists omit each item's kind, as typed lists do
  r = c->cli->Get("/api/v1/namespaces");
  l = json::parse(r->body);
  CHECK(l["kind"] == "NamespaceList");
  CHECK_FALSE(l["items"][0].contains("kind"));
}

TEST_CASE("watch: from a resourceVersion, bookmarks, selector transitions, 410 after compaction", "[fakeserver][watch]") {
  FakeApiServerOptions o;
  o.controllers = false;
  o.bookmark_interval = std::chrono::milliseconds(100);
  FakeApiServer s(o);
  auto c = admin(s);
  json a = s.put_object(make_tfjob("a"));
  const std::string rv0 = a["metadata"]["resourceVersion"];
  s.put_object(make_tfjob("b"));
  json a2 = make_tfjob("a");
  a2["metadata"]["labels"]["team"] = "nlp";
  s.put_object(a2);
  s.delete_object("tfjobs", "default", "b");
  // from rv0: exactly the three later changes, in order, with kind/apiVersion
  auto ev = watch(*c->cli, std::string(kJobs) + "?watch=true&resourceVersion=" + rv0, 3);
  REQUIRE(ev.size() == 3);
  CHECK(ev[0]["type"] == "ADDED");
  CHECK(ev[0]["object"]["metadata"]["name"] == "b");
  CHECK(ev[1]["type"] == "MODIFIED");
  CHECK(ev[2]["type"] == "DELETED");
  CHECK(ev[2]["object"]["kind"] == "TFJob");
  CHECK(ev[2]["object"]["apiVersion"] == "kubeflow.org/v1");
  // with a label selector, leaving the selection is a DELETED event
  ev = watch(*c->cli, std::string(kJobs) + "?watch=1&labelSelector=team%3Dvision&resourceVersion=" + rv0, 2);
  REQUIRE(ev.size() == 2);
  CHECK(ev[0]["type"] == "ADDED");
  CHECK(ev[1]["type"] == "DELETED");
  CHECK(ev[1]["object"]["metadata"]["name"] == "a");
  // no resourceVersion: synthetic ADDED for what exists
  ev = watch(*c->cli, std::string(kJobs) + "?watch=1", 1);
  REQUIRE(ev.size() == 1);
  CHECK(ev[0]["type"] == "ADDED");
  CHECK(ev[0]["object"]["metadata"]["name"] == "a");
  // bookmarks carry the current resourceVersion
  ev = watch(*c->cli, std::string(kJobs) + "?watch=1&allowWatchBookmarks=true&resourceVersion=" + std::to_string(s.resource_version()), 1);
  REQUIRE(ev.size() == 1);
  CHECK(ev[0]["type"] == "BOOKMARK");
  CHECK(ev[0]["object"]["metadata"]["resourceVersion"] == std::to_string(s.resource_version()));
  // timeoutSeconds ends the stream cleanly
  httplib::Error err;
  ev = watch(*c->cli, std::string(kJobs) + "?watch=1&timeoutSeconds=1&resourceVersion=" + std::to_string(s.resource_version()), 10, &err);
  CHECK(ev.empty());
  CHECK(err == httplib::Error::Success);
  // after compaction an old resourceVersion is "too old": 200, then an ERROR event with 410
  s.faults().compact_history();
  int status = 0;
  ev = watch(*c->cli, std::string(kJobs) + "?watch=1&resourceVersion=" + rv0, 5, &err, &status);
  CHECK(status == 200);
  REQUIRE(ev.size() == 1);
  CHECK(ev[0]["type"] == "ERROR");
  CHECK(ev[0]["object"]["code"] == 410);
  CHECK(ev[0]["object"]["reason"] == "Expired");
  CHECK(ev[0]["object"]["message"].get<std::string>().rfind("too old resource version: " + rv0, 0) == 0);
  // list continue tokens from before the compaction are expired too
}

TEST_CASE("fault knobs: fail, 429 with Retry-After, 503, 410, drop, cut and stall", "[fakeserver][faults]") {
  FakeApiServerOptions o;
  o.controllers = false;
  FakeApiServer s(o);
  auto c = admin(s);
  auto& cli = *c->cli;
  s.put_object(make_tfjob("a"));
  s.put_object(make_tfjob("b"));

  s.faults().throttle_next(2, 1, "/tfjobs");
  auto r = cli.Get(kJobs);
  REQUIRE(r);
  CHECK(r->status == 429);
  CHECK(r->get_header_value("Retry-After") == "2");
  json st = json::parse(r->body);
  CHECK(st["reason"] == "TooManyRequests");
  CHECK(st["details"]["retryAfterSeconds"] == 2);
  r = cli.Get(kJobs);  // consumed: the next one succeeds
  CHECK(r->status == 200);

  s.faults().unavailable_next(2);
  CHECK(cli.Get(kJobs)->status == 503);
  CHECK(json::parse(cli.Get("/api/v1/pods")->body)["reason"] == "ServiceUnavailable");
  CHECK(cli.Get(kJobs)->status == 200);

  s.faults().fail_next(500, 1, "", "POST");
  CHECK(cli.Get(kJobs)->status == 200);  // method filter: a GET is untouched
  r = cli.Post(kJobs, make_tfjob("c").dump(), "application/json");
  CHECK(r->status == 500);
  CHECK_FALSE(s.get_object("tfjobs", "default", "c"));  // a failed create creates nothing

  s.faults().gone_next(1, "/tfjobs");
  r = cli.Get(std::string(kJobs) + "?limit=1");
  CHECK(r->status == 410);
  CHECK(json::parse(r->body)["reason"] == "Expired");

  s.faults().gone_next(1, "/tfjobs");
  int status = 0;
  auto ev = watch(cli, std::string(kJobs) + "?watch=1&resourceVersion=" + std::to_string(s.resource_version()), 5, nullptr, &status);
  CHECK(status == 200);
  REQUIRE(ev.size() == 1);
  CHECK(ev[0]["type"] == "ERROR");
  CHECK(ev[0]["object"]["code"] == 410);

  // drop a watch after 1 event, abruptly: the client sees a broken stream
  s.faults().drop_watch_after(1, 1, true);
  httplib::Error err;
  ev = watch(cli, std::string(kJobs) + "?watch=1", 10, &err);
  CHECK(ev.size() == 1);
  CHECK(err != httplib::Error::Success);
  // ... or cleanly: the stream ends without error
  s.faults().drop_watch_after(1, 1, false);
  ev = watch(cli, std::string(kJobs) + "?watch=1", 10, &err);
  CHECK(ev.size() == 1);
  CHECK(err == httplib::Error::Success);

  // cut a streamed body after 10 bytes
  s.faults().cut_body_after(10, 1, "/tfjobs");
  std::string got;
  auto res = cli.Get(std::string(kJobs) + "?watch=1", [&](const char* d, size_t n) {
    got.append(d, n);
    return true;
  });
  CHECK_FALSE(res);
  CHECK(got.size() == 10);

  // stall past the client's timeout
  s.faults().stall_next(std::chrono::milliseconds(1500), 1, "/tfjobs");
  cli.set_read_timeout(0, 500000);
  auto t0 = std::chrono::steady_clock::now();
  r = cli.Get(kJobs);
  CHECK_FALSE(r);
  CHECK(r.error() == httplib::Error::Read);
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::milliseconds(1400));
  cli.set_read_timeout(10, 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(1200));
  CHECK(cli.Get(kJobs)->status == 200);
  CHECK(s.faults().fired() == 10);
}

TEST_CASE("server-side apply creates, updates, removes what the manager dropped, and reports conflicts", "[fakeserver][apply]") {
  FakeApiServerOptions o;
  o.controllers = false;
  FakeApiServer s(o);
  auto c = admin(s);
  auto& cli = *c->cli;
  const std::string path = std::string(kJobs) + "/ssa?fieldManager=kubectl-tfjob";
  // YAML body, as kubectl-tfjob may send it
  std::string yaml = R"(apiVersion: kubeflow.org/v1
kind: TFJob
metadata:
  name: ssa
  labels: {a: "1", b: "2"}
spec:
  tfReplicaSpecs:
    Worker:
      replicas: 2
      template:
        spec:
          containers:
          - name: tensorflow
            image: busybox
)";
  auto r = cli.Patch(path, yaml, "application/apply-patch+yaml");
  REQUIRE(r);
  CHECK(r->status == 201);
  r = cli.Patch(std::string(kJobs) + "/ssa", yaml, "application/apply-patch+yaml");
  CHECK(r->status == 422);  // fieldManager is required (Invalid PatchOptions, as kube-apiserver 1.20)
  // drop label b: the manager owned it, so it goes
  std::string yaml2 = yaml;
  yaml2.replace(yaml2.find(", b: \"2\""), 8, "");
  r = cli.Patch(path, yaml2, "application/apply-patch+yaml");
  REQUIRE(r);
  REQUIRE(r->status == 200);
  json j = json::parse(r->body);
  CHECK(j["metadata"]["labels"] == json{{"a", "1"}});
  // another manager changing a field the first one set: 409 unless forced
  std::string other = R"({"apiVersion":"kubeflow.org/v1","kind":"TFJob","metadata":{"name":"ssa"},"spec":{"tfReplicaSpecs":{"Worker":{"replicas":5}}}})";
  r = cli.Patch(std::string(kJobs) + "/ssa?fieldManager=someone-else", other, "application/apply-patch+yaml");
  REQUIRE(r);
  CHECK(r->status == 409);
  json st = json::parse(r->body);
  CHECK(st["reason"] == "Conflict");
  CHECK(st["message"] == "Apply failed with 1 conflict: conflict with \"kubectl-tfjob\": .spec.tfReplicaSpecs.Worker.replicas");
  CHECK(st["details"]["causes"][0]["field"] == ".spec.tfReplicaSpecs.Worker.replicas");
  r = cli.Patch(std::string(kJobs) + "/ssa?fieldManager=someone-else&force=true", other, "application/apply-patch+yaml");
  REQUIRE(r);
  CHECK(r->status == 200);
  j = json::parse(r->body);
  CHECK(j["spec"]["tfReplicaSpecs"]["Worker"]["replicas"] == 5);
  CHECK(j["spec"]["tfReplicaSpecs"]["Worker"]["template"]["spec"]["containers"][0]["image"] == "busybox");
}

TEST_CASE("pod logs: follow, tailLines, timestamps, previous, container, synthetic lines, proxy hook", "[fakeserver][logs]") {
  FakeApiServerOptions o;
  o.pod_start_delay = std::chrono::milliseconds(0);
  FakeApiServer s(o);
  ContainerScript sc;
  sc.lines = {"one", "two", "three"};
  sc.generated_lines = 1000;
  sc.generated_line_bytes = 50;
  sc.exit_code = std::nullopt;
  sc.restart_exit_codes = {137};
  s.kubelet().script("p", sc, "main");
  s.put_object({{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", {{"name", "p"}, {"namespace", "default"}}},
                {"spec", {{"restartPolicy", "Always"}, {"containers", {{{"name", "main"}, {"image", "busybox"}}, {{"name", "side"}, {"image", "busybox"}}}}}}});
  REQUIRE(s.wait_for([&] {
    auto p = s.get_object("pods", "default", "p");
    return p && (*p)["status"].contains("containerStatuses") && (*p)["status"]["containerStatuses"][0].value("restartCount", 0) == 1 &&
           (*p)["status"]["phase"] == "Running" && (*p)["status"]["containerStatuses"][0]["state"].contains("running");
  }));
  auto c = admin(s);
  auto& cli = *c->cli;
  const std::string base = "/api/v1/namespaces/default/pods/p/log";
  auto r = cli.Get(base);
  REQUIRE(r);
  CHECK(r->status == 400);
  CHECK(json::parse(r->body)["message"] == "a container name must be specified for pod p, choose one of: [main side]");
  r = cli.Get(base + "?container=main&tailLines=2");
  REQUIRE(r);
  CHECK(r->status == 200);
  CHECK(r->get_header_value("Content-Type") == "text/plain");
  std::string want_tail = s.kubelet().log("default", "p", "main");
  auto second_last = want_tail.rfind('\n', want_tail.size() - 2);
  second_last = want_tail.rfind('\n', second_last - 1);
  CHECK(r->body == want_tail.substr(second_last + 1));
  r = cli.Get(base + "?container=main");
  CHECK(r->body.size() == 4 + 4 + 6 + 1000 * 51);
  CHECK(r->body.rfind("one\ntwo\nthree\nline 000000000000 ", 0) == 0);
  r = cli.Get(base + "?container=main&previous=true");
  CHECK(r->status == 200);
  CHECK(r->body.size() == 4 + 4 + 6 + 1000 * 51);  // the crashed first attempt printed the same
  r = cli.Get(base + "?container=side&previous=true");
  CHECK(r->status == 400);
  r = cli.Get(base + "?container=main&timestamps=true&tailLines=1");
  CHECK(r->body.size() > 31);
  CHECK(r->body[4] == '-');
  CHECK(r->body.substr(29, 2) == "Z ");
  r = cli.Get(base + "?container=main&limitBytes=5");
  CHECK(r->body == "one\nt");

  // follow: lines appended later arrive; finishing the container ends the stream
  std::string got;
  std::thread writer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    s.kubelet().append_log("default", "p", "side", {"late 1", "late 2"});
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    s.kubelet().finish("default", "p", "side", 0);
  });
  auto res = cli.Get(base + "?container=side&follow=true", [&](const char* d, size_t n) {
    got.append(d, n);
    return true;
  });
  writer.join();
  CHECK(res);
  CHECK(got == "late 1\nlate 2\n");

  // the service proxy hook
  s.put_object({{"apiVersion", "v1"}, {"kind", "Service"}, {"metadata", {{"name", "serving"}, {"namespace", "default"}}},
                {"spec", {{"ports", {{{"port", 8501}}}}}}});
  s.set_proxy_handler("serv*", [](const tfjob::test::ProxyRequest& pr) {
    tfjob::test::ProxyResponse out;
    out.body = json{{"method", pr.method}, {"path", pr.path}, {"port", pr.port}, {"body", pr.body}}.dump();
    return out;
  });
  r = cli.Post("/api/v1/namespaces/default/services/serving:8501/proxy/v1/models/resnet:predict", R"({"instances":[1]})", "application/json");
  REQUIRE(r);
  CHECK(r->status == 200);
  CHECK(json::parse(r->body) == json{{"method", "POST"}, {"path", "/v1/models/resnet:predict"}, {"port", "8501"}, {"body", R"({"instances":[1]})"}});
  r = cli.Get("/api/v1/namespaces/default/services/missing:8501/proxy/");
  CHECK(r->status == 404);
}

TEST_CASE("the operator: pods, services, TF_CONFIG, labels, restarts on retryable exit codes, failure", "[fakeserver][operator]") {
  FakeApiServerOptions o;
  o.pod_start_delay = std::chrono::milliseconds(0);
  o.gpu_nodes = 1;
  FakeApiServer s(o);
  ContainerScript crash;
  crash.lines = {"boom"};
  crash.restart_exit_codes = {137};  // first attempt killed (retryable), then succeeds
  crash.exit_code = 0;
  s.kubelet().script("rj-worker-0", crash);
  json j = make_tfjob("rj", 2);
  j["metadata"]["namespace"] = "default";
  j["spec"]["tfReplicaSpecs"]["Worker"]["restartPolicy"] = "ExitCode";
  j["spec"]["tfReplicaSpecs"]["PS"] = j["spec"]["tfReplicaSpecs"]["Worker"];
  j["spec"]["tfReplicaSpecs"]["PS"]["replicas"] = 1;
  ContainerScript forever;
  forever.exit_code = std::nullopt;
  s.kubelet().script("rj-ps-*", forever);
  s.put_object(j);
  REQUIRE(s.wait_for([&] { return s.list_objects("pods", "default").size() == 3; }));
  auto w1 = s.get_object("pods", "default", "rj-worker-1");
  REQUIRE(w1);
  const json& labels = (*w1)["metadata"]["labels"];
  CHECK(labels["training.kubeflow.org/job-name"] == "rj");
  CHECK(labels["training.kubeflow.org/replica-type"] == "worker");
  CHECK(labels["training.kubeflow.org/replica-index"] == "1");
  CHECK(labels["training.kubeflow.org/operator-name"] == "tfjob-controller");
  CHECK_FALSE(labels.contains("training.kubeflow.org/job-role"));
  CHECK((*s.get_object("pods", "default", "rj-worker-0"))["metadata"]["labels"]["training.kubeflow.org/job-role"] == "master");
  CHECK((*w1)["spec"]["restartPolicy"] == "Never");
  CHECK((*w1)["metadata"]["ownerReferences"][0]["kind"] == "TFJob");
  CHECK((*w1)["spec"]["containers"][0]["ports"][0] == json{{"name", "tfjob-port"}, {"containerPort", 2222}, {"protocol", "TCP"}});
  CHECK((*w1)["spec"]["containers"][0]["env"][0]["value"] ==
        "{\"cluster\":{\"ps\":[\"rj-ps-0.default.svc:2222\"],\"worker\":[\"rj-worker-0.default.svc:2222\",\"rj-worker-1.default.svc:2222\"]},"
        "\"task\":{\"type\":\"worker\",\"index\":1},\"environment\":\"cloud\"}");
  CHECK(s.get_object("services", "default", "rj-ps-0"));
  // worker 0 is killed with 137 (retryable under ExitCode): the operator recreates it, then
  // worker 0 succeeds, which (no chief) makes the job succeed
  REQUIRE(s.wait_for([&] {
    auto jj = s.get_object("tfjobs", "default", "rj");
    return jj && jj->value("status", json::object()).value("conditions", json::array()).size() >= 3 &&
           (*jj)["status"]["conditions"].back()["type"] == "Succeeded";
  }));
  auto jj = *s.get_object("tfjobs", "default", "rj");
  std::vector<std::string> types;
  for (const auto& cnd : jj["status"]["conditions"]) types.push_back(cnd["type"]);
  CHECK(types.front() == "Created");
  CHECK(std::find(types.begin(), types.end(), "Succeeded") != types.end());
  CHECK(jj["status"].contains("completionTime"));
  CHECK(jj["status"]["replicaStatuses"]["Worker"]["selector"] ==
        "training.kubeflow.org/job-name=rj,training.kubeflow.org/operator-name=tfjob-controller,training.kubeflow.org/replica-type=worker");
  bool restarted = false;
  for (const auto& e : s.list_objects("events", "default"))
    if (e.value("reason", "") == "TFJobRestarting") restarted = true;
  CHECK(restarted);

  // a permanent failure (exit 1, restartPolicy Never) fails the job
  ContainerScript fail;
  fail.lines = {"bad"};
  fail.exit_code = 1;
  s.kubelet().script("fj-*", fail);
  json f = make_tfjob("fj", 1);
  f["metadata"]["namespace"] = "default";
  f["spec"]["tfReplicaSpecs"]["Worker"]["template"]["spec"]["containers"][0]["resources"] = {{"limits", {{"nvidia.com/gpu", 1}}}};
  s.put_object(f);
  REQUIRE(s.wait_for([&] {
    auto x = s.get_object("tfjobs", "default", "fj");
    return x && !x->value("status", json::object()).value("conditions", json::array()).empty() && (*x)["status"]["conditions"].back()["type"] == "Failed";
  }));
  auto x = *s.get_object("tfjobs", "default", "fj");
  CHECK(x["status"]["conditions"].back()["message"] == "TFJob default/fj has failed because 1 Worker replica(s) failed.");
  CHECK((*s.get_object("pods", "default", "fj-worker-0"))["spec"]["nodeName"] == "fake-gpu-node-0");
  CHECK_FALSE((*s.get_object("pods", "default", "fj-worker-0"))["spec"]["containers"][0].contains("env"));  // 1 replica: no TF_CONFIG
}
