#pragma once
/// \file One finding about a TFJob: what lint, the preflight and `explain` report. A value
/// type with a stable machine-readable `code` (documented in docs/explain.md), the replica
/// type it concerns, a sentence for people, the facts it was read from and a one-line fix
/// that names the settings it is about by key (tfjob/setting.hpp), so that an application
/// words them its own way.

#include <tfjob/detail/compiled.hpp>
#include <tfjob/setting.hpp>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace tfjob {

/// One finding: `{Finding::Severity::warning, "message"}` builds one, the rest set after.
struct Finding {
  enum class Severity { warning, error, info };
  Finding() = default;
  Finding(Severity s, Text m);
  Severity severity = Severity::warning;
  Text message;                       ///< a plain sentence: what is true and why (it may name a setting by key)
  std::string code;                   ///< stable identifier, e.g. "GpuRequestWithoutLimit"
  std::string replica;                ///< replica type as in the spec ("Worker"), "" = the job
  std::vector<std::string> evidence;  ///< the facts read: "pod mnist-worker-1: exit code 1"
  Text fix;                           ///< one line: what to do, empty when nothing is to be done; fix.settings() the keys it names
  bool is_error() const { return severity == Severity::error; }
};

/// "warning", "error", "info".
const char* to_string(Finding::Severity s);

/// The stable JSON form: `{code, severity, replica, message, evidence[], fix}`.
nlohmann::json to_json_value(const Finding& f);

/// Drops a finding whose code, replica and message repeat an earlier one (order kept).
std::vector<Finding> dedupe(std::vector<Finding> in);

}  // namespace tfjob

#if TFJOB_SDK_DEFINE_API
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
#endif  // TFJOB_SDK_DEFINE_API
