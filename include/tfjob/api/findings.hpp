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
#include <tfjob/api/impl/findings_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_API
