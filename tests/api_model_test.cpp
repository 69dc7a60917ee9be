// The TFJob model: lossless parse -> emit (YAML and JSON, multi-document), syntax errors
// with line/column, type errors with field paths, kubectl-like YAML, the operator's
// defaults and its webhook's validation.
#include <catch2/catch.hpp>

#include <algorithm>

#include "support/paths.hpp"

#include <tfjob/tfjob.hpp>

#include <openssl/evp.h>  // sha256 of the committed CRD

#include <fstream>
#include <functional>
#include <sstream>

using nlohmann::json;

namespace {

std::string read(const std::string& rel) {
  std::ifstream in(tfjob::test::source_dir() + "/tests/data/api/" + rel, std::ios::binary);
  REQUIRE(in);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> messages(const std::vector<tfjob::field_error>& errs) {
  std::vector<std::string> v;
  for (const auto& e : errs) v.push_back(e.to_string());
  return v;
}

bool has_error(const std::vector<tfjob::field_error>& errs, const std::string& field, const std::string& type) {
  for (const auto& e : errs)
    if (e.field == field && e.type == type) return true;
  return false;
}

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

}  // namespace

TEST_CASE("a full TFJob survives YAML parse -> emit -> parse unchanged", "[api][roundtrip]") {
  const std::string text = read("full.yaml");
  auto docs = tfjob::parse_manifests(text, "full.yaml");
  REQUIRE(docs.size() == 1);
  const json& in = docs[0];

  auto job = in.get<tfjob::TFJob>();
  json out = job;
  CHECK(out == in);

  // modeled fields were read
  CHECK(job.metadata.name == "dist-mnist");
  CHECK(job.metadata.namespace_ == "team-a");
  CHECK(job.metadata.generation == 2);
  CHECK(job.metadata.labels.at("yes") == "true");
  CHECK(job.spec.success_policy == std::optional<std::string>("AllWorkers"));
  CHECK(job.spec.run_policy.clean_pod_policy == std::optional<std::string>("Running"));
  CHECK(job.spec.run_policy.ttl_seconds_after_finished == 600);
  CHECK(job.spec.run_policy.active_deadline_seconds == 86400);
  CHECK(job.spec.run_policy.backoff_limit == 4);
  CHECK(job.spec.run_policy.suspend == false);
  CHECK(job.spec.run_policy.managed_by == std::optional<std::string>("kubeflow.org/training-operator"));
  REQUIRE(job.spec.run_policy.scheduling_policy);
  CHECK(job.spec.run_policy.scheduling_policy->min_available == 3);
  CHECK(job.spec.run_policy.scheduling_policy->queue == "research");
  CHECK(job.spec.run_policy.scheduling_policy->schedule_timeout_seconds == 300);
  CHECK(job.spec.run_policy.scheduling_policy->min_resources["nvidia.com/gpu"] == 3);
  CHECK(job.spec.tf_replica_specs.at("Chief").restart_policy == "ExitCode");
  CHECK(job.spec.tf_replica_specs.at("Worker").replicas == 2);
  REQUIRE(job.status);
  CHECK(job.status->conditions.size() == 2);
  CHECK(job.status->has_condition("Running"));
  CHECK_FALSE(job.status->finished());
  CHECK(job.status->replica_statuses.at("Worker").active == 2);
  CHECK(job.status->start_time == "2024-05-01T10:00:00Z");

  // unmodeled fields kept verbatim
  CHECK(job.spec.other.at("x-extra-spec-field")["nested"] == json::parse(R"([1, 2.5, "three", null, true])"));
  CHECK(job.metadata.finalizers.at(0) == "example.com/keep");
  CHECK(job.spec.other.at("enableDynamicWorker") == false);  // explicit false survives

  // YAML out -> YAML in is JSON-equal, and so is JSON out -> JSON in
  auto yaml = tfjob::to_yaml(out);
  auto again = tfjob::parse_manifests(yaml, "emitted");
  REQUIRE(again.size() == 1);
  CHECK(again[0] == in);
  auto from_json = tfjob::parse_manifests(out.dump(2), "emitted.json");
  REQUIRE(from_json.size() == 1);
  CHECK(from_json[0] == in);
  CHECK(json(from_json[0].get<tfjob::TFJob>()) == in);
}

TEST_CASE("scalars resolve like sigs.k8s.io/yaml and come back quoted where needed", "[api][yaml]") {
  auto docs = tfjob::parse_manifests(R"(
a: yes
b: "yes"
c: 0755
d: "0755"
e: ~
f: 1.5
g: 0x1F
h: 'single'
i: "2222"
j: on
k: 12e3
l: -7
)");
  REQUIRE(docs.size() == 1);
  const auto& d = docs[0];
  CHECK(d["a"] == true);
  CHECK(d["b"] == "yes");
  CHECK(d["c"] == 493);  // YAML 1.1 octal
  CHECK(d["d"] == "0755");
  CHECK(d["e"].is_null());
  CHECK(d["f"] == 1.5);
  CHECK(d["g"] == 31);
  CHECK(d["h"] == "single");
  CHECK(d["i"] == "2222");
  CHECK(d["j"] == true);
  CHECK(d["k"] == 12000.0);
  CHECK(d["l"] == -7);

  json strings = {{"s1", "yes"}, {"s2", "0755"}, {"s3", ""}, {"s4", "true"}, {"s5", "null"},
                  {"s6", "1.5"}, {"s7", "*"}, {"s8", "a: b"}, {"s9", " lead"}, {"s10", "x #y"},
                  {"s11", "- item"}, {"s12", "multi\nline\n"}, {"s13", "tab\there"}, {"s14", "{json}"},
                  {"s15", "it's"}, {"s16", "plain-text_ok/1.2"}, {"s17", "ends:"}, {"s18", "~"},
                  {"s19", "multi\nno-newline"}, {"s20", "@at"}, {"s21", "12:30:00"}};
  auto y = tfjob::to_yaml(strings);
  auto back = tfjob::parse_manifests(y);
  REQUIRE(back.size() == 1);
  CHECK(back[0] == strings);
  // the way kubectl writes them
  CHECK(y.find("s1: \"yes\"\n") != std::string::npos);
  CHECK(y.find("s2: \"0755\"\n") != std::string::npos);
  CHECK(y.find("s3: \"\"\n") != std::string::npos);
  CHECK(y.find("s7: '*'\n") != std::string::npos);
  CHECK(y.find("s16: plain-text_ok/1.2\n") != std::string::npos);
  CHECK(y.find("s12: |\n  multi\n  line\n") != std::string::npos);
  CHECK(y.find("s19: |-\n  multi\n  no-newline\n") != std::string::npos);
}

TEST_CASE("kubectl-like YAML: sorted keys, block style, list items flush with the key", "[api][yaml]") {
  json obj = json::parse(R"({"spec":{"b":[{"name":"main","image":"img"}],"a":[]},"kind":"TFJob","apiVersion":"kubeflow.org/v1",
                             "metadata":{"name":"job","labels":{}}})");
  CHECK(tfjob::to_yaml(obj) ==
        "apiVersion: kubeflow.org/v1\n"
        "kind: TFJob\n"
        "metadata:\n"
        "  labels: {}\n"
        "  name: job\n"
        "spec:\n"
        "  a: []\n"
        "  b:\n"
        "  - image: img\n"
        "    name: main\n");
  // go-yaml v2 (YAML 1.1) reads y/n as booleans, so kubectl quotes them
  CHECK(tfjob::to_yaml(json{{"name", "n"}, {"image", "y"}}) == "image: \"y\"\nname: \"n\"\n");
  CHECK(tfjob::to_yaml(json::array({json::array({1, 2}), "a"})) == "- - 1\n  - 2\n- a\n");
  CHECK(tfjob::to_yaml_documents({json{{"a", 1}}, json{{"b", 2}}}) == "a: 1\n---\nb: 2\n");
}

