#pragma once
// The probe's host side as a library: `CudaApi` puts the device work (measure.hpp) behind
// an interface as `NvmlApi` does NVML, so that `run_probe` — which GPUs, in which order,
// what NVML adds, how a report is assembled and judged — and its watchdog are tested
// without a GPU (tests/gpu_probe_host_test.cpp plays drivers and GPUs). probe_main.cpp
// wires the real implementations. Host C++ only, no CUDA headers.
#include "measure.hpp"
#include "nvml.hpp"

#include <tfjob/gpu/probe_report.hpp>
#include <tfjob/gpu/verdict.hpp>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <ostream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace tfjob_probe {

/// The device work the probe asks of CUDA.
class CudaApi {
 public:
  virtual ~CudaApi() = default;
  virtual RuntimeInfo query_runtime() = 0;
  virtual DeviceProps query_device(int dev) = 0;
  virtual KernelResult kernel_check(int dev, std::uint64_t seed) = 0;
  virtual BandwidthResult bandwidth(int dev, std::uint64_t free_bytes) = 0;
  virtual GemmResult gemm(int dev, bool fp16, std::uint64_t free_bytes, std::uint64_t seed,
                          const std::function<void()>& while_busy) = 0;
  virtual TransferResult pinned(int dev) = 0;
  virtual std::vector<std::vector<bool>> peer_matrix(int count) = 0;
  virtual PeerCopyResult peer_copy(int src, int dst, std::uint64_t seed) = 0;
};

/// What the probe knows before it touches a GPU.
struct ProbeConfig {
  tfjob::gpu::VerdictOptions verdict;
  std::string version, cuda_toolkit;
  std::vector<std::string> architectures;
  std::string hostname, node_name;
  std::string cuda_visible_devices;  ///< $CUDA_VISIBLE_DEVICES
  bool libcuda_present = false;      ///< dlopen("libcuda.so.1") succeeded
  std::string procfs_driver_version; ///< from /proc/driver/nvidia/version when NVML has none
  std::uint64_t seed = 1;
  double watchdog_seconds = 120;     ///< a run that takes longer gives a "no-result" report
  /// One line per stage ("gpu0: gemm-fp16") for the container log; may be empty.
  std::function<void(const std::string&)> progress;
};

/// Where each device's work is, for the watchdog's message.
class Stages {
 public:
  void set(int dev, const std::string& stage) {
    std::lock_guard<std::mutex> lk(mu_);
    stage_[dev] = stage;
  }
  std::string describe() const {
    std::lock_guard<std::mutex> lk(mu_);
    std::string s;
    for (const auto& [dev, st] : stage_)
      if (st != "done") s += (s.empty() ? "" : ", ") + (dev < 0 ? std::string("node") : "gpu" + std::to_string(dev)) + " in " + st;
    return s;
  }

 private:
  mutable std::mutex mu_;
  std::map<int, std::string> stage_;
};

namespace detail {
inline std::string cuda_version_text(int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); }
}  // namespace detail

