// plugin/common/kube.hpp: kubectl's connection flags (Globals::conn) → SDK overrides.
#include <catch2/catch.hpp>

#include "../plugin/common/error_words.hpp"
#include "../plugin/common/kube.hpp"
#include "support/fake_cluster.hpp"

#include <tfjob/kube/kube.hpp>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

TEST_CASE("connection flags map to overrides as kubectl's", "[kube][plugin]") {
  tfjob::cli::Globals g;
  g.conn.kubeconfig = "/k/config";
  g.conn.context = "ctx";
  g.conn.cluster = "cl";
  g.conn.user = "u";
  g.conn.namespace_ = "ns";
  g.conn.server = "https://s";
  g.conn.token = "t";
  g.conn.certificate_authority = "/ca";
  g.conn.client_certificate = "/c";
  g.conn.client_key = "/k";
  g.conn.tls_server_name = "name";
  g.conn.request_timeout = "1m";
  g.verbosity = 7;
  auto o = tfjob::cli::overrides_from(g);
  CHECK(o.kubeconfig == "/k/config");
  CHECK(o.context == "ctx");
  CHECK(o.cluster == "cl");
  CHECK(o.user == "u");
  CHECK(o.namespace_ == "ns");
  CHECK(o.server == "https://s");
  CHECK(o.token == "t");
  CHECK(o.certificate_authority == "/ca");
  CHECK(o.client_certificate == "/c");
  CHECK(o.client_key == "/k");
  CHECK(o.tls_server_name == "name");
  CHECK(o.request_timeout == "1m");
  CHECK(o.verbosity == 7);
  CHECK_FALSE(o.insecure_skip_tls_verify.has_value());  // not given: the file decides
  g.conn.insecure_skip_tls_verify = true;
  CHECK(tfjob::cli::overrides_from(g).insecure_skip_tls_verify == std::optional<bool>(true));
}

TEST_CASE("make_rest_config: explicit --kubeconfig must exist, namespace and timeout resolved", "[kube][plugin]") {
  char tmpl[] = "/tmp/kube-plugin-XXXXXX";
  std::string dir = ::mkdtemp(tmpl);
  tfjob::cli::Globals g;
  std::ostringstream err;
  auto make_client = [&](const tfjob::cli::Globals& flags) { return tfjob::kube::Client(tfjob::cli::make_rest_config(flags, err)); };
  g.conn.kubeconfig = dir + "/missing";
  CHECK_THROWS_WITH(make_client(g), Catch::Contains(dir + "/missing") && Catch::Contains("does not exist"));
  std::ofstream(dir + "/config") << "apiVersion: v1\nkind: Config\ncurrent-context: c\n"
                                    "clusters:\n- name: k\n  cluster:\n    server: https://127.0.0.1:6443\n"
                                    "users:\n- name: u\n  user:\n    token: abc\n"
                                    "contexts:\n- name: c\n  context:\n    cluster: k\n    user: u\n    namespace: team-a\n";
  g.conn.kubeconfig = dir + "/config";
  g.conn.request_timeout = "30s";
  auto rc = tfjob::cli::make_rest_config(g, err);
  CHECK(rc.namespace_ == "team-a");
  CHECK(rc.timeout == std::chrono::seconds(30));
  CHECK(make_client(g).namespace_() == "team-a");
  g.conn.namespace_ = "flag-ns";
  CHECK(make_client(g).namespace_() == "flag-ns");
  g.conn.request_timeout = "forever";
  // the SDK names its setting, the plugin's words name the flag
  try {
    make_client(g);
    FAIL("a request timeout of \"forever\" was accepted");
  } catch (const tfjob::error& e) {
    CHECK_THAT(std::string(e.what()), Catch::Contains("ConfigOverrides::request_timeout"));
    CHECK_THAT(tfjob::cli::error_message(e), Catch::Contains("--request-timeout") && !Catch::Contains("ConfigOverrides"));
  }
  std::system(("rm -rf '" + dir + "'").c_str());
}

TEST_CASE("make_rest_config: -v=6 and above log each request to the error stream given", "[kube][plugin]") {
  tfjob::test::FakeCluster c(tfjob::test::with_controllers({}, false), "kube-plugin-v");
  tfjob::cli::Globals g;
  g.conn.kubeconfig = c.kubeconfig;
  g.conn.context = "fake-token";
  g.verbosity = 7;
  std::ostringstream err;
  tfjob::kube::Client client(tfjob::cli::make_rest_config(g, err));
  CHECK_FALSE(tfjob::kube::Api<tfjob::k8s::Service>(client, "default").get_opt("nothing-here"));
  CHECK_THAT(err.str(), Catch::Contains("GET " + c.server->url() + "/api/v1/namespaces/default/services/nothing-here 404"));
  CHECK_THAT(err.str(), Catch::Contains("Authorization: Bearer <masked>"));
  CHECK_THAT(err.str(), !Catch::Contains(c.server->admin_token()));
  // below 6: nothing
  g.verbosity = 5;
  std::ostringstream quiet;
  tfjob::kube::Api<tfjob::k8s::Service>(tfjob::kube::Client(tfjob::cli::make_rest_config(g, quiet)), "default")
      .get_opt("nothing-here");
  CHECK(quiet.str().empty());
}