TEST_CASE("multi-document YAML and JSON streams", "[api][roundtrip]") {
  auto jobs = tfjob::parse_tfjobs(read("multi.yaml"), "multi.yaml");
  REQUIRE(jobs.size() == 2);
  CHECK(jobs[0].metadata.name == "first");
  CHECK(jobs[1].metadata.name == "second");
  CHECK(jobs[1].spec.tf_replica_specs.count("worker") == 1);  // not defaulted by parsing

  std::vector<json> objs;
  for (const auto& j : jobs) objs.push_back(j);
  auto reparsed = tfjob::parse_manifests(tfjob::to_yaml_documents(objs));
  REQUIRE(reparsed.size() == 2);
  CHECK(reparsed[0] == objs[0]);
  CHECK(reparsed[1] == objs[1]);

  // concatenated JSON objects and a List
  auto stream = tfjob::parse_manifests(objs[0].dump() + "\n" + objs[1].dump(2), "stream.json");
  REQUIRE(stream.size() == 2);
  CHECK(stream[1] == objs[1]);
  json list = {{"apiVersion", "v1"}, {"kind", "List"}, {"items", objs}};
  CHECK(tfjob::parse_tfjobs(list.dump(), "list.json").size() == 2);
}

TEST_CASE("syntax errors carry line and column", "[api][errors]") {
  SECTION("YAML") {
    try {
      tfjob::parse_manifests(read("bad-syntax.yaml"), "bad-syntax.yaml");
      FAIL("no error");
    } catch (const tfjob::parse_error& e) {
      CHECK(e.line() >= 6);
      CHECK(e.column() > 0);
      CHECK_THAT(e.what(), Catch::Contains("bad-syntax.yaml: line ") && Catch::Contains("column"));
    }
  }
  SECTION("YAML bad indentation") {
    try {
      tfjob::parse_manifests("a:\n  b: 1\n c: 2\n", "indent.yaml");
      FAIL("no error");
    } catch (const tfjob::parse_error& e) {
      CHECK(e.line() == 3);
      CHECK_THAT(e.what(), Catch::Contains("indent.yaml: line 3"));
    }
  }
  SECTION("JSON") {
    try {
      tfjob::parse_manifests("{\n  \"kind\": \"TFJob\",\n  \"spec\": {\"a\": 1,,}\n}", "job.json");
      FAIL("no error");
    } catch (const tfjob::parse_error& e) {
      CHECK(e.line() == 3);
      CHECK(e.column() == 19);
      CHECK_THAT(e.what(), Catch::Contains("job.json: invalid JSON at line 3, column 19"));
    }
  }
  SECTION("duplicate keys") {
    CHECK_THROWS_WITH(tfjob::parse_manifests("a: 1\nb: 2\na: 3\n", "dup.yaml"),
                      Catch::Contains("line 3, column 1: duplicate key \"a\": give each key once"));
    // JSON too: the last value would win silently (a job created with the other replica count)
    CHECK_THROWS_WITH(tfjob::parse_manifests("{\"kind\": \"TFJob\",\n \"spec\": {\"replicas\": 2, \"replicas\": 3}}", "dup.json"),
                      Catch::Contains("dup.json: invalid JSON at line 2, column ") &&
                          Catch::Contains("duplicate key \"replicas\": give each key once"));
    // a key in two sibling objects is no duplicate; nor is one given again after its object closed
    CHECK_NOTHROW(tfjob::parse_manifests(R"({"a": {"x": 1}, "b": {"x": 2}, "c": [{"x": 1}, {"x": 2}]})", "ok.json"));
    // nested, in a List's items: the place is where the second key begins
    CHECK_THROWS_WITH(tfjob::parse_manifests(R"({"kind": "List", "items": [{"a": 1}, {"b": {"c": 1, "c": 2}}]})", "l.json"),
                      Catch::Contains("l.json: invalid JSON at line 1, column 53: duplicate key \"c\""));
  }
  SECTION("not a TFJob") {
    CHECK_THROWS_WITH(tfjob::parse_tfjobs("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n", "pod.yaml"),
                      Catch::Contains("pod.yaml: Pod p: expected kind TFJob") && Catch::Contains("got kind \"Pod\""));
    // whatever --validate says: no server has such a kind to create
    CHECK_THROWS_AS(tfjob::parse_tfjobs("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n", "pod.yaml",
                                        tfjob::FieldValidation::ignore),
                    tfjob::validation_error);
  }
}

