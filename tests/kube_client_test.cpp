// The SDK's client against the fake API server: TLS and auth failures, exec credentials,
// in-cluster token rotation, proxies, redaction, typed CRUD, pagination, selectors, typed
// Status errors, retries, timeouts and discovery.
#include <catch2/catch.hpp>

#include <tfjob/kube/kube.hpp>

#include "support/fake_apiserver.hpp"
#include "support/kube_test_util.hpp"
#include "support/paths.hpp"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <string>

using namespace tfjob::kube;
using tfjob::k8s::Node;
using tfjob::k8s::Service;
using tfjob::test::FakeApiServer;
using tfjob::test::FakeApiServerOptions;
using namespace tfjob::test::kube;

namespace {

FakeApiServer& server() {
  static FakeApiServer s([] {
    FakeApiServerOptions o;
    o.controllers = false;
    return o;
  }());
  return s;
}

RestConfig base_config() {
  RestConfig rc;
  rc.server = server().url();
  rc.tls.ca_pem = server().ca_pem();
  rc.tls.ca_source = "the fake's CA";
  rc.namespace_ = "default";
  return rc;
}

RestConfig cert_config() {
  RestConfig rc = base_config();
  rc.tls.client_cert_pem = server().client_cert_pem();
  rc.tls.client_key_pem = server().client_key_pem();
  return rc;
}

RestConfig token_config(const std::string& token) {
  RestConfig rc = base_config();
  rc.auth.token = token;
  return rc;
}

nlohmann::json service(const std::string& name, const std::string& ns = "default",
                       std::map<std::string, std::string> labels = {}) {
  nlohmann::json s = {{"apiVersion", "v1"},
                      {"kind", "Service"},
                      {"metadata", {{"name", name}, {"namespace", ns}}},
                      {"spec", {{"ports", {{{"port", 80}, {"targetPort", 8080}}}}}}};
  for (auto& [k, v] : labels) s["metadata"]["labels"][k] = v;
  return s;
}

std::string expect_transport_error(Client c) {
  try {
    Api<Service>(c, "default").list();
  } catch (const tfjob::transport_error& e) {
    return e.what();
  }
  FAIL("no transport error");
  return {};
}

std::string expect_auth_error(Client c) {
  try {
    Api<Service>(c, "default").list();
  } catch (const tfjob::auth_error& e) {
    return e.what();
  }
  FAIL("no auth error");
  return {};
}

int count_requests(const std::string& method, const std::string& path_part) {
  int n = 0;
  for (const auto& r : server().requests())
    if (r.method == method && r.path.find(path_part) != std::string::npos) ++n;
  return n;
}

}  // namespace

TEST_CASE("the fake's kubeconfig works with a client certificate and with a token", "[kube][tls]") {
  TempDir d;
  server().write_kubeconfig(d.path + "/config");
  ConfigOverrides o;
  o.kubeconfig = d.path + "/config";
  for (const char* ctx : {"fake-cert", "fake-token"}) {
    o.context = ctx;
    Client c(load_config(o));
    server().clear_requests();
    auto nodes = Api<Node>(c).list();
    CHECK_FALSE(nodes.resource_version.empty());
    auto reqs = server().requests();
    REQUIRE_FALSE(reqs.empty());
    // an SDK client that sets nothing names the SDK, in client-go's shape; not the plugin
    CHECK(reqs.back().user_agent == tfjob::kube::default_user_agent("tfjob-sdk"));
    CHECK(reqs.back().user_agent.rfind(std::string("tfjob-sdk/") + tfjob::version + " (", 0) == 0);
    CHECK(reqs.back().status == 200);
    CHECK_FALSE(reqs.back().user.empty());
  }
}

