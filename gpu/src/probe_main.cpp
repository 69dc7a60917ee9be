// tfjob-gpu-probe: proves that this machine can train on its NVIDIA GPUs, and measures
// them against their specification. Prints one JSON document (schema in gpu/README.md)
// or, with --human, a summary. Exit 0 ready, 1 not ready, 2 no driver or no GPU, 3 no
// result (the watchdog fired), 64 usage. The verdict rules are the SDK's
// (include/tfjob/gpu/verdict.hpp), shared with gpu-check; the run itself is probe.hpp's,
// here wired to the real CUDA (measure.cu) and NVML (dlopen).
#include "measure.hpp"
#include "probe.hpp"

#include <tfjob/gpu/probe_report.hpp>
#include <tfjob/gpu/verdict.hpp>

#include <dlfcn.h>   // dlopen: libcuda is optional at run time
#include <unistd.h>  // gethostname, _exit

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <mutex>
#include <random>
#include <sstream>
#include <string>

#ifndef TFJOB_PROBE_VERSION
#define TFJOB_PROBE_VERSION "0.0.0"
#endif
#ifndef TFJOB_PROBE_ARCHS
#define TFJOB_PROBE_ARCHS ""
#endif
#ifndef TFJOB_PROBE_CUDA
#define TFJOB_PROBE_CUDA ""
#endif

namespace {

using namespace tfjob::gpu;
using Clock = std::chrono::steady_clock;

const char* usage_text =
    "Usage: tfjob-gpu-probe [--human] [--expect MODEL] [--strict] [--watchdog SECONDS]\n"
    "                       [--render REPORT.json] [--list-models] [--version]\n"
    "\n"
    "Checks every visible NVIDIA GPU: driver and runtime versions, device properties, a\n"
    "verified kernel, memory bandwidth, FP16 tensor-core and FP32 cuBLAS GEMMs, pinned\n"
    "host<->device bandwidth, a real copy between every GPU pair, and NVML's health view (ECC,\n"
    "retired pages / row remapping, PCIe link under load, throttling, NVLink, Xid events),\n"
    "all GPUs at the same time. Prints one JSON document on stdout, progress on stderr.\n"
    "\n"
    "Options:\n"
    "  --human          print a readable summary instead of JSON\n"
    "  --expect MODEL   every GPU must be MODEL (v100, t4, a100, a10, a30, l4, l40s, h100,\n"
    "                   h200) with its compute capability, a supported driver and ECC on\n"
    "  --strict         warnings (PCIe below max, throttling, NVLink down, ...) fail\n"
    "  --watchdog S     give a \"no result\" report after S seconds (default 120)\n"
    "  --render FILE    print a saved JSON report as --human does (no GPU work)\n"
    "  --list-models    print the known-GPU table and exit\n"
    "  --version        print the probe version and exit\n"
    "\n"
    "Exit codes: 0 ready, 1 not ready (failed checks listed), 2 no NVIDIA driver or no\n"
    "GPU, 3 no result within --watchdog, 64 bad usage.\n"
    "Environment: NODE_NAME (reported as probe.nodeName; the probe pod sets it).\n";

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  std::istringstream in(s);
  while (std::getline(in, cur, sep))
    if (!cur.empty()) out.push_back(cur);
  return out;
}

/// "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue Mar 5 ..." -> 550.54.15
std::string procfs_driver_version() {
  std::ifstream f("/proc/driver/nvidia/version");
  std::string line;
  if (!f || !std::getline(f, line)) return {};
  std::istringstream in(line);
  std::string tok;
  while (in >> tok) {
    if (!tok.empty() && std::isdigit(static_cast<unsigned char>(tok[0])) && tok.find('.') != std::string::npos &&
        tok.find_first_not_of("0123456789.") == std::string::npos)
      return tok;
  }
  return {};
}

/// The real device work (measure.cu).
class RealCuda final : public tfjob_probe::CudaApi {
 public:
  tfjob_probe::RuntimeInfo query_runtime() override { return tfjob_probe::query_runtime(); }
  tfjob_probe::DeviceProps query_device(int dev) override { return tfjob_probe::query_device(dev); }
  tfjob_probe::KernelResult kernel_check(int dev, std::uint64_t seed) override { return tfjob_probe::run_kernel_check(dev, seed); }
  tfjob_probe::BandwidthResult bandwidth(int dev, std::uint64_t free_bytes) override {
    return tfjob_probe::run_bandwidth(dev, free_bytes);
  }
  tfjob_probe::GemmResult gemm(int dev, bool fp16, std::uint64_t free_bytes, std::uint64_t seed,
                               const std::function<void()>& busy) override {
    return tfjob_probe::run_gemm(dev, fp16, free_bytes, seed, busy);
  }
  tfjob_probe::TransferResult pinned(int dev) override { return tfjob_probe::run_pinned(dev); }
  std::vector<std::vector<bool>> peer_matrix(int count) override { return tfjob_probe::peer_matrix(count); }
  tfjob_probe::PeerCopyResult peer_copy(int src, int dst, std::uint64_t seed) override {
    return tfjob_probe::run_peer_copy(src, dst, seed);
  }
};

}  // namespace