TEST_CASE("fields of the wrong type are all reported with their paths", "[api][errors]") {
  // the schema (strict, the default) names each first, as kube-apiserver would
  try {
    tfjob::parse_tfjobs(read("wrong-types.yaml"), "wrong-types.yaml");
    FAIL("no error");
  } catch (const tfjob::validation_error& e) {
    CHECK(e.errors().size() == 5);
    CHECK_THAT(e.what(), Catch::Contains("wrong-types.yaml: TFJob wrong-types: spec.runPolicy.backoffLimit: Invalid value: "
                                         "\"three\": must be of type integer, not string"));
    CHECK_THAT(e.what(), Catch::Contains("spec.tfReplicaSpecs.Worker.replicas: Invalid value: 2.5: must be of type integer, not number"));
  }
  // without the schema, the decoder still refuses what it cannot read
  try {
    tfjob::parse_tfjobs(read("wrong-types.yaml"), "wrong-types.yaml", tfjob::FieldValidation::ignore);
    FAIL("no error");
  } catch (const tfjob::validation_error& e) {
    const auto& errs = e.errors();
    CHECK(has_error(errs, "metadata.labels", "Invalid value"));
    CHECK(has_error(errs, "spec.runPolicy.backoffLimit", "Invalid value"));
    CHECK(has_error(errs, "spec.runPolicy.suspend", "Invalid value"));
    CHECK(has_error(errs, "spec.tfReplicaSpecs[Worker].replicas", "Invalid value"));
    CHECK(has_error(errs, "spec.tfReplicaSpecs[Worker].template.spec.containers", "Invalid value"));
    CHECK(errs.size() == 5);
    CHECK_THAT(e.what(), Catch::Contains("spec.runPolicy.backoffLimit: Invalid value: \"three\": must be an integer, not string"));
  }
  CHECK_THROWS_AS(json::parse(R"({"spec":{"tfReplicaSpecs":{"Worker":{"replicas":3000000000}}}})").get<tfjob::TFJob>(),
                  tfjob::validation_error);
}

TEST_CASE("defaults exactly as the operator's SetDefaults_TFJob", "[api][defaults]") {
  auto with = [](json worker) {
    json j = {{"apiVersion", "kubeflow.org/v1"}, {"kind", "TFJob"}, {"metadata", {{"name", "t"}}},
              {"spec", {{"tfReplicaSpecs", {{"Worker", worker}}}}}};
    return tfjob::with_defaults(j.get<tfjob::TFJob>());
  };
  json container = {{"name", "tensorflow"}, {"image", "img"}};
  SECTION("replicas 1, restartPolicy Never, cleanPodPolicy None, successPolicy \"\", port added") {
    auto job = with({{"template", {{"spec", {{"containers", {container}}}}}}});
    const auto& w = job.spec.tf_replica_specs.at("Worker");
    CHECK(w.replicas == 1);
    CHECK(w.restart_policy == "Never");
    CHECK(job.spec.run_policy.clean_pod_policy == std::optional<std::string>("None"));
    CHECK(job.spec.success_policy == std::optional<std::string>(""));
    CHECK((*tfjob::containers(w))[0]["ports"] == json::parse(R"([{"containerPort":2222,"name":"tfjob-port"}])"));
  }
  SECTION("custom restart policy and an existing tfjob-port are kept") {
    json c = container;
    c["ports"] = {{{"name", "tfjob-port"}, {"containerPort", 3333}}};
    auto job = with({{"restartPolicy", "Always"}, {"replicas", 4}, {"template", {{"spec", {{"containers", {c}}}}}}});
    const auto& w = job.spec.tf_replica_specs.at("Worker");
    CHECK(w.restart_policy == "Always");
    CHECK(w.replicas == 4);
    CHECK((*tfjob::containers(w))[0]["ports"].size() == 1);
    CHECK(tfjob::tf_port(job, "Worker") == 3333);
  }
  SECTION("a port with another name gets tfjob-port appended") {
    json c = container;
    c["ports"] = {{{"name", "customPort"}, {"containerPort", 1234}}};
    auto job = with({{"template", {{"spec", {{"containers", {c}}}}}}});
    CHECK((*tfjob::containers(job.spec.tf_replica_specs.at("Worker")))[0]["ports"] ==
          json::parse(R"([{"name":"customPort","containerPort":1234},{"name":"tfjob-port","containerPort":2222}])"));
  }
  SECTION("the port goes to the container named tensorflow, else the first") {
    json side = {{"name", "sidecar"}, {"image", "busybox"}};
    auto job = with({{"template", {{"spec", {{"containers", {side, container}}}}}}});
    const auto& cs = *tfjob::containers(job.spec.tf_replica_specs.at("Worker"));
    CHECK_FALSE(cs[0].contains("ports"));
    CHECK(cs[1]["ports"][0]["name"] == "tfjob-port");
    auto job2 = with({{"template", {{"spec", {{"containers", {side}}}}}}});
    CHECK((*tfjob::containers(job2.spec.tf_replica_specs.at("Worker")))[0]["ports"][0]["containerPort"] == 2222);
  }
  SECTION("an explicit cleanPodPolicy is kept") {
    json j = {{"metadata", {{"name", "t"}}},
              {"spec", {{"runPolicy", {{"cleanPodPolicy", "All"}}}, {"tfReplicaSpecs", {{"Worker", replica(1)}}}}}};
    auto job = tfjob::with_defaults(j.get<tfjob::TFJob>());
    CHECK(job.spec.run_policy.clean_pod_policy == std::optional<std::string>("All"));
  }
  SECTION("replica-type keys are normalised case-insensitively (TestSetTypeNames)") {
    json j = {{"metadata", {{"name", "t"}}},
              {"spec", {{"tfReplicaSpecs", {{"WORKER", replica(2)}, {"ps", replica(1)}, {"cHiEf", replica(1)},
                                            {"evaluator", replica(1)}}}}}};
    auto job = tfjob::with_defaults(j.get<tfjob::TFJob>());
    std::vector<std::string> keys;
    for (const auto& [k, v] : job.spec.tf_replica_specs) keys.push_back(k);
    CHECK(keys == std::vector<std::string>{"Chief", "Evaluator", "PS", "Worker"});
    CHECK(job.spec.tf_replica_specs.at("Worker").replicas == 2);
  }
  SECTION("no containers: nothing to add a port to, and no crash") {
    auto job = with({{"template", {{"spec", {{"containers", json::array()}}}}}});
    CHECK(job.spec.tf_replica_specs.at("Worker").replicas == 1);
  }
}

