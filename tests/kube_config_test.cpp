// Kubeconfig loading (client-go clientcmd rules), flag overrides, in-cluster config, and
// pure request building. No server needed.
#include <catch2/catch.hpp>

#include <tfjob/kube/config.hpp>
#include <tfjob/kube/detail/http.hpp>
#include <tfjob/kube/logs.hpp>
#include <tfjob/kube/request.hpp>

#include "support/fake_pki.hpp"
#include "support/kube_test_util.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <string>

using namespace tfjob::kube;

namespace {

using tfjob::test::kube::EnvGuard;
using tfjob::test::kube::TempDir;

const tfjob::test::FakePki& pki() {
  static auto p = tfjob::test::FakePki::generate();
  return p;
}

std::string b64(const std::string& s) { return detail::base64_encode(s); }

std::string cluster_yaml(const std::string& name, const std::string& server, const std::string& extra = "") {
  return "- name: " + name + "\n  cluster:\n    server: " + server + "\n" + extra;
}

std::string kubeconfig(const std::string& clusters, const std::string& users, const std::string& contexts,
                       const std::string& current = "") {
  std::string s = "apiVersion: v1\nkind: Config\n";
  if (!current.empty()) s += "current-context: " + current + "\n";
  s += "clusters:\n" + clusters + "users:\n" + users + "contexts:\n" + contexts;
  return s;
}

std::string token_user(const std::string& name, const std::string& token) {
  return "- name: " + name + "\n  user:\n    token: " + token + "\n";
}

std::string context_yaml(const std::string& name, const std::string& cluster, const std::string& user,
                         const std::string& ns = "") {
  std::string s = "- name: " + name + "\n  context:\n    cluster: " + cluster + "\n    user: " + user + "\n";
  if (!ns.empty()) s += "    namespace: " + ns + "\n";
  return s;
}

ConfigOverrides no_in_cluster() {
  ConfigOverrides o;
  o.service_account_dir = "/nonexistent-service-account";
  return o;
}

}  // namespace

TEST_CASE("KUBECONFIG files merge: the first file to define a name wins, whole entries kept", "[kube][config]") {
  TempDir d;
  EnvGuard env;
  auto a = d.write("a.yaml", kubeconfig(cluster_yaml("c1", "https://a.example:6443"), token_user("u1", "token-a"),
                                        context_yaml("ctx1", "c1", "u1", "ns-a")));
  auto ca_b64 = b64(pki().ca.cert);
  auto b = d.write("b.yaml", kubeconfig(cluster_yaml("c1", "https://b.example:6443",
                                                     "    certificate-authority-data: " + ca_b64 + "\n") +
                                            cluster_yaml("c2", "https://c2.example"),
                                        token_user("u1", "token-b") + token_user("u2", "token-u2"),
                                        context_yaml("ctx1", "c2", "u2") + context_yaml("ctx2", "c2", "u2"),
                                        "ctx1"));
  env.set("KUBECONFIG", a + ":" + d.path + "/missing.yaml:" + b);
  auto rules = LoadingRules::from_environment();
  REQUIRE(rules.precedence.size() == 3);
  Kubeconfig kc = rules.load();
  CHECK(kc.files == std::vector<std::string>{a, b});
  CHECK(kc.missing == std::vector<std::string>{d.path + "/missing.yaml"});
  CHECK(kc.clusters.at("c1").server == "https://a.example:6443");
  // Whole entry from the first file: file b's CA data is NOT merged into c1.
  CHECK(kc.clusters.at("c1").certificate_authority_data.empty());
  CHECK(kc.clusters.at("c2").server == "https://c2.example");
  CHECK(kc.users.at("u1").token == "token-a");
  CHECK(kc.contexts.at("ctx1").cluster == "c1");
  CHECK(kc.current_context == "ctx1");  // only b sets it

  RestConfig rc = load_config(no_in_cluster());
  CHECK(rc.server == "https://a.example:6443");
  CHECK(rc.auth.token == "token-a");
  CHECK(rc.namespace_ == "ns-a");
  CHECK(rc.context == "ctx1");
}

