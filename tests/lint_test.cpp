// Lint rules, each on a stored manifest (tests/data/explain/lint/<Code>.yaml, with the
// cluster objects the rule reads): the rule fires there and nowhere else, clean.yaml gives
// nothing, and the plugin's `lint` and `submit` run the same rules.
#include <catch2/catch.hpp>

#include "support/paths.hpp"
#include "support/workflow_run.hpp"

#include <tfjob/api/lint.hpp>
#include <tfjob/api/manifest.hpp>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

using nlohmann::json;
using tfjob::Finding;

namespace {

std::string lint_dir() { return tfjob::test::source_dir() + "/tests/data/explain/lint/"; }

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

struct Stored {
  json job;
  tfjob::lint::Context ctx;
};

Stored load(const std::string& file) {
  Stored s;
  for (auto& d : tfjob::parse_objects(slurp(file), file)) {
    const std::string kind = d.value("kind", "");
    if (kind == "TFJob") s.job = d;
    else if (kind == "Node") {
      if (!s.ctx.nodes) s.ctx.nodes.emplace();
      s.ctx.nodes->push_back(tfjob::detail::decoded<tfjob::k8s::Node>(d));
    } else if (kind == "PersistentVolumeClaim") s.ctx.claims[d["metadata"]["name"]] = tfjob::detail::decoded<tfjob::k8s::PersistentVolumeClaim>(d);
    else if (kind == "Namespace") s.ctx.namespace_object = tfjob::detail::decoded<tfjob::k8s::Namespace>(d);
  }
  return s;
}

std::set<std::string> codes(const std::vector<Finding>& fs) {
  std::set<std::string> c;
  for (const auto& f : fs) c.insert(f.code);
  return c;
}

}  // namespace

TEST_CASE("each lint rule fires on its stored manifest, and only there", "[lint]") {
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(lint_dir())) {
    if (e.path().extension() != ".yaml") continue;
    ++files;
    const std::string code = e.path().stem().string();
    auto s = load(e.path().string());
    auto found = tfjob::lint::lint(s.job, s.ctx);
    INFO(e.path().filename().string());
    for (const auto& f : found) INFO(f.code + ": " + f.message);
    if (code == "clean") {
      CHECK(found.empty());
      continue;
    }
    CHECK(codes(found) == std::set<std::string>{code});
    for (const auto& f : found) {
      CHECK_FALSE(f.message.empty());
      CHECK_FALSE(f.fix.empty());      // each with a one-line fix
      CHECK_FALSE(f.evidence.empty());
      CHECK(f.fix.str().find('\n') == std::string::npos);
    }
  }
  CHECK(files >= 14);
}

TEST_CASE("lint rules: the facts in the words", "[lint]") {
  auto s = load(lint_dir() + "GpuRequestWithoutLimit.yaml");
  auto f = tfjob::lint::lint(s.job, s.ctx);
  REQUIRE(f.size() == 1);
  CHECK(f[0].replica == "Worker");
  CHECK(f[0].message.str().find("requests nvidia.com/gpu without a limit") != std::string::npos);
  CHECK(f[0].message.str().find("#1042") != std::string::npos);

  s = load(lint_dir() + "ExitCodeRetriesSignalsOnly.yaml");
  f = tfjob::lint::lint(s.job, s.ctx);
  REQUIRE(f.size() == 1);  // said once, for both replica types
  CHECK(f[0].severity == Finding::Severity::info);
  CHECK(f[0].message.str().find("(Chief, Worker)") != std::string::npos);
  CHECK(f[0].message.str().find("128 or above") != std::string::npos);
  CHECK(f[0].message.str().find("1-127 fail") != std::string::npos);

  s = load(lint_dir() + "ReadWriteOnceClaimShared.yaml");
  f = tfjob::lint::lint(s.job, s.ctx);
  REQUIRE(f.size() == 1);
  CHECK(f[0].message.str().find("3 pods (Chief, Worker) mount it and need 3 GPUs together while no node has more than 1, so they "
                          "will land on different nodes") != std::string::npos);

  s = load(lint_dir() + "RequestFitsNoNode.yaml");
  f = tfjob::lint::lint(s.job, s.ctx);
  REQUIRE(f.size() == 1);
  // the 512Gi node is not one the pod may use (nodeSelector pool=gpu): the tainted 60Gi one is
  CHECK(f[0].evidence == std::vector<std::string>{"memory: asks 107374182400, the most any of the 1 node(s) it may use can allocate is 64424509440"});

  s = load(lint_dir() + "NoNodeMatches.yaml");
  f = tfjob::lint::lint(s.job, s.ctx);
  REQUIRE(f.size() == 1);
  CHECK(f[0].evidence[0] == "node gpu-1: taint nvidia.com/gpu=present:NoSchedule not tolerated");
  CHECK(f[0].evidence[1] == "node cpu-1: lacks pool=gpu");

  s = load(lint_dir() + "CudaImageUnsupportedOnNodes.yaml");
  f = tfjob::lint::lint(s.job, s.ctx);
  REQUIRE(f.size() == 1);
  CHECK(f[0].evidence[1] == "node v100-1: Volta or older");
  // without the cluster, the rules that read it do not run
  CHECK(tfjob::lint::lint(s.job).empty());
}

