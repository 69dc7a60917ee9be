// --validate=strict|warn|ignore on every command that reads a manifest (submit, tf-config,
// lint, explain, tensorboard), run in-process (run_cli) against the fake API server: strict
// refuses before anything is sent, warn says each finding and goes on (the server's Warning
// for the same field is not said twice), ignore looks at none; creates and applies carry
// fieldValidation to match. lint is at least as strict as submit, with the same severity in
// its lines and its JSON; several documents name their job in every warning.
#include <catch2/catch.hpp>

#include "support/fake_apiserver.hpp"
#include "support/fake_cluster.hpp"
#include "support/paths.hpp"
#include "support/skip.hpp"

#if __has_include("cli.hpp")
#include "cli.hpp"                // plugin/cli.hpp: linked from the plugin's objects (tests/cmake/plugin.cmake)
#include "common/context.hpp"     // Context: the server's warnings beside the client's
#define TFJOB_HAVE_PLUGIN_CLI 1
#endif

#include <tfjob/kube/tfjob_resource.hpp>
#include <tfjob/api/manifest.hpp>
#include <tfjob/api/schema.hpp>
#include <tfjob/detail/input.hpp>
#include <tfjob/kube/client.hpp>
#include <tfjob/kube/request.hpp>

#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using nlohmann::json;