TEST_CASE("current-context: the first file that sets it wins", "[kube][config]") {
  TempDir d;
  EnvGuard env;
  auto a = d.write("a", kubeconfig(cluster_yaml("c", "https://a"), token_user("u", "t"),
                                   context_yaml("x", "c", "u") + context_yaml("y", "c", "u", "from-y"), "y"));
  auto b = d.write("b", kubeconfig("", "", "", "x"));
  env.set("KUBECONFIG", b + ":" + a);
  CHECK(LoadingRules::from_environment().load().current_context == "x");
  env.set("KUBECONFIG", a + ":" + b);
  CHECK(LoadingRules::from_environment().load().current_context == "y");
  CHECK(load_config(no_in_cluster()).namespace_ == "from-y");
}

TEST_CASE("relative paths resolve against the kubeconfig that names them", "[kube][config]") {
  TempDir d;
  EnvGuard env;
  d.write("sub/certs/ca.crt", pki().ca.cert);
  d.write("sub/certs/client.crt", pki().admin_client.cert);
  d.write("sub/certs/client.key", pki().admin_client.key);
  d.write("sub/token", "file-token\n");
  auto f = d.write("sub/config",
                   kubeconfig(cluster_yaml("c", "https://k.example", "    certificate-authority: certs/ca.crt\n"),
                              "- name: u\n  user:\n    client-certificate: certs/client.crt\n"
                              "    client-key: certs/client.key\n    tokenFile: token\n"
                              "- name: e\n  user:\n    exec:\n      apiVersion: client.authentication.k8s.io/v1beta1\n"
                              "      command: ./bin/plugin\n- name: p\n  user:\n    exec:\n"
                              "      apiVersion: client.authentication.k8s.io/v1beta1\n      command: on-path-plugin\n",
                              context_yaml("ctx", "c", "u"), "ctx"));
  env.set("KUBECONFIG", f);
  Kubeconfig kc = LoadingRules::from_environment().load();
  CHECK(kc.clusters.at("c").certificate_authority == d.path + "/sub/certs/ca.crt");
  CHECK(kc.users.at("u").client_certificate == d.path + "/sub/certs/client.crt");
  CHECK(kc.users.at("u").token_file == d.path + "/sub/token");
  CHECK(kc.users.at("e").exec->command == d.path + "/sub/./bin/plugin");
  CHECK(kc.users.at("p").exec->command == "on-path-plugin");  // PATH lookups are not resolved
  RestConfig rc = load_config(no_in_cluster());
  CHECK(rc.tls.ca_pem == pki().ca.cert);
  CHECK(rc.tls.client_cert_pem == pki().admin_client.cert);
  CHECK(rc.tls.client_key_pem == pki().admin_client.key);
  CHECK(rc.auth.token_file == d.path + "/sub/token");

  // A relative KUBECONFIG entry resolves against the working directory, its references
  // against the file's own directory.
  char cwd[4096];
  REQUIRE(getcwd(cwd, sizeof cwd));
  REQUIRE(chdir(d.path.c_str()) == 0);
  env.set("KUBECONFIG", "sub/config");
  Kubeconfig rel = LoadingRules::from_environment().load();
  REQUIRE(chdir(cwd) == 0);
  CHECK(rel.clusters.at("c").certificate_authority == d.path + "/sub/certs/ca.crt");
}