TEST_CASE("validation mirrors the operator's webhook and lists every problem", "[api][validation]") {
  auto job_of = [](json specs, std::string name = "test") {
    json j = {{"apiVersion", "kubeflow.org/v1"}, {"kind", "TFJob"}, {"metadata", {{"name", name}}},
              {"spec", {{"tfReplicaSpecs", specs}}}};
    return j.get<tfjob::TFJob>();
  };
  SECTION("valid") { CHECK(tfjob::validate(job_of({{"Worker", replica(2)}, {"PS", replica(1)}})).empty()); }
  SECTION("DNS-1035 name") {
    auto errs = tfjob::validate(job_of({{"Worker", replica(1)}}, "00test"));
    REQUIRE(errs.size() == 1);
    CHECK(errs[0].to_string() ==
          "metadata.name: Invalid value: \"00test\": should match: a DNS-1035 label must consist of lower case "
          "alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric "
          "character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')");
    CHECK(tfjob::validate(job_of({{"Worker", replica(1)}}, std::string(64, 'a'))).size() == 1);
    CHECK(tfjob::validate(job_of({{"Worker", replica(1)}}, std::string(63, 'a'))).empty());
    CHECK(tfjob::validate(job_of({{"Worker", replica(1)}}, "a.b")).size() == 1);
    CHECK(tfjob::validate(job_of({{"Worker", replica(1)}}, "ends-")).size() == 1);
  }
  SECTION("the namespace, the pod's volume names and each container's mount paths, as the API server judges them") {
    auto j = job_of({{"Worker", replica(1)}});
    j.metadata.namespace_ = "Team_A";
    auto errs = tfjob::validate(j);
    REQUIRE(errs.size() == 1);
    CHECK(errs[0].to_string().rfind("metadata.namespace: Invalid value: \"Team_A\": a lowercase RFC 1123 label must consist of", 0) == 0);
    j.metadata.namespace_ = "team-a";
    CHECK(tfjob::validate(j).empty());
    // two volumes of one name, two mounts at one path: the operator's pods would be refused (422)
    json w = replica(1);
    w["template"]["spec"]["volumes"] = {{{"name", "d"}, {"emptyDir", json::object()}}, {{"name", "d"}, {"emptyDir", json::object()}}};
    w["template"]["spec"]["containers"][0]["volumeMounts"] = {{{"name", "d"}, {"mountPath", "/data"}}, {{"name", "d"}, {"mountPath", "/data"}}};
    errs = tfjob::validate(job_of({{"Worker", w}}));
    std::vector<std::string> got;
    for (const auto& e : errs) got.push_back(e.to_string());
    CHECK(got == std::vector<std::string>{
                     "spec.tfReplicaSpecs[Worker].template.spec.volumes[1].name: Duplicate value: \"d\"",
                     "spec.tfReplicaSpecs[Worker].template.spec.containers[0].volumeMounts[1].mountPath: Invalid value: \"/data\": must be unique"});
  }
  SECTION("labels and annotations as the API server's ObjectMeta validation") {
    auto j = job_of({{"Worker", replica(1)}});
    j.metadata.labels = {{"team", "bad value!"}, {"example.com/ok", "fine_1.0"}, {"Bad_Prefix/x", "v"}, {"", "v"}};
    j.metadata.annotations = {{"a/b/c", "x"}, {"kubectl-tfjob.io/any-value", "anything at all, spaces included"}};
    auto errs = tfjob::validate(j);
    std::vector<std::string> got;
    for (const auto& e : errs) got.push_back(e.to_string());
    INFO(Catch::Detail::stringify(got));
    REQUIRE(errs.size() == 4);
    // the label value: exactly kube-apiserver's words (seen from the realapi tier's 422)
    CHECK(std::find(got.begin(), got.end(),
                    "metadata.labels: Invalid value: \"bad value!\": a valid label must be an empty string or consist of "
                    "alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. "
                    "'MyValue',  or 'my_value',  or '12345', regex used for validation is "
                    "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')") != got.end());
    auto has = [&](const std::string& part) {
      return std::any_of(got.begin(), got.end(), [&](const std::string& g) { return g.find(part) != std::string::npos; });
    };
    CHECK(has("metadata.labels: Invalid value: \"Bad_Prefix/x\": prefix part a lowercase RFC 1123 subdomain"));
    CHECK(has("metadata.labels: Invalid value: \"\": name part must be non-empty"));
    CHECK(has("metadata.annotations: Invalid value: \"a/b/c\": a qualified name must consist of"));
    j.metadata.labels = {{"app.kubernetes.io/name", "mnist"}, {"empty", ""}, {std::string(63, 'k'), std::string(63, 'v')}};
    j.metadata.annotations = {{"note", std::string(1000, ' ')}};
    CHECK(tfjob::validate(j).empty());
    j.metadata.labels = {{std::string(64, 'k'), std::string(64, 'v')}};
    CHECK(tfjob::validate(j).size() == 2);  // name part too long; value too long
  }
  SECTION("no containers: required twice, like the operator's test") {
    json r = replica(1);
    r["template"]["spec"]["containers"] = json::array();
    auto errs = tfjob::validate(job_of({{"Worker", r}}));
    REQUIRE(errs.size() == 2);
    CHECK(errs[0].to_string() == "spec.tfReplicaSpecs[Worker].template.spec.containers: Required value: must be specified");
    CHECK(errs[1].to_string() ==
          "spec.tfReplicaSpecs[Worker].template.spec.containers: Required value: must have at least one container with name tensorflow");
  }
  SECTION("image required") {
    json r = replica(1);
    r["template"]["spec"]["containers"][0].erase("image");
    auto errs = tfjob::validate(job_of({{"Worker", r}}));
    REQUIRE(errs.size() == 1);
    CHECK(errs[0].to_string() == "spec.tfReplicaSpecs[Worker].template.spec.containers[0].image: Required value: must be required");
  }
  SECTION("a container named tensorflow") {
    json r = replica(1);
    r["template"]["spec"]["containers"][0]["name"] = "";
    auto errs = tfjob::validate(job_of({{"Worker", r}}));
    REQUIRE(errs.size() == 1);
    CHECK(errs[0].field == "spec.tfReplicaSpecs[Worker].template.spec.containers");
    CHECK(errs[0].type == "Required value");
  }
  SECTION("at most one Chief or Master") {
    auto errs = tfjob::validate(job_of({{"Chief", replica(1)}, {"Master", replica(1)}}));
    REQUIRE(errs.size() == 1);
    CHECK(errs[0].to_string() == "spec.tfReplicaSpecs: Forbidden: must not have more than 1 Chief or Master role");
  }
  SECTION("managedBy") {
    auto job = job_of({{"Worker", replica(1)}});
    job.spec.run_policy.managed_by = "other";
    auto errs = tfjob::validate(job);
    REQUIRE(errs.size() == 1);
    CHECK(errs[0].to_string() ==
          "spec.runPolicy.managedBy: Unsupported value: \"other\": supported values: \"kueue.x-k8s.io/multikueue\", "
          "\"kubeflow.org/training-operator\"");
  }
  SECTION("tfReplicaSpecs required") {
    auto errs = tfjob::validate(job_of(json::object()));
    REQUIRE(errs.size() == 1);
    CHECK(errs[0].to_string() == "spec.tfReplicaSpecs: Required value: must be required");
  }
  SECTION("everything at once from a manifest") {
    // the schema would refuse `memory: lots` first: the webhook's rules are what this tests
    auto job = tfjob::with_defaults(
        tfjob::parse_tfjobs(read("invalid.yaml"), "invalid.yaml", tfjob::FieldValidation::ignore).at(0));
    auto errs = tfjob::validate(job);
    INFO(tfjob::validation_error(errs).what());
    CHECK(has_error(errs, "metadata.name", "Invalid value"));
    CHECK(has_error(errs, "spec.runPolicy.managedBy", "Unsupported value"));
    CHECK(has_error(errs, "spec.runPolicy.cleanPodPolicy", "Unsupported value"));
    CHECK(has_error(errs, "spec.tfReplicaSpecs[Chief].template.spec.containers[0].image", "Required value"));
    CHECK(has_error(errs, "spec.tfReplicaSpecs[Chief].template.spec.containers", "Required value"));
    CHECK(has_error(errs, "spec.tfReplicaSpecs[Master].template.spec.containers[0].resources.limits[memory]", "Invalid value"));
    CHECK(has_error(errs, "spec.tfReplicaSpecs[Worker].template.spec.containers", "Required value"));
    CHECK(has_error(errs, "spec.tfReplicaSpecs", "Forbidden"));
    CHECK(errs.size() == 9);
    CHECK_THROWS_AS(tfjob::validate_or_throw(job), tfjob::validation_error);
  }
  SECTION("client-side extras: enums, ranges, unknown types, case duplicates, quantities") {
    json w = replica(1);
    w["restartPolicy"] = "Sometimes";
    w["replicas"] = -1;
    w["template"]["spec"]["containers"][0]["resources"] = {{"requests", {{"cpu", "1.5x"}, {"memory", "1Gi"}}},
                                                           {"limits", {{"nvidia.com/gpu", 1}}}};
    auto job = job_of({{"Worker", w}, {"worker", replica(1)}, {"Workers", replica(1)}});
    job.spec.success_policy = "Chief";
    job.spec.run_policy.backoff_limit = -1;
    job.spec.run_policy.active_deadline_seconds = 0;
    auto errs = tfjob::validate(job);
    INFO(tfjob::validation_error(errs).what());
    CHECK(has_error(errs, "spec.tfReplicaSpecs[Worker].restartPolicy", "Unsupported value"));
    CHECK(has_error(errs, "spec.tfReplicaSpecs[Worker].replicas", "Invalid value"));
    CHECK(has_error(errs, "spec.tfReplicaSpecs[Worker].template.spec.containers[0].resources.requests[cpu]", "Invalid value"));
    CHECK(has_error(errs, "spec.tfReplicaSpecs[worker]", "Duplicate value"));
    CHECK(has_error(errs, "spec.tfReplicaSpecs", "Unsupported value"));
    CHECK(has_error(errs, "spec.successPolicy", "Unsupported value"));
    CHECK(has_error(errs, "spec.runPolicy.backoffLimit", "Invalid value"));
    CHECK(has_error(errs, "spec.runPolicy.activeDeadlineSeconds", "Invalid value"));
    CHECK(errs.size() == 8);
  }
  SECTION("generateName instead of name is accepted; neither is not") {
    auto job = job_of({{"Worker", replica(1)}}, "");
    CHECK(messages(tfjob::validate(job)) == std::vector<std::string>{"metadata.name: Required value: name or generateName is required"});
    job.metadata.generate_name = "run-";
    CHECK(tfjob::validate(job).empty());
  }
}

