#pragma once
// NVML, the driver's management library, behind an interface: `NvmlApi` mirrors the few
// NVML calls the probe makes (same arguments, NVML's return codes), `DlNvml` loads
// libnvidia-ml.so.1 at run time (like libcuda: a machine without a driver still gets a
// report) and answers NVML_ERROR_FUNCTION_NOT_FOUND for a symbol an old driver lacks, and
// tests implement the interface to play old drivers, boards without NVLink, MIG and Xids.
// On top: `read_health` (one device's ECC, retired pages / row remapping, PCIe, clocks,
// power, persistence, MIG, NVLink), `sample_busy` (what changes under load) and
// `XidWatcher` (NVML's event API for the whole run). Host C++ only, no NVIDIA headers:
// the types and constants are NVML's public ABI (nvml.h).
#include <tfjob/gpu/probe_report.hpp>

#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstring>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace tfjob_probe {

// nvmlReturn_t values the probe distinguishes (nvml.h).
inline constexpr int nvml_success = 0;
inline constexpr int nvml_error_invalid_argument = 2;
inline constexpr int nvml_error_not_supported = 3;
inline constexpr int nvml_error_no_permission = 4;
inline constexpr int nvml_error_insufficient_size = 7;
inline constexpr int nvml_error_timeout = 10;
inline constexpr int nvml_error_function_not_found = 13;
inline constexpr int nvml_error_gpu_is_lost = 15;

// nvmlClocksEventReasons (formerly ClocksThrottleReasons) bits (nvml.h).
inline constexpr std::uint64_t nvml_clocks_sw_power_cap = 0x4;
inline constexpr std::uint64_t nvml_clocks_hw_slowdown = 0x8;
inline constexpr std::uint64_t nvml_clocks_sync_boost = 0x10;
inline constexpr std::uint64_t nvml_clocks_sw_thermal = 0x20;
inline constexpr std::uint64_t nvml_clocks_hw_thermal = 0x40;
inline constexpr std::uint64_t nvml_clocks_hw_power_brake = 0x80;
// nvmlEventTypeXidCriticalError (nvml.h).
inline constexpr std::uint64_t nvml_event_xid = 0x8;
// NVML_NVLINK_MAX_LINKS is 18 in current nvml.h (6 on V100, 12 on A100, 18 on H100).
inline constexpr unsigned nvml_nvlink_max_links = 18;

/// The words the report uses for the throttle (clock event) bits; unknown bits are skipped.
inline std::vector<std::string> throttle_reason_names(std::uint64_t mask) {
  std::vector<std::string> out;
  const std::pair<std::uint64_t, const char*> names[] = {
      {nvml_clocks_sw_power_cap, "sw-power-cap"}, {nvml_clocks_hw_slowdown, "hw-slowdown"},
      {nvml_clocks_sync_boost, "sync-boost"},     {nvml_clocks_sw_thermal, "sw-thermal"},
      {nvml_clocks_hw_thermal, "hw-thermal"},     {nvml_clocks_hw_power_brake, "hw-power-brake"}};
  for (const auto& [bit, name] : names)
    if (mask & bit) out.push_back(name);
  return out;
}

/// One Xid event as nvmlEventSetWait_v2 delivers it.
struct NvmlEvent {
  void* device = nullptr;
  std::uint64_t type = 0;
  std::uint64_t data = 0;  ///< the Xid for nvmlEventTypeXidCriticalError
};

