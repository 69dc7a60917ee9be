#pragma once
/// \file The known-GPU table and the rules that turn a probe report into a verdict
/// (ready / not ready, each failed check named). Pure: the probe applies these rules to
/// its own measurements, and `gpu-check` applies them again to reports read from pod
/// logs (so `--expect` can be given on either side). Peaks are NVIDIA's datasheet
/// figures: memory bandwidth, dense FP16 tensor-core throughput with FP32 accumulate
/// (no sparsity), and FP32 (non-tensor) throughput.

#include <tfjob/error.hpp>
#include <tfjob/gpu/probe_report.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace tfjob::gpu {

/// One row of the known-GPU table.
struct GpuSpec {
  const char* key;                     ///< unique row key, e.g. "v100-sxm2"
  const char* family;                  ///< what `--expect` names, e.g. "v100"
  const char* display;                 ///< e.g. "Tesla V100 SXM2"
  std::vector<const char*> tokens;     ///< all must appear as tokens of the device name
  int cc_major, cc_minor;
  double bandwidth_gbps;               ///< datasheet memory bandwidth, GB/s
  double fp16_tensor_tflops;           ///< dense FP16 tensor core, FP32 accumulate
  double fp32_tflops;                  ///< FP32 without tensor cores
  bool ecc_capable;
  int min_driver_branch;               ///< oldest driver branch the probe image supports
  int max_driver_branch;               ///< newest branch that supports the GPU (0 = no limit)
  double min_fp16_fraction = 0.40;     ///< power-capped cards (T4, L4) get a lower bar
};

/// The oldest driver branch for the probe image's CUDA 12 runtime (CUDA 12.0 needs R525;
/// later 12.x runtimes run on R525+ through minor-version compatibility).
inline constexpr int min_cuda12_driver_branch = 525;
/// R580 is the last driver branch that supports Volta (and Maxwell/Pascal).
inline constexpr int last_volta_driver_branch = 580;

/// Default fractions of peak a healthy GPU reaches in the probe's tests.
inline constexpr double min_bandwidth_fraction = 0.70;
inline constexpr double min_fp32_fraction = 0.50;

/// The table, most specific rows first (the first row whose tokens all match wins).
inline const std::vector<GpuSpec>& known_gpus() {
  static const std::vector<GpuSpec> table = {
      // key           family  display              tokens               cc    GB/s  FP16  FP32  ecc  min  max
      {"v100s-pcie", "v100", "Tesla V100S PCIe", {"v100s"}, 7, 0, 1134, 130, 16.4, true, 525, 580},
      {"v100-sxm2", "v100", "Tesla V100 SXM2", {"v100", "sxm2"}, 7, 0, 900, 125, 15.7, true, 525, 580},
      {"v100-sxm3", "v100", "Tesla V100 SXM3", {"v100", "sxm3"}, 7, 0, 981, 125, 15.7, true, 525, 580},
      {"v100-pcie", "v100", "Tesla V100 PCIe", {"v100"}, 7, 0, 900, 112, 14.0, true, 525, 580},
      {"t4", "t4", "Tesla T4", {"t4"}, 7, 5, 320, 65, 8.1, true, 525, 0, 0.30},
      {"a100-sxm4-80gb", "a100", "A100 SXM4 80GB", {"a100", "sxm4", "80gb"}, 8, 0, 2039, 312, 19.5, true, 525, 0},
      {"a100-pcie-80gb", "a100", "A100 PCIe 80GB", {"a100", "80gb"}, 8, 0, 1935, 312, 19.5, true, 525, 0},
      {"a100-40gb", "a100", "A100 40GB", {"a100"}, 8, 0, 1555, 312, 19.5, true, 525, 0},
      {"a30", "a30", "A30", {"a30"}, 8, 0, 933, 165, 10.3, true, 525, 0},
      {"a10", "a10", "A10", {"a10"}, 8, 6, 600, 125, 31.2, true, 525, 0},
      {"l4", "l4", "L4", {"l4"}, 8, 9, 300, 121, 30.3, true, 525, 0, 0.30},
      {"l40s", "l40s", "L40S", {"l40s"}, 8, 9, 864, 362, 91.6, true, 525, 0},
      {"h100-nvl", "h100", "H100 NVL", {"h100", "nvl"}, 9, 0, 3900, 835, 60, true, 525, 0},
      {"h100-pcie", "h100", "H100 PCIe", {"h100", "pcie"}, 9, 0, 2000, 756, 51, true, 525, 0},
      {"h100-sxm", "h100", "H100 SXM", {"h100"}, 9, 0, 3350, 989, 67, true, 525, 0},
      {"h200-nvl", "h200", "H200 NVL", {"h200", "nvl"}, 9, 0, 4800, 835, 60, true, 525, 0},
      {"h200-sxm", "h200", "H200 SXM", {"h200"}, 9, 0, 4800, 989, 67, true, 525, 0},
  };
  return table;
}

namespace detail {
/// Lower-case tokens of a device name split at anything that is not a letter or digit:
/// "Tesla V100-SXM2-16GB" -> tesla, v100, sxm2, 16gb.
inline std::vector<std::string> name_tokens(std::string_view name) {
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
inline std::string fmt(double v, int decimals = 1) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}
inline std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}
}  // namespace detail

