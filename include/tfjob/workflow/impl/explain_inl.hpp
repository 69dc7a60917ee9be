#pragma once
/// \file The bodies of <tfjob/workflow/explain.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_WORKFLOW` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/workflow/explain.hpp>, never this file.

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
