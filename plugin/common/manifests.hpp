#pragma once
/// \file Manifests as every command that reads one judges them: kubectl's `--validate`
/// (strict, warn, ignore; true = strict, false = ignore, as cmd/util GetValidationDirective)
/// over the TFJob CRD's schema (include/tfjob/api/schema.hpp), worded once: under strict
/// every issue is an error of the input (nothing is sent), under warn each is said as
/// `warning: FILE: TFJob NAME: ...` and the command goes on, under ignore none is looked for.

#include "context.hpp"
#include "flag_values.hpp"

#include <tfjob/api/manifest.hpp>
#include <tfjob/api/schema.hpp>
#include <tfjob/error.hpp>

#include <CLI/CLI.hpp>

#include <exception>
#include <ostream>
#include <string>
#include <vector>

namespace tfjob::cli {

/// `--validate[=strict|warn|ignore]` on a command that reads a manifest; kubectl's values,
/// its default (strict) and its bare form (strict: NoOptDefVal).
inline CLI::Option* add_validate_flag(CLI::App& sub, std::string& value) {
  // strconv.ParseBool's forms too, as kubectl accepts them; bare: strict, never the next word
  return flag::choice(sub, "--validate", value,
                      "How the manifest is judged by the TFJob CRD's schema: strict (the default: an unknown field, a wrong "
                      "type or a value the schema refuses is an error), warn (each is said and the command goes on), ignore "
                      "(not judged; the API server drops unknown fields). true = strict, false = ignore, as kubectl's",
                      {"strict", "warn", "ignore", "true", "false", "1", "0", "t", "f", "T", "F", "TRUE", "FALSE", "True",
                       "False"},
                      {}, "strict")
      ->default_str("strict")
      ->option_text("[=strict|warn|ignore]");
}

/// The --validate value as the SDK's FieldValidation.
inline FieldValidation validation_mode(const std::string& v) {
  if (v == "warn") return FieldValidation::warn;
  if (v == "ignore" || v == "false" || v == "0" || v == "f" || v == "F" || v == "FALSE" || v == "False")
    return FieldValidation::ignore;
  return FieldValidation::strict;
}

/// Says each of the schema's findings kept under --validate=warn, once (the server's
/// Warning header for the same field is not said again: Context::warn_once).
inline void say_schema_warnings(Context& ctx, const std::vector<field_error>& warnings) {
  for (const auto& w : warnings) ctx.warn_once(w.to_string());
}

/// An input that could not be used after --validate=warn said what the schema found: the
/// warnings, then the error, and the usage exit code, as validate() refuses an input
/// (docs/cli.md's table).
inline int refuse_after_warnings(Context& ctx, const std::vector<field_error>& warnings, const std::exception_ptr& failed) {
  say_schema_warnings(ctx, warnings);
  try {
    std::rethrow_exception(failed);
  } catch (const std::exception& e) {
    ctx.err << failure_line(e) << "\n";
  }
  return exit_code::usage;
}

/// Runs `read`, which reads and judges a manifest the command names after validate(): what
/// cannot be read or is invalid (parse_error, validation_error) is the input's fault, thrown
/// on as input_error (exit 64, as every refused input); other failures pass unchanged.
template <class F>
auto read_input(F&& read) -> decltype(read()) {
  try {
    return read();
  } catch (const tfjob::validation_error& e) {
    throw input_error(e.what());
  } catch (const tfjob::parse_error& e) {
    throw input_error(e.what());
  }
}

/// The TFJobs of a manifest judged as --validate says, an object at a time (a manifest read as
/// a stream): add() each, then done(): strict throws validation_error with every issue; warn
/// says each on ctx's stream; ignore looks at none. Objects of another kind are left alone
/// (the caller reads what it needs of them).
class TFJobJudge {
 public:
  TFJobJudge(Context& ctx, FieldValidation mode) : ctx_(ctx), mode_(mode) {}

  /// One object, placed at `where` (document_place) in what is said.
  void add(const nlohmann::json& object, const std::string& where) {
    if (mode_ == FieldValidation::ignore || schema::classify(object) == schema::DocumentKind::other) return;
    for (const auto& is : schema::check_tfjob(object)) found_.push_back(to_field_error(is, where));
  }

  void done() {
    if (found_.empty()) return;
    if (mode_ == FieldValidation::strict) throw validation_error(std::move(found_));
    say_schema_warnings(ctx_, found_);
    found_.clear();
  }

 private:
  Context& ctx_;
  FieldValidation mode_;
  std::vector<field_error> found_;
};

/// The TFJobs among `objects` (read from `source`) judged as --validate says (TFJobJudge).
inline void judge_tfjobs(Context& ctx, const std::vector<nlohmann::json>& objects, const std::string& source,
                         FieldValidation mode) {
  TFJobJudge judge(ctx, mode);
  for (std::size_t i = 0; i < objects.size(); ++i) judge.add(objects[i], document_place(source, i, objects.size(), objects[i]));
  judge.done();
}

}  // namespace tfjob::cli