TEST_CASE("TLS failures are clear: wrong CA, wrong host name, expired or foreign client certificate", "[kube][tls]") {
  SECTION("wrong CA") {
    RestConfig rc = cert_config();
    rc.tls.ca_pem = server().pki().wrong_ca.cert;
    rc.tls.ca_source = "certificate-authority-data of cluster \"fake\"";
    auto m = expect_transport_error(Client(rc));
    CHECK_THAT(m, Catch::Contains("certificate signed by unknown authority") &&
                      Catch::Contains("certificate-authority-data of cluster \"fake\""));
  }
  SECTION("no CA: the system trust store does not know the fake's CA") {
    RestConfig rc = cert_config();
    rc.tls.ca_pem.clear();
    CHECK_THAT(expect_transport_error(Client(rc)),
               Catch::Contains("unknown authority") && Catch::Contains("system trust store"));
  }
  SECTION("wrong host name") {
    RestConfig rc = cert_config();
    rc.tls.server_name = "api.wrong.example";
    CHECK_THAT(expect_transport_error(Client(rc)),
               Catch::Contains("certificate is valid for") && Catch::Contains("127.0.0.1") &&
                   Catch::Contains("not api.wrong.example") && Catch::Contains("tls-server-name"));
  }
  SECTION("tls-server-name overrides the name checked (SNI) while dialling the address") {
    RestConfig rc = cert_config();
    rc.tls.server_name = "localhost";
    CHECK_NOTHROW(Api<Node>(Client(rc)).list());
  }
  // kube-apiserver (and the fake) accept the handshake and answer 401 for a client
  // certificate that does not verify: an auth_error that says what to do
  SECTION("expired client certificate") {
    RestConfig rc = base_config();
    rc.tls.client_cert_pem = server().pki().expired_client.cert;
    rc.tls.client_key_pem = server().pki().expired_client.key;
    CHECK_THAT(expect_auth_error(Client(rc)), Catch::Contains("Unauthorized (401)") &&
                                                 Catch::Contains("the client certificate expired on"));
  }
  SECTION("client certificate from another CA") {
    RestConfig rc = base_config();
    rc.tls.client_cert_pem = server().pki().wrong_ca_client.cert;
    rc.tls.client_key_pem = server().pki().wrong_ca_client.key;
    CHECK_THAT(expect_auth_error(Client(rc)), Catch::Contains("Unauthorized (401)") && Catch::Contains("client certificate"));
  }
  SECTION("a key that does not match the certificate") {
    RestConfig rc = base_config();
    rc.tls.client_cert_pem = server().pki().admin_client.cert;
    rc.tls.client_key_pem = server().pki().wrong_ca_client.key;
    CHECK_THROWS_WITH(Client(rc), Catch::Contains("do not belong together"));
  }
  SECTION("insecure-skip-tls-verify connects and warns the application") {
    RestConfig rc = cert_config();
    rc.tls.ca_pem.clear();
    rc.tls.insecure_skip_verify = true;
    std::vector<std::string> warnings;
    rc.warn = [&](const std::string& w) { warnings.push_back(w); };
    Client c(rc);
    auto nodes = Api<Node>(c).list();
    REQUIRE(warnings.size() == 1);
    CHECK_THAT(warnings[0], Catch::Contains("insecure-skip-tls-verify") && Catch::Contains("not protected"));
  }
}

TEST_CASE("bad credentials: 401 is an auth_error that never shows the token", "[kube][auth]") {
  RestConfig rc = token_config("s3cr3t-wrong-token");
  rc.auth.user_name = "alice";
  try {
    Api<Node>(Client(rc)).list();
    FAIL("accepted a bad token");
  } catch (const tfjob::auth_error& e) {
    std::string m = e.what();
    CHECK_THAT(m, Catch::Contains("Unauthorized") && Catch::Contains("user \"alice\""));
    CHECK_THAT(m, !Catch::Contains("s3cr3t"));
  }
}

TEST_CASE("verbose logging (-v=6 to 9) prints each request with the token redacted", "[kube][auth]") {
  RestConfig rc = token_config(server().admin_token());
  rc.verbosity = 9;
  std::string log;
  rc.log = [&](const std::string& l) { log += l + "\n"; };
  Client c(rc);
  Api<Service> svc(c, "default");
  svc.get_opt("nothing-here");
  CHECK_THAT(log, Catch::Contains("GET " + server().url() + "/api/v1/namespaces/default/services/nothing-here 404"));
  CHECK_THAT(log, Catch::Contains("milliseconds"));
  CHECK_THAT(log, Catch::Contains("Authorization: Bearer <masked>"));
  CHECK(log.find(server().admin_token()) == std::string::npos);
  // Quiet below 6.
  rc.verbosity = 5;
  std::string quiet;
  rc.log = [&](const std::string& l) { quiet += l; };
  Api<Service>(Client(rc), "default").get_opt("nothing-here");
  CHECK(quiet.empty());
}

