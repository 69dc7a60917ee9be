#pragma once
/// \file The bodies of <tfjob/gpu/probe_report.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_GPU` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/gpu/probe_report.hpp>, never this file.

namespace tfjob::gpu {

namespace detail {
/// nlohmann converts a JSON float to an integer with a plain cast, which is undefined
/// behaviour outside the integer's range (a fuzz finding: 2e+93 as a count): refuse it.
template <class T>
inline void check_integral_range(const nlohmann::json& v, const char* key) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    if (v.is_number_float()) {
      const double d = v.get<double>();
      if (!(d >= static_cast<double>(std::numeric_limits<T>::min()) &&
            d <= static_cast<double>(std::numeric_limits<T>::max())))
        throw parse_error(std::string("probe report: \"") + key + "\" is out of range for an integer");
    }
  }
}
template <class T>
inline void get_if(const nlohmann::json& j, const char* key, T& out) {
  auto it = j.find(key);
  if (it != j.end() && !it->is_null()) {
    check_integral_range<T>(*it, key);
    it->get_to(out);
  }
}
template <class T>
inline void get_if(const nlohmann::json& j, const char* key, std::optional<T>& out) {
  auto it = j.find(key);
  if (it != j.end() && !it->is_null()) {
    check_integral_range<T>(*it, key);
    out = it->get<T>();
  } else {
    out.reset();
  }
}
template <class T>
inline nlohmann::json opt(const std::optional<T>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}
}  // namespace detail

TFJOB_INLINE std::string Finding::to_string() const {
  return (device >= 0 ? "gpu" + std::to_string(device) + " " : std::string()) + check + ": " + message.str();
}

TFJOB_INLINE std::string DeviceReport::compute_capability() const { return std::to_string(cc_major) + "." + std::to_string(cc_minor); }

TFJOB_INLINE int DriverInfo::branch() const {
  int b = 0;
  for (char c : version) {
    if (c < '0' || c > '9') break;
    b = b * 10 + (c - '0');
  }
  return b;
}

TFJOB_INLINE int ProbeReport::exit_code() const {
  return status == "ready" ? probe_ready : status == "no-gpu" ? probe_no_gpu
       : status == "no-result" ? probe_no_result : probe_not_ready;
}

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const Finding& f) {
  j = {{"check", f.check}, {"message", f.message.str()}};
  if (f.device >= 0) j["device"] = f.device;
}

TFJOB_JSON_FN from_json(const TFJOB_JSON& j, Finding& f) {
  detail::get_if(j, "check", f.check);
  detail::get_if(j, "device", f.device);
  std::string message;
  detail::get_if(j, "message", message);
  f.message = message;
}

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const KernelCheck& c) {
  j = {{"ran", c.ran}, {"ok", c.ok}, {"elements", c.elements}, {"mismatches", c.mismatches},
       {"maxAbsError", c.max_abs_error}};
  if (!c.error.empty()) j["error"] = c.error;
}

TFJOB_JSON_FN from_json(const TFJOB_JSON& j, KernelCheck& c) {
  detail::get_if(j, "ran", c.ran);
  detail::get_if(j, "ok", c.ok);
  detail::get_if(j, "elements", c.elements);
  detail::get_if(j, "mismatches", c.mismatches);
  detail::get_if(j, "maxAbsError", c.max_abs_error);
  detail::get_if(j, "error", c.error);
}

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const BandwidthCheck& c) {
  j = {{"ran", c.ran}, {"GBps", c.gbps}, {"peakGBps", c.peak_gbps}, {"peakSource", c.peak_source},
       {"percentOfPeak", detail::opt(c.percent_of_peak)}, {"bytes", c.bytes}, {"runs", c.runs},
       {"method", c.method}};
  if (c.launches > 0) j["launches"] = c.launches;
  if (c.warmup_ms > 0) j["warmupMs"] = c.warmup_ms;
  if (c.verified) j["verified"] = *c.verified;
  if (!c.error.empty()) j["error"] = c.error;
}