namespace {

struct Ran {
  int rc = -1;
  std::string out, err;
};

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::size_t count(const std::string& text, const std::string& part) {
  std::size_t n = 0;
  for (auto p = text.find(part); p != std::string::npos; p = text.find(part, p + 1)) ++n;
  return n;
}

/// This run's directory for the files below (under the build tree).
const std::string& dir() {
  static const std::string d = tfjob::test::temp_dir("cli-validate");
  return d;
}

/// A file in dir() with `text`.
std::string file(const std::string& name, const std::string& text) {
  const std::string path = dir() + "/" + name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

/// A valid TFJob named `name`, with `extra` (YAML under spec, indented two spaces) added.
std::string job_yaml(const std::string& name, const std::string& extra = "", const std::string& kind = "TFJob",
                     const std::string& api = "kubeflow.org/v1") {
  return "apiVersion: " + api + "\nkind: " + kind + "\nmetadata:\n  name: " + name + "\nspec:\n" + extra +
         "  tfReplicaSpecs:\n    Worker:\n      replicas: 1\n      template:\n        spec:\n          containers:\n"
         "          - name: tensorflow\n            image: tensorflow/tensorflow:2.15.0\n";
}

const std::string typo_extra = "  runPolcy:\n    backoffLimit: 3\n";
const std::string typo_line = "unknown field \"spec.runPolcy\"; did you mean \"runPolicy\"?";

#ifdef TFJOB_HAVE_PLUGIN_CLI
Ran call(std::vector<std::string> args) {
  std::ostringstream out, err;
  Ran r;
  r.rc = tfjob::cli::run_cli(args, out, err);
  r.out = out.str();
  r.err = err.str();
  return r;
}

struct Cluster : tfjob::test::FakeCluster {
  Cluster() : FakeCluster(tfjob::test::with_controllers({}, false), "cli-validate") {}
  Ran run_in(std::vector<std::string> args) const {
    args.push_back("--kubeconfig");
    args.push_back(kubeconfig);
    return call(args);
  }
  /// The fieldValidation of every write to tfjobs ("-" when a write had none).
  std::vector<std::string> tfjob_writes() const {
    std::vector<std::string> out;
    for (const auto& r : server->requests()) {
      if (r.path.find("/tfjobs") == std::string::npos || (r.method != "PATCH" && r.method != "POST" && r.method != "PUT")) continue;
      auto p = r.query.find("fieldValidation=");
      out.push_back(p == std::string::npos ? "-" : r.query.substr(p + 16, r.query.find('&', p) - p - 16));
    }
    return out;
  }
};
#endif

}  // namespace

TEST_CASE("submit -f --validate: strict refuses, warn says it and sends every field, ignore is quiet", "[cli][validate]") {
#ifndef TFJOB_HAVE_PLUGIN_CLI
  TFJOB_SKIP("the plugin is not built (TFJOB_BUILD_PLUGIN=OFF)");
#else
  const std::string f = file("typo.yaml", job_yaml("typo", typo_extra));
  for (const char* strict : {"", "--validate=strict", "--validate=true", "--validate"}) {
    std::vector<std::string> args = {"submit", "-f", f, "--dry-run=client", "-o", "yaml"};
    if (*strict) args.push_back(strict);
    auto r = call(args);
    INFO(strict << "\n" << r.err);
    CHECK(r.rc == 64);  // an input that cannot be used: nothing sent (docs/cli.md)
    CHECK(r.out.empty());
    CHECK(r.err == "error: invalid TFJob:\n  " + f + ": TFJob typo: " + typo_line + "\n");
  }
  auto r = call({"submit", "-f", f, "--dry-run=client", "-o", "yaml", "--validate=warn"});
  INFO(r.err);
  CHECK(r.rc == 0);
  CHECK(r.err == "warning: " + f + ": TFJob typo: " + typo_line + "\n");
  CHECK(has(r.out, "  runPolcy:\n    backoffLimit: 3\n"));  // kept: the server decides
  for (const char* ignore : {"--validate=ignore", "--validate=false"}) {
    r = call({"submit", "-f", f, "--dry-run=client", "-o", "name", ignore});
    INFO(r.err);
    CHECK(r.rc == 0);
    CHECK(r.out == "tfjob.kubeflow.org/typo\n");
    CHECK(r.err.empty());
  }
  r = call({"submit", "-f", f, "--dry-run=client", "--validate=maybe"});
  CHECK(r.rc == 64);
  CHECK(has(r.err, "--validate"));
  // tf-config reads manifests the same way
  r = call({"tf-config", "-f", f});
  CHECK(r.rc == 64);
  CHECK(has(r.err, typo_line));
  r = call({"tf-config", "-f", f, "--validate=warn"});
  CHECK(r.rc == 0);
  CHECK(r.err == "warning: " + f + ": TFJob typo: " + typo_line + "\n");
#endif
}

TEST_CASE("submit -f to a cluster: strict creates nothing, the apply carries fieldValidation, the server's warning is "
          "said once",
          "[cli][validate]") {
#ifndef TFJOB_HAVE_PLUGIN_CLI
  TFJOB_SKIP("the plugin is not built (TFJOB_BUILD_PLUGIN=OFF)");
#else
  Cluster c;
  const std::string f = file("typo.yaml", job_yaml("typo", typo_extra));
  auto r = c.run_in({"submit", "-f", f, "--skip-gpu-check"});
  INFO(r.out << r.err);
  CHECK(r.rc == 64);
  CHECK(has(r.err, typo_line));
  CHECK(c.tfjob_writes().empty());  // refused before any request
  CHECK_FALSE(c.server->get_object("tfjobs", "default", "typo"));

  c.server->clear_requests();
  r = c.run_in({"submit", "-f", f, "--skip-gpu-check", "--validate=warn"});
  INFO(r.out << r.err);
  REQUIRE(r.rc == 0);
  CHECK(r.out == "tfjob.kubeflow.org/typo created\n");
  // the client said it; the server (fieldValidation=Warn) said it again in a Warning header,
  // and that one is not repeated
  CHECK(count(r.err, "unknown field \"spec.runPolcy\"") == 1);
  CHECK_FALSE(has(r.err, "Warning: unknown field"));
  for (const auto& fv : c.tfjob_writes()) CHECK(fv == "Warn");
  CHECK_FALSE(c.tfjob_writes().empty());
  auto stored = c.server->get_object("tfjobs", "default", "typo");
  REQUIRE(stored);
  CHECK_FALSE((*stored)["spec"].contains("runPolcy"));  // the server pruned it, as kube-apiserver does

  c.server->clear_requests();
  const std::string g = file("typo2.yaml", job_yaml("typo2", typo_extra));
  r = c.run_in({"submit", "-f", g, "--skip-gpu-check", "--validate=ignore"});
  INFO(r.out << r.err);
  REQUIRE(r.rc == 0);
  CHECK_FALSE(has(r.err, "unknown field"));
  for (const auto& fv : c.tfjob_writes()) CHECK(fv == "Ignore");

  c.server->clear_requests();
  const std::string ok = file("ok.yaml", job_yaml("fine"));
  r = c.run_in({"submit", "-f", ok, "--skip-gpu-check"});
  INFO(r.out << r.err);
  REQUIRE(r.rc == 0);
  CHECK_FALSE(c.tfjob_writes().empty());
  for (const auto& fv : c.tfjob_writes()) CHECK(fv == "Strict");
#endif
}

TEST_CASE("the server's Warning headers are said as kubectl says them, once, unless the client said the same",
          "[cli][validate]") {
#ifndef TFJOB_HAVE_PLUGIN_CLI
  TFJOB_SKIP("the plugin is not built (TFJOB_BUILD_PLUGIN=OFF)");
#else
  Cluster c;
  tfjob::cli::Globals g;
  g.conn.kubeconfig = c.kubeconfig;
  std::ostringstream out, err;
  tfjob::cli::Context ctx(g, out, err);
  auto rc = ctx.rest_config();
  REQUIRE(rc.on_warning);
  rc.on_warning("unknown field \"spec.x\"");
  rc.on_warning("unknown field \"spec.x\"");
  ctx.warn_once("f.yaml: TFJob j: unknown field \"spec.y\"; did you mean \"z\"?");
  rc.on_warning("unknown field \"spec.y\"");
  CHECK(err.str() == "Warning: unknown field \"spec.x\"\nwarning: f.yaml: TFJob j: unknown field \"spec.y\"; did you mean \"z\"?\n");
  // and a real one, end to end: the SDK's client hears the fake's header
  std::vector<std::string> heard;
  auto cfg = tfjob::test::admin_config(*c.server);
  cfg.on_warning = [&](const std::string& t) { heard.push_back(t); };
  tfjob::kube::Client client(cfg);
  json j = json::parse(R"({"apiVersion":"kubeflow.org/v1","kind":"TFJob","metadata":{"name":"w","namespace":"default"},
    "spec":{"colour":"blue","tfReplicaSpecs":{"Worker":{"template":{"spec":{"containers":[{"name":"tensorflow","image":"tf"}]}}}}}})");
  tfjob::kube::ApplyParams ap;
  ap.field_validation = "Warn";
  client.request_json(tfjob::kube::RequestBuilder(tfjob::kube::resource_info<tfjob::TFJob>(), "default").apply("w", j, ap));
  CHECK(heard == std::vector<std::string>{"unknown field \"spec.colour\""});
  ap.field_validation = "Strict";
  j["metadata"]["name"] = "s";
  CHECK_THROWS_WITH(
      client.request_json(tfjob::kube::RequestBuilder(tfjob::kube::resource_info<tfjob::TFJob>(), "default").apply("s", j, ap)),
      Catch::Contains("strict decoding error: unknown field \"spec.colour\""));
#endif
}

