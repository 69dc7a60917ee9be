// The GPU verdict rules (include/tfjob/gpu/verdict.hpp) and the probe report schema
// (probe_report.hpp), on probe reports in tests/data/gpu/. Every one of them was written
// by hand for these tests (each says so in its "constructed" field): none was measured.
#include <catch2/catch.hpp>

#include "support/paths.hpp"

#include <tfjob/gpu/probe_report.hpp>
#include <tfjob/gpu/verdict.hpp>

#include <algorithm>
#include <set>
#include <fstream>
#include <sstream>

using namespace tfjob::gpu;

namespace {
std::string slurp(const std::string& name) {
  std::ifstream f(tfjob::test::source_dir() + "/tests/data/gpu/" + name);
  REQUIRE(f.good());
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}
ProbeReport load(const std::string& name) { return parse_probe_report(slurp(name)); }

std::vector<std::string> checks_of(const std::vector<Finding>& fs) {
  std::vector<std::string> out;
  for (const auto& f : fs) out.push_back(f.check);
  return out;
}
bool has(const std::vector<Finding>& fs, const std::string& check, int device = -2) {
  return std::any_of(fs.begin(), fs.end(),
                     [&](const Finding& f) { return f.check == check && (device == -2 || f.device == device); });
}
}  // namespace

TEST_CASE("a healthy V100 node is ready, with and without --expect v100", "[gpu]") {
  auto r = load("v100-healthy.json");
  REQUIRE(r.devices.size() == 2);
  CHECK(r.devices[0].name == "Tesla V100-SXM2-16GB");
  CHECK(r.devices[0].compute_capability() == "7.0");
  CHECK(r.driver.branch() == 570);
  CHECK(r.peer_access == std::vector<std::vector<bool>>{{false, true}, {true, false}});

  // The verdict stored in the constructed report is what the rules give.
  auto again = r;
  evaluate(again);
  CHECK(again.status == r.status);
  CHECK(again.status == "ready");
  CHECK(again.exit_code() == 0);
  CHECK(again.failures.empty());
  CHECK(again.warnings.empty());

  evaluate(r, {"v100"});
  CHECK(r.status == "ready");
  CHECK(r.failures.empty());
  CHECK(r.expect == "v100");
  REQUIRE(r.devices[0].bandwidth.percent_of_peak);
  CHECK(*r.devices[0].bandwidth.percent_of_peak == Approx(100 * 812.6 / 898.0));
  REQUIRE(r.devices[0].gemm_fp16.percent_of_peak);
  CHECK(*r.devices[0].gemm_fp16.percent_of_peak == Approx(100 * 97.4 / 125));
}

TEST_CASE("expect rules name the wrong model, compute capability and disabled ECC", "[gpu]") {
  auto r = load("v100-healthy.json");
  evaluate(r, {"h200"});
  CHECK(r.status == "not-ready");
  CHECK(r.exit_code() == 1);
  CHECK(has(r.failures, "model", 0));
  CHECK(has(r.failures, "compute-capability", 1));
  CHECK_THAT(r.message, Catch::Contains("expected a h200 but found Tesla V100-SXM2-16GB"));

  auto e = load("v100-healthy.json");
  e.devices[1].ecc_enabled = false;
  auto plain = e;
  evaluate(plain);  // without --expect, ECC off is a warning only
  CHECK(plain.status == "ready");
  CHECK(has(plain.warnings, "ecc", 1));
  evaluate(e, {"v100"});
  CHECK(e.status == "not-ready");
  CHECK(checks_of(e.failures) == std::vector<std::string>{"ecc"});
  CHECK(e.failures[0].device == 1);
  CHECK_THAT(e.failures[0].message.str(), Catch::Contains("nvidia-smi -e 1"));
}