/// The known-GPU row for a device name (as CUDA reports it), or nullptr.
inline const GpuSpec* find_spec(std::string_view device_name) {
  auto toks = detail::name_tokens(device_name);
  for (const auto& s : known_gpus()) {
    bool all = std::all_of(s.tokens.begin(), s.tokens.end(), [&](const char* t) {
      return std::find(toks.begin(), toks.end(), t) != toks.end();
    });
    if (all) return &s;
  }
  return nullptr;
}

/// The row with this key, or nullptr.
inline const GpuSpec* spec_by_key(std::string_view key) {
  for (const auto& s : known_gpus())
    if (key == s.key) return &s;
  return nullptr;
}

/// The model names `--expect` accepts (table families, in table order, unique).
inline std::vector<std::string> known_families() {
  std::vector<std::string> out;
  for (const auto& s : known_gpus())
    if (std::find(out.begin(), out.end(), s.family) == out.end()) out.push_back(s.family);
  return out;
}

/// Normalises an `--expect` value ("V100", "tesla-v100", "h200") to a family, or throws
/// `config_error` listing the known models.
inline std::string normalize_expect(std::string_view value) {
  std::string v = detail::lower(std::string(value));
  for (const char* prefix : {"tesla-", "tesla ", "nvidia-", "nvidia "})
    if (v.rfind(prefix, 0) == 0) v = v.substr(std::string_view(prefix).size());
  auto fams = known_families();
  if (std::find(fams.begin(), fams.end(), v) != fams.end()) return v;
  std::string list;
  for (const auto& f : fams) list += (list.empty() ? "" : ", ") + f;
  throw config_error("--expect " + std::string(value) + ": unknown GPU model; known models: " + list);
}

/// Theoretical memory bandwidth in GB/s from the memory clock (MHz) and the bus width
/// (bits): clock x 2 (double data rate) x width / 8. 0 when either is unknown.
inline double theoretical_bandwidth_gbps(int memory_clock_mhz, int bus_width_bits) {
  if (memory_clock_mhz <= 0 || bus_width_bits <= 0) return 0;
  return memory_clock_mhz * 1e6 * 2.0 * (bus_width_bits / 8.0) / 1e9;
}

/// Options for `evaluate`.
struct VerdictOptions {
  std::string expect;  ///< a family from `known_families()`, "" = no model expected
};

/// Fills in peaks and percentages from the known-GPU table where the probe left them
/// unknown (bandwidth peak from attributes wins; the table is the fallback).
inline void annotate(DeviceReport& d) {
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
  if (d.bandwidth.ran && d.bandwidth.peak_gbps > 0)
    d.bandwidth.percent_of_peak = 100.0 * d.bandwidth.gbps / d.bandwidth.peak_gbps;
  if (spec) {
    if (d.gemm_fp16.peak_tflops <= 0) d.gemm_fp16.peak_tflops = spec->fp16_tensor_tflops;
    if (d.gemm_fp32.peak_tflops <= 0) d.gemm_fp32.peak_tflops = spec->fp32_tflops;
  }
  for (GemmCheck* g : {&d.gemm_fp16, &d.gemm_fp32})
    if (g->ran && g->peak_tflops > 0) g->percent_of_peak = 100.0 * g->tflops / g->peak_tflops;
}

