// kubectl tfjob gpu-check: the GPU inventory of the cluster's nodes, then one probe pod per
// GPU node (in parallel) running tfjob-gpu-probe, and a table of what each node can do.
// The workflow is the SDK's (include/tfjob/gpu/check.hpp); this file parses flags, handles
// Ctrl-C/SIGTERM (the pods are still deleted) and prints.
#include "commands.hpp"
#include "../common/signals.hpp"
#include "../common/context.hpp"
#include "../common/flag_values.hpp"
#include "../common/output.hpp"
#include "../common/workflow_cli.hpp"

#include <tfjob/api/manifest.hpp>
#include <tfjob/gpu/check.hpp>
#include <tfjob/kube/detail/process.hpp>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <unistd.h>
#include <climits>
#include <cstring>

namespace tfjob::cli {
namespace {

struct GpuCheckOptions {
  std::string image = tfjob::gpu::default_probe_image;
  std::string expect;
  bool strict = false;
  int gpus = 0;
  std::vector<std::string> nodes;
  std::string timeout = "5m";
  std::string output;
  bool keep = false;
  bool local = false;
  bool inventory = false;  ///< --inventory: the nodes' GPUs, no probe
  std::string probe;  ///< --probe-path for --local
};

std::atomic<bool> g_interrupted{false};
std::atomic<int> g_signal{0};
extern "C" void on_gpu_check_signal(int sig) {
  g_signal.store(sig);
  g_interrupted.store(true);
}

std::string fmt(double v, int decimals) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

/// "812 (90%)" from the device figures (mean over the node's GPUs; "-" when none).
template <class Get, class Pct>
std::string figure(const tfjob::gpu::ProbeReport& r, Get get, Pct pct, int decimals) {
  double sum = 0, psum = 0;
  int n = 0, pn = 0;
  for (const auto& d : r.devices) {
    double v = get(d);
    if (v <= 0) continue;
    sum += v;
    ++n;
    if (auto p = pct(d)) {
      psum += *p;
      ++pn;
    }
  }
  if (n == 0) return "-";
  std::string s = fmt(sum / n, decimals);
  if (pn) s += " (" + fmt(psum / pn, 0) + "%)";
  return s;
}

std::string cuda_text(int v) { return v ? std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10) : "-"; }

void print_table(const tfjob::gpu::CheckResult& res, bool color, std::ostream& out) {
  using tfjob::gpu::ProbeReport;
  Table t({"NODE", "GPU", "COUNT", "CC", "DRIVER", "CUDA", "MEMORY", "BANDWIDTH GB/s", "FP16 TFLOP/s", "STATUS"}, Table::KeepCase{});
  std::vector<std::string> details;
  for (const auto& n : res.nodes) {
    std::string gpu = n.node.product().empty() ? "-" : n.node.product();
    std::string count = std::to_string(n.node.allocatable);
    if (n.node.unhealthy() > 0) count += "/" + std::to_string(n.node.capacity);
    std::string cc = "-", drv = "-", cuda = "-", mem = "-", bw = "-", fp16 = "-";
    if (n.report) {
      const ProbeReport& r = *n.report;
      if (!r.devices.empty()) {
        gpu = r.devices[0].name;
        count = std::to_string(r.devices.size());
        if (n.node.unhealthy() > 0) count += " (" + std::to_string(n.node.unhealthy()) + " unhealthy)";
        cc = r.devices[0].compute_capability();
        mem = fmt(double(r.devices[0].memory_total_bytes) / double(1ull << 30), 0) + " GiB";
      }
      drv = r.driver.version.empty() ? "-" : r.driver.version;
      cuda = cuda_text(r.driver.cuda_driver_version);
      bw = figure(r, [](const auto& d) { return d.bandwidth.gbps; }, [](const auto& d) { return d.bandwidth.percent_of_peak; }, 0);
      fp16 = figure(r, [](const auto& d) { return d.gemm_fp16.tflops; }, [](const auto& d) { return d.gemm_fp16.percent_of_peak; }, 1);
      for (const auto& f : r.failures) details.push_back(n.node.name + ": " + f.to_string());
      for (const auto& w : r.warnings) details.push_back(n.node.name + ": warning: " + w.to_string());
    }
    if (!n.ready() && (!n.report || n.report->failures.empty()) && !n.message.empty())
      details.push_back(n.node.name + ": " + n.message.str() +
                        (n.reason == "ImagePull" ? " (until a release publishes the probe image: build gpu/Dockerfile, push it to a "
                                                    "registry the nodes pull from and pass gpu-check --image "
                                                    "REGISTRY/gpu-probe:TAG; README step 3)"
                                                  : ""));
    for (const auto& note : n.node.notes) details.push_back(n.node.name + ": note: " + note);
    std::string status = to_string(n.status);
    for (auto& c : status) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    t.add_row({n.node.name, gpu, count, cc, drv, cuda, mem, bw, fp16, status});
    if (color) t.color_cell(t.size() - 1, 9, n.ready() ? color::green : color::red);
  }
  t.print(out);
  for (const auto& c : res.cluster_notes) details.push_back("cluster: " + c);
  if (!details.empty()) {
    out << "\n";
    for (const auto& d : details) out << d << "\n";
  }
}


/// Where --local finds the probe: --probe-path, $TFJOB_GPU_PROBE, next to this program,
/// the build tree's gpu/ beside plugin/, then PATH.
std::string find_local_probe(const std::string& flag) {
  if (!flag.empty()) return flag;
  if (const char* e = std::getenv("TFJOB_GPU_PROBE"); e && *e) return e;
  char self[PATH_MAX] = {0};
  ssize_t n = ::readlink("/proc/self/exe", self, sizeof self - 1);
  if (n > 0) {
    std::string dir(self, static_cast<std::size_t>(n));
    dir = dir.substr(0, dir.rfind('/'));
    for (const std::string& c : {dir + "/tfjob-gpu-probe", dir + "/../gpu/tfjob-gpu-probe"})
      if (::access(c.c_str(), X_OK) == 0) return c;
  }
  return "tfjob-gpu-probe";
}

/// Runs the local probe; returns its stdout and sets `code` to its exit status (the SDK's
/// child-process helper; its stderr is ours), or nullopt when it could not be started (said
/// on `err`).
std::optional<std::string> run_local_probe(const std::string& path, const std::string& expect, bool strict, int& code,
                                           std::ostream& err) {
  tfjob::kube::detail::ChildSpec spec;
  spec.program = path;
  spec.argv = {path};
  if (!expect.empty()) spec.argv.insert(spec.argv.end(), {"--expect", expect});
  if (strict) spec.argv.push_back("--strict");
  spec.stdin_null = false;
  auto child = tfjob::kube::detail::start_child(spec);
  if (child.pid < 0) throw tfjob::error(std::string("cannot start the probe: ") + std::strerror(child.exec_errno));
  std::string out;
  tfjob::kube::detail::read_to_end(child.out_fd, out);
  ::close(child.out_fd);
  code = tfjob::kube::detail::exit_code_of(tfjob::kube::detail::wait_child(child.pid));
  if (child.exec_errno != 0) {
    err << "error: cannot run the GPU probe \"" << path << "\": " << std::strerror(child.exec_errno)
        << " (build it with the gpu/ CMake target, or pass --probe-path / set TFJOB_GPU_PROBE)\n";
    return std::nullopt;
  }
  return out;
}

/// The result with the SDK's settings its messages name (VerdictOptions::strict, ...) worded
/// as this command's flags, for every output.
tfjob::gpu::CheckResult worded_result(tfjob::gpu::CheckResult res) {
  for (auto& n : res.nodes) {
    n.message = worded(n.message);
    if (!n.report) continue;
    for (auto* findings : {&n.report->warnings, &n.report->failures})
      for (auto& f : *findings) f.message = worded(f.message);
  }
  return res;
}

/// --inventory as a table: each GPU node's GPUs (allocatable of capacity), those the pods
/// bound to it hold, what is free, model, driver, architecture, and whether it is Ready;
/// then the notes.
void print_inventory(const tfjob::gpu::CheckResult& res, std::ostream& out) {
  Table t({"NODE", "GPU", "ALLOCATABLE", "HELD", "FREE", "DRIVER", "ARCH", "READY"}, Table::KeepCase{});
  std::vector<std::string> details;
  for (const auto& g : res.inventory) {
    std::string alloc = std::to_string(g.allocatable);
    if (g.capacity != g.allocatable) alloc += "/" + std::to_string(g.capacity);
    t.add_row({g.name, g.product().empty() ? "-" : g.product(), alloc, std::to_string(g.requested), std::to_string(g.free()),
               g.driver_version.empty() ? "-" : g.driver_version, g.architecture.empty() ? "-" : g.architecture,
               !g.ready ? "NotReady" : g.unschedulable ? "Cordoned" : "Ready"});
    for (const auto& note : g.notes) details.push_back(g.name + ": note: " + note);
  }
  t.print(out);
  for (const auto& c : res.cluster_notes) details.push_back("cluster: " + c);
  if (!details.empty()) {
    out << "\n";
    for (const auto& d : details) out << d << "\n";
  }
}

void print_result(const tfjob::gpu::CheckResult& result, const GpuCheckOptions& o, Context& ctx) {
  const tfjob::gpu::CheckResult res = worded_result(result);
  if (o.output == "json") {
    ctx.out << tfjob::gpu::check_result_json(res).dump(2) << "\n";
  } else if (o.output == "yaml") {
    ctx.out << tfjob::to_yaml(tfjob::gpu::check_result_json(res));
  } else if (o.inventory ? res.inventory.empty() : res.nodes.empty()) {
    ctx.err << "No GPU nodes found: no node has nvidia.com/gpu capacity or GPU labels.\n";
  } else if (o.inventory) {
    print_inventory(res, ctx.out);
  } else {
    print_table(res, use_color(ctx.globals().color, 1), ctx.out);
  }
}

/// gpu-check's outcomes in the tool's one exit-code table (command.hpp): ready 0, not ready
/// 1, no result 3, no GPU 4 (the probe binary's own table says 2 for no GPU, gpu/README.md).
int exit_for(const tfjob::gpu::CheckResult& res) {
  if (res.cancelled) return g_signal.load() == SIGTERM ? 143 : 130;
  switch (res.outcome()) {
    case tfjob::gpu::CheckOutcome::ready: return exit_code::ok;
    case tfjob::gpu::CheckOutcome::no_gpu: return exit_code::no_gpu;
    case tfjob::gpu::CheckOutcome::no_result: return exit_code::no_result;
    default: return exit_code::failure;
  }
}

struct GpuCheckCommand : GpuCheckOptions {
  void validate() {
    expect_norm = expect.empty() ? "" : tfjob::gpu::normalize_expect(expect);
    if (inventory && local) throw flag::usage("--inventory", "reads the cluster's nodes", "leave out --local, which probes this machine");
    // a flag the chosen way of checking never reads is refused, never ignored
    if (inventory)
      flag::refuse_given(*sub, {"--image", "--expect", "--strict", "--gpus", "--keep", "--probe-path", "--timeout"}, "with --inventory, which runs no probe",
                    "leave out one of them");
    else if (local)
      flag::refuse_given(*sub, {"--image", "--gpus", "--node", "--keep", "--timeout"}, "with --local, which probes this machine", "leave out one of them");
    else
      flag::refuse_given(*sub, {"--probe-path"}, "without --local (the cluster's probe pods run --image)", "add --local, or leave it out");
    if (local) return;  // --timeout bounds the probe pods only
    timeout_ms = wf::parse_duration(timeout, "--timeout");
  }
  int run(Context& ctx) const { return local ? run_here(ctx) : run_on_cluster(ctx); }
  const CLI::App* sub = nullptr;  ///< its command, to tell which flags were given


