// Hostile input and hostile servers (issue 21): no credential in clear, no crash, no hot
// loop. Crafted manifests, kubeconfigs and exec plugins; a fake API server that answers
// badly on purpose (Faults::answer_next); a plain-http loopback server that records what
// it is sent. Each case failed before its fix; each bound is named in its error.
#include <catch2/catch.hpp>

#include <tfjob/api/manifest.hpp>
#include <tfjob/api/tf_config.hpp>
#include <tfjob/kube/kube.hpp>

#include "support/fake_apiserver.hpp"
#include "support/fake_cluster.hpp"
#include "support/kube_test_util.hpp"
#include "support/local_jobs.hpp"
#include "support/paths.hpp"
#include "support/workflow_run.hpp"

#include <httplib.h>
#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

using namespace tfjob::kube;
using nlohmann::json;
using tfjob::test::FakeApiServer;
using tfjob::test::FakeApiServerOptions;

namespace {

FakeApiServer& server() {
  static FakeApiServer s([] {
    FakeApiServerOptions o;
    o.controllers = false;
    return o;
  }());
  return s;
}

RestConfig admin_config() {
  RestConfig rc = tfjob::test::admin_config(server());
  rc.warn = [](const std::string&) {};
  return rc;
}

const char* kJobs = "/apis/kubeflow.org/v1/namespaces/default/tfjobs";

ResourceInfo tfjobs() { return {"kubeflow.org", "v1", "tfjobs", "TFJob", true}; }

std::string alias_bomb() {  // nine levels of nine aliases: 9^9 strings when expanded
  std::string y = "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n";
  const char* n = "abcdefghi";
  for (int i = 1; i < 9; ++i) {
    y += std::string(1, n[i]) + ": &" + n[i] + " [";
    for (int k = 0; k < 9; ++k) y += std::string(k ? "," : "") + "*" + n[i - 1];
    y += "]\n";
  }
  return y;
}

std::string nested_arrays(std::size_t n) { return std::string(n, '[') + std::string(n, ']'); }

using tfjob::test::kube::error_of;

/// A plain-http loopback server that records the Authorization header of each request.
struct PlainHttp {
  httplib::Server srv;
  std::thread t;
  int port = 0;
  std::mutex mu;
  std::vector<std::string> auth;
  PlainHttp() {
    srv.Get("/version", [this](const httplib::Request& req, httplib::Response& res) {
      {
        std::lock_guard<std::mutex> lk(mu);
        auth.push_back(req.get_header_value("Authorization"));
      }
      res.set_content(R"({"gitVersion":"v1.25.0"})", "application/json");
    });
    port = srv.bind_to_any_port("127.0.0.1");
    t = std::thread([this] { srv.listen_after_bind(); });
    while (!srv.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ~PlainHttp() {
    srv.stop();
    t.join();
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port); }
};

}  // namespace

// ---- 1. no credentials over plain http:// -------------------------------------------------

TEST_CASE("hostile: no bearer token goes to a plain http:// server, and the SDK says why once", "[hostile][http]") {
  PlainHttp http;
  RestConfig rc;
  rc.server = http.url();
  rc.auth.token = "secret-token-T";
  std::vector<std::string> warnings;
  rc.warn = [&](const std::string& w) { warnings.push_back(w); };
  Client c(rc);
  Request r;
  r.path = "/version";
  r.what = "get the server version";
  CHECK(c.request_json(r)["gitVersion"] == "v1.25.0");
  c.request_json(r);
  std::lock_guard<std::mutex> lk(http.mu);
  REQUIRE(http.auth.size() == 2);
  CHECK(http.auth[0].empty());
  CHECK(http.auth[1].empty());
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0].find("plain http://") != std::string::npos);
  CHECK(warnings[0].find("bearer token is not sent") != std::string::npos);
  CHECK(warnings[0].find("secret-token-T") == std::string::npos);
  CHECK(c.credentials_withheld() == warnings[0]);
}