TEST_CASE("an explicit --kubeconfig is used alone and must exist", "[kube][config]") {
  TempDir d;
  EnvGuard env;
  auto a = d.write("a", kubeconfig(cluster_yaml("c", "https://from-env"), token_user("u", "t"), context_yaml("x", "c", "u"), "x"));
  auto b = d.write("b", kubeconfig(cluster_yaml("c2", "https://explicit"), token_user("u", "t"), context_yaml("y", "c2", "u"), "y"));
  env.set("KUBECONFIG", a);
  auto o = no_in_cluster();
  o.kubeconfig = b;
  RestConfig rc = load_config(o);
  CHECK(rc.server == "https://explicit");
  o.context = "x";  // exists only in the KUBECONFIG file, which is not merged
  CHECK_THROWS_WITH(load_config(o), Catch::Contains("context \"x\" does not exist") && Catch::Contains(b));
  o.context.clear();
  o.kubeconfig = d.path + "/nope";
  CHECK_THROWS_AS(load_config(o), tfjob::config_error);
  CHECK_THROWS_WITH(load_config(o), Catch::Contains(d.path + "/nope") && Catch::Contains("does not exist"));
  try {
    load_config(o);
  } catch (const tfjob::config_error& e) {
    CHECK(e.reason() == tfjob::reasons::kubeconfig_missing);
  }
}

TEST_CASE("the default kubeconfig is ~/.kube/config, and nothing at all is a clear error", "[kube][config]") {
  TempDir d;
  EnvGuard env;
  env.set("KUBECONFIG", std::nullopt);
  env.set("HOME", d.path);
  env.set("KUBERNETES_SERVICE_HOST", std::nullopt);
  CHECK_THROWS_WITH(load_config(no_in_cluster()),
                    Catch::Contains("no configuration has been provided") && Catch::Contains(d.path + "/.kube/config"));
  d.write(".kube/config", kubeconfig(cluster_yaml("c", "https://home"), token_user("u", "t"), context_yaml("x", "c", "u"), "x"));
  CHECK(load_config(no_in_cluster()).server == "https://home");
}

TEST_CASE("errors name the file and the missing context, cluster or user", "[kube][config]") {
  TempDir d;
  EnvGuard env;
  auto f = d.write("cfg", kubeconfig(cluster_yaml("c", "https://x"), token_user("u", "t"),
                                     context_yaml("good", "c", "u") + context_yaml("nocluster", "ghost", "u") +
                                         context_yaml("nouser", "c", "phantom"),
                                     "good"));
  env.set("KUBECONFIG", f);
  auto o = no_in_cluster();
  o.context = "absent";
  CHECK_THROWS_WITH(load_config(o), Catch::Contains("context \"absent\" does not exist") && Catch::Contains(f) &&
                                        Catch::Contains("good"));
  o.context = "nocluster";
  CHECK_THROWS_WITH(load_config(o), Catch::Contains("cluster \"ghost\"") && Catch::Contains(f));
  o.context = "nouser";
  CHECK_THROWS_WITH(load_config(o), Catch::Contains("user \"phantom\"") && Catch::Contains(f));
  o.context = "good";
  o.user = "nobody";
  CHECK_THROWS_WITH(load_config(o), Catch::Contains("user \"nobody\"") && Catch::Contains("ConfigOverrides::user"));
  // the remedy is a reason and the SDK's advice apart from the problem, for an application
  // to word with its own flags (the plugin: "given with --user")
  try {
    load_config(o);
    FAIL("no error");
  } catch (const tfjob::config_error& e) {
    CHECK(e.reason() == tfjob::reasons::user_not_found);
    CHECK(e.problem() == "user \"nobody\" does not exist in kubeconfig \"" + f + "\"");
    CHECK(e.advice() == " (ConfigOverrides::user)");
    CHECK(std::string(e.what()) == e.problem() + e.advice());
  }
  o.user.clear();
  o.context.clear();
  d.write("cfg", kubeconfig(cluster_yaml("c", "https://x"), token_user("u", "t"), context_yaml("good", "c", "u"), ""));
  try {
    load_config(o);
    FAIL("no error");
  } catch (const tfjob::config_error& e) {
    CHECK(e.reason() == tfjob::reasons::no_current_context);
    CHECK(e.problem() == "no current context is set in kubeconfig \"" + f + "\"");
  }
}