/// The part of the report known before any device work: probe, driver, runtime, NVML.
inline tfjob::gpu::ProbeReport report_header(const ProbeConfig& cfg, const RuntimeInfo& rt, NvmlApi& nvml) {
  using namespace tfjob::gpu;
  ProbeReport r;
  r.probe.version = cfg.version;
  r.probe.cuda_toolkit = cfg.cuda_toolkit;
  r.probe.architectures = cfg.architectures;
  r.probe.hostname = cfg.hostname;
  r.probe.node_name = cfg.node_name;
  r.cuda_visible_devices = cfg.cuda_visible_devices;
  r.driver.present = cfg.libcuda_present;
  r.nvml.loaded = nvml.loaded();
  r.nvml.error = nvml.load_error();
  if (nvml.loaded()) {
    std::string v;
    if (nvml.driver_version(v) == nvml_success && !v.empty()) {
      r.driver.version = v;
      r.driver.version_source = "nvml";
    }
    unsigned n = 0;
    if (nvml.device_count(n) == nvml_success) r.nvml.device_count = int(n);
  }
  if (r.driver.version.empty() && !cfg.procfs_driver_version.empty()) {
    r.driver.version = cfg.procfs_driver_version;
    r.driver.version_source = "procfs";
  }
  r.driver.cuda_driver_version = rt.driver_version;
  r.driver.cuda_runtime_version = rt.runtime_version;
  if (!r.driver.present) {
    r.message = "no NVIDIA driver: libcuda.so.1 could not be loaded (" +
                (rt.error_name.empty() ? std::string("no error from the runtime") : rt.error_name) +
                "); is this a GPU node, and does the container run with the NVIDIA runtime?";
    return r;
  }
  if (rt.stub_library) {
    r.driver.present = false;
    r.message = "no NVIDIA driver: libcuda.so.1 is the CUDA toolkit's stub library, not a driver "
                "(install the NVIDIA driver, or run the probe with the NVIDIA container runtime)";
    return r;
  }
  if (rt.insufficient_driver) {
    r.driver.compatible = false;
    return r;
  }
  // A newer runtime runs on an older driver of the same major version (minor-version
  // compatibility); the runtime said whether it can work at all.
  r.driver.compatible = rt.driver_version / 1000 >= rt.runtime_version / 1000;
  if (rt.error_code != 0 && !rt.no_device) {
    // e.g. cudaErrorSystemDriverMismatch: a driver is there but the runtime cannot start.
    r.driver.runtime_error = rt.error_name;
    r.driver.runtime_error_message = rt.error_message;
  }
  return r;
}

/// Everything about one device: properties, NVML health, kernel, bandwidth, GEMMs (NVML
/// sampled while they run), pinned copies.
inline tfjob::gpu::DeviceReport probe_device(int i, CudaApi& cuda, NvmlApi& nvml, std::uint64_t seed, Stages& stages,
                                             const std::function<void(const std::string&)>& progress) {
  using namespace tfjob::gpu;
  using Clock = std::chrono::steady_clock;
  const auto td = Clock::now();
  auto stage = [&](const std::string& s) {
    stages.set(i, s);
    if (progress && s != "done") progress("gpu" + std::to_string(i) + ": " + s);
  };
  DeviceReport d;
  d.index = i;
  stage("properties");
  auto p = cuda.query_device(i);
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
  d.error = p.error;
  DeviceHealth h = read_health(nvml, d.pci_bus_id);
  unsigned ecc_cur = 0, ecc_pend = 0;
  NvmlApi::Device nd = nullptr;
  int ecc_rc = -1;
  if (h.read && nvml.handle_by_pci_bus_id(d.pci_bus_id, nd) == nvml_success) ecc_rc = nvml.ecc_mode(nd, ecc_cur, ecc_pend);
  if (ecc_rc == nvml_success) {
    d.ecc_supported = true;
    d.ecc_enabled = ecc_cur == 1;
  } else if (ecc_rc == nvml_error_not_supported) {
    d.ecc_supported = false;
  } else if (p.ecc_enabled) {  // no NVML: the runtime only says "on"
    d.ecc_supported = true;
    d.ecc_enabled = true;
  } else if (spec && spec->ecc_capable) {  // an ECC-capable model reporting "off"
    d.ecc_supported = true;
    d.ecc_enabled = false;
  }
  d.mig = d.name.find("MIG") != std::string::npos || h.mig_enabled.value_or(false);
  if (d.error.empty()) {
    stage("kernel");
    auto k = cuda.kernel_check(i, seed + std::uint64_t(i));
    d.kernel.ran = k.ran; d.kernel.ok = k.ok; d.kernel.elements = k.elements; d.kernel.mismatches = k.mismatches;
    d.kernel.max_abs_error = k.max_abs_error; d.kernel.error = k.error;
    stage("bandwidth");
    auto bw = cuda.bandwidth(i, d.memory_free_bytes);
    d.bandwidth.ran = bw.ran; d.bandwidth.gbps = bw.gbps; d.bandwidth.bytes = bw.bytes;
    d.bandwidth.runs = bw.runs; d.bandwidth.method = bw.method; d.bandwidth.error = bw.error;
    d.bandwidth.launches = bw.launches; d.bandwidth.warmup_ms = bw.warmup_ms;
    if (bw.ran) d.bandwidth.verified = bw.verified;
    std::uint64_t throttle = 0;
    for (auto [fp16, g] : {std::pair<bool, GemmCheck*>{true, &d.gemm_fp16}, {false, &d.gemm_fp32}}) {
      stage(fp16 ? "gemm-fp16" : "gemm-fp32");
      // Throttle reasons and the PCIe link are sampled during the tensor-core GEMM, the
      // hottest work the probe does.
      std::function<void()> busy;
      if (fp16) busy = [&] { sample_busy(nvml, d.pci_bus_id, h, throttle); };
      auto m = cuda.gemm(i, fp16, d.memory_free_bytes, seed * 31 + std::uint64_t(i) + (fp16 ? 7 : 11), busy);
      g->ran = m.ran; g->verified = m.verified; g->n = m.n; g->runs = m.runs; g->tflops = m.tflops;
      g->max_rel_error = m.max_rel_error; g->error = m.error;
      g->launches = m.launches; g->warmup_ms = m.warmup_ms;
      if (m.ran) g->bit_exact = m.bit_exact;
    }
    stage("pinned");
    auto t = cuda.pinned(i);
    d.pinned.ran = t.ran; d.pinned.h2d_gbps = t.h2d_gbps; d.pinned.d2h_gbps = t.d2h_gbps;
    d.pinned.bytes = t.bytes; d.pinned.error = t.error;
  }
  if (h.read || !h.error.empty()) d.health = std::move(h);
  d.elapsed_seconds = std::chrono::duration<double>(Clock::now() - td).count();
  stage("done");
  return d;
}