TEST_CASE("hostile: the plugin sends no --token and runs no exec plugin over http://", "[hostile][http][plugin]") {
  PlainHttp http;
  auto dir = tfjob::test::temp_dir("hostile-http");
  auto r = tfjob::test::run_plugin({"version", "-s", http.url(), "--token", "T0K3N"}, "", 30);
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.err.find("warning: the server " + http.url() + " is plain http://") != std::string::npos);
  // an exec plugin that would leave a mark if it ran
  std::string mark = dir + "/ran";
  std::string kc = dir + "/kubeconfig";
  std::ofstream(kc) << "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: " << http.url()
                    << "\ncontexts:\n- name: c\n  context: {cluster: c, user: u}\ncurrent-context: c\nusers:\n- name: u\n"
                       "  user:\n    exec:\n      apiVersion: client.authentication.k8s.io/v1beta1\n      command: /bin/sh\n"
                       "      args: [\"-c\", \"touch "
                    << mark << "; echo '{}'\"]\n";
  auto e = tfjob::test::run_plugin({"version"}, kc, 30);
  INFO(e.out << e.err);
  CHECK(e.exit_code == 0);
  CHECK(e.err.find("exec credential plugin is not sent") != std::string::npos);
  CHECK(std::ifstream(mark).good() == false);
  std::lock_guard<std::mutex> lk(http.mu);
  for (const auto& a : http.auth) CHECK(a.empty());
}

// ---- 2. alias bombs, 3. depth, and the size and count bounds of manifests -----------------

TEST_CASE("hostile: a YAML alias bomb is refused at once (go-yaml's excessive-aliasing rule)", "[hostile][yaml]") {
  auto msg = error_of([] { tfjob::parse_manifests(alias_bomb(), "bomb.yaml"); });
  CHECK(msg.find("bomb.yaml: line ") != std::string::npos);
  CHECK(msg.find("excessive aliasing") != std::string::npos);
  // a few aliases in a small document stay fine (99% may come from aliases below 400,000 nodes)
  auto docs = tfjob::parse_manifests("base: &b {x: 1}\nc1: *b\nc2: *b\nc3: *b\n");
  REQUIRE(docs.size() == 1);
  CHECK(docs[0]["c3"]["x"] == 1);
}

TEST_CASE("hostile: the alias bound is per document, as kubectl decodes each document alone", "[hostile][yaml]") {
  // each document: a map of 100 entries and 9 aliases of it (about 90% of its values from
  // aliases, under go-yaml's 99% for a small document); 1,000 of them are 2 million values,
  // where one decoder over the whole stream would allow only ~59% and refuse the file
  std::string doc = "base: &b {";
  for (int i = 0; i < 100; ++i) doc += (i ? ", k" : "k") + std::to_string(i) + ": " + std::to_string(i);
  doc += "}\n";
  for (int i = 1; i <= 9; ++i) doc += "c" + std::to_string(i) + ": *b\n";
  std::string text;
  for (int i = 0; i < 1000; ++i) text += "---\n" + doc;
  auto docs = tfjob::parse_manifests(text, "many.yaml");
  REQUIRE(docs.size() == 1000);
  CHECK(docs[999]["c9"]["k99"] == 99);
  // one document with the same share of aliases at that size is still refused
  std::string big = "base: &b {";
  for (int i = 0; i < 100; ++i) big += (i ? ", k" : "k") + std::to_string(i) + ": " + std::to_string(i);
  big += "}\n";
  for (int i = 1; i <= 9000; ++i) big += "c" + std::to_string(i) + ": *b\n";
  CHECK(error_of([&] { tfjob::parse_manifests(big, "one.yaml"); }).find("excessive aliasing") != std::string::npos);
}

