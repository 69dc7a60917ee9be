// The fuzz targets' inputs as unit tests (gcc, no libFuzzer): every seed in
// tests/fuzz/corpus/<target>/ and every reproducer in tests/fuzz/regressions/<target>/ is
// fed to the same target function libFuzzer runs (tests/fuzz/targets/), which must return
// with nothing but the SDK's own error family; then what each fixed finding must answer.
// A crash the fuzzer finds becomes a test by copying its reproducer into regressions/
// (docs/fuzzing.md).
#include "fuzz/targets/duration.hpp"
#include "fuzz/targets/export_check.hpp"
#include "fuzz/targets/kubeconfig.hpp"
#include "fuzz/targets/logs.hpp"
#include "fuzz/targets/manifest.hpp"
#include "fuzz/targets/model_config.hpp"
#include "fuzz/targets/probe_report.hpp"
#include "fuzz/targets/quantity.hpp"
#include "fuzz/targets/queues.hpp"
#include "fuzz/targets/explain.hpp"
#include "fuzz/targets/serving.hpp"
#include "fuzz/targets/tf_config.hpp"
#include "fuzz/targets/watch.hpp"
#include "support/paths.hpp"

#include <tfjob/kube/detail/util.hpp>

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using Target = int (*)(const std::uint8_t*, std::size_t);

namespace {

const std::map<std::string, Target>& targets() {
  static const std::map<std::string, Target> t = {
      {"duration", tfjob::fuzz::duration},   {"export_check", tfjob::fuzz::export_check},
      {"kubeconfig", tfjob::fuzz::kubeconfig},
      {"logs", tfjob::fuzz::logs},           {"manifest", tfjob::fuzz::manifest},
      {"model_config", tfjob::fuzz::model_config},
      {"probe_report", tfjob::fuzz::probe_report}, {"quantity", tfjob::fuzz::quantity},
      {"queues", tfjob::fuzz::queues},
      {"explain", tfjob::fuzz::explain},
      {"serving", tfjob::fuzz::serving},     {"tf_config", tfjob::fuzz::tf_config},
      {"watch", tfjob::fuzz::watch},
  };
  return t;
}

std::vector<fs::path> inputs(const std::string& folder, const std::string& target) {
  std::vector<fs::path> out;
  fs::path dir = fs::path(tfjob::test::source_dir()) / "tests/fuzz" / folder / target;
  if (!fs::is_directory(dir)) return out;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_regular_file()) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void replay(const std::string& folder) {
  for (const auto& [name, fn] : targets()) {
    for (const auto& p : inputs(folder, name)) {
      INFO("tests/fuzz/" << folder << "/" << name << "/" << p.filename().string());
      std::string bytes = slurp(p);
      CHECK_NOTHROW(fn(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()));
    }
  }
}

}  // namespace

TEST_CASE("every fuzz target has a seed corpus and a libFuzzer entry point", "[fuzz]") {
  for (const auto& [name, fn] : targets()) {
    INFO(name);
    CHECK(inputs("corpus", name).size() >= 3);
    CHECK(fs::exists(fs::path(tfjob::test::source_dir()) / "tests/fuzz" / (name + "_fuzz.cpp")));
  }
  std::size_t entry_points = 0;
  for (const auto& e : fs::directory_iterator(fs::path(tfjob::test::source_dir()) / "tests/fuzz"))
    if (e.path().filename().string().size() > 9 &&
        e.path().filename().string().substr(e.path().filename().string().size() - 9) == "_fuzz.cpp")
      ++entry_points;
  CHECK(entry_points == targets().size());  // a new target is replayed here too
}

TEST_CASE("the seed corpus passes every fuzz target", "[fuzz]") { replay("corpus"); }

TEST_CASE("the fuzzers' reproducers no longer fail", "[fuzz]") { replay("regressions"); }

// What each finding must answer now (regressions/<target>/ holds the fuzzer's input).

