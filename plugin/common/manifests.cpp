// The bodies of manifests.hpp (compiled once, not in every command that includes it).
#include "manifests.hpp"

namespace tfjob::cli {

CLI::Option* add_validate_flag(CLI::App& sub, std::string& value) {
  // strconv.ParseBool's forms too, as kubectl accepts them; bare: strict, never the next word
  CLI::Option* o = flag::choice(sub, "--validate", value,
                      "How the manifest is judged by the TFJob CRD's schema: strict (the default: an unknown field, a wrong "
                      "type or a value the schema refuses is an error), warn (each is said and the command goes on), ignore "
                      "(not judged; the API server drops unknown fields). true = strict, false = ignore, as kubectl's",
                      {"strict", "warn", "ignore", "true", "false", "1", "0", "t", "f", "T", "F", "TRUE", "FALSE", "True",
                       "False"},
                      {}, "strict")
      ->default_str("strict")
      ->option_text("[=strict|warn|ignore]");
  // it judges what -f reads: without -f it would judge nothing (refused, never ignored)
  if (CLI::Option* file = sub.get_option_no_throw("--filename")) o->needs(file);
  return o;
}

FieldValidation validation_mode(const std::string& v) {
  if (v == "warn") return FieldValidation::warn;
  if (v == "ignore" || v == "false" || v == "0" || v == "f" || v == "F" || v == "FALSE" || v == "False")
    return FieldValidation::ignore;
  return FieldValidation::strict;
}

void say_schema_warnings(Context& ctx, const std::vector<field_error>& warnings) {
  for (const auto& w : warnings) ctx.warn_once(w.to_string());
}

int refuse_after_warnings(Context& ctx, const std::vector<field_error>& warnings, const std::exception_ptr& failed) {
  say_schema_warnings(ctx, warnings);
  try {
    std::rethrow_exception(failed);
  } catch (const std::exception& e) {
    ctx.err << failure_line(e) << "\n";
  }
  return exit_code::usage;
}

void judge_tfjobs(Context& ctx, const std::vector<nlohmann::json>& objects, const std::string& source,
                  FieldValidation mode) {
  TFJobJudge judge(ctx, mode);
  for (std::size_t i = 0; i < objects.size(); ++i) judge.add(objects[i], document_place(source, i, objects.size(), objects[i]));
  judge.done();
}

}  // namespace tfjob::cli