TEST_CASE("an error without a reason is its message alone", "[kube][config]") {
  const tfjob::error e("plain");
  CHECK(e.reason().empty());
  CHECK(e.problem() == "plain");
  CHECK(e.advice().empty());
  CHECK(e.subject().empty());
}

TEST_CASE("bad base64, bad PEM, bad YAML and unreadable files are reported with their place", "[kube][config]") {
  TempDir d;
  EnvGuard env;
  auto bad64 = d.write("bad64", kubeconfig(cluster_yaml("c", "https://x"),
                                           "- name: alice\n  user:\n    client-certificate-data: '@@not base64@@'\n",
                                           context_yaml("x", "c", "alice"), "x"));
  env.set("KUBECONFIG", bad64);
  CHECK_THROWS_WITH(load_config(no_in_cluster()), Catch::Contains(bad64) && Catch::Contains("user \"alice\"") &&
                                                      Catch::Contains("client-certificate-data is not valid base64"));

  auto badpem = d.write("badpem", kubeconfig(cluster_yaml("c", "https://x", "    certificate-authority-data: " +
                                                                         b64("hello, not a certificate") + "\n"),
                                             token_user("u", "t"), context_yaml("x", "c", "u"), "x"));
  env.set("KUBECONFIG", badpem);
  CHECK_THROWS_WITH(load_config(no_in_cluster()),
                    Catch::Contains("certificate-authority-data of cluster \"c\"") && Catch::Contains(badpem) &&
                        Catch::Contains("not PEM"));

  auto corrupt_pem = "-----BEGIN CERTIFICATE-----\nAAAA!!!!\n-----END CERTIFICATE-----\n";
  auto badpem2 = d.write("badpem2", kubeconfig(cluster_yaml("c", "https://x"),
                                               "- name: u\n  user:\n    client-certificate-data: " + b64(corrupt_pem) +
                                                   "\n    client-key-data: " + b64(pki().admin_client.key) + "\n",
                                               context_yaml("x", "c", "u"), "x"));
  env.set("KUBECONFIG", badpem2);
  CHECK_THROWS_WITH(load_config(no_in_cluster()), Catch::Contains("client certificate of user \"u\"") &&
                                                      Catch::Contains("malformed PEM"));

  auto badyaml = d.write("badyaml", "clusters: [\n  - name: x\n  oops: {\n");
  env.set("KUBECONFIG", badyaml);
  CHECK_THROWS_WITH(load_config(no_in_cluster()), Catch::Contains(badyaml) && Catch::Contains("yaml: line"));

  env.set("KUBECONFIG", d.path);  // a directory: exists but cannot be read as a file
  CHECK_THROWS_WITH(load_config(no_in_cluster()), Catch::Contains("cannot read kubeconfig file") &&
                                                      Catch::Contains(d.path));

  auto missing_ca = d.write("missingca", kubeconfig(cluster_yaml("c", "https://x", "    certificate-authority: nope.crt\n"),
                                                    token_user("u", "t"), context_yaml("x", "c", "u"), "x"));
  env.set("KUBECONFIG", missing_ca);
  CHECK_THROWS_WITH(load_config(no_in_cluster()), Catch::Contains(d.path + "/nope.crt") &&
                                                      Catch::Contains("cluster \"c\""));
}

