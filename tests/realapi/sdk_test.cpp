// The SDK (include/tfjob/kube, include/tfjob/api) against the real kube-apiserver 1.20 of
// the realapi tier: kubeconfig contexts (client certificate, bearer token, exec plugin), CA
// verification, discovery, typed TFJob CRUD/apply/patch/status/delete, pagination, watch
// (live events, resume, a real 410), Status errors (403 from RBAC, 422 from the CRD schema,
// 404, 409) and pod logs with follow through the apiserver's proxy to the loopback kubelet.
// Run by ctest under `cluster.sh with DIR --`, which exports the cluster's env file.
#include <catch2/catch.hpp>

#include <tfjob/api/manifest.hpp>
#include <tfjob/api/schema.hpp>
#include <tfjob/kube/tfjob_resource.hpp>
#include <tfjob/api/types.hpp>
#include <tfjob/kube/kube.hpp>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

using namespace tfjob::kube;
using namespace tfjob::k8s;

namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  if (!v || !*v) FAIL("missing environment variable " << name << " (run under tests/realapi/cluster.sh with DIR --)");
  return v;
}

std::string slurp(const std::string& path) {
  std::ifstream f(path);
  REQUIRE(f.good());
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

Client client_for(const std::string& context_var) {
  ConfigOverrides o;
  o.kubeconfig = env("TFJOB_TEST_KUBECONFIG");
  o.context = env(context_var.c_str());
  return Client(load_config(o));
}
Client admin() { return client_for("TFJOB_TEST_CONTEXT_CERT"); }
Client limited() { return client_for("TFJOB_TEST_CONTEXT_LIMITED"); }

std::string data_file(const std::string& name) {
  return std::string(TFJOB_REALAPI_DATA_DIR) + "/" + name;
}

tfjob::TFJob valid_job(const std::string& name, const std::string& ns) {
  auto jobs = tfjob::parse_tfjobs(slurp(data_file("tfjob-valid.yaml")), "tfjob-valid.yaml");
  REQUIRE(jobs.size() == 1);
  jobs[0].metadata.name = name;
  jobs[0].metadata.namespace_ = ns;
  return jobs[0];
}

std::string now_rfc3339_nanos() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  char buf[64];
  std::tm tm{};
  gmtime_r(&ts.tv_sec, &tm);
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  char out[96];
  std::snprintf(out, sizeof out, "%s.%09ldZ", buf, ts.tv_nsec);
  return out;
}

// The loopback kubelet reads CRI-format files: "<ts> stdout F <text>".
void kubelet_log(const std::string& ns, const std::string& pod, const std::string& c,
                 const std::vector<std::string>& lines) {
  std::ofstream f(env("TFJOB_REALAPI_KUBELET_LOGS") + "/" + ns + "_" + pod + "_" + c + ".log", std::ios::app);
  for (const auto& l : lines) f << now_rfc3339_nanos() << " stdout F " << l << "\n";
}
void kubelet_exit(const std::string& ns, const std::string& pod, const std::string& c) {
  std::ofstream(env("TFJOB_REALAPI_KUBELET_LOGS") + "/" + ns + "_" + pod + "_" + c + ".exited") << "0\n";
}

// Plays scheduler and kubelet: a pod bound to a GPU node and Running.
Pod running_pod(Client c, const std::string& ns, const std::string& name) {
  Api<Pod> pods(c, ns);
  DeleteParams now;
  now.grace_period_seconds = 0;
  pods.remove_opt(name, now);
  for (int i = 0; i < 100 && pods.get_opt(name); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  auto p = nlohmann::json{{"apiVersion", "v1"},
                       {"kind", "Pod"},
                       {"metadata", {{"name", name}, {"namespace", ns}}},
                       {"spec",
                        {{"nodeName", "gpu-node-0"},
                         {"restartPolicy", "Never"},
                         {"containers", {{{"name", "tensorflow"}, {"image", "ghcr.io/kubectl-tfjob/mnist:v0.1.0"}}}}}}}.get<Pod>();
  pods.create(p);
  return Api<Pod>(admin(), ns).patch_status(
      name, {{"status",
              {{"phase", "Running"},
               {"containerStatuses",
                {{{"name", "tensorflow"}, {"ready", true}, {"restartCount", 0}, {"image", "x"}, {"imageID", ""},
                  {"state", {{"running", {{"startedAt", "2026-01-01T00:00:00Z"}}}}}}}}}}});
}

}  // namespace