TEST_CASE("a V100 under a driver newer than R580 is not ready", "[gpu]") {
  auto r = load("v100-driver-too-new.json");
  CHECK(r.driver.branch() == 590);
  auto again = r;
  evaluate(again);
  CHECK(again.status == "not-ready");
  CHECK(again.failures.size() == r.failures.size());
  CHECK(has(again.failures, "driver", 0));
  CHECK_THAT(again.failures[0].message.str(), Catch::Contains("R580") && Catch::Contains("Volta"));

  evaluate(r, {"v100"});
  CHECK(r.status == "not-ready");
  CHECK(std::count_if(r.failures.begin(), r.failures.end(), [](const Finding& f) { return f.check == "driver"; }) == 1);

  // The same V100 under R580 and under R525 passes; under R520 (< R525) it does not.
  for (auto [ver, ok] : {std::pair<const char*, bool>{"580.82.07", true}, {"525.60.13", true}, {"520.61.05", false}}) {
    auto v = load("v100-driver-too-new.json");
    v.driver.version = ver;
    evaluate(v, {"v100"});
    INFO(ver);
    CHECK(v.ready() == ok);
  }
  // The floor is named with the toolkit the probe was built with, or its runtime when the
  // report does not say (a revision-1 report).
  for (const char* tk : {"12.8", ""}) {
    auto v = load("v100-driver-too-new.json");
    v.driver.version = "520.61.05";
    v.probe.cuda_toolkit = tk;
    evaluate(v, {"v100"});
    INFO(tk);
    REQUIRE(has(v.failures, "driver", 0));
    std::string all;
    for (const auto& f : v.failures) all += f.message.str() + "\n";
    CHECK_THAT(all, Catch::Contains("older than R525 (the floor of this CUDA 12.8 probe)"));
  }
  // Too old a driver is only an --expect rule for models with a known floor.
  auto drv = load("v100-healthy.json");
  drv.driver.version.clear();
  evaluate(drv, {"v100"});
  CHECK(has(drv.failures, "driver", -1));
}

TEST_CASE("the Volta driver advice names the floor of the toolkit the probe was built with", "[gpu]") {
  // CUDA 12.8 build: R580 or older, down to R525
  auto r = load("v100-driver-too-new.json");
  r.probe.cuda_toolkit = "12.8";
  evaluate(r);
  REQUIRE(has(r.failures, "driver", 0));
  CHECK_THAT(r.failures[0].message.str(), Catch::Contains(">= R525") && !Catch::Contains("CUDA 13"));
  // a CUDA 13 build has no Volta code at all: the advice is a CUDA 12 build, never ">= R580"
  auto c13 = load("v100-driver-too-new.json");
  c13.probe.cuda_toolkit = "13.0";
  evaluate(c13);
  REQUIRE(has(c13.failures, "driver", 0));
  std::string all;
  for (const auto& f : c13.failures) all += f.message.str() + "\n";
  CHECK_THAT(all, Catch::Contains("CUDA 12.x build of the probe") && !Catch::Contains(">= R580") && !Catch::Contains("R525"));
  // no CUDA device visible under a too-new driver with --expect v100: the same advice
  auto none = load("v100-driver-too-new.json");
  none.probe.cuda_toolkit = "13.0";
  none.devices.clear();
  none.nvml.device_count.reset();
  none.message.clear();
  evaluate(none, {"v100"});
  CHECK(none.status == "no-gpu");
  CHECK_THAT(none.message, Catch::Contains("newer than R580") && Catch::Contains("CUDA 12.x build") && !Catch::Contains("R525"));
  none.probe.cuda_toolkit = "12.8";
  none.message.clear();
  evaluate(none, {"v100"});
  CHECK_THAT(none.message, Catch::Contains(">= R525"));
}

TEST_CASE("a probe built with CUDA 13 cannot run on a V100", "[gpu]") {
  auto r = load("v100-cuda13-image.json");
  CHECK(std::find(r.probe.architectures.begin(), r.probe.architectures.end(), "sm_70") == r.probe.architectures.end());
  evaluate(r);
  CHECK(r.status == "not-ready");
  CHECK(has(r.failures, "kernel", 0));
  CHECK_THAT(r.failures[0].message.str(), Catch::Contains("no kernel image") && Catch::Contains("CUDA 12 probe image"));
  // The GEMMs fail too: their inputs are filled by the probe's own kernels first.
  CHECK(checks_of(r.failures) == std::vector<std::string>{"kernel", "bandwidth", "gemm-fp16", "gemm-fp32"});
}