int main(int argc, char** argv) {
  const auto t0 = Clock::now();
  bool human = false;
  double watchdog = 120;
  std::string render;
  VerdictOptions vopt;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    try {
      if (a == "--human") {
        human = true;
      } else if (a == "--expect" || a.rfind("--expect=", 0) == 0) {
        std::string v;
        if (a == "--expect") {
          if (i + 1 >= argc) throw tfjob::config_error("--expect needs a GPU model, e.g. --expect v100");
          v = argv[++i];
        } else {
          v = a.substr(9);
        }
        vopt.expect = normalize_expect(v);
      } else if (a == "--strict") {
        vopt.strict = true;
      } else if (a == "--watchdog" || a.rfind("--watchdog=", 0) == 0) {
        std::string v = a == "--watchdog" ? (i + 1 < argc ? argv[++i] : "") : a.substr(11);
        char* end = nullptr;
        watchdog = std::strtod(v.c_str(), &end);
        if (v.empty() || !end || *end || !(watchdog >= 1))
          throw tfjob::config_error("--watchdog needs a number of seconds >= 1, e.g. --watchdog 60");
      } else if (a == "--render" || a.rfind("--render=", 0) == 0) {
        render = a == "--render" ? (i + 1 < argc ? argv[++i] : "") : a.substr(9);
        if (render.empty()) throw tfjob::config_error("--render needs a probe JSON file, e.g. --render probe.json");
      } else if (a == "--list-models") {
        std::printf("%-16s %-7s %-4s %9s %12s %11s  %s\n", "MODEL", "EXPECT", "CC", "BW GB/s", "FP16 TFLOPS",
                    "FP32 TFLOPS", "DRIVER");
        for (const auto& s : known_gpus())
          std::printf("%-16s %-7s %d.%d  %9.0f %12.1f %11.1f  >= R%d%s\n", s.key, s.family, s.cc_major, s.cc_minor,
                      s.bandwidth_gbps, s.fp16_tensor_tflops, s.fp32_tflops, s.min_driver_branch,
                      s.max_driver_branch ? (", <= R" + std::to_string(s.max_driver_branch)).c_str() : "");
        return 0;
      } else if (a == "--version") {
        std::printf("tfjob-gpu-probe %s (CUDA %s; %s)\n", TFJOB_PROBE_VERSION, TFJOB_PROBE_CUDA, TFJOB_PROBE_ARCHS);
        return 0;
      } else if (a == "-h" || a == "--help") {
        std::fputs(usage_text, stdout);
        return 0;
      } else {
        throw tfjob::config_error("unknown argument \"" + a + "\"; see --help");
      }
    } catch (const tfjob::error& e) {
      std::fprintf(stderr, "tfjob-gpu-probe: %s\n", tfjob_probe::flag_words(e.what()).c_str());
      return probe_usage;
    }
  }

  if (!render.empty()) {
    std::ifstream f(render);
    if (!f) {
      std::fprintf(stderr, "tfjob-gpu-probe: --render %s: cannot open the file\n", render.c_str());
      return probe_usage;
    }
    std::stringstream ss;
    ss << f.rdbuf();
    try {
      ProbeReport saved = parse_probe_report(ss.str());
      tfjob_probe::print_human(saved, std::cout);
      return saved.exit_code();
    } catch (const tfjob::error& e) {
      std::fprintf(stderr, "tfjob-gpu-probe: --render %s: %s\n", render.c_str(), e.what());
      return probe_usage;
    }
  }
  tfjob_probe::ProbeConfig cfg;
  cfg.verdict = vopt;
  cfg.watchdog_seconds = watchdog;
  cfg.version = TFJOB_PROBE_VERSION;
  cfg.cuda_toolkit = TFJOB_PROBE_CUDA;
  cfg.architectures = split(TFJOB_PROBE_ARCHS, ',');
  char host[256] = {0};
  if (gethostname(host, sizeof host - 1) == 0) cfg.hostname = host;
  if (const char* n = std::getenv("NODE_NAME")) cfg.node_name = n;
  if (const char* v = std::getenv("CUDA_VISIBLE_DEVICES")) cfg.cuda_visible_devices = v;
  // Without libcuda the runtime cannot do anything useful: say so before touching it.
  if (void* cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL)) {
    cfg.libcuda_present = true;
    dlclose(cuda);
  }
  cfg.procfs_driver_version = procfs_driver_version();
  std::random_device rd;
  cfg.seed = (std::uint64_t(rd()) << 32) ^ rd() ^ std::uint64_t(t0.time_since_epoch().count());
  static std::mutex out_mu;  // progress comes from one thread per GPU
  cfg.progress = [](const std::string& line) {
    std::lock_guard<std::mutex> lk(out_mu);
    std::fprintf(stderr, "tfjob-gpu-probe: %s\n", line.c_str());
  };
  ProbeReport r = tfjob_probe::run_probe_with_watchdog(cfg, std::make_shared<RealCuda>(),
                                                       std::make_shared<tfjob_probe::DlNvml>());
  std::lock_guard<std::mutex> lk(out_mu);
  // the last word on stderr comes before the report, never after it
  if (!human && (r.status == "no-gpu" || r.status == "no-result"))
    std::fprintf(stderr, "tfjob-gpu-probe: %s\n", r.message.c_str());
  std::fflush(stderr);
  if (human) {
    tfjob_probe::print_human(r, std::cout);
  } else {
    std::cout << nlohmann::json(r).dump(2) << "\n";
  }
  std::cout.flush();
  // A hung GPU keeps its worker thread (and the CUDA context) alive: leave without
  // waiting for it or running destructors that would touch the driver.
  if (r.status == "no-result") _exit(r.exit_code());
  return r.exit_code();
}