TEST_CASE("fuzz finding: a quantity beyond int64 is capped, one beyond a double is not a quantity", "[fuzz][quantity]") {
  // regressions/quantity/crash-9b0b...: "1E" (10^18) had milli_value() overflow a long long (UB).
  auto e = tfjob::Quantity::parse("1E");
  CHECK(e.value() == 1e18);
  CHECK(e.milli_value() == std::numeric_limits<long long>::max());
  CHECK(e.int_value() == 1000000000000000000LL);
  CHECK(tfjob::Quantity::parse("-9E").milli_value() == std::numeric_limits<long long>::min());
  // std::stod threw std::out_of_range on 400 digits.
  CHECK_FALSE(tfjob::Quantity::try_parse(std::string(400, '9')).has_value());
  CHECK_THROWS_AS(tfjob::Quantity::parse(std::string(400, '9')), tfjob::error);
  CHECK(tfjob::Quantity::parse("0." + std::string(400, '0') + "1").value() >= 0);
  CHECK(tfjob::Quantity::parse("1.5Gi").int_value() == 1610612736LL);
}

TEST_CASE("fuzz finding: durations are Go's, and bad ones are a config_error naming the flag", "[fuzz][duration]") {
  using tfjob::kube::detail::parse_duration;
  using namespace std::chrono_literals;
  // regressions/duration/crash-147e...: ".\0\0" reached std::stod and escaped as std::invalid_argument.
  CHECK_THROWS_AS(parse_duration(std::string(".\0\0" "10u\0\0s", 9), "--timeout"), tfjob::config_error);
  CHECK_THROWS_WITH(parse_duration(".s", "--timeout"), Catch::Contains("--timeout") && Catch::Contains("\".s\""));
  CHECK_THROWS_WITH(parse_duration("99999999999999999999", "--request-timeout"), Catch::Contains("out of range"));
  CHECK_THROWS_WITH(parse_duration("9999999999h", "--timeout"), Catch::Contains("out of range"));
  CHECK_THROWS_WITH(parse_duration("5x", "--since"), Catch::Contains("unknown unit \"x\""));
  CHECK_THROWS_WITH(parse_duration("1.5", "--timeout"), Catch::Contains("missing unit"));
  CHECK_THROWS_AS(parse_duration("-1s", "--timeout"), tfjob::config_error);
  CHECK(parse_duration("0", "x") == 0ms);
  CHECK(parse_duration("30", "x") == 30s);
  CHECK(parse_duration("1h30m", "x") == 90min);
  CHECK(parse_duration("1.5h", "x") == 90min);
  CHECK(parse_duration("500ms", "x") == 500ms);
  CHECK(parse_duration("2h45m30.5s", "x") == 9930500ms);
  CHECK(parse_duration("1500us", "x") == 2ms);  // rounded up to whole milliseconds, never down to 0
  CHECK(parse_duration("1500\xc2\xb5s", "x") == 2ms);  // µs, as Go
  CHECK(parse_duration("2562047h", "x") == 2562047h);  // the largest Go duration's hours
}

TEST_CASE("fuzz finding: a number out of range in TF_CONFIG is a parse_error, not the JSON library's", "[fuzz][tf_config]") {
  // regressions/tf_config/crash-a91b...: "11e308..." escaped as nlohmann out_of_range.406.
  CHECK_THROWS_AS(tfjob::parse_tf_config("11e308"), tfjob::parse_error);
  CHECK_THROWS_WITH(tfjob::parse_tf_config(R"({"task":{"type":"worker","index":1e999}})"),
                    Catch::Contains("TF_CONFIG is not valid JSON") && Catch::Contains("number overflow") && !Catch::Contains("json.exception"));
  CHECK_THROWS_WITH(tfjob::parse_tf_config(R"({"task":{"type":"worker","index":4294967296}})"),
                    Catch::Contains("task.index 4294967296 is out of range"));
  CHECK_THROWS_WITH(tfjob::parse_tf_config(R"({"task":{"type":"worker","index":18446744073709551615}})"),
                    Catch::Contains("out of range"));
  CHECK(tfjob::parse_tf_config(R"({"task":{"type":"worker","index":2147483647}})").task_index == 2147483647);
}