TEST_CASE("hostile: deep nesting is refused at 10000 levels in JSON manifests, at yaml-cpp's 500 in YAML", "[hostile][depth]") {
  auto msg = error_of([] { tfjob::parse_manifests(nested_arrays(150000), "deep.json"); });
  CHECK(msg.find("deep.json: invalid JSON at line 1, column 10001: exceeded max depth of 10000") != std::string::npos);
  CHECK_NOTHROW(tfjob::parse_manifests(nested_arrays(10000), "ok.json"));
  auto y = error_of([] { tfjob::parse_manifests("a: " + std::string(150000, '['), "deep.yaml"); });
  CHECK(y.find("deep.yaml") != std::string::npos);
  CHECK(y.find("exceeded max depth of 500") != std::string::npos);
  std::string block;
  for (int i = 0; i < 600; ++i) block += std::string(static_cast<std::size_t>(i) * 2, ' ') + "k:\n";
  CHECK(error_of([&] { tfjob::parse_manifests(block, "b.yaml"); }).find("exceeded max depth") != std::string::npos);
  auto tf = error_of([] { tfjob::parse_tf_config("{\"a\":" + nested_arrays(20000) + "}"); });
  CHECK(tf.find("TF_CONFIG is not valid JSON") != std::string::npos);
  CHECK(tf.find("exceeded max depth of 10000") != std::string::npos);
}

TEST_CASE("hostile: a manifest's size and object count are bounded, each error naming its bound", "[hostile][bounds]") {
  std::string big(tfjob::limits::max_manifest_bytes + 1, ' ');
  auto msg = error_of([&] { tfjob::parse_manifests(big, "huge.yaml"); });
  CHECK(msg.find("huge.yaml: 128 MiB is more than the 128 MiB a manifest may have") != std::string::npos);
  std::string many = "[";
  for (std::size_t i = 0; i <= tfjob::limits::max_manifest_objects; ++i) many += i ? ",{}" : "{}";
  many += "]";
  auto m = error_of([&] { tfjob::parse_objects(many, "many.json"); });
  CHECK(m.find("more than 100000 objects in one manifest (the bound on objects per manifest)") != std::string::npos);
}

TEST_CASE("hostile: YAML merge keys are applied as kubectl applies them", "[hostile][yaml]") {
  auto docs = tfjob::parse_manifests(
      "base: &b {image: x, replicas: 1}\nother: &o {image: y, port: 2}\n"
      "one:\n  <<: *b\n  replicas: 3\nmany:\n  <<: [*b, *o]\n");
  REQUIRE(docs.size() == 1);
  CHECK(docs[0]["one"] == json({{"image", "x"}, {"replicas", 3}}));                // own keys win
  CHECK(docs[0]["many"] == json({{"image", "x"}, {"replicas", 1}, {"port", 2}}));  // earlier maps win
  auto jobs = tfjob::parse_tfjobs(
      "apiVersion: kubeflow.org/v1\nkind: TFJob\nmetadata: {name: m}\nspec:\n  tfReplicaSpecs:\n"
      "    Chief: &r\n      replicas: 1\n      template: {spec: {containers: [{name: tensorflow, image: tf}]}}\n"
      "    Worker:\n      <<: *r\n      replicas: 2\n");
  REQUIRE(jobs.size() == 1);
  CHECK(jobs[0].spec.tf_replica_specs.at("Worker").replicas == 2);
  CHECK(error_of([] { tfjob::parse_manifests("a:\n  <<: 5\n"); }).find("map merge requires map") != std::string::npos);
}

TEST_CASE("hostile: invalid UTF-8 and unterminated quotes in YAML are named, not JSON-library errors", "[hostile][yaml]") {
  auto u = error_of([] { tfjob::parse_manifests("metadata:\n  name: \"a\xff\"\n", "bad.yaml"); });
  CHECK(u.find("bad.yaml: line 2, column 9: invalid UTF-8") != std::string::npos);
  CHECK(u.find("json.exception") == std::string::npos);
  auto q = error_of([] { tfjob::parse_manifests("a: \"open\n", "q.yaml"); });
  CHECK(q.find("q.yaml: line 1, column 4: found unexpected end of stream while scanning a quoted scalar") !=
        std::string::npos);
}

