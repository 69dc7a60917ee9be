#pragma once
/// \file The known-GPU table and the rules that turn a probe report into a verdict
/// (ready / not ready, each failed check named). Pure: the probe applies these rules to
/// its own measurements, and `gpu-check` applies them again to reports read from pod
/// logs (so `--expect` can be given on either side). Peaks are NVIDIA's datasheet
/// figures: memory bandwidth, dense FP16 tensor-core throughput with FP32 accumulate
/// (no sparsity), and FP32 (non-tensor) throughput.

#include <tfjob/detail/compiled.hpp>
#include <tfjob/error.hpp>
#include <tfjob/gpu/probe_report.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
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
  const char* memory = "HBM2";         ///< memory type: HBM2, HBM2e, HBM3, HBM3e, GDDR6
  /// HBM or GDDR: the bandwidth bar depends on it (see min_bandwidth_fraction_for).
  bool gddr() const { return std::string_view(memory).rfind("GDDR", 0) == 0; }
};

/// The oldest driver branch for the probe image's CUDA 12 runtime (CUDA 12.0 needs R525;
/// later 12.x runtimes run on R525+ through minor-version compatibility).
inline constexpr int min_cuda12_driver_branch = 525;
/// R580 is the last driver branch that supports Volta (and Maxwell/Pascal).
inline constexpr int last_volta_driver_branch = 580;

/// Default fractions of peak a healthy GPU reaches in the probe's tests.
inline constexpr double min_bandwidth_fraction = 0.70;
/// GDDR6 with ECC on gives part of its bandwidth to ECC (GDDR6 has no spare ECC bits, so
/// the check bits travel in-band; NVIDIA's T4/A10 datasheets quote the peak with ECC off).
inline constexpr double min_bandwidth_fraction_gddr_ecc = 0.60;
inline constexpr double min_fp32_fraction = 0.50;

/// The oldest driver branch a probe built with this CUDA toolkit runs on ("12.8" -> 525,
/// "13.0" -> 580): CUDA's release notes, table 3 "CUDA Toolkit and Minimum Required Driver
/// Version for CUDA Minor Version Compatibility" (11.x: >= 450, 12.x: >= 525, 13.x: >= 580).
int driver_floor_for_toolkit(std::string_view toolkit);

/// What to install on a Volta node whose driver is too new, for a probe built with a
/// toolkit whose driver floor is `floor`: an R580 driver (R`floor` or newer) from a CUDA 12
/// build; a CUDA 13 build (floor R580) cannot run on Volta at all (CUDA 13 dropped sm_70,
/// CUDA 13.0 release notes), so it says to use a CUDA 12 image instead.
std::string volta_driver_advice(int floor);

/// The bandwidth bar for a device: HBM 70%; GDDR with ECC on 60% (see above).
double min_bandwidth_fraction_for(const GpuSpec* spec, bool ecc_on);

/// Xids that mean the GPU must not take work until it is reset or replaced. NVIDIA's "Xid
/// Errors" (docs.nvidia.com/deploy/xid-errors) marks these as hardware, memory or bus
/// failures: 48 double-bit ECC error, 61/62 internal micro-controller halt, 64 ECC page
/// retirement or row remapping failure, 74 NVLink error, 79 GPU has fallen off the bus,
/// 92 high single-bit ECC error rate, 94/95 contained/uncontained ECC error, 119/120 GSP
/// timeout/error. Application faults (13, 31, 43, 45) are not judged; 63 (a retirement or
/// remap recorded) is a warning, its effect judged by the pending-retirement/remap rules.
bool critical_xid(std::uint64_t xid);

/// Short meaning of the Xids the rules name (same source as critical_xid).
std::string xid_meaning(std::uint64_t xid);

/// The table, most specific rows first (the first row whose tokens all match wins).
const std::vector<GpuSpec>& known_gpus();

namespace detail {
/// Lower-case tokens of a device name split at anything that is not a letter or digit:
/// "Tesla V100-SXM2-16GB" -> tesla, v100, sxm2, 16gb.
std::vector<std::string> name_tokens(std::string_view name);
std::string fmt(double v, int decimals = 1);
std::string lower(std::string s);
}  // namespace detail

/// The known-GPU row for a device name (as CUDA reports it), or nullptr.
const GpuSpec* find_spec(std::string_view device_name);