TEST_CASE("flag overrides behave like kubectl's", "[kube][config]") {
  TempDir d;
  EnvGuard env;
  auto f = d.write("cfg", kubeconfig(cluster_yaml("c", "https://10.0.0.1:6443",
                                                  "    certificate-authority-data: " + b64(pki().ca.cert) +
                                                      "\n    tls-server-name: api.internal\n") +
                                         cluster_yaml("other", "https://other:443"),
                                     "- name: u\n  user:\n    exec:\n      apiVersion: client.authentication.k8s.io/v1\n"
                                     "      command: some-plugin\n      interactiveMode: Never\n" +
                                         token_user("v", "tok-v"),
                                     context_yaml("a", "c", "u", "team-a") + context_yaml("b", "other", "v"), "a"));
  env.set("KUBECONFIG", f);
  auto o = no_in_cluster();
  RestConfig rc = load_config(o);
  CHECK(rc.namespace_ == "team-a");
  CHECK(rc.tls.server_name == "api.internal");
  CHECK(rc.auth.exec.has_value());
  CHECK(rc.timeout.count() == 0);

  o.namespace_ = "flag-ns";
  CHECK(load_config(o).namespace_ == "flag-ns");
  o.namespace_.clear();
  o.context = "b";
  CHECK(load_config(o).namespace_ == "default");
  CHECK(load_config(o).server == "https://other:443");
  o.context.clear();

  o.cluster = "other";
  CHECK(load_config(o).server == "https://other:443");
  o.cluster.clear();
  o.user = "v";
  CHECK(load_config(o).auth.token == "tok-v");
  o.user.clear();

  o.token = "flag-token";  // replaces the exec plugin
  rc = load_config(o);
  CHECK(rc.auth.token == "flag-token");
  CHECK_FALSE(rc.auth.exec.has_value());
  o.token.clear();

  o.server = "https://elsewhere:8443";  // --server clears the file's tls-server-name
  rc = load_config(o);
  CHECK(rc.server == "https://elsewhere:8443");
  CHECK(rc.tls.server_name.empty());
  CHECK(rc.tls.ca_pem == pki().ca.cert);
  o.tls_server_name = "named";
  CHECK(load_config(o).tls.server_name == "named");
  o.server.clear();
  o.tls_server_name.clear();

  o.insecure_skip_tls_verify = true;  // clears the CA from the file
  rc = load_config(o);
  CHECK(rc.tls.insecure_skip_verify);
  CHECK(rc.tls.ca_pem.empty());
  o.insecure_skip_tls_verify.reset();

  auto ca2 = d.write("ca2.pem", pki().wrong_ca.cert);
  o.certificate_authority = ca2;
  CHECK(load_config(o).tls.ca_pem == pki().wrong_ca.cert);
  o.certificate_authority.clear();

  for (auto [in, ms] : std::vector<std::pair<std::string, long long>>{
           {"0", 0}, {"30", 30000}, {"30s", 30000}, {"1m", 60000}, {"2h", 7200000}, {"1h30m", 5400000}, {"500ms", 500},
           {"500us", 1}, {"1ns", 1}}) {  // a positive limit is never rounded down to none
    o.request_timeout = in;
    CHECK(load_config(o).timeout.count() == ms);
  }
  o.request_timeout = "soon";
  CHECK_THROWS_WITH(load_config(o), Catch::Contains("ConfigOverrides::request_timeout") && Catch::Contains("soon"));
  o.request_timeout = "10x";
  CHECK_THROWS_AS(load_config(o), tfjob::config_error);
}

TEST_CASE("legacy auth-provider gcp, basic auth and bad exec settings get clear advice", "[kube][config]") {
  TempDir d;
  EnvGuard env;
  auto f = d.write("cfg", kubeconfig(
      cluster_yaml("c", "https://x"),
      "- name: gke\n  user:\n    auth-provider:\n      name: gcp\n      config:\n        access-token: secret-at\n"
      "- name: basic\n  user:\n    username: admin\n    password: hunter2\n"
      "- name: v1nomode\n  user:\n    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: x\n"
      "- name: alpha\n  user:\n    exec:\n      apiVersion: client.authentication.k8s.io/v1alpha1\n      command: x\n",
      context_yaml("gke", "c", "gke") + context_yaml("basic", "c", "basic") + context_yaml("v1nomode", "c", "v1nomode") +
          context_yaml("alpha", "c", "alpha"),
      "gke"));
  env.set("KUBECONFIG", f);
  auto o = no_in_cluster();
  try {
    load_config(o);
    FAIL("gcp auth-provider accepted");
  } catch (const tfjob::config_error& e) {
    std::string m = e.what();
    CHECK_THAT(m, Catch::Contains("gke-gcloud-auth-plugin") && Catch::Contains("user \"gke\""));
    CHECK_THAT(m, !Catch::Contains("secret-at"));
  }
  o.context = "basic";
  try {
    load_config(o);
    FAIL("basic auth accepted");
  } catch (const tfjob::config_error& e) {
    std::string m = e.what();
    CHECK_THAT(m, Catch::Contains("basic authentication") && Catch::Contains("client certificate"));
    CHECK_THAT(m, !Catch::Contains("hunter2"));
  }
  o.context = "v1nomode";
  CHECK_THROWS_WITH(load_config(o), Catch::Contains("interactiveMode must be specified"));
  o.context = "alpha";
  CHECK_THROWS_WITH(load_config(o), Catch::Contains("v1alpha1") && Catch::Contains("not supported"));
}