// ---- kubeconfigs ----------------------------------------------------------------------------

TEST_CASE("hostile: kubeconfigs with an unterminated quoted token, exec: 5, an alias bomb or deep nesting are refused",
          "[hostile][kubeconfig]") {
  const std::string head = "apiVersion: v1\nkind: Config\nusers:\n- name: u\n  user:\n";
  auto q = error_of([&] { parse_kubeconfig(head + "    token: \"abc\n", "/k/config"); });
  CHECK(q.find("error loading config file \"/k/config\": yaml: line 6") != std::string::npos);
  CHECK(q.find("quoted scalar") != std::string::npos);
  auto e = error_of([&] { parse_kubeconfig(head + "    exec: 5\n", "/k/config"); });
  CHECK(e.find("user \"u\": \"exec\" must be a mapping, not \"5\"") != std::string::npos);
  CHECK(error_of([&] { parse_kubeconfig(alias_bomb(), "/k/config"); }).find("excessive aliasing") != std::string::npos);
  CHECK(error_of([&] { parse_kubeconfig("a: " + std::string(100000, '['), "/k/config"); }).find("exceeded max depth") !=
        std::string::npos);
}

// ---- 6. --insecure-skip-tls-verify with --certificate-authority ---------------------------

TEST_CASE("hostile: insecure-skip-tls-verify and a certificate authority given together are refused",
          "[hostile][flags]") {
  tfjob::test::kube::TempDir d;
  auto ca = d.write("ca.crt", server().ca_pem());
  ConfigOverrides o;
  o.kubeconfig = d.write("config", server().kubeconfig_yaml());
  o.insecure_skip_tls_verify = true;
  o.certificate_authority = ca;
  auto msg = error_of([&] { load_config(o); });
  CHECK(msg.find("specifying a root certificates file with the insecure flag is not allowed") != std::string::npos);
  auto r = tfjob::test::run_plugin({"get", "--insecure-skip-tls-verify", "--certificate-authority", ca}, o.kubeconfig, 30);
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("not allowed") != std::string::npos);
}

// ---- 8. version redacts a password in the server URL --------------------------------------

TEST_CASE("hostile: a password in the server URL is redacted as kubectl does", "[hostile][redact]") {
  CHECK(redact_url("https://user:pw@host:6443/prefix") == "https://user:xxxxx@host:6443/prefix");
  CHECK(redact_url("https://user@host") == "https://user@host");
  CHECK(redact_url("https://host:6443") == "https://host:6443");
  tfjob::test::kube::TempDir d;
  std::string kc = server().kubeconfig_yaml();
  auto p = kc.find("https://127.0.0.1");
  REQUIRE(p != std::string::npos);
  kc.replace(p, 8, "https://admin:hunter2@");
  auto r = tfjob::test::run_plugin({"version"}, d.write("config", kc), 30);
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("admin:xxxxx@127.0.0.1") != std::string::npos);
  CHECK(r.out.find("hunter2") == std::string::npos);
  CHECK(r.err.find("hunter2") == std::string::npos);
}

// ---- hostile servers: deep answers, wrong shapes, huge lines, big answers ------------------

TEST_CASE("hostile: a deep JSON answer to get is a clear error, not a crash", "[hostile][server][depth]") {
  Client c(admin_config());
  server().faults().answer_next(200, nested_arrays(150000), 1, std::string(kJobs) + "/deep");
  Api<DynamicObject> api(c, tfjobs(), "default");
  auto msg = error_of([&] { api.get("deep"); });
  CHECK(msg.find("the server answered 200 but its body is not valid JSON (exceeded max depth of 10000") != std::string::npos);
  tfjob::test::kube::TempDir d;
  auto kc = d.write("config", server().kubeconfig_yaml());
  server().faults().answer_next(200, nested_arrays(150000), 1, std::string(kJobs) + "/deep2");
  auto r = tfjob::test::run_plugin({"get", "deep2"}, kc, 30);
  INFO(r.out << r.err);
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("exceeded max depth of 10000") != std::string::npos);
}