TEST_CASE("a slow T4 with ECC disabled fails bandwidth and tensor-core GEMM", "[gpu]") {
  auto r = load("t4-slow-ecc-off.json");
  auto recorded = checks_of(r.failures);
  evaluate(r);
  CHECK(checks_of(r.failures) == recorded);
  CHECK(checks_of(r.failures) == std::vector<std::string>{"bandwidth", "gemm-fp16"});
  CHECK_THAT(r.failures[0].message.str(), Catch::Contains("44% of the 320 GB/s peak"));
  CHECK(has(r.warnings, "ecc", 0));
  CHECK(has(r.warnings, "driver", -1));  // CUDA 12.4 driver under a 12.8 runtime
  CHECK(r.exit_code() == 1);

  evaluate(r, {"t4"});
  CHECK(has(r.failures, "ecc", 0));
  CHECK_FALSE(has(r.failures, "model"));

  // Fast enough figures turn it ready (ECC still only a warning without --expect).
  auto fast = load("t4-slow-ecc-off.json");
  fast.devices[0].bandwidth.gbps = 250;
  fast.devices[0].gemm_fp16.tflops = 30;
  fast.devices[0].bandwidth.percent_of_peak.reset();
  fast.devices[0].gemm_fp16.percent_of_peak.reset();
  evaluate(fast);
  CHECK(fast.status == "ready");
  // A wrong GEMM result fails even when fast.
  fast.devices[0].gemm_fp32.verified = false;
  fast.devices[0].gemm_fp32.max_rel_error = 0.5;
  evaluate(fast);
  CHECK(checks_of(fast.failures) == std::vector<std::string>{"gemm-fp32"});
}

TEST_CASE("a healthy H200 node is ready and passes expect h200", "[gpu]") {
  auto r = load("h200-healthy.json");
  REQUIRE(r.devices.size() == 2);
  CHECK(r.devices[0].memory_total_bytes == 150754820096ull);
  evaluate(r, {"h200"});
  CHECK(r.status == "ready");
  CHECK(r.message == "2 GPUs ready");
  CHECK(*r.devices[1].gemm_fp16.percent_of_peak == Approx(100 * 724.4 / 989));
  evaluate(r, {"v100"});
  CHECK(has(r.failures, "model", 0));
  CHECK(has(r.failures, "compute-capability", 0));
}

TEST_CASE("no driver is exit 2 with its message kept", "[gpu]") {
  auto r = load("no-driver.json");
  CHECK(r.status == "no-gpu");
  CHECK_FALSE(r.driver.present);
  evaluate(r, {"v100"});
  CHECK(r.status == "no-gpu");
  CHECK(r.exit_code() == 2);
  CHECK_THAT(r.message, Catch::Contains("no NVIDIA driver"));

  // A driver but no visible device: exit 2, and a hint when a V100 is expected under R590.
  ProbeReport nodev;
  nodev.driver.present = true;
  nodev.driver.version = "590.44.01";
  nodev.driver.cuda_driver_version = 13010;
  nodev.driver.cuda_runtime_version = 12080;
  nodev.driver.compatible = true;
  evaluate(nodev, {"v100"});
  CHECK(nodev.status == "no-gpu");
  CHECK_THAT(nodev.message, Catch::Contains("R590 is newer than R580"));

  // A driver too old for the runtime: not ready (exit 1), not "no GPU".
  ProbeReport old;
  old.driver.present = true;
  old.driver.version = "470.256.02";
  old.driver.cuda_driver_version = 11040;
  old.driver.cuda_runtime_version = 12080;
  old.driver.compatible = false;
  evaluate(old);
  CHECK(old.status == "not-ready");
  CHECK(has(old.failures, "driver", -1));
  CHECK_THAT(old.failures[0].message.str(), Catch::Contains("supports CUDA 11.4 but the probe needs CUDA 12.8"));
}