TEST_CASE("the client writes nothing to stderr itself: -v lines and warnings only reach callbacks", "[kube][auth]") {
  RestConfig rc = token_config(server().admin_token());
  rc.verbosity = 9;
  rc.tls.insecure_skip_verify = true;  // a warning, were anyone listening
  rc.tls.ca_pem.clear();
  StderrCapture captured;
  auto found = Api<Service>(Client(rc), "default").get_opt("nothing-here");
  std::string written = captured.finish();
  CHECK_FALSE(found);  // the request was made, and logged nowhere
  CHECK(written.empty());
}

TEST_CASE("in-cluster: the service-account token is re-read on every request", "[kube][auth]") {
  TempDir d;
  EnvGuard env;
  d.write("sa/token", server().admin_token());
  d.write("sa/ca.crt", server().ca_pem());
  d.write("sa/namespace", "default");
  env.set("KUBECONFIG", d.path + "/none");
  env.set("KUBERNETES_SERVICE_HOST", "127.0.0.1");
  env.set("KUBERNETES_SERVICE_PORT", std::to_string(server().port()));
  ConfigOverrides o;
  o.service_account_dir = d.path + "/sa";
  Client c(load_config(o));
  CHECK(c.config().in_cluster);
  CHECK_NOTHROW(Api<Node>(c).list());
  d.write("sa/token", "rotated-but-not-yet-valid");
  CHECK_THROWS_AS(Api<Node>(c).list(), tfjob::auth_error);
  server().add_token("rotated-token-2", "system:serviceaccount:default:trainer");
  d.write("sa/token", "rotated-token-2\n");
  CHECK_NOTHROW(Api<Node>(c).list());
  CHECK(server().requests().back().user == "system:serviceaccount:default:trainer");
}

TEST_CASE("proxy-url: HTTPS through an HTTP CONNECT proxy", "[kube][proxy]") {
  ConnectProxy proxy;
  RestConfig rc = cert_config();
  rc.proxy_url = "http://127.0.0.1:" + std::to_string(proxy.port());
  Client c(rc);
  CHECK_NOTHROW(Api<Node>(c).list());
  auto lines = proxy.lines();
  REQUIRE_FALSE(lines.empty());
  CHECK(lines[0] == "CONNECT 127.0.0.1:" + std::to_string(server().port()) + " HTTP/1.1");

  rc.proxy_url = "socks5://127.0.0.1:1080";
  CHECK_THROWS_WITH(Api<Node>(Client(rc)).list(), Catch::Contains("only http:// proxies"));
}