/// The NVML calls the probe makes. Each returns an nvmlReturn_t value.
class NvmlApi {
 public:
  using Device = void*;
  virtual ~NvmlApi() = default;
  /// libnvidia-ml.so.1 loaded and nvmlInit_v2 succeeded.
  virtual bool loaded() const = 0;
  /// Why not ("" when loaded).
  virtual std::string load_error() const = 0;
  virtual int driver_version(std::string& out) = 0;
  virtual int device_count(unsigned& out) = 0;
  virtual int handle_by_pci_bus_id(const std::string& bus_id, Device& out) = 0;
  virtual int ecc_mode(Device d, unsigned& current, unsigned& pending) = 0;
  /// error_type 0 corrected (single-bit), 1 uncorrected (double-bit); counter 0 volatile, 1 aggregate.
  virtual int total_ecc_errors(Device d, int error_type, int counter, std::uint64_t& out) = 0;
  /// cause 0 multiple single-bit errors, 1 a double-bit error.
  virtual int retired_pages(Device d, int cause, unsigned& count) = 0;
  virtual int retired_pages_pending(Device d, unsigned& pending) = 0;
  virtual int remapped_rows(Device d, unsigned& corrected, unsigned& uncorrected, unsigned& pending, unsigned& failure) = 0;
  virtual int pcie_gen(Device d, bool max, unsigned& out) = 0;
  virtual int pcie_width(Device d, bool max, unsigned& out) = 0;
  /// clock 1 SM, 2 memory (nvmlClockType_t).
  virtual int clock(Device d, int clock, bool max, unsigned& mhz) = 0;
  virtual int temperature(Device d, unsigned& celsius) = 0;
  virtual int power_usage(Device d, unsigned& milliwatts) = 0;
  virtual int power_limit(Device d, unsigned& milliwatts) = 0;
  virtual int throttle_reasons(Device d, std::uint64_t& mask) = 0;
  virtual int persistence_mode(Device d, unsigned& enabled) = 0;
  virtual int mig_mode(Device d, unsigned& current, unsigned& pending) = 0;
  virtual int nvlink_state(Device d, unsigned link, unsigned& active) = 0;
  /// NVML_NVLINK_CAP_P2P_SUPPORTED... not needed: a peer is "nvlink" when a link's remote
  /// PCI bus id is the peer's.
  virtual int nvlink_remote_bus_id(Device d, unsigned link, std::string& bus_id) = 0;
  // The event API: a set, registered per device for Xid events, waited on with a timeout.
  virtual int event_set_create(void*& set) = 0;
  virtual int register_events(Device d, std::uint64_t types, void* set) = 0;
  virtual int event_set_wait(void* set, NvmlEvent& out, unsigned timeout_ms) = 0;
  virtual int event_set_free(void* set) = 0;
};

/// The words for an NVML return code in the report.
inline std::string nvml_error_text(int rc) {
  switch (rc) {
    case nvml_error_not_supported: return "not supported";
    case nvml_error_no_permission: return "no permission";
    case nvml_error_function_not_found: return "function not found (driver too old)";
    case nvml_error_gpu_is_lost: return "the GPU is lost (fallen off the bus)";
    case nvml_error_invalid_argument: return "invalid argument";
    default: return "NVML error " + std::to_string(rc);
  }
}

/// NVML from the driver, loaded with dlopen.
class DlNvml final : public NvmlApi {
 public:
  explicit DlNvml(const char* soname = "libnvidia-ml.so.1") {
    lib_ = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (!lib_) {
      const char* e = dlerror();
      error_ = std::string(soname) + " could not be loaded" + (e ? std::string(": ") + e : std::string());
      return;
    }
    auto init = sym<int (*)()>("nvmlInit_v2");
    if (!init) {
      error_ = std::string(soname) + " has no nvmlInit_v2 (a driver older than R325?)";
      return;
    }
    int rc = init();
    if (rc != nvml_success) {
      error_ = "nvmlInit_v2 failed: " + nvml_error_text(rc);
      return;
    }
    ok_ = true;
  }
  ~DlNvml() override {
    if (ok_)
      if (auto shutdown = sym<int (*)()>("nvmlShutdown")) shutdown();
    if (lib_) dlclose(lib_);
  }
  DlNvml(const DlNvml&) = delete;
  DlNvml& operator=(const DlNvml&) = delete;

  bool loaded() const override { return ok_; }
  std::string load_error() const override { return error_; }