TFJOB_JSON_FN from_json(const TFJOB_JSON& j, BandwidthCheck& c) {
  detail::get_if(j, "ran", c.ran);
  detail::get_if(j, "GBps", c.gbps);
  detail::get_if(j, "peakGBps", c.peak_gbps);
  detail::get_if(j, "peakSource", c.peak_source);
  detail::get_if(j, "percentOfPeak", c.percent_of_peak);
  detail::get_if(j, "bytes", c.bytes);
  detail::get_if(j, "runs", c.runs);
  detail::get_if(j, "method", c.method);
  detail::get_if(j, "launches", c.launches);
  detail::get_if(j, "warmupMs", c.warmup_ms);
  detail::get_if(j, "verified", c.verified);
  detail::get_if(j, "error", c.error);
}

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const GemmCheck& c) {
  j = {{"ran", c.ran}, {"verified", c.verified}, {"n", c.n}, {"runs", c.runs}, {"TFLOPS", c.tflops},
       {"peakTFLOPS", c.peak_tflops}, {"percentOfPeak", detail::opt(c.percent_of_peak)},
       {"maxRelError", c.max_rel_error}};
  if (c.launches > 0) j["launches"] = c.launches;
  if (c.warmup_ms > 0) j["warmupMs"] = c.warmup_ms;
  if (c.bit_exact) j["bitExact"] = *c.bit_exact;
  if (!c.error.empty()) j["error"] = c.error;
}

TFJOB_JSON_FN from_json(const TFJOB_JSON& j, GemmCheck& c) {
  detail::get_if(j, "ran", c.ran);
  detail::get_if(j, "verified", c.verified);
  detail::get_if(j, "n", c.n);
  detail::get_if(j, "runs", c.runs);
  detail::get_if(j, "TFLOPS", c.tflops);
  detail::get_if(j, "peakTFLOPS", c.peak_tflops);
  detail::get_if(j, "percentOfPeak", c.percent_of_peak);
  detail::get_if(j, "maxRelError", c.max_rel_error);
  detail::get_if(j, "launches", c.launches);
  detail::get_if(j, "warmupMs", c.warmup_ms);
  detail::get_if(j, "bitExact", c.bit_exact);
  detail::get_if(j, "error", c.error);
}

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const TransferCheck& c) {
  j = {{"ran", c.ran}, {"h2dGBps", c.h2d_gbps}, {"d2hGBps", c.d2h_gbps}, {"bytes", c.bytes}};
  if (!c.error.empty()) j["error"] = c.error;
}

TFJOB_JSON_FN from_json(const TFJOB_JSON& j, TransferCheck& c) {
  detail::get_if(j, "ran", c.ran);
  detail::get_if(j, "h2dGBps", c.h2d_gbps);
  detail::get_if(j, "d2hGBps", c.d2h_gbps);
  detail::get_if(j, "bytes", c.bytes);
  detail::get_if(j, "error", c.error);
}

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const EccCounts& c) {
  j = {{"volatileSbe", detail::opt(c.volatile_sbe)}, {"volatileDbe", detail::opt(c.volatile_dbe)},
       {"aggregateSbe", detail::opt(c.aggregate_sbe)}, {"aggregateDbe", detail::opt(c.aggregate_dbe)}};
}

TFJOB_JSON_FN from_json(const TFJOB_JSON& j, EccCounts& c) {
  detail::get_if(j, "volatileSbe", c.volatile_sbe);
  detail::get_if(j, "volatileDbe", c.volatile_dbe);
  detail::get_if(j, "aggregateSbe", c.aggregate_sbe);
  detail::get_if(j, "aggregateDbe", c.aggregate_dbe);
}

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const RetiredPages& p) {
  j = {{"sbe", detail::opt(p.sbe)}, {"dbe", detail::opt(p.dbe)}, {"pending", detail::opt(p.pending)}};
}