TEST_CASE("typed CRUD with server-side apply, merge patch and delete", "[kube][api]") {
  Client c(cert_config());
  Api<Service> svc(c, "default");
  svc.remove_opt("crud-a");

  Service s = service("crud-a").get<Service>();
  Service created = svc.create(s);
  CHECK(created.metadata.name == "crud-a");
  CHECK_FALSE(created.metadata.uid.empty());
  CHECK_FALSE(created.metadata.resource_version.empty());
  CHECK(svc.get("crud-a").metadata.uid == created.metadata.uid);
  CHECK_FALSE(svc.get_opt("crud-missing").has_value());

  try {
    svc.get("crud-missing");
    FAIL("found a missing service");
  } catch (const tfjob::api_error& e) {
    CHECK(e.is_not_found());
    CHECK(e.status().reason == "NotFound");
    CHECK_THAT(std::string(e.what()), Catch::Contains("crud-missing"));
  }
  try {
    svc.create(s);
    FAIL("created twice");
  } catch (const tfjob::api_error& e) {
    CHECK(e.is_already_exists());
    CHECK(e.code() == 409);
  }

  Service patched = svc.patch("crud-a", {{"metadata", {{"labels", {{"tier", "web"}}}}}});
  CHECK(patched.metadata.label("tier") == "web");

  nlohmann::json applied = service("crud-a");
  applied["metadata"]["annotations"]["owner"] = "kubectl-tfjob";
  ApplyParams ap;
  ap.force = true;
  Service a = svc.apply(applied.get<Service>(), ap);
  CHECK(a.metadata.annotation("owner") == "kubectl-tfjob");
  bool saw_apply = false;
  for (const auto& r : server().requests())
    if (r.method == "PATCH" && r.content_type.find("apply-patch") != std::string::npos &&
        r.query.find("fieldManager=tfjob-sdk") != std::string::npos && r.query.find("force=true") != std::string::npos)
      saw_apply = true;
  CHECK(saw_apply);

  // Apply also creates.
  svc.remove_opt("crud-b");
  CHECK(svc.apply(service("crud-b").get<Service>()).metadata.name == "crud-b");

  DeleteParams dp;
  dp.propagation_policy = "Foreground";
  svc.remove("crud-a", dp);
  CHECK_FALSE(svc.get_opt("crud-a").has_value());
  CHECK_FALSE(svc.remove_opt("crud-a"));
  CHECK_THROWS_AS(svc.remove("crud-a"), tfjob::api_error);
  svc.remove("crud-b");

  // The object's namespace must match the Api's.
  CHECK_THROWS_WITH(svc.create(service("x", "elsewhere").get<Service>()), Catch::Contains("does not match"));
  // An all-namespaces Api cannot create.
  CHECK_THROWS_WITH(Api<Service>::all(c).get("x"), Catch::Contains("namespace is required"));
}

TEST_CASE("Status errors are typed: 403 for a namespace a token may not touch, 422 with causes", "[kube][api]") {
  Client limited(token_config(server().limited_token()));
  try {
    Api<Service>(limited, "default").list();
    FAIL("limited token listed default");
  } catch (const tfjob::api_error& e) {
    CHECK(e.is_forbidden());
    CHECK(e.code() == 403);
  }
  CHECK_NOTHROW(Api<Service>(limited, "team-a").list());

  Client c(cert_config());
  Api<DynamicObject> tfjobs(c, ResourceInfo{"kubeflow.org", "v1", "tfjobs", "TFJob", true}, "default");
  nlohmann::json bad = {{"apiVersion", "kubeflow.org/v1"},
                        {"kind", "TFJob"},
                        {"metadata", {{"name", "bad-job"}}},
                        {"spec", {{"tfReplicaSpecs", {{"Worker", {{"replicas", "three"}, {"template", nlohmann::json::object()}}}}}}}};
  try {
    tfjobs.create(DynamicObject(bad));
    FAIL("invalid TFJob accepted");
  } catch (const tfjob::api_error& e) {
    CHECK(e.is_invalid());
    CHECK(e.code() == 422);
    REQUIRE_FALSE(e.status().causes.empty());
    CHECK_THAT(e.status().causes[0].field, Catch::Contains("replicas"));
    CHECK_THAT(std::string(e.what()), Catch::Contains("replicas"));
  }
}

TEST_CASE("a 2xx answer that is not JSON is a decode error naming its first bytes, not a transport error", "[kube][api]") {
  Client c(cert_config());
  Api<Service> svc(c, "default");
  server().clear_requests();
  server().faults().answer_next(200, "<html><body>Sign in to continue</body></html>", 1,
                                "/api/v1/namespaces/default/services/portal", "", "GET", "text/html");
  try {
    svc.get("portal");
    FAIL("a 200 HTML page was taken for a Service");
  } catch (const tfjob::transport_error& e) {
    FAIL(std::string("a decode problem reported as a transport error: ") + e.what());
  } catch (const tfjob::decode_error& e) {
    CHECK(e.http_status() == 200);
    CHECK_THAT(std::string(e.what()), Catch::Contains("the server answered 200 but its body is not valid JSON") &&
                                          Catch::Contains("at line 1, column 1") &&
                                          Catch::Contains("the body begins: <html><body>Sign in"));
  }
  // Not retried: the server answered, and asking again would get the same page.
  std::size_t asked = 0;
  for (const auto& r : server().requests()) asked += r.path == "/api/v1/namespaces/default/services/portal";
  CHECK(asked == 1);

  // The first bytes are shown printable and bounded, whatever the body holds.
  server().faults().answer_next(200, std::string("\x01\xff") + std::string(5000, 'x'), 1,
                                "/api/v1/namespaces/default/services/binary");
  try {
    svc.get("binary");
    FAIL("a binary body was taken for a Service");
  } catch (const tfjob::decode_error& e) {
    std::string m = e.what();
    CHECK_THAT(m, Catch::Contains("the body begins: ??xxx"));
    CHECK(m.size() < 600);
  }
}