/// The whole probe: header, every device at the same time (one thread each), Xid events
/// for the whole run, every GPU pair copied, then the verdict. Never throws for GPU trouble.
inline tfjob::gpu::ProbeReport run_probe(const ProbeConfig& cfg, CudaApi& cuda, NvmlApi& nvml, Stages& stages) {
  using namespace tfjob::gpu;
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  stages.set(-1, "runtime start");
  auto rt = cuda.query_runtime();
  ProbeReport r = report_header(cfg, rt, nvml);
  if (r.driver.present && r.driver.compatible && r.driver.runtime_error.empty() && rt.device_count > 0) {
    // Bus ids first (cheap), so the Xid watch covers the measurements.
    std::vector<std::pair<int, std::string>> ids;
    for (int i = 0; i < rt.device_count; ++i) ids.push_back({i, cuda.query_device(i).pci_bus_id});
    XidWatcher xids(nvml, ids, t0);
    r.nvml.events = xids.watching();
    r.nvml.events_error = xids.error();
    stages.set(-1, "devices");
    std::vector<DeviceReport> devs(static_cast<std::size_t>(rt.device_count));
    std::vector<std::thread> threads;
    for (int i = 0; i < rt.device_count; ++i)
      threads.emplace_back([&, i] { devs[std::size_t(i)] = probe_device(i, cuda, nvml, cfg.seed, stages, cfg.progress); });
    for (auto& t : threads) t.join();
    r.devices = std::move(devs);
    if (rt.device_count > 1) {
      stages.set(-1, "peer copies");
      if (cfg.progress) cfg.progress("peer copies between " + std::to_string(rt.device_count) + " GPUs");
      r.peer_access = cuda.peer_matrix(rt.device_count);
      for (int s = 0; s < rt.device_count; ++s)
        for (int t = 0; t < rt.device_count; ++t) {
          if (s == t) continue;
          PeerCopy pc;
          pc.src = s;
          pc.dst = t;
          pc.can_access = r.peer_access[std::size_t(s)][std::size_t(t)];
          auto c = cuda.peer_copy(s, t, cfg.seed ^ (std::uint64_t(s) << 8 | std::uint64_t(t)));
          pc.ran = c.ran;
          pc.gbps = c.gbps;
          if (c.ran) pc.verified = c.verified;
          pc.error = c.error;
          pc.link = peer_link(nvml, r.devices[std::size_t(s)].pci_bus_id, r.devices[std::size_t(t)].pci_bus_id);
          r.peers.push_back(pc);
        }
    }
    xids.stop();
    r.xid_events = xids.events();
  }
  stages.set(-1, "done");
  evaluate(r, cfg.verdict);
  r.probe.elapsed_seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return r;
}

