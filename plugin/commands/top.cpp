// kubectl tfjob top node|job: who holds the cluster's GPUs (Arena's `top node` / `top job`).
// Per GPU node: allocatable, requested by running pods, free, model and driver; per TFJob:
// GPUs held per replica type and on which nodes; both with utilisation and memory from
// NVIDIA's DCGM exporter when it runs. The workflow is the SDK's (include/tfjob/gpu/top.hpp);
// this file parses flags and prints.
#include "commands.hpp"
#include "../common/context.hpp"
#include "../common/flag_values.hpp"
#include "../common/output.hpp"

#include <tfjob/gpu/top.hpp>

#include <cstdio>
#include <iostream>
#include <memory>
#include <string>

namespace tfjob::cli {
namespace {

struct TopCommand {
  std::string what;  ///< node | job
  std::string job;   ///< top job NAME: that job alone
  std::string output;
  bool all_namespaces = false;
  std::string selector;
  bool no_metrics = false;

  void validate() {
    nodes = what.rfind("node", 0) == 0;
    if (nodes && all_namespaces) throw flag::usage("--all-namespaces", "nodes have no namespace", "leave it out (-A is for top job)");
    if (nodes && !job.empty()) throw flag::usage("NAME", "a name goes with top job", "top job NAME, or top node without one");
    if (!job.empty() && all_namespaces)
      throw flag::name_with_all_namespaces();
  }
  int run(Context& ctx) const;

 private:
  bool nodes = true;  ///< top node (else top job)
};

std::string util_text(const tfjob::gpu::GpuLoad& l) {
  if (!l.util_percent) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f%%", *l.util_percent);
  return buf;
}
std::string mem_text(const tfjob::gpu::GpuLoad& l) {
  if (!l.mem_used_mib) return "-";
  char buf[64];
  if (l.mem_total_mib)
    std::snprintf(buf, sizeof buf, "%.1f/%.1f GiB", *l.mem_used_mib / 1024, *l.mem_total_mib / 1024);
  else
    std::snprintf(buf, sizeof buf, "%.1f GiB", *l.mem_used_mib / 1024);
  return buf;
}

int TopCommand::run(Context& ctx) const {
  const auto& o = *this;
  auto& client = ctx.client();
  tfjob::gpu::TopOptions to;
  to.nodes = nodes;
  to.jobs = !nodes;
  to.namespace_ = client.namespace_();
  to.all_namespaces = o.all_namespaces;
  to.label_selector = o.selector;
  to.job = o.job;
  to.metrics = !o.no_metrics;
  auto res = tfjob::gpu::run_top(client, to);
  if (o.output == "json") {
    ctx.out << tfjob::gpu::top_result_json(res).dump(2) << "\n";
    return exit_code::ok;
  }
  if (!res.metrics_note.empty()) ctx.err << res.metrics_note << "\n";
  if (nodes) {
    if (res.nodes.empty()) {
      ctx.err << "No GPU nodes found: no node has nvidia.com/gpu capacity or GPU labels.\n";
      return exit_code::ok;
    }
    Table t({"NODE", "GPU", "DRIVER", "ALLOCATABLE", "REQUESTED", "FREE", "PODS", "GPU-UTIL", "GPU-MEMORY"});
    std::int64_t alloc = 0, req = 0;
    for (const auto& n : res.nodes) {
      t.add_row({n.name, n.model.empty() ? "-" : n.model, n.driver.empty() ? "-" : n.driver, std::to_string(n.allocatable),
                 std::to_string(n.requested), std::to_string(n.free()), std::to_string(n.pods), util_text(n.load),
                 mem_text(n.load)});
      alloc += n.allocatable;
      req += n.requested;
    }
    t.print(ctx.out);
    ctx.out << "\nGPUs allocatable/requested/free in the cluster: " << alloc << "/" << req << "/"
              << (alloc > req ? alloc - req : 0) << "\n";
  } else {
    if (res.jobs.empty()) {
      ctx.err << (o.all_namespaces ? std::string("No TFJob pods found.")
                  : !o.job.empty() ? "No pods of TFJob " + o.job + " in " + to.namespace_ + " namespace (a job that ended may have none left)."
                                   : "No TFJob pods found in " + to.namespace_ + " namespace.")
              << "\n";
      return exit_code::ok;
    }
    std::vector<std::string> h;
    if (o.all_namespaces) h.push_back("NAMESPACE");
    h.insert(h.end(), {"NAME", "GPUS", "REPLICA", "REPLICA-GPUS", "PENDING", "NODES", "GPU-UTIL", "GPU-MEMORY"});
    Table t(h);
    for (const auto& j : res.jobs) {
      bool first = true;
      for (const auto& r : j.replicas) {
        std::string nodes_text;
        for (const auto& n : r.nodes) nodes_text += (nodes_text.empty() ? "" : ",") + n;
        std::vector<std::string> row;
        if (o.all_namespaces) row.push_back(first ? j.namespace_ : "");
        row.insert(row.end(), {first ? j.name : "", first ? std::to_string(j.gpus()) : "", r.type.empty() ? "-" : r.type,
                               std::to_string(r.gpus), std::to_string(r.pending), nodes_text.empty() ? "-" : nodes_text,
                               first ? util_text(j.load) : "", first ? mem_text(j.load) : ""});
        t.add_row(row);
        first = false;
      }
    }
    t.print(ctx.out);
  }
  return exit_code::ok;
}

}  // namespace

void setup_top(CLI::App& app, Globals& g) {
  auto o = std::make_shared<TopCommand>();
  auto* sub = app.add_subcommand("top", "GPUs per node (allocatable, requested, free) or per TFJob, with DCGM utilisation");
  flag::choice(*sub, "what", o->what, "node or job", {"node", "nodes", "job", "jobs"})->required();
  flag::text(*sub, "name", o->job, "top job: this TFJob alone (its pods by the operator's job-name label)", "NAME");
  flag::choice(*sub, "-o,--output", o->output, "Output format: json (default: a table)", {"json"});
  flag::boolean(*sub, "-A,--all-namespaces", o->all_namespaces, "top job: TFJobs in every namespace");
  flag::text(*sub, "-l,--selector", o->selector, "Label selector: nodes for top node, the jobs' pods for top job", "SELECTOR");
  flag::boolean(*sub, "--no-metrics", o->no_metrics, "Do not read NVIDIA's DCGM exporter");
  sub->footer(R"(top node: every GPU node's nvidia.com/gpu allocatable, the GPUs requested by the pods bound
to it that have not ended (the scheduler's count: containers summed, or the largest init
container), what is free, the model and driver (GPU feature discovery labels). top job: per
TFJob, the GPUs its pods hold per replica type and the nodes they are on, and GPUs still
Pending. GPU-UTIL (mean) and GPU-MEMORY come from NVIDIA's DCGM exporter pods (labels
app=nvidia-dcgm-exporter or app.kubernetes.io/name=dcgm-exporter), read through the API
server's pod proxy; without the exporter they show "-" and a note says why. Per-job figures
need the exporter's Kubernetes pod mapping.

Examples:
  kubectl tfjob top node
  kubectl tfjob top node -l nvidia.com/gpu.family=volta -o json
  kubectl tfjob top job -A
  kubectl tfjob top job mnist -n team-a

Exit codes: 0 shown, 1 error (e.g. no access to nodes or pods), 64 usage error.)");
  set_action(*sub, g, o);
}

}  // namespace tfjob::cli