TEST_CASE("Warning headers are read as apimachinery's ParseWarningHeaders reads them", "[cli][validate][kube]") {
  using tfjob::kube::parse_warning_headers;
  auto w = parse_warning_headers({R"(299 - "unknown field \"spec.x\"")", R"(299 - "a, b", 299 - "c" "Sat, 01 Jan 2000 00:00:00 GMT")",
                                  R"(199 agent "misc")", "garbage", R"(299 - "unterminated)"});
  REQUIRE(w.size() == 4);
  CHECK(w[0].code == 299);
  CHECK(w[0].agent == "-");
  CHECK(w[0].text == "unknown field \"spec.x\"");
  CHECK(w[1].text == "a, b");
  CHECK(w[2].text == "c");
  CHECK(w[3].code == 199);
  CHECK(w[3].agent == "agent");
  // and the parameter is on every write that takes it, only when asked for
  tfjob::kube::RequestBuilder b(tfjob::kube::resource_info<tfjob::TFJob>(), "ns");
  const json obj = {{"metadata", {{"name", "x"}}}};
  tfjob::kube::ApplyParams ap;
  CHECK(b.apply("x", obj, ap).param("fieldValidation").empty());
  ap.field_validation = tfjob::to_query_value(tfjob::FieldValidation::warn);
  CHECK(b.apply("x", obj, ap).param("fieldValidation") == "Warn");
  tfjob::kube::PostParams pp;
  pp.field_validation = tfjob::to_query_value(tfjob::FieldValidation::ignore);
  CHECK(b.create(obj, pp).param("fieldValidation") == "Ignore");
  CHECK(b.replace("x", obj, pp).param("fieldValidation") == "Ignore");
  tfjob::kube::PatchParams mp;
  mp.field_validation = tfjob::to_query_value(tfjob::FieldValidation::strict);
  CHECK(b.merge_patch("x", obj, mp).param("fieldValidation") == "Strict");
}