TEST_CASE("quantities parse as Kubernetes quantities", "[api][quantity]") {
  for (const char* ok : {"1", "500m", "1.5", ".5", "4Gi", "512Mi", "1e3", "1E-2", "2k", "+1", "100n", "3Ti", "0"})
    CHECK(tfjob::is_quantity(ok));
  for (const char* bad : {"", "abc", "1.5x", "Gi", "1 Gi", "1GiB", "e3", "1e", "--1", "1.2.3", "1KI"})
    CHECK_FALSE(tfjob::is_quantity(bad));
  CHECK(tfjob::Quantity::parse("500m").milli_value() == 500);
  CHECK(tfjob::Quantity::parse("4Gi").value() == 4.0 * 1024 * 1024 * 1024);
  CHECK(tfjob::Quantity::parse("1.5").milli_value() == 1500);
  CHECK(tfjob::Quantity::parse("1e3").int_value() == 1000);
  CHECK(tfjob::Quantity::parse("2k").int_value() == 2000);
  // exponents: read with the digits, exactly as strtod reads "0.3e-1" (no pow())
  CHECK(tfjob::Quantity::parse("1.5e3").int_value() == 1500);
  CHECK(tfjob::Quantity::parse("25E-3").milli_value() == 25);
  CHECK(tfjob::Quantity::parse("0.3e-1").value() == 0.03);
  CHECK(tfjob::Quantity::parse("-2e+2").int_value() == -200);
  CHECK_FALSE(tfjob::is_quantity("1e400"));  // beyond a double: not a quantity
  CHECK_FALSE(tfjob::is_quantity("1e1001"));
  CHECK_THROWS_WITH(tfjob::Quantity::parse("lots"), Catch::Contains("\"lots\" is not a Kubernetes quantity"));
}