  int driver_version(std::string& out) override {
    char buf[96] = {0};
    int rc = call<int (*)(char*, unsigned)>("nvmlSystemGetDriverVersion", buf, unsigned(sizeof buf));
    if (rc == nvml_success) out = buf;
    return rc;
  }
  int device_count(unsigned& out) override { return call<int (*)(unsigned*)>("nvmlDeviceGetCount_v2", &out); }
  int handle_by_pci_bus_id(const std::string& bus_id, Device& out) override {
    return call<int (*)(const char*, Device*)>("nvmlDeviceGetHandleByPciBusId_v2", bus_id.c_str(), &out);
  }
  int ecc_mode(Device d, unsigned& current, unsigned& pending) override {
    return call<int (*)(Device, unsigned*, unsigned*)>("nvmlDeviceGetEccMode", d, &current, &pending);
  }
  int total_ecc_errors(Device d, int error_type, int counter, std::uint64_t& out) override {
    unsigned long long v = 0;
    int rc = call<int (*)(Device, int, int, unsigned long long*)>("nvmlDeviceGetTotalEccErrors", d, error_type, counter, &v);
    out = v;
    return rc;
  }
  int retired_pages(Device d, int cause, unsigned& count) override {
    // With a zero-sized buffer NVML returns the count (and INSUFFICIENT_SIZE when there are any).
    count = 0;
    int rc = call<int (*)(Device, int, unsigned*, unsigned long long*)>("nvmlDeviceGetRetiredPages", d, cause, &count, nullptr);
    return rc == nvml_error_insufficient_size ? nvml_success : rc;
  }
  int retired_pages_pending(Device d, unsigned& pending) override {
    return call<int (*)(Device, unsigned*)>("nvmlDeviceGetRetiredPagesPendingStatus", d, &pending);
  }
  int remapped_rows(Device d, unsigned& c, unsigned& u, unsigned& p, unsigned& f) override {
    return call<int (*)(Device, unsigned*, unsigned*, unsigned*, unsigned*)>("nvmlDeviceGetRemappedRows", d, &c, &u, &p, &f);
  }
  int pcie_gen(Device d, bool max, unsigned& out) override {
    return call<int (*)(Device, unsigned*)>(max ? "nvmlDeviceGetMaxPcieLinkGeneration" : "nvmlDeviceGetCurrPcieLinkGeneration", d, &out);
  }
  int pcie_width(Device d, bool max, unsigned& out) override {
    return call<int (*)(Device, unsigned*)>(max ? "nvmlDeviceGetMaxPcieLinkWidth" : "nvmlDeviceGetCurrPcieLinkWidth", d, &out);
  }
  int clock(Device d, int clock, bool max, unsigned& mhz) override {
    return call<int (*)(Device, int, unsigned*)>(max ? "nvmlDeviceGetMaxClockInfo" : "nvmlDeviceGetClockInfo", d, clock, &mhz);
  }
  int temperature(Device d, unsigned& c) override {
    return call<int (*)(Device, int, unsigned*)>("nvmlDeviceGetTemperature", d, 0 /* NVML_TEMPERATURE_GPU */, &c);
  }
  int power_usage(Device d, unsigned& mw) override { return call<int (*)(Device, unsigned*)>("nvmlDeviceGetPowerUsage", d, &mw); }
  int power_limit(Device d, unsigned& mw) override {
    return call<int (*)(Device, unsigned*)>("nvmlDeviceGetEnforcedPowerLimit", d, &mw);
  }
  int throttle_reasons(Device d, std::uint64_t& mask) override {
    unsigned long long v = 0;
    // Renamed in R535 (nvmlDeviceGetCurrentClocksEventReasons); the old name stays exported.
    int rc = call<int (*)(Device, unsigned long long*)>("nvmlDeviceGetCurrentClocksEventReasons", d, &v);
    if (rc == nvml_error_function_not_found)
      rc = call<int (*)(Device, unsigned long long*)>("nvmlDeviceGetCurrentClocksThrottleReasons", d, &v);
    mask = v;
    return rc;
  }
  int persistence_mode(Device d, unsigned& e) override {
    return call<int (*)(Device, unsigned*)>("nvmlDeviceGetPersistenceMode", d, &e);
  }
  int mig_mode(Device d, unsigned& c, unsigned& p) override {
    return call<int (*)(Device, unsigned*, unsigned*)>("nvmlDeviceGetMigMode", d, &c, &p);
  }
  int nvlink_state(Device d, unsigned link, unsigned& active) override {
    return call<int (*)(Device, unsigned, unsigned*)>("nvmlDeviceGetNvLinkState", d, link, &active);
  }
  int nvlink_remote_bus_id(Device d, unsigned link, std::string& bus_id) override {
    // nvmlPciInfo_t (v3 layout): busIdLegacy[16], domain, bus, device, pciDeviceId,
    // pciSubSystemId, busId[32]. Read into a generous buffer and take busId.
    struct PciInfo {
      char bus_id_legacy[16];
      unsigned domain, bus, device, pci_device_id, pci_sub_system_id;
      char bus_id[32];
      char reserved[64];
    } info{};
    int rc = call<int (*)(Device, unsigned, PciInfo*)>("nvmlDeviceGetNvLinkRemotePciInfo_v2", d, link, &info);
    if (rc == nvml_success) bus_id.assign(info.bus_id, strnlen(info.bus_id, sizeof info.bus_id));
    return rc;
  }
  int event_set_create(void*& set) override { return call<int (*)(void**)>("nvmlEventSetCreate", &set); }
  int register_events(Device d, std::uint64_t types, void* set) override {
    return call<int (*)(Device, unsigned long long, void*)>("nvmlDeviceRegisterEvents", d, types, set);
  }
  int event_set_wait(void* set, NvmlEvent& out, unsigned timeout_ms) override {
    // nvmlEventData_t: device, eventType, eventData, gpuInstanceId, computeInstanceId.
    struct EventData {
      void* device;
      unsigned long long type, data;
      unsigned gpu_instance, compute_instance;
    } e{};
    int rc = call<int (*)(void*, EventData*, unsigned)>("nvmlEventSetWait_v2", set, &e, timeout_ms);
    if (rc == nvml_success) out = {e.device, e.type, e.data};
    return rc;
  }
  int event_set_free(void* set) override { return call<int (*)(void*)>("nvmlEventSetFree", set); }