/// The row with this key, or nullptr.
const GpuSpec* spec_by_key(std::string_view key);

/// The model names `--expect` accepts (table families, in table order, unique).
std::vector<std::string> known_families();

/// Normalises an `--expect` value ("V100", "tesla-v100", "h200") to a family, or throws
/// `config_error` listing the known models.
std::string normalize_expect(std::string_view value);

/// Theoretical memory bandwidth in GB/s from the memory clock (MHz) and the bus width
/// (bits): clock x 2 (double data rate) x width / 8. 0 when either is unknown.
double theoretical_bandwidth_gbps(int memory_clock_mhz, int bus_width_bits);

/// Options for `evaluate`.
struct VerdictOptions {
  std::string expect;  ///< a family from `known_families()`, "" = no model expected
  bool strict = false; ///< every warning (PCIe below max, throttling, NVLink down, ...) fails
};

/// Fills in peaks and percentages from the known-GPU table where the probe left them
/// unknown (bandwidth peak from attributes wins; the table is the fallback).
void annotate(DeviceReport& d);

namespace detail {
/// What to do about a runtime that could not start, by its error name.
std::string runtime_advice(const std::string& name);
}  // namespace detail

namespace detail {

/// One evaluate() run: the report, the options and the driver facts each check words its
/// message with; fail() and warn() add to the report.
struct Judge {
  ProbeReport& r;
  const VerdictOptions& opt;
  const std::string cuda_rt, cuda_drv;
  const int branch, floor;

  Judge(ProbeReport& report, const VerdictOptions& o);

  void fail(std::string check, int dev, Text msg);
  void warn(std::string check, int dev, std::string msg);

  /// The driver and runtime, and whether there is a GPU to judge at all; false when the
  /// report's status is already decided (no result, no GPU).
  bool driver_and_devices();

  /// The model `expect` names, or nullptr; an unknown name fails.
  const GpuSpec* expected_gpu();

  /// One GPU: driver support, the kernel, bandwidth and both GEMMs, health, the model expected.
  void device(DeviceReport& d, const GpuSpec* expected);

  /// What the probe measured: the kernel, the copied buffer's bandwidth, both GEMMs, pinned copies.
  void measurements(const DeviceReport& d, const GpuSpec* spec);

  /// NVML's health readings: ECC, retired pages, row remapping, PCIe, throttling, NVLink.
  void health(int i, const DeviceHealth& h);

  /// With `expect`: the model, its compute capability, the driver branch range and ECC on;
  /// without: ECC off on a GPU that has it is a warning.
  void model(const DeviceReport& d, const GpuSpec* spec, const GpuSpec* expected);

  /// Xid events while the probe ran, and peer copies between GPUs that can reach each other.
  void xids_and_peers();

  /// `strict` makes warnings failures; the status and its one-line message.
  void conclude();
};

}  // namespace detail

/// Applies the rules: fills `failures`, `warnings`, `status` and `message` of `r`.
/// Rules for every GPU: driver compatible with the runtime (the floor named is the probe's
/// toolkit's: R525 for CUDA 12, R580 for CUDA 13); a runtime that cannot start is not ready
/// (not "no GPU"); NVML's GPU count equals CUDA's; no Volta GPU under a driver newer than
/// R580; correctness kernel, copied buffer and both GEMMs verified (bit for bit between two
/// runs); measurements present; bandwidth >= 70% (60% for GDDR with ECC on), FP16 tensor
/// GEMM >= 40% (30% for T4/L4), FP32 GEMM >= 50% of the known peak, except on MIG slices;
/// NVML health: a double-bit ECC error, pending page retirement, a pending or failed row
/// remap or a critical Xid is not ready; PCIe below its maximum under load, HW slowdown or
/// thermal throttling during the GEMM and an NVLink link down are warnings (`strict` fails
/// them, and every other warning); ECC off on an ECC-capable GPU is a warning; a P2P copy
/// between GPUs that can access each other must arrive intact. With `expect`: every GPU
/// must be that model with its compute capability, the driver branch inside the model's
/// range (R525..R580 for V100), and ECC on.
void evaluate(ProbeReport& r, const VerdictOptions& opt = {});

}  // namespace tfjob::gpu

#if TFJOB_SDK_DEFINE_GPU
#include <tfjob/gpu/impl/verdict_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_GPU