TEST_CASE("resource_traits<TFJob> says where TFJobs live", "[api]") {
  using T = tfjob::kube::resource_traits<tfjob::TFJob>;
  CHECK(std::string(T::group) == "kubeflow.org");
  CHECK(std::string(T::version) == "v1");
  CHECK(std::string(T::plural) == "tfjobs");
  CHECK(std::string(T::kind) == "TFJob");
  CHECK(T::namespaced);
}

TEST_CASE("the in-repo CRD is v1.9.4's, and its TFJob fields are those of ../shared's v1.9.0", "[api][crd]") {
  auto read_all = [](const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    REQUIRE(in);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  };
  const std::string a = read_all(tfjob::test::crd_file());
  CHECK(a.size() > 1000);
  // The committed copy is kubeflow/trainer's manifests/base/crds/kubeflow.org_tfjobs.yaml at
  // tag v1.9.4 byte for byte (its sha256 when it was checked in), so a clone without
  // ../shared beside it still proves it unchanged.
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned md_len = 0;
  REQUIRE(EVP_Digest(a.data(), a.size(), md, &md_len, EVP_sha256(), nullptr) == 1);
  std::string hex;
  for (unsigned i = 0; i < md_len; ++i) hex += "0123456789abcdef"[md[i] >> 4], hex += "0123456789abcdef"[md[i] & 15];
  CHECK(hex == "6028ab677922ee558d279c9cc2028500372875eec327ed6819fc4dc2796cda9e");
  // v1.9.4 grew the pod template's schema to Kubernetes 1.36; the TFJob's own fields are
  // v1.9.0's: the schemas without descriptions and pod templates are equal.
  const std::string shared = tfjob::test::shared_crd_file();
  if (shared.empty()) return;
  auto tfjob_fields = [](const std::string& text, const std::string& source) {
    const auto objs = tfjob::parse_objects(text, source);
    REQUIRE(objs.size() == 1);
    nlohmann::json schema;
    for (const auto& v : objs[0]["spec"]["versions"])
      if (v["name"] == "v1") schema = v["schema"]["openAPIV3Schema"];
    REQUIRE(schema.is_object());
    std::function<void(nlohmann::json&)> strip = [&](nlohmann::json& n) {
      if (n.is_object()) {
        n.erase("description");
        if (n.contains("properties") && n["properties"].contains("template") && n["properties"].contains("replicas"))
          n["properties"]["template"] = "a pod template";
        for (auto& [k, v] : n.items()) strip(v);
      } else if (n.is_array()) {
        for (auto& v : n) strip(v);
      }
    };
    strip(schema);
    return schema;
  };
  CHECK(tfjob_fields(a, "in-repo CRD") == tfjob_fields(read_all(shared), shared));
}