TEST_CASE("list follows continue tokens, restarts on 410, and honours selectors", "[kube][api]") {
  Client c(cert_config());
  for (int i = 0; i < 25; ++i)
    server().put_object(service("page-" + std::to_string(i), "paging", {{"batch", i % 2 ? "odd" : "even"}}));
  Api<Service> svc(c, "paging");
  server().clear_requests();
  ListParams lp;
  lp.limit = 10;
  auto all = svc.list(lp);
  CHECK(all.items.size() == 25);
  CHECK(count_requests("GET", "/namespaces/paging/services") == 3);
  CHECK_FALSE(all.resource_version.empty());

  auto first = svc.list_page(lp);
  CHECK(first.items.size() == 10);
  REQUIRE_FALSE(first.continue_token.empty());
  server().faults().gone_next(1, "/namespaces/paging/services");
  ListParams cont = lp;
  cont.continue_token = first.continue_token;
  CHECK(svc.list(cont).items.size() == 25);  // expired continue → start over

  lp.label_selector = "batch=odd";
  auto odd = svc.list(lp);
  CHECK(odd.items.size() == 12);
  for (const auto& s : odd.items) CHECK(s.metadata.label("batch") == "odd");
  ListParams fs;
  fs.field_selector = "metadata.name=page-7";
  auto one = svc.list(fs);
  REQUIRE(one.items.size() == 1);
  CHECK(one.items[0].metadata.name == "page-7");
  CHECK(one.items[0].kind == "Service");
}

TEST_CASE("retries: 429 honours Retry-After, 503 is retried only when safe, timeouts are enforced", "[kube][retry]") {
  Client c(cert_config());
  Api<Service> svc(c, "default");
  svc.remove_opt("retry-a");

  SECTION("429 with Retry-After, for a GET and for a create") {
    server().clear_requests();
    server().faults().throttle_next(1, 1, "/services");
    auto t0 = std::chrono::steady_clock::now();
    svc.list();
    CHECK(std::chrono::steady_clock::now() - t0 >= std::chrono::milliseconds(950));
    CHECK(count_requests("GET", "/namespaces/default/services") == 2);
    server().clear_requests();
    server().faults().throttle_next(1, 1, "/services");
    svc.create(service("retry-a").get<Service>());  // the server did not process a 429: safe to repeat
    CHECK(count_requests("POST", "/services") == 2);
    svc.remove("retry-a");
  }
  SECTION("503: a GET is retried with backoff") {
    server().clear_requests();
    server().faults().unavailable_next(2, "/namespaces/default/services");
    CHECK_NOTHROW(svc.list());
    CHECK(count_requests("GET", "/namespaces/default/services") == 3);
  }
  SECTION("503: a create is never blindly repeated") {
    server().clear_requests();
    server().faults().unavailable_next(1, "/namespaces/default/services");
    try {
      svc.create(service("retry-a").get<Service>());
      FAIL("create succeeded through a 503");
    } catch (const tfjob::api_error& e) {
      CHECK(e.code() == 503);
    }
    CHECK(count_requests("POST", "/services") == 1);
  }
  SECTION("a stalled server hits the request timeout") {
    RestConfig rc = cert_config();
    rc.timeout = std::chrono::milliseconds(500);
    Client quick(rc);
    server().faults().stall_next(std::chrono::milliseconds(3000), 1, "/namespaces/default/services");
    auto t0 = std::chrono::steady_clock::now();
    CHECK_THROWS_WITH(Api<Service>(quick, "default").list(), Catch::Contains("timed out") && Catch::Contains("500ms"));
    CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::milliseconds(2000));
    server().faults().clear();
  }
  SECTION("a server that is not there: connection refused, said at once (client-go retries no failed dial)") {
    RestConfig rc = cert_config();
    rc.server = "https://127.0.0.1:1";
    for (auto timeout : {std::chrono::milliseconds(0), std::chrono::milliseconds(30000)}) {
      rc.timeout = timeout;  // with or without --request-timeout, the same answer
      Client gone(rc);
      const auto t0 = std::chrono::steady_clock::now();
      try {
        Api<Node>(gone).list();
        FAIL("a list from a closed port succeeded");
      } catch (const tfjob::transport_error& e) {
        CHECK(e.reason() == tfjob::reasons::connection_refused);
        CHECK(e.subject() == "127.0.0.1:1");
        CHECK_THAT(e.problem(), Catch::Contains("connection refused"));
      }
      // the default backoff (200ms, 400ms, ...) would take seconds: not one retry was made
      CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::milliseconds(150));
    }
  }
}

