#pragma once
/// \file The GPU probe's JSON document (schema `kubectl-tfjob/gpu-probe/v1`) as plain
/// structs, with ADL `to_json`/`from_json`. The probe (`gpu/`) writes it; `gpu-check`
/// reads it back from probe pod logs. Pure: no I/O. The schema is documented in
/// `gpu/README.md`; fields added later must stay optional so old reports still parse.

#include <tfjob/detail/compiled.hpp>
#include <tfjob/error.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <limits>       // integer ranges checked before nlohmann casts a float
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace tfjob::gpu {

/// The schema identifier the probe writes in `schema`; the `/v1` part changes only on an
/// incompatible change.
inline constexpr const char* probe_schema = "kubectl-tfjob/gpu-probe/v1";

/// The report's revision inside schema v1: 1 = the first probe (no `revision` field);
/// 2 adds `health` per device, `nvml`, `xidEvents`, `peers`, `driver.runtimeError`,
/// `bandwidth.verified`, `gemm*.bitExact`, `launches`/`warmupMs` of the bandwidth and GEMM
/// checks, `mig` and the "no-result" status. Readers take
/// every revision; fields a revision lacks stay empty (nullopt).
inline constexpr int probe_report_revision = 2;

/// Probe exit codes (also the `status` field): 0 ready, 1 not ready, 2 no driver / no GPU,
/// 3 no result (the probe's watchdog fired: a GPU or the driver hung).
enum probe_exit : int { probe_ready = 0, probe_not_ready = 1, probe_no_gpu = 2, probe_no_result = 3, probe_usage = 64 };

/// One failed (or warned) check: which check, which device (-1 = the node), and why.
struct Finding {
  std::string check;    ///< driver, runtime, model, compute-capability, ecc, kernel, bandwidth, gemm-fp16, gemm-fp32, pinned, device
  int device = -1;      ///< device index, -1 when it concerns the whole node
  Text message;  ///< a sentence that says what is wrong and what to do (it may name a setting by key)
  std::string to_string() const;
};

/// The correctness kernel: fresh random data, every element compared with the CPU.
struct KernelCheck {
  bool ran = false;
  bool ok = false;
  std::int64_t elements = 0;
  std::int64_t mismatches = 0;
  double max_abs_error = 0;
  std::string error;
};

/// Device memory bandwidth: bytes read plus written per second, median of timed runs.
struct BandwidthCheck {
  bool ran = false;
  double gbps = 0;               ///< measured, 1 GB = 1e9 bytes
  double peak_gbps = 0;          ///< theoretical peak used for the percentage (0 = unknown)
  std::string peak_source;       ///< "attributes" (memory clock x bus width x 2) or "table"
  std::optional<double> percent_of_peak;
  std::int64_t bytes = 0;        ///< buffer size copied per run
  int runs = 0;
  std::string method;            ///< "copy-kernel" or "cudaMemcpy"
  int launches = 0;              ///< copies per timed event pair (revision 2; 0 = not reported)
  double warmup_ms = 0;          ///< the same copies run first so clocks ramp (revision 2)
  std::optional<bool> verified;  ///< the copied buffer compared with its source (revision 2)
  std::string error;
};

/// A cuBLAS GEMM (n x n x n): throughput and a CPU check of sampled entries.
struct GemmCheck {
  bool ran = false;
  bool verified = false;
  int n = 0;
  int runs = 0;
  int launches = 0;              ///< GEMMs per timed event pair (revision 2; 0 = not reported)
  double warmup_ms = 0;          ///< the same GEMM run first so clocks ramp (revision 2)
  double tflops = 0;             ///< median
  double peak_tflops = 0;        ///< from the known-GPU table (0 = unknown GPU)
  std::optional<double> percent_of_peak;
  double max_rel_error = 0;
  /// The whole result of two runs on the same inputs compared bit for bit (revision 2): a
  /// fault in one tile changes it, where sampled entries may miss it.
  std::optional<bool> bit_exact;
  std::string error;
};

/// Pinned host<->device copies.
struct TransferCheck {
  bool ran = false;
  double h2d_gbps = 0;
  double d2h_gbps = 0;
  std::int64_t bytes = 0;
  std::string error;
};

/// ECC error counts (NVML nvmlDeviceGetTotalEccErrors): volatile since the last driver load,
/// aggregate over the board's life; single-bit (corrected) and double-bit (uncorrected).
struct EccCounts {
  std::optional<std::uint64_t> volatile_sbe, volatile_dbe, aggregate_sbe, aggregate_dbe;
};

/// Dynamic page retirement (Volta/Turing and older; NVML nvmlDeviceGetRetiredPages).
struct RetiredPages {
  std::optional<std::uint64_t> sbe, dbe;  ///< pages retired for multiple SBEs / a DBE
  std::optional<bool> pending;            ///< retirement waits for a GPU reset or reboot
};

/// Row remapping (Ampere and newer; NVML nvmlDeviceGetRemappedRows).
struct RowRemap {
  std::uint64_t correctable = 0, uncorrectable = 0;
  bool pending = false;  ///< a remap waits for a GPU reset
  bool failure = false;  ///< a remap failed: the bank has no spare rows left
};

/// PCIe link, read while the GPU runs the GEMM (an idle link trains down to save power).
struct PcieLink {
  std::optional<int> gen_current, gen_max, width_current, width_max;
  bool read_while_busy = false;
};

/// One NVLink link's state.
struct NvlinkLink {
  int link = 0;
  bool active = false;
};

/// What NVML says about one device's health (revision 2). Everything optional: an old
/// driver lacks functions, a GPU lacks features (no NVLink on PCIe cards, no row remapping
/// before Ampere); `unsupported` lists what could not be read, and why.
struct DeviceHealth {
  bool read = false;              ///< NVML answered for this device
  std::string error;              ///< why nothing was read ("" when read)
  std::optional<bool> ecc_pending;  ///< ECC mode after the next reset
  EccCounts ecc;
  std::optional<RetiredPages> retired_pages;
  std::optional<RowRemap> row_remap;
  PcieLink pcie;
  std::optional<int> sm_clock_mhz, memory_clock_mhz, sm_clock_max_mhz, memory_clock_max_mhz;
  std::optional<int> temperature_c;
  std::optional<double> power_w, power_limit_w;
  /// Clock throttle (event) reasons seen while the GEMM ran, NVML's names without the
  /// prefix: sw-power-cap, hw-slowdown, sw-thermal, hw-thermal, hw-power-brake, ...
  std::vector<std::string> throttle_reasons;
  std::optional<bool> persistence;
  std::optional<bool> mig_enabled, mig_pending;
  std::vector<NvlinkLink> nvlink;  ///< empty: no NVLink on this board
  std::vector<std::string> unsupported;  ///< "rowRemap: not supported", "nvlink: function not found (old driver)"
};

/// An Xid event NVML delivered while the probe ran.
struct XidEvent {
  int device = -1;             ///< CUDA index (-1 unknown)
  std::uint64_t xid = 0;
  double at_seconds = 0;       ///< since the probe started
};

/// What the probe learnt from NVML as a whole (revision 2).
struct NvmlInfo {
  bool loaded = false;          ///< libnvidia-ml.so.1 loaded and nvmlInit succeeded
  std::string error;            ///< why not
  std::optional<int> device_count;  ///< nvmlDeviceGetCount
  bool events = false;          ///< Xid events were watched for the whole run
  std::string events_error;
};

/// A real copy between two GPUs (revision 2).
struct PeerCopy {
  int src = 0, dst = 0;
  bool can_access = false;      ///< cudaDeviceCanAccessPeer
  bool ran = false;
  double gbps = 0;
  std::optional<bool> verified;  ///< the destination compared with the source
  std::string link;             ///< "nvlink" or "pcie" (NVML), "" unknown
  std::string error;
};

/// Everything the probe learnt about one device.
struct DeviceReport {
  int index = 0;
  std::string name;
  std::string uuid;
  std::string pci_bus_id;
  int cc_major = 0, cc_minor = 0;
  int multiprocessors = 0;
  std::uint64_t memory_total_bytes = 0;
  std::uint64_t memory_free_bytes = 0;
  std::optional<bool> ecc_enabled;  ///< nullopt: unknown or not supported by the GPU
  bool ecc_supported = false;
  int clock_mhz = 0;
  int memory_clock_mhz = 0;
  int memory_bus_width_bits = 0;
  std::string spec;  ///< key of the recognised model in the known-GPU table ("" = unknown)
  KernelCheck kernel;
  BandwidthCheck bandwidth;
  GemmCheck gemm_fp16;
  GemmCheck gemm_fp32;
  TransferCheck pinned;
  double elapsed_seconds = 0;
  std::string error;  ///< set when the device could not be used at all
  bool mig = false;   ///< a MIG slice (or a GPU in MIG mode): not judged against the full card's peaks
  std::optional<DeviceHealth> health;  ///< revision 2; nullopt in older reports
  /// "7.0"
  std::string compute_capability() const;
};

/// Driver and runtime.
struct DriverInfo {
  bool present = false;          ///< libcuda could be loaded
  std::string version;           ///< e.g. "550.54.15" ("" = unknown)
  std::string version_source;    ///< "nvml" or "procfs"
  int cuda_driver_version = 0;   ///< cudaDriverGetVersion(), e.g. 12040
  int cuda_runtime_version = 0;  ///< cudaRuntimeGetVersion()
  bool compatible = false;       ///< the driver can run this runtime
  /// The runtime's own start failure (revision 2), e.g. cudaErrorSystemDriverMismatch; empty
  /// when it started or when it only found no device.
  std::string runtime_error;
  std::string runtime_error_message;
  /// The driver's major branch: "550.54.15" -> 550; 0 when unknown.
  int branch() const;
};

/// About the probe binary and where it ran.
struct ProbeInfo {
  std::string version;
  std::string cuda_toolkit;                ///< toolkit the probe was built with, e.g. "12.8"
  std::vector<std::string> architectures;  ///< e.g. {"sm_70", ..., "compute_90"}
  std::string hostname;
  std::string node_name;                   ///< $NODE_NAME when set (the probe pod sets it)
  double elapsed_seconds = 0;
};

/// The whole document.
struct ProbeReport {
  std::string schema = probe_schema;
  int revision = probe_report_revision;  ///< 1 when the document has no `revision`
  std::string status;   ///< "ready", "not-ready", "no-gpu", "no-result"
  std::string message;  ///< one line for people (why not ready, or "no NVIDIA driver")
  std::string expect;   ///< the --expect model, "" when none
  ProbeInfo probe;
  DriverInfo driver;
  std::vector<DeviceReport> devices;
  /// peer_access[i][j]: device i can access j (diagonal false); empty with one GPU.
  std::vector<std::vector<bool>> peer_access;
  std::vector<PeerCopy> peers;      ///< every ordered pair (revision 2)
  NvmlInfo nvml;                    ///< revision 2
  std::vector<XidEvent> xid_events; ///< revision 2
  std::string cuda_visible_devices; ///< $CUDA_VISIBLE_DEVICES when set (CUDA then sees fewer GPUs than NVML)
  bool strict = false;              ///< warnings were judged as failures (--strict)
  std::vector<Finding> failures;
  std::vector<Finding> warnings;
  bool ready() const { return status == "ready"; }
  int exit_code() const;
};

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const Finding& f);
TFJOB_JSON_FN from_json(const TFJOB_JSON& j, Finding& f);

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const KernelCheck& c);
TFJOB_JSON_FN from_json(const TFJOB_JSON& j, KernelCheck& c);

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const BandwidthCheck& c);
TFJOB_JSON_FN from_json(const TFJOB_JSON& j, BandwidthCheck& c);

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const GemmCheck& c);
TFJOB_JSON_FN from_json(const TFJOB_JSON& j, GemmCheck& c);

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const TransferCheck& c);
TFJOB_JSON_FN from_json(const TFJOB_JSON& j, TransferCheck& c);

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const EccCounts& c);
TFJOB_JSON_FN from_json(const TFJOB_JSON& j, EccCounts& c);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const RetiredPages& p);
TFJOB_JSON_FN from_json(const TFJOB_JSON& j, RetiredPages& p);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const RowRemap& r);
TFJOB_JSON_FN from_json(const TFJOB_JSON& j, RowRemap& r);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const PcieLink& p);
TFJOB_JSON_FN from_json(const TFJOB_JSON& j, PcieLink& p);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const NvlinkLink& l);
TFJOB_JSON_FN from_json(const TFJOB_JSON& j, NvlinkLink& l);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const DeviceHealth& h);
TFJOB_JSON_FN from_json(const TFJOB_JSON& j, DeviceHealth& h);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const XidEvent& e);
TFJOB_JSON_FN from_json(const TFJOB_JSON& j, XidEvent& e);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const NvmlInfo& n);
TFJOB_JSON_FN from_json(const TFJOB_JSON& j, NvmlInfo& n);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const PeerCopy& p);
TFJOB_JSON_FN from_json(const TFJOB_JSON& j, PeerCopy& p);

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const DeviceReport& d);
TFJOB_JSON_FN from_json(const TFJOB_JSON& j, DeviceReport& d);

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const DriverInfo& d);
TFJOB_JSON_FN from_json(const TFJOB_JSON& j, DriverInfo& d);

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const ProbeInfo& p);
TFJOB_JSON_FN from_json(const TFJOB_JSON& j, ProbeInfo& p);

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const ProbeReport& r);
TFJOB_JSON_FN from_json(const TFJOB_JSON& j, ProbeReport& r);

/// Parses a probe report from text that may carry other lines around the JSON document
/// (container logs): the document starts at the first line that begins with `{`.
/// Throws `parse_error` saying what was found instead.
ProbeReport parse_probe_report(std::string_view full_text);

}  // namespace tfjob::gpu

#if TFJOB_SDK_DEFINE_GPU
#include <tfjob/gpu/impl/probe_report_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_GPU