TFJOB_JSON_FN from_json(const TFJOB_JSON& j, RetiredPages& p) {
  detail::get_if(j, "sbe", p.sbe);
  detail::get_if(j, "dbe", p.dbe);
  detail::get_if(j, "pending", p.pending);
}

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const RowRemap& r) {
  j = {{"correctable", r.correctable}, {"uncorrectable", r.uncorrectable}, {"pending", r.pending}, {"failure", r.failure}};
}

TFJOB_JSON_FN from_json(const TFJOB_JSON& j, RowRemap& r) {
  detail::get_if(j, "correctable", r.correctable);
  detail::get_if(j, "uncorrectable", r.uncorrectable);
  detail::get_if(j, "pending", r.pending);
  detail::get_if(j, "failure", r.failure);
}

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const PcieLink& p) {
  j = {{"genCurrent", detail::opt(p.gen_current)}, {"genMax", detail::opt(p.gen_max)},
       {"widthCurrent", detail::opt(p.width_current)}, {"widthMax", detail::opt(p.width_max)},
       {"readWhileBusy", p.read_while_busy}};
}

TFJOB_JSON_FN from_json(const TFJOB_JSON& j, PcieLink& p) {
  detail::get_if(j, "genCurrent", p.gen_current);
  detail::get_if(j, "genMax", p.gen_max);
  detail::get_if(j, "widthCurrent", p.width_current);
  detail::get_if(j, "widthMax", p.width_max);
  detail::get_if(j, "readWhileBusy", p.read_while_busy);
}

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const NvlinkLink& l) { j = {{"link", l.link}, {"active", l.active}}; }

TFJOB_JSON_FN from_json(const TFJOB_JSON& j, NvlinkLink& l) {
  detail::get_if(j, "link", l.link);
  detail::get_if(j, "active", l.active);
}

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const DeviceHealth& h) {
  j = {{"read", h.read},
       {"eccPending", detail::opt(h.ecc_pending)},
       {"ecc", h.ecc},
       {"retiredPages", h.retired_pages ? nlohmann::json(*h.retired_pages) : nlohmann::json(nullptr)},
       {"rowRemap", h.row_remap ? nlohmann::json(*h.row_remap) : nlohmann::json(nullptr)},
       {"pcie", h.pcie},
       {"smClockMHz", detail::opt(h.sm_clock_mhz)},
       {"memoryClockMHz", detail::opt(h.memory_clock_mhz)},
       {"smClockMaxMHz", detail::opt(h.sm_clock_max_mhz)},
       {"memoryClockMaxMHz", detail::opt(h.memory_clock_max_mhz)},
       {"temperatureC", detail::opt(h.temperature_c)},
       {"powerW", detail::opt(h.power_w)},
       {"powerLimitW", detail::opt(h.power_limit_w)},
       {"throttleReasons", h.throttle_reasons},
       {"persistence", detail::opt(h.persistence)},
       {"migEnabled", detail::opt(h.mig_enabled)},
       {"migPending", detail::opt(h.mig_pending)},
       {"nvlink", h.nvlink},
       {"unsupported", h.unsupported}};
  if (!h.error.empty()) j["error"] = h.error;
}

TFJOB_JSON_FN from_json(const TFJOB_JSON& j, DeviceHealth& h) {
  detail::get_if(j, "read", h.read);
  detail::get_if(j, "error", h.error);
  detail::get_if(j, "eccPending", h.ecc_pending);
  detail::get_if(j, "ecc", h.ecc);
  detail::get_if(j, "retiredPages", h.retired_pages);
  detail::get_if(j, "rowRemap", h.row_remap);
  detail::get_if(j, "pcie", h.pcie);
  detail::get_if(j, "smClockMHz", h.sm_clock_mhz);
  detail::get_if(j, "memoryClockMHz", h.memory_clock_mhz);
  detail::get_if(j, "smClockMaxMHz", h.sm_clock_max_mhz);
  detail::get_if(j, "memoryClockMaxMHz", h.memory_clock_max_mhz);
  detail::get_if(j, "temperatureC", h.temperature_c);
  detail::get_if(j, "powerW", h.power_w);
  detail::get_if(j, "powerLimitW", h.power_limit_w);
  detail::get_if(j, "throttleReasons", h.throttle_reasons);
  detail::get_if(j, "persistence", h.persistence);
  detail::get_if(j, "migEnabled", h.mig_enabled);
  detail::get_if(j, "migPending", h.mig_pending);
  detail::get_if(j, "nvlink", h.nvlink);
  detail::get_if(j, "unsupported", h.unsupported);
}

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const XidEvent& e) {
  j = {{"device", e.device}, {"xid", e.xid}, {"atSeconds", e.at_seconds}};
}