TEST_CASE("hostile: a Status of the wrong shape does not reach the user as a JSON library error", "[hostile][server]") {
  tfjob::status st;
  CHECK_NOTHROW(st = status_from_response(500, "Internal", R"({"kind":"Status","message":5,"code":"x","details":{"causes":[7]}})"));
  CHECK(st.code == 500);
  CHECK(st.message.find("the server answered 500") != std::string::npos);
}

TEST_CASE("hostile: a watch event of the wrong shape stops the watch with what and where", "[hostile][server][watch]") {
  Client c(admin_config());
  const std::string list = R"({"kind":"TFJobList","apiVersion":"kubeflow.org/v1","metadata":{"resourceVersion":"5"},"items":[)"
                           R"({"apiVersion":"kubeflow.org/v1","kind":"TFJob","metadata":{"name":"j","namespace":"default"},)"
                           R"("status":{"conditions":5}}]})";
  server().faults().answer_next(200, list, 1, kJobs, "limit=");
  Api<DynamicObject> api(c, tfjobs(), "default");
  int delivered = 0;
  auto msg = error_of([&] { api.watch({}, [&](const WatchEvent<DynamicObject>&) { return ++delivered < 100; }); });
  CHECK(delivered == 0);
  CHECK(msg.find("tfjobs.kubeflow.org list item 0: status.conditions is a number (5), not a list; the server's answer has "
                 "the wrong shape") != std::string::npos);
  // and as an event on the watch itself
  WatchParams wp;
  wp.resource_version = "1";
  server().faults().answer_next(200, R"({"type":"MODIFIED","object":{"kind":"Pod","metadata":{"name":"p"}}})" "\n", 1, kJobs,
                                "watch=true");
  auto ev = error_of([&] { api.watch(wp, [&](const WatchEvent<DynamicObject>&) { return false; }); });
  CHECK(ev.find("MODIFIED event: the object is of kind \"Pod\", not TFJob") != std::string::npos);
  server().faults().answer_next(200, "{\"type\":\"ADDED\",\"object\":" + nested_arrays(20000) + "}\n", 1, kJobs, "watch=true");
  auto deep = error_of([&] { api.watch(wp, [&](const WatchEvent<DynamicObject>&) { return false; }); });
  CHECK(deep.find("exceeded max depth of 10000") != std::string::npos);
}

TEST_CASE("hostile: wait stops at once on an answer of the wrong shape instead of waiting out its timeout",
          "[hostile][server][plugin]") {
  tfjob::test::kube::TempDir d;
  auto kc = d.write("config", server().kubeconfig_yaml());
  // the job exists (wait looks it up first); every answer about it has the wrong shape
  // (in a namespace of its own: other cases list "default")
  server().put_object({{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "hostile-wait"}}}});
  server().put_object({{"apiVersion", "kubeflow.org/v1"}, {"kind", "TFJob"},
                       {"metadata", {{"name", "w"}, {"namespace", "hostile-wait"}}},
                       {"spec", {{"tfReplicaSpecs", {{"Worker", {{"replicas", 1}}}}}}}, {"status", "done"}});
  auto r = tfjob::test::run_plugin({"wait", "w", "-n", "hostile-wait", "--for=condition=Succeeded", "--timeout=120s"}, kc, 60);
  INFO(r.out << r.err);
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("status is a string (\"done\")") != std::string::npos);
  CHECK(r.err.find("json.exception") == std::string::npos);
}

