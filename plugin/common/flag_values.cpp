// The typed flag layer (flag_values.hpp): one parser per kind of value, the one error form.
#include "flag_values.hpp"

#include "error_words.hpp"  // error_message: the SDK's settings said as flags
#include "samples.hpp"  // closest(): "did you mean"

#include <tfjob/api/builder.hpp>     // PvcMount, Toleration: the SDK's parsers of those forms
#include <tfjob/api/quantity.hpp>
#include <tfjob/api/validation.hpp>  // qualified names, label values
#include <tfjob/kube/detail/util.hpp>  // try_parse_duration: Go's time.ParseDuration

#include <nlohmann/json.hpp>

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>

namespace tfjob::cli::flag {
namespace {

constexpr const char* validator_prefix = "tfjob-flag:";

std::string quoted(const std::string& v) { return nlohmann::json(v).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace); }

nlohmann::json to_json(const Spec& s) {
  return {{"kind", static_cast<int>(s.kind)}, {"form", s.form}, {"example", s.example}, {"min", s.min}, {"max", s.max},
          {"choices", s.choices}, {"prefixes", s.prefixes}, {"bare", s.bare}, {"bare_seconds", s.bare_seconds},
          {"min_ms", s.min_ms}, {"key", static_cast<int>(s.key)}, {"value", static_cast<int>(s.value)},
          {"comma_list", s.comma_list}, {"stdin_ok", s.stdin_ok}, {"dir_ok", s.dir_ok},
          {"content", static_cast<int>(s.content)}, {"bad", s.bad}, {"nonempty", s.nonempty}};
}

Spec from_json(const nlohmann::json& j) {
  Spec s;
  s.kind = static_cast<Kind>(j.at("kind").get<int>());
  s.form = j.at("form");
  s.example = j.at("example");
  s.min = j.at("min");
  s.max = j.at("max");
  s.choices = j.at("choices").get<std::vector<std::string>>();
  s.prefixes = j.at("prefixes").get<std::vector<std::string>>();
  s.bare = j.at("bare");
  s.bare_seconds = j.at("bare_seconds");
  s.min_ms = j.at("min_ms");
  s.key = static_cast<Key>(j.at("key").get<int>());
  s.value = static_cast<Value>(j.at("value").get<int>());
  s.comma_list = j.at("comma_list");
  s.nonempty = j.at("nonempty");
  s.stdin_ok = j.at("stdin_ok");
  s.dir_ok = j.at("dir_ok");
  s.content = static_cast<Content>(j.at("content").get<int>());
  s.bad = j.at("bad").get<std::vector<std::string>>();
  return s;
}

/// strconv.ParseBool's words, as pflag reads a boolean flag's value.
std::optional<bool> parse_bool(const std::string& v) {
  for (const char* t : {"1", "t", "T", "TRUE", "true", "True"})
    if (v == t) return true;
  for (const char* f : {"0", "f", "F", "FALSE", "false", "False"})
    if (v == f) return false;
  return std::nullopt;
}

std::string range_text(const Spec& s) {
  if (s.max >= std::numeric_limits<std::int32_t>::max()) return "a whole number of " + std::to_string(s.min) + " or more";
  return "a whole number from " + std::to_string(s.min) + " to " + std::to_string(s.max);
}

std::string check_count(const Spec& s, const std::string& v) {
  const std::string right = "; give " + range_text(s);
  std::size_t i = v.size() > 1 && (v[0] == '-' || v[0] == '+') ? 1 : 0;
  bool digits = i < v.size();
  for (std::size_t k = i; k < v.size(); ++k) digits = digits && v[k] >= '0' && v[k] <= '9';
  if (!digits) return quoted(v) + " is not a whole number" + right;
  long long n = 0;
  try {
    n = std::stoll(v);
  } catch (const std::exception&) {
    return v + " is too large" + right;
  }
  if (n < s.min) return v + " is less than " + std::to_string(s.min) + right;
  if (n > s.max) return v + " is more than " + std::to_string(s.max) + "; give a whole number from " + std::to_string(s.min) + " to " +
                        std::to_string(s.max);
  return {};
}

std::string check_quantity(const std::string& v) {
  const std::string right = "; give a Kubernetes quantity, e.g. 500m, 2, 1.5, 4Gi or 512Mi";
  auto q = Quantity::try_parse(v);
  if (!q) return quoted(v) + " is not a quantity" + right;
  if (q->value() < 0) return quoted(v) + " is negative" + right;
  return {};
}

std::string check_duration(const Spec& s, const std::string& v) {
  const std::string right = std::string("; give a duration with a unit (ns, us, ms, s, m, h), e.g. 30s, 5m or 1h30m") +
                            (s.bare_seconds ? ", or a number of seconds" : "");
  if (!s.bare_seconds && v != "0" && !v.empty() && v.find_first_not_of("0123456789") == std::string::npos)
    return quoted(v) + " has no unit" + right;  // Go: time: missing unit in duration
  std::string why;
  auto d = tfjob::kube::detail::try_parse_duration(v, &why);
  if (!d) return quoted(v) + " is not a duration (" + why + ")" + right;
  if (s.min_ms > 0 && d->count() < s.min_ms)
    return quoted(v) + " is shorter than " + std::to_string(s.min_ms) + "ms; give " + std::to_string((s.min_ms + 999) / 1000) +
           "s or more";
  return {};
}

std::string choice_list(const Spec& s) {
  std::vector<std::string> all;
  for (const auto& c : s.choices) all.push_back(c.empty() ? "\"\"" : c);
  for (const auto& p : s.prefixes) all.push_back(p + "...");
  std::string out;
  for (std::size_t i = 0; i < all.size(); ++i) out += (i == 0 ? "" : i + 1 == all.size() ? " or " : ", ") + all[i];
  return out;
}

std::string check_choice(const Spec& s, const std::string& v) {
  for (const auto& c : s.choices)
    if (v == c) return {};
  for (const auto& p : s.prefixes)
    if (v.rfind(p, 0) == 0) return {};
  if (!s.bare.empty() && (v == s.bare || parse_bool(v))) return {};  // kubectl's --dry-run: bare, or a boolean
  std::vector<std::string> names = s.choices;
  for (const auto& p : s.prefixes) names.push_back(p.substr(0, p.size() - (p.back() == '=' ? 1 : 0)));
  std::string m = quoted(v) + " is not one of them; give " + choice_list(s);
  if (auto c = closest(v, names); !c.empty()) m += " (did you mean " + c + "?)";
  return m;
}

/// The KEY=VALUE pairs of one value of a key_value flag: "A=1,B=2" is two with comma_list.
std::vector<std::string> pairs_of(const Spec& s, const std::string& whole) {
  std::vector<std::string> items;
  if (!s.comma_list) return {whole};
  std::size_t start = 0;
  for (;;) {
    auto c = whole.find(',', start);
    items.push_back(whole.substr(start, c == std::string::npos ? std::string::npos : c - start));
    if (c == std::string::npos) break;
    start = c + 1;
  }
  return items;
}

std::string check_key_value(const Spec& s, const std::string& whole) {
  const std::string right = "; give " + s.form + (s.comma_list ? "[," + s.form + "...]" : "") + ", e.g. " + s.example;
  for (const auto& kv : pairs_of(s, whole)) {
    auto eq = kv.find('=');
    if (eq == std::string::npos) return quoted(kv) + " has no \"=\"" + right;
    if (eq == 0) return quoted(kv) + " has no key" + right;
    const std::string k = kv.substr(0, eq), val = kv.substr(eq + 1);
    if (s.key == Key::label)
      if (auto e = tfjob::detail::qualified_name_errors(k); !e.empty()) return "the key " + quoted(k) + ": " + e.front() + right;
    if (s.key == Key::env) {
      // IsEnvVarName (apimachinery validation): [-._a-zA-Z][-._a-zA-Z0-9]*
      bool ok = !k.empty() && !(k[0] >= '0' && k[0] <= '9');
      for (char c : k) ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.');
      if (!ok) return "the name " + quoted(k) + " is not an environment variable name (letters, digits, '_', '-', '.'; not a digit first)" + right;
    }
    if (s.value == Value::label)
      if (auto e = tfjob::detail::label_value_errors(val); !e.empty()) return "the value " + quoted(val) + ": " + e.front() + right;
    if (s.value == Value::quantity)
      if (auto e = check_quantity(val); !e.empty()) return "the value of " + quoted(k) + ": " + e;
  }
  return {};
}

std::string check_volume(const std::string& v) {
  // a bare CLAIM is a form of its own (submit SAMPLE --pvc CLAIM); the command judges where it goes
  if (v.find(':') == std::string::npos) {
    if (tfjob::detail::is_dns1123_subdomain(v)) return {};
    return quoted(v) + " is not a claim's name; give CLAIM:/mount/path[:ro], e.g. tfjob-mnist:/train";
  }
  std::string problem;
  if (!PvcMount::try_parse(v, &problem)) return problem;
  return {};
}

std::string check_toleration(const std::string& v) {
  std::string problem;
  if (!Toleration::try_parse(v, &problem)) return problem;
  return {};
}

std::string check_file(const Spec& s, const std::string& path) {
  const std::string right = "; give " + s.form;
  if (path == "-") return s.stdin_ok ? std::string() : "stdin (-) is not read here" + right;
  struct stat st{};
  if (::stat(path.c_str(), &st) != 0) return quoted(path) + " " + (errno == ENOENT ? "does not exist" : std::strerror(errno)) + right;
  if (S_ISDIR(st.st_mode)) return s.dir_ok ? std::string() : quoted(path) + " is a directory" + right;
  std::ifstream in(path, std::ios::binary);
  if (!in) return quoted(path) + " cannot be read (" + std::strerror(errno) + ")" + right;
  if (s.content == Content::any) return {};
  char buf[65536];
  in.read(buf, sizeof buf);
  const auto n = static_cast<std::size_t>(in.gcount());
  bool blank = true;
  for (std::size_t i = 0; i < n && blank; ++i) blank = std::isspace(static_cast<unsigned char>(buf[i])) != 0;
  if (n == 0 || (s.content == Content::text && blank && st.st_size <= static_cast<off_t>(n)))
    return quoted(path) + " is empty; give " + (s.content == Content::text ? "a YAML or JSON file" : "a file that holds the data");
  if (s.content == Content::text)
    for (std::size_t i = 0; i < n; ++i)
      if (buf[i] == '\0')
        return quoted(path) + " is a binary file (a NUL byte at offset " + std::to_string(i) + "); give a YAML or JSON file";
  return {};
}

}  // namespace