TEST_CASE("probe reports round-trip and are found inside container logs", "[gpu]") {
  auto r = load("h200-healthy.json");
  nlohmann::json j = r;
  auto back = j.get<ProbeReport>();
  CHECK(nlohmann::json(back) == j);
  CHECK(j["devices"][0]["computeCapability"] == "9.0");
  CHECK(j["devices"][0]["checks"]["gemmFp16"]["TFLOPS"] == Approx(721.4));

  auto logs = "I1130 probe starting\nsome noise\n" + slurp("v100-healthy.json") + "\n";
  CHECK(parse_probe_report(logs).devices.size() == 2);
  // the runtime interleaves the probe's stderr lines into its JSON at pipe writes (seen on
  // the real node: a line between "{" and the rest)
  std::string json = slurp("v100-healthy.json");
  std::string interleaved = "tfjob-gpu-probe: stage 1\n" + json.substr(0, json.find('\n') + 1) +
                            "tfjob-gpu-probe: no NVIDIA driver\n" + json.substr(json.find('\n') + 1) + "\n";
  CHECK(parse_probe_report(interleaved).devices.size() == 2);

  CHECK_THROWS_AS(parse_probe_report(""), tfjob::parse_error);
  CHECK_THROWS_WITH(parse_probe_report("exec format error\n"), Catch::Contains("no probe JSON") && Catch::Contains("exec format error"));
  CHECK_THROWS_WITH(parse_probe_report("{\"schema\": \"kubectl-tfjob/gpu-probe/v1\", \"devices\": [\n"),
                    Catch::Contains("not valid JSON"));
  CHECK_THROWS_WITH(parse_probe_report("{\"schema\": \"other/v9\"}"), Catch::Contains("unsupported schema"));
  CHECK_THROWS_WITH(parse_probe_report("{\"status\": \"ready\"}"), Catch::Contains("unsupported schema"));
  CHECK_THROWS_WITH(parse_probe_report("{\"schema\": \"kubectl-tfjob/gpu-probe/v1\", \"devices\": 3}"),
                    Catch::Contains("wrong type"));
}

TEST_CASE("the known-GPU table recognises CUDA's device names", "[gpu]") {
  struct Case { const char* name; const char* key; };
  for (auto c : {Case{"Tesla V100-SXM2-16GB", "v100-sxm2"}, Case{"Tesla V100-SXM2-32GB", "v100-sxm2"},
                 Case{"Tesla V100-PCIE-16GB", "v100-pcie"}, Case{"Tesla V100S-PCIE-32GB", "v100s-pcie"},
                 Case{"Tesla T4", "t4"}, Case{"NVIDIA A100-SXM4-40GB", "a100-40gb"},
                 Case{"NVIDIA A100-SXM4-80GB", "a100-sxm4-80gb"}, Case{"NVIDIA A100 80GB PCIe", "a100-pcie-80gb"},
                 Case{"NVIDIA A10", "a10"}, Case{"NVIDIA L4", "l4"}, Case{"NVIDIA L40S", "l40s"},
                 Case{"NVIDIA H100 80GB HBM3", "h100-sxm"}, Case{"NVIDIA H100 PCIe", "h100-pcie"},
                 Case{"NVIDIA H100 NVL", "h100-nvl"}, Case{"NVIDIA H200", "h200-sxm"}, Case{"NVIDIA H200 NVL", "h200-nvl"}}) {
    INFO(c.name);
    auto* s = find_spec(c.name);
    REQUIRE(s);
    CHECK(std::string(s->key) == c.key);
  }
  CHECK(find_spec("NVIDIA GeForce RTX 4090") == nullptr);
  CHECK(find_spec("NVIDIA A10G") == nullptr);  // not a token match for "a10"
  CHECK(normalize_expect("V100") == "v100");
  CHECK(normalize_expect("tesla-v100") == "v100");
  CHECK_THROWS_WITH(normalize_expect("p100"), Catch::Contains("known models: v100, t4"));
  CHECK(theoretical_bandwidth_gbps(877, 4096) == Approx(898.048));
  CHECK(theoretical_bandwidth_gbps(0, 4096) == 0);

  // An unknown GPU gets no percentages of peak but still its correctness rules.
  auto r = load("v100-healthy.json");
  for (auto& d : r.devices) {
    d.name = "NVIDIA GeForce RTX 4090";
    d.spec.clear();
    d.gemm_fp16.peak_tflops = 0;
    d.gemm_fp16.percent_of_peak.reset();
  }
  evaluate(r);
  CHECK(r.status == "ready");
  CHECK_FALSE(r.devices[0].gemm_fp16.percent_of_peak);
  CHECK(r.devices[0].spec.empty());
}