/// Applies the rules: fills `failures`, `warnings`, `status` and `message` of `r`.
/// Rules for every GPU: driver compatible with the runtime; no Volta GPU under a driver
/// newer than R580; correctness kernel and both GEMMs verified; measurements present;
/// bandwidth >= 70%, FP16 tensor GEMM >= 40% (30% for T4/L4), FP32 GEMM >= 50% of the
/// known peak; ECC off on an ECC-capable GPU is a warning. With `expect`: every GPU must
/// be that model with its compute capability, the driver branch inside the model's
/// range (R525..R580 for V100), and ECC on.
inline void evaluate(ProbeReport& r, const VerdictOptions& opt = {}) {
  r.failures.clear();
  r.warnings.clear();
  r.expect = opt.expect;
  auto fail = [&](std::string check, int dev, std::string msg) {
    r.failures.push_back({std::move(check), dev, std::move(msg)});
  };
  auto warn = [&](std::string check, int dev, std::string msg) {
    r.warnings.push_back({std::move(check), dev, std::move(msg)});
  };
  const std::string cuda_rt = std::to_string(r.driver.cuda_runtime_version / 1000) + "." +
                              std::to_string(r.driver.cuda_runtime_version % 1000 / 10);
  const std::string cuda_drv = std::to_string(r.driver.cuda_driver_version / 1000) + "." +
                               std::to_string(r.driver.cuda_driver_version % 1000 / 10);
  const int branch = r.driver.branch();

  if (!r.driver.present || (r.devices.empty() && r.driver.cuda_driver_version == 0)) {
    r.status = "no-gpu";
    if (r.message.empty())
      r.message = "no NVIDIA driver: libcuda.so.1 could not be loaded (is this a GPU node, and does "
                  "the container run with the NVIDIA runtime?)";
    return;
  }
  if (!r.driver.compatible) {
    fail("driver", -1,
         "the driver supports CUDA " + cuda_drv + " but the probe needs CUDA " + cuda_rt +
             " (driver R" + std::to_string(min_cuda12_driver_branch) + " or newer); upgrade the driver");
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
             std::to_string(last_volta_driver_branch) + ", the last that supports the V100; install an R580 (or older, >= R525) driver";
      else
        m += "; request nvidia.com/gpu in the pod, or check nvidia-smi on the node";
      if (r.message.empty()) r.message = m;
      return;
    }
  }

  const GpuSpec* expected = nullptr;
  if (!opt.expect.empty()) {
    for (const auto& s : known_gpus())
      if (opt.expect == s.family) { expected = &s; break; }
    if (!expected) fail("model", -1, "unknown --expect model \"" + opt.expect + "\"");
    if (r.driver.version.empty())
      fail("driver", -1, "the driver version could not be read (neither NVML nor /proc/driver/nvidia/version)");
  }

  for (auto& d : r.devices) {
    annotate(d);
    const int i = d.index;
    const GpuSpec* spec = d.spec.empty() ? nullptr : spec_by_key(d.spec);
    const std::string model = spec ? spec->display : d.name;
    if (!d.error.empty()) {
      fail("device", i, d.error);
      continue;
    }
    // Volta is not supported after R580 whatever the user expects.
    if (d.cc_major == 7 && d.cc_minor == 0 && branch > last_volta_driver_branch)
      fail("driver", i,
           "driver " + r.driver.version + " (R" + std::to_string(branch) + ") is newer than R" +
               std::to_string(last_volta_driver_branch) + ", the last branch that supports Volta (" +
               d.name + "); install an R580 (or older, >= R525) driver");
    if (!d.kernel.ran || !d.kernel.ok)
      fail("kernel", i, d.kernel.error.empty()
                            ? std::to_string(d.kernel.mismatches) + " of " + std::to_string(d.kernel.elements) +
                                  " results differ from the CPU (max error " + detail::fmt(d.kernel.max_abs_error, 6) + ")"
                            : d.kernel.error);
    if (!d.bandwidth.ran || !d.bandwidth.error.empty()) {
      fail("bandwidth", i, d.bandwidth.error.empty() ? "not measured" : d.bandwidth.error);
    } else if (d.bandwidth.percent_of_peak && *d.bandwidth.percent_of_peak < 100 * min_bandwidth_fraction) {
      fail("bandwidth", i,
           detail::fmt(d.bandwidth.gbps, 0) + " GB/s is " + detail::fmt(*d.bandwidth.percent_of_peak, 0) +
               "% of the " + detail::fmt(d.bandwidth.peak_gbps, 0) + " GB/s peak (expected >= " +
               detail::fmt(100 * min_bandwidth_fraction, 0) + "%): check clocks, power and other processes on the GPU");
    }
    struct G { const char* check; GemmCheck* g; double frac; const char* what; };
    for (const G& g : {G{"gemm-fp16", &d.gemm_fp16, spec ? spec->min_fp16_fraction : 0.40, "FP16 tensor-core"},
                       G{"gemm-fp32", &d.gemm_fp32, min_fp32_fraction, "FP32"}}) {
      if (!g.g->ran || !g.g->error.empty()) {
        fail(g.check, i, g.g->error.empty() ? "not measured" : g.g->error);
      } else if (!g.g->verified) {
        fail(g.check, i, std::string(g.what) + " GEMM results differ from the CPU (max relative error " +
                             detail::fmt(g.g->max_rel_error, 4) + ")");
      } else if (g.g->percent_of_peak && *g.g->percent_of_peak < 100 * g.frac) {
        fail(g.check, i,
             detail::fmt(g.g->tflops, 1) + " TFLOP/s is " + detail::fmt(*g.g->percent_of_peak, 0) + "% of the " +
                 model + "'s " + detail::fmt(g.g->peak_tflops, 1) + " TFLOP/s " + g.what + " peak (expected >= " +
                 detail::fmt(100 * g.frac, 0) + "%): check clocks, power and other processes on the GPU");
      }
    }
    if (!d.pinned.ran || !d.pinned.error.empty())
      warn("pinned", i, d.pinned.error.empty() ? "pinned host<->device bandwidth not measured" : d.pinned.error);
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
      if (branch > 0 && branch < expected->min_driver_branch)
        fail("driver", i, "driver " + r.driver.version + " is older than R" +
                              std::to_string(expected->min_driver_branch) + "; upgrade the driver");
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

  if (r.failures.empty()) {
    r.status = "ready";
    r.message = std::to_string(r.devices.size()) + " GPU" + (r.devices.size() == 1 ? "" : "s") + " ready";
  } else {
    r.status = "not-ready";
    r.message = std::to_string(r.failures.size()) + " check" + (r.failures.size() == 1 ? "" : "s") +
                " failed: " + r.failures.front().to_string();
  }
}

}  // namespace tfjob::gpu