TFJOB_JSON_FN from_json(const TFJOB_JSON& j, XidEvent& e) {
  detail::get_if(j, "device", e.device);
  detail::get_if(j, "xid", e.xid);
  detail::get_if(j, "atSeconds", e.at_seconds);
}

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const NvmlInfo& n) {
  j = {{"loaded", n.loaded}, {"deviceCount", detail::opt(n.device_count)}, {"events", n.events}};
  if (!n.error.empty()) j["error"] = n.error;
  if (!n.events_error.empty()) j["eventsError"] = n.events_error;
}

TFJOB_JSON_FN from_json(const TFJOB_JSON& j, NvmlInfo& n) {
  detail::get_if(j, "loaded", n.loaded);
  detail::get_if(j, "error", n.error);
  detail::get_if(j, "deviceCount", n.device_count);
  detail::get_if(j, "events", n.events);
  detail::get_if(j, "eventsError", n.events_error);
}

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const PeerCopy& p) {
  j = {{"src", p.src}, {"dst", p.dst}, {"canAccess", p.can_access}, {"ran", p.ran}, {"GBps", p.gbps},
       {"verified", detail::opt(p.verified)}, {"link", p.link}};
  if (!p.error.empty()) j["error"] = p.error;
}

TFJOB_JSON_FN from_json(const TFJOB_JSON& j, PeerCopy& p) {
  detail::get_if(j, "src", p.src);
  detail::get_if(j, "dst", p.dst);
  detail::get_if(j, "canAccess", p.can_access);
  detail::get_if(j, "ran", p.ran);
  detail::get_if(j, "GBps", p.gbps);
  detail::get_if(j, "verified", p.verified);
  detail::get_if(j, "link", p.link);
  detail::get_if(j, "error", p.error);
}

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const DeviceReport& d) {
  j = {{"index", d.index},
       {"name", d.name},
       {"uuid", d.uuid},
       {"pciBusId", d.pci_bus_id},
       {"computeCapability", d.compute_capability()},
       {"multiprocessors", d.multiprocessors},
       {"memoryTotalBytes", d.memory_total_bytes},
       {"memoryFreeBytes", d.memory_free_bytes},
       {"eccSupported", d.ecc_supported},
       {"eccEnabled", detail::opt(d.ecc_enabled)},
       {"clockMHz", d.clock_mhz},
       {"memoryClockMHz", d.memory_clock_mhz},
       {"memoryBusWidthBits", d.memory_bus_width_bits},
       {"spec", d.spec},
       {"elapsedSeconds", d.elapsed_seconds},
       {"checks",
        {{"kernel", d.kernel},
         {"bandwidth", d.bandwidth},
         {"gemmFp16", d.gemm_fp16},
         {"gemmFp32", d.gemm_fp32},
         {"pinned", d.pinned}}}};
  if (d.mig) j["mig"] = true;
  if (d.health) j["health"] = *d.health;
  if (!d.error.empty()) j["error"] = d.error;
}

