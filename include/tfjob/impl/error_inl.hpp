#pragma once
/// \file The bodies of <tfjob/error.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_CORE` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/error.hpp>, never this file.

namespace tfjob {

TFJOB_INLINE error::error(const Text& message) : std::runtime_error(message.str()), problem_(message) {}

TFJOB_INLINE error::error(const std::string& message) : std::runtime_error(message), problem_(message) {}

TFJOB_INLINE error::error(const char* message) : error(std::string(message ? message : "")) {}

TFJOB_INLINE error::error(std::string reason, const Text& problem, const Text& advice, std::string subject)
    : std::runtime_error((problem + advice).str()), reason_(std::move(reason)), subject_(std::move(subject)),
      problem_(problem), advice_(advice) {}

TFJOB_INLINE error::error(std::string reason, const Text& problem, const Text& advice, tfjob::setting about)
    : error(std::move(reason), problem, advice, to_string(about)) {
  setting_ = about;
}

TFJOB_INLINE error no_such_job(const std::string& ns, const std::string& name, const Text& advice) {
  return error(reasons::job_not_found, "tfjobs.kubeflow.org \"" + name + "\" not found in namespace \"" + ns + "\"", advice, name);
}

TFJOB_INLINE std::string error::problem() const { return problem_.str(); }

TFJOB_INLINE std::string error::advice() const { return advice_.str(); }

TFJOB_INLINE Text error::text() const { return problem_ + advice_; }

TFJOB_INLINE parse_error::parse_error(const std::string& what, int line, int column)
    : error(what), line_(line), column_(column) {}

TFJOB_INLINE decode_error::decode_error(const std::string& what, int http_status) : parse_error(what), http_status_(http_status) {}

TFJOB_INLINE std::string field_error::to_string() const {
  std::string s = where.empty() ? "" : where + ": ";
  if (type.empty()) return s + detail;
  s += field + ": " + type;
  if (!detail.empty()) s += ": " + detail;
  return s;
}

TFJOB_INLINE validation_error::validation_error(std::vector<field_error> errors)
    : error(join(errors)), errors_(std::move(errors)) {}

TFJOB_INLINE std::string validation_error::join(const std::vector<field_error>& errs) {
  std::string s = "invalid TFJob:";
  for (const auto& e : errs) s += "\n  " + e.to_string();
  return s;
}

TFJOB_INLINE api_error::api_error(struct status st, const std::string& context)
    : error(st.reason, make_message(st, context), ""), status_(std::move(st)) {}

TFJOB_INLINE std::string api_error::make_message(const struct status& st, const std::string& context) {
  std::string s;
  if (!context.empty()) s = context + ": ";
  s += st.message.empty() ? ("the server answered " + std::to_string(st.code)) : st.message;
  if (!st.reason.empty()) s += " (" + st.reason + ", " + std::to_string(st.code) + ")";
  for (const auto& c : st.causes) {
    s += "\n  ";
    if (!c.field.empty()) s += c.field + ": ";
    s += c.message;
  }
  return s;
}

}  // namespace tfjob
