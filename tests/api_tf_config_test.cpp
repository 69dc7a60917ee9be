// TF_CONFIG: byte-identical to the training operator v1.9. The expected strings are the
// operator's own test fixtures (pkg/controller.v1/tensorflow/pod_test.go "Test ClusterSpec",
// tensorflow_test.go TestConvertClusterSpecToSparseClusterSpec, "Test IsDistributed"), with
// jobs built like its testutil (NewTFJob, NewTFJobWithEvaluator...). Then the parser a
// trainer uses, and the pod labels/names.
#include <catch2/catch.hpp>

#include <tfjob/tfjob.hpp>

#include <cstdlib>

using nlohmann::json;

namespace {

const char* kName = "test-tfjob";  // tftestutil.TestTFJobName

/// tftestutil.NewTFReplicaSpecTemplate
json replica(int n) {
  return {{"replicas", n},
          {"template",
           {{"spec",
             {{"containers",
               {{{"name", "tensorflow"},
                 {"image", "test-image-for-kubeflow-training-operator:latest"},
                 {"args", {"Fake", "Fake"}},
                 {"ports", {{{"name", "tfjob-port"}, {"containerPort", 2222}}}}}}}}}}}};
}

/// tftestutil.NewTFJob(worker, ps) (+ evaluator, chief), in namespace ns.
tfjob::TFJob new_tfjob(int worker, int ps, const std::string& ns = "default", int evaluator = 0, int chief = 0) {
  json specs = json::object();
  if (worker > 0) specs["Worker"] = replica(worker);
  if (ps > 0) specs["PS"] = replica(ps);
  if (evaluator > 0) specs["Evaluator"] = replica(evaluator);
  if (chief > 0) specs["Chief"] = replica(chief);
  json j = {{"apiVersion", "kubeflow.org/v1"}, {"kind", "TFJob"},
            {"metadata", {{"name", kName}, {"namespace", ns}}}, {"spec", {{"tfReplicaSpecs", specs}}}};
  return tfjob::with_defaults(j.get<tfjob::TFJob>());
}

tfjob::TFConfigOptions domain(std::string d) {
  tfjob::TFConfigOptions o;
  o.cluster_domain = std::move(d);
  return o;
}

}  // namespace

TEST_CASE("operator fixture: Test ClusterSpec (pod_test.go)", "[api][tf_config][golden]") {
  // 1 worker, 0 ps: not distributed, no TF_CONFIG (with or without a cluster domain)
  CHECK_FALSE(tfjob::gen_tf_config(new_tfjob(1, 0, "ns0"), "worker", 0).has_value());
  CHECK_FALSE(tfjob::gen_tf_config(new_tfjob(1, 0, "ns1"), "worker", 0, domain("tf.training.com")).has_value());

  CHECK(tfjob::gen_tf_config(new_tfjob(1, 1, "ns2"), "worker", 0, domain("tf.training.org")).value() ==
        std::string(R"({"cluster":{"ps":[")") + kName + R"(-ps-0.ns2.svc.tf.training.org:2222"],"worker":[")" +
            kName + R"(-worker-0.ns2.svc.tf.training.org:2222"]},"task":{"type":"worker","index":0},"environment":"cloud"})");

  CHECK(tfjob::gen_tf_config(new_tfjob(1, 1, "ns3", 1), "worker", 0, domain("tf.training.io")).value() ==
        std::string(R"({"cluster":{"evaluator":[")") + kName + R"(-evaluator-0.ns3.svc.tf.training.io:2222"],"ps":[")" +
            kName + R"(-ps-0.ns3.svc.tf.training.io:2222"],"worker":[")" + kName +
            R"(-worker-0.ns3.svc.tf.training.io:2222"]},"task":{"type":"worker","index":0},"environment":"cloud"})");

  CHECK(tfjob::gen_tf_config(new_tfjob(1, 1, "ns3", 1), "worker", 0).value() ==
        std::string(R"({"cluster":{"evaluator":[")") + kName + R"(-evaluator-0.ns3.svc:2222"],"ps":[")" + kName +
            R"(-ps-0.ns3.svc:2222"],"worker":[")" + kName +
            R"(-worker-0.ns3.svc:2222"]},"task":{"type":"worker","index":0},"environment":"cloud"})");
}