TEST_CASE("realapi: every kubeconfig context reaches the 1.20 server", "[realapi][tls]") {
  for (const char* ctx : {"TFJOB_TEST_CONTEXT_CERT", "TFJOB_TEST_CONTEXT_TOKEN", "TFJOB_TEST_CONTEXT_EXEC",
                          "TFJOB_TEST_CONTEXT_LIMITED"}) {
    INFO(ctx);
    Client c = client_for(ctx);
    CHECK(server_version(c) == env("TFJOB_REALAPI_SERVER_VERSION"));
  }
  auto nodes = Api<Node>(admin()).list();
  REQUIRE(nodes.items.size() == 2);
  for (const auto& n : nodes.items) {
    CHECK(n.ready());
    CHECK(n.metadata.label("nvidia.com/gpu.present") == "true");
    CHECK_FALSE(n.allocatable("nvidia.com/gpu").empty());
  }
}

TEST_CASE("realapi: TLS and authentication failures", "[realapi][tls]") {
  RestConfig base;
  base.server = env("TFJOB_REALAPI_SERVER");
  base.namespace_ = "default";

  SECTION("a CA that did not sign the serving certificate is refused") {
    RestConfig rc = base;
    rc.tls.ca_pem = slurp(env("TFJOB_REALAPI_CLIENT_CA"));
    rc.tls.ca_source = "the client CA";
    rc.auth.token = env("TFJOB_REALAPI_ADMIN_TOKEN");
    CHECK_THROWS_AS(Api<Namespace>(Client(rc)).list(), tfjob::transport_error);
  }
  SECTION("a wrong bearer token is 401: an auth_error that does not show the token") {
    RestConfig rc = base;
    rc.tls.ca_pem = slurp(env("TFJOB_REALAPI_CA"));
    rc.auth.token = "0123456789abcdef-not-a-token";
    try {
      Api<Namespace>(Client(rc)).list();
      FAIL("a bad token was accepted");
    } catch (const tfjob::auth_error& e) {
      CHECK_THAT(std::string(e.what()), !Catch::Contains("0123456789abcdef-not-a-token"));
    } catch (const tfjob::api_error& e) {
      CHECK(e.is_unauthorized());
    }
  }
  SECTION("no credentials: the anonymous user is forbidden") {
    RestConfig rc = base;
    rc.tls.ca_pem = slurp(env("TFJOB_REALAPI_CA"));
    try {
      Api<Namespace>(Client(rc)).list();
      FAIL("anonymous listed namespaces");
    } catch (const tfjob::api_error& e) {
      CHECK(e.is_forbidden());
      CHECK_THAT(std::string(e.what()), Catch::Contains("system:anonymous"));
    }
  }
  SECTION("client certificate and key given as PEM in memory") {
    RestConfig rc = base;
    rc.tls.ca_pem = slurp(env("TFJOB_REALAPI_CA"));
    rc.tls.client_cert_pem = slurp(env("TFJOB_REALAPI_ADMIN_CERT"));
    rc.tls.client_key_pem = slurp(env("TFJOB_REALAPI_ADMIN_KEY"));
    CHECK(Api<Namespace>(Client(rc)).list().items.size() >= 3);
  }
}

TEST_CASE("realapi: discovery sees the TFJob CRD", "[realapi][discovery]") {
  Client c = admin();
  CHECK(serves(c, "kubeflow.org", "v1", "tfjobs"));
  CHECK_FALSE(serves(c, "kubeflow.org", "v1", "pytorchjobs"));
  CHECK_FALSE(serves(c, "kubeflow.org", "v2", "tfjobs"));
  CHECK(serves(c, "", "v1", "pods"));
}