namespace {

/// Every object of the saved cluster states under tests/data/explain/ (Lists expanded).
std::vector<json> saved_objects() {
  std::vector<json> out;
  const std::string dir = tfjob::test::source_dir() + "/tests/data/explain/";
  for (const char* f : {"image-pull.yaml", "pending-gpu.yaml", "pending-claim.yaml", "istio-sidecar-3935.yaml",
                        "exitcode-permanent-2045.yaml", "gang-pending-948.yaml", "kueue-quota-pending.yaml"}) {
    std::ifstream in(dir + f, std::ios::binary);
    REQUIRE(in);
    std::stringstream ss;
    ss << in.rdbuf();
    for (auto& doc : tfjob::detail::read_yaml_documents(ss.str(), f)) {
      if (doc.value("kind", "") == "List") {
        for (auto& item : doc["items"]) out.push_back(item);
      } else {
        out.push_back(doc);
      }
    }
  }
  return out;
}

template <class T>
json round_trip(const json& j) {
  return json(j.get<T>());
}

/// What Go's Quantity writes for a quantity read from a number: its text (the hand-written
/// fixtures have `nvidia.com/gpu: 1`; a server would have sent "1").
json quantities_as_text(json j) {
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (!it->is_structured()) continue;
    const bool quantities = j.is_object() && (it.key() == "limits" || it.key() == "requests" ||
                                              it.key() == "capacity" || it.key() == "allocatable");
    if (quantities && it->is_object()) {
      for (auto& [k, v] : it->items())
        if (v.is_number()) v = v.dump();
    } else {
      *it = quantities_as_text(*it);
    }
  }
  return j;
}

}  // namespace

TEST_CASE("the core kinds are decoded into types and written back unchanged", "[api][roundtrip][k8s]") {
  std::map<std::string, int> seen;
  for (const auto& o : saved_objects()) {
    const std::string kind = o.value("kind", "");
    json back;
    if (kind == "Pod") back = round_trip<tfjob::k8s::Pod>(o);
    else if (kind == "Node") back = round_trip<tfjob::k8s::Node>(o);
    else if (kind == "Event") back = round_trip<tfjob::k8s::Event>(o);
    else if (kind == "PersistentVolumeClaim") back = round_trip<tfjob::k8s::PersistentVolumeClaim>(o);
    else if (kind == "Namespace") back = round_trip<tfjob::k8s::Namespace>(o);
    else continue;
    ++seen[kind];
    INFO(kind << " " << o.dump());
    CHECK(back == quantities_as_text(o));
  }
  CHECK(seen["Pod"] > 3);
  CHECK(seen["Event"] > 3);
  CHECK(seen["Node"] > 0);
}

TEST_CASE("a pod's fields are read as types", "[api][k8s]") {
  const json j = json::parse(R"({
    "apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "mnist-worker-0", "namespace": "ml", "labels": {"training.kubeflow.org/replica-type": "worker"},
                 "ownerReferences": [{"apiVersion": "kubeflow.org/v1", "kind": "TFJob", "name": "mnist", "uid": "u1", "controller": true}]},
    "spec": {"nodeName": "gpu-1",
             "initContainers": [{"name": "istio-proxy", "image": "proxy", "restartPolicy": "Always"}],
             "containers": [{"name": "tensorflow", "image": "tf", "ports": [{"name": "tfjob-port", "containerPort": 2222}],
                             "resources": {"limits": {"nvidia.com/gpu": 2, "memory": "8Gi"}},
                             "env": [{"name": "TF_CONFIG", "value": "{}"}]}]},
    "status": {"phase": "Running",
               "conditions": [{"type": "Ready", "status": "False"}],
               "initContainerStatuses": [{"name": "istio-proxy", "ready": true, "restartCount": 3, "state": {"running": {"startedAt": "t"}}}],
               "containerStatuses": [{"name": "tensorflow", "ready": false, "restartCount": 1,
                                      "state": {"terminated": {"exitCode": 137, "reason": "OOMKilled"}},
                                      "lastState": {}}]}})");
  const auto p = j.get<tfjob::k8s::Pod>();
  CHECK(p.metadata.label("training.kubeflow.org/replica-type") == "worker");
  REQUIRE(p.metadata.controller() != nullptr);
  CHECK(p.metadata.controller()->name == "mnist");
  CHECK(p.spec.node_name == "gpu-1");
  REQUIRE(p.spec.sidecars().size() == 1);
  CHECK(p.spec.sidecars()[0]->name == "istio-proxy");
  const auto* tf = p.spec.container("tensorflow");
  REQUIRE(tf != nullptr);
  CHECK(tf->ports.at(0).container_port == 2222);
  CHECK(tf->resource("nvidia.com/gpu") == "2");  // a number in a manifest reads as its text, as apimachinery's Quantity
  CHECK(tf->env_var("TF_CONFIG")->value == "{}");
  CHECK_FALSE(p.ready());
  CHECK(p.restart_count() == 4);
  const auto* cs = p.container_status("tensorflow");
  REQUIRE(cs != nullptr);
  REQUIRE(cs->state.terminated.has_value());
  CHECK(cs->state.terminated->exit_code == 137);
  CHECK(cs->state.terminated->reason == "OOMKilled");
  CHECK(p.container_status("istio-proxy")->restart_count == 3);
  // written back: the same object but the number, which Go's Quantity writes as a string too
  json want = j;
  want["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/gpu"] = "2";
  CHECK(json(p) == want);
}