TEST_CASE("lint: the context silences what it answers, the Istio fix is applied", "[lint]") {
  auto s = load(lint_dir() + "LogsDeletedAfterFinish.yaml");
  CHECK(tfjob::lint::lint(s.job, s.ctx).size() == 2);  // cleanPodPolicy All, and the TTL
  s.ctx.logs_kept = true;
  CHECK(tfjob::lint::lint(s.job, s.ctx).empty());

  s = load(lint_dir() + "IstioSidecarInjected.yaml");
  REQUIRE(tfjob::lint::lint(s.job, s.ctx).size() == 1);
  tfjob::lint::add_istio_opt_out(s.job);
  CHECK(s.job["spec"]["tfReplicaSpecs"]["Worker"]["template"]["metadata"]["annotations"]["sidecar.istio.io/inject"] == "false");
  CHECK(tfjob::lint::lint(s.job, s.ctx).empty());
  s.ctx.namespace_object = tfjob::detail::decoded<tfjob::k8s::Namespace>(
      json{{"metadata", {{"name", "default"}, {"labels", {{"istio-injection", "disabled"}, {"istio.io/rev", "1-20"}}}}}});
  s = load(lint_dir() + "IstioSidecarInjected.yaml");
  s.ctx.namespace_object = tfjob::detail::decoded<tfjob::k8s::Namespace>(json{{"metadata", {{"name", "default"}, {"labels", {{"istio.io/rev", "1-20"}}}}}});
  CHECK(tfjob::lint::lint(s.job, s.ctx).size() == 1);  // revision-based injection counts too
}

TEST_CASE("images: TF2, CUDA 13, Volta", "[lint]") {
  using namespace tfjob::lint;
  CHECK(is_tf2_image("tensorflow/tensorflow:2.15.0-gpu"));
  CHECK(is_tf2_image("tensorflow/tensorflow"));
  CHECK_FALSE(is_tf2_image("tensorflow/tensorflow:1.15.5-gpu"));
  CHECK(is_cuda13_image("nvidia/cuda:13.0.1-devel-ubuntu24.04"));
  CHECK(is_cuda13_image("ghcr.io/x/trainer:2.1-cuda13"));
  CHECK(is_cuda13_image("pytorch/pytorch:2.9.0-cuda13.0-cudnn9-runtime"));
  CHECK_FALSE(is_cuda13_image("nvidia/cuda:12.9.1-runtime-ubuntu24.04"));
  CHECK_FALSE(is_cuda13_image("ghcr.io/x/trainer:cuda130-not"));  // not a CUDA word: "cuda130"
  auto node = [](const nlohmann::json& j) { return tfjob::detail::decoded<tfjob::k8s::Node>(j); };
  CHECK(node_gpu_is_volta_or_older(node({{"metadata", {{"labels", {{"nvidia.com/gpu.compute.major", "7"}, {"nvidia.com/gpu.compute.minor", "0"}}}}}})));
  CHECK_FALSE(node_gpu_is_volta_or_older(node({{"metadata", {{"labels", {{"nvidia.com/gpu.compute.major", "7"}, {"nvidia.com/gpu.compute.minor", "5"}}}}}})));
  CHECK(node_gpu_is_volta_or_older(node({{"metadata", {{"labels", {{"cloud.google.com/gke-accelerator", "nvidia-tesla-v100"}}}}}})));
}