TEST_CASE("in-cluster config when there is no kubeconfig", "[kube][config]") {
  TempDir d;
  EnvGuard env;
  d.write("sa/token", "sa-token\n");
  d.write("sa/ca.crt", pki().ca.cert);
  d.write("sa/namespace", "pod-ns\n");
  env.set("KUBECONFIG", d.path + "/none");
  env.set("KUBERNETES_SERVICE_HOST", "10.96.0.1");
  env.set("KUBERNETES_SERVICE_PORT", "443");
  ConfigOverrides o;
  o.service_account_dir = d.path + "/sa";
  RestConfig rc = load_config(o);
  CHECK(rc.in_cluster);
  CHECK(rc.server == "https://10.96.0.1:443");
  CHECK(rc.namespace_ == "pod-ns");
  CHECK(rc.auth.token_file == d.path + "/sa/token");
  CHECK(rc.auth.token.empty());  // re-read from the file on every request
  CHECK(rc.tls.ca_pem == pki().ca.cert);
  o.namespace_ = "flag-ns";
  CHECK(load_config(o).namespace_ == "flag-ns");
  o.namespace_.clear();

  env.set("KUBERNETES_SERVICE_HOST", "fd00::1");
  CHECK(load_config(o).server == "https://[fd00::1]:443");

  // A kubeconfig, when there is one, wins over the in-cluster config.
  auto f = d.write("cfg", kubeconfig(cluster_yaml("c", "https://kc"), token_user("u", "t"), context_yaml("x", "c", "u"), "x"));
  env.set("KUBECONFIG", f);
  CHECK(load_config(o).server == "https://kc");

  // Without the service variables there is nothing to fall back to.
  env.set("KUBECONFIG", d.path + "/none");
  env.set("KUBERNETES_SERVICE_HOST", std::nullopt);
  CHECK_THROWS_WITH(load_config(o), Catch::Contains("no configuration has been provided"));
}

TEST_CASE("proxy selection from HTTPS_PROXY and NO_PROXY", "[kube][config]") {
  std::map<std::string, std::string> env{{"HTTPS_PROXY", "http://proxy:3128"},
                                         {"NO_PROXY", "internal.example,.corp.example,10.0.0.0/8,svc:8443"}};
  auto get = [&](const char* k) -> const char* {
    auto it = env.find(k);
    return it == env.end() ? nullptr : it->second.c_str();
  };
  auto proxy = [&](const std::string& url) { return detail::proxy_from_env(detail::parse_url(url), get); };
  CHECK(proxy("https://api.example:6443") == "http://proxy:3128");
  CHECK(proxy("https://internal.example:6443").empty());
  CHECK(proxy("https://a.internal.example").empty());
  CHECK(proxy("https://x.corp.example").empty());
  CHECK(proxy("https://10.1.2.3:6443").empty());
  CHECK(proxy("https://11.1.2.3:6443") == "http://proxy:3128");
  CHECK(proxy("https://svc:8443").empty());
  CHECK(proxy("https://svc:443") == "http://proxy:3128");
  CHECK(proxy("https://127.0.0.1:6443").empty());  // loopback is never proxied (Go httpproxy)
  CHECK(proxy("https://localhost:6443").empty());
  CHECK(proxy("http://plain:80").empty());  // HTTP_PROXY not set
  env["NO_PROXY"] = "*";
  CHECK(proxy("https://api.example").empty());
}