TEST_CASE("a field of the wrong type from a server stays as it came and is not read", "[api][k8s][hostile]") {
  const json j = json::parse(R"({
    "kind": "Pod", "metadata": {"name": 7, "labels": {"a": 1, "b": "x"}},
    "spec": {"containers": [{"name": "c", "ports": "many"}, 5], "nodeName": ["n"]},
    "status": {"phase": "Running", "containerStatuses": [{"name": "c", "restartCount": "lots", "state": {"waiting": 3}}]}})");
  tfjob::k8s::Pod p;
  REQUIRE_NOTHROW(p = j.get<tfjob::k8s::Pod>());
  CHECK(p.metadata.name.empty());
  CHECK(p.metadata.labels.empty());          // one wrong value: the whole map is not modeled
  CHECK(p.spec.containers.empty());          // an item that is not an object: the list is not modeled
  CHECK(p.spec.node_name.empty());
  CHECK(p.status.phase == "Running");
  REQUIRE(p.status.container_statuses.size() == 1);
  CHECK(p.status.container_statuses[0].restart_count == 0);
  CHECK_FALSE(p.status.container_statuses[0].state.waiting.has_value());
  CHECK(json(p) == j);                        // and nothing is lost
  CHECK_THROWS_WITH(json::parse(R"(["not", "a", "pod"])").get<tfjob::k8s::Pod>(),
                    Catch::Contains("a Pod must be a JSON object, not array"));
}

TEST_CASE("a list from a server is decoded item by item: its length kept and nothing lost", "[api][k8s][hostile]") {
  const std::vector<json> served = {
      json::parse(R"({"kind": "Event", "metadata": {"name": "e1", "uid": "u1"}, "involvedObject": {"kind": "Pod", "name": "p"},
                      "reason": "FailedScheduling", "count": 3, "future": {"x": 1}})"),
      json("not an event"),  // a hostile item: an empty value in its place, not a throw
      json::parse(R"({"kind": "Event", "reason": 5, "message": "m"})")};
  const auto events = tfjob::detail::decode_each<tfjob::k8s::Event>(served);
  REQUIRE(events.size() == 3);
  CHECK(events[0].involved_object.name == "p");
  CHECK(events[0].count == 3);
  CHECK(events[1].reason.empty());
  CHECK(events[2].reason.empty());  // of the wrong type: not read
  CHECK(events[2].message == "m");
  const auto back = tfjob::detail::to_json_each(events);
  REQUIRE(back.size() == 3);
  CHECK(back[0] == served[0]);  // the unmodeled field included
  CHECK(back[2] == served[2]);  // the wrong-typed field as it came
  // a TFJob as served, decoded leniently: a wrong-typed field stays in `other`, nothing throws
  const json job = json::parse(R"({"apiVersion": "kubeflow.org/v1", "kind": "TFJob", "metadata": {"name": "j"},
                                   "spec": {"runPolicy": {"backoffLimit": "three"}, "tfReplicaSpecs": {"Worker": {"replicas": 2}}}})");
  tfjob::TFJob t;
  REQUIRE_NOTHROW(t = tfjob::detail::decoded<tfjob::TFJob>(job));
  CHECK(t.metadata.name == "j");
  CHECK_FALSE(t.spec.run_policy.backoff_limit.has_value());
  CHECK(t.replica("Worker")->replicas_or_default() == 2);
  CHECK(json(t) == job);
}

TEST_CASE("a changed quantity is written as changed, not as the number it was read from", "[api][k8s]") {
  auto p = json::parse(R"({"kind": "Pod", "spec": {"containers": [{"name": "c", "resources": {"limits": {"cpu": 2}}}]}})")
               .get<tfjob::k8s::Pod>();
  p.spec.containers[0].resources.limits.clear();
  const json back = p;
  CHECK_FALSE(back["spec"]["containers"][0].contains("resources"));
}

TEST_CASE("a pod's ephemeral containers are read as containers and written back unchanged", "[api][k8s][roundtrip]") {
  // kubectl debug adds EphemeralContainers: a Container's fields plus targetContainerName
  const json j = json::parse(R"({
    "kind": "Pod", "metadata": {"name": "p"},
    "spec": {"containers": [{"name": "tensorflow", "image": "tf"}],
             "ephemeralContainers": [{"name": "debugger-x1", "image": "busybox", "targetContainerName": "tensorflow",
                                      "stdin": true}]},
    "status": {"ephemeralContainerStatuses": [{"name": "debugger-x1", "restartCount": 0, "state": {"running": {}}}]}})");
  const auto p = j.get<tfjob::k8s::Pod>();
  REQUIRE(p.spec.ephemeral_containers.size() == 1);
  CHECK(p.spec.ephemeral_containers[0].name == "debugger-x1");
  CHECK(p.spec.ephemeral_containers[0].image == "busybox");
  CHECK(p.spec.ephemeral_containers[0].other.value("targetContainerName", "") == "tensorflow");
  CHECK(p.spec.container("debugger-x1") == nullptr);  // not one of the pod's own containers
  REQUIRE(p.container_status("debugger-x1") != nullptr);
  CHECK(json(p) == j);
}

TEST_CASE("metadata_of reads any object's metadata leniently", "[api][k8s][hostile]") {
  const auto m = tfjob::metadata_of(json::parse(
      R"({"kind": "Whatever", "metadata": {"name": "x", "namespace": "ns", "uid": "u", "resourceVersion": "7", "labels": {"a": "b"}}})"));
  CHECK(m.name == "x");
  CHECK(m.namespace_ == "ns");
  CHECK(m.uid == "u");
  CHECK(m.resource_version == "7");
  CHECK(m.label("a") == "b");
  // a field of the wrong type is not read, and nothing throws
  const auto bad = tfjob::metadata_of(json::parse(R"({"metadata": {"name": 7, "uid": "u"}})"));
  CHECK(bad.name.empty());
  CHECK(bad.uid == "u");
  CHECK(tfjob::metadata_of(json::parse(R"({"metadata": "x"})")).name.empty());
  CHECK(tfjob::metadata_of(json::parse(R"([1, 2])")).name.empty());
  CHECK(tfjob::metadata_of(json()).name.empty());
}
