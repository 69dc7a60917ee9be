#pragma once
/// \file The bodies of <tfjob/gpu/verdict.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_GPU` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/gpu/verdict.hpp>, never this file.

namespace tfjob::gpu {

TFJOB_INLINE int driver_floor_for_toolkit(std::string_view toolkit) {
  int major = 0;
  for (char c : toolkit) {
    if (c < '0' || c > '9') break;
    if (major >= 100) break;  // a toolkit major past 99 is not a version; stop before it overflows
    major = major * 10 + (c - '0');
  }
  if (major >= 13) return 580;
  if (major == 11) return 450;
  return min_cuda12_driver_branch;
}

TFJOB_INLINE std::string volta_driver_advice(int floor) {
  if (floor >= last_volta_driver_branch)
    return "install an R580 driver and run a CUDA 12.x build of the probe (CUDA 13 dropped Volta)";
  return "install an R580 (or older, >= R" + std::to_string(floor) + ") driver";
}

TFJOB_INLINE double min_bandwidth_fraction_for(const GpuSpec* spec, bool ecc_on) {
  if (spec && spec->gddr() && ecc_on) return min_bandwidth_fraction_gddr_ecc;
  return min_bandwidth_fraction;
}

TFJOB_INLINE bool critical_xid(std::uint64_t xid) {
  switch (xid) {
    case 48: case 61: case 62: case 64: case 74: case 79: case 92: case 94: case 95: case 119: case 120:
      return true;
    default:
      return false;
  }
}

TFJOB_INLINE std::string xid_meaning(std::uint64_t xid) {
  switch (xid) {
    case 48: return "double-bit ECC error";
    case 61: case 62: return "internal micro-controller halt";
    case 63: return "ECC page retirement or row remapping recorded";
    case 64: return "ECC page retirement or row remapping failure";
    case 74: return "NVLink error";
    case 79: return "GPU has fallen off the bus";
    case 92: return "high single-bit ECC error rate";
    case 94: return "contained ECC error";
    case 95: return "uncontained ECC error";
    case 119: case 120: return "GSP firmware error";
    default: return "see NVIDIA's Xid table";
  }
}

TFJOB_INLINE const std::vector<GpuSpec>& known_gpus() {
  static const std::vector<GpuSpec> table = {
      // key           family  display              tokens               cc    GB/s  FP16  FP32  ecc  min  max
      {"v100s-pcie", "v100", "Tesla V100S PCIe", {"v100s"}, 7, 0, 1134, 130, 16.4, true, 525, 580},
      {"v100-sxm2", "v100", "Tesla V100 SXM2", {"v100", "sxm2"}, 7, 0, 900, 125, 15.7, true, 525, 580},
      {"v100-sxm3", "v100", "Tesla V100 SXM3", {"v100", "sxm3"}, 7, 0, 981, 125, 15.7, true, 525, 580},
      {"v100-pcie", "v100", "Tesla V100 PCIe", {"v100"}, 7, 0, 900, 112, 14.0, true, 525, 580},
      {"t4", "t4", "Tesla T4", {"t4"}, 7, 5, 320, 65, 8.1, true, 525, 0, 0.30, "GDDR6"},
      {"a100-sxm4-80gb", "a100", "A100 SXM4 80GB", {"a100", "sxm4", "80gb"}, 8, 0, 2039, 312, 19.5, true, 525, 0, 0.40, "HBM2e"},
      {"a100-pcie-80gb", "a100", "A100 PCIe 80GB", {"a100", "80gb"}, 8, 0, 1935, 312, 19.5, true, 525, 0, 0.40, "HBM2e"},
      {"a100-40gb", "a100", "A100 40GB", {"a100"}, 8, 0, 1555, 312, 19.5, true, 525, 0},
      {"a30", "a30", "A30", {"a30"}, 8, 0, 933, 165, 10.3, true, 525, 0},
      {"a10", "a10", "A10", {"a10"}, 8, 6, 600, 125, 31.2, true, 525, 0, 0.40, "GDDR6"},
      {"l4", "l4", "L4", {"l4"}, 8, 9, 300, 121, 30.3, true, 525, 0, 0.30, "GDDR6"},
      {"l40s", "l40s", "L40S", {"l40s"}, 8, 9, 864, 362, 91.6, true, 525, 0, 0.40, "GDDR6"},
      {"h100-nvl", "h100", "H100 NVL", {"h100", "nvl"}, 9, 0, 3900, 835, 60, true, 525, 0, 0.40, "HBM3"},
      {"h100-pcie", "h100", "H100 PCIe", {"h100", "pcie"}, 9, 0, 2000, 756, 51, true, 525, 0, 0.40, "HBM2e"},
      {"h100-sxm", "h100", "H100 SXM", {"h100"}, 9, 0, 3350, 989, 67, true, 525, 0, 0.40, "HBM3"},
      {"h200-nvl", "h200", "H200 NVL", {"h200", "nvl"}, 9, 0, 4800, 835, 60, true, 525, 0, 0.40, "HBM3e"},
      {"h200-sxm", "h200", "H200 SXM", {"h200"}, 9, 0, 4800, 989, 67, true, 525, 0, 0.40, "HBM3e"},
  };
  return table;
}

namespace detail {
TFJOB_INLINE std::vector<std::string> name_tokens(std::string_view name) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : name) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      cur += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (!cur.empty()) {
      out.push_back(cur);
      cur.clear();
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

TFJOB_INLINE std::string fmt(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

TFJOB_INLINE std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}
}  // namespace detail

TFJOB_INLINE const GpuSpec* find_spec(std::string_view device_name) {
  auto toks = detail::name_tokens(device_name);
  for (const auto& s : known_gpus()) {
    bool all = std::all_of(s.tokens.begin(), s.tokens.end(), [&](const char* t) {
      return std::find(toks.begin(), toks.end(), t) != toks.end();
    });
    if (all) return &s;
  }
  return nullptr;
}

TFJOB_INLINE const GpuSpec* spec_by_key(std::string_view key) {
  for (const auto& s : known_gpus())
    if (key == s.key) return &s;
  return nullptr;
}

TFJOB_INLINE std::vector<std::string> known_families() {
  std::vector<std::string> out;
  for (const auto& s : known_gpus())
    if (std::find(out.begin(), out.end(), s.family) == out.end()) out.push_back(s.family);
  return out;
}

TFJOB_INLINE std::string normalize_expect(std::string_view value) {
  std::string v = detail::lower(std::string(value));
  for (const char* prefix : {"tesla-", "tesla ", "nvidia-", "nvidia "})
    if (v.rfind(prefix, 0) == 0) v = v.substr(std::string_view(prefix).size());
  auto fams = known_families();
  if (std::find(fams.begin(), fams.end(), v) != fams.end()) return v;
  std::string list;
  for (const auto& f : fams) list += (list.empty() ? "" : ", ") + f;
  throw config_error(setting::verdict_expect + " " + std::string(value) + ": unknown GPU model; known models: " + list);
}

TFJOB_INLINE double theoretical_bandwidth_gbps(int memory_clock_mhz, int bus_width_bits) {
  if (memory_clock_mhz <= 0 || bus_width_bits <= 0) return 0;
  return memory_clock_mhz * 1e6 * 2.0 * (bus_width_bits / 8.0) / 1e9;
}

TFJOB_INLINE void annotate(DeviceReport& d) {
  const GpuSpec* spec = d.spec.empty() ? find_spec(d.name) : spec_by_key(d.spec);
  if (!spec) spec = find_spec(d.name);
  d.spec = spec ? spec->key : "";
  if (d.bandwidth.peak_gbps <= 0) {
    double attr = theoretical_bandwidth_gbps(d.memory_clock_mhz, d.memory_bus_width_bits);
    if (attr > 0) {
      d.bandwidth.peak_gbps = attr;
      d.bandwidth.peak_source = "attributes";
    } else if (spec) {
      d.bandwidth.peak_gbps = spec->bandwidth_gbps;
      d.bandwidth.peak_source = "table";
    }
  }
  // A MIG slice owns a fraction of the SMs and memory: a percentage of the full card's
  // peak would judge the slice, not the hardware.
  const bool mig = d.mig || (d.health && d.health->mig_enabled.value_or(false)) ||
                   d.name.find("MIG") != std::string::npos;
  d.mig = mig;
  d.bandwidth.percent_of_peak.reset();
  d.gemm_fp16.percent_of_peak.reset();
  d.gemm_fp32.percent_of_peak.reset();
  if (d.bandwidth.ran && d.bandwidth.peak_gbps > 0 && !mig)
    d.bandwidth.percent_of_peak = 100.0 * d.bandwidth.gbps / d.bandwidth.peak_gbps;
  if (spec) {
    if (d.gemm_fp16.peak_tflops <= 0) d.gemm_fp16.peak_tflops = spec->fp16_tensor_tflops;
    if (d.gemm_fp32.peak_tflops <= 0) d.gemm_fp32.peak_tflops = spec->fp32_tflops;
  }
  for (GemmCheck* g : {&d.gemm_fp16, &d.gemm_fp32})
    if (g->ran && g->peak_tflops > 0 && !mig) g->percent_of_peak = 100.0 * g->tflops / g->peak_tflops;
}

namespace detail {
TFJOB_INLINE std::string runtime_advice(const std::string& name) {
  if (name == "cudaErrorSystemDriverMismatch")
    return "the kernel module and libcuda are different driver versions (a driver upgrade without a reboot, "
           "or a container with its own libcuda): reboot the node or reinstall the driver so both match";
  if (name == "cudaErrorCompatNotSupportedOnDevice")
    return "the CUDA forward-compatibility package does not support this GPU: remove it from the image or use a driver "
           "that supports the probe's CUDA natively";
  if (name == "cudaErrorDevicesUnavailable")
    return "the GPUs are in exclusive-process mode and busy, or prohibited: nvidia-smi -q -d COMPUTE on the node";
  if (name == "cudaErrorNotPermitted" || name == "cudaErrorOperatingSystem")
    return "the container cannot open the GPU device files: run it with the NVIDIA container runtime";
  return "run nvidia-smi on the node and check the kernel log (dmesg) for NVRM errors";
}

TFJOB_INLINE Judge::Judge(ProbeReport& report, const VerdictOptions& o)
    : r(report),
      opt(o),
      cuda_rt(std::to_string(r.driver.cuda_runtime_version / 1000) + "." +
              std::to_string(r.driver.cuda_runtime_version % 1000 / 10)),
      cuda_drv(std::to_string(r.driver.cuda_driver_version / 1000) + "." +
               std::to_string(r.driver.cuda_driver_version % 1000 / 10)),
      branch(r.driver.branch()),
      floor(driver_floor_for_toolkit(r.probe.cuda_toolkit.empty() ? cuda_rt : r.probe.cuda_toolkit)) {}

TFJOB_INLINE void Judge::fail(std::string check, int dev, Text msg) { r.failures.push_back({std::move(check), dev, std::move(msg)}); }

TFJOB_INLINE void Judge::warn(std::string check, int dev, std::string msg) { r.warnings.push_back({std::move(check), dev, std::move(msg)}); }

TFJOB_INLINE bool Judge::driver_and_devices() {
  // The watchdog's report: nothing was measured to the end, nothing to judge.
  if (r.status == "no-result") {
    if (r.message.empty()) r.message = "no result: the probe did not finish in time";
    return false;
  }
  if (!r.driver.present) {
    r.status = "no-gpu";
    if (r.message.empty())
      r.message = "no NVIDIA driver: libcuda.so.1 could not be loaded (is this a GPU node, and does "
                  "the container run with the NVIDIA runtime?)";
    return false;
  }
  // A runtime that fails to start on a machine with a driver is a broken node, not a
  // machine without GPUs.
  if (!r.driver.runtime_error.empty()) {
    fail("runtime", -1,
         "the CUDA runtime could not start: " + r.driver.runtime_error +
             (r.driver.runtime_error_message.empty() ? "" : " (" + r.driver.runtime_error_message + ")") + "; " +
             detail::runtime_advice(r.driver.runtime_error));
  }
  if (r.devices.empty() && r.driver.cuda_driver_version == 0 && r.failures.empty()) {
    r.status = "no-gpu";
    if (r.message.empty()) r.message = "no NVIDIA driver: the CUDA runtime found no driver";
    return false;
  }
  if (!r.driver.compatible && r.driver.runtime_error.empty()) {
    fail("driver", -1,
         "the driver supports CUDA " + cuda_drv + " but the probe needs CUDA " + cuda_rt +
             " (driver R" + std::to_string(floor) + " or newer for a CUDA " +
             (r.probe.cuda_toolkit.empty() ? cuda_rt : r.probe.cuda_toolkit) + " build); upgrade the driver");
  }
  if (r.driver.compatible && r.driver.cuda_driver_version > 0 &&
      r.driver.cuda_driver_version < r.driver.cuda_runtime_version)
    warn("driver", -1,
         "the driver supports CUDA " + cuda_drv + ", older than the probe's CUDA " + cuda_rt +
             ": running through minor-version compatibility (PTX newer than the driver cannot be JIT-compiled)");
  if (r.devices.empty()) {
    if (r.failures.empty()) {
      r.status = "no-gpu";
      std::string m = "no CUDA device visible";
      if (!r.driver.version.empty()) m += " (driver " + r.driver.version + ")";
      if (opt.expect == "v100" && branch > last_volta_driver_branch)
        m += ": driver branch R" + std::to_string(branch) + " is newer than R" +
             std::to_string(last_volta_driver_branch) + ", the last that supports the V100; " + volta_driver_advice(floor);
      else if (r.nvml.device_count && *r.nvml.device_count > 0)
        m += ", but NVML sees " + std::to_string(*r.nvml.device_count) +
             ": the driver does not support this GPU, or CUDA_VISIBLE_DEVICES hides it";
      else
        m += "; request nvidia.com/gpu in the pod, or check nvidia-smi on the node";
      if (r.message.empty()) r.message = m;
      return false;
    }
  }
  // NVML counts every GPU the container was given; CUDA fewer means a GPU the driver
  // cannot drive (fallen off the bus, unsupported architecture, MIG without a slice).
  if (r.nvml.device_count && r.cuda_visible_devices.empty() && !r.devices.empty() &&
      *r.nvml.device_count != static_cast<int>(r.devices.size()))
    fail("device-count", -1,
         "NVML sees " + std::to_string(*r.nvml.device_count) + " GPUs but CUDA " + std::to_string(r.devices.size()) +
             ": a GPU is unusable (nvidia-smi on the node; look for Xid 79 in the kernel log)");
  return true;
}

TFJOB_INLINE const GpuSpec* Judge::expected_gpu() {
  const GpuSpec* expected = nullptr;
  if (!opt.expect.empty()) {
    for (const auto& s : known_gpus())
      if (opt.expect == s.family) { expected = &s; break; }
    if (!expected) fail("model", -1, "unknown " + setting::verdict_expect + " model \"" + opt.expect + "\"");
    if (r.driver.version.empty())
      fail("driver", -1, "the driver version could not be read (neither NVML nor /proc/driver/nvidia/version)");
  }
  return expected;
}

TFJOB_INLINE void Judge::device(DeviceReport& d, const GpuSpec* expected) {
  annotate(d);
  const int i = d.index;
  const GpuSpec* spec = d.spec.empty() ? nullptr : spec_by_key(d.spec);
  if (!d.error.empty()) return fail("device", i, d.error);
  // Volta is not supported after R580 whatever the user expects.
  if (d.cc_major == 7 && d.cc_minor == 0 && branch > last_volta_driver_branch)
    fail("driver", i,
         "driver " + r.driver.version + " (R" + std::to_string(branch) + ") is newer than R" +
             std::to_string(last_volta_driver_branch) + ", the last branch that supports Volta (" +
             d.name + "); " + volta_driver_advice(floor));
  measurements(d, spec);
  if (d.health && d.health->read) health(i, *d.health);
  model(d, spec, expected);
}

TFJOB_INLINE void Judge::measurements(const DeviceReport& d, const GpuSpec* spec) {
  const int i = d.index;
  const std::string model = spec ? spec->display : d.name;
  if (!d.kernel.ran || !d.kernel.ok)
    fail("kernel", i, d.kernel.error.empty()
                          ? std::to_string(d.kernel.mismatches) + " of " + std::to_string(d.kernel.elements) +
                                " results differ from the CPU (max error " + detail::fmt(d.kernel.max_abs_error, 6) + ")"
                          : d.kernel.error);
  const bool ecc_on = d.ecc_enabled.value_or(false);
  const double bw_frac = min_bandwidth_fraction_for(spec, ecc_on);
  if (!d.bandwidth.ran || !d.bandwidth.error.empty()) {
    fail("bandwidth", i, d.bandwidth.error.empty() ? "not measured" : d.bandwidth.error);
  } else if (d.bandwidth.verified && !*d.bandwidth.verified) {
    fail("bandwidth", i, "the copied buffer differs from its source: the GPU's memory or copy path corrupts data");
  } else if (d.bandwidth.percent_of_peak && *d.bandwidth.percent_of_peak < 100 * bw_frac) {
    fail("bandwidth", i,
         detail::fmt(d.bandwidth.gbps, 0) + " GB/s is " + detail::fmt(*d.bandwidth.percent_of_peak, 0) +
             "% of the " + detail::fmt(d.bandwidth.peak_gbps, 0) + " GB/s peak (expected >= " +
             detail::fmt(100 * bw_frac, 0) + "%" +
             (spec && spec->gddr() && ecc_on ? std::string(" for ") + spec->memory + " with ECC on" : std::string()) +
             "): check clocks, power and other processes on the GPU");
  }
  struct G { const char* check; const GemmCheck* g; double frac; const char* what; };
  for (const G& g : {G{"gemm-fp16", &d.gemm_fp16, spec ? spec->min_fp16_fraction : 0.40, "FP16 tensor-core"},
                     G{"gemm-fp32", &d.gemm_fp32, min_fp32_fraction, "FP32"}}) {
    if (!g.g->ran || !g.g->error.empty()) {
      fail(g.check, i, g.g->error.empty() ? "not measured" : g.g->error);
    } else if (!g.g->verified) {
      fail(g.check, i, std::string(g.what) + " GEMM results differ from the CPU (max relative error " +
                           detail::fmt(g.g->max_rel_error, 4) + ")");
    } else if (g.g->bit_exact && !*g.g->bit_exact) {
      fail(g.check, i, std::string(g.what) + " GEMM gave different bits in two runs on the same inputs: "
                           "a faulty SM or memory (cuBLAS is deterministic for one configuration)");
    } else if (g.g->percent_of_peak && *g.g->percent_of_peak < 100 * g.frac) {
      fail(g.check, i,
           detail::fmt(g.g->tflops, 1) + " TFLOP/s is " + detail::fmt(*g.g->percent_of_peak, 0) + "% of the " +
               model + "'s " + detail::fmt(g.g->peak_tflops, 1) + " TFLOP/s " + g.what + " peak (expected >= " +
               detail::fmt(100 * g.frac, 0) + "%): check clocks, power and other processes on the GPU");
    }
  }
  if (!d.pinned.ran || !d.pinned.error.empty())
    warn("pinned", i, d.pinned.error.empty() ? "pinned host<->device bandwidth not measured" : d.pinned.error);
}

TFJOB_INLINE void Judge::health(int i, const DeviceHealth& h) {
  // NVIDIA "Dynamic Page Retirement" (docs.nvidia.com/deploy/dynamic-page-retirement): after
  // a DBE no further context is created until the page is mapped out at the next reset.
  if (h.ecc.volatile_dbe.value_or(0) > 0)
    fail("ecc-dbe", i,
         std::to_string(*h.ecc.volatile_dbe) + " double-bit ECC error(s) since the driver loaded: drain the "
         "node and reset the GPU (nvidia-smi -r) or reboot; replace the GPU if they come back");
  else if (h.ecc.aggregate_dbe.value_or(0) > 0)
    warn("ecc-dbe", i, std::to_string(*h.ecc.aggregate_dbe) + " double-bit ECC error(s) in the board's life "
         "(none since the driver loaded)");
  if (h.retired_pages && h.retired_pages->pending.value_or(false))
    fail("retired-pages", i,
         "a page retirement is pending (nvidia-smi: Pending Page Blacklist: Yes): reset the GPU or reboot the "
         "node so the bad page is mapped out");
  // NVIDIA "GPU Memory Error Management" (docs.nvidia.com/deploy/a100-gpu-mem-error-mgmt):
  // a pending remap needs a GPU reset; a remapping failure means the bank has no spare rows.
  if (h.row_remap && h.row_remap->failure)
    fail("row-remap", i, "a row remapping failed (no spare rows left in a bank): the GPU needs replacing (RMA)");
  else if (h.row_remap && h.row_remap->pending)
    fail("row-remap", i, "a row remap is pending: reset the GPU (nvidia-smi -r) or reboot the node before training");
  // NVML nvmlDeviceGetMaxPcieLinkGeneration/Width: the maximum "possible with this device
  // and system" (a Gen4 card in a Gen3 slot reports Gen3); nvidia-smi's "GPU Link Info":
  // the current generation and width "may be reduced when the GPU is not in use", so only
  // a reading taken under load counts, and anything below the maximum then is a fault.
  if (h.pcie.gen_current && h.pcie.gen_max && h.pcie.width_current && h.pcie.width_max && h.pcie.read_while_busy &&
      (*h.pcie.gen_current < *h.pcie.gen_max || *h.pcie.width_current < *h.pcie.width_max))
    warn("pcie", i,
         "PCIe link at Gen" + std::to_string(*h.pcie.gen_current) + " x" + std::to_string(*h.pcie.width_current) +
             " under load, the card can do Gen" + std::to_string(*h.pcie.gen_max) + " x" +
             std::to_string(*h.pcie.width_max) + ": reseat the card or check the slot and riser (lspci -vv: LnkSta)");
  // NVML clocks event reasons (nvmlClocksEventReasons): HW slowdown and thermal
  // slowdowns mean the GPU ran below its clocks for a hardware reason; a SW power cap
  // under a GEMM is normal.
  std::string bad;
  for (const auto& t : h.throttle_reasons)
    if (t == "hw-slowdown" || t == "hw-thermal" || t == "sw-thermal" || t == "hw-power-brake")
      bad += (bad.empty() ? "" : ", ") + t;
  if (!bad.empty())
    warn("throttle", i,
         "clocks throttled during the GEMM (" + bad + ")" +
             (h.temperature_c ? " at " + std::to_string(*h.temperature_c) + " C" : std::string()) +
             ": check cooling, the power supply and power brake cables (nvidia-smi -q -d PERFORMANCE)");
  // NVML nvmlDeviceGetNvLinkState: NVML_FEATURE_ENABLED = the link is active; the probe
  // lists only links the board has (NVML_ERROR_NOT_SUPPORTED ends the list), so any link
  // listed and not active is down (nvidia-smi nvlink -s: "<inactive>").
  int down = 0;
  std::string links;
  for (const auto& l : h.nvlink)
    if (!l.active) {
      ++down;
      links += (links.empty() ? "" : ",") + std::to_string(l.link);
    }
  if (down > 0)
    warn("nvlink", i, std::to_string(down) + " of " + std::to_string(h.nvlink.size()) + " NVLink links down (" +
                          links + "): nvidia-smi nvlink -s; reseat the board or the bridge");
}

TFJOB_INLINE void Judge::model(const DeviceReport& d, const GpuSpec* spec, const GpuSpec* expected) {
  const int i = d.index;
  const bool ecc_off = d.ecc_enabled.has_value() && !*d.ecc_enabled;
  const bool ecc_capable = d.ecc_supported || (spec && spec->ecc_capable);
  if (expected) {
    if (!spec || std::string(spec->family) != expected->family) {
      fail("model", i, "expected a " + std::string(expected->family) + " but found " + d.name);
    }
    if (d.cc_major != expected->cc_major || d.cc_minor != expected->cc_minor)
      fail("compute-capability", i,
           "compute capability " + d.compute_capability() + ", expected " + std::to_string(expected->cc_major) +
               "." + std::to_string(expected->cc_minor) + " for a " + expected->family);
    const int min_branch = std::max(expected->min_driver_branch, floor);
    if (branch > 0 && branch < min_branch)
      fail("driver", i, "driver " + r.driver.version + " is older than R" + std::to_string(min_branch) +
                            " (the floor of this CUDA " +
                            (r.probe.cuda_toolkit.empty() ? cuda_rt : r.probe.cuda_toolkit) +
                            " probe); upgrade the driver");
    if (branch > 0 && expected->max_driver_branch > 0 && branch > expected->max_driver_branch &&
        !(d.cc_major == 7 && d.cc_minor == 0))  // already reported above for Volta
      fail("driver", i, "driver " + r.driver.version + " is newer than R" +
                            std::to_string(expected->max_driver_branch) + ", the last that supports the " +
                            expected->family);
    if (ecc_off || (!d.ecc_enabled.has_value() && expected->ecc_capable))
      fail("ecc", i, ecc_off ? "ECC is disabled; enable it (nvidia-smi -e 1, then reset the GPU or reboot)"
                             : "ECC state unknown");
  } else if (ecc_off && ecc_capable) {
    warn("ecc", i, "ECC is disabled; enable it with nvidia-smi -e 1 and reset the GPU");
  }
}

TFJOB_INLINE void Judge::xids_and_peers() {
  for (const auto& x : r.xid_events) {
    std::string what = "Xid " + std::to_string(x.xid) + " (" + xid_meaning(x.xid) + ") while the probe ran";
    if (critical_xid(x.xid)) fail("xid", x.device, what + ": drain the node, read dmesg for NVRM, reset the GPU");
    else warn("xid", x.device, what);
  }
  for (const auto& p : r.peers) {
    if (!p.can_access) continue;
    if (!p.ran || !p.error.empty())
      fail("p2p", p.src, "peer copy gpu" + std::to_string(p.src) + " -> gpu" + std::to_string(p.dst) + " failed: " +
                             (p.error.empty() ? std::string("not run") : p.error));
    else if (p.verified && !*p.verified)
      fail("p2p", p.src, "peer copy gpu" + std::to_string(p.src) + " -> gpu" + std::to_string(p.dst) +
                             " arrived corrupted (" + (p.link.empty() ? "unknown link" : p.link) + ")");
  }
}

TFJOB_INLINE void Judge::conclude() {
  if (opt.strict) {
    for (auto& w : r.warnings) {
      w.message += " (" + setting::verdict_strict + ")";
      r.failures.push_back(w);
    }
    r.warnings.clear();
  }
  if (r.failures.empty()) {
    r.status = "ready";
    r.message = std::to_string(r.devices.size()) + " GPU" + (r.devices.size() == 1 ? "" : "s") + " ready";
    if (!r.warnings.empty())
      r.message += ", " + std::to_string(r.warnings.size()) + " warning" + (r.warnings.size() == 1 ? "" : "s");
  } else {
    r.status = "not-ready";
    r.message = std::to_string(r.failures.size()) + " check" + (r.failures.size() == 1 ? "" : "s") +
                " failed: " + r.failures.front().to_string();
  }
}
}  // namespace detail

TFJOB_INLINE void evaluate(ProbeReport& r, const VerdictOptions& opt) {
  r.failures.clear();
  r.warnings.clear();
  r.expect = opt.expect;
  r.strict = opt.strict;
  detail::Judge j(r, opt);
  if (!j.driver_and_devices()) return;
  const GpuSpec* expected = j.expected_gpu();
  for (auto& d : r.devices) j.device(d, expected);
  j.xids_and_peers();
  j.conclude();
}

}  // namespace tfjob::gpu