TEST_CASE("discovery says whether tfjobs.kubeflow.org/v1 is served", "[kube][discovery]") {
  Client c(cert_config());
  CHECK(serves(c, "kubeflow.org", "v1", "tfjobs"));
  CHECK_FALSE(serves(c, "kubeflow.org", "v1", "mxjobs"));
  CHECK_FALSE(serves(c, "nothing.example.com", "v1", "things"));
  CHECK(serves(c, "", "v1", "pods"));
  CHECK(serves(c, "apps", "v1", "deployments"));
}

// ---- exec credential plugins ---------------------------------------------------------

namespace {

std::string plugin_path() { return tfjob::test::source_dir() + "/tests/data/kube/exec-plugin.sh"; }

RestConfig exec_config(const TempDir& d, const std::string& api_version,
                       std::vector<std::pair<std::string, std::string>> extra_env = {}) {
  RestConfig rc = base_config();
  ExecConfig e;
  e.command = plugin_path();
  e.args = {"--flag", "value with spaces"};
  e.api_version = api_version;
  e.interactive_mode = "Never";
  e.env = {{"EXEC_TOKEN_FILE", d.path + "/token"}, {"EXEC_COUNT_FILE", d.path + "/count"},
           {"EXEC_INFO_FILE", d.path + "/info"}, {"EXEC_MARK", "marked"}};
  for (auto& kv : extra_env) e.env.push_back(kv);
  rc.auth.exec = e;
  rc.auth.user_name = "exec-user";
  return rc;
}

int runs(const TempDir& d) {
  std::string s = d.read("count");
  return static_cast<int>(std::count(s.begin(), s.end(), '\n'));
}

}  // namespace

TEST_CASE("exec plugin: v1 and v1beta1, argv without a shell, env and KUBERNETES_EXEC_INFO, caching", "[kube][exec]") {
  server().add_token("exec-token-1", "exec-user");
  for (const char* av : {"client.authentication.k8s.io/v1", "client.authentication.k8s.io/v1beta1"}) {
    TempDir d;
    d.write("token", "exec-token-1");
    RestConfig rc = exec_config(d, av);
    rc.auth.exec->provide_cluster_info = true;
    rc.auth.exec_cluster_json = "{\"server\":\"" + server().url() + "\"}";
    Client c(rc);
    Api<Node>(c).list();
    Api<Node>(c).list();
    CHECK(runs(d) == 1);  // cached: no expiry
    CHECK(server().requests().back().user == "exec-user");
    std::string info = d.read("info");
    auto j = nlohmann::json::parse(info.substr(0, info.find('\n')));
    CHECK(j["apiVersion"] == av);
    CHECK(j["kind"] == "ExecCredential");
    CHECK(j["spec"]["cluster"]["server"] == server().url());
    CHECK(j["spec"].contains("interactive"));
    CHECK_THAT(info, Catch::Contains("\nmarked\n"));
    CHECK_THAT(info, Catch::Contains("--flag value with spaces"));
  }
}