TEST_CASE("realapi: typed TFJob create, get, apply, patch, status, delete", "[realapi][api]") {
  const std::string ns = env("TFJOB_TEST_LIMITED_NAMESPACE");
  Api<tfjob::TFJob> jobs(limited(), ns);
  DeleteParams now;
  jobs.remove_opt("sdk-crud", now);
  for (int i = 0; i < 100 && jobs.get_opt("sdk-crud"); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));

  tfjob::TFJob created = jobs.create(valid_job("sdk-crud", ns));
  CHECK_FALSE(created.metadata.uid.empty());
  CHECK_FALSE(created.metadata.resource_version.empty());
  CHECK(created.metadata.generation.value_or(0) == 1);
  REQUIRE(created.replica("Worker") != nullptr);
  CHECK(created.replica("Worker")->replicas.value_or(0) == 2);
  CHECK(jobs.get("sdk-crud").metadata.uid == created.metadata.uid);

  try {
    jobs.create(valid_job("sdk-crud", ns));
    FAIL("created twice");
  } catch (const tfjob::api_error& e) {
    CHECK(e.is_already_exists());
    CHECK(e.code() == 409);
    CHECK(e.status().details_kind == "tfjobs");
  }

  // server-side apply takes ownership; a second manager conflicts unless forced
  tfjob::TFJob want = valid_job("sdk-crud", ns);
  want.replica("Worker")->replicas = 3;
  ApplyParams ap;
  ap.force = true;
  CHECK(jobs.apply(want, ap).replica("Worker")->replicas.value_or(0) == 3);
  want.replica("Worker")->replicas = 4;
  ApplyParams other;
  other.field_manager = "someone-else";
  try {
    jobs.apply(want, other);
    FAIL("a second field manager took an owned field without force");
  } catch (const tfjob::api_error& e) {
    CHECK(e.is_conflict());
    CHECK(e.reason() == "Conflict");
  }

  auto patched = jobs.patch("sdk-crud", {{"metadata", {{"labels", {{"team", "a"}}}}}});
  CHECK(patched.metadata.labels.at("team") == "a");

  // the operator's write: status subresource (alice may write tfjobs/status in team-a)
  auto st = jobs.patch_status(
      "sdk-crud", {{"status",
                    {{"conditions",
                      {{{"type", "Created"}, {"status", "True"}, {"reason", "TFJobCreated"},
                        {"message", "TFJob sdk-crud is created."}, {"lastUpdateTime", "2026-01-01T00:00:00Z"},
                        {"lastTransitionTime", "2026-01-01T00:00:00Z"}}}},
                     {"replicaStatuses", {{"Worker", {{"active", 2}}}}}}}});
  REQUIRE(st.status.has_value());
  REQUIRE(st.status->condition("Created") != nullptr);
  CHECK(st.status->condition("Created")->reason == "TFJobCreated");
  CHECK(st.status->replica_statuses.at("Worker").active == 2);
  // status does not move the generation; spec changes did
  CHECK(st.metadata.generation.value_or(0) == 2);

  auto listed = jobs.list([] {
    ListParams p;
    p.label_selector = "team=a";
    return p;
  }());
  REQUIRE(listed.items.size() == 1);
  CHECK(listed.items[0].metadata.name == "sdk-crud");

  jobs.remove("sdk-crud");
  CHECK_FALSE(jobs.get_opt("sdk-crud").has_value());
  CHECK_FALSE(jobs.remove_opt("sdk-crud"));
  try {
    jobs.get("sdk-crud");
    FAIL("got a deleted job");
  } catch (const tfjob::api_error& e) {
    CHECK(e.is_not_found());
    CHECK(e.status().details_name == "sdk-crud");
  }
}

TEST_CASE("realapi: Status errors are typed: 403 from RBAC, 422 from the CRD schema", "[realapi][api]") {
  SECTION("alice outside team-a") {
    Api<tfjob::TFJob> jobs(limited(), env("TFJOB_TEST_FORBIDDEN_NAMESPACE"));
    try {
      jobs.list();
      FAIL("alice listed tfjobs outside team-a");
    } catch (const tfjob::api_error& e) {
      CHECK(e.is_forbidden());
      CHECK(e.code() == 403);
      CHECK(e.status().details_kind == "tfjobs");
      CHECK(e.status().details_group == "kubeflow.org");
      CHECK_THAT(std::string(e.what()), Catch::Contains("User \"alice\" cannot list resource \"tfjobs\""));
    }
    CHECK_THROWS_AS(Api<Node>(limited()).list(), tfjob::api_error);
  }
  SECTION("the CRD's structural schema") {
    Api<DynamicObject> raw(admin(), resource_info<tfjob::TFJob>(), "default");
    auto docs = tfjob::parse_manifests(slurp(data_file("tfjob-invalid.yaml")), "tfjob-invalid.yaml");
    REQUIRE(docs.size() == 1);
    try {
      raw.create(DynamicObject(docs[0]));
      FAIL("the server accepted an invalid TFJob");
    } catch (const tfjob::api_error& e) {
      CHECK(e.is_invalid());
      CHECK(e.code() == 422);
      bool replicas = false;
      for (const auto& c : e.status().causes)
        if (c.field == "spec.tfReplicaSpecs.Worker.replicas") replicas = true;
      CHECK(replicas);
      CHECK_THAT(std::string(e.what()), Catch::Contains("spec.tfReplicaSpecs.Worker.replicas"));
    }
    CHECK_FALSE(raw.get_opt("realapi-invalid").has_value());
  }
}