 private:
  template <class F>
  F sym(const char* name) const {
    return lib_ ? reinterpret_cast<F>(dlsym(lib_, name)) : nullptr;
  }
  template <class F, class... A>
  int call(const char* name, A... args) {
    if (!ok_) return 1;  // NVML_ERROR_UNINITIALIZED
    F f = sym<F>(name);
    if (!f) return nvml_error_function_not_found;
    return f(args...);
  }
  void* lib_ = nullptr;
  bool ok_ = false;
  std::string error_;
};

/// Reads what NVML knows about the device at `bus_id` (CUDA's PCI bus id). Anything NVML
/// cannot answer is named in `unsupported`, never guessed.
inline tfjob::gpu::DeviceHealth read_health(NvmlApi& nvml, const std::string& bus_id) {
  tfjob::gpu::DeviceHealth h;
  if (!nvml.loaded()) {
    h.error = "NVML not loaded: " + nvml.load_error();
    return h;
  }
  NvmlApi::Device d = nullptr;
  if (int rc = nvml.handle_by_pci_bus_id(bus_id, d); rc != nvml_success) {
    h.error = "NVML has no device at " + bus_id + ": " + nvml_error_text(rc);
    return h;
  }
  h.read = true;
  auto note = [&](const char* what, int rc) { h.unsupported.push_back(std::string(what) + ": " + nvml_error_text(rc)); };
  unsigned cur = 0, pend = 0;
  if (int rc = nvml.ecc_mode(d, cur, pend); rc == nvml_success) {
    h.ecc_pending = pend == 1;
    std::uint64_t v = 0;
    if (cur == 1) {
      if (nvml.total_ecc_errors(d, 0, 0, v) == nvml_success) h.ecc.volatile_sbe = v;
      if (nvml.total_ecc_errors(d, 1, 0, v) == nvml_success) h.ecc.volatile_dbe = v;
      if (nvml.total_ecc_errors(d, 0, 1, v) == nvml_success) h.ecc.aggregate_sbe = v;
      if (nvml.total_ecc_errors(d, 1, 1, v) == nvml_success) h.ecc.aggregate_dbe = v;
    }
  } else {
    note("ecc", rc);
  }
  // Volta/Turing retire pages; Ampere and newer remap rows instead (and answer "not
  // supported" to the other call).
  tfjob::gpu::RetiredPages rp;
  unsigned n = 0;
  int rc_sbe = nvml.retired_pages(d, 0, n);
  if (rc_sbe == nvml_success) rp.sbe = n;
  int rc_dbe = nvml.retired_pages(d, 1, n);
  if (rc_dbe == nvml_success) rp.dbe = n;
  int rc_pend = nvml.retired_pages_pending(d, pend);
  if (rc_pend == nvml_success) rp.pending = pend == 1;
  if (rp.sbe || rp.dbe || rp.pending) h.retired_pages = rp;
  else note("retiredPages", rc_pend != nvml_success ? rc_pend : rc_sbe);
  unsigned c = 0, u = 0, p = 0, f = 0;
  if (int rc = nvml.remapped_rows(d, c, u, p, f); rc == nvml_success)
    h.row_remap = tfjob::gpu::RowRemap{c, u, p != 0, f != 0};
  else
    note("rowRemap", rc);
  unsigned v = 0;
  if (int rc = nvml.pcie_gen(d, true, v); rc == nvml_success) h.pcie.gen_max = int(v); else note("pcieGenMax", rc);
  if (int rc = nvml.pcie_width(d, true, v); rc == nvml_success) h.pcie.width_max = int(v); else note("pcieWidthMax", rc);
  if (nvml.pcie_gen(d, false, v) == nvml_success) h.pcie.gen_current = int(v);
  if (nvml.pcie_width(d, false, v) == nvml_success) h.pcie.width_current = int(v);
  if (nvml.clock(d, 1, true, v) == nvml_success) h.sm_clock_max_mhz = int(v);
  if (nvml.clock(d, 2, true, v) == nvml_success) h.memory_clock_max_mhz = int(v);
  if (int rc = nvml.power_limit(d, v); rc == nvml_success) h.power_limit_w = v / 1000.0; else note("powerLimit", rc);
  if (int rc = nvml.persistence_mode(d, v); rc == nvml_success) h.persistence = v == 1; else note("persistence", rc);
  if (int rc = nvml.mig_mode(d, cur, pend); rc == nvml_success) {
    h.mig_enabled = cur == 1;
    h.mig_pending = pend == 1;
  } else {
    note("mig", rc);
  }
  for (unsigned link = 0; link < nvml_nvlink_max_links; ++link) {
    unsigned active = 0;
    int rc = nvml.nvlink_state(d, link, active);
    if (rc != nvml_success) {
      if (link == 0) note("nvlink", rc);  // a board without NVLink
      break;  // past the board's last link
    }
    h.nvlink.push_back({int(link), active == 1});
  }
  return h;
}

