// tfjob-gpu-probe: proves that this machine can train on its NVIDIA GPUs, and measures
// them against their specification. Prints one JSON document (schema in gpu/README.md)
// or, with --human, a summary. Exit 0 ready, 1 not ready, 2 no driver or no GPU, 64 usage.
// The verdict rules are the SDK's (include/tfjob/gpu/verdict.hpp), shared with gpu-check.
#include "measure.hpp"

#include <tfjob/gpu/probe_report.hpp>
#include <tfjob/gpu/verdict.hpp>

#include <dlfcn.h>   // dlopen: libcuda and NVML are optional at run time
#include <unistd.h>  // gethostname

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
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
    "Usage: tfjob-gpu-probe [--human] [--expect MODEL] [--list-models] [--version]\n"
    "\n"
    "Checks every visible NVIDIA GPU: driver and runtime versions, device properties, a\n"
    "verified kernel, memory bandwidth, FP16 tensor-core and FP32 cuBLAS GEMMs, pinned\n"
    "host<->device bandwidth and peer access. Prints one JSON document on stdout.\n"
    "\n"
    "Options:\n"
    "  --human          print a readable summary instead of JSON\n"
    "  --expect MODEL   every GPU must be MODEL (v100, t4, a100, a10, a30, l4, l40s, h100,\n"
    "                   h200) with its compute capability, a supported driver and ECC on\n"
    "  --list-models    print the known-GPU table and exit\n"
    "  --version        print the probe version and exit\n"
    "\n"
    "Exit codes: 0 ready, 1 not ready (failed checks listed), 2 no NVIDIA driver or no\n"
    "GPU, 64 bad usage.\n"
    "Environment: NODE_NAME (reported as probe.nodeName; the probe pod sets it).\n";

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  std::istringstream in(s);
  while (std::getline(in, cur, sep))
    if (!cur.empty()) out.push_back(cur);
  return out;
}

// ---- NVML through dlopen: the driver's library, absent on machines without a driver ----
struct Nvml {
  using nvmlDevice_t = void*;
  void* lib = nullptr;
  int (*init)() = nullptr;
  int (*shutdown)() = nullptr;
  int (*driver_version)(char*, unsigned) = nullptr;
  int (*by_bus_id)(const char*, nvmlDevice_t*) = nullptr;
  int (*ecc_mode)(nvmlDevice_t, int*, int*) = nullptr;
  bool ok = false;

  Nvml() {
    lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) return;
    init = reinterpret_cast<int (*)()>(dlsym(lib, "nvmlInit_v2"));
    shutdown = reinterpret_cast<int (*)()>(dlsym(lib, "nvmlShutdown"));
    driver_version = reinterpret_cast<int (*)(char*, unsigned)>(dlsym(lib, "nvmlSystemGetDriverVersion"));
    by_bus_id = reinterpret_cast<int (*)(const char*, nvmlDevice_t*)>(dlsym(lib, "nvmlDeviceGetHandleByPciBusId_v2"));
    ecc_mode = reinterpret_cast<int (*)(nvmlDevice_t, int*, int*)>(dlsym(lib, "nvmlDeviceGetEccMode"));
    ok = init && shutdown && init() == 0;
  }
  ~Nvml() {
    if (ok) shutdown();
    if (lib) dlclose(lib);
  }
  std::string version() {
    char buf[96] = {0};
    if (ok && driver_version && driver_version(buf, sizeof buf) == 0) return buf;
    return {};
  }
  /// 1 enabled, 0 disabled, -1 not supported, -2 unknown.
  int ecc(const std::string& bus_id) {
    if (!ok || !by_bus_id || !ecc_mode || bus_id.empty()) return -2;
    nvmlDevice_t d = nullptr;
    if (by_bus_id(bus_id.c_str(), &d) != 0) return -2;
    int current = 0, pending = 0;
    int rc = ecc_mode(d, &current, &pending);
    if (rc == 3 /* NVML_ERROR_NOT_SUPPORTED */) return -1;
    return rc == 0 ? current : -2;
  }
};

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

std::string cuda_version_text(int v) {
  return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
}

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

std::string gib(std::uint64_t b) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f GiB", double(b) / (1ull << 30));
  return buf;
}

std::string pct(const std::optional<double>& p) {
  if (!p) return "";
  char buf[32];
  std::snprintf(buf, sizeof buf, " (%.0f%% of peak)", *p);
  return buf;
}