 private:
  std::string expect_norm;  ///< --expect, normalised
  std::chrono::milliseconds timeout_ms{0};
  /// --local: the probe on this machine, judged as a node's.
  int run_here(Context& ctx) const;
  /// A probe pod per GPU node.
  int run_on_cluster(Context& ctx) const;
};

int GpuCheckCommand::run_here(Context& ctx) const {
  const auto& o = *this;
  const std::string& expect = expect_norm;
  {
    int code = -1;
    std::string path = find_local_probe(o.probe);
    ctx.err << "running " << path << (expect.empty() ? "" : " --expect " + expect) << " on this machine\n";
    auto text = run_local_probe(path, expect, o.strict, code, ctx.err);
    if (!text) return exit_code::no_result;  // no probe ran: no result, not a node that failed
    tfjob::gpu::CheckResult res;
    res.run_id = "local";
    tfjob::gpu::NodeResult n;
    char host[256] = {0};
    ::gethostname(host, sizeof host - 1);
    n.node.name = std::string(host) + " (local)";
    n.exit_code = code;
    tfjob::gpu::VerdictOptions v;
    v.expect = expect;
    v.strict = o.strict;
    tfjob::gpu::judge_probe_output(n, *text, v);
    if (n.report) {
      n.node.allocatable = n.node.capacity = static_cast<std::int64_t>(n.report->devices.size());
    }
    res.nodes.push_back(std::move(n));
    print_result(res, o, ctx);
    return exit_for(res);
  }
}

int GpuCheckCommand::run_on_cluster(Context& ctx) const {
  const auto& o = *this;
  const std::string& expect = expect_norm;
  const auto timeout = timeout_ms;
  auto& client = ctx.client();
  tfjob::gpu::CheckOptions co;
  co.namespace_ = client.namespace_();
  co.image = o.image;
  co.expect = expect;
  co.strict = o.strict;
  co.gpus = o.gpus;
  co.nodes = o.nodes;
  co.keep = o.keep;
  co.deadline_seconds = static_cast<int>(timeout.count() / 1000);
  co.cancel = &g_interrupted;
  co.progress = [&ctx](const tfjob::Text& line) { ctx.err << worded(line) << "\n"; };
  if (o.inventory) {  // the nodes' GPUs as the cluster states them, nothing created
    co.progress = nullptr;  // the table says it
    auto res = tfjob::gpu::read_inventory(client, co);
    print_result(res, o, ctx);
    return res.inventory.empty() ? exit_code::no_gpu : exit_code::ok;
  }
  if (const char* p = std::getenv("TFJOB_GPU_CHECK_POLL_MS"); p && *p) {
    co.poll = std::chrono::milliseconds(std::atoi(p));
    co.running_every = std::max(co.poll, std::chrono::milliseconds(500));
  }
  g_interrupted.store(false);
  StopSignals guard(on_gpu_check_signal, SA_RESTART);  // requests in flight carry on; the workflow sees the flag
  auto res = tfjob::gpu::run_gpu_check(client, co);
  if (res.cancelled)
    ctx.err << "interrupted by " << (g_signal.load() == SIGTERM ? "SIGTERM" : "SIGINT")
              << (o.keep ? "; probe pods kept (--keep)" : "; probe pods deleted") << "\n";
  else if (o.keep)
    ctx.err << "probe pods kept (--keep): kubectl delete pods -n " << co.namespace_ << " -l "
              << tfjob::gpu::run_label << "=" << res.run_id << "\n";
  print_result(res, o, ctx);
  return exit_for(res);
}

}  // namespace