/// What changes under load, read while the GEMM runs: PCIe link (an idle link trains down),
/// clocks, temperature, power and the throttle reasons (OR-ed over every sample).
inline void sample_busy(NvmlApi& nvml, const std::string& bus_id, tfjob::gpu::DeviceHealth& h, std::uint64_t& throttle) {
  if (!nvml.loaded() || !h.read) return;
  NvmlApi::Device d = nullptr;
  if (nvml.handle_by_pci_bus_id(bus_id, d) != nvml_success) return;
  unsigned v = 0;
  if (nvml.pcie_gen(d, false, v) == nvml_success) {
    h.pcie.gen_current = int(v);
    h.pcie.read_while_busy = true;
  }
  if (nvml.pcie_width(d, false, v) == nvml_success) h.pcie.width_current = int(v);
  if (nvml.clock(d, 1, false, v) == nvml_success) h.sm_clock_mhz = int(v);
  if (nvml.clock(d, 2, false, v) == nvml_success) h.memory_clock_mhz = int(v);
  if (nvml.temperature(d, v) == nvml_success) h.temperature_c = std::max(h.temperature_c.value_or(0), int(v));
  if (nvml.power_usage(d, v) == nvml_success) h.power_w = std::max(h.power_w.value_or(0), v / 1000.0);
  std::uint64_t m = 0;
  if (nvml.throttle_reasons(d, m) == nvml_success) throttle |= m;
  h.throttle_reasons = throttle_reason_names(throttle);
}