TEST_CASE("lint is at least as strict as submit: what submit refuses is an error, in lines and JSON alike",
          "[cli][validate][lint]") {
#ifndef TFJOB_HAVE_PLUGIN_CLI
  TFJOB_SKIP("the plugin is not built (TFJOB_BUILD_PLUGIN=OFF)");
#else
  struct Case {
    std::string name, text, line;
  };
  const std::vector<Case> cases = {
      {"typo.yaml", job_yaml("typo", typo_extra), ": TFJob typo: error [UnknownField]: " + typo_line},
      {"level.yaml", job_yaml("level", "  cleanPodPolicy: All\n"),
       ": TFJob level: error [UnknownField]: unknown field \"spec.cleanPodPolicy\"; it belongs in spec.runPolicy"},
      {"kind.yaml", job_yaml("k", "", "TfJob"),
       ": TfJob k: error [WrongKind]: kind \"TfJob\" is not TFJob; did you mean \"TFJob\"? (kinds are case-sensitive)"},
      {"old.yaml", job_yaml("old", "", "TFJob", "kubeflow.org/v1beta2"),
       ": TFJob old: error [WrongApiVersion]: apiVersion \"kubeflow.org/v1beta2\" is not served by the training operator v1.9"},
      {"wroker.yaml",
       "apiVersion: kubeflow.org/v1\nkind: TFJob\nmetadata: {name: w}\nspec:\n  tfReplicaSpecs:\n    Wroker:\n      template: "
       "{spec: {containers: [{name: tensorflow, image: tf}]}}\n",
       ": TFJob w: error [InvalidTFJob]: spec.tfReplicaSpecs: Unsupported value: \"Wroker\": supported values: \"Chief\""},
      {"empty.yaml", "# nothing here\n", ": error [NoTFJob]: "},
      {"pvc.yaml", "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: data}\n", ": error [NoTFJob]: no TFJob in "},
      {"binary.png", std::string("\x89PNG\r\n\x1a\n\0\0", 10),
       ": error [ManifestUnreadable]: " + dir() + "/binary.png: not YAML or JSON text (a binary file?): byte 0 (line 1, column 1) is 0x89, not UTF-8"},
  };
  for (const auto& c : cases) {
    const std::string f = file(c.name, c.text);
    auto r = call({"lint", "-f", f});
    INFO(c.name << "\n" << r.out << r.err);
    CHECK(r.rc == 1);
    CHECK(has(r.out, f + c.line));
    for (unsigned char ch : r.out) CHECK((ch == '\n' || (ch >= 0x20 && ch != 0x7F)));
    auto j = call({"lint", "-f", f, "-o", "json"});
    CHECK(j.rc == 1);
    auto arr = json::parse(j.out);
    REQUIRE_FALSE(arr.empty());
    CHECK(arr[0]["severity"] == "error");  // the line says error too
    // and submit refuses the same file
    auto s = call({"submit", "-f", f, "--dry-run=client"});
    CHECK(s.rc == 64);
  }
  // under warn, the schema's findings are warnings (exit 0), and --strict fails on them
  const std::string f = file("typo.yaml", job_yaml("typo", typo_extra));
  auto r = call({"lint", "-f", f, "--validate=warn"});
  INFO(r.out << r.err);
  CHECK(r.rc == 0);
  CHECK(r.out == f + ": TFJob typo: warning [UnknownField]: " + typo_line + "\n    fix: rename it to runPolicy\n");
  CHECK(json::parse(call({"lint", "-f", f, "--validate=warn", "-o", "json"}).out)[0]["severity"] == "warning");
  CHECK(call({"lint", "-f", f, "--validate=warn", "--strict"}).rc == 1);
  r = call({"lint", "-f", f, "--validate=ignore"});
  CHECK(r.rc == 0);
  CHECK(r.err == "no findings\n");
  // several documents: every line names its job
  const std::string two = file("two.yaml", job_yaml("a", typo_extra) + "---\n" + job_yaml("b", "  backoffLimit: 2\n"));
  r = call({"lint", "-f", two});
  CHECK(has(r.out, two + ": TFJob a: error [UnknownField]"));
  CHECK(has(r.out, two + ": TFJob b: error [UnknownField]: unknown field \"spec.backoffLimit\"; it belongs in spec.runPolicy"));
#endif
}