void print_human(const ProbeReport& r, std::ostream& out) {
  char buf[512];
  out << "tfjob-gpu-probe " << r.probe.version << " (CUDA " << r.probe.cuda_toolkit << ")";
  if (!r.probe.node_name.empty()) out << " on node " << r.probe.node_name;
  else if (!r.probe.hostname.empty()) out << " on " << r.probe.hostname;
  out << "\n";
  if (r.driver.present) {
    out << "driver " << (r.driver.version.empty() ? "(version unknown)" : r.driver.version) << " supports CUDA "
        << cuda_version_text(r.driver.cuda_driver_version) << "; runtime CUDA "
        << cuda_version_text(r.driver.cuda_runtime_version) << (r.driver.compatible ? ": compatible" : ": NOT compatible")
        << "\n";
  }
  for (const auto& d : r.devices) {
    std::string ecc = d.ecc_enabled ? (*d.ecc_enabled ? "ECC on" : "ECC off") : "ECC n/a";
    std::snprintf(buf, sizeof buf, "gpu%d  %s  %s  cc %s  %d SMs  %s (%s free)  %s  %d/%d MHz\n", d.index,
                  d.name.c_str(), d.pci_bus_id.c_str(), d.compute_capability().c_str(), d.multiprocessors,
                  gib(d.memory_total_bytes).c_str(), gib(d.memory_free_bytes).c_str(), ecc.c_str(), d.clock_mhz,
                  d.memory_clock_mhz);
    out << buf;
    if (!d.error.empty()) {
      out << "      error       " << d.error << "\n";
      continue;
    }
    if (d.kernel.error.empty())
      std::snprintf(buf, sizeof buf, "      kernel      %s (%lld values checked, %lld wrong)\n",
                    d.kernel.ok ? "ok" : "WRONG", (long long)d.kernel.elements, (long long)d.kernel.mismatches);
    else
      std::snprintf(buf, sizeof buf, "      kernel      %s\n", d.kernel.error.c_str());
    out << buf;
    if (d.bandwidth.ran)
      std::snprintf(buf, sizeof buf, "      bandwidth   %.0f GB/s%s, peak %.0f GB/s (%s)\n", d.bandwidth.gbps,
                    pct(d.bandwidth.percent_of_peak).c_str(), d.bandwidth.peak_gbps, d.bandwidth.peak_source.c_str());
    else
      std::snprintf(buf, sizeof buf, "      bandwidth   %s\n", d.bandwidth.error.c_str());
    out << buf;
    for (auto [label, g] : {std::pair<const char*, const GemmCheck*>{"fp16 gemm", &d.gemm_fp16}, {"fp32 gemm", &d.gemm_fp32}}) {
      if (g->ran)
        std::snprintf(buf, sizeof buf, "      %s   %.1f TFLOP/s%s, n=%d, %s\n", label, g->tflops,
                      pct(g->percent_of_peak).c_str(), g->n, g->verified ? "verified" : "WRONG RESULTS");
      else
        std::snprintf(buf, sizeof buf, "      %s   %s\n", label, g->error.c_str());
      out << buf;
    }
    if (d.pinned.ran)
      std::snprintf(buf, sizeof buf, "      pinned      H2D %.1f GB/s, D2H %.1f GB/s\n", d.pinned.h2d_gbps, d.pinned.d2h_gbps);
    else
      std::snprintf(buf, sizeof buf, "      pinned      %s\n", d.pinned.error.c_str());
    out << buf << "      time        " << std::to_string(d.elapsed_seconds).substr(0, 4) << " s\n";
  }
  if (r.peer_access.size() > 1) {
    out << "peer access (row can access column):\n      ";
    for (size_t j = 0; j < r.peer_access.size(); ++j) out << " gpu" << j;
    out << "\n";
    for (size_t i = 0; i < r.peer_access.size(); ++i) {
      out << "  gpu" << i;
      for (size_t j = 0; j < r.peer_access.size(); ++j) out << (i == j ? "    -" : r.peer_access[i][j] ? "  yes" : "   no");
      out << "\n";
    }
  }
  for (const auto& w : r.warnings) out << "warning: " << w.to_string() << "\n";
  for (const auto& f : r.failures) out << "FAILED: " << f.to_string() << "\n";
  const char* word = r.status == "ready" ? "READY" : r.status == "no-gpu" ? "NO GPU" : "NOT READY";
  out << word << ": " << r.message;
  if (!r.expect.empty()) out << " (expected " << r.expect << ")";
  std::snprintf(buf, sizeof buf, " [%.1f s]\n", r.probe.elapsed_seconds);
  out << buf;
}

}  // namespace

