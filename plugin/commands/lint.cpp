// kubectl tfjob lint -f FILE...: the known mistakes in TFJob manifests, before they are
// submitted (include/tfjob/api/lint.hpp), for people and CI: one finding per line with its
// code and a one-line fix, -o json for machines, --strict to fail (exit 1) on any finding,
// --cluster to add the rules that need the cluster (nodes, the namespace, the claims),
// --fix to print the manifests with the fixes lint can make (the Istio opt-out).
#include "../common/context.hpp"
#include "../common/job_flags.hpp"
#include "../common/output.hpp"

#include <tfjob/api/lint.hpp>
#include <tfjob/api/manifest.hpp>
#include <tfjob/workflow/cluster.hpp>

#include <iostream>
#include <memory>
#include <string>
#include <vector>
#include <tfjob/detail/json.hpp>

namespace tfjob::cli {
namespace {

struct LintCommand {
  std::vector<std::string> files;
  bool strict = false;
  bool cluster = false;
  bool fix = false;
  std::string output;

  void validate() {
    fmt = parse_output_format(output, {"json", "yaml"});
    if (files.empty()) throw CLI::ValidationError("-f", "give at least one manifest: lint -f FILE (- for stdin)");
  }
  int run(Context& ctx) const;

 private:
  OutputFormat fmt = OutputFormat::table;
};

/// The cluster's side of lint for one job (what the current user may read of it).
lint::Context cluster_context(kube::Client& c, const nlohmann::json& job) {
  lint::Context lc;
  const std::string ns = tfjob::detail::value_at(job, "/metadata/namespace"_json_pointer, std::string()).empty()
                             ? c.namespace_()
                             : tfjob::detail::value_at(job, "/metadata/namespace"_json_pointer, std::string());
  auto optional_read = [](auto fn) {
    try {
      fn();
    } catch (const api_error& e) {
      if (!e.is_forbidden()) throw;
    }
  };
  optional_read([&] { lc.nodes = workflow::list_nodes(c); });
  optional_read([&] { lc.namespace_object = workflow::get_opt(c, workflow::resources::namespaces(), "", ns); });
  const nlohmann::json owned1 = tfjob::detail::value_at(job, "/spec/tfReplicaSpecs"_json_pointer, nlohmann::json::object());  // items() of a temporary would dangle
  for (const auto& [t, rs] : owned1.items())
    for (const auto& v : tfjob::detail::value_at(rs, "/template/spec/volumes"_json_pointer, nlohmann::json::array())) {
      if (!v.contains("persistentVolumeClaim")) continue;
      const std::string cn = tfjob::detail::value_at(v["persistentVolumeClaim"], "claimName", "");
      optional_read([&] {
        if (auto pvc = workflow::get_opt(c, workflow::resources::pvcs(), ns, cn)) lc.claims[cn] = *pvc;
      });
    }
  return lc;
}

int LintCommand::run(Context& ctx) const {
  const auto& o = *this;
  kube::Client* client = o.cluster ? &ctx.client() : nullptr;
  nlohmann::json all = nlohmann::json::array();
  std::vector<nlohmann::json> fixed;
  std::size_t count = 0;
  for (const auto& path : o.files)
    for (const auto& [source, text] : read_sources(path)) {
      auto docs = parse_objects(text, source);
      for (auto& job : docs) {
        if (!job.is_object() || tfjob::detail::value_at(job, "kind", "") != tfjob::kind) {
          if (fmt == OutputFormat::table && job.is_object())
            ctx.err << source << ": skipped " << tfjob::detail::value_at(job, "kind", "<no kind>") << " " << tfjob::detail::value_at(job, "/metadata/name"_json_pointer, std::string())
                      << " (not a TFJob)\n";
          continue;
        }
        const std::string name = tfjob::detail::value_at(job, "/metadata/name"_json_pointer, std::string("<unnamed>"));
        auto findings = lint::lint(job, client ? cluster_context(*client, job) : lint::Context{});
        word_fixes(findings);
        count += findings.size();
        for (const auto& f : findings) {
          nlohmann::json j = to_json_value(f);
          j["source"] = source;
          j["job"] = name;
          all.push_back(j);
          if (fmt == OutputFormat::table && !o.fix) {
            ctx.out << source << ": TFJob " << name << ": " << (o.strict ? "error" : "warning") << " [" << f.code << "]"
                      << (f.replica.empty() ? "" : " " + f.replica) << ": " << f.message << "\n";
            if (!f.fix.empty()) ctx.out << "    fix: " << f.fix << "\n";
          }
        }
        if (o.fix) {
          for (const auto& f : findings)
            if (f.code == "IstioSidecarInjected") lint::add_istio_opt_out(job);
          fixed.push_back(job);
        }
      }
    }
  if (o.fix) {
    print_objects(ctx.out, fixed, fmt == OutputFormat::json ? OutputFormat::json : OutputFormat::yaml);
  } else if (fmt == OutputFormat::json) {
    ctx.out << all.dump(2) << "\n";
  } else if (fmt == OutputFormat::yaml) {
    ctx.out << to_yaml(all);
  } else if (count == 0) {
    ctx.err << "no findings\n";
  }
  return o.strict && count > 0 ? exit_code::failure : exit_code::ok;
}

void setup_lint(CLI::App& app, Globals& g) {
  auto o = std::make_shared<LintCommand>();
  auto* sub = app.add_subcommand("lint", "Check TFJob manifests for the known mistakes before they are submitted");
  sub->add_option("-f,--filename", o->files, "TFJob manifest(s): a YAML/JSON file, a directory, or - for stdin")->required();
  sub->add_flag("--strict", o->strict, "Exit 1 when there is any finding (for CI)");
  sub->add_flag("--cluster", o->cluster, "Also apply the rules that read the cluster (nodes, the namespace, the claims)");
  sub->add_flag("--fix", o->fix, "Print the manifests with the fixes lint can make (the Istio sidecar opt-out)");
  sub->add_option("-o,--output", o->output, "Output format: json or yaml (default: one line per finding)");
  sub->footer(R"(Examples:
  kubectl tfjob lint -f tfjob.yaml
  kubectl tfjob lint -f jobs/ --strict              # in CI: exit 1 on any finding
  kubectl tfjob lint -f tfjob.yaml --cluster -o json
  kubectl tfjob lint -f tfjob.yaml --cluster --fix > fixed.yaml

Rules (codes are stable; docs/explain.md): GpuRequestWithoutLimit, GpuRequestLimitMismatch,
GpuOnParameterServer, MasterWithTF2, ExitCodeRetriesSignalsOnly, AllWorkersWithEvaluator,
LogsDeletedAfterFinish, CpuOnlyImageOnGpuReplica; with --cluster also ReadWriteOnceClaimShared,
RequestFitsNoNode, NoNodeMatches, IstioSidecarInjected, CudaImageUnsupportedOnNodes.
The same rules run on submit (warnings on stderr; submit --strict refuses to submit).

Exit codes: 0 no finding, or findings without --strict; 1 a finding with --strict, or
unreadable input; 64 usage error.)");
  set_action(*sub, g, o);
}

}  // namespace
TFJOB_REGISTER_COMMAND("lint", 105, setup_lint);
}  // namespace tfjob::cli