TEST_CASE("operator fixture: Test IsDistributed (pod_test.go)", "[api][tf_config][golden]") {
  CHECK_FALSE(tfjob::is_distributed(new_tfjob(1, 0)));
  CHECK(tfjob::is_distributed(new_tfjob(1, 1)));
  CHECK_FALSE(tfjob::is_distributed(new_tfjob(0, 1)));
  CHECK(tfjob::is_distributed(new_tfjob(1, 0, "default", 0, 1)));  // NewTFJobWithChief(1, 0)
  // a single PS is "local training" too: no TF_CONFIG for it
  CHECK_FALSE(tfjob::gen_tf_config(new_tfjob(0, 1), "ps", 0).has_value());
}

TEST_CASE("operator fixture: sparse cluster spec for enableDynamicWorker (tensorflow_test.go)", "[api][tf_config][golden]") {
  auto job = new_tfjob(2, 2);
  job.spec.enable_dynamic_worker = true;
  // TestConvertClusterSpecToSparseClusterSpec: worker 0 sees itself and every PS; ps 0 sees itself.
  CHECK(tfjob::gen_tf_config(job, "worker", 0).value() ==
        R"({"cluster":{"worker":{"0":"test-tfjob-worker-0.default.svc:2222"},"ps":["test-tfjob-ps-0.default.svc:2222","test-tfjob-ps-1.default.svc:2222"]},"task":{"type":"worker","index":0}})");
  CHECK(tfjob::gen_tf_config(job, "ps", 0).value() ==
        R"({"cluster":{"worker":{},"ps":["test-tfjob-ps-0.default.svc:2222"]},"task":{"type":"ps","index":0}})");
  CHECK(tfjob::gen_tf_config(job, "Worker", 1).value() ==
        R"({"cluster":{"worker":{"1":"test-tfjob-worker-1.default.svc:2222"},"ps":["test-tfjob-ps-0.default.svc:2222","test-tfjob-ps-1.default.svc:2222"]},"task":{"type":"worker","index":1}})");
  // no PS: Go marshals the nil slice as null
  auto no_ps = new_tfjob(3, 0);
  no_ps.spec.enable_dynamic_worker = true;
  CHECK(tfjob::gen_tf_config(no_ps, "worker", 2).value() ==
        R"({"cluster":{"worker":{"2":"test-tfjob-worker-2.default.svc:2222"},"ps":null},"task":{"type":"worker","index":2}})");
  // other types: an empty worker map and an empty PS list
  auto with_chief = new_tfjob(1, 0, "default", 0, 1);
  with_chief.spec.enable_dynamic_worker = true;
  CHECK(tfjob::gen_tf_config(with_chief, "chief", 0).value() ==
        R"({"cluster":{"worker":{},"ps":[]},"task":{"type":"chief","index":0}})");
}