TEST_CASE("exec plugin: credentials are refreshed shortly before expirationTimestamp", "[kube][exec]") {
  server().add_token("exec-token-1", "exec-user");
  TempDir d;
  d.write("token", "exec-token-1");
  {
    Client c(exec_config(d, "client.authentication.k8s.io/v1beta1", {{"EXEC_EXPIRY_SECONDS", "3600"}}));
    Api<Node>(c).list();
    Api<Node>(c).list();
    CHECK(runs(d) == 1);
  }
  {
    // Expires within the refresh margin: every request needs a fresh credential.
    Client c(exec_config(d, "client.authentication.k8s.io/v1beta1", {{"EXEC_EXPIRY_SECONDS", "2"}}));
    Api<Node>(c).list();
    Api<Node>(c).list();
    CHECK(runs(d) == 3);
  }
}

TEST_CASE("exec plugin: a 401 refreshes the credential once", "[kube][exec]") {
  server().add_token("exec-token-2", "exec-user-2");
  TempDir d;
  d.write("token", "revoked-token");
  Client c(exec_config(d, "client.authentication.k8s.io/v1"));
  CHECK_THROWS_AS(Api<Node>(c).list(), tfjob::auth_error);  // refreshed once, still refused
  CHECK(runs(d) == 2);
  d.write("token", "exec-token-2");  // the plugin now hands out a valid token
  CHECK_NOTHROW(Api<Node>(c).list());  // cached revoked token → 401 → refresh → OK
  CHECK(runs(d) == 3);
  CHECK(server().requests().back().user == "exec-user-2");
  CHECK_NOTHROW(Api<Node>(c).list());
  CHECK(runs(d) == 3);
}

TEST_CASE("exec plugin: a client certificate instead of a token", "[kube][exec]") {
  TempDir d;
  d.write("cert.pem", server().client_cert_pem());
  d.write("key.pem", server().client_key_pem());
  Client c(exec_config(d, "client.authentication.k8s.io/v1",
                       {{"EXEC_CERT_FILE", d.path + "/cert.pem"}, {"EXEC_KEY_FILE", d.path + "/key.pem"}}));
  CHECK_NOTHROW(Api<Node>(c).list());
  CHECK(runs(d) == 1);
}

TEST_CASE("exec plugin: missing command shows installHint, failures and bad output are clear", "[kube][exec]") {
  TempDir d;
  d.write("token", "x");
  RestConfig rc = exec_config(d, "client.authentication.k8s.io/v1");
  rc.auth.exec->command = "gke-gcloud-auth-plugin-not-installed-here";
  rc.auth.exec->install_hint = "Install gke-gcloud-auth-plugin: gcloud components install gke-gcloud-auth-plugin";
  try {
    Api<Node>(Client(rc)).list();
    FAIL("missing plugin ran");
  } catch (const tfjob::auth_error& e) {
    std::string m = e.what();
    CHECK_THAT(m, Catch::Contains("executable gke-gcloud-auth-plugin-not-installed-here not found"));
    CHECK_THAT(m, Catch::Contains("gcloud components install gke-gcloud-auth-plugin"));
  }
  RestConfig fail = exec_config(d, "client.authentication.k8s.io/v1", {{"EXEC_FAIL", "login required"}});
  CHECK_THROWS_WITH(Api<Node>(Client(fail)).list(), Catch::Contains("exit code 3"));
  RestConfig wrong = exec_config(d, "client.authentication.k8s.io/v1",
                                 {{"EXEC_API_VERSION", "client.authentication.k8s.io/v1beta1"}});
  CHECK_THROWS_WITH(Api<Node>(Client(wrong)).list(), Catch::Contains("apiVersion") && Catch::Contains("v1beta1"));
  RestConfig always = exec_config(d, "client.authentication.k8s.io/v1");
  always.auth.exec->interactive_mode = "Always";
  if (!::isatty(0)) CHECK_THROWS_WITH(Api<Node>(Client(always)).list(), Catch::Contains("interactive terminal"));
}