TEST_CASE("hostile: a watch line longer than the bound is refused before it is buffered further", "[hostile][bounds][watch]") {
  LineSplitter ls;
  ls.max_line = 10;
  int lines = 0;
  CHECK(ls.feed("short\n", [&](std::string_view) { return ++lines, true; }));
  auto msg = error_of([&] { ls.feed("0123456789ABCDEF", [&](std::string_view) { return true; }); });
  CHECK(msg.find("longer than 10 B (the bound on one line)") != std::string::npos);
  // through a real stream: one line of 25 MiB from the server
  Client c(admin_config());
  Api<DynamicObject> api(c, tfjobs(), "default");
  WatchParams wp;
  wp.resource_version = "1";
  server().faults().answer_next(200, std::string(tfjob::limits::max_watch_line_bytes + 1024, 'x'), 1, kJobs, "watch=true");
  auto big = error_of([&] { api.watch(wp, [&](const WatchEvent<DynamicObject>&) { return false; }); });
  CHECK(big.find("longer than 24 MiB (the bound on one line)") != std::string::npos);
}

TEST_CASE("hostile: a buffered answer larger than the bound is refused, naming it", "[hostile][bounds][server]") {
  auto rc = admin_config();
  rc.max_response_bytes = 4096;
  Client c(rc);
  server().faults().answer_next(200, "{\"items\":[\"" + std::string(10000, 'y') + "\"]}", 1, kJobs);
  Request r;
  r.path = kJobs;
  r.what = "list tfjobs";
  auto msg = error_of([&] { c.request_json(r); });
  CHECK(msg.find("list tfjobs: the server's answer is larger than 4 KiB (the bound on one answer)") != std::string::npos);
}

// ---- 4. and 5. watches that end at once -----------------------------------------------------

TEST_CASE("hostile: a watch the server ends at once with an empty 200 is re-opened with jittered, capped backoff",
          "[hostile][watch]") {
  Client c(admin_config());
  Api<DynamicObject> api(c, tfjobs(), "default");
  WatchParams wp;
  wp.resource_version = "1";
  auto w = api.watcher(wp);
  CHECK(w.backoff.initial == std::chrono::milliseconds(800));  // client-go reflector defaults
  CHECK(w.backoff.cap == std::chrono::seconds(30));
  w.backoff.initial = std::chrono::milliseconds(4);
  w.backoff.cap = std::chrono::milliseconds(16);
  server().faults().answer_next(200, "", 50, kJobs, "watch=true");
  std::vector<std::chrono::milliseconds> waits;
  std::atomic<bool> cancel{false};
  w.on_backoff = [&](std::chrono::milliseconds d) {
    waits.push_back(d);
    if (waits.size() == 6) cancel = true;
  };
  StreamOptions so;
  so.cancel = &cancel;
  w.run([](const WatchEvent<DynamicObject>&) { return true; }, so);
  server().faults().clear();
  REQUIRE(waits.size() == 6);
  const long long base[] = {4, 8, 16, 16, 16, 16};
  for (std::size_t i = 0; i < waits.size(); ++i) {
    INFO("wait " << i << " = " << waits[i].count() << "ms");
    CHECK(waits[i].count() >= base[i]);
    CHECK(waits[i].count() <= 2 * base[i]);
  }
  CHECK(w.stats().empty_ends == 6);
  CHECK(w.stats().connections == 6);
}

TEST_CASE("hostile: get --watch ends at --request-timeout with exit 0, re-opening empty watches only a few times",
          "[hostile][watch][plugin]") {
  tfjob::test::kube::TempDir d;
  auto kc = d.write("config", server().kubeconfig_yaml());
  server().clear_requests();
  server().faults().answer_next(200, "", 1000, kJobs, "watch=true");
  auto r = tfjob::test::run_plugin({"get", "--watch", "--request-timeout=3s"}, kc, 60);
  server().faults().clear();
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  int watches = 0;
  for (const auto& q : server().requests())
    if (q.path == kJobs && q.query.find("watch=true") != std::string::npos) ++watches;
  // client-go's pacing allows at most 3 in 3 s (0.8 s, then 1.6 s, ...); the hot loop made hundreds.
  CHECK(watches >= 1);
  CHECK(watches <= 4);
}