TEST_CASE("TF_CONFIG details: port per type, every type, name with '/', custom address", "[api][tf_config]") {
  auto job = new_tfjob(2, 1, "team-a", 0, 1);
  (*tfjob::containers(job.spec.tf_replica_specs.at("PS")))[0]["ports"][0]["containerPort"] = 5000;
  auto cfg = tfjob::gen_tf_config(job, "chief", 0).value();
  CHECK(cfg ==
        R"({"cluster":{"chief":["test-tfjob-chief-0.team-a.svc:2222"],"ps":["test-tfjob-ps-0.team-a.svc:5000"],"worker":["test-tfjob-worker-0.team-a.svc:2222","test-tfjob-worker-1.team-a.svc:2222"]},"task":{"type":"chief","index":0},"environment":"cloud"})");
  // the port comes only from a container named tensorflow with a port named tfjob-port
  (*tfjob::containers(job.spec.tf_replica_specs.at("PS")))[0]["ports"][0]["name"] = "other";
  CHECK(tfjob::tf_port(job, "PS") == 2222);

  // every replica: sorted by type, then index
  auto all = tfjob::gen_all_tf_configs(job);
  REQUIRE(all.size() == 4);
  CHECK(all[0].name == "test-tfjob-chief-0");
  CHECK(all[1].name == "test-tfjob-ps-0");
  CHECK(all[3].name == "test-tfjob-worker-1");
  CHECK(all[3].tf_config.value().find(R"("task":{"type":"worker","index":1})") != std::string::npos);

  // local runner: every address overridden
  tfjob::TFConfigOptions local;
  local.address = [](const std::string& t, int i) { return "127.0.0.1:" + std::to_string(t == "worker" ? 4000 + i : 5000 + i); };
  auto lc = tfjob::parse_tf_config(tfjob::gen_tf_config(job, "worker", 1, local).value());
  CHECK(lc.address("worker", 1) == std::optional<std::string>("127.0.0.1:4001"));
  CHECK(lc.address("chief", 0) == std::optional<std::string>("127.0.0.1:5000"));

  // unknown replica / index
  CHECK_THROWS_AS(tfjob::gen_tf_config(job, "evaluator", 0), tfjob::error);
  CHECK_THROWS_AS(tfjob::gen_tf_config(job, "worker", 2), tfjob::error);

  // Go's HTML-safe escaping (json.Marshal) of odd namespaces
  auto odd = new_tfjob(2, 0, "a<b>&\"c");
  CHECK(tfjob::gen_tf_config(odd, "worker", 0).value().find(R"(test-tfjob-worker-0.a\u003cb\u003e\u0026\"c.svc:2222)") !=
        std::string::npos);
}

TEST_CASE("parse_tf_config: role, index, cluster, chief", "[api][tf_config][parse]") {
  auto job = new_tfjob(2, 1, "default", 1, 1);
  auto chief = tfjob::parse_tf_config(tfjob::gen_tf_config(job, "chief", 0).value());
  CHECK(chief.task_type == "chief");
  CHECK(chief.task_index == 0);
  CHECK(chief.environment == "cloud");
  CHECK(chief.is_chief());
  CHECK(chief.count("worker") == 2);
  CHECK(chief.size() == 5);
  CHECK(chief.self_address() == "test-tfjob-chief-0.default.svc:2222");
  CHECK(chief.self_port() == 2222);

  auto w0 = tfjob::parse_tf_config(tfjob::gen_tf_config(job, "worker", 0).value());
  CHECK_FALSE(w0.is_chief());  // a chief exists
  CHECK(w0.is_worker());

  // worker 0 is the chief when there is no chief/master
  auto no_chief = new_tfjob(2, 1);
  CHECK(tfjob::parse_tf_config(tfjob::gen_tf_config(no_chief, "worker", 0).value()).is_chief());
  CHECK_FALSE(tfjob::parse_tf_config(tfjob::gen_tf_config(no_chief, "worker", 1).value()).is_chief());
  CHECK_FALSE(tfjob::parse_tf_config(tfjob::gen_tf_config(no_chief, "ps", 0).value()).is_chief());
  CHECK(tfjob::parse_tf_config(R"({"cluster":{"master":["m:1"],"worker":["w:1"]},"task":{"type":"master","index":0}})").is_chief());

  // the sparse form
  no_chief.spec.enable_dynamic_worker = true;
  auto sparse = tfjob::parse_tf_config(tfjob::gen_tf_config(no_chief, "worker", 1).value());
  CHECK(sparse.task_index == 1);
  CHECK(sparse.address("worker", 1) == std::optional<std::string>("test-tfjob-worker-1.default.svc:2222"));
  CHECK_FALSE(sparse.address("worker", 0));
  CHECK(sparse.count("ps") == 1);
  CHECK(sparse.self_port() == 2222);

  // bad input: clear errors, with a position for bad JSON
  try {
    tfjob::parse_tf_config("{\"cluster\": {,}}");
    FAIL("no error");
  } catch (const tfjob::parse_error& e) {
    CHECK(e.line() == 1);
    CHECK(e.column() == 14);
    CHECK_THAT(e.what(), Catch::Contains("TF_CONFIG is not valid JSON at line 1, column 14: unexpected ','"));
  }
  CHECK_THROWS_WITH(tfjob::parse_tf_config(R"({"cluster":{}})"), Catch::Contains("missing \"task\""));
  CHECK_THROWS_WITH(tfjob::parse_tf_config(R"({"cluster":{"worker":[1]},"task":{"type":"worker"}})"),
                    Catch::Contains("cluster.worker must list"));
  CHECK_THROWS_WITH(tfjob::parse_tf_config(R"({"task":{"type":"worker","index":-1}})"), Catch::Contains("negative"));
}