TEST_CASE("requests are built purely", "[kube][request]") {
  RequestBuilder pods(ResourceInfo{"", "v1", "pods", "Pod", true}, "team-a");
  RequestBuilder tfjobs(ResourceInfo{"kubeflow.org", "v1", "tfjobs", "TFJob", true}, "ns 1");
  RequestBuilder nodes(ResourceInfo{"", "v1", "nodes", "Node", false}, "");

  CHECK(pods.get("p").path == "/api/v1/namespaces/team-a/pods/p");
  CHECK(tfjobs.get("mnist").path == "/apis/kubeflow.org/v1/namespaces/ns%201/tfjobs/mnist");
  CHECK(nodes.get("n1").path == "/api/v1/nodes/n1");
  CHECK(RequestBuilder(ResourceInfo{"", "v1", "pods", "Pod", true}, "").collection_path() == "/api/v1/pods");
  // a name or namespace that would be read as a folder of the path, or as more than one
  // segment, is refused before anything is sent, in client-go's words (a proxy that cleans
  // paths would turn /namespaces/../tfjobs into the cluster-wide collection)
  CHECK_THROWS_WITH(pods.get(".."), "invalid resource name \"..\": [may not be '..']");
  CHECK_THROWS_WITH(pods.get("."), "invalid resource name \".\": [may not be '.']");
  CHECK_THROWS_WITH(pods.remove("a/b"), "invalid resource name \"a/b\": [may not contain '/']");
  CHECK_THROWS_WITH(pods.get("a%2Fb"), "invalid resource name \"a%2Fb\": [may not contain '%']");
  CHECK_THROWS_WITH(RequestBuilder(ResourceInfo{"", "v1", "pods", "Pod", true}, "..").list({}),
                    "invalid namespace \"..\": [may not be '..']");
  CHECK(pods.get("..a").path == "/api/v1/namespaces/team-a/pods/..a");  // only the whole name is a folder

  ListParams lp;
  lp.label_selector = "training.kubeflow.org/job-name=mnist,app in (a,b)";
  lp.field_selector = "status.phase=Running";
  lp.limit = 50;
  lp.continue_token = "abc==";
  Request l = pods.list(lp);
  CHECK(l.method == "GET");
  CHECK(l.target() ==
        "/api/v1/namespaces/team-a/pods?labelSelector=training.kubeflow.org%2Fjob-name%3Dmnist%2Capp%20in%20%28a%2Cb%29"
        "&fieldSelector=status.phase%3DRunning&limit=50&continue=abc%3D%3D");

  WatchParams wp;
  Request w = tfjobs.watch(wp, "42");
  CHECK(w.param("watch") == "true");
  CHECK(w.param("resourceVersion") == "42");
  CHECK(w.param("allowWatchBookmarks") == "true");

  nlohmann::json obj = {{"metadata", {{"name", "mnist"}, {"managedFields", nlohmann::json::array()}, {"resourceVersion", "7"}}}};
  ApplyParams ap;
  ap.force = true;
  Request a = tfjobs.apply("mnist", obj, ap);
  CHECK(a.method == "PATCH");
  CHECK(a.content_type == "application/apply-patch+yaml");
  CHECK(a.param("fieldManager").empty());  // the client's own is added when it is sent
  CHECK(a.takes_field_manager);
  ap.field_manager = "my-app";
  CHECK(tfjobs.apply("mnist", obj, ap).param("fieldManager") == "my-app");
  CHECK(a.param("force") == "true");
  CHECK(a.idempotent);
  auto body = nlohmann::json::parse(a.body);
  CHECK(body["apiVersion"] == "kubeflow.org/v1");
  CHECK(body["kind"] == "TFJob");
  CHECK_FALSE(body["metadata"].contains("managedFields"));
  CHECK_FALSE(body["metadata"].contains("resourceVersion"));

  Request c = tfjobs.create(obj);
  CHECK(c.method == "POST");
  CHECK_FALSE(c.idempotent);
  CHECK(c.path == "/apis/kubeflow.org/v1/namespaces/ns%201/tfjobs");

  Request p = tfjobs.merge_patch("mnist", {{"spec", {{"runPolicy", {{"suspend", true}}}}}}, {}, "status");
  CHECK(p.content_type == "application/merge-patch+json");
  CHECK(p.path == "/apis/kubeflow.org/v1/namespaces/ns%201/tfjobs/mnist/status");
  CHECK_FALSE(p.idempotent);

  DeleteParams dp;
  dp.propagation_policy = "Foreground";
  Request del = tfjobs.remove("mnist", dp);
  CHECK(del.method == "DELETE");
  CHECK(nlohmann::json::parse(del.body)["propagationPolicy"] == "Foreground");
  CHECK_FALSE(del.idempotent);
  CHECK_THROWS_WITH(tfjobs.get(""), Catch::Contains("no name"));

  LogParams lg;
  lg.container = "tensorflow";
  lg.follow = true;
  lg.tail_lines = 10;
  lg.timestamps = true;
  lg.previous = true;
  lg.since_seconds = 60;
  Request lr = log_request("team-a", "mnist-chief-0", lg);
  CHECK(lr.target() == "/api/v1/namespaces/team-a/pods/mnist-chief-0/log?container=tensorflow&follow=true"
                       "&previous=true&timestamps=true&tailLines=10&sinceSeconds=60");
  lg.since_time = "2024-01-01T00:00:00Z";
  CHECK_THROWS_WITH(log_request("a", "b", lg), Catch::Contains("at most one"));
}