void setup_gpu_check(CLI::App& app, Globals& g) {
  auto o = std::make_shared<GpuCheckCommand>();
  auto* sub = app.add_subcommand("gpu-check", "Check every GPU node with an on-node CUDA probe (driver, GPUs, speed)");
  o->sub = sub;
  flag::text(*sub, "--image", o->image, "Probe image (built from gpu/Dockerfile, CUDA 12.x: runs on V100 and newer)", "IMAGE")
      ->capture_default_str();
  flag::composite(*sub, "--expect", o->expect, "Every GPU must be this model (v100, t4, a100, a10, a30, l4, l40s, h100, h200)",
                  "a GPU model: v100, t4, a100, a10, a30, l4, l40s, h100 or h200", "v100", {"v1000", "gtx"},
                  [](const std::string& v) {
                    try {
                      tfjob::gpu::normalize_expect(v);
                    } catch (const tfjob::error&) {
                      throw tfjob::error("\"" + v + "\" is not a GPU model this check knows");
                    }
                  });
  flag::boolean(*sub, "--strict", o->strict, "Warnings fail: PCIe link below its maximum under load, HW/thermal throttling, NVLink down, ...");
  flag::count(*sub, "--gpus", o->gpus, "GPUs each probe pod requests (0 = all the node allocates)", 0)->capture_default_str();
  flag::text(*sub, "--node", o->nodes, "Only check this node (repeatable)", "NODE");
  flag::duration(*sub, "--timeout", o->timeout, "Deadline for each probe pod and for the whole check (e.g. 90s, 5m; at least 1s)", true,
                 1000)
      ->capture_default_str();
  flag::choice(*sub, "-o,--output", o->output, "Output format: json or yaml (default: a table)", {"json", "yaml"});
  flag::boolean(*sub, "--keep", o->keep, "Keep the probe pods afterwards (for kubectl logs/describe)");
  flag::boolean(*sub, "--local", o->local, "Run the probe on this machine instead of the cluster");
  flag::file(*sub, "--probe-path", o->probe, "With --local: the tfjob-gpu-probe binary (default: beside this plugin, then PATH)",
             flag::Content::any);
  flag::boolean(*sub, "--inventory", o->inventory,
                "Only the GPU inventory: each GPU node's GPUs, those its pods hold, what is free; no probe pod");
  sub->footer(R"(Lists every node's nvidia.com/gpu capacity and allocatable (the difference is unhealthy
devices), its GPU Feature Discovery labels (model, driver, architecture: a Volta node under
a driver newer than R580 is not ready before any probe) and taints, the NVIDIA device
plugin's and GPU Operator validator's pod on it, and flags nodes that look like GPU nodes
but allocate no GPUs. Then runs one probe pod per GPU node in parallel (pinned to the node,
requesting its GPUs, tolerating nvidia.com/gpu taints, bounded by --timeout), tells on
stderr what each is doing (Pending and why, pulling, running for N s with the probe's last
line), fails a node at once when its probe image cannot be pulled, and prints what each
node's GPUs do against their spec and NVML's health view (ECC, retired pages / row
remapping, PCIe under load, throttling, NVLink, Xid events).

Examples:
  kubectl tfjob gpu-check
  kubectl tfjob gpu-check --expect v100 -n gpu-check
  kubectl tfjob gpu-check --node gpu-node-1 --gpus 1 --keep
  kubectl tfjob gpu-check -o json
  kubectl tfjob gpu-check --local --expect v100
  kubectl tfjob gpu-check --inventory          # what the nodes offer and hold; nothing created

Exit codes: 0 every probed node is ready, 1 a node is not ready (failed checks listed, or
its probe failed, e.g. the image cannot be pulled), 3 no result: a probe gave none within
--timeout (a Pending pod is explained from its events), its watchdog fired, or (--local)
the probe could not be started, 4 no NVIDIA driver or no GPU (no GPU node found, or a probe
found no GPU), 64 usage error, 130/143 interrupted by SIGINT/SIGTERM (the probe pods are
still deleted unless --keep). With --inventory: 0 GPU nodes listed, 4 none found. The table for every command: kubectl tfjob --help.)");
  set_action(*sub, g, o);
}

}  // namespace tfjob::cli