TEST_CASE("tf_config_from_env reads TF_CONFIG", "[api][tf_config][parse]") {
  ::unsetenv("TF_CONFIG");
  CHECK_FALSE(tfjob::tf_config_from_env().has_value());
  ::setenv("TF_CONFIG", R"({"cluster":{"worker":["a:1","b:2"]},"task":{"type":"worker","index":1},"environment":"cloud"})", 1);
  auto c = tfjob::tf_config_from_env();
  REQUIRE(c);
  CHECK(c->self_address() == "b:2");
  ::setenv("TF_CONFIG", "not json", 1);
  CHECK_THROWS_AS(tfjob::tf_config_from_env(), tfjob::parse_error);
  ::unsetenv("TF_CONFIG");
}

TEST_CASE("labels, selectors and names as the operator sets them", "[api][labels]") {
  auto with_chief = new_tfjob(2, 1, "default", 0, 1);
  auto l = tfjob::pod_labels(with_chief, "Chief", 0);
  CHECK(l == std::map<std::string, std::string>{{"training.kubeflow.org/job-name", "test-tfjob"},
                                                {"training.kubeflow.org/operator-name", "tfjob-controller"},
                                                {"training.kubeflow.org/replica-type", "chief"},
                                                {"training.kubeflow.org/replica-index", "0"},
                                                {"training.kubeflow.org/job-role", "master"}});
  CHECK(tfjob::pod_labels(with_chief, "Worker", 0).count("training.kubeflow.org/job-role") == 0);
  auto no_chief = new_tfjob(2, 1);
  CHECK(tfjob::is_master_role(no_chief, "Worker", 0));
  CHECK_FALSE(tfjob::is_master_role(no_chief, "Worker", 1));
  CHECK_FALSE(tfjob::is_master_role(no_chief, "PS", 0));
  CHECK(tfjob::replica_name("a/b", "Worker", 3) == "a-b-worker-3");
  CHECK(tfjob::job_labels("test/key").at("training.kubeflow.org/job-name") == "test-key");  // TestGenLabels
  CHECK(tfjob::job_selector("mnist") == "training.kubeflow.org/job-name=mnist,training.kubeflow.org/operator-name=tfjob-controller");
  CHECK(tfjob::replica_selector("mnist", "Worker", 1) ==
        "training.kubeflow.org/job-name=mnist,training.kubeflow.org/operator-name=tfjob-controller,"
        "training.kubeflow.org/replica-type=worker,training.kubeflow.org/replica-index=1");
  CHECK(tfjob::master_selector("mnist") ==
        "training.kubeflow.org/job-name=mnist,training.kubeflow.org/operator-name=tfjob-controller,training.kubeflow.org/job-role=master");
}