TEST_CASE("fuzz finding: TF Serving and Deployment answers of the wrong shape are clear errors", "[fuzz][serving]") {
  using nlohmann::json;
  // regressions/serving/crash-22d2...: rollout_status(0) escaped as nlohmann type_error.306.
  CHECK_THROWS_WITH(tfjob::serving::rollout_status(json(0)), "the Deployment is a number, expected an object");
  CHECK_THROWS_WITH(tfjob::serving::rollout_status(json::parse(R"({"metadata":{"name":"resnet"},"status":{"replicas":"2"}})")),
                    "deployment \"resnet\": status.replicas is a string, expected an integer");
  CHECK_THROWS_WITH(tfjob::serving::rollout_status(json::parse(R"({"metadata":{"name":"r"},"spec":{"replicas":1e20}})")),
                    Catch::Contains("spec.replicas is a number, expected an integer"));
  CHECK_THROWS_WITH(tfjob::serving::rollout_status(json::parse(R"({"metadata":{"name":"r"},"spec":{"replicas":4294967296}})")),
                    Catch::Contains("spec.replicas 4294967296 is out of range"));
  // a pod is read typed (decoded leniently, as a watch delivers it): a field it reads that came of another type is refused, named
  auto pod = [](const char* text) { return tfjob::detail::decoded<tfjob::k8s::Pod>(json::parse(text)); };
  CHECK_THROWS_WITH(tfjob::serving::pod_problems(pod(R"({"metadata":{"name":"p"},"status":{"containerStatuses":[{"restartCount":3,"lastState":{"terminated":{"exitCode":"1"}}}]}})")),
                    "pod \"p\": lastState.terminated.exitCode is a string, expected an integer");
  CHECK_THROWS_WITH(tfjob::serving::parse_model_status(R"({"model_version_status":[7]})"),
                    Catch::Contains("an entry of model_version_status is a number"));
  CHECK_THROWS_WITH(tfjob::serving::parse_model_status(R"({"model_version_status":[{"version":"1","status":{"error_code":3}}]})"),
                    Catch::Contains("status.error_code is a number, expected a string"));
  // A version that is not a number is never "the highest" (std::stoll threw on it).
  auto m = tfjob::serving::parse_model_status(
      R"({"model_version_status":[{"version":"x","state":"AVAILABLE"},{"version":"2","state":"AVAILABLE"},{"version":"10","state":"AVAILABLE"}]})");
  CHECK(m.available_version() == std::optional<std::string>("10"));
  // predictions: missing, not a list, or more than the images sent (predict -o json indexed past its image list).
  CHECK_THROWS_WITH(tfjob::serving::predictions_of(json::parse(R"({"predictions":{"a":1}})")),
                    Catch::Contains("has no \"predictions\" list"));
  CHECK_THROWS_WITH(tfjob::serving::predictions_of(json::parse(R"({"predictions":[[1],[2]]})"), 1),
                    Catch::Contains("returned 2 predictions for 1 instances"));
  CHECK(tfjob::serving::predictions_of(json::parse(R"({"predictions":[[1],[2]]})"), 2).size() == 2);
  // The good shapes still read as before.
  auto ok = tfjob::serving::rollout_status(json::parse(
      R"({"metadata":{"name":"resnet","generation":2},"spec":{"replicas":1},"status":{"observedGeneration":2,"replicas":1,"updatedReplicas":1,"availableReplicas":1}})"));
  CHECK(ok.done);
  auto probs = tfjob::serving::pod_problems(pod(
      R"({"metadata":{"name":"p"},"status":{"containerStatuses":[{"name":"c","restartCount":3,"ready":false,"state":{"waiting":{"reason":"CrashLoopBackOff","message":"back-off"}},"lastState":{"terminated":{"exitCode":1}}}]}})"));
  REQUIRE(probs.size() == 1);
  CHECK(probs[0].container == "c");
  CHECK(probs[0].message == "back-off");
  CHECK(probs[0].last_exit_code == std::optional<int>(1));
}

