// The probe's host side (gpu/src/probe.hpp, gpu/src/nvml.hpp) without a GPU: NVML and CUDA
// are interfaces, played here by fakes that are drivers and GPUs constructed for the test
// (none of these figures was measured). What is proven: NVML's absence (no library, an old
// driver lacking functions, a board without NVLink, MIG) is reported and never guessed;
// every GPU is probed at the same time; NVML is sampled while the GEMM runs; a runtime that
// cannot start is "not ready: runtime", not "no GPU"; NVML's count is checked against
// CUDA's; Xid events during the run judge the node; every GPU pair gets a real copy; a hung
// GPU gives a "no result" report from the watchdog. The real DlNvml is loaded on this
// machine too (no driver here: it must say why).
#include <catch2/catch.hpp>

#include "../gpu/src/probe.hpp"

#include <atomic>
#include <condition_variable>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <set>
#include <sstream>

using namespace tfjob_probe;
using tfjob::gpu::ProbeReport;

namespace {

/// A constructed NVML: per device (keyed by PCI bus id) the answers NVML would give.
struct FakeGpu {
  std::string bus;
  int ecc_rc = nvml_success;
  unsigned ecc_current = 1;
  std::uint64_t vol_sbe = 0, vol_dbe = 0, agg_sbe = 0, agg_dbe = 0;
  int retired_rc = nvml_success;  ///< Volta/Turing answer; Ampere+ says not supported
  unsigned retired_sbe = 0, retired_dbe = 0, retired_pending = 0;
  int remap_rc = nvml_error_not_supported;
  unsigned remap_corr = 0, remap_unc = 0, remap_pending = 0, remap_failure = 0;
  unsigned gen_max = 3, width_max = 16, gen_idle = 1, width_idle = 16, gen_busy = 3, width_busy = 16;
  std::uint64_t throttle_busy = nvml_clocks_sw_power_cap;
  unsigned temp = 61, power_mw = 250000, limit_mw = 300000;
  int mig_rc = nvml_error_not_supported;
  unsigned mig = 0;
  int links = 0;                 ///< NVLink links (0: the call is not supported)
  std::set<unsigned> links_down;
  std::map<unsigned, std::string> link_peer;  ///< link -> remote bus id
  std::atomic<bool> busy{false};  ///< the fake CUDA raises it while a GEMM batch runs
  std::atomic<int> busy_samples{0};
};

class FakeNvml final : public NvmlApi {
 public:
  bool present = true;
  std::set<std::string> missing;  ///< function names an old driver lacks
  std::vector<FakeGpu*> gpus;
  int count_override = -1;
  std::vector<NvmlEvent> pending_events;  ///< delivered once the event set exists
  std::mutex mu;
  std::atomic<bool> freed{false};
  std::vector<std::shared_ptr<FakeGpu>> owned;  ///< GPUs that must outlive a detached (hung) run