std::optional<Spec> spec_of(const CLI::Option& o) {
  auto& opt = const_cast<CLI::Option&>(o);  // CLI11 2.1 has no const validator access
  for (int i = 0;; ++i) {
    CLI::Validator* v = nullptr;
    try {
      v = opt.get_validator(i);
    } catch (const CLI::OptionNotFound&) {
      return std::nullopt;
    }
    const std::string& name = v->get_name();
    if (name.rfind(validator_prefix, 0) == 0) return from_json(nlohmann::json::parse(name.substr(std::strlen(validator_prefix))));
  }
}

std::string check(const Spec& s, const std::string& v) {
  switch (s.kind) {
    case Kind::text:  // an empty argument names nothing (kubectl: "resource name may not be empty")
      return s.nonempty && v.empty() ? "\"\" is empty; give a " + s.form : std::string();
    case Kind::boolean:
      return parse_bool(v) ? std::string() : quoted(v) + " is not true or false; give the flag alone, =true or =false";
    case Kind::count: return check_count(s, v);
    case Kind::quantity: return check_quantity(v);
    case Kind::duration: return check_duration(s, v);
    case Kind::choice: return check_choice(s, v);
    case Kind::key_value: return check_key_value(s, v);
    case Kind::volume: return check_volume(v);
    case Kind::toleration: return check_toleration(v);
    case Kind::composite: return {};
    case Kind::file: return check_file(s, v);
  }
  return {};
}

