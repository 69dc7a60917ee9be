#pragma once
/// \file "Why is my job not done?" — a TFJob explained by the training operator v1.9's own
/// rules (tfjob/api/operator_rules.hpp) from its spec, status, pods and events: what decides
/// success and who it still waits for, each restart and failure, why each Pending pod waits,
/// and for a Failed job which replica failed first with its termination message and last log
/// lines. Findings are `tfjob::Finding`s with stable codes (docs/explain.md).
///
/// `explain()` is pure (a stored job state in, findings out). The parts, one concern each:
/// - workflow/explain_facts.hpp: what it reads (`ExplainInput`), from a cluster (`gather`) or
///   saved objects (`explain_input`), decoded once into value types;
/// - workflow/explain_rules.hpp, workflow/explain_pending.hpp: the rules that turn those facts
///   into findings (the job's, and a Pending pod's);
/// - this header: the explanation and its report (text, JSON, describe's "Why" lines).

#include <tfjob/api/findings.hpp>
#include <tfjob/detail/compiled.hpp>
#include <tfjob/workflow/explain_facts.hpp>
#include <tfjob/workflow/explain_pending.hpp>
#include <tfjob/workflow/explain_rules.hpp>

#include <nlohmann/json.hpp>

#include <sstream>
#include <string>
#include <vector>

namespace tfjob::workflow {

/// The findings, most pressing first: failures and waits, then restarts, then the success rule.
struct Explanation {
  std::string name, namespace_, state;
  bool pods_gone = false;  ///< the job has no pods (any more): some facts cannot be known
  std::vector<Finding> findings;
};

/// Explain a job from a stored state. Pure.
Explanation explain(const ExplainInput& in);

/// The stable JSON form: `{name, namespace, state, podsGone, findings[]}` (docs/explain.md).
nlohmann::json to_json_value(const Explanation& x);

/// Plain text: one paragraph per finding, its evidence and fix indented under it.
std::string render(const Explanation& x);

/// The short "Why" list `describe` shows on top: warnings and errors, then who the job
/// waits for or what still runs; at most `max` sentences.
std::vector<std::string> why_lines(const Explanation& x, std::size_t max = 6);

}  // namespace tfjob::workflow

#if TFJOB_SDK_DEFINE_WORKFLOW
namespace tfjob::workflow {

TFJOB_INLINE Explanation explain(const ExplainInput& in) {
  detail::Explainer e(in);
  e.suspended();
  e.queues();
  e.create_failures();
  e.each_pod();
  for (auto& f : e.held) e.urgent.push_back(std::move(f));
  e.first_failure();
  e.stuck_restarting();
  e.operator_restarts();
  e.limits();
  e.success();
  e.never_exits();
  e.gone();
  e.spec_rules();
  Explanation x;
  x.name = e.s.name;
  x.namespace_ = e.s.namespace_;
  x.state = e.s.state;
  x.pods_gone = e.pods_gone();
  for (auto* v : {&e.urgent, &e.restarts, &e.info})
    for (auto& f : *v) x.findings.push_back(std::move(f));
  x.findings = dedupe(std::move(x.findings));
  return x;
}

TFJOB_INLINE nlohmann::json to_json_value(const Explanation& x) {
  nlohmann::json fs = nlohmann::json::array();
  for (const auto& f : x.findings) fs.push_back(tfjob::to_json_value(f));
  return {{"name", x.name}, {"namespace", x.namespace_}, {"state", x.state}, {"podsGone", x.pods_gone}, {"findings", fs}};
}

TFJOB_INLINE std::string render(const Explanation& x) {
  std::ostringstream o;
  // a saved manifest may name no namespace: say where such a job goes, not "TFJob /name"
  if (x.namespace_.empty())
    o << "TFJob " << x.name << " (no namespace in the manifest: it goes to the namespace it is submitted to, the context's, "
      << "\"default\" unless the context names another)";
  else
    o << "TFJob " << x.namespace_ << "/" << x.name;
  o << ": " << (x.state.empty() ? "<no condition yet>" : x.state) << "\n";
  for (const auto& f : x.findings) {
    o << "\n" << (f.severity == Finding::Severity::error ? "✗ " : f.severity == Finding::Severity::warning ? "! " : "- ")
      << f.message << "  [" << f.code << "]\n";
    for (const auto& e : f.evidence) o << "    " << e << "\n";
    if (!f.fix.empty()) o << "    fix: " << f.fix << "\n";
  }
  return o.str();
}

TFJOB_INLINE std::vector<std::string> why_lines(const Explanation& x, std::size_t max) {
  std::vector<std::string> out;
  for (int pass = 0; pass < 2; ++pass)
    for (const auto& f : x.findings) {
      bool urgent = f.severity != Finding::Severity::info;
      bool wanted = pass == 0 ? urgent
                              : (f.code == "WaitingFor" || f.code == "NeverExitsOnItsOwn" || f.code == "RetryableExitCode" ||
                                 f.code == "PodsGone");
      if (wanted && out.size() < max) out.push_back(f.message.str());
    }
  if (out.empty())
    for (const auto& f : x.findings)
      if (f.code == "SuccessDecidedBy") out.push_back(f.message.str());
  return out;
}

}  // namespace tfjob::workflow
#endif  // TFJOB_SDK_DEFINE_WORKFLOW