TEST_CASE("submit: several jobs name their job in every warning", "[cli][validate]") {
#ifndef TFJOB_HAVE_PLUGIN_CLI
  TFJOB_SKIP("the plugin is not built (TFJOB_BUILD_PLUGIN=OFF)");
#else
  std::string gpu_job = job_yaml("x");
  gpu_job.replace(gpu_job.find("            image: tensorflow/tensorflow:2.15.0\n"), std::string::npos,
                  "            image: tensorflow/tensorflow:2.15.0\n            resources: {limits: {nvidia.com/gpu: 1}}\n");
  std::string a = gpu_job, b = gpu_job;
  a.replace(a.find("name: x"), 7, "name: a");
  b.replace(b.find("name: x"), 7, "name: b");
  const std::string f = file("cpu-images.yaml", a + "---\n" + b);
  auto r = call({"submit", "-f", f, "--dry-run=client", "-o", "name"});
  INFO(r.err);
  CHECK(r.rc == 0);
  CHECK(has(r.err, "warning: TFJob a: Worker asks for GPUs but runs"));
  CHECK(has(r.err, "warning: TFJob b: Worker asks for GPUs but runs"));
  r = call({"submit", "-f", f, "--dry-run=client", "-o", "name", "--validate=warn"});
  CHECK(count(r.err, "warning: TFJob ") == 2);
#endif
}

TEST_CASE("tf-config NAME -f FILE picks one job as explain NAME -f does", "[cli][validate]") {
#ifndef TFJOB_HAVE_PLUGIN_CLI
  TFJOB_SKIP("the plugin is not built (TFJOB_BUILD_PLUGIN=OFF)");
#else
  std::string two_workers = job_yaml("b");
  two_workers.replace(two_workers.find("replicas: 1"), 11, "replicas: 2");
  const std::string f = file("pair.yaml", job_yaml("a") + "---\n" + two_workers);
  auto r = call({"tf-config", "b", "-f", f, "-o", "json"});
  INFO(r.err);
  REQUIRE(r.rc == 0);
  auto j = json::parse(r.out);
  CHECK(j.size() == 2);
  CHECK(j.contains("worker-1"));
  r = call({"tf-config", "a", "-f", f});
  CHECK(r.rc == 0);
  CHECK(has(r.out, "worker-0"));
  r = call({"tf-config", "-f", f});
  CHECK(r.rc == 64);
  CHECK(has(r.err, "the input holds 2 (a, b): name one, e.g. kubectl tfjob tf-config a -f FILE"));
  r = call({"tf-config", "c", "-f", f});
  CHECK(r.rc == 1);
  CHECK(has(r.err, "holds no TFJob named \"c\" (it holds a, b)"));
#endif
}

TEST_CASE("explain -f and tensorboard -f judge the TFJob they read, and explain says where a job without a namespace goes",
          "[cli][validate]") {
#ifndef TFJOB_HAVE_PLUGIN_CLI
  TFJOB_SKIP("the plugin is not built (TFJOB_BUILD_PLUGIN=OFF)");
#else
  const std::string f = file("typo.yaml", job_yaml("typo", typo_extra));
  auto r = call({"explain", "-f", f});
  INFO(r.out << r.err);
  CHECK(r.rc == 64);  // an input that cannot be used, as submit's
  CHECK(has(r.err, f + ": TFJob typo: " + typo_line));
  r = call({"explain", "-f", f, "--validate=warn"});
  CHECK(r.rc == 0);
  CHECK(r.err == "warning: " + f + ": TFJob typo: " + typo_line + "\n");
  CHECK(r.out.rfind("TFJob typo (no namespace in the manifest: it goes to the namespace it is submitted to", 0) == 0);
  CHECK_FALSE(has(r.out, "TFJob /typo"));
  r = call({"explain", "-f", f, "--validate=ignore"});
  CHECK(r.rc == 0);
  CHECK(r.err.empty());

  std::string tb = job_yaml("tb", typo_extra);
  tb.replace(tb.find("            image: tensorflow/tensorflow:2.15.0\n"), std::string::npos,
             "            image: tensorflow/tensorflow:2.15.0\n            volumeMounts: [{name: logs, mountPath: /logs}]\n"
             "          volumes: [{name: logs, persistentVolumeClaim: {claimName: logs}}]\n");
  const std::string t = file("tb.yaml", tb);
  r = call({"tensorboard", "-f", t, "--dry-run=client", "--logdir", "/logs"});
  INFO(r.out << r.err);
  CHECK(r.rc == 64);
  CHECK(has(r.err, t + ": TFJob tb: " + typo_line));
  r = call({"tensorboard", "-f", t, "--dry-run=client", "--logdir", "/logs", "--validate=warn"});
  INFO(r.out << r.err);
  CHECK(r.rc == 0);
  CHECK(has(r.err, "warning: " + t + ": TFJob tb: " + typo_line));
  CHECK(has(r.out, "kind: Deployment"));
#endif
}