// fieldValidation (metav1.CreateOptions/PatchOptions.FieldValidation) arrived in 1.23 behind
// the ServerSideFieldValidation gate (KEP-2885), on by default from 1.25, GA in 1.27. Older
// servers drop query parameters they do not know, which is why kubectl asks the OpenAPI
// whether a server supports it (cli-runtime resource/query_param_verifier.go) before it
// leaves validation to the server. 1.20 must therefore prune an unknown field silently even
// under Strict: the client has to judge first (tfjob::schema, --validate).
TEST_CASE("realapi: 1.20 ignores fieldValidation: an unknown field is pruned silently even under Strict",
          "[realapi][api]") {
  const std::string ns = env("TFJOB_TEST_LIMITED_NAMESPACE");
  ConfigOverrides o;
  o.kubeconfig = env("TFJOB_TEST_KUBECONFIG");
  o.context = env("TFJOB_TEST_CONTEXT_LIMITED");
  auto cfg = load_config(o);
  std::vector<std::string> warnings;
  cfg.on_warning = [&](const std::string& w) { warnings.push_back(w); };
  Client c(cfg);
  Api<DynamicObject> raw(c, resource_info<tfjob::TFJob>(), ns);
  DeleteParams now;
  for (const char* n : {"realapi-fv-create", "realapi-fv-apply"}) raw.remove_opt(n, now);
  for (int i = 0; i < 100 && (raw.get_opt("realapi-fv-create") || raw.get_opt("realapi-fv-apply")); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));

  auto docs = tfjob::parse_manifests(slurp(data_file("tfjob-valid.yaml")), "tfjob-valid.yaml");
  REQUIRE(docs.size() == 1);
  nlohmann::json j = docs[0];
  j["metadata"]["namespace"] = ns;
  j["spec"]["runPolcy"] = {{"backoffLimit", 3}};  // what the client-side schema refuses
  REQUIRE_FALSE(tfjob::schema::check_tfjob(j).empty());

  j["metadata"]["name"] = "realapi-fv-create";
  PostParams pp;
  pp.field_validation = "Strict";
  auto created = raw.create(DynamicObject(j), pp);  // a 1.25+ server answers 400 "strict decoding error"
  CHECK_FALSE(created.spec().contains("runPolcy"));
  CHECK(created.spec().contains("tfReplicaSpecs"));

  j["metadata"]["name"] = "realapi-fv-apply";
  ApplyParams ap;
  ap.field_validation = "Strict";
  auto applied = raw.apply(DynamicObject(j), ap);
  CHECK_FALSE(applied.spec().contains("runPolcy"));
  ap.field_validation = "Warn";  // a 1.25+ server answers with `Warning: unknown field "spec.runPolcy"`
  raw.apply(DynamicObject(j), ap);
  CHECK(warnings.empty());
  for (const char* n : {"realapi-fv-create", "realapi-fv-apply"}) raw.remove_opt(n, now);
}

TEST_CASE("realapi: list pages with limit and continue", "[realapi][api]") {
  Api<ConfigMap> cms(admin(), "team-b");
  const int n = 7;
  for (int i = 0; i < n; ++i) {
    cms.remove_opt("page-" + std::to_string(i));
    cms.create(nlohmann::json{{"apiVersion", "v1"},
                                        {"kind", "ConfigMap"},
                                        {"metadata", {{"name", "page-" + std::to_string(i)}, {"labels", {{"sdk-page", "1"}}}}},
                                        {"data", {{"i", std::to_string(i)}}}}.get<ConfigMap>());
  }
  ListParams p;
  p.label_selector = "sdk-page=1";
  p.limit = 3;
  auto first = cms.list_page(p);
  CHECK(first.items.size() == 3);
  CHECK_FALSE(first.continue_token.empty());
  auto all = cms.list(p);
  CHECK(all.items.size() == static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) cms.remove("page-" + std::to_string(i));
}