TEST_CASE("every report under tests/data/gpu says it was constructed, and no two GPUs share a UUID", "[gpu]") {
  std::set<std::string> uuids;
  for (const char* f : {"v100-healthy.json", "v100-driver-too-new.json", "v100-cuda13-image.json", "t4-slow-ecc-off.json",
                        "h200-healthy.json", "no-driver.json", "v100-rev2-health.json"}) {
    INFO(f);
    auto j = nlohmann::json::parse(slurp(f));
    CHECK_THAT(j.value("constructed", ""), Catch::StartsWith("written by hand for tests, not measured on a GPU"));
    for (const auto& d : j["devices"]) CHECK(uuids.insert(d["uuid"].get<std::string>()).second);
  }
}

TEST_CASE("revision 2: NVML health rules on a constructed report, revision 1 still reads", "[gpu]") {
  auto old = load("v100-healthy.json");
  CHECK(old.revision == 1);
  CHECK_FALSE(old.devices[0].health.has_value());
  evaluate(old);
  CHECK(old.status == "ready");

  auto r = load("v100-rev2-health.json");
  CHECK(r.revision == 2);
  REQUIRE(r.devices[0].health);
  evaluate(r);
  INFO(nlohmann::json(r.failures).dump(2) << nlohmann::json(r.warnings).dump(2));
  CHECK(r.status == "not-ready");
  // NVIDIA's rules: a DBE since the driver loaded, a pending retirement, a critical Xid
  CHECK(has(r.failures, "ecc-dbe", 0));
  CHECK(has(r.failures, "retired-pages", 0));
  CHECK(has(r.failures, "xid", 0));
  CHECK_FALSE(has(r.failures, "ecc-dbe", 1));
  // warnings: PCIe x8 of x16 under load, two NVLink links down (not throttling: SW power cap only)
  CHECK(has(r.warnings, "pcie", 1));
  CHECK(has(r.warnings, "nvlink", 1));
  CHECK_FALSE(has(r.warnings, "throttle"));
  auto nv = std::find_if(r.warnings.begin(), r.warnings.end(), [](const Finding& f) { return f.check == "nvlink"; });
  CHECK_THAT(nv->message.str(), Catch::Contains("2 of 6 NVLink links down (4,5)"));

  // gpu1 alone would be ready with warnings; --strict makes it not ready
  auto g1 = load("v100-rev2-health.json");
  g1.devices.erase(g1.devices.begin());
  g1.devices[0].index = 0;
  g1.xid_events.clear();
  g1.peers.clear();
  g1.nvml.device_count = 1;
  evaluate(g1);
  CHECK(g1.status == "ready");
  CHECK(g1.warnings.size() == 2);
  CHECK_THAT(g1.message, Catch::Contains("1 GPU ready, 2 warnings"));
  evaluate(g1, {"", true});
  CHECK(g1.status == "not-ready");
  CHECK(g1.strict);
  CHECK(has(g1.failures, "pcie", 0));
  CHECK_THAT(g1.failures[0].message.str(), Catch::EndsWith("(VerdictOptions::strict)"));

  // a copy verified false, GEMM bits that differ: not ready
  auto bad = load("v100-healthy.json");
  bad.devices[0].bandwidth.verified = false;
  bad.devices[1].gemm_fp32.bit_exact = false;
  evaluate(bad);
  CHECK(has(bad.failures, "bandwidth", 0));
  CHECK(has(bad.failures, "gemm-fp32", 1));
}