TEST_CASE("explain -f and tensorboard -f read a state dump's List an item at a time", "[cli][validate][list]") {
#ifndef TFJOB_HAVE_PLUGIN_CLI
  TFJOB_SKIP("the plugin is not built (TFJOB_BUILD_PLUGIN=OFF)");
#else
  // kubectl get tfjobs,pods,events -o yaml: one List, items before `kind: List`, two jobs in it
  std::string tb = job_yaml("tb");
  tb.replace(tb.find("            image: tensorflow/tensorflow:2.15.0\n"), std::string::npos,
             "            image: tensorflow/tensorflow:2.15.0\n            volumeMounts: [{name: logs, mountPath: /logs}]\n"
             "          volumes: [{name: logs, persistentVolumeClaim: {claimName: logs}}]\n");
  auto pod = [](const std::string& job, const std::string& name, const std::string& phase) {
    return json{{"apiVersion", "v1"}, {"kind", "Pod"},
                {"metadata", {{"name", name}, {"labels", {{"training.kubeflow.org/job-name", job}, {"training.kubeflow.org/replica-type", "worker"},
                                                          {"training.kubeflow.org/replica-index", "0"}}}}},
                {"spec", {{"containers", {{{"name", "tensorflow"}, {"image", "tensorflow/tensorflow:2.15.0"}}}}}},
                {"status", {{"phase", phase}}}};
  };
  auto event = [](const std::string& kind, const std::string& name, const std::string& reason) {
    return json{{"apiVersion", "v1"}, {"kind", "Event"}, {"metadata", {{"name", name + "." + reason}}},
                {"involvedObject", {{"kind", kind}, {"name", name}}}, {"reason", reason}, {"message", reason + " " + name},
                {"type", "Warning"}, {"lastTimestamp", "2024-05-01T11:59:00Z"}};
  };
  std::vector<json> items = {tfjob::parse_objects(job_yaml("other")).front(), pod("other", "other-worker-0", "Pending"),
                             event("Pod", "other-worker-0", "FailedScheduling"), pod("tb", "tb-worker-0", "Pending"),
                             event("Pod", "tb-worker-0", "FailedScheduling"), tfjob::parse_objects(tb).front()};
  const json list = {{"apiVersion", "v1"}, {"items", items}, {"kind", "List"}, {"metadata", {{"resourceVersion", ""}}}};
  const std::string yaml = file("state.yaml", tfjob::to_yaml(list));
  auto r = call({"explain", "tb", "-f", yaml});
  INFO(r.out << r.err);
  CHECK(r.rc == 0);
  CHECK(r.out.rfind("TFJob tb", 0) == 0);
  CHECK(has(r.out, "tb-worker-0"));
  CHECK_FALSE(has(r.out, "other-worker-0"));
  // the same objects as a JSON List (-o json) and as documents of their own explain alike
  const auto yaml_out = r.out;
  r = call({"explain", "tb", "-f", file("state.json", list.dump(2))});
  CHECK(r.rc == 0);
  CHECK(r.out == yaml_out);
  r = call({"explain", "tb", "-f", file("state-docs.yaml", tfjob::to_yaml_documents(items))});
  CHECK(r.rc == 0);
  CHECK(r.out == yaml_out);
  r = call({"explain", "-f", yaml});
  CHECK(r.rc == 1);
  CHECK(has(r.err, "several TFJobs are saved here (other, tb): name the one to explain"));
  r = call({"tensorboard", "tb", "-f", yaml, "--dry-run=client", "--logdir", "/logs"});
  INFO(r.out << r.err);
  CHECK(r.rc == 0);
  CHECK(has(r.out, "name: tb-tensorboard"));
  CHECK(has(r.err, "tfjob tb (Worker) writes its logs to /logs: claim logs"));

  // an item over the bound on one object is refused by its place, as a document would be
  items.insert(items.begin() + 2, json{{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", "huge"}}},
                                       {"data", {{"blob", std::string(tfjob::limits::max_document_bytes + 4096, 'x')}}}});
  const std::string big = file("big.yaml", tfjob::to_yaml({{"apiVersion", "v1"}, {"items", items}, {"kind", "List"}}));
  r = call({"explain", "tb", "-f", big});
  CHECK(r.rc == 64);
  CHECK(has(r.err, big + ": document 1 (line 1), item 3 (line "));
  CHECK(has(r.err, "): more than the 3 MiB one object may have (kube-apiserver's bound on a request body); split it or make it smaller"));
#endif
}
