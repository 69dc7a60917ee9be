// The plugin's commands run in-process, as a test calls them: `run_cli` (plugin/cli.hpp)
// with string streams, no fork, against the fake API server with its operator and kubelet.
// Asserts what each command writes to stdout and stderr and its exit code; and that a
// command whose flags are invalid says so before it sends a single request.
#include <catch2/catch.hpp>

#include "support/fake_apiserver.hpp"
#include "support/fake_cluster.hpp"
#include "support/paths.hpp"
#include "support/skip.hpp"

#if __has_include("cli.hpp")
#include "cli.hpp"  // plugin/cli.hpp: linked from the plugin's object library (tests/cmake/plugin.cmake)
#include "common/error_words.hpp"  // word_fixes
#include "common/local_flags.hpp"  // local_status_table
#include <CLI/CLI.hpp>          // with_cli: the option table the words are checked against
#define TFJOB_HAVE_PLUGIN_CLI 1
#endif

#include <tfjob/api/lint.hpp>
#include <tfjob/api/manifest.hpp>
#include <tfjob/serving/from_job.hpp>
#include <tfjob/serving/image.hpp>
#include <tfjob/serving/model_config.hpp>
#include <tfjob/serving/status.hpp>
#include <tfjob/serving/tensorboard.hpp>
#include <tfjob/version.hpp>
#include <tfjob/workflow/preflight.hpp>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
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
    return call_as_is(args);
  }
  /// `kubectl tfjob <args>` as given (__complete: every word after it is a word typed).
  static Ran call_as_is(const std::vector<std::string>& args) {
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

std::string sample(const std::string& path) { return tfjob::test::source_dir() + "/" + path; }

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
  // one exit code for every mistake on the command line (docs/cli.md): 64, nothing sent
  const std::vector<Case> cases = {
      {{"get", "-o", "bogus"}, 64, "error: --output: \"bogus\" is not one of them; give wide, json, yaml, name"},
      {{"get", "x", "-A"}, 64, "a job name cannot be combined with --all-namespaces"},
      {{"get", "x", "-l", "team=a"}, 64, "error: --selector: name cannot be provided when a selector is specified"},  // kubectl's words
      {{"get", "x", "--field-selector", "metadata.name=x"}, 64, "error: --field-selector: name cannot be provided when a selector"},
      {{"get", "--output-watch-events"}, 64, "error: --output-watch-events: has no effect without --watch or --watch-only; add --watch, or leave it out"},
      // a template that does not parse: kubectl's words after the flag, and what to give
      {{"get", "-o", "jsonpath={.x"}, 64, "error: --output: error parsing jsonpath {.x, unclosed action; give jsonpath=TEMPLATE"},
      {{"get", "-o", "custom-columns=N:.x["}, 64, "error: --output: error parsing jsonpath {.x[}, invalid array index at \"\"; give custom-columns="},
      {{"get", "--sort-by", ".x["}, 64, "error: --sort-by: error parsing jsonpath {.x[}, invalid array index at \"\"; give a JSONPath"},
      {{"delete", "x", "-l", "a=b"}, 64, "error: --selector: cannot be combined with TFJob names; give one of them"},
      {{"describe"}, 64, "error: NAME: nothing to describe; give TFJob names, -l SELECTOR or -A"},
      {{"delete"}, 64, "give TFJob names, -f FILE, -l SELECTOR or --all"},
      {{"delete", "x", "--all"}, 64, "error: --all: cannot be combined with TFJob names; give one of them"},
      {{"delete", "x", "--timeout", "soon"}, 64, "error: --timeout: \"soon\" is not a duration"},
      {{"delete", "x", "--now", "--grace-period", "3"}, 64, "error: --now: cannot be combined with --grace-period; give one of them"},
      {{"wait", "x", "--for=condition=Bogus"}, 64, "unknown condition \"Bogus\""},
      {{"wait", "x", "--timeout", "ten"}, 64, "error: --timeout: \"ten\" is not a duration"},
      {{"logs", "x", "--since", "5"}, 64, "error: --since: \"5\" has no unit"},
      {{"logs", "x", "-f", "--previous"}, 64, "error: --previous: cannot be combined with --follow; give one of them"},
      {{"logs", "x", "--index", "a"}, 64, "\"a\" is not an index"},
      {{"logs", "x", "--replica", "Boss"}, 64, "unknown replica type \"Boss\""},
      {{"logs", "x", "--include", "("}, 64, "invalid regular expression \"(\""},
      {{"explain", "x", "-o", "wide"}, 64, "error: --output: \"wide\" is not one of them; give json or yaml"},
      {{"explain", "x", "--tail", "-1"}, 64, "error: --tail: -1 is less than 0"},
      {{"models", "x", "--version", "1", "--label", "stable"}, 64, "error: --version: cannot be combined with --label; give one of them"},
      {{"models", "x", "--version", "latest"}, 64, "error: --version: \"latest\" is not a whole number"},
      {{"models", "x", "-o", "wide"}, 64, "give json or yaml"},
      {{"predict", "x"}, 64, "give --image FILE (repeatable) or --json FILE, not both"},
      {{"predict", "x", "--image", sample("README.md"), "--json", sample("README.md")}, 64,
       "give --image FILE (repeatable) or --json FILE, not both"},
      {{"predict", "x", "--json", sample("README.md"), "--top", "0"}, 64, "error: --top: 0 is less than 1"},
      {{"predict", "x", "--json", sample("README.md")}, 64, "is not JSON; give TF Serving's REST request body"},
      {{"predict", "x", "--image", sample("README.md")}, 64, "is not a JPEG or PNG file; give a PNG or JPEG image"},
      {{"tensorboard"}, 64, "give the TFJob's name (or -f FILE)"},
      {{"tensorboard", "x", "--port", "70000"}, 64, "error: --port: 70000 is more than 65535"},
      {{"tensorboard", "x", "--timeout", "soon"}, 64, "--timeout"},
      {{"tf-config", "-f", sample("samples/mnist/tfjob.yaml"), "-o", "yaml"}, 64, "give json or wide"},
      {{"completion", "tcsh"}, 64, "error: SHELL: \"tcsh\" is not one of them; give bash, zsh or fish"},
      {{"exec", "nope"}, 64, "give the command after --, e.g. -- nvidia-smi"},
      {{"port-forward", "nope"}, 64, "give at least one port: [LOCAL:]REMOTE"},
      {{"serve"}, 64, "give the server's NAME (or use `serve list` / `serve delete NAME`)"},
      {{"serve", "x", "--model", "resnet", "-o", "wide"}, 64, "give yaml, json or name"},
      {{"serve", "x", "--model", "resnet", "--timeout", "soon"}, 64, "--timeout"},
      {{"serve", "x", "--model", "bogus"}, 64, "\"bogus\" is not a built-in model"},
      {{"serve", "x", "--model", "resnet", "--pvc", "c"}, 64, "give exactly one model source"},
      {{"serve", "x", "--model", "resnet", "--selector", "pool"}, 64, "error: --selector: \"pool\" has no \"=\"; give KEY=VALUE"},
      {{"serve", "x", "--model", "resnet", "--batching", "max_batch_size=32,batch_timeout=5"}, 64, "unknown key \"batch_timeout\""},
      {{"serve", "x", "--model", "resnet", "--autoscale", "1:4:70%"}, 64, "give them a CPU request too (--cpu 2)"},
      {{"serve", "X", "--model", "resnet"}, 64, "serve name \"X\" must be a DNS-1035 label"},
      {{"serve", "x", "--model", "a=pvc:c", "--model-config-poll", "-1"}, 64, "error: --model-config-poll: -1 is less than 0"},
      {{"serve", "x", "--model", "a=pvc:c", "--version-label", "b:stable=1"}, 64, "no --model b=SOURCE was given"},
      // --from-job: the flags are checked before the job is read
      {{"serve", "x", "--from-job", "train", "--model", "resnet"}, 64, "the job's export is the model; leave out --model"},
      {{"serve", "x", "--from-job", "train", "--selector", "pool"}, 64, "\"pool\" has no \"=\""},
      {{"serve", "x", "--from-job", "train", "--version-label", "b:stable=1"}, 64, "no --model b=SOURCE was given"},
      {{"serve", "x", "--from-job", "train", "--kserve"}, 64, "an InferenceService reads one model from a claim"},
      {{"serve", "x", "--model", "resnet", "--kserve"}, 64, "give --pvc CLAIM[:PATH]"},
      {{"serve", "x", "--pvc", "c", "--kserve", "--monitoring"}, 64, "which KServe's TensorFlow runtime owns"},
      {{"serve", "x", "--pvc", "c", "--kserve", "--model-name", "y"}, 64, "KServe names the model after the InferenceService"},
      {{"serve", "x", "--pvc", "c", "--kserve", "--wait-version", "2"}, 64, "not available with --kserve"},
      {{"serve", "status"}, 64, "give the NAME of the model server"},
      {{"serve", "status", "x", "-o", "wide"}, 64, "give json or yaml"},
      {{"serve", "list", "-o", "bogus"}, 64, "give wide, json, yaml or name"},
      {{"serve", "delete"}, 64, "give the NAME of the model server to delete"},
      {{"serve", "label", "x", "m", "stable"}, 64, "give LABEL=VERSION, e.g. stable=1"},
      {{"serve", "label", "x", "m", "m:stable=1"}, 64, "give LABEL=VERSION; the model is the argument before it"},
      {{"serve", "label", "x", "m", "stable=1", "--timeout", "soon"}, 64, "--timeout"},
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

TEST_CASE("in-process: serve, serve list, status and delete write to the streams given", "[cli][inprocess][serving]") {
#ifndef TFJOB_HAVE_PLUGIN_CLI
  TFJOB_SKIP("the plugin is not built (TFJOB_BUILD_PLUGIN=OFF)");
#else
  Cluster c;  // no GPU node, no claim
  auto r = Cluster::call_as_is({"serve", "resnet", "--model", "resnet", "--dry-run=client", "-o", "name"});
  INFO(r.out << r.err);
  CHECK(r.rc == 0);
  CHECK(r.out == "deployment.apps/resnet\nservice/resnet\n");
  CHECK(r.err.empty());

  r = c.call({"serve", "list"});
  CHECK(r.rc == 0);
  CHECK(r.out.empty());
  CHECK(r.err == "No model servers found in default namespace.\n");

  // the claim checks of one model and of a model config, the GPU check: refused, nothing applied
  r = c.call({"serve", "mnist", "--pvc", "nosuch:export", "--gpus", "0"});
  CHECK(r.rc == 1);
  CHECK(r.out.empty());
  CHECK(r.err == "error: persistentvolumeclaim \"nosuch\" not found in namespace \"default\": --pvc names the claim that holds "
                 "export/mnist/<version>/saved_model.pb (for the MNIST sample: --pvc tfjob-mnist:export)\n");
  r = c.call({"serve", "zoo", "--model", "mnist=pvc:nosuch:export/mnist", "--gpus", "0"});
  CHECK(r.rc == 1);
  CHECK(r.err == "error: persistentvolumeclaim \"nosuch\" not found in namespace \"default\": --model mnist=pvc:CLAIM[:PATH] "
                 "names the claim whose PATH holds <version>/saved_model.pb\n");
  r = c.call({"serve", "big", "--model", "resnet", "--gpus", "2"});
  INFO(r.err);
  CHECK(r.rc == 1);
  CHECK(r.out.empty());
  CHECK(has(r.err, "error: refusing to serve \"big\": "));
  CHECK_FALSE(c.server->get_object("deployments.apps", "default", "big"));

  r = c.call({"serve", "delete", "nosuch"});
  CHECK(r.rc == 1);
  CHECK(r.out.empty());
  CHECK(r.err == "Error from server (NotFound): model server \"nosuch\" not found in namespace \"default\" (no deployment or "
                 "service of that name); `kubectl tfjob serve list` shows what is served\n");
  r = c.call({"serve", "status", "nosuch"});
  CHECK(r.rc == 1);
  CHECK(r.out.empty());
  CHECK(has(r.err, "\"nosuch\""));
#endif
}

TEST_CASE("in-process: version, tf-config, completion and __complete write to the streams given", "[cli][inprocess]") {
#ifndef TFJOB_HAVE_PLUGIN_CLI
  TFJOB_SKIP("the plugin is not built (TFJOB_BUILD_PLUGIN=OFF)");
#else
  Cluster c;
  c.server->put_object(make_job("mnist"));
  const std::string client_line = std::string("kubectl-tfjob v") + tfjob::version + " (Kubeflow training operator " +
                                  tfjob::operator_version + " rules, kubeflow.org/v1 TFJob)\n";

  auto r = c.call({"version", "--client"});
  CHECK(r.rc == 0);
  CHECK(r.out == client_line);
  CHECK(r.err.empty());
  c.server->clear_requests();
  r = c.call({"version", "--client", "-o", "json"});
  CHECK(r.rc == 0);
  CHECK(json::parse(r.out) == json{{"clientVersion", {{"gitVersion", std::string("v") + tfjob::version},
                                                      {"trainingOperator", tfjob::operator_version}}}});
  CHECK(c.server->requests().empty());  // --client asks no server

  r = c.call({"version"});
  INFO(r.out << r.err);
  CHECK(r.rc == 0);
  CHECK(r.out.rfind(client_line + "Server Version: ", 0) == 0);
  CHECK(has(r.out, "\nTFJobs (kubeflow.org/v1): served\n"));
  CHECK(r.err.empty());
  // no cluster: the client's line first, then the error, exit 1 (as kubectl version)
  r = Cluster::call_as_is({"version", "--kubeconfig", tfjob::test::temp_dir("cli-inprocess-none") + "/missing"});
  CHECK(r.rc == 1);
  CHECK(r.out == client_line);
  CHECK(r.err.rfind("error: ", 0) == 0);

  // tf-config: pure, from a manifest; -n does not override the file's namespace (full.yaml's
  // one unknown field is the schema's to refuse: cli_validate_test)
  r = c.call({"tf-config", "-f", sample("tests/data/api/full.yaml"), "-o", "json", "--validate=ignore"});
  INFO(r.err);
  CHECK(r.rc == 0);
  CHECK(r.err.empty());
  auto m = json::parse(r.out);
  CHECK(m["chief-0"].get<std::string>().find("\"dist-mnist-worker-1.team-a.svc:3333\"") != std::string::npos);
  CHECK(m["chief-0"].get<std::string>().find("\"task\":{\"type\":\"chief\",\"index\":0}") != std::string::npos);
  r = c.call({"tf-config", "-f", sample("tests/data/api/multi.yaml")});
  CHECK(r.rc == 64);  // an input that needs a NAME to be used
  CHECK(r.out.empty());
  CHECK(has(r.err, "error: tf-config shows one TFJob at a time; the input holds "));

  r = c.call({"completion", "bash"});
  CHECK(r.rc == 0);
  CHECK(r.out.rfind("# bash completion for kubectl-tfjob (kubectl tfjob)\n", 0) == 0);
  CHECK(has(r.out, "\ncomplete -o default -F _kubectl_tfjob_complete kubectl-tfjob\n"));
  CHECK(r.err.empty());
  r = c.call({"completion", "fish"});
  CHECK(r.rc == 0);
  CHECK(has(r.out, "complete -c kubectl-tfjob -f -a '(__kubectl_tfjob_complete)'\n"));

  // __complete: every word after it is one typed, so the kubeconfig comes first
  r = Cluster::call_as_is({"__complete", "wait", "mnist", "--for="});
  CHECK(r.rc == 0);
  CHECK(has(r.out, "--for=condition=Succeeded\n"));
  CHECK(r.out.size() >= 3);
  CHECK(r.out.substr(r.out.size() - 3) == ":4\n");
  r = Cluster::call_as_is({"__complete", "--kubeconfig", c.kubeconfig, "describe", "mn"});
  CHECK(r.rc == 0);
  CHECK(r.out == "mnist\tTFJob\n:4\n");
  r = Cluster::call_as_is({"__complete", "completion", ""});
  CHECK(r.out == "bash\nzsh\nfish\n:4\n");
#endif
}

TEST_CASE("in-process: models, predict, tensorboard, exec, attach and port-forward say what is not there", "[cli][inprocess]") {
#ifndef TFJOB_HAVE_PLUGIN_CLI
  TFJOB_SKIP("the plugin is not built (TFJOB_BUILD_PLUGIN=OFF)");
#else
  Cluster c;
  Ran r;
  // a NAME that no serve created: the fake API server has no such Service
  for (std::vector<std::string> cmd : {std::vector<std::string>{"models", "nosuch"},
                                       {"predict", "nosuch", "--json", sample("samples/mnist/digit-1.json")}}) {
    r = c.call(cmd);
    INFO(cmd.front() << ": " << r.out << r.err);
    CHECK(r.rc == 1);
    CHECK(r.out.empty());
    CHECK(has(r.err, "service \"nosuch\" not found in namespace \"default\": start the model server with `kubectl tfjob serve nosuch --model resnet`"));
    CHECK_FALSE(has(r.err, "serving::serve"));  // the SDK's advice is worded with the plugin's command
  }
  // the kubeconfig's errors name the flag that was given (the SDK names its setting)
  r = Cluster::call_as_is({"get", "--kubeconfig", c.kubeconfig + ".nope"});
  CHECK(r.rc == 1);
  CHECK(r.err == "error: the kubeconfig file \"" + c.kubeconfig + ".nope\" does not exist (given with --kubeconfig)\n");
  r = c.call({"get", "--user", "nobody"});
  CHECK(r.rc == 1);
  CHECK(has(r.err, "user \"nobody\" does not exist in "));
  CHECK(has(r.err, " (given with --user)\n"));
  CHECK_FALSE(has(r.err, "ConfigOverrides"));
  // an image that is not one is refused before anything is asked (a usage error, 64)
  c.server->clear_requests();
  r = c.call({"predict", "nosuch", "--image", sample("samples/mnist/digit-1.json")});
  CHECK(r.rc == 64);
  CHECK(r.out.empty());
  CHECK(has(r.err, "error: --image: \"" + sample("samples/mnist/digit-1.json") + "\" is not a JPEG or PNG file; give a PNG or JPEG image"));
  CHECK(c.server->requests().empty());

  // tensorboard: a job that is not there; the objects of one read from a file (no cluster)
  r = c.call({"tensorboard", "nosuch"});
  INFO(r.out << r.err);
  CHECK(r.rc == 1);
  CHECK(r.out.empty());
  CHECK(has(r.err, "\"nosuch\" not found"));
  CHECK_FALSE(c.server->get_object("deployments.apps", "default", "nosuch-tensorboard"));
  r = Cluster::call_as_is({"tensorboard", "-f", sample("samples/mnist/tfjob.yaml"), "--dry-run=client", "-o", "name"});
  INFO(r.out << r.err);
  CHECK(r.rc == 0);
  CHECK(r.out == "deployment.apps/mnist-tensorboard\nservice/mnist-tensorboard\n");
  CHECK(r.err == "tfjob mnist (Chief) writes its logs to /train/logs: claim tfjob-mnist, directory logs\n");
  // without -f the job is the cluster's, read for its log directory in a client dry run too (it
  // was left unread: "tfjob \"\" names no log directory"); nothing is created
  {
    std::ifstream f(sample("samples/mnist/tfjob.yaml"));
    std::stringstream text;
    text << f.rdbuf();
    json mnist = tfjob::parse_manifests(text.str(), "tfjob.yaml").at(0);
    mnist["metadata"]["namespace"] = "default";
    c.server->put_object(mnist);
    r = c.call({"tensorboard", "mnist", "--dry-run=client", "-o", "name"});
    INFO(r.out << r.err);
    CHECK(r.rc == 0);
    CHECK(r.out == "deployment.apps/mnist-tensorboard\nservice/mnist-tensorboard\n");
    CHECK(r.err == "tfjob mnist (Chief) writes its logs to /train/logs: claim tfjob-mnist, directory logs\n");
    CHECK_FALSE(c.server->get_object("deployments.apps", "default", "mnist-tensorboard"));
    r = c.call({"tensorboard", "nosuch", "--dry-run=client"});
    CHECK(r.rc == 1);
    CHECK(has(r.err, "\"nosuch\" not found"));
  }

  // exec, attach, port-forward: the job is not there, so nothing is handed to kubectl
  // (exec's --kubeconfig before its --: every word after -- is the command's); top job and
  // archive say it in the same words (they said "no pods" with exit 0, and "TFJob ..."), and
  // archive makes no folder for it
  const std::string no_archive = tfjob::test::temp_dir("archive-nope") + "/a";
  for (std::vector<std::string> cmd : {std::vector<std::string>{"exec", "nope", "--kubeconfig", c.kubeconfig, "--", "ls"},
                                       {"attach", "nope", "--kubeconfig", c.kubeconfig},
                                       {"port-forward", "nope", "6006", "--kubeconfig", c.kubeconfig},
                                       {"top", "job", "nope", "--no-metrics", "--kubeconfig", c.kubeconfig},
                                       {"archive", "nope", "-o", no_archive, "--kubeconfig", c.kubeconfig}}) {
    r = Cluster::call_as_is(cmd);
    INFO(cmd.front() << ": " << r.out << r.err);
    CHECK(r.rc == 1);
    CHECK(r.out.empty());
    CHECK(r.err == "Error from server (NotFound): tfjobs.kubeflow.org \"nope\" not found in namespace \"default\"\n");
  }
  CHECK_FALSE(std::filesystem::exists(no_archive));
#endif
}

TEST_CASE("in-process: the table after submit --local counts succeeded replicas per type, as get shows a job", "[cli][inprocess][local]") {
#ifndef TFJOB_HAVE_PLUGIN_CLI
  TFJOB_SKIP("the plugin is not built (TFJOB_BUILD_PLUGIN=OFF)");
#else
  tfjob::local::RunResult r;
  r.name = "hello";
  r.state = "Failed";
  r.message = "TFJob default/hello has failed because 1 Worker replica(s) failed.";
  r.seconds = 330.4;
  r.restarts = 2;
  r.replicas = {{"Chief", 0, "chief-0", 0, "Succeeded", 0, 0, "", {}},
                {"Worker", 0, "worker-0", 0, "Succeeded", 0, 0, "", {}},
                {"Worker", 1, "worker-1", 0, "Failed", 2, 1, "", {}}};
  CHECK(tfjob::cli::local_status_table(r) ==
        "NAME    STATE    AGE     SUCCEEDED              RESTARTS   MESSAGE\n"
        "hello   Failed   5m30s   chief:1/1,worker:1/2   2          TFJob default/hello has failed because 1 Worker replica(s) failed.\n");
#endif
}

TEST_CASE("in-process: the SDK's fixes name its settings, the plugin's name its flags", "[cli][inprocess]") {
#ifndef TFJOB_HAVE_PLUGIN_CLI
  TFJOB_SKIP("the plugin is not built (TFJOB_BUILD_PLUGIN=OFF)");
#else
  auto replica = [](const std::string& image, int gpus) {
    json c = {{"name", "tensorflow"}, {"image", image}};
    if (gpus > 0) c["resources"] = {{"limits", {{"nvidia.com/gpu", gpus}}}};
    return json{{"replicas", 1}, {"template", {{"spec", {{"containers", json::array({c})}}}}}};
  };
  json job = {{"apiVersion", "kubeflow.org/v1"},
              {"kind", "TFJob"},
              {"metadata", {{"name", "m"}}},
              {"spec", {{"runPolicy", {{"cleanPodPolicy", "All"}}},
                        {"tfReplicaSpecs", {{"Master", replica("tensorflow/tensorflow:2.15.0-gpu", 4)},
                                            {"Worker", replica("tensorflow/tensorflow:2.15.0-gpu", 4)}}}}}};
  std::vector<tfjob::Finding> fs = tfjob::lint::lint(job);
  for (auto& f : tfjob::workflow::gpu_preflight(job, {}, std::vector<json>{}).findings) fs.push_back(f);  // no GPU node at all
  json node = {{"metadata", {{"name", "g"}}},
               {"status", {{"capacity", {{"nvidia.com/gpu", "1"}}}, {"allocatable", {{"nvidia.com/gpu", "1"}}}}}};
  for (auto& f : tfjob::workflow::gpu_preflight(job, {node}, std::vector<json>{}).findings) fs.push_back(f);  // 4 asked, 1 there
  std::map<std::string, std::string> sdk;
  for (const auto& f : fs) sdk[f.code] = f.fix.str();
  REQUIRE(sdk.count("MasterWithTF2"));
  REQUIRE(sdk.count("LogsDeletedAfterFinish"));
  REQUIRE(sdk.count("NoGpuNodes"));
  REQUIRE(sdk.count("RequestFitsNoNode"));
  CHECK(sdk["NoGpuNodes"] == "diagnose the GPU nodes (gpu::run_gpu_check), or ask for no GPU (TFJobBuilder::gpus 0) to train on CPUs");
  for (const auto& f : fs)  // the fix names its setting by key, not by text
    if (f.code == "MasterWithTF2") CHECK(f.fix.settings() == std::vector<tfjob::setting>{tfjob::setting::builder_chief});
  tfjob::cli::word_fixes(fs);
  std::map<std::string, std::string> plugin;
  for (const auto& f : fs) {
    INFO(f.code << ": " << f.fix);
    CHECK(f.fix.str().find("::") == std::string::npos);  // every setting the SDK names has a flag
    plugin[f.code] = f.fix.str();
  }
  CHECK(plugin["MasterWithTF2"] == "rename the Master replica to Chief (submit --chief)");
  CHECK(plugin["LogsDeletedAfterFinish"] ==
        "save the logs while it runs (submit --follow --save DIR, or kubectl tfjob wait JOB --save DIR), or use cleanPodPolicy None or Running");
  CHECK(plugin["NoGpuNodes"] == "diagnose the GPU nodes (kubectl tfjob gpu-check), or ask for no GPU (--gpus 0) to train on CPUs");
  CHECK(plugin["RequestFitsNoNode"] == "ask for fewer GPUs per pod (--gpus) and more workers (--workers) instead");
  CHECK(tfjob::cli::worded("fix the node selector (" + tfjob::setting::serve_node_selector + ")") ==
        "fix the node selector (--selector)");
  // text that only looks like a setting is not one: nothing reads the SDK's words
  CHECK(tfjob::cli::worded(tfjob::Text("the SDK's ServeSpec::gpus")) == "the SDK's ServeSpec::gpus");
#endif
}

TEST_CASE("in-process: every setting the SDK can name has exactly one entry in the plugin's words", "[cli][inprocess]") {
#ifndef TFJOB_HAVE_PLUGIN_CLI
  TFJOB_SKIP("the plugin is not built (TFJOB_BUILD_PLUGIN=OFF)");
#else
  // the SDK's advice can only name a key it declares (tfjob::setting), so words for every
  // declared key are words for everything it can say
  std::map<tfjob::setting, int> seen;
  for (const auto& [key, words] : tfjob::cli::setting_flags()) ++seen[key];
  CHECK(seen.size() == tfjob::all_settings().size());  // no key twice, none the SDK lacks
  for (tfjob::setting s : tfjob::all_settings()) {
    INFO(tfjob::to_string(s));
    CHECK(seen.count(s) == 1);
    CHECK(seen[s] == 1);
    const std::string w = tfjob::cli::flag_for(s);
    CHECK_FALSE(w.empty());
    CHECK(w.find("::") == std::string::npos);  // the plugin's words, not the SDK's name
    CHECK(tfjob::cli::worded("(" + s + " X)") == "(" + w + " X)");
  }
  // and the words are the plugin's own: every flag they name is declared by the CLI, every
  // `kubectl tfjob WORD` and every leading command word is one of its commands
  std::set<std::string> flags, commands;
  tfjob::cli::with_cli([&](CLI::App& app) {
    std::function<void(const CLI::App&)> walk = [&](const CLI::App& a) {
      for (const CLI::Option* o : a.get_options()) {
        for (const auto& l : o->get_lnames()) flags.insert("--" + l);
        for (const auto& n : o->get_snames()) flags.insert("-" + n);
      }
      for (const CLI::App* sub : a.get_subcommands([](const CLI::App*) { return true; })) {
        commands.insert(sub->get_name());
        walk(*sub);
      }
    };
    walk(app);
  });
  REQUIRE(flags.count("--gpus"));
  for (const auto& [key, words] : tfjob::cli::setting_flags()) {
    INFO(tfjob::to_string(key) << ": " << words);
    std::istringstream in(words);
    std::vector<std::string> tokens;
    for (std::string t; in >> t;) tokens.push_back(t.back() == ',' ? t.substr(0, t.size() - 1) : t);
    for (std::size_t i = 0; i < tokens.size(); ++i) {
      if (tokens[i].rfind("-", 0) == 0) CHECK(flags.count(tokens[i]) == 1);
      if (tokens[i] == "tfjob" && i + 1 < tokens.size()) CHECK(commands.count(tokens[i + 1]) == 1);
    }
    if (!tokens.empty() && tokens[0].rfind("-", 0) != 0 && tokens[0] != "kubectl") CHECK(commands.count(tokens[0]) == 1);
  }
#endif
}

TEST_CASE("in-process: the SDK's invalid settings name its settings, the plugin's words name its flags", "[cli][inprocess][serving]") {
#ifndef TFJOB_HAVE_PLUGIN_CLI
  TFJOB_SKIP("the plugin is not built (TFJOB_BUILD_PLUGIN=OFF)");
#else
  namespace sv = tfjob::serving;
  sv::ServeSpec spec;
  spec.name = "x";
  spec.source.kind = sv::ModelSource::Kind::resnet;
  spec.source.url = sv::resnet_model_url;
  sv::ServeSpec cpuless = spec, four = spec, sourceless = spec;
  cpuless.ops.autoscale = sv::Autoscale{1, 4, 70};
  four.cpu = "four";
  sourceless.source = {};
  sv::ModelServerConfig twice;
  twice.models = {sv::parse_model_flag("mnist=pvc:c"), sv::parse_model_flag("mnist=pvc:d")};
  sv::Signature ints;
  ints.key = "serving_default";
  ints.inputs = {{"ids", "DT_INT64", std::vector<long long>{-1, 16}, "ids:0"}};
  struct Case {
    std::function<void()> call;
    std::string setting, plugin;  // the SDK's setting (the error's subject), the plugin's whole message
  };
  const std::vector<Case> cases = {
      {[] { sv::parse_batching("max_batch_size=0"); }, "ServeOperations::batching",
       "--batching max_batch_size=0: \"0\" is not an integer >= 1; give one, e.g. max_batch_size=8"},
      {[] { sv::parse_autoscale("10:2:70%"); }, "ServeOperations::autoscale",
       "--autoscale \"10:2:70%\": MAX (2) must be at least MIN (10)"},
      {[&] { sv::validate(cpuless); }, "ServeOperations::autoscale",
       "--autoscale scales on CPU utilisation, a percentage of each pod's CPU request, and the pods have none: give them a CPU "
       "request too (--cpu 2)"},
      {[&] { sv::validate(four); }, "ServeSpec::cpu", "--cpu \"four\" is not a Kubernetes quantity (e.g. 2, 500m, 4Gi)"},
      {[&] { sv::validate(sourceless); }, "ServeSpec::source",
       "no model: give one (--model resnet, --model-url URL of a SavedModel .tar.gz, or --pvc CLAIM[:PATH])"},
      {[] { sv::parse_pvc(":x"); }, "ModelSource::claim", "--pvc \":x\" names no claim; give CLAIM[:PATH], e.g. tfjob-mnist:export"},
      {[] { sv::parse_toleration("k:Sometimes"); }, "ServeSpec::tolerations",
       "--toleration \"k:Sometimes\": the effect \"Sometimes\" is none of NoSchedule, PreferNoSchedule, NoExecute; give "
       "KEY[=VALUE][:EFFECT], e.g. nvidia.com/gpu:NoSchedule or dedicated=gpu:NoExecute"},
      {[] { sv::parse_model_flag("mnist"); }, "ModelServerConfig::models",
       "--model \"mnist\" has no '='; give NAME=SOURCE, e.g. mnist=pvc:tfjob-mnist:export/mnist, resnet=resnet or clf=https://host/model.tar.gz"},
      {[] { sv::parse_version_policy_flag("newest"); }, "ModelEntry::policy",
       "--version-policy \"newest\" is not a version policy; give [MODEL=]latest:N, all or specific:V[,V...] (TF Serving's "
       "model_version_policy), e.g. mnist=latest:2"},
      {[&] { sv::validate(twice); }, "ModelServerConfig::models", "--model mnist is given twice: each model needs its own NAME"},
      {[] { sv::validate(sv::ModelServerConfig{}); }, "ModelServerConfig::models", "no model: give one (--model NAME=SOURCE, repeatable)"},
      {[&] { sv::build_model_config_objects(spec, twice, -1); }, "ModelServerConfig::models",
       "--model mnist is given twice: each model needs its own NAME"},
      {[&] { sv::build_model_config_objects(spec, sv::ModelServerConfig{{sv::parse_model_flag("mnist=pvc:c")}}, -1); },
       "build_model_config_objects::poll_seconds", "--model-config-poll must be 0 (never re-read) or more seconds"},
      {[&] { sv::plan_image_input(ints); }, "serving::plan_image_input",
       "--image: signature \"serving_default\" takes ids DT_INT64 (-1, 16); an image goes to one DT_STRING input (its encoded "
       "bytes) or one DT_FLOAT input of shape [N, H, W, C] or [N, H, W] (decoded and resized): send this model a request body "
       "of your own (--json FILE)"},
  };
  for (const auto& k : cases) {
    INFO(k.plugin);
    try {
      k.call();
      FAIL("no error");
    } catch (const tfjob::error& e) {
      CHECK(e.reason() == tfjob::reasons::invalid_setting);
      CHECK(e.subject() == k.setting);
      REQUIRE(e.setting());  // the key, for an application's own words
      CHECK(tfjob::to_string(*e.setting()) == k.setting);
      CHECK(std::string(e.what()).find("--") == std::string::npos);  // the SDK names no flag
      CHECK(tfjob::cli::error_message(e) == k.plugin);
    }
  }
  // advice that names a setting in parentheses, in errors with no reason, a warning and a hint
  json job = json::parse(R"({"metadata": {"name": "t"}, "spec": {"tfReplicaSpecs": {"Worker": {"template": {"spec":
      {"containers": [{"name": "tensorflow", "image": "x", "args": ["train.py"]}]}}}}}})");
  try {
    sv::find_job_log_dir(job.get<tfjob::TFJob>());
    FAIL("no error");
  } catch (const tfjob::error& e) {
    CHECK_THAT(tfjob::cli::error_message(e), Catch::EndsWith("give it (--logdir DIR, the path inside the job's containers)"));
  }
  try {
    sv::job_export(job.get<tfjob::TFJob>());
    FAIL("no error");
  } catch (const tfjob::error& e) {
    CHECK_THAT(tfjob::cli::error_message(e),
               Catch::Contains("name it (--export-dir DIR, the directory in the trainer's container holding <version>/saved_model.pb)"));
  }
  CHECK_THAT(tfjob::cli::worded(sv::tf_version_warning("2.18.0", "x", "2.16.1", "y")),
             Catch::EndsWith("serve it with TF Serving 2.18.0 or newer (--serving-version 2.18.0)"));
  sv::PodBlocker starting;
  starting.pod = "x-1";
  starting.detail = "init container fetch-model running";
  CHECK_THAT(tfjob::cli::worded(sv::blocker_hints({starting}, "m")), Catch::Contains("a later deadline (--timeout) waits for it"));
#endif
}