TEST_CASE("bandwidth bars per memory type, the toolkit's driver floor, MIG slices", "[gpu]") {
  const GpuSpec* t4 = spec_by_key("t4");
  const GpuSpec* v100 = spec_by_key("v100-sxm2");
  REQUIRE(t4);
  REQUIRE(v100);
  CHECK(t4->gddr());
  CHECK_FALSE(v100->gddr());
  CHECK(min_bandwidth_fraction_for(t4, true) == Approx(0.60));
  CHECK(min_bandwidth_fraction_for(t4, false) == Approx(0.70));
  CHECK(min_bandwidth_fraction_for(v100, true) == Approx(0.70));
  // a T4 at 65% of peak with ECC on passes (GDDR6 gives bandwidth to ECC), with ECC off fails
  auto t = load("t4-slow-ecc-off.json");
  t.devices[0].bandwidth.gbps = 0.65 * t.devices[0].bandwidth.peak_gbps;
  t.devices[0].gemm_fp16.tflops = 30;
  evaluate(t);
  CHECK(has(t.failures, "bandwidth", 0));
  t.devices[0].ecc_enabled = true;
  evaluate(t);
  CHECK_FALSE(has(t.failures, "bandwidth"));

  CHECK(driver_floor_for_toolkit("12.8") == 525);
  CHECK(driver_floor_for_toolkit("13.0") == 580);
  CHECK(driver_floor_for_toolkit("11.8") == 450);
  CHECK(driver_floor_for_toolkit("14444444444.0") == 580);  // fuzz: a long major must not overflow int
  ProbeReport old;
  old.probe.cuda_toolkit = "13.0";
  old.driver.present = true;
  old.driver.cuda_driver_version = 12080;
  old.driver.cuda_runtime_version = 13000;
  old.driver.compatible = false;
  evaluate(old);
  CHECK_THAT(old.failures[0].message.str(), Catch::Contains("driver R580 or newer for a CUDA 13.0 build"));

  // a MIG slice of an H200 at a fraction of the full card's figures is not judged on them
  auto mig = load("h200-healthy.json");
  mig.devices.resize(1);
  mig.devices[0].name = "NVIDIA H200 MIG 1g.18gb";
  mig.devices[0].bandwidth.gbps = 600;
  mig.devices[0].gemm_fp16.tflops = 100;
  evaluate(mig);
  CHECK(mig.status == "ready");
  CHECK(mig.devices[0].mig);
  CHECK_FALSE(mig.devices[0].bandwidth.percent_of_peak.has_value());
}

TEST_CASE("a runtime that cannot start is not ready, not no GPU, the watchdog's report stays no-result", "[gpu]") {
  ProbeReport r;
  r.driver.present = true;
  r.driver.version = "580.95.05";
  r.driver.runtime_error = "cudaErrorSystemDriverMismatch";
  r.driver.runtime_error_message = "system has unsupported display driver / cuda driver combination";
  evaluate(r);
  CHECK(r.status == "not-ready");
  CHECK(r.exit_code() == 1);
  REQUIRE(r.failures.size() == 1);
  CHECK(r.failures[0].check == "runtime");
  CHECK_THAT(r.message, Catch::Contains("reboot the node or reinstall the driver"));

  ProbeReport w;
  w.status = "no-result";
  w.message = "no result: the probe did not finish within 60 s (gpu0 in gemm-fp16)";
  evaluate(w, {"v100"});
  CHECK(w.status == "no-result");
  CHECK(w.exit_code() == probe_no_result);

  // NVML sees more GPUs than CUDA
  auto h = load("h200-healthy.json");
  h.nvml.device_count = 3;
  evaluate(h);
  CHECK(has(h.failures, "device-count", -1));
  CHECK(critical_xid(79));
  CHECK(critical_xid(48));
  CHECK_FALSE(critical_xid(13));
}