TFJOB_JSON_FN from_json(const TFJOB_JSON& j, DeviceReport& d) {
  detail::get_if(j, "index", d.index);
  detail::get_if(j, "name", d.name);
  detail::get_if(j, "uuid", d.uuid);
  detail::get_if(j, "pciBusId", d.pci_bus_id);
  std::string cc;
  detail::get_if(j, "computeCapability", cc);
  auto dot = cc.find('.');
  if (dot != std::string::npos) {
    try {
      d.cc_major = std::stoi(cc.substr(0, dot));
      d.cc_minor = std::stoi(cc.substr(dot + 1));
    } catch (const std::exception&) {
      throw parse_error("probe report: device " + std::to_string(d.index) +
                        ": computeCapability \"" + cc + "\" is not MAJOR.MINOR");
    }
  }
  detail::get_if(j, "multiprocessors", d.multiprocessors);
  detail::get_if(j, "memoryTotalBytes", d.memory_total_bytes);
  detail::get_if(j, "memoryFreeBytes", d.memory_free_bytes);
  detail::get_if(j, "eccSupported", d.ecc_supported);
  detail::get_if(j, "eccEnabled", d.ecc_enabled);
  detail::get_if(j, "clockMHz", d.clock_mhz);
  detail::get_if(j, "memoryClockMHz", d.memory_clock_mhz);
  detail::get_if(j, "memoryBusWidthBits", d.memory_bus_width_bits);
  detail::get_if(j, "spec", d.spec);
  detail::get_if(j, "elapsedSeconds", d.elapsed_seconds);
  detail::get_if(j, "error", d.error);
  detail::get_if(j, "mig", d.mig);
  detail::get_if(j, "health", d.health);
  if (auto it = j.find("checks"); it != j.end() && it->is_object()) {
    detail::get_if(*it, "kernel", d.kernel);
    detail::get_if(*it, "bandwidth", d.bandwidth);
    detail::get_if(*it, "gemmFp16", d.gemm_fp16);
    detail::get_if(*it, "gemmFp32", d.gemm_fp32);
    detail::get_if(*it, "pinned", d.pinned);
  }
}

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const DriverInfo& d) {
  j = {{"present", d.present},
       {"version", d.version},
       {"versionSource", d.version_source},
       {"branch", d.branch()},
       {"cudaDriverVersion", d.cuda_driver_version},
       {"cudaRuntimeVersion", d.cuda_runtime_version},
       {"compatible", d.compatible}};
  if (!d.runtime_error.empty()) {
    j["runtimeError"] = d.runtime_error;
    j["runtimeErrorMessage"] = d.runtime_error_message;
  }
}

TFJOB_JSON_FN from_json(const TFJOB_JSON& j, DriverInfo& d) {
  detail::get_if(j, "present", d.present);
  detail::get_if(j, "version", d.version);
  detail::get_if(j, "versionSource", d.version_source);
  detail::get_if(j, "cudaDriverVersion", d.cuda_driver_version);
  detail::get_if(j, "cudaRuntimeVersion", d.cuda_runtime_version);
  detail::get_if(j, "compatible", d.compatible);
  detail::get_if(j, "runtimeError", d.runtime_error);
  detail::get_if(j, "runtimeErrorMessage", d.runtime_error_message);
}

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const ProbeInfo& p) {
  j = {{"version", p.version}, {"cudaToolkit", p.cuda_toolkit}, {"architectures", p.architectures},
       {"hostname", p.hostname}, {"nodeName", p.node_name}, {"elapsedSeconds", p.elapsed_seconds}};
}

TFJOB_JSON_FN from_json(const TFJOB_JSON& j, ProbeInfo& p) {
  detail::get_if(j, "version", p.version);
  detail::get_if(j, "cudaToolkit", p.cuda_toolkit);
  detail::get_if(j, "architectures", p.architectures);
  detail::get_if(j, "hostname", p.hostname);
  detail::get_if(j, "nodeName", p.node_name);
  detail::get_if(j, "elapsedSeconds", p.elapsed_seconds);
}

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const ProbeReport& r) {
  j = {{"schema", r.schema},
       {"revision", r.revision},
       {"status", r.status},
       {"ready", r.ready()},
       {"message", r.message},
       {"expect", r.expect.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.expect)},
       {"probe", r.probe},
       {"driver", r.driver},
       {"devices", r.devices},
       {"peerAccess", r.peer_access},
       {"peers", r.peers},
       {"nvml", r.nvml},
       {"xidEvents", r.xid_events},
       {"strict", r.strict},
       {"failures", r.failures},
       {"warnings", r.warnings}};
  if (!r.cuda_visible_devices.empty()) j["cudaVisibleDevices"] = r.cuda_visible_devices;
}