/// `run_probe` on a thread of its own, given `cfg.watchdog_seconds`: when it does not
/// finish in time the answer is a "no-result" report naming where each GPU was (a hung GPU
/// or driver), instead of a probe that never ends. The APIs are shared so a hung run can
/// keep them alive after this returns (the caller then exits).
inline tfjob::gpu::ProbeReport run_probe_with_watchdog(const ProbeConfig& cfg, std::shared_ptr<CudaApi> cuda,
                                                       std::shared_ptr<NvmlApi> nvml) {
  struct Shared {
    std::mutex mu;
    std::condition_variable cv;
    bool done = false;
    tfjob::gpu::ProbeReport report;
    Stages stages;
  };
  auto sh = std::make_shared<Shared>();
  const auto t0 = std::chrono::steady_clock::now();
  std::thread([sh, cfg, cuda, nvml] {
    auto rep = run_probe(cfg, *cuda, *nvml, sh->stages);
    std::lock_guard<std::mutex> lk(sh->mu);
    sh->report = std::move(rep);
    sh->done = true;
    sh->cv.notify_all();
  }).detach();
  std::unique_lock<std::mutex> lk(sh->mu);
  if (sh->cv.wait_for(lk, std::chrono::duration<double>(cfg.watchdog_seconds), [&] { return sh->done; }))
    return sh->report;
  tfjob::gpu::ProbeReport r;
  r.probe.version = cfg.version;
  r.probe.cuda_toolkit = cfg.cuda_toolkit;
  r.probe.architectures = cfg.architectures;
  r.probe.hostname = cfg.hostname;
  r.probe.node_name = cfg.node_name;
  r.driver.present = cfg.libcuda_present;
  r.driver.version = cfg.procfs_driver_version;
  r.status = "no-result";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f", cfg.watchdog_seconds);
  std::string where = sh->stages.describe();
  r.message = std::string("no result: the probe did not finish within ") + buf + " s" +
              (where.empty() ? "" : " (" + where + ")") +
              ": a GPU or the driver hung; look for Xid errors in the node's kernel log (dmesg) and reset the GPU";
  r.failures.push_back({"watchdog", -1, r.message});
  r.probe.elapsed_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

/// The verdict's settings (the SDK names its own) as this program's flags.
inline std::string flag_words(std::string s) {
  for (const auto& [setting, flag] : {std::pair<std::string, std::string>{"VerdictOptions::expect", "--expect"},
                                      std::pair<std::string, std::string>{"VerdictOptions::strict", "--strict"}})
    for (auto p = s.find(setting); p != std::string::npos; p = s.find(setting, p + flag.size())) s.replace(p, setting.size(), flag);
  return s;
}

namespace detail {
inline std::string gib(std::uint64_t b) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f GiB", double(b) / (1ull << 30));
  return buf;
}
inline std::string pct(const std::optional<double>& p) {
  if (!p) return "";
  char buf[32];
  std::snprintf(buf, sizeof buf, " (%.0f%% of peak)", *p);
  return buf;
}
}  // namespace detail