TEST_CASE("base64, RFC 3339 and URL helpers", "[kube][util]") {
  CHECK(detail::base64_decode("aGVsbG8=") == std::optional<std::string>("hello"));
  CHECK(detail::base64_decode("aGVs\nbG8=") == std::optional<std::string>("hello"));
  CHECK_FALSE(detail::base64_decode("aGVsbG8").has_value());
  CHECK_FALSE(detail::base64_decode("a=Vs").has_value());
  for (const std::string& s : std::vector<std::string>{"", "a", "ab", "abc", "abcd", std::string("\0\xff\x10", 3)})
    CHECK(detail::base64_decode(detail::base64_encode(s)) == std::optional<std::string>(s));
  std::int64_t s = 0, ns = 0;
  REQUIRE(detail::parse_rfc3339("2024-03-01T12:00:05.123456789Z", s, ns));
  CHECK(s == 1709294405);
  CHECK(ns == 123456789);
  REQUIRE(detail::parse_rfc3339("2024-03-01T13:00:05+01:00", s, ns));
  CHECK(s == 1709294405);
  CHECK_FALSE(detail::parse_rfc3339("yesterday", s, ns));
  CHECK(detail::format_rfc3339(1709294405) == "2024-03-01T12:00:05Z");
  auto u = detail::parse_url("https://[::1]:6443/prefix/");
  CHECK(u.host == "::1");
  CHECK(u.port == 6443);
  CHECK(u.path == "/prefix");
  CHECK(u.host_port() == "[::1]:6443");
  CHECK(detail::parse_url("kube.example").port == 443);
  CHECK_THROWS_WITH(detail::parse_url("ftp://x"), Catch::Contains("unsupported scheme"));
  CHECK_THROWS_WITH(detail::parse_url("https://x:99999"), Catch::Contains("bad port"));
}
