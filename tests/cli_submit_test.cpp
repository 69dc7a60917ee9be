// The built plugin, run as a user would: submit --dry-run=client and tf-config, from
// flags, files, stdin and the built-in sample; invalid input exits non-zero with every
// problem on stderr and nothing on stdout.
#include <catch2/catch.hpp>

#include "support/paths.hpp"
#include "support/skip.hpp"

#include <tfjob/tfjob.hpp>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <sstream>
#include <tuple>
#include <vector>

using nlohmann::json;

namespace {

struct Result {
  int rc = -1;
  std::string out, err;
};

/// Runs the plugin with `args`, feeding `input` on stdin; kills it after 30 s.
Result run(const std::vector<std::string>& args, const std::string& input = "",
           const std::vector<std::string>& env = {}) {
  const std::string exe = tfjob::test::plugin_path();
  REQUIRE_FALSE(exe.empty());
  int in[2], out[2], err[2];
  REQUIRE(::pipe(in) == 0);
  REQUIRE(::pipe(out) == 0);
  REQUIRE(::pipe(err) == 0);
  pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::dup2(in[0], 0);
    ::dup2(out[1], 1);
    ::dup2(err[1], 2);
    for (int fd : {in[0], in[1], out[0], out[1], err[0], err[1]}) ::close(fd);
    for (const auto& e : env) ::putenv(const_cast<char*>(e.c_str()));
    std::vector<char*> argv{const_cast<char*>(exe.c_str())};
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(exe.c_str(), argv.data());
    ::_exit(127);
  }
  ::close(in[0]);
  ::close(out[1]);
  ::close(err[1]);
  ::signal(SIGPIPE, SIG_IGN);
  std::size_t written = 0;
  if (input.empty()) ::close(in[1]), in[1] = -1;
  Result r;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  bool out_open = true, err_open = true;
  while (out_open || err_open) {
    std::vector<pollfd> fds;
    if (out_open) fds.push_back({out[0], POLLIN, 0});
    if (err_open) fds.push_back({err[0], POLLIN, 0});
    if (in[1] >= 0) fds.push_back({in[1], POLLOUT, 0});
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(pid, SIGKILL);
      FAIL("the plugin did not finish within 30 s");
    }
    if (::poll(fds.data(), fds.size(), 1000) <= 0) continue;
    for (const auto& p : fds) {
      if (!p.revents) continue;
      if (p.fd == in[1]) {
        ssize_t n = ::write(in[1], input.data() + written, input.size() - written);
        if (n > 0) written += static_cast<std::size_t>(n);
        if (n < 0 || written == input.size()) ::close(in[1]), in[1] = -1;
        continue;
      }
      char buf[65536];
      ssize_t n = ::read(p.fd, buf, sizeof buf);
      if (n <= 0) {
        (p.fd == out[0] ? out_open : err_open) = false;
        continue;
      }
      (p.fd == out[0] ? r.out : r.err).append(buf, static_cast<std::size_t>(n));
    }
  }
  if (in[1] >= 0) ::close(in[1]);
  ::close(out[0]);
  ::close(err[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

std::string data(const std::string& rel) { return tfjob::test::source_dir() + "/tests/data/" + rel; }

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

/// The independent judge: python3-jsonschema checks what the plugin emitted against the
/// official CRD's openAPIV3Schema, strictly (unknown fields rejected).
/// Its prerequisite, checked first in every case that keeps output for it: a skip is
/// decided before the case asserts anything (support/skip.hpp).
void need_schema_judge() {
  if (tfjob::test::python().empty())
    TFJOB_SKIP("CRD schema judge: no python3 with jsonschema and yaml when CMake configured "
               "(fix: apt-get install python3-jsonschema python3-yaml, then reconfigure)");
}
void keep_for_schema_judge(const std::string& name, const std::string& yaml) {
  const std::string py = tfjob::test::python();
  REQUIRE_FALSE(py.empty());  // the case calls need_schema_judge() first
  std::string dir = tfjob::test::binary_dir() + "/tests/emitted/api";
  std::string mk = "mkdir -p '" + dir + "'";
  REQUIRE(std::system(mk.c_str()) == 0);
  const std::string file = dir + "/" + name + ".yaml";
  { std::ofstream(file, std::ios::binary) << yaml; }
  std::string cmd = "'" + py + "' '" + tfjob::test::source_dir() + "/tests/tools/validate_crd.py' --strict --crd '" +
                    tfjob::test::crd_file() + "' '" + file + "' > '" + file + ".judge' 2>&1";
  int rc = std::system(cmd.c_str());
  INFO(name << ": " << slurp(file + ".judge"));
  CHECK(rc == 0);
}

}  // namespace

TEST_CASE("submit mnist --dry-run=client -o yaml renders the built-in sample", "[cli][submit]") {
  need_schema_judge();
  auto r = run({"submit", "mnist", "--dry-run=client", "-o", "yaml"});
  INFO(r.err);
  REQUIRE(r.rc == 0);
  // stderr: only the note on ExitCode's retry rule (the sample's restart policy), no warning
  CHECK(r.err.rfind("note: restartPolicy ExitCode (Chief, Worker) restarts a replica only when it exits with 128 or above", 0) == 0);
  CHECK(r.err.find("warning:") == std::string::npos);
  CHECK(r.out.rfind("apiVersion: kubeflow.org/v1\nkind: TFJob\nmetadata:\n", 0) == 0);
  keep_for_schema_judge("mnist", r.out);
  auto jobs = tfjob::parse_tfjobs(r.out, "stdout");
  REQUIRE(jobs.size() == 1);
  const auto& job = jobs[0];
  CHECK(job.metadata.name == "mnist");
  CHECK(job.metadata.namespace_.empty());  // no -n: left to the context, as kubectl does
  CHECK(job.spec.tf_replica_specs.at("Chief").replicas == 1);
  CHECK(job.spec.tf_replica_specs.at("Worker").replicas == 2);
  for (const char* t : {"Chief", "Worker"}) {
    const auto& c = *tfjob::tensorflow_container(job.spec.tf_replica_specs.at(t));
    CHECK(c["image"] == "tensorflow/tensorflow:2.20.0-gpu");  // TensorFlow's own; the trainer from a ConfigMap
    CHECK(c["volumeMounts"][1] == json({{"name", "trainer"}, {"mountPath", "/opt/mnist"}, {"readOnly", true}}));
    CHECK(job.spec.tf_replica_specs.at(t).template_["spec"]["volumes"][1] ==
          json({{"name", "trainer"}, {"configMap", {{"name", "mnist-trainer"}}}}));
    CHECK(c["command"] == json({"python", "/opt/mnist/mnist.py"}));
    CHECK(c["args"] == json({"--data-dir=/train/data", "--model-dir=/train/checkpoints", "--log-dir=/train/logs",
                             "--export-dir=/train/export/mnist", "--epochs=5"}));
    CHECK(c["resources"]["limits"]["nvidia.com/gpu"] == "1");
    CHECK(c["volumeMounts"][0]["mountPath"] == "/train");
    CHECK(job.spec.tf_replica_specs.at(t).template_["spec"]["volumes"][0]["persistentVolumeClaim"]["claimName"] ==
          "tfjob-mnist");
  }
  // defaults applied, and valid
  CHECK(job.spec.run_policy.clean_pod_policy == std::optional<std::string>("None"));
  CHECK(tfjob::validate(job).empty());
}

TEST_CASE("the built-in mnist sample matches samples/mnist/tfjob.yaml", "[cli][submit][samples]") {
  const std::string path = tfjob::test::source_dir() + "/samples/mnist/tfjob.yaml";
  std::ifstream probe(path);
  if (!probe) {
    TFJOB_SKIP("samples/mnist/tfjob.yaml not present (fix: a complete checkout)");
  }
  auto file = tfjob::with_defaults(tfjob::parse_tfjobs(slurp(path), path).at(0));
  auto r = run({"submit", "mnist", "--dry-run=client", "-o", "json"});
  REQUIRE(r.rc == 0);
  auto builtin = tfjob::parse_tfjobs(r.out, "stdout").at(0);
  REQUIRE(file.spec.tf_replica_specs.size() == builtin.spec.tf_replica_specs.size());
  for (const auto& [type, spec] : file.spec.tf_replica_specs) {
    const auto& b = builtin.spec.tf_replica_specs.at(type);
    CHECK(spec.replicas == b.replicas);
    CHECK(spec.restart_policy == b.restart_policy);
    const auto& fc = *tfjob::tensorflow_container(spec);
    const auto& bc = *tfjob::tensorflow_container(b);
    for (const char* k : {"image", "command", "args", "volumeMounts", "ports"}) CHECK(fc[k] == bc[k]);
    CHECK(tfjob::Quantity::parse(bc["resources"]["limits"]["nvidia.com/gpu"].get<std::string>()).value() ==
          fc["resources"]["limits"]["nvidia.com/gpu"].get<double>());
    CHECK(spec.template_["spec"]["volumes"] == b.template_["spec"]["volumes"]);
  }
  CHECK(file.spec.run_policy.backoff_limit == builtin.spec.run_policy.backoff_limit);
}

TEST_CASE("submit from flags: every flag lands in the job", "[cli][submit]") {
  need_schema_judge();
  auto r = run({"submit", "--name", "resnet", "-n", "team-a", "--image", "tensorflow/tensorflow:2.15.0-gpu", "--chief",
                "--workers", "3", "--ps", "1", "--evaluator", "--gpus", "2", "--cpu", "4", "--memory", "16Gi", "--env",
                "EPOCHS=10", "--pvc", "data:/data", "--restart-policy", "OnFailure", "--clean-pod-policy", "All", "--ttl",
                "600", "--active-deadline", "3600", "--backoff-limit", "2", "--success-policy", "AllWorkers", "--selector",
                "gpu=v100", "--toleration", "nvidia.com/gpu:NoSchedule", "--label", "team=vision", "--command",
                "--dry-run=client", "-o", "json", "--", "python", "/data/train.py", "--epochs", "3"});
  INFO(r.err);
  REQUIRE(r.rc == 0);
  auto j = json::parse(r.out);
  keep_for_schema_judge("flags", tfjob::to_yaml(j));
  auto job = j.get<tfjob::TFJob>();
  CHECK(job.metadata.name == "resnet");
  CHECK(job.metadata.namespace_ == "team-a");
  CHECK(job.metadata.labels.at("team") == "vision");
  CHECK(job.spec.tf_replica_specs.size() == 4);
  CHECK(job.spec.tf_replica_specs.at("Worker").replicas == 3);
  CHECK(job.spec.tf_replica_specs.at("PS").restart_policy == "OnFailure");
  CHECK(job.spec.run_policy.clean_pod_policy == std::optional<std::string>("All"));
  CHECK(job.spec.run_policy.ttl_seconds_after_finished == 600);
  CHECK(job.spec.run_policy.active_deadline_seconds == 3600);
  CHECK(job.spec.run_policy.backoff_limit == 2);
  CHECK(job.spec.success_policy == std::optional<std::string>("AllWorkers"));
  const auto& w = job.spec.tf_replica_specs.at("Worker");
  const auto& c = *tfjob::tensorflow_container(w);
  CHECK(c["command"] == json({"python", "/data/train.py", "--epochs", "3"}));
  CHECK_FALSE(c.contains("args"));
  CHECK(c["resources"]["limits"] == json::parse(R"({"cpu":"4","memory":"16Gi","nvidia.com/gpu":"2"})"));
  CHECK(c["env"] == json::parse(R"([{"name":"EPOCHS","value":"10"}])"));
  CHECK(w.template_["spec"]["nodeSelector"]["gpu"] == "v100");
  CHECK(w.template_["spec"]["tolerations"][0]["effect"] == "NoSchedule");
  CHECK(tfjob::validate(job).empty());

  // without --command the words are args; without -o a kubectl-like line
  auto a = run({"submit", "--name", "x", "--image", "i", "--dry-run=client", "-o", "yaml", "--", "--lr", "0.1"});
  REQUIRE(a.rc == 0);
  auto aj = tfjob::parse_tfjobs(a.out).at(0);
  CHECK((*tfjob::tensorflow_container(aj.spec.tf_replica_specs.at("Worker")))["args"] == json({"--lr", "0.1"}));
  keep_for_schema_judge("args", a.out);
  auto line = run({"submit", "--name", "x", "--image", "i", "--dry-run=client"});
  CHECK(line.rc == 0);
  CHECK(line.out == "tfjob.kubeflow.org/x created (dry run)\n");
  auto name = run({"submit", "mnist", "--dry-run", "-o", "name"});
  CHECK(name.out == "tfjob.kubeflow.org/mnist\n");
}

TEST_CASE("submit the sample with overrides", "[cli][submit][samples]") {
  need_schema_judge();
  auto r = run({"submit", "mnist", "--name", "mnist-cpu", "--gpus", "0", "--workers", "4", "-n", "ml", "--dry-run=client",
                "-o", "yaml", "--", "--epochs=1"});
  INFO(r.err);
  REQUIRE(r.rc == 0);
  keep_for_schema_judge("mnist-cpu", r.out);
  auto job = tfjob::parse_tfjobs(r.out).at(0);
  CHECK(job.metadata.name == "mnist-cpu");
  CHECK(job.metadata.namespace_ == "ml");
  CHECK(job.spec.tf_replica_specs.at("Worker").replicas == 4);
  const auto& c = *tfjob::tensorflow_container(job.spec.tf_replica_specs.at("Worker"));
  CHECK_FALSE(c.contains("resources"));
  CHECK(c["args"] == json({"--epochs=1"}));
  CHECK(c["command"] == json({"python", "/opt/mnist/mnist.py"}));

  auto list = run({"submit", "--list-samples"});
  CHECK(list.rc == 0);
  CHECK(list.out.rfind("NAME", 0) == 0);
  CHECK(list.out.find("mnist ") != std::string::npos);
  auto unknown = run({"submit", "--sample", "nope", "--dry-run=client"});
  CHECK(unknown.rc == 64);
  CHECK(unknown.out.empty());
  CHECK_THAT(unknown.err, Catch::StartsWith("error: --sample: \"nope\" is not one of them; give hello or mnist"));
}

TEST_CASE("submit -f FILE and -f - (stdin), YAML and JSON, several documents", "[cli][submit]") {
  need_schema_judge();
  auto r = run({"submit", "-f", data("api/multi.yaml"), "--dry-run=client", "-o", "yaml"});
  INFO(r.err);
  REQUIRE(r.rc == 0);
  keep_for_schema_judge("multi", r.out);
  auto jobs = tfjob::parse_tfjobs(r.out);
  REQUIRE(jobs.size() == 2);
  CHECK(r.out.find("\n---\n") != std::string::npos);
  // defaulting normalised the lower-case keys and filled replicas
  CHECK(jobs[1].spec.tf_replica_specs.at("Worker").replicas == 3);
  CHECK(jobs[1].spec.tf_replica_specs.at("PS").replicas == 1);

  json j = json(jobs[0]);
  auto s = run({"submit", "-f", "-", "-n", "from-stdin", "--dry-run=client", "-o", "json"}, j.dump());
  INFO(s.err);
  REQUIRE(s.rc == 0);
  auto back = json::parse(s.out);
  CHECK(back["metadata"]["namespace"] == "from-stdin");
  back["metadata"].erase("namespace");
  CHECK(back == j);

  // several jobs as JSON: a List, as kubectl prints
  auto list = run({"submit", "-f", data("api/multi.yaml"), "--dry-run=client", "-o", "json"});
  REQUIRE(list.rc == 0);
  CHECK(json::parse(list.out)["kind"] == "List");
  CHECK(json::parse(list.out)["items"].size() == 2);

  // a full manifest round-trips through the plugin (unknown fields and status kept) when the
  // schema is told to warn; strict (the default, as kubectl's) refuses its unknown field
  auto strict = run({"submit", "-f", data("api/full.yaml"), "--dry-run=client", "-o", "json"});
  CHECK(strict.rc == 64);
  CHECK(strict.out.empty());
  CHECK_THAT(strict.err, Catch::Contains("full.yaml: TFJob dist-mnist: unknown field \"spec.x-extra-spec-field\""));
  auto full = run({"submit", "-f", data("api/full.yaml"), "--dry-run=client", "-o", "json", "--validate=warn"});
  INFO(full.err);
  REQUIRE(full.rc == 0);
  CHECK_THAT(full.err, Catch::StartsWith("warning: ") && Catch::Contains("unknown field \"spec.x-extra-spec-field\""));
  auto in = tfjob::parse_manifests(slurp(data("api/full.yaml"))).at(0);
  auto out = json::parse(full.out);
  CHECK(out["spec"]["x-extra-spec-field"] == in["spec"]["x-extra-spec-field"]);
  CHECK(out["status"] == in["status"]);
  CHECK(out["spec"]["tfReplicaSpecs"]["Chief"]["template"] == in["spec"]["tfReplicaSpecs"]["Chief"]["template"]);
}

TEST_CASE("invalid input: exit 64 (nothing was sent), every problem on stderr, nothing on stdout", "[cli][submit][errors]") {
  SECTION("an invalid manifest") {
    // the schema first, as kube-apiserver judges it before the operator's webhook sees it
    auto s = run({"submit", "-f", data("api/invalid.yaml"), "--dry-run=client", "-o", "yaml"});
    CHECK(s.rc == 64);
    CHECK(s.out.empty());
    CHECK_THAT(s.err, Catch::Contains("spec.tfReplicaSpecs.Master.template.spec.containers[0].resources.limits.memory: "
                                      "Invalid value: \"lots\": must be a quantity"));
    // without it, every problem the webhook and the client-side checks find, at once
    auto r = run({"submit", "-f", data("api/invalid.yaml"), "--dry-run=client", "-o", "yaml", "--validate=ignore"});
    CHECK(r.rc == 64);
    CHECK(r.out.empty());
    CHECK_THAT(r.err, Catch::Contains("metadata.name: Invalid value: \"00Bad_Name\"") &&
                          Catch::Contains("spec.runPolicy.managedBy: Unsupported value") &&
                          Catch::Contains("spec.tfReplicaSpecs[Chief].template.spec.containers[0].image: Required value") &&
                          Catch::Contains("spec.tfReplicaSpecs[Master].template.spec.containers[0].resources.limits[memory]") &&
                          Catch::Contains("spec.tfReplicaSpecs[Worker].template.spec.containers: Required value") &&
                          Catch::Contains("must not have more than 1 Chief or Master role"));
  }
  SECTION("a repeatable flag takes one value per --flag: the next word is the command's (pflag)") {
    auto r = run({"submit", "--env", "A=1", "mnist", "--toleration", "nvidia.com/gpu", "--dry-run=client", "-o", "json"});
    INFO(r.err);
    REQUIRE(r.rc == 0);
    auto job = nlohmann::json::parse(r.out);
    CHECK(job["metadata"]["name"] == "mnist");  // the sample, not a second --env value
    const auto& pod = job["spec"]["tfReplicaSpecs"]["Worker"]["template"]["spec"];
    CHECK(pod["tolerations"].size() == 1);
    CHECK(pod["containers"][0]["env"].dump().find("\"A\"") != std::string::npos);
  }
  SECTION("a bad flag is refused as the command line is read, in the one form; missing fields together") {
    // as pflag, the first value that cannot be read stops the parse (docs/cli.md)
    for (const auto& [flag, value, says] : std::vector<std::tuple<std::string, std::string, std::string>>{
             {"--cpu", "four", "error: --cpu: \"four\" is not a quantity; give a Kubernetes quantity"},
             {"--pvc", "data:relative", "error: --pvc: \"data:relative\": the mount path \"relative\" is not absolute; give CLAIM:/mount/path"},
             {"--env", "NOVALUE", "error: --env: \"NOVALUE\" has no \"=\"; give KEY=VALUE, e.g. EPOCHS=10"},
             {"--volume", "mnist", "error: --volume: \"mnist\" has no \"=\"; give CLAIM=DIR, e.g. tfjob-mnist=./mnist-data"}}) {
      auto r = run({"submit", flag, value, "--dry-run=client", "-o", "yaml"});
      INFO(r.err);
      CHECK(r.rc == 64);
      CHECK(r.out.empty());
      CHECK(r.err.rfind(says, 0) == 0);
    }
    auto r = run({"submit", "--dry-run=client", "-o", "yaml"});
    CHECK(r.rc == 64);
    CHECK(r.out.empty());
    // said by the flags to give, not the manifest's fields (a job from flags has none)
    CHECK_THAT(r.err, Catch::Contains("--name: Required value: a job from flags is named by --name NAME (a DNS-1035 label)") &&
                          Catch::Contains("--image: Required value: the Worker replicas have no image; give --image IMAGE, "
                                          "or --worker-image IMAGE for them alone"));
    CHECK_THAT(r.err, !Catch::Contains("metadata.name") && !Catch::Contains("containers[0].image"));
    auto bad = run({"submit", "--name", "Bad_Name", "--image", "x", "--dry-run=client"});
    CHECK(bad.rc == 64);
    CHECK_THAT(bad.err, Catch::Contains("--name: Invalid value: \"Bad_Name\": should match: a DNS-1035 label"));
  }
  SECTION("bad YAML: file, line and column") {
    auto r = run({"submit", "-f", data("api/bad-syntax.yaml"), "--dry-run=client"});
    CHECK(r.rc == 64);
    CHECK(r.out.empty());
    CHECK_THAT(r.err, Catch::Contains("bad-syntax.yaml: line ") && Catch::Contains("column"));
  }
  SECTION("bad JSON on stdin") {
    auto r = run({"submit", "-f", "-", "--dry-run=client"}, "{\"kind\": \"TFJob\",\n \"spec\": }");
    CHECK(r.rc == 64);
    CHECK(r.out.empty());
    CHECK_THAT(r.err, Catch::Contains("stdin: invalid JSON at line 2"));
  }
  SECTION("wrong types") {
    auto r = run({"submit", "-f", data("api/wrong-types.yaml"), "--dry-run=client"});
    CHECK(r.rc == 64);
    CHECK(r.out.empty());
    CHECK_THAT(r.err, Catch::Contains("spec.runPolicy.backoffLimit: Invalid value") &&
                          Catch::Contains("spec.tfReplicaSpecs.Worker.replicas: Invalid value"));
    // what the schema is told to ignore, the decoder still refuses
    auto d = run({"submit", "-f", data("api/wrong-types.yaml"), "--dry-run=client", "--validate=ignore"});
    CHECK(d.rc == 64);
    CHECK_THAT(d.err, Catch::Contains("spec.tfReplicaSpecs[Worker].replicas: Invalid value"));
  }
  SECTION("missing file, -f with job flags, namespace mismatch, bad -o, bad enum flag") {
    auto missing = run({"submit", "-f", "/nonexistent/job.yaml", "--dry-run=client"});
    CHECK(missing.rc == 64);
    CHECK_THAT(missing.err, Catch::Contains("error: --filename: \"/nonexistent/job.yaml\" does not exist"));
    auto mix = run({"submit", "-f", data("api/multi.yaml"), "--workers", "3", "--dry-run=client"});
    CHECK(mix.rc == 64);
    CHECK(mix.err.rfind("error: --filename: cannot be combined with job flags (--workers); edit the manifest", 0) == 0);
    auto with_sample = run({"submit", "-f", data("api/multi.yaml"), "mnist", "--dry-run=client"});
    CHECK(with_sample.rc == 64);
    CHECK(with_sample.err.rfind("error: --filename: cannot be combined with a sample or arguments (got \"mnist\"); give -f alone", 0) == 0);
    auto ns = run({"submit", "-f", data("api/full.yaml"), "-n", "other", "--dry-run=client", "--validate=ignore"});
    CHECK(ns.rc == 64);
    CHECK_THAT(ns.err, Catch::Contains("does not match the namespace \"other\""));
    auto o = run({"submit", "mnist", "--dry-run=client", "-o", "table"});
    CHECK(o.rc == 64);
    CHECK(o.out.empty());
    CHECK_THAT(o.err, Catch::Contains("error: --output: \"table\" is not one of them; give yaml, json or name"));
    auto pol = run({"submit", "--name", "x", "--image", "i", "--restart-policy", "Sometimes", "--dry-run=client"});
    CHECK(pol.rc == 64);
    CHECK_THAT(pol.err, Catch::Contains("error: --restart-policy: \"Sometimes\" is not one of them; give Always, OnFailure, Never or ExitCode"));
    auto neg = run({"submit", "--name", "x", "--image", "i", "--workers", "-2", "--dry-run=client"});
    CHECK(neg.rc == 64);
    CHECK(neg.out.empty());
  }
}

TEST_CASE("submit: every schedulingPolicy field of v1.9, the scheduler, Kueue and managedBy", "[cli][submit][scheduling]") {
  need_schema_judge();
  auto r = run({"submit", "--name", "gang", "-n", "team-a", "--image", "tensorflow/tensorflow:2.15.0-gpu", "--chief",
                "--workers", "3", "--ps", "1", "--gpus", "1", "--min-available", "4", "--queue", "research",
                "--priority-class", "high-priority", "--min-resources", "nvidia.com/gpu=4,cpu=8",
                "--min-resources", "memory=32Gi", "--schedule-timeout", "600", "--scheduler-name", "volcano",
                "--managed-by", "kubeflow.org/training-operator", "--suspend", "--dry-run=client", "-o", "json"});
  INFO(r.err);
  REQUIRE(r.rc == 0);
  auto j = json::parse(r.out);
  keep_for_schema_judge("scheduling", tfjob::to_yaml(j));
  const auto rp = j["spec"]["runPolicy"];
  CHECK(rp["schedulingPolicy"] == json::parse(R"({"minAvailable": 4, "queue": "research", "priorityClass": "high-priority",
      "minResources": {"nvidia.com/gpu": "4", "cpu": "8", "memory": "32Gi"}, "scheduleTimeoutSeconds": 600})"));
  CHECK(rp["managedBy"] == "kubeflow.org/training-operator");
  CHECK(rp["suspend"] == true);
  for (const char* t : {"Chief", "Worker", "PS"}) {
    INFO(t);
    CHECK(j["spec"]["tfReplicaSpecs"][t]["template"]["spec"]["schedulerName"] == "volcano");
    // the PodGroup's priority class is not the pods' (the operator v1.9 does not copy it)
    CHECK_FALSE(j["spec"]["tfReplicaSpecs"][t]["template"]["spec"].contains("priorityClassName"));
  }
  // parsed back by the SDK: the same fields, typed
  auto job = j.get<tfjob::TFJob>();
  REQUIRE(job.spec.run_policy.scheduling_policy);
  CHECK(job.spec.run_policy.scheduling_policy->min_available == 4);
  CHECK(job.spec.run_policy.scheduling_policy->schedule_timeout_seconds == 600);

  SECTION("--gang: minAvailable is every replica, from flags and from a sample") {
    auto g = run({"submit", "--name", "all", "--image", "i", "--chief", "--workers", "3", "--ps", "2", "--evaluator",
                  "--gang", "--dry-run=client", "-o", "json"});
    INFO(g.err);
    REQUIRE(g.rc == 0);
    auto gj = json::parse(g.out);
    keep_for_schema_judge("gang", tfjob::to_yaml(gj));
    CHECK(gj["spec"]["runPolicy"]["schedulingPolicy"] == json::parse(R"({"minAvailable": 7})"));
    auto m = run({"submit", "mnist", "--workers", "4", "--gang", "--dry-run=client", "-o", "json"});
    INFO(m.err);
    REQUIRE(m.rc == 0);
    CHECK(json::parse(m.out)["spec"]["runPolicy"]["schedulingPolicy"]["minAvailable"] == 5);  // Chief + 4 Workers
  }
  SECTION("--local-queue: Kueue's label on the TFJob and created suspended for Kueue to admit") {
    auto k = run({"submit", "mnist", "--local-queue", "team-a-gpus", "--managed-by", "kueue.x-k8s.io/multikueue",
                  "--dry-run=client", "-o", "json"});
    INFO(k.err);
    REQUIRE(k.rc == 0);
    auto kj = json::parse(k.out);
    keep_for_schema_judge("kueue", tfjob::to_yaml(kj));
    CHECK(kj["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] == "team-a-gpus");
    CHECK(kj["spec"]["runPolicy"]["suspend"] == true);
    CHECK(kj["spec"]["runPolicy"]["managedBy"] == "kueue.x-k8s.io/multikueue");
    CHECK_FALSE(kj["spec"]["runPolicy"].contains("schedulingPolicy"));  // Kueue needs none
  }
  SECTION("bad values: each named with what to do") {
    auto both = run({"submit", "--name", "x", "--image", "i", "--gang", "--min-available", "2", "--dry-run=client"});
    CHECK(both.rc == 64);
    CHECK_THAT(both.err, Catch::Contains("cannot be combined with --") && Catch::Contains("; give one of them"));
    auto big = run({"submit", "--name", "x", "--image", "i", "--workers", "2", "--min-available", "5", "--dry-run=client"});
    CHECK(big.rc == 64);
    CHECK(big.out.empty());
    CHECK_THAT(big.err, Catch::Contains("--min-available: Invalid value: 5: more than the job's 2 replicas, so the gang would never start"));
    auto zero = run({"submit", "--name", "x", "--image", "i", "--min-available", "0", "--dry-run=client"});
    CHECK(zero.rc == 64);
    auto mr = run({"submit", "--name", "x", "--image", "i", "--min-resources", "nvidia.com/gpu=four,cpu", "--dry-run=client"});
    CHECK(mr.rc == 64);
    CHECK_THAT(mr.err, Catch::Contains("error: --min-resources: the value of \"nvidia.com/gpu\": \"four\" is not a quantity"));
    auto mr2 = run({"submit", "--name", "x", "--image", "i", "--min-resources", "nvidia.com/gpu=4,cpu", "--dry-run=client"});
    CHECK(mr2.rc == 64);
    CHECK_THAT(mr2.err, Catch::Contains("error: --min-resources: \"cpu\" has no \"=\"; give NAME=QTY[,NAME=QTY...], e.g. nvidia.com/gpu=4"));
    auto mb = run({"submit", "--name", "x", "--image", "i", "--managed-by", "volcano", "--dry-run=client"});
    CHECK(mb.rc == 64);
    CHECK_THAT(mb.err, Catch::Contains("error: --managed-by: \"volcano\" is not one of them") &&
                           Catch::Contains("kueue.x-k8s.io/multikueue") && Catch::Contains("kubeflow.org/training-operator"));
    auto st = run({"submit", "--name", "x", "--image", "i", "--schedule-timeout", "0", "--dry-run=client"});
    CHECK(st.rc == 64);
    auto st32 = run({"submit", "--name", "x", "--image", "i", "--schedule-timeout", "3000000000", "--dry-run=client"});
    CHECK(st32.rc == 64);
    CHECK_THAT(st32.err, Catch::Contains("error: --schedule-timeout: 3000000000 is more than 2147483647; give a whole number from 1 to 2147483647"));
  }
}

TEST_CASE("submit: per-role images and resources as Arena has them, and the pods' settings", "[cli][submit]") {
  need_schema_judge();
  auto r = run({"submit", "--name", "roles", "--image", "tf:common", "--chief", "--workers", "2", "--ps", "1", "--evaluator",
                "--gpus", "1", "--cpu", "2", "--memory", "4Gi", "--chief-image", "tf:chief", "--worker-image", "tf:worker",
                "--ps-image", "tf:ps", "--evaluator-image", "tf:eval", "--worker-cpu", "8", "--worker-gpus", "4",
                "--ps-memory", "64Gi", "--ps-cpu", "500m", "--evaluator-gpus", "0", "--annotation", "sidecar.istio.io/inject=false",
                "--image-pull-policy", "IfNotPresent", "--image-pull-secret", "regcred", "--image-pull-secret", "other",
                "--service-account", "trainer", "--shm-size", "2Gi", "--dry-run=client", "-o", "json"});
  INFO(r.err);
  REQUIRE(r.rc == 0);
  auto j = json::parse(r.out);
  keep_for_schema_judge("roles", tfjob::to_yaml(j));
  auto spec = [&](const char* t) { return j["spec"]["tfReplicaSpecs"][t]["template"]["spec"]; };
  auto tf = [&](const char* t) { return spec(t)["containers"][0]; };
  CHECK(tf("Chief")["image"] == "tf:chief");
  CHECK(tf("Worker")["image"] == "tf:worker");
  CHECK(tf("PS")["image"] == "tf:ps");
  CHECK(tf("Evaluator")["image"] == "tf:eval");
  // the common values where no per-role value is given
  CHECK(tf("Chief")["resources"] == json::parse(R"({"limits": {"cpu": "2", "memory": "4Gi", "nvidia.com/gpu": "1"},
                                                     "requests": {"cpu": "2", "memory": "4Gi"}})"));
  CHECK(tf("Worker")["resources"] == json::parse(R"({"limits": {"cpu": "8", "memory": "4Gi", "nvidia.com/gpu": "4"},
                                                      "requests": {"cpu": "8", "memory": "4Gi"}})"));
  CHECK(tf("PS")["resources"] == json::parse(R"({"limits": {"cpu": "500m", "memory": "64Gi"}, "requests": {"cpu": "500m", "memory": "64Gi"}})"));
  CHECK_FALSE(tf("Evaluator")["resources"]["limits"].contains("nvidia.com/gpu"));
  for (const char* t : {"Chief", "Worker", "PS", "Evaluator"}) {
    INFO(t);
    CHECK(j["spec"]["tfReplicaSpecs"][t]["template"]["metadata"]["annotations"] == json::parse(R"({"sidecar.istio.io/inject": "false"})"));
    CHECK(tf(t)["imagePullPolicy"] == "IfNotPresent");
    CHECK(spec(t)["imagePullSecrets"] == json::parse(R"([{"name": "regcred"}, {"name": "other"}])"));
    CHECK(spec(t)["serviceAccountName"] == "trainer");
    CHECK(spec(t)["volumes"] == json::parse(R"([{"name": "dshm", "emptyDir": {"medium": "Memory", "sizeLimit": "2Gi"}}])"));
    CHECK(tf(t)["volumeMounts"] == json::parse(R"([{"name": "dshm", "mountPath": "/dev/shm"}])"));
  }
  CHECK_FALSE(j["metadata"].contains("annotations"));  // the pods', not the TFJob's

  SECTION("a sample: per-role flags change only that role") {
    auto m = run({"submit", "mnist", "--workers", "2", "--worker-gpus", "2", "--chief-memory", "8Gi", "--shm-size", "1Gi",
                  "--dry-run=client", "-o", "json"});
    INFO(m.err);
    REQUIRE(m.rc == 0);
    auto mj = json::parse(m.out);
    keep_for_schema_judge("roles-mnist", tfjob::to_yaml(mj));
    auto c = mj["spec"]["tfReplicaSpecs"]["Chief"]["template"]["spec"];
    auto w = mj["spec"]["tfReplicaSpecs"]["Worker"]["template"]["spec"];
    CHECK(w["containers"][0]["resources"]["limits"]["nvidia.com/gpu"] == "2");
    CHECK(c["containers"][0]["resources"]["limits"]["nvidia.com/gpu"] == "1");
    CHECK(c["containers"][0]["resources"]["limits"]["memory"] == "8Gi");
    // the sample's claim and trainer files stay, /dev/shm is added beside them
    CHECK(c["volumes"].size() >= 2);
    CHECK(std::count_if(c["volumes"].begin(), c["volumes"].end(), [](const json& v) { return v.value("name", "") == "dshm"; }) == 1);
  }
  SECTION("bad values: each named with what to do") {
    auto ps = run({"submit", "--name", "x", "--image", "i", "--workers", "2", "--ps-image", "tf:ps", "--ps-memory", "1Gi", "--dry-run=client"});
    CHECK(ps.rc == 64);
    CHECK(ps.out.empty());
    CHECK_THAT(ps.err, Catch::Contains("--ps-image, --ps-memory: Invalid value: the job has no PS replica: add --ps N or drop --ps-image, --ps-memory"));
    auto ev = run({"submit", "--name", "x", "--image", "i", "--evaluator-cpu", "1", "--dry-run=client"});
    CHECK(ev.rc == 64);
    CHECK_THAT(ev.err, Catch::Contains("add --evaluator or drop --evaluator-cpu"));
    for (const auto& [flag, value, says] : std::vector<std::tuple<std::string, std::string, std::string>>{
             {"--worker-cpu", "lots", "error: --worker-cpu: \"lots\" is not a quantity; give a Kubernetes quantity"},
             {"--shm-size", "big", "error: --shm-size: \"big\" is not a quantity; give a Kubernetes quantity"},
             {"--image-pull-policy", "Sometimes", "error: --image-pull-policy: \"Sometimes\" is not one of them; give Always, IfNotPresent or Never"},
             {"--annotation", "no value", "error: --annotation: \"no value\" has no \"=\"; give KEY=VALUE"},
             {"--annotation", "bad key!=v", "error: --annotation: the key \"bad key!\": name part must consist of alphanumeric characters"}}) {
      auto bad = run({"submit", "--name", "x", "--image", "i", flag, value, "--dry-run=client"});
      INFO(bad.err);
      CHECK(bad.rc == 64);
      CHECK(bad.out.empty());
      CHECK(bad.err.rfind(says, 0) == 0);
    }
    auto neg = run({"submit", "--name", "x", "--image", "i", "--worker-gpus", "-1", "--dry-run=client"});
    CHECK(neg.rc == 64);
  }
}

TEST_CASE("tf-config shows the exact TF_CONFIG of every replica", "[cli][tf_config]") {
  auto r = run({"tf-config", "--name", "test-tfjob", "-n", "ns3", "--image", "img", "--workers", "1", "--ps", "1",
                "--evaluator", "-o", "json", "--cluster-domain", "tf.training.io"});
  INFO(r.err);
  REQUIRE(r.rc == 0);
  auto m = json::parse(r.out);
  CHECK(m.size() == 3);
  // the operator's fixture (pod_test.go, NewTFJobWithEvaluatorAndNamespace(1, 1, 1, "ns3"))
  CHECK(m["worker-0"] ==
        R"({"cluster":{"evaluator":["test-tfjob-evaluator-0.ns3.svc.tf.training.io:2222"],"ps":["test-tfjob-ps-0.ns3.svc.tf.training.io:2222"],"worker":["test-tfjob-worker-0.ns3.svc.tf.training.io:2222"]},"task":{"type":"worker","index":0},"environment":"cloud"})");
  CHECK(m["ps-0"].get<std::string>().find(R"("task":{"type":"ps","index":0})") != std::string::npos);
  CHECK(m["evaluator-0"].get<std::string>().find(R"("task":{"type":"evaluator","index":0})") != std::string::npos);

  // a single replica: null (the operator injects none)
  auto one = run({"tf-config", "--name", "solo", "--image", "img", "-o", "json"});
  REQUIRE(one.rc == 0);
  CHECK(json::parse(one.out) == json::parse(R"({"worker-0": null})"));

  // the sample, default namespace, table output
  auto t = run({"tf-config", "mnist"});
  REQUIRE(t.rc == 0);
  CHECK(t.out.rfind("REPLICA    TF_CONFIG\nchief-0    {\"cluster\":{\"chief\":[\"mnist-chief-0.default.svc:2222\"]", 0) == 0);
  auto wide = run({"tf-config", "mnist", "-o", "wide"});
  REQUIRE(wide.rc == 0);
  CHECK(wide.out.find("worker-1   mnist-worker-1   mnist-worker-1.default.svc:2222   {") != std::string::npos);

  // from a file, with the port of each type; invalid input fails as for submit (full.yaml's
  // unknown field too, unless the schema is told to warn)
  auto strict = run({"tf-config", "-f", data("api/full.yaml"), "-o", "json"});
  CHECK(strict.rc == 64);
  CHECK_THAT(strict.err, Catch::Contains("unknown field \"spec.x-extra-spec-field\""));
  auto f = run({"tf-config", "-f", data("api/full.yaml"), "-o", "json", "--validate=warn"});
  INFO(f.err);
  REQUIRE(f.rc == 0);
  auto cfg = tfjob::parse_tf_config(json::parse(f.out)["chief-0"].get<std::string>());
  CHECK(cfg.address("worker", 1) == std::optional<std::string>("dist-mnist-worker-1.team-a.svc:3333"));
  CHECK(cfg.is_chief());
  auto bad = run({"tf-config", "-f", data("api/invalid.yaml"), "-o", "json"});
  CHECK(bad.rc == 64);
  CHECK(bad.out.empty());
  auto two = run({"tf-config", "-f", data("api/multi.yaml")});
  CHECK(two.rc == 64);  // an input that needs a NAME to be used
  CHECK_THAT(two.err, Catch::Contains("one TFJob at a time"));
}

TEST_CASE("the --help output lists the commands with examples", "[cli]") {
  auto h = run({"submit", "--help"});
  CHECK(h.rc == 0);
  CHECK_THAT(h.out, Catch::Contains("--dry-run") && Catch::Contains("Examples:") && Catch::Contains("Exit codes"));
  auto t = run({"tf-config", "--help"});
  CHECK(t.rc == 0);
  CHECK_THAT(t.out, Catch::Contains("--cluster-domain"));
}