/// Watches NVML's Xid events for the probe's whole run on a thread of its own.
class XidWatcher {
 public:
  /// `devices`: the CUDA index and PCI bus id of every device to watch.
  XidWatcher(NvmlApi& nvml, const std::vector<std::pair<int, std::string>>& devices,
             std::chrono::steady_clock::time_point t0)
      : nvml_(nvml), t0_(t0) {
    if (!nvml.loaded()) {
      error_ = "NVML not loaded";
      return;
    }
    if (int rc = nvml.event_set_create(set_); rc != nvml_success) {
      error_ = "nvmlEventSetCreate: " + nvml_error_text(rc);
      set_ = nullptr;
      return;
    }
    for (const auto& [index, bus] : devices) {
      NvmlApi::Device d = nullptr;
      if (nvml.handle_by_pci_bus_id(bus, d) != nvml_success) continue;
      int rc = nvml.register_events(d, nvml_event_xid, set_);
      if (rc == nvml_success) {
        handles_.push_back({d, index});
      } else {
        error_ += (error_.empty() ? "" : "; ") + std::string("gpu") + std::to_string(index) +
                  ": nvmlDeviceRegisterEvents: " + nvml_error_text(rc);
      }
    }
    if (handles_.empty()) return;
    thread_ = std::thread([this] { loop(); });
  }
  ~XidWatcher() { stop(); }
  XidWatcher(const XidWatcher&) = delete;
  XidWatcher& operator=(const XidWatcher&) = delete;

  /// Ends the watch (after one last look) and frees the event set.
  void stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
    if (set_) {
      nvml_.event_set_free(set_);
      set_ = nullptr;
    }
  }
  bool watching() const { return !handles_.empty(); }
  std::string error() const { return error_; }
  std::vector<tfjob::gpu::XidEvent> events() const {
    std::lock_guard<std::mutex> lk(mu_);
    return events_;
  }

 private:
  void loop() {
    for (;;) {
      const bool last = stop_.load();
      NvmlEvent e;
      int rc = nvml_.event_set_wait(set_, e, last ? 0 : 100);
      if (rc == nvml_success) {
        int index = -1;
        for (const auto& [h, i] : handles_)
          if (h == e.device) index = i;
        std::lock_guard<std::mutex> lk(mu_);
        events_.push_back({index, e.data, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count()});
        continue;  // drain what is queued before stopping
      }
      if (last) return;
      if (rc != nvml_error_timeout) std::this_thread::sleep_for(std::chrono::milliseconds(50));  // not busy-loop on errors
    }
  }
  NvmlApi& nvml_;
  std::chrono::steady_clock::time_point t0_;
  void* set_ = nullptr;
  std::vector<std::pair<NvmlApi::Device, int>> handles_;
  std::thread thread_;
  std::atomic<bool> stop_{false};
  mutable std::mutex mu_;
  std::vector<tfjob::gpu::XidEvent> events_;
  std::string error_;
};

/// "nvlink" when one of `src`'s NVLink links ends at `dst_bus_id`, "pcie" when NVML answered
/// and none does, "" when NVML could not tell.
inline std::string peer_link(NvmlApi& nvml, const std::string& src_bus_id, const std::string& dst_bus_id) {
  if (!nvml.loaded()) return "";
  NvmlApi::Device d = nullptr;
  if (nvml.handle_by_pci_bus_id(src_bus_id, d) != nvml_success) return "";
  auto norm = [](std::string s) {  // "00000000:3B:00.0" vs "0000:3b:00.0"
    for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    auto colon = s.find(':');
    if (colon != std::string::npos && colon > 4) s = s.substr(colon - 4);
    return s;
  };
  for (unsigned link = 0; link < nvml_nvlink_max_links; ++link) {
    unsigned active = 0;
    if (nvml.nvlink_state(d, link, active) != nvml_success) break;
    std::string remote;
    if (active && nvml.nvlink_remote_bus_id(d, link, remote) == nvml_success && norm(remote) == norm(dst_bus_id))
      return "nvlink";
  }
  return "pcie";
}

}  // namespace tfjob_probe
