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

/// The TFJobs among `objects` (read from `source`) judged as --validate says: strict throws
/// validation_error with every issue; warn says each on ctx's stream; ignore looks at none.
/// Objects of another kind are left alone (the caller reads what it needs of them).
inline void judge_tfjobs(Context& ctx, const std::vector<nlohmann::json>& objects, const std::string& source,
                         FieldValidation mode) {
  if (mode == FieldValidation::ignore) return;
  std::vector<field_error> found;
  for (std::size_t i = 0; i < objects.size(); ++i) {
    if (schema::classify(objects[i]) == schema::DocumentKind::other) continue;
    const std::string where = document_place(source, i, objects.size(), objects[i]);
    for (const auto& is : schema::check_tfjob(objects[i])) found.push_back(to_field_error(is, where));
  }
  if (found.empty()) return;
  if (mode == FieldValidation::strict) throw validation_error(std::move(found));
  say_schema_warnings(ctx, found);
}

}  // namespace tfjob::cli