// ---- exec plugins: output bound, wrong shapes, deep output, SIGTERM -------------------------

TEST_CASE("hostile: an exec plugin's output is bounded, and its wrong or deep output is named", "[hostile][exec]") {
  ExecConfig e;
  e.command = "/bin/sh";
  e.api_version = "client.authentication.k8s.io/v1beta1";
  e.args = {"-c", "head -c 6000000 /dev/zero | tr '\\0' x"};
  auto big = error_of([&] { run_exec_plugin(e, {}, false); });
  CHECK(big.find("printed more than 4 MiB on standard output (the bound on a credential plugin's output)") !=
        std::string::npos);
  e.args = {"-c", "echo '{\"kind\":\"ExecCredential\",\"apiVersion\":\"client.authentication.k8s.io/v1beta1\","
                  "\"status\":{\"token\":5}}'"};
  auto shape = error_of([&] { run_exec_plugin(e, {}, false); });
  CHECK(shape.find("status.token is a number, not a string") != std::string::npos);  // its value is not quoted (issue 37)
  e.args = {"-c", "printf '%20000s' '' | tr ' ' '['"};
  auto deep = error_of([&] { run_exec_plugin(e, {}, false); });
  CHECK(deep.find("exceeded max depth of 10000") != std::string::npos);
}

TEST_CASE("hostile: SIGTERM to the plugin alone also stops a hanging exec plugin and its children",
          "[hostile][exec][signal]") {
  const std::string plugin = tfjob::test::plugin_path();
  REQUIRE(!plugin.empty());
  tfjob::test::kube::TempDir d;
  std::string pidfile = d.path + "/child.pid";
  std::string kc = d.write("config",
                           "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: https://127.0.0.1:9\n"
                           "contexts:\n- name: c\n  context: {cluster: c, user: u}\ncurrent-context: c\nusers:\n- name: u\n"
                           "  user:\n    exec:\n      apiVersion: client.authentication.k8s.io/v1beta1\n"
                           "      command: /bin/sh\n      args: [\"-c\", \"sleep 300 & echo $! > " +
                               pidfile + ".tmp; mv " + pidfile + ".tmp " + pidfile + "; wait\"]\n");
  pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    int fd = ::open("/dev/null", O_WRONLY);
    ::dup2(fd, 1);
    ::dup2(fd, 2);
    ::execl(plugin.c_str(), plugin.c_str(), "get", "--kubeconfig", kc.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  int child = 0;
  for (int i = 0; i < 600 && child == 0; ++i) {  // wait (up to a minute) for the plugin's child to exist
    std::ifstream f(pidfile);
    if (!(f >> child)) child = 0;
    if (child == 0) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  REQUIRE(child > 0);
  ::kill(pid, SIGTERM);
  int status = 0;
  ::waitpid(pid, &status, 0);
  CHECK(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGTERM);
  bool gone = false;
  for (int i = 0; i < 600 && !gone; ++i) {  // the group got SIGTERM: wait for the sleep to end
    gone = !tfjob::test::process_alive(child);
    if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  if (!gone) ::kill(child, SIGKILL);
  CHECK(gone);
}

// ---- lesser: a range error in a few words, not DBL_MAX in 309 digits -----------------------

TEST_CASE("hostile: a flag's range error is short and says the bound", "[hostile][flags][plugin]") {
  auto r = tfjob::test::run_plugin({"submit", "--name", "a", "--image", "b", "--workers=-1", "--dry-run=client", "--", "x"}, "", 30);
  INFO(r.err);
  CHECK(r.exit_code == 64);
  CHECK(r.err.find("error: --workers: -1 is less than 0; give a whole number of 0 or more") != std::string::npos);
  CHECK(r.err.find("179769313486") == std::string::npos);
  CHECK(r.err.size() < 400);
}
