// kubectl tfjob lint -f FILE...: the known mistakes in TFJob manifests, before they are
// submitted (include/tfjob/api/lint.hpp), for people and CI: one finding per line with its
// severity, code and a one-line fix, -o json for machines (the same severities). At least as
// strict as submit: what submit refuses (an unreadable or empty input, no TFJob, a wrong kind
// or apiVersion, the CRD's schema under --validate, the operator's validation) is an error,
// and an error exits 1; --strict also fails on any other finding. --cluster adds the rules
// that need the cluster (nodes, the namespace, the claims), --fix prints the manifests with
// the fixes lint can make (the Istio opt-out).
#include "commands.hpp"
#include "../common/context.hpp"
#include "../common/flag_values.hpp"
#include "../common/job_flags.hpp"
#include "../common/manifests.hpp"
#include "../common/output.hpp"

#include <tfjob/api/lint.hpp>
#include <tfjob/api/manifest.hpp>
#include <tfjob/api/manifest_stream.hpp>  // ManifestReader: a document at a time
#include <tfjob/workflow/cluster.hpp>

#include <fstream>
#include <iostream>
#include <optional>
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
  std::string validation = "strict";  ///< --validate: schema issues are errors, warnings, or not looked for

  void validate() {
    fmt = parse_output_format(output, {"json", "yaml"});
    if (files.empty()) throw flag::usage("--filename", "no manifest given", "give at least one: lint -f FILE (- for stdin)");
  }
  int run(Context& ctx) const;

 private:
  OutputFormat fmt = OutputFormat::table;
};

/// The cluster's side of lint for one job (what the current user may read of it).
lint::Context cluster_context(kube::Client& c, const nlohmann::json& job) {
  lint::Context lc;
  const TFJob typed = tfjob::detail::decoded<TFJob>(job);  // leniently: the rules judge the JSON, this reads names
  const std::string ns = typed.metadata.namespace_.empty() ? c.namespace_() : typed.metadata.namespace_;
  auto optional_read = [](auto fn) {
    try {
      fn();
    } catch (const api_error& e) {
      if (!e.is_forbidden()) throw;
    }
  };
  optional_read([&] { lc.nodes = tfjob::detail::decode_each<k8s::Node>(workflow::list_nodes(c)); });
  optional_read([&] {
    if (auto o = workflow::get_opt(c, workflow::resources::namespaces(), "", ns)) lc.namespace_object = tfjob::detail::decoded<k8s::Namespace>(*o);
  });
  for (const auto& cn : workflow::claims_of(typed))
    optional_read([&] {
      if (auto pvc = workflow::get_opt(c, workflow::resources::pvcs(), ns, cn)) lc.claims[cn] = tfjob::detail::decoded<k8s::PersistentVolumeClaim>(*pvc);
    });
  return lc;
}

int LintCommand::run(Context& ctx) const {
  const auto& o = *this;
  const auto mode = validation_mode(o.validation);
  kube::Client* client = o.cluster ? &ctx.client() : nullptr;
  nlohmann::json all = nlohmann::json::array();
  std::vector<nlohmann::json> fixed;
  std::size_t count = 0, errors = 0, tfjobs = 0;
  // one finding of `where` (the source, or its document and job): a line, or an -o json entry
  auto report = [&](const std::string& source, const std::string& where, const std::string& job, const Finding& f) {
    ++count;
    errors += f.is_error();
    nlohmann::json j = to_json_value(f);
    j["source"] = source;
    j["job"] = job;
    all.push_back(j);
    if (fmt == OutputFormat::table && !o.fix) {
      ctx.out << where << ": " << to_string(f.severity) << " [" << f.code << "]" << (f.replica.empty() ? "" : " " + f.replica)
              << ": " << f.message << "\n";
      if (!f.fix.empty()) ctx.out << "    fix: " << f.fix << "\n";
    }
  };
  auto input_error = [&](const std::string& source, const char* code, const std::string& message, const std::string& fix) {
    Finding f(Finding::Severity::error, message);
    f.code = code;
    f.fix = fix;
    report(source, source, "", f);
  };
  auto lint_source = [&](const std::string& source, std::istream& in) {
    ManifestReader reader(in, source);
    // what cannot be read ends the source: said as the input's error (findings said before stay)
    bool unreadable = false;
    auto read = [&](auto&& step) {
      try {
        step();
        return true;
      } catch (const parse_error& e) {
        unreadable = true;
        input_error(source, "ManifestUnreadable", e.what(), "");
        return false;
      }
    };
    std::optional<nlohmann::json> doc;
    while (read([&] { doc = reader.next(); }) && doc) {
      auto& job = *doc;
      const std::size_t i = reader.count() - 1;
      if (schema::classify(job) == schema::DocumentKind::other) {
        // a claim or a namespace beside the job: not lint's to judge (kubectl apply's)
        if (fmt == OutputFormat::table && job.is_object())
          ctx.err << source << ": skipped " << tfjob::detail::value_at(job, "kind", "<no kind>") << " "
                  << metadata_of(job).name << " (not a TFJob)\n";
        continue;
      }
      // an unnamed document is `document N` when the manifest holds several: not the first, or
      // another follows (looked for only then)
      std::string where = document_place(source, i, i > 0 ? 2 : 1, job);
      bool several = false;
      if (i == 0 && where == source && !read([&] { several = reader.more(); })) return;
      if (several) where = document_place(source, i, 2, job);
      const std::string name = metadata_of(job).name;
      auto findings = lint::admission_findings(job, mode);
      bool refused = false;
      for (const auto& f : findings) refused |= f.is_error();
      if (schema::classify(job) == schema::DocumentKind::tfjob) ++tfjobs;
      if (!refused) {  // the rules read a job submit would accept
        auto more = lint::lint(job, client ? cluster_context(*client, job) : lint::Context{});
        for (auto& f : more) findings.push_back(std::move(f));
      }
      word_fixes(findings);
      for (const auto& f : findings) report(source, where, name, f);
      if (o.fix) {
        for (const auto& f : findings)
          if (f.code == "IstioSidecarInjected") lint::add_istio_opt_out(job);
        fixed.push_back(job);
      }
    }
    if (!unreadable && reader.count() == 0)
      input_error(source, "NoTFJob", source + " is empty: it holds no TFJob (submit refuses it too)", "");
  };
  // one document at a time (ManifestReader): its findings are said before the next is read,
  // as kubectl reports each object of -f as it visits it
  for (const auto& path : o.files) {
    std::vector<std::string> sources;
    try {
      sources = source_files(path);
    } catch (const tfjob::error& e) {
      input_error(path, "ManifestUnreadable", e.what(), "");
      continue;
    }
    for (const auto& file : sources) {
      if (file == "-") {
        lint_source("stdin", std::cin);
        continue;
      }
      std::ifstream in(file, std::ios::binary);
      if (!in) {
        input_error(path, "ManifestUnreadable", "the path \"" + file + "\" does not exist or cannot be read", "");
        continue;
      }
      lint_source(file, in);
    }
  }
  if (tfjobs == 0 && errors == 0) {  // only other kinds: submit -f would find no TFJob either
    std::string input;
    for (const auto& f : o.files) input += (input.empty() ? "" : ", ") + f;
    input_error(input, "NoTFJob", "no TFJob in " + input + " (only other kinds; submit refuses them)",
                "a TFJob manifest says apiVersion: kubeflow.org/v1 and kind: TFJob");
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
  return errors > 0 || (o.strict && count > 0) ? exit_code::failure : exit_code::ok;
}

}  // namespace