TFJOB_JSON_FN from_json(const TFJOB_JSON& j, ProbeReport& r) {
  if (!j.is_object()) throw parse_error("probe report: expected a JSON object");
  r.schema.clear();
  detail::get_if(j, "schema", r.schema);
  if (r.schema.rfind("kubectl-tfjob/gpu-probe/v1", 0) != 0)
    throw parse_error("probe report: unsupported schema \"" + r.schema + "\" (this build reads " +
                      probe_schema + "); use a probe image that matches this kubectl-tfjob");
  r.revision = 1;
  detail::get_if(j, "revision", r.revision);
  detail::get_if(j, "status", r.status);
  detail::get_if(j, "message", r.message);
  detail::get_if(j, "expect", r.expect);
  detail::get_if(j, "probe", r.probe);
  detail::get_if(j, "driver", r.driver);
  detail::get_if(j, "devices", r.devices);
  detail::get_if(j, "peerAccess", r.peer_access);
  detail::get_if(j, "peers", r.peers);
  detail::get_if(j, "nvml", r.nvml);
  detail::get_if(j, "xidEvents", r.xid_events);
  detail::get_if(j, "cudaVisibleDevices", r.cuda_visible_devices);
  detail::get_if(j, "strict", r.strict);
  detail::get_if(j, "failures", r.failures);
  detail::get_if(j, "warnings", r.warnings);
}

TFJOB_INLINE ProbeReport parse_probe_report(std::string_view full_text) {
  // A pod's log merges the probe's stdout (the JSON) and stderr (its "tfjob-gpu-probe: ..."
  // progress lines), and the container runtime may interleave them at any pipe write (seen
  // on the real node: a stderr line between "{" and the next line). No line of the JSON
  // starts with that prefix, so those lines are dropped before the JSON is looked for.
  std::string kept;
  kept.reserve(full_text.size());
  for (std::size_t pos = 0; pos < full_text.size();) {
    auto nl = full_text.find('\n', pos);
    auto line = full_text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos + 1);
    if (line.rfind("tfjob-gpu-probe: ", 0) != 0) kept.append(line);
    if (nl == std::string_view::npos) break;
    pos = nl + 1;
  }
  const std::string_view text = kept;
  std::size_t start = std::string_view::npos;
  for (std::size_t pos = 0; pos < text.size();) {
    if (text[pos] == '{') { start = pos; break; }
    auto nl = text.find('\n', pos);
    if (nl == std::string_view::npos) break;
    pos = nl + 1;
  }
  if (start == std::string_view::npos) {
    std::string head(text.substr(0, 200));
    throw parse_error("no probe JSON found in the output" +
                      (head.empty() ? std::string(" (it was empty)") : ": \"" + head + "\""));
  }
  auto end = text.rfind('}');
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text.substr(start, end - start + 1));
  } catch (const nlohmann::json::exception& e) {
    // parse_error, or out_of_range.406 for a number beyond a double ("1e999"); said
    // without the JSON library's "[json.exception...]" tag
    std::string msg = e.what();
    auto tag = msg.rfind("] ", msg.find(' ') == std::string::npos ? 0 : msg.find(' '));
    throw parse_error("probe output is not valid JSON: " + (msg.rfind("[json.exception.", 0) == 0 && tag != std::string::npos ? msg.substr(tag + 2) : msg));
  }
  try {
    return j.get<ProbeReport>();
  } catch (const nlohmann::json::exception& e) {
    throw parse_error(std::string("probe report has a field of the wrong type: ") + e.what());
  }
}

}  // namespace tfjob::gpu