  bool loaded() const override { return present; }
  std::string load_error() const override { return present ? "" : "libnvidia-ml.so.1: cannot open shared object file"; }
  int driver_version(std::string& out) override {
    out = "580.95.05";
    return nvml_success;
  }
  int device_count(unsigned& out) override {
    out = count_override >= 0 ? unsigned(count_override) : unsigned(gpus.size());
    return nvml_success;
  }
  int handle_by_pci_bus_id(const std::string& bus, Device& out) override {
    for (auto* g : gpus)
      if (g->bus == bus) {
        out = g;
        return nvml_success;
      }
    return 6;  // NVML_ERROR_NOT_FOUND
  }
  static FakeGpu& g(Device d) { return *static_cast<FakeGpu*>(d); }
  int ecc_mode(Device d, unsigned& c, unsigned& p) override {
    c = g(d).ecc_current;
    p = c;
    return g(d).ecc_rc;
  }
  int total_ecc_errors(Device d, int type, int counter, std::uint64_t& out) override {
    out = type == 0 ? (counter == 0 ? g(d).vol_sbe : g(d).agg_sbe) : (counter == 0 ? g(d).vol_dbe : g(d).agg_dbe);
    return nvml_success;
  }
  int retired_pages(Device d, int cause, unsigned& n) override {
    if (missing.count("nvmlDeviceGetRetiredPages")) return nvml_error_function_not_found;
    n = cause == 0 ? g(d).retired_sbe : g(d).retired_dbe;
    return g(d).retired_rc;
  }
  int retired_pages_pending(Device d, unsigned& p) override {
    if (missing.count("nvmlDeviceGetRetiredPagesPendingStatus")) return nvml_error_function_not_found;
    p = g(d).retired_pending;
    return g(d).retired_rc;
  }
  int remapped_rows(Device d, unsigned& c, unsigned& u, unsigned& p, unsigned& f) override {
    if (missing.count("nvmlDeviceGetRemappedRows")) return nvml_error_function_not_found;
    c = g(d).remap_corr, u = g(d).remap_unc, p = g(d).remap_pending, f = g(d).remap_failure;
    return g(d).remap_rc;
  }
  int pcie_gen(Device d, bool max, unsigned& out) override {
    out = max ? g(d).gen_max : g(d).busy ? g(d).gen_busy : g(d).gen_idle;
    if (!max && g(d).busy) ++g(d).busy_samples;
    return nvml_success;
  }
  int pcie_width(Device d, bool max, unsigned& out) override {
    out = max ? g(d).width_max : g(d).busy ? g(d).width_busy : g(d).width_idle;
    return nvml_success;
  }
  int clock(Device d, int, bool max, unsigned& mhz) override {
    mhz = max ? 1530 : (g(d).busy ? 1380 : 135);
    return nvml_success;
  }
  int temperature(Device d, unsigned& c) override {
    c = g(d).temp;
    return nvml_success;
  }
  int power_usage(Device d, unsigned& mw) override {
    mw = g(d).power_mw;
    return nvml_success;
  }
  int power_limit(Device d, unsigned& mw) override {
    mw = g(d).limit_mw;
    return nvml_success;
  }
  int throttle_reasons(Device d, std::uint64_t& mask) override {
    mask = g(d).busy ? g(d).throttle_busy : 0x1 /* idle */;
    return nvml_success;
  }
  int persistence_mode(Device, unsigned& e) override {
    e = 1;
    return nvml_success;
  }
  int mig_mode(Device d, unsigned& c, unsigned& p) override {
    c = p = g(d).mig;
    return g(d).mig_rc;
  }
  int nvlink_state(Device d, unsigned link, unsigned& active) override {
    if (missing.count("nvmlDeviceGetNvLinkState")) return nvml_error_function_not_found;
    if (g(d).links == 0) return nvml_error_not_supported;
    if (int(link) >= g(d).links) return nvml_error_invalid_argument;
    active = g(d).links_down.count(link) ? 0 : 1;
    return nvml_success;
  }
  int nvlink_remote_bus_id(Device d, unsigned link, std::string& bus) override {
    auto it = g(d).link_peer.find(link);
    if (it == g(d).link_peer.end()) return nvml_error_not_supported;
    bus = it->second;
    return nvml_success;
  }
  int event_set_create(void*& set) override {
    if (missing.count("nvmlEventSetCreate")) return nvml_error_function_not_found;
    set = this;
    return nvml_success;
  }
  int register_events(Device, std::uint64_t types, void*) override {
    return types == nvml_event_xid ? nvml_success : nvml_error_not_supported;
  }
  int event_set_wait(void*, NvmlEvent& out, unsigned) override {
    std::lock_guard<std::mutex> lk(mu);
    if (pending_events.empty()) return nvml_error_timeout;
    out = pending_events.front();
    pending_events.erase(pending_events.begin());
    return nvml_success;
  }
  int event_set_free(void*) override {
    freed = true;
    return nvml_success;
  }
};

/// A constructed CUDA runtime with `n` V100s, each answering as a healthy V100 would.
class FakeCuda final : public CudaApi {
 public:
  explicit FakeCuda(int n, FakeNvml* nvml = nullptr) : count(n), nvml_(nvml) {}
  int count;
  RuntimeInfo runtime{12080, 12080, 0, 0, "", "", false, false, false};
  std::string name = "Tesla V100-SXM2-16GB";
  bool gemm_bits_differ = false;
  double fp16_tflops = 98.0;
  int cc_major = 7, cc_minor = 0;
  bool peer_corrupt = false;
  bool can_access = true;
  std::atomic<bool> hang{false};
  std::mutex hang_mu;
  std::condition_variable hang_cv;
  bool release = false;
  // concurrency: how many devices were inside a GEMM at once
  std::atomic<int> inside{0}, max_inside{0};
  std::atomic<int> peer_copies{0};