void setup_lint(CLI::App& app, Globals& g) {
  auto o = std::make_shared<LintCommand>();
  auto* sub = app.add_subcommand("lint", "Check TFJob manifests for the known mistakes before they are submitted");
  // the manifests' content is lint's to judge (its findings): the flag layer only sees that they exist
  flag::file(*sub, "-f,--filename", o->files, "TFJob manifest(s): a YAML/JSON file, a directory, or - for stdin", flag::Content::any,
             true, true)
      ->required();
  flag::boolean(*sub, "--strict", o->strict, "Exit 1 on any finding, warnings and notes too (errors always exit 1)");
  add_validate_flag(*sub, o->validation);
  flag::boolean(*sub, "--cluster", o->cluster, "Also apply the rules that read the cluster (nodes, the namespace, the claims)");
  flag::boolean(*sub, "--fix", o->fix, "Print the manifests with the fixes lint can make (the Istio sidecar opt-out)");
  flag::choice(*sub, "-o,--output", o->output, "Output format: json or yaml (default: one line per finding)", {"json", "yaml"});
  sub->footer(R"(Examples:
  kubectl tfjob lint -f tfjob.yaml
  kubectl tfjob lint -f jobs/ --strict              # in CI: exit 1 on any finding
  kubectl tfjob lint -f tfjob.yaml --validate=warn  # schema issues as warnings
  kubectl tfjob lint -f tfjob.yaml --cluster -o json
  kubectl tfjob lint -f tfjob.yaml --cluster --fix > fixed.yaml

What submit refuses is an error (docs/explain.md): ManifestUnreadable (not YAML/JSON, a file
that cannot be read), NoTFJob (an empty input, or no TFJob in it), WrongKind, WrongApiVersion
(kind: TfJob, apiVersion: kubeflow.org/v1beta2, ...), the TFJob CRD's schema (UnknownField
with the nearest known name or the level it belongs at, FieldWrongType, UnsupportedValue,
RequiredField, InvalidValue, DuplicateValue: errors with --validate=strict, the default;
warnings with --validate=warn; not looked for with --validate=ignore) and InvalidTFJob (the
operator's validation: replica types, names, images, policies).

Rules (codes are stable; docs/explain.md): GpuRequestWithoutLimit, GpuRequestLimitMismatch,
GpuOnParameterServer, MasterWithTF2, ExitCodeRetriesSignalsOnly, AllWorkersWithEvaluator,
LogsDeletedAfterFinish, CpuOnlyImageOnGpuReplica; with --cluster also ReadWriteOnceClaimShared,
RequestFitsNoNode, NoNodeMatches, IstioSidecarInjected, CudaImageUnsupportedOnNodes.
The same rules run on submit (warnings on stderr; submit --strict refuses to submit).

Exit codes: 0 no finding, or only warnings and notes without --strict; 1 an error finding
(what submit refuses, unreadable input included), or any finding with --strict; 64 usage error.)");
  set_action(*sub, g, o);
}

}  // namespace tfjob::cli
