#pragma once
// The CUDA side of the probe (measure.cu), behind a plain C++ interface so that the
// host side (probe_main.cpp, compiled by the C++ compiler) needs no CUDA headers.
// Every function catches its own CUDA/cuBLAS errors and reports them in `error`.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace tfjob_probe {

/// What the runtime says about the driver.
struct RuntimeInfo {
  int driver_version = 0;   ///< cudaDriverGetVersion (CUDA version the driver supports)
  int runtime_version = 0;  ///< cudaRuntimeGetVersion
  int device_count = 0;
  int error_code = 0;       ///< cudaGetDeviceCount's error (0 = success)
  std::string error_name;   ///< e.g. cudaErrorInsufficientDriver
  std::string error_message;
  bool insufficient_driver = false;
  bool no_device = false;
  bool stub_library = false;
};
RuntimeInfo query_runtime();

struct DeviceProps {
  std::string name, uuid, pci_bus_id;
  int cc_major = 0, cc_minor = 0, multiprocessors = 0;
  std::uint64_t memory_total = 0, memory_free = 0;
  int ecc_enabled = 0;
  int clock_khz = 0, memory_clock_khz = 0, bus_width_bits = 0;
  std::string error;
};
DeviceProps query_device(int dev);

struct KernelResult {
  bool ran = false, ok = false;
  std::int64_t elements = 0, mismatches = 0;
  double max_abs_error = 0;
  std::string error;
};
KernelResult run_kernel_check(int dev, std::uint64_t seed);

struct BandwidthResult {
  bool ran = false;
  double gbps = 0;
  std::int64_t bytes = 0;
  int runs = 0;               ///< timed event pairs (each over `launches` copies)
  int launches = 0;           ///< copies per event pair
  double warmup_ms = 0;       ///< the same work run first so clocks ramp up
  bool verified = false;      ///< the whole copied buffer compared with its source
  std::int64_t mismatches = 0;
  std::string method, error;
};
BandwidthResult run_bandwidth(int dev, std::uint64_t free_bytes);

struct GemmResult {
  bool ran = false, verified = false;
  bool bit_exact = false;     ///< two runs on the same inputs gave the same bits everywhere
  std::int64_t differing = 0; ///< entries that differed between the two runs
  int n = 0, runs = 0, launches = 0;
  double tflops = 0, max_rel_error = 0, warmup_ms = 0;
  std::string error;
};
/// fp16: FP16 inputs, FP32 accumulate and output, tensor cores; else plain FP32 SGEMM.
/// `while_busy` is called on the host while a batch of GEMMs is in flight (NVML samples).
GemmResult run_gemm(int dev, bool fp16, std::uint64_t free_bytes, std::uint64_t seed,
                    const std::function<void()>& while_busy = {});

struct TransferResult {
  bool ran = false;
  double h2d_gbps = 0, d2h_gbps = 0;
  std::int64_t bytes = 0;
  std::string error;
};
TransferResult run_pinned(int dev);

/// m[i][j]: device i can access device j's memory directly (diagonal false).
std::vector<std::vector<bool>> peer_matrix(int count);

/// A real copy from `src`'s memory to `dst`'s (peer access enabled when possible, else
/// staged by the driver), timed and verified on `dst`.
struct PeerCopyResult {
  bool ran = false, verified = false;
  double gbps = 0;
  std::int64_t bytes = 0;
  std::string error;
};
PeerCopyResult run_peer_copy(int src, int dst, std::uint64_t seed);

/// A human name for a runtime error code ("cudaErrorNoKernelImageForDevice: ...").
std::string describe_error(int code);

}  // namespace tfjob_probe