std::string check_repeats(const Spec& s, const std::vector<std::string>& values) {
  if (s.kind != Kind::key_value) return {};
  std::map<std::string, std::string> seen;  // key -> the KEY=VALUE that gave it first
  for (const auto& whole : values)
    for (const auto& kv : pairs_of(s, whole)) {
      const auto eq = kv.find('=');
      if (eq == std::string::npos) continue;
      auto [it, fresh] = seen.emplace(kv.substr(0, eq), kv);
      const std::string& key = it->first;
      const std::string& first = it->second;
      if (!fresh && first != kv)
        return "the key " + quoted(key) + " is given twice (" + quoted(first) + ", " + quoted(kv) + "); give each key once";
    }
  return {};
}

std::string what_it_takes(const Spec& s) {
  switch (s.kind) {
    case Kind::count: return "give " + range_text(s);
    case Kind::quantity: return "give a Kubernetes quantity, e.g. 500m, 2, 4Gi";
    case Kind::duration: return "give a duration, e.g. 30s, 5m or 1h30m";
    case Kind::choice: return "give " + choice_list(s);
    case Kind::key_value: return "give " + s.form + ", e.g. " + s.example;
    case Kind::volume: return "give CLAIM:/mount/path[:ro], e.g. tfjob-mnist:/train";
    case Kind::toleration: return "give KEY[=VALUE][:EFFECT], e.g. nvidia.com/gpu:NoSchedule";
    default: return "give " + (s.form.empty() ? std::string("a value") : s.form);
  }
}

