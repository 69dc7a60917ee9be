#pragma once
/// \file Manifests as every command that reads one judges them: kubectl's `--validate`
/// (strict, warn, ignore; true = strict, false = ignore, as cmd/util GetValidationDirective)
/// over the TFJob CRD's schema (include/tfjob/api/schema.hpp), worded once: under strict
/// every issue is an error of the input (nothing is sent), under warn each is said as
/// `warning: FILE: TFJob NAME: ...` and the command goes on, under ignore none is looked for.

#include "context.hpp"
#include "flag_values.hpp"

#include <tfjob/api/lint.hpp>
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
/// Added after the command's -f/--filename, which it then needs (given alone, it is refused).
CLI::Option* add_validate_flag(CLI::App& sub, std::string& value);

/// The --validate value as the SDK's FieldValidation.
FieldValidation validation_mode(const std::string& v);

/// Says each of the schema's findings kept under --validate=warn, once (the server's
/// Warning header for the same field is not said again: Context::warn_once).
void say_schema_warnings(Context& ctx, const std::vector<field_error>& warnings);

/// An input that could not be used after --validate=warn said what the schema found: the
/// warnings, then the error, and the usage exit code, as validate() refuses an input
/// (docs/cli.md's table).
int refuse_after_warnings(Context& ctx, const std::vector<field_error>& warnings, const std::exception_ptr& failed);

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
    if (schema::classify(object) == schema::DocumentKind::other) return;
    if (mode_ != FieldValidation::ignore) {
      const std::size_t before = found_.size();
      for (const auto& is : schema::check_tfjob(object)) found_.push_back(to_field_error(is, where));
      if (found_.size() > before && mode_ == FieldValidation::strict) return;  // its type errors are the schema's
    }
    // what the operator refuses, whatever --validate says: as submit and lint refuse it
    for (auto& fe : lint::admission_errors(object)) {
      fe.where = where;
      refused_.push_back(std::move(fe));
    }
  }

  void done() {
    if (mode_ == FieldValidation::strict) refused_.insert(refused_.begin(), found_.begin(), found_.end());
    else if (!found_.empty()) say_schema_warnings(ctx_, found_);
    found_.clear();
    if (!refused_.empty()) throw validation_error(std::move(refused_));
  }

 private:
  Context& ctx_;
  FieldValidation mode_;
  std::vector<field_error> found_;    ///< the schema's
  std::vector<field_error> refused_;  ///< the operator's
};

/// The TFJobs among `objects` (read from `source`) judged as --validate says (TFJobJudge).
void judge_tfjobs(Context& ctx, const std::vector<nlohmann::json>& objects, const std::string& source,
                  FieldValidation mode);

}  // namespace tfjob::cli
