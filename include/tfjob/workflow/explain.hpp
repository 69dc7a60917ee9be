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
#include <tfjob/workflow/impl/explain_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_WORKFLOW
