// The plugin's commands run in-process, as a test calls them: `run_cli` (plugin/cli.hpp)
// with string streams, no fork, against the fake API server with its operator and kubelet.
// Asserts what each command writes to stdout and stderr and its exit code; and that a
// command whose flags are invalid says so before it sends a single request.
#include <catch2/catch.hpp>

#include "support/fake_apiserver.hpp"
#include "support/fake_cluster.hpp"
#include "support/skip.hpp"

#if __has_include("cli.hpp")
#include "cli.hpp"  // plugin/cli.hpp: linked from the plugin's object library (tests/cmake/plugin.cmake)
#define TFJOB_HAVE_PLUGIN_CLI 1
#endif

#include <nlohmann/json.hpp>

#include <sstream>
#include <string>
#include <vector>

using nlohmann::json;
using tfjob::test::ContainerScript;

namespace {

struct Ran {
  int rc = -1;
  std::string out, err;
};

struct Cluster : tfjob::test::FakeCluster {
  Cluster() : FakeCluster(tfjob::test::with_controllers({}), "cli-inprocess") {}
#ifdef TFJOB_HAVE_PLUGIN_CLI
  /// `kubectl tfjob <args> --kubeconfig K`, in this process.
  Ran call(std::vector<std::string> args) const {
    args.push_back("--kubeconfig");
    args.push_back(kubeconfig);
    std::ostringstream out, err;
    Ran r;
    r.rc = tfjob::cli::run_cli(args, out, err);
    r.out = out.str();
    r.err = err.str();
    return r;
  }
#endif
};

/// A TFJob with a Chief and one Worker, as `submit` would write it.
json make_job(const std::string& name) {
  json c = {{"name", "tensorflow"}, {"image", "tensorflow/tensorflow:2.15.0"}};
  json spec = {{"replicas", 1}, {"restartPolicy", "Never"}, {"template", {{"spec", {{"containers", json::array({c})}}}}}};
  return {{"apiVersion", "kubeflow.org/v1"},
          {"kind", "TFJob"},
          {"metadata", {{"name", name}, {"namespace", "default"}}},
          {"spec", {{"runPolicy", {{"cleanPodPolicy", "None"}}}, {"tfReplicaSpecs", {{"Chief", spec}, {"Worker", spec}}}}}};
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("in-process: get, wait, logs, describe, delete of one job, with their output and exit codes", "[cli][inprocess]") {
#ifndef TFJOB_HAVE_PLUGIN_CLI
  TFJOB_SKIP("the plugin is not built (TFJOB_BUILD_PLUGIN=OFF)");
#else
  Cluster c;
  ContainerScript sc;
  sc.lines = {"epoch 1 loss 0.50", "epoch 2 loss 0.25", "saved /tmp/model"};
  sc.exit_code = 0;
  c.server->kubelet().script("inproc-chief-0", sc);
  c.server->put_object(make_job("inproc"));

  // wait: the fake operator runs the pods, the kubelet ends them, the job Succeeds
  auto r = c.call({"wait", "inproc", "--for=condition=Succeeded", "--timeout=60s"});
  INFO(r.out << r.err);
  REQUIRE(r.rc == 0);
  CHECK(r.out == "tfjob.kubeflow.org/inproc condition met\n");

  r = c.call({"get"});
  INFO(r.out << r.err);
  REQUIRE(r.rc == 0);
  CHECK(r.out.rfind("NAME     STATE       AGE\n", 0) == 0);
  CHECK(has(r.out, "\ninproc   Succeeded   "));

  r = c.call({"get", "inproc", "-o", "name"});
  CHECK(r.rc == 0);
  CHECK(r.out == "tfjob.kubeflow.org/inproc\n");

  r = c.call({"get", "inproc", "-o", "jsonpath={.metadata.name}"});
  CHECK(r.out == "inproc");

  // logs: the chief's log, byte for byte, on the stream given
  r = c.call({"logs", "inproc"});
  INFO(r.out << r.err);
  CHECK(r.rc == 0);
  CHECK(r.out == "epoch 1 loss 0.50\nepoch 2 loss 0.25\nsaved /tmp/model\n");

  r = c.call({"logs", "inproc", "--replica", "Chief", "--prefix"});
  CHECK(r.rc == 0);
  CHECK(r.out == "[chief-0] epoch 1 loss 0.50\n[chief-0] epoch 2 loss 0.25\n[chief-0] saved /tmp/model\n");

  r = c.call({"logs", "inproc", "-f", "-q"});
  CHECK(r.rc == 0);
  CHECK(r.out == "epoch 1 loss 0.50\nepoch 2 loss 0.25\nsaved /tmp/model\n");

  r = c.call({"describe", "inproc"});
  INFO(r.out << r.err);
  CHECK(r.rc == 0);
  CHECK(has(r.out, "Name:         inproc"));
  CHECK(has(r.out, "State:        Succeeded"));
  CHECK(has(r.out, "inproc-chief-0"));

  // delete, then every command's NotFound is kubectl's line, exit 1
  r = c.call({"delete", "inproc", "--timeout=20s"});
  INFO(r.out << r.err);
  CHECK(r.rc == 0);
  CHECK(r.out == "tfjob.kubeflow.org \"inproc\" deleted\n");
  CHECK(has(r.err, "waiting for tfjob.kubeflow.org/inproc to be gone..."));
  CHECK_FALSE(c.server->get_object("tfjobs", "default", "inproc"));

  const std::string nf = "Error from server (NotFound): tfjobs.kubeflow.org \"inproc\" not found in namespace \"default\"\n";
  for (std::vector<std::string> cmd : {std::vector<std::string>{"get", "inproc"}, {"describe", "inproc"}, {"delete", "inproc"},
                                       {"explain", "inproc"}, {"wait", "inproc", "--timeout=5s"}, {"logs", "inproc"}}) {
    r = c.call(cmd);
    INFO(cmd.front() << ": " << r.out << r.err);
    CHECK(r.rc == 1);
    CHECK(r.out.empty());
    CHECK(has(r.err, nf));
  }
#endif
}

TEST_CASE("in-process: invalid flags are refused before any request, with what is wrong", "[cli][inprocess]") {
#ifndef TFJOB_HAVE_PLUGIN_CLI
  TFJOB_SKIP("the plugin is not built (TFJOB_BUILD_PLUGIN=OFF)");
#else
  Cluster c;
  c.server->put_object(make_job("x"));
  struct Case {
    std::vector<std::string> args;
    int rc;
    std::string says;
  };
  const std::vector<Case> cases = {
      {{"get", "-o", "bogus"}, 64, "unable to match a printer suitable for the output format \"bogus\""},
      {{"get", "x", "-A"}, 64, "a job name cannot be combined with --all-namespaces"},
      {{"describe"}, 64, "name is required"},
      {{"delete"}, 64, "give TFJob names, -l SELECTOR or --all"},
      {{"delete", "x", "--all"}, 64, "names cannot be combined with --all or -l"},
      {{"delete", "x", "--timeout", "soon"}, 64, "--timeout"},
      {{"wait", "x", "--for=condition=Bogus"}, 64, "unknown condition \"Bogus\""},
      {{"wait", "x", "--timeout", "ten"}, 64, "--timeout"},
      {{"logs", "x", "--since", "5"}, 64, "missing unit in duration \"5\""},
      {{"logs", "x", "-f", "--previous"}, 64, "--previous cannot be combined with -f"},
      {{"logs", "x", "--index", "a"}, 64, "\"a\" is not an index"},
      {{"logs", "x", "--replica", "Boss"}, 64, "unknown replica type \"Boss\""},
      {{"logs", "x", "--include", "("}, 64, "invalid regular expression \"(\""},
      {{"explain", "x", "-o", "wide"}, 1, "allowed formats are: json, yaml"},
      {{"explain", "x", "--tail", "-1"}, 64, "must be 0 or more lines"},
  };
  for (const auto& k : cases) {
    c.server->clear_requests();
    auto r = c.call(k.args);
    std::string line;
    for (const auto& a : k.args) line += a + " ";
    INFO(line << "-> " << r.rc << "\n" << r.out << r.err);
    CHECK(r.rc == k.rc);
    CHECK(r.out.empty());
    CHECK_FALSE(r.err.empty());
    if (!k.says.empty()) CHECK(has(r.err, k.says));
    CHECK(c.server->requests().empty());
  }
#endif
}