int main(int argc, char** argv) {
  const auto t0 = Clock::now();
  bool human = false;
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
      std::fprintf(stderr, "tfjob-gpu-probe: %s\n", e.what());
      return probe_usage;
    }
  }

  ProbeReport r;
  r.probe.version = TFJOB_PROBE_VERSION;
  r.probe.cuda_toolkit = TFJOB_PROBE_CUDA;
  r.probe.architectures = split(TFJOB_PROBE_ARCHS, ',');
  char host[256] = {0};
  if (gethostname(host, sizeof host - 1) == 0) r.probe.hostname = host;
  if (const char* n = std::getenv("NODE_NAME")) r.probe.node_name = n;

  // Without libcuda the runtime cannot do anything useful: say so before touching it.
  if (void* cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL)) {
    r.driver.present = true;
    dlclose(cuda);
  }
  Nvml nvml;
  r.driver.version = nvml.version();
  r.driver.version_source = r.driver.version.empty() ? "" : "nvml";
  if (r.driver.version.empty()) {
    r.driver.version = procfs_driver_version();
    if (!r.driver.version.empty()) r.driver.version_source = "procfs";
  }

  // The static runtime copes without libcuda (cudaErrorInsufficientDriver), so ask it in
  // every case: the report then carries the runtime version and its own error.
  auto rt = tfjob_probe::query_runtime();
  r.driver.cuda_driver_version = rt.driver_version;
  r.driver.cuda_runtime_version = rt.runtime_version;
  if (!r.driver.present) {
    r.message = "no NVIDIA driver: libcuda.so.1 could not be loaded (" +
                (rt.error_name.empty() ? std::string("no error from the runtime") : rt.error_name) +
                "); is this a GPU node, and does the container run with the NVIDIA runtime?";
  }
  if (r.driver.present) {
    if (rt.stub_library) {
      r.driver.present = false;
      r.message = "no NVIDIA driver: libcuda.so.1 is the CUDA toolkit's stub library, not a driver "
                  "(install the NVIDIA driver, or run the probe with the NVIDIA container runtime)";
    } else if (rt.insufficient_driver) {
      r.driver.compatible = false;
    } else {
      // A newer runtime runs on an older driver of the same major version (minor-version
      // compatibility); the runtime said whether it can work at all.
      r.driver.compatible = rt.driver_version / 1000 >= rt.runtime_version / 1000;
      if (rt.error_code != 0 && !rt.no_device)
        r.message = "the CUDA runtime could not start: " + rt.error_name + ": " + rt.error_message;
    }
    std::random_device rd;
    const std::uint64_t seed = (std::uint64_t(rd()) << 32) ^ rd() ^ std::uint64_t(t0.time_since_epoch().count());
    for (int i = 0; i < rt.device_count; ++i) {
      const auto td = Clock::now();
      DeviceReport d;
      d.index = i;
      auto p = tfjob_probe::query_device(i);
      d.name = p.name;
      d.uuid = p.uuid;
      d.pci_bus_id = p.pci_bus_id;
      d.cc_major = p.cc_major;
      d.cc_minor = p.cc_minor;
      d.multiprocessors = p.multiprocessors;
      d.memory_total_bytes = p.memory_total;
      d.memory_free_bytes = p.memory_free;
      d.clock_mhz = p.clock_khz / 1000;
      d.memory_clock_mhz = p.memory_clock_khz / 1000;
      d.memory_bus_width_bits = p.bus_width_bits;
      const GpuSpec* spec = find_spec(d.name);
      d.spec = spec ? spec->key : "";
      int ecc = nvml.ecc(d.pci_bus_id);
      if (ecc >= 0) {
        d.ecc_supported = true;
        d.ecc_enabled = ecc == 1;
      } else if (ecc == -1) {
        d.ecc_supported = false;
      } else if (p.ecc_enabled) {  // no NVML: the runtime only says "on"
        d.ecc_supported = true;
        d.ecc_enabled = true;
      } else if (spec && spec->ecc_capable) {  // an ECC-capable model reporting "off"
        d.ecc_supported = true;
        d.ecc_enabled = false;
      }
      d.error = p.error;
      if (d.error.empty()) {
        d.kernel = [&] {
          auto k = tfjob_probe::run_kernel_check(i, seed + std::uint64_t(i));
          KernelCheck c;
          c.ran = k.ran; c.ok = k.ok; c.elements = k.elements; c.mismatches = k.mismatches;
          c.max_abs_error = k.max_abs_error; c.error = k.error;
          return c;
        }();
        auto bw = tfjob_probe::run_bandwidth(i, d.memory_free_bytes);
        d.bandwidth.ran = bw.ran; d.bandwidth.gbps = bw.gbps; d.bandwidth.bytes = bw.bytes;
        d.bandwidth.runs = bw.runs; d.bandwidth.method = bw.method; d.bandwidth.error = bw.error;
        for (auto [fp16, g] : {std::pair<bool, GemmCheck*>{true, &d.gemm_fp16}, {false, &d.gemm_fp32}}) {
          auto m = tfjob_probe::run_gemm(i, fp16, d.memory_free_bytes, seed * 31 + std::uint64_t(i) + (fp16 ? 7 : 11));
          g->ran = m.ran; g->verified = m.verified; g->n = m.n; g->runs = m.runs; g->tflops = m.tflops;
          g->max_rel_error = m.max_rel_error; g->error = m.error;
        }
        auto t = tfjob_probe::run_pinned(i);
        d.pinned.ran = t.ran; d.pinned.h2d_gbps = t.h2d_gbps; d.pinned.d2h_gbps = t.d2h_gbps;
        d.pinned.bytes = t.bytes; d.pinned.error = t.error;
      }
      d.elapsed_seconds = seconds_since(td);
      r.devices.push_back(std::move(d));
    }
    if (rt.device_count > 1) r.peer_access = tfjob_probe::peer_matrix(rt.device_count);
  }

  evaluate(r, vopt);
  r.probe.elapsed_seconds = seconds_since(t0);
  if (human) {
    print_human(r, std::cout);
  } else {
    std::cout << nlohmann::json(r).dump(2) << "\n";
  }
  std::cout.flush();
  if (!human && r.status == "no-gpu") std::fprintf(stderr, "tfjob-gpu-probe: %s\n", r.message.c_str());
  return r.exit_code();
}