std::string dry_run_strategy(const std::string& value, std::string* warning) {
  // kubectl 1.32, cmd/util/helpers.go GetDryRunStrategy: the bare flag and booleans are
  // deprecated forms that still work
  if (value == "unchanged") {
    if (warning) *warning = "--dry-run is deprecated and can be replaced with --dry-run=client.";
    return "client";
  }
  if (auto b = parse_bool(value)) {
    if (warning)
      *warning = "--dry-run=" + value + " is deprecated (boolean value) and can be replaced with --dry-run=" + (*b ? "client." : "none.");
    return *b ? "client" : "none";
  }
  return value;
}

namespace detail {

CLI::Option* attach(CLI::Option* o, Spec s, std::function<void(const std::string&)> parse) {
  auto spec = std::make_shared<const Spec>(s);
  auto checker = [spec, parse](std::string& value) -> std::string {
    std::string m = check(*spec, value);
    if (!m.empty() || !parse) return m;
    try {
      parse(value);
    } catch (const CLI::Error& e) {
      // a usage error (flag::usage) says its flag first: CLI11 says it again for this option
      std::string w = e.what();
      auto c = w.find(": ");
      return c == std::string::npos ? w : w.substr(c + 2);
    } catch (const std::exception& e) {
      // the SDK's parser words its settings (ServeOperations::batching ...): the plugin's
      // flags instead, and the flag this option is said once, by CLI11
      std::string w = error_message(e);
      if (w.rfind("--", 0) == 0 && w.find(' ') != std::string::npos) w = w.substr(w.find(' ') + 1);
      return w.find("; ") == std::string::npos ? w + "; give " + spec->form : w;
    }
    return {};
  };
  o->check(CLI::Validator(checker, "", validator_prefix + to_json(s).dump()));
  const bool named = !o->get_lnames().empty() || !o->get_snames().empty();
  if (named && o->get_expected_max() > 1) {
    // a repeatable flag (pflag's StringArray): one value per --flag, repeated for more, so
    // `--env A=1 mnist` leaves mnist to the command's arguments instead of reading it as a second
    // value (CLI11 would take every word up to the next flag)
    o->expected(1);
    o->allow_extra_args(false);
    o->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  } else {
    o->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);  // pflag: the last value given wins
  }
  return o;
}

}  // namespace detail

CLI::Option* boolean(CLI::App& app, const std::string& names, bool& dest, const std::string& desc) {
  Spec s;
  s.kind = Kind::boolean;
  s.form = "true or false";
  s.example = "true";
  return detail::attach(app.add_flag(names, dest, desc), s);
}

CLI::Option* duration(CLI::App& app, const std::string& names, std::string& dest, const std::string& desc, bool bare_seconds,
                      long long min_ms) {
  Spec s;
  s.kind = Kind::duration;
  s.bare_seconds = bare_seconds;
  s.min_ms = min_ms;
  s.example = "30s";
  return detail::attach(app.add_option(names, dest, desc), s)->type_name("DURATION");
}

