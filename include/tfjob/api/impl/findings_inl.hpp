#pragma once
/// \file The bodies of <tfjob/api/findings.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_API` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/api/findings.hpp>, never this file.

namespace tfjob {

TFJOB_INLINE Finding::Finding(Severity s, Text m) : severity(s), message(std::move(m)) {}

TFJOB_INLINE const char* to_string(Finding::Severity s) {
  switch (s) {
    case Finding::Severity::warning: return "warning";
    case Finding::Severity::error: return "error";
    case Finding::Severity::info: return "info";
  }
  return "";
}

TFJOB_INLINE nlohmann::json to_json_value(const Finding& f) {
  return {{"code", f.code}, {"severity", to_string(f.severity)}, {"replica", f.replica},
          {"message", f.message.str()}, {"evidence", f.evidence}, {"fix", f.fix.str()}};
}

TFJOB_INLINE std::vector<Finding> dedupe(std::vector<Finding> in) {
  std::vector<Finding> out;
  for (auto& f : in) {
    bool seen = false;
    for (const auto& o : out) seen |= o.code == f.code && o.replica == f.replica && o.message == f.message;
    if (!seen) out.push_back(std::move(f));
  }
  return out;
}

}  // namespace tfjob