  RuntimeInfo query_runtime() override {
    RuntimeInfo r = runtime;
    if (r.error_code == 0) r.device_count = count;
    return r;
  }
  DeviceProps query_device(int dev) override {
    DeviceProps p;
    p.name = name;
    p.uuid = "GPU-constructed-" + std::to_string(dev);
    p.pci_bus_id = bus(dev);
    p.cc_major = cc_major;
    p.cc_minor = cc_minor;
    p.multiprocessors = 80;
    p.memory_total = 16ull << 30;
    p.memory_free = 15ull << 30;
    p.ecc_enabled = 1;
    p.clock_khz = 1530000;
    p.memory_clock_khz = 877000;
    p.bus_width_bits = 4096;
    return p;
  }
  static std::string bus(int dev) { return "00000000:0" + std::to_string(dev + 1) + ":00.0"; }
  KernelResult kernel_check(int, std::uint64_t) override { return {true, true, 16842752, 0, 0, ""}; }
  BandwidthResult bandwidth(int, std::uint64_t) override {
    BandwidthResult b;
    b.ran = true;
    b.gbps = 810;
    b.bytes = 1 << 30;
    b.runs = 7;
    b.launches = 20;
    b.warmup_ms = 210;
    b.verified = true;
    b.method = "copy-kernel";
    return b;
  }
  GemmResult gemm(int dev, bool fp16, std::uint64_t, std::uint64_t, const std::function<void()>& busy) override {
    int now = ++inside;
    int prev = max_inside.load();
    while (now > prev && !max_inside.compare_exchange_weak(prev, now)) {
    }
    if (hang) {
      std::unique_lock<std::mutex> lk(hang_mu);
      hang_cv.wait(lk, [&] { return release; });
    }
    // Wait (bounded) until every device is inside: proves they run at the same time.
    for (int i = 0; i < 200 && max_inside.load() < count; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    FakeGpu* g = nullptr;
    if (nvml_)
      for (auto* x : nvml_->gpus)
        if (x->bus == bus(dev)) g = x;
    if (g) g->busy = true;
    if (busy) busy();
    if (g) g->busy = false;
    --inside;
    GemmResult r;
    r.ran = true;
    r.verified = true;
    r.bit_exact = !gemm_bits_differ;
    r.n = 8192;
    r.runs = 3;
    r.launches = fp16 ? 6 : 1;
    r.warmup_ms = fp16 ? 205 : 230;
    r.tflops = fp16 ? fp16_tflops : 14.1;
    r.max_rel_error = 1e-5;
    return r;
  }
  TransferResult pinned(int) override { return {true, 12.1, 13.0, 256 << 20, ""}; }
  std::vector<std::vector<bool>> peer_matrix(int n) override {
    std::vector<std::vector<bool>> m(std::size_t(n), std::vector<bool>(std::size_t(n), can_access));
    for (int i = 0; i < n; ++i) m[std::size_t(i)][std::size_t(i)] = false;
    return m;
  }
  PeerCopyResult peer_copy(int, int, std::uint64_t) override {
    ++peer_copies;
    return {true, !peer_corrupt, 45.0, 64 << 20, ""};
  }

 private:
  FakeNvml* nvml_;
};

ProbeConfig config() {
  ProbeConfig c;
  c.version = "0.1.0";
  c.cuda_toolkit = "12.8";
  c.libcuda_present = true;
  c.watchdog_seconds = 30;
  return c;
}

struct Rig {
  std::vector<std::unique_ptr<FakeGpu>> gpus;
  FakeNvml nvml;
  FakeCuda cuda;
  explicit Rig(int n) : cuda(n, &nvml) {
    for (int i = 0; i < n; ++i) {
      gpus.push_back(std::make_unique<FakeGpu>());
      gpus.back()->bus = FakeCuda::bus(i);
      nvml.gpus.push_back(gpus.back().get());
    }
  }
  ProbeReport run(ProbeConfig c = config()) {
    Stages st;
    return run_probe(c, cuda, nvml, st);
  }
};

bool has(const std::vector<tfjob::gpu::Finding>& fs, const std::string& check, int device = -2) {
  for (const auto& f : fs)
    if (f.check == check && (device == -2 || f.device == device)) return true;
  return false;
}

}  // namespace

TEST_CASE("probe host: a healthy constructed V100 node with NVML is ready, health read, NVML sampled under load", "[gpu][probe]") {
  Rig rig(2);
  auto r = rig.run();
  INFO(nlohmann::json(r).dump(2));
  CHECK(r.status == "ready");
  CHECK(r.revision == tfjob::gpu::probe_report_revision);
  CHECK(r.nvml.loaded);
  CHECK(r.nvml.device_count == 2);
  CHECK(r.nvml.events);
  CHECK(rig.nvml.freed);  // the event set is released
  CHECK(r.driver.version == "580.95.05");
  REQUIRE(r.devices.size() == 2);
  const auto& h = r.devices[0].health;
  REQUIRE(h);
  CHECK(h->read);
  CHECK(h->ecc.volatile_dbe == 0u);
  REQUIRE(h->retired_pages);            // Volta: page retirement
  CHECK_FALSE(h->row_remap.has_value());  // ... no row remapping
  CHECK(std::find(h->unsupported.begin(), h->unsupported.end(), "rowRemap: not supported") != h->unsupported.end());
  // read while the GEMM ran: Gen3 (idle would be Gen1), SM clock up, the SW power cap seen
  CHECK(h->pcie.read_while_busy);
  CHECK(h->pcie.gen_current == 3);
  CHECK(h->sm_clock_mhz == 1380);
  CHECK(h->throttle_reasons == std::vector<std::string>{"sw-power-cap"});
  CHECK(rig.gpus[0]->busy_samples > 0);
  CHECK(h->nvlink.empty());  // no NVLink on this constructed board: not a warning
  CHECK(r.warnings.empty());
  // both GPUs were inside their GEMM at the same time
  CHECK(rig.cuda.max_inside == 2);
  // every ordered pair copied for real
  CHECK(rig.cuda.peer_copies == 2);
  REQUIRE(r.peers.size() == 2);
  CHECK(r.peers[0].verified == true);
  CHECK(r.peers[0].link == "pcie");
  CHECK(r.devices[0].bandwidth.verified == true);
  CHECK(r.devices[0].gemm_fp16.bit_exact == true);
  // the report survives JSON
  auto back = tfjob::gpu::parse_probe_report(nlohmann::json(r).dump());
  CHECK(back.devices[0].health->pcie.gen_current == 3);
  CHECK(back.revision == 2);
  // how each figure was timed travels with it: the warm-up (>= 200 ms so clocks ramp) and
  // the launches per event pair the measurement chose
  CHECK(back.devices[0].bandwidth.launches == 20);
  CHECK(back.devices[0].bandwidth.warmup_ms == 210);
  CHECK(back.devices[0].gemm_fp16.launches == 6);
  CHECK(back.devices[0].gemm_fp16.warmup_ms == 205);
  CHECK(back.devices[0].gemm_fp32.launches == 1);
}

TEST_CASE("probe host: without NVML (no driver library, an old driver) nothing is guessed", "[gpu][probe]") {
  SECTION("no libnvidia-ml at all: measured by CUDA, health says why it is missing") {
    Rig rig(1);
    rig.nvml.present = false;
    auto r = rig.run();
    CHECK(r.status == "ready");
    CHECK_FALSE(r.nvml.loaded);
    CHECK_THAT(r.nvml.error, Catch::Contains("libnvidia-ml.so.1"));
    REQUIRE(r.devices[0].health);
    CHECK_FALSE(r.devices[0].health->read);
    CHECK_THAT(r.devices[0].health->error, Catch::Contains("NVML not loaded"));
    CHECK(r.devices[0].ecc_enabled == true);  // from the runtime's ECCEnabled
  }
  SECTION("an old driver lacking row remapping, NVLink and event functions") {
    Rig rig(1);
    rig.nvml.missing = {"nvmlDeviceGetRemappedRows", "nvmlDeviceGetNvLinkState", "nvmlEventSetCreate"};
    auto r = rig.run();
    CHECK(r.status == "ready");
    const auto& h = *r.devices[0].health;
    CHECK(std::find(h.unsupported.begin(), h.unsupported.end(), "rowRemap: function not found (driver too old)") !=
          h.unsupported.end());
    CHECK(std::find(h.unsupported.begin(), h.unsupported.end(), "nvlink: function not found (driver too old)") !=
          h.unsupported.end());
    CHECK_FALSE(r.nvml.events);
    CHECK_THAT(r.nvml.events_error, Catch::Contains("nvmlEventSetCreate"));
  }
}

TEST_CASE("probe host: the real NVML loader on this machine", "[gpu][probe]") {
  DlNvml nvml("libnvidia-ml-absent-for-this-test.so.1");
  CHECK_FALSE(nvml.loaded());
  CHECK_THAT(nvml.load_error(), Catch::Contains("could not be loaded"));
  unsigned n = 0;
  CHECK(nvml.device_count(n) != nvml_success);
  auto h = read_health(nvml, "00000000:01:00.0");
  CHECK_FALSE(h.read);
  // The driver's library: it loads exactly where the NVIDIA kernel driver is (decided apart
  // from NVML, by the driver's own /proc file), and then answers; elsewhere it says why not.
  DlNvml real;
  std::ifstream proc("/proc/driver/nvidia/version");
  INFO("load error: " << real.load_error());
  if (proc) {
    REQUIRE(real.loaded());
    CHECK(real.load_error().empty());
    std::string version;
    CHECK(real.driver_version(version) == nvml_success);
    std::string proc_text((std::istreambuf_iterator<char>(proc)), std::istreambuf_iterator<char>());
    CHECK_FALSE(version.empty());
    CHECK(proc_text.find(version) != std::string::npos);  // "NVRM version: ... Kernel Module  <version> ..."
    unsigned count = 0;
    CHECK(real.device_count(count) == nvml_success);
    CHECK(count > 0);
  } else {
    CHECK_FALSE(real.loaded());
    CHECK_THAT(real.load_error(), Catch::Contains("libnvidia-ml.so.1") || Catch::Contains("nvmlInit_v2"));
  }
}

TEST_CASE("probe host: health verdicts on constructed GPUs", "[gpu][probe]") {
  SECTION("a double-bit ECC error since the driver loaded is not ready") {
    Rig rig(1);
    rig.gpus[0]->vol_dbe = 1;
    rig.gpus[0]->agg_dbe = 3;
    auto r = rig.run();
    CHECK(r.status == "not-ready");
    CHECK(has(r.failures, "ecc-dbe", 0));
  }
  SECTION("a pending page retirement (Volta) is not ready") {
    Rig rig(1);
    rig.gpus[0]->retired_dbe = 1;
    rig.gpus[0]->retired_pending = 1;
    auto r = rig.run();
    CHECK(has(r.failures, "retired-pages", 0));
    CHECK(r.devices[0].health->retired_pages->dbe == 1u);
  }
  SECTION("Ampere: a pending row remap, and a remapping failure, are not ready") {
    Rig rig(1);
    rig.cuda.name = "NVIDIA A100-SXM4-80GB";
    rig.cuda.cc_major = 8;
    rig.cuda.fp16_tflops = 250;
    rig.gpus[0]->retired_rc = nvml_error_not_supported;
    rig.gpus[0]->remap_rc = nvml_success;
    rig.gpus[0]->remap_unc = 1;
    rig.gpus[0]->remap_pending = 1;
    auto r = rig.run();
    CHECK_FALSE(r.devices[0].health->retired_pages.has_value());
    REQUIRE(r.devices[0].health->row_remap);
    INFO(nlohmann::json(r.failures).dump(2));
    CHECK(r.failures.size() == 1);
    CHECK(has(r.failures, "row-remap", 0));
    CHECK_THAT(r.message, Catch::Contains("pending"));
    rig.gpus[0]->remap_pending = 0;
    rig.gpus[0]->remap_failure = 1;
    r = rig.run();
    CHECK(has(r.failures, "row-remap", 0));
    CHECK_THAT(r.message, Catch::Contains("RMA"));
  }
  SECTION("PCIe below its maximum under load, HW slowdown, an NVLink link down: warnings; --strict fails them") {
    Rig rig(2);
    rig.gpus[0]->gen_busy = 3;
    rig.gpus[0]->width_busy = 8;  // trained at x8
    rig.gpus[0]->throttle_busy = nvml_clocks_sw_power_cap | nvml_clocks_hw_slowdown | nvml_clocks_hw_thermal;
    for (auto& g : rig.gpus) {
      g->links = 6;
      g->link_peer = {{0, FakeCuda::bus(g.get() == rig.gpus[0].get() ? 1 : 0)}};
    }
    rig.gpus[1]->links_down = {4, 5};
    auto r = rig.run();
    INFO(nlohmann::json(r.warnings).dump(2));
    CHECK(r.status == "ready");
    CHECK(has(r.warnings, "pcie", 0));
    CHECK_THAT(r.warnings[0].message.str(), Catch::Contains("Gen3 x8 under load") && Catch::Contains("Gen3 x16"));
    CHECK(has(r.warnings, "throttle", 0));
    CHECK(has(r.warnings, "nvlink", 1));
    CHECK_FALSE(has(r.warnings, "nvlink", 0));
    REQUIRE(r.peers.size() == 2);
    CHECK(r.peers[0].link == "nvlink");
    auto c = config();
    c.verdict.strict = true;
    r = rig.run(c);
    CHECK(r.status == "not-ready");
    CHECK(r.strict);
    CHECK(has(r.failures, "pcie", 0));
    CHECK(has(r.failures, "throttle", 0));
    CHECK(has(r.failures, "nvlink", 1));
    CHECK(r.warnings.empty());
  }
  SECTION("an idle link at Gen1 is not judged: only a reading under load counts") {
    Rig rig(1);
    rig.gpus[0]->gen_idle = 1;
    rig.gpus[0]->gen_busy = 3;
    auto r = rig.run();
    CHECK_FALSE(has(r.warnings, "pcie"));
  }
  SECTION("a critical Xid during the run is not ready; an application Xid is a warning") {
    Rig rig(2);
    rig.nvml.pending_events = {{rig.gpus[1].get(), nvml_event_xid, 79}, {rig.gpus[0].get(), nvml_event_xid, 13}};
    auto r = rig.run();
    REQUIRE(r.xid_events.size() == 2);
    CHECK(has(r.failures, "xid", 1));
    CHECK_THAT(r.message, Catch::Contains("Xid 79") && Catch::Contains("fallen off the bus"));
    CHECK(has(r.warnings, "xid", 0));
  }
  SECTION("GEMM bits that differ between two runs, a corrupted peer copy") {
    Rig rig(2);
    rig.cuda.gemm_bits_differ = true;
    rig.cuda.peer_corrupt = true;
    auto r = rig.run();
    CHECK(has(r.failures, "gemm-fp16", 0));
    CHECK(has(r.failures, "p2p", 0));
    CHECK(has(r.failures, "p2p", 1));
  }
  SECTION("MIG: slices are not judged against the full card's peaks") {
    Rig rig(1);
    rig.cuda.name = "NVIDIA A100-SXM4-80GB MIG 1g.10gb";
    rig.cuda.cc_major = 8;
    rig.gpus[0]->mig_rc = nvml_success;
    rig.gpus[0]->mig = 1;
    auto r = rig.run();  // 810 GB/s and 98 TFLOP/s would be far below an A100's peaks
    CHECK(r.devices[0].mig);
    CHECK_FALSE(r.devices[0].bandwidth.percent_of_peak.has_value());
    CHECK_FALSE(r.devices[0].gemm_fp16.percent_of_peak.has_value());
    CHECK(r.status == "ready");
  }
}

TEST_CASE("probe host: runtime failures, device counts, no driver", "[gpu][probe]") {
  SECTION("cudaErrorSystemDriverMismatch is not ready: runtime, not no GPU") {
    Rig rig(1);
    rig.cuda.runtime.error_code = 803;
    rig.cuda.runtime.error_name = "cudaErrorSystemDriverMismatch";
    rig.cuda.runtime.error_message = "system has unsupported display driver / cuda driver combination";
    rig.cuda.runtime.driver_version = 0;
    auto r = rig.run();
    CHECK(r.status == "not-ready");
    CHECK(r.exit_code() == tfjob::gpu::probe_not_ready);
    CHECK(has(r.failures, "runtime", -1));
    CHECK_THAT(r.message, Catch::Contains("cudaErrorSystemDriverMismatch") && Catch::Contains("reboot"));
  }
  SECTION("NVML sees more GPUs than CUDA: a GPU is unusable") {
    Rig rig(2);
    rig.nvml.count_override = 3;
    auto r = rig.run();
    CHECK(has(r.failures, "device-count", -1));
    auto c = config();
    c.cuda_visible_devices = "0,1";  // CUDA was told to see fewer: not judged
    r = rig.run(c);
    CHECK_FALSE(has(r.failures, "device-count"));
  }
  SECTION("no libcuda: no GPU, exit 2, the message the real-node tier expects") {
    Rig rig(0);
    rig.nvml.present = false;
    auto c = config();
    c.libcuda_present = false;
    rig.cuda.runtime.error_code = 35;
    rig.cuda.runtime.error_name = "cudaErrorInsufficientDriver";
    rig.cuda.runtime.insufficient_driver = true;
    auto r = rig.run(c);
    CHECK(r.status == "no-gpu");
    CHECK(r.exit_code() == 2);
    CHECK_THAT(r.message, Catch::StartsWith("no NVIDIA driver: libcuda.so.1 could not be loaded"));
  }
  SECTION("a driver too old for a CUDA 13 build names R580") {
    Rig rig(1);
    auto c = config();
    c.cuda_toolkit = "13.0";
    rig.cuda.runtime.runtime_version = 13000;
    rig.cuda.runtime.driver_version = 12080;
    rig.cuda.runtime.error_code = 35;
    rig.cuda.runtime.error_name = "cudaErrorInsufficientDriver";
    rig.cuda.runtime.insufficient_driver = true;
    auto r = rig.run(c);
    CHECK(r.status == "not-ready");
    CHECK_THAT(r.failures[0].message.str(), Catch::Contains("R580 or newer for a CUDA 13.0 build"));
  }
}

TEST_CASE("probe host: the watchdog turns a hung GPU into a no-result report", "[gpu][probe]") {
  auto nvml = std::make_shared<FakeNvml>();
  auto gpu = std::make_shared<FakeGpu>();
  gpu->bus = FakeCuda::bus(0);
  nvml->gpus.push_back(gpu.get());
  nvml->owned.push_back(gpu);
  auto cuda = std::make_shared<FakeCuda>(1, nvml.get());
  cuda->hang = true;
  auto c = config();
  c.watchdog_seconds = 1;
  auto r = run_probe_with_watchdog(c, cuda, nvml);
  CHECK(r.status == "no-result");
  CHECK(r.exit_code() == tfjob::gpu::probe_no_result);
  CHECK_THAT(r.message, Catch::Contains("within 1 s") && Catch::Contains("gpu0 in gemm-fp16"));
  std::ostringstream human;
  print_human(r, human);
  CHECK_THAT(human.str(), Catch::Contains("NO RESULT"));
  // The judge keeps the verdict (gpu-check re-evaluates reports).
  auto back = tfjob::gpu::parse_probe_report(nlohmann::json(r).dump());
  tfjob::gpu::evaluate(back);
  CHECK(back.status == "no-result");
  // release the hung worker so it ends before the fakes go (it holds them by shared_ptr)
  {
    std::lock_guard<std::mutex> lk(cuda->hang_mu);
    cuda->release = true;
  }
  cuda->hang_cv.notify_all();
  // ... and a run that finishes in time is its own report
  cuda->hang = false;
  c.watchdog_seconds = 30;
  r = run_probe_with_watchdog(c, cuda, nvml);
  CHECK(r.status == "ready");
}