TEST_CASE("kubectl tfjob lint -f: one line per finding, --strict exits 1, -o json is stable", "[lint][cli]") {
  auto r = tfjob::test::run_plugin({"lint", "-f", lint_dir() + "GpuRequestWithoutLimit.yaml"});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out.find(": TFJob lint-req: warning [GpuRequestWithoutLimit] Worker: Worker container \"tensorflow\" requests nvidia.com/gpu") !=
        std::string::npos);
  CHECK(r.out.find("    fix: set resources.limits.nvidia.com/gpu") != std::string::npos);
  r = tfjob::test::run_plugin({"lint", "-f", lint_dir() + "GpuRequestWithoutLimit.yaml", "--strict"});
  CHECK(r.exit_code == 1);
  // --strict fails on the warning, and the line still says what -o json says: a warning
  CHECK(r.out.find("warning [GpuRequestWithoutLimit]") != std::string::npos);
  CHECK(r.out.find("error [") == std::string::npos);
  r = tfjob::test::run_plugin({"lint", "-f", lint_dir() + "clean.yaml", "--strict"});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out.empty());
  CHECK(r.err.size() >= 12);
  CHECK(r.err.substr(r.err.size() - 12) == "no findings\n");  // after the non-TFJob documents it skipped
  r = tfjob::test::run_plugin({"lint", "-f", lint_dir() + "MasterWithTF2.yaml", "-f", lint_dir() + "GpuOnParameterServer.yaml", "-o", "json"});
  REQUIRE(r.exit_code == 0);
  auto j = json::parse(r.out);
  REQUIRE(j.size() == 2);
  CHECK(j[0]["code"] == "MasterWithTF2");
  CHECK(j[1]["code"] == "GpuOnParameterServer");
  for (const char* k : {"code", "severity", "replica", "message", "evidence", "fix", "source", "job"}) CHECK(j[1].contains(k));
  // a path that is not there is refused by the flag layer, as by every command's -f (exit 64,
  // docs/cli.md): nothing is linted
  r = tfjob::test::run_plugin({"lint", "-f", "/nonexistent.yaml", "-f", lint_dir() + "GpuRequestWithoutLimit.yaml"});
  CHECK(r.exit_code == 64);
  CHECK(r.out.empty());
  CHECK(r.err.rfind("error: --filename: \"/nonexistent.yaml\"", 0) == 0);
  // one that cannot be read as a manifest (empty) is an error finding like the rest, and the
  // other files are still linted
  const std::string empty = tfjob::test::temp_dir("lint-empty") + "/empty.yaml";
  std::ofstream(empty).flush();
  r = tfjob::test::run_plugin({"lint", "-f", empty, "-f", lint_dir() + "GpuRequestWithoutLimit.yaml"});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 1);
  CHECK(r.out.find(empty + ": error [") != std::string::npos);
  CHECK(r.out.find("warning [GpuRequestWithoutLimit]") != std::string::npos);
}

TEST_CASE("submit runs the same rules: warnings on stderr, --strict refuses", "[lint][cli]") {
  const std::string f = lint_dir() + "CpuOnlyImageOnGpuReplica.yaml";
  auto r = tfjob::test::run_plugin({"submit", "-f", f, "--dry-run=client", "-o", "name"});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out == "tfjob.kubeflow.org/lint-cpuimg\n");
  CHECK(r.err.find("warning: Worker asks for GPUs but runs docker.io/tensorflow/tensorflow:2.15.0, a CPU-only TensorFlow build") !=
        std::string::npos);
  CHECK(r.err.find("[CpuOnlyImageOnGpuReplica]") != std::string::npos);
  CHECK(r.err.find("  fix: use the -gpu tag, e.g. tensorflow/tensorflow:2.15.0-gpu") != std::string::npos);
  r = tfjob::test::run_plugin({"submit", "-f", f, "--dry-run=client", "-o", "name", "--strict"});
  CHECK(r.exit_code == 1);
  CHECK(r.out.empty());
  CHECK(r.err.find("--strict: 1 warning(s) above; nothing was submitted") != std::string::npos);
  // ExitCode's rule is said once, as a note (info): --strict does not refuse on it
  r = tfjob::test::run_plugin({"submit", "-f", lint_dir() + "ExitCodeRetriesSignalsOnly.yaml", "--dry-run=client", "-o", "name", "--strict"});
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out == "tfjob.kubeflow.org/lint-ec\n");
  CHECK(r.err.rfind("note: restartPolicy ExitCode (Chief, Worker) restarts a replica only when it exits with 128 or above", 0) == 0);
  CHECK(r.err.find("[ExitCodeRetriesSignalsOnly]\n  fix: exit with a code >= 128") != std::string::npos);
  CHECK(r.err.find("warning:") == std::string::npos);
  CHECK(r.err.find("note:", 1) == std::string::npos);  // once, for both replica types
  // two ExitCode jobs in one file: still said once
  const std::string two = tfjob::test::binary_dir() + "/lint-two-exitcode.yaml";
  {
    std::ifstream in(lint_dir() + "ExitCodeRetriesSignalsOnly.yaml");
    std::stringstream b;
    b << in.rdbuf();
    std::string doc = b.str(), second = doc;
    second.replace(second.find("name: lint-ec"), 13, "name: lint-ec2");
    std::ofstream(two) << doc << "\n---\n" << second;
  }
  r = tfjob::test::run_plugin({"submit", "-f", two, "--dry-run=client", "-o", "name"});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out == "tfjob.kubeflow.org/lint-ec\ntfjob.kubeflow.org/lint-ec2\n");
  CHECK(r.err.find("note:") == 0);
  CHECK(r.err.find("note:", 1) == std::string::npos);
}