TEST_CASE("the stream targets' loopback server really feeds the watcher and the log streamer", "[fuzz]") {
  // Without this, a harness whose bytes never reached the parser would fuzz nothing and pass.
  tfjob::fuzz::LoopbackServer server;
  tfjob::kube::RestConfig cfg;
  cfg.server = server.url();
  cfg.use_env_proxy = false;
  tfjob::kube::Client client(cfg);
  const std::string job = R"({"apiVersion":"kubeflow.org/v1","kind":"TFJob","metadata":{"name":"j","namespace":"default","uid":"u1","resourceVersion":"5"},"spec":{"tfReplicaSpecs":{}}})";
  server.arm("{\"type\":\"ADDED\",\"object\":" + job + "}\n{\"type\":\"MODIFIED\",\"object\":" +
                 std::string(job).replace(job.find("\"5\""), 3, "\"6\"") + "}\n",
             7);
  tfjob::kube::WatchParams p;
  p.resource_version = "1";
  auto w = tfjob::kube::Api<tfjob::TFJob>(client, "default").watcher(p);
  w.max_failures = 0;
  w.max_outage = std::chrono::milliseconds(0);
  std::vector<std::string> seen;
  CHECK_THROWS_AS(w.run([&](const tfjob::kube::WatchEvent<tfjob::TFJob>& ev) {
                    seen.push_back(std::string(to_string(ev.type)) + " " + ev.object.metadata.name);
                    return true;
                  }),
                  tfjob::api_error);  // the second request (the resume) gets the 403
  CHECK(seen == std::vector<std::string>{"ADDED j", "MODIFIED j"});
  CHECK(server.requests() == 2);

  // a plain read (no follow): the kubelet sends no timestamps, the bytes arrive as written
  server.arm("first\nsecond", 3);
  tfjob::kube::LogStreamer s(client, "default", "pod", {});
  s.max_failures = 0;
  std::vector<std::string> lines;
  CHECK(s.run([&](std::string_view l) {
    lines.emplace_back(l);
    return true;
  }));
  CHECK(lines == std::vector<std::string>{"first", "second"});
}

TEST_CASE("fuzz finding: a ',' outside a flow collection is an error, not yaml-cpp's endless loop", "[fuzz][manifest][kubeconfig]") {
  // regressions/kubeconfig/timeout-7666... and regressions/manifest/timeout-9374...: yaml-cpp
  // 0.7 starts an empty document at the same ',' forever (the plugin hung, using no memory).
  for (const char* text : {",", ", a", "\"a\", b"}) {
    INFO(text);
    CHECK_THROWS_WITH(tfjob::parse_tfjobs(text, "job.yaml"),
                      Catch::Contains("job.yaml: line 1") && Catch::Contains("did not find expected node content"));
    CHECK_THROWS_AS(tfjob::kube::parse_kubeconfig(text, "kubeconfig"), tfjob::error);
  }
  // a stream of empty documents is still fine
  CHECK(tfjob::parse_tfjobs("---\n---\n", "empty.yaml").empty());
}

TEST_CASE("fuzz finding: a binary byte in a document's first bytes is refused before the YAML parser is made", "[fuzz][manifest]") {
  // regressions/manifest/leak-a064...: read from a stream, the refusal came while yaml-cpp 0.7's
  // Stream was being constructed, which leaks its 2 KiB buffer (LeakSanitizer)
  const std::string text("a\0\0kind: TFJob\n", 15);
  const std::string said = "fuzz.yaml: not YAML or JSON text (a binary file?): byte 1 (line 1, column 2) is 0x00, a control character";
  std::istringstream in(text);
  tfjob::ManifestReader r(in, "fuzz.yaml");
  CHECK_THROWS_WITH(r.next(), said);
  std::istringstream again(text);
  CHECK_THROWS_WITH(tfjob::ManifestReader(again, "fuzz.yaml").each([](nlohmann::json&&, const tfjob::ObjectPlace&) {}), said);
}

TEST_CASE("fuzz finding: a float beyond an integer's range in a probe report is a parse_error, not a cast", "[fuzz][probe_report]") {
  // regressions/probe_report/crash-9f24...: 2e+93 as an integer count (UBSan: outside the
  // range of representable values of type 'long' in nlohmann's float-to-integer cast).
  CHECK_THROWS_WITH(tfjob::gpu::parse_probe_report(R"({"schema":"kubectl-tfjob/gpu-probe/v1","devices":[{"checks":{"kernel":{"elements":2e93}}}]})"),
                    Catch::Contains("\"elements\" is out of range"));
}

TEST_CASE("fuzz finding: a number beyond a double in a probe report is a parse_error", "[fuzz][probe_report]") {
  // regressions/probe_report/crash-e5d9...: "11.61e308" escaped as nlohmann out_of_range.406.
  CHECK_THROWS_AS(tfjob::gpu::parse_probe_report(R"({"schema":"kubectl-tfjob/gpu-probe/v1","devices":[{"bandwidth":{"gbps":11.61e308}}]})"),
                  tfjob::parse_error);
  CHECK_THROWS_WITH(tfjob::gpu::parse_probe_report(R"({"schema":"kubectl-tfjob/gpu-probe/v1","x":1e999})"),
                    Catch::StartsWith("probe output is not valid JSON: number overflow parsing '1e999'"));
}