TEST_CASE("realapi: watch delivers ADDED, MODIFIED, DELETED in order, 410 relists", "[realapi][watch]") {
  const std::string ns = env("TFJOB_TEST_LIMITED_NAMESPACE");
  Api<tfjob::TFJob> jobs(limited(), ns);
  jobs.remove_opt("sdk-watch");
  for (int i = 0; i < 100 && jobs.get_opt("sdk-watch"); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const std::string rv = jobs.list().resource_version;
  REQUIRE_FALSE(rv.empty());

  std::mutex mu;
  std::vector<std::string> seen;
  std::atomic<bool> cancel{false};
  WatchParams wp;
  wp.resource_version = rv;
  wp.field_selector = "metadata.name=sdk-watch";
  std::thread t([&] {
    StreamOptions so;
    so.cancel = &cancel;
    jobs.watch(wp, [&](const WatchEvent<tfjob::TFJob>& ev) {
      std::lock_guard<std::mutex> lk(mu);
      seen.push_back(std::string(to_string(ev.type)) + " " + ev.object.metadata.name);
      return ev.type != tfjob::kube::EventType::deleted;
    }, so);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  jobs.create(valid_job("sdk-watch", ns));
  jobs.patch("sdk-watch", {{"metadata", {{"labels", {{"step", "2"}}}}}});
  jobs.remove("sdk-watch");
  for (int i = 0; i < 200; ++i) {
    {
      std::lock_guard<std::mutex> lk(mu);
      if (!seen.empty() && seen.back().rfind("DELETED", 0) == 0) break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  cancel = true;
  t.join();
  std::vector<std::string> want{"ADDED sdk-watch", "MODIFIED sdk-watch", "DELETED sdk-watch"};
  CHECK(seen == want);

  // A version the watch cache no longer holds: the real server answers 410 Expired and the
  // watcher relists (initial objects as ADDED), then goes on.
  Api<tfjob::TFJob> all(admin(), ns);
  all.remove_opt("sdk-watch-410");
  all.create(valid_job("sdk-watch-410", ns));
  WatchParams old;
  old.resource_version = "1";
  old.field_selector = "metadata.name=sdk-watch-410";
  auto w = all.watcher(old);
  std::vector<std::string> got;
  w.run([&](const WatchEvent<tfjob::TFJob>& ev) {
    got.push_back(std::string(to_string(ev.type)) + " " + ev.object.metadata.name);
    return false;
  });
  CHECK(got == std::vector<std::string>{"ADDED sdk-watch-410"});
  CHECK(w.stats().lists == 1);
  all.remove("sdk-watch-410");
}

TEST_CASE("realapi: pod logs through the apiserver to the kubelet, with follow", "[realapi][logs]") {
  const std::string ns = env("TFJOB_TEST_LIMITED_NAMESPACE");
  const std::string pod = "sdk-logs";
  std::remove((env("TFJOB_REALAPI_KUBELET_LOGS") + "/" + ns + "_" + pod + "_tensorflow.log").c_str());
  std::remove((env("TFJOB_REALAPI_KUBELET_LOGS") + "/" + ns + "_" + pod + "_tensorflow.exited").c_str());
  Client c = limited();
  Pod p = running_pod(c, ns, pod);
  CHECK(p.status.phase == "Running");
  CHECK(p.spec.node_name == "gpu-node-0");

  kubelet_log(ns, pod, "tensorflow", {"epoch 1", "epoch 2", "epoch 3"});
  LogParams tail;
  tail.tail_lines = 2;
  CHECK(get_logs(c, ns, pod, tail) == "epoch 2\nepoch 3\n");

  std::mutex mu;
  std::vector<std::string> lines;
  LogParams follow;
  follow.follow = true;
  follow.container = "tensorflow";
  std::atomic<bool> ended{false};
  std::thread t([&] {
    stream_logs(c, ns, pod, follow, [&](std::string_view l) {
      std::lock_guard<std::mutex> lk(mu);
      lines.emplace_back(l);
      return true;
    });
    ended = true;
  });
  auto count = [&] {
    std::lock_guard<std::mutex> lk(mu);
    return lines.size();
  };
  for (int i = 0; i < 200 && count() < 3; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  REQUIRE(count() == 3);
  std::vector<std::string> more;
  for (int i = 1; i <= 40; ++i) more.push_back("step " + std::to_string(i));
  kubelet_log(ns, pod, "tensorflow", more);
  for (int i = 0; i < 200 && count() < 43; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  CHECK_FALSE(ended.load());
  kubelet_exit(ns, pod, "tensorflow");
  for (int i = 0; i < 200 && !ended; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  REQUIRE(ended.load());
  t.join();
  std::vector<std::string> want{"epoch 1", "epoch 2", "epoch 3"};
  want.insert(want.end(), more.begin(), more.end());
  CHECK(lines == want);

  // the kubelet's own refusal comes back as a Status error
  try {
    LogParams none;
    none.container = "no-such-container";
    get_logs(c, ns, pod, none);
    FAIL("logs of a container the pod does not have");
  } catch (const tfjob::api_error& e) {
    CHECK(e.code() == 400);
    CHECK_THAT(std::string(e.what()), Catch::Contains("no-such-container"));
  }
  DeleteParams now;
  now.grace_period_seconds = 0;
  Api<Pod>(admin(), ns).remove(pod, now);
}