CLI::Option* choice(CLI::App& app, const std::string& names, std::string& dest, const std::string& desc,
                    std::vector<std::string> choices, std::vector<std::string> prefixes, const std::string& bare) {
  Spec s;
  s.kind = Kind::choice;
  s.example = choices.empty() ? std::string() : choices.front();
  s.choices = std::move(choices);
  s.prefixes = std::move(prefixes);
  s.bare = bare;
  std::string type;
  for (const auto& c : s.choices) type += (type.empty() ? "" : "|") + (c.empty() ? std::string("\"\"") : c);
  for (const auto& p : s.prefixes) type += (type.empty() ? "" : "|") + p + "...";
  // given bare, the flag has a value of its own and never takes the next word (pflag's
  // NoOptDefVal): CLI11's flag with a default value, `--dry-run{unchanged}`
  if (bare.empty()) return detail::attach(app.add_option(names, dest, desc), s)->type_name(type);
  return detail::attach(app.add_flag(names + "{" + bare + "}", dest, desc), s)->option_text("[=" + type + "]");
}

CLI::Option* dry_run(CLI::App& app, std::string& dest, const std::string& desc, std::vector<std::string> choices) {
  // kubectl 1.32 (cmd/util/helpers.go AddDryRunFlag): NoOptDefVal "unchanged"
  return choice(app, "--dry-run", dest, desc, std::move(choices), {}, "unchanged");
}

CLI::Option* choices(CLI::App& app, const std::string& names, std::vector<std::string>& dest, const std::string& desc,
                     std::vector<std::string> choices) {
  Spec s;
  s.kind = Kind::choice;
  s.example = choices.empty() ? std::string() : choices.front();
  s.choices = std::move(choices);
  std::string type;
  for (const auto& c : s.choices) type += (type.empty() ? "" : "|") + c;
  return detail::attach(app.add_option(names, dest, desc)->delimiter(','), s)->type_name(type + "[,...]");
}

CLI::Option* key_values(CLI::App& app, const std::string& names, std::vector<std::string>& dest, const std::string& desc, Key key,
                        Value value, bool comma_list, const std::string& type, const std::string& example) {
  Spec s;
  s.kind = Kind::key_value;
  s.key = key;
  s.value = value;
  s.comma_list = comma_list;
  s.form = type.substr(0, type.find('['));  // "NAME=QTY[,...]": one pair
  s.example = !example.empty() ? example
              : value == Value::quantity ? "nvidia.com/gpu=4"
              : key == Key::env         ? "EPOCHS=10"
                                        : "team=vision";
  return detail::attach(app.add_option(names, dest, desc), s)->type_name(type);
}

CLI::Option* volumes(CLI::App& app, const std::string& names, std::vector<std::string>& dest, const std::string& desc) {
  Spec s;
  s.kind = Kind::volume;
  s.example = "data:/data";
  return detail::attach(app.add_option(names, dest, desc), s)->type_name("CLAIM:PATH[:ro]");
}

CLI::Option* tolerations(CLI::App& app, const std::string& names, std::vector<std::string>& dest, const std::string& desc) {
  Spec s;
  s.kind = Kind::toleration;
  s.example = "nvidia.com/gpu:NoSchedule";
  return detail::attach(app.add_option(names, dest, desc), s)->type_name("KEY[=VALUE][:EFFECT]");
}

std::string error_line(const std::string& flag, const std::string& problem) { return "error: " + flag + ": " + problem; }

CLI::ValidationError usage(const std::string& flag, const std::string& what, const std::string& right) {
  return CLI::ValidationError(flag, what + "; " + right);
}

CLI::ValidationError exclusive(const std::string& flag, const std::string& other) {
  return usage(flag, "cannot be combined with " + other, "give one of them");
}

CLI::ValidationError name_with_all_namespaces() {
  return usage("--all-namespaces", "a job name cannot be combined with --all-namespaces", "give -n NAMESPACE instead");
}

void refuse_given(const CLI::App& cmd, const std::vector<std::string>& flags, const std::string& when, const std::string& right) {
  for (const auto& f : flags)
    if (cmd.get_option(f)->count() > 0) throw usage(f, "has no effect " + when, right);
}

}  // namespace tfjob::cli::flag