/// The readable summary (--human, and --render of a saved JSON report).
inline void print_human(const tfjob::gpu::ProbeReport& r, std::ostream& out) {
  using namespace tfjob::gpu;
  using detail::gib;
  using detail::pct;
  char buf[512];
  out << "tfjob-gpu-probe " << r.probe.version << " (CUDA " << r.probe.cuda_toolkit << ")";
  if (!r.probe.node_name.empty()) out << " on node " << r.probe.node_name;
  else if (!r.probe.hostname.empty()) out << " on " << r.probe.hostname;
  out << "\n";
  if (r.driver.present) {
    out << "driver " << (r.driver.version.empty() ? "(version unknown)" : r.driver.version) << " supports CUDA "
        << detail::cuda_version_text(r.driver.cuda_driver_version) << "; runtime CUDA "
        << detail::cuda_version_text(r.driver.cuda_runtime_version)
        << (r.driver.compatible ? ": compatible" : ": NOT compatible") << "\n";
    out << "nvml   " << (r.nvml.loaded ? "loaded" : "not loaded: " + r.nvml.error);
    if (r.nvml.device_count) out << ", " << *r.nvml.device_count << " GPU(s)";
    if (r.nvml.loaded) out << (r.nvml.events ? ", Xid events watched" : ", Xid events not watched: " + r.nvml.events_error);
    out << "\n";
  }
  for (const auto& d : r.devices) {
    std::string ecc = d.ecc_enabled ? (*d.ecc_enabled ? "ECC on" : "ECC off") : "ECC n/a";
    std::snprintf(buf, sizeof buf, "gpu%d  %s  %s  cc %s  %d SMs  %s (%s free)  %s  %d/%d MHz%s\n", d.index,
                  d.name.c_str(), d.pci_bus_id.c_str(), d.compute_capability().c_str(), d.multiprocessors,
                  gib(d.memory_total_bytes).c_str(), gib(d.memory_free_bytes).c_str(), ecc.c_str(), d.clock_mhz,
                  d.memory_clock_mhz, d.mig ? "  MIG" : "");
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
      std::snprintf(buf, sizeof buf, "      bandwidth   %.0f GB/s%s, peak %.0f GB/s (%s)%s\n", d.bandwidth.gbps,
                    pct(d.bandwidth.percent_of_peak).c_str(), d.bandwidth.peak_gbps, d.bandwidth.peak_source.c_str(),
                    d.bandwidth.verified ? (*d.bandwidth.verified ? ", copy verified" : ", COPY CORRUPTED") : "");
    else
      std::snprintf(buf, sizeof buf, "      bandwidth   %s\n", d.bandwidth.error.c_str());
    out << buf;
    for (auto [label, g] : {std::pair<const char*, const GemmCheck*>{"fp16 gemm", &d.gemm_fp16}, {"fp32 gemm", &d.gemm_fp32}}) {
      if (g->ran)
        std::snprintf(buf, sizeof buf, "      %s   %.1f TFLOP/s%s, n=%d, %s%s\n", label, g->tflops,
                      pct(g->percent_of_peak).c_str(), g->n, g->verified ? "verified" : "WRONG RESULTS",
                      g->bit_exact ? (*g->bit_exact ? ", bit-exact" : ", RUNS DIFFER") : "");
      else
        std::snprintf(buf, sizeof buf, "      %s   %s\n", label, g->error.c_str());
      out << buf;
    }
    if (d.pinned.ran)
      std::snprintf(buf, sizeof buf, "      pinned      H2D %.1f GB/s, D2H %.1f GB/s\n", d.pinned.h2d_gbps, d.pinned.d2h_gbps);
    else
      std::snprintf(buf, sizeof buf, "      pinned      %s\n", d.pinned.error.c_str());
    out << buf;
    if (d.health && d.health->read) {
      const auto& h = *d.health;
      auto n = [](const std::optional<std::uint64_t>& v) { return v ? std::to_string(*v) : std::string("-"); };
      out << "      ecc errors  volatile SBE " << n(h.ecc.volatile_sbe) << " DBE " << n(h.ecc.volatile_dbe)
          << ", aggregate SBE " << n(h.ecc.aggregate_sbe) << " DBE " << n(h.ecc.aggregate_dbe) << "\n";
      if (h.retired_pages)
        out << "      retired     SBE " << n(h.retired_pages->sbe) << " DBE " << n(h.retired_pages->dbe)
            << (h.retired_pages->pending.value_or(false) ? ", PENDING" : ", none pending") << "\n";
      if (h.row_remap)
        out << "      row remap   " << h.row_remap->correctable << " correctable, " << h.row_remap->uncorrectable
            << " uncorrectable" << (h.row_remap->pending ? ", PENDING" : "") << (h.row_remap->failure ? ", FAILED" : "")
            << "\n";
      auto i = [](const std::optional<int>& v) { return v ? std::to_string(*v) : std::string("?"); };
      out << "      pcie        Gen" << i(h.pcie.gen_current) << " x" << i(h.pcie.width_current) << " of Gen"
          << i(h.pcie.gen_max) << " x" << i(h.pcie.width_max) << (h.pcie.read_while_busy ? " (under load)" : " (idle)") << "\n";
      std::snprintf(buf, sizeof buf, "      under load  SM %s MHz, memory %s MHz, %s C, %.0f of %.0f W, throttle: %s\n",
                    i(h.sm_clock_mhz).c_str(), i(h.memory_clock_mhz).c_str(), i(h.temperature_c).c_str(),
                    h.power_w.value_or(0), h.power_limit_w.value_or(0),
                    h.throttle_reasons.empty() ? "none" : [&] {
                      std::string s;
                      for (const auto& t : h.throttle_reasons) s += (s.empty() ? "" : ",") + t;
                      return s;
                    }().c_str());
      out << buf;
      int up = 0;
      for (const auto& l : h.nvlink) up += l.active;
      out << "      persistence " << (h.persistence ? (*h.persistence ? "on" : "off") : "?") << ", MIG "
          << (h.mig_enabled ? (*h.mig_enabled ? "on" : "off") : "n/a") << ", NVLink "
          << (h.nvlink.empty() ? std::string("none") : std::to_string(up) + "/" + std::to_string(h.nvlink.size()) + " up")
          << "\n";
    } else if (d.health) {
      out << "      health      " << d.health->error << "\n";
    }
    out << "      time        " << std::to_string(d.elapsed_seconds).substr(0, 4) << " s\n";
  }
  for (const auto& p : r.peers) {
    if (!p.ran && !p.can_access && p.error.empty()) continue;
    std::snprintf(buf, sizeof buf, "peer  gpu%d -> gpu%d  %s  %s%s\n", p.src, p.dst,
                  p.ran ? (std::to_string(int(p.gbps + 0.5)) + " GB/s").c_str() : p.error.c_str(),
                  p.can_access ? "peer access" : "staged (no peer access)",
                  p.link.empty() ? "" : (", " + p.link).c_str());
    out << buf;
  }
  for (const auto& x : r.xid_events)
    out << "xid   gpu" << x.device << " Xid " << x.xid << " (" << xid_meaning(x.xid) << ") at "
        << std::to_string(x.at_seconds).substr(0, 4) << " s\n";
  for (const auto& w : r.warnings) out << "warning: " << flag_words(w.to_string()) << "\n";
  for (const auto& f : r.failures) out << "FAILED: " << flag_words(f.to_string()) << "\n";
  const char* word = r.status == "ready" ? "READY" : r.status == "no-gpu" ? "NO GPU"
                   : r.status == "no-result" ? "NO RESULT" : "NOT READY";
  out << word << ": " << r.message;
  if (!r.expect.empty()) out << " (expected " << r.expect << ")";
  std::snprintf(buf, sizeof buf, " [%.1f s]\n", r.probe.elapsed_seconds);
  out << buf;
}

}  // namespace tfjob_probe
