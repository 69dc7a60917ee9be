#pragma once
/// \file One typed layer for every flag value, as pflag's `Value` types are for kubectl
/// (intValue, durationValue, stringSlice...): each kind of value has one parser, every
/// command declares its flags through it, and a value that cannot be read is refused while
/// the command line is parsed, before anything is sent, in one form:
///
///     error: --FLAG: what is wrong; what would be right
///
/// A flag is declared with its kind (`flag::count(*sub, "--gpus", o.gpus, "...", 0)`); the
/// kind stays readable on the option (`flag::spec_of`), so the error words, completion and
/// the flag matrix test (tests/cli_contract_test.cpp) know what each flag takes without a
/// list of their own. The kinds and their forms are documented in docs/cli.md.

#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace tfjob::cli::flag {

/// The kinds of value a flag takes.
enum class Kind {
  text,        ///< free text: a name, an image, a selector the server judges
  boolean,     ///< a switch; `--flag=true|false` (strconv.ParseBool's words) as pflag takes it
  count,       ///< a whole number within [min, max]
  quantity,    ///< a Kubernetes quantity, not negative (500m, 4Gi)
  duration,    ///< Go's time.ParseDuration (ns, us/µs, ms, s, m, h and combinations), not negative
  choice,      ///< one of a list (and FORMAT=ARG forms such as jsonpath=...)
  key_value,   ///< KEY=VALUE (repeatable)
  volume,      ///< CLAIM:/mount/path[:ro], or a bare CLAIM where a sample's claim is replaced
  toleration,  ///< KEY[=VALUE][:EFFECT]
  composite,   ///< a form of its own, read by the SDK's parser for it (--model NAME=SOURCE, ...)
  file,        ///< a path to read (or - for stdin where allowed)
};

/// What a file flag's file must hold.
enum class Content {
  text,    ///< YAML or JSON: not empty, no NUL byte
  binary,  ///< bytes (an image): not empty
  any,     ///< whatever the command judges itself (lint's findings, the kubeconfig loader)
};

/// What the keys and values of a KEY=VALUE flag must be.
enum class Key { any, label, env };
enum class Value { any, label, quantity };

/// What a declared flag takes. Read back from the option with spec_of().
struct Spec {
  Kind kind = Kind::text;
  std::string form;     ///< what would be right, said after "give ": "a whole number of 0 or more"
  std::string example;  ///< a value that is read without complaint
  // text
  bool nonempty = false;  ///< an argument that names an object (NAME), or a FLAG for another program: "" is refused
  // count
  long long min = 0, max = std::numeric_limits<std::int32_t>::max();
  // choice
  std::vector<std::string> choices;   ///< exact values
  std::vector<std::string> prefixes;  ///< FORMAT=ARG values: "jsonpath=", "custom-columns="
  std::string bare;                   ///< the value of the flag given without one ("" = a value is required)
  // duration
  bool bare_seconds = true;  ///< "30" is 30s (kubectl's --request-timeout); false: a unit is required (--since)
  long long min_ms = 0;      ///< the shortest duration taken
  // key_value
  Key key = Key::any;
  Value value = Value::any;
  bool comma_list = false;  ///< "A=1,B=2" is two pairs
  // file
  bool stdin_ok = false, dir_ok = false;
  Content content = Content::text;
  // composite: values its parser refuses (the flag matrix feeds them)
  std::vector<std::string> bad;
};

/// The spec of an option declared through this layer; nullopt for one that is not (help).
std::optional<Spec> spec_of(const CLI::Option& o);

/// "" when `value` is a value of `s`, else "what is wrong; what would be right" (the
/// parsers below; a composite's own parser is the declaration's).
std::string check(const Spec& s, const std::string& value);

/// "give " + the form, for messages that say what a flag takes (a missing value).
std::string what_it_takes(const Spec& s);

/// "" unless a repeatable KEY=VALUE flag names one key twice with different values (`--label
/// team=a --label team=b`): which value was meant is not for the tool to guess, so it is
/// refused in the one form, as each value's own check would be. `values`: what the flag was given.
std::string check_repeats(const Spec& s, const std::vector<std::string>& values);

// ---- typed values ------------------------------------------------------------------------

/// --dry-run as kubectl 1.32 reads it (kubectl/pkg/cmd/util/helpers.go GetDryRunStrategy):
/// "none", "client", "server"; given bare, or as a boolean (strconv.ParseBool), it still
/// works, with kubectl's deprecation warning. Returns the strategy; `warning` is set to
/// kubectl's words when there is one.
std::string dry_run_strategy(const std::string& value, std::string* warning);

// ---- declarations ------------------------------------------------------------------------

namespace detail {
/// Attaches `s` to `o`: its validator (check(), then `parse` for a composite), type name and
/// the policy kubectl's flags have (the last of several values wins).
CLI::Option* attach(CLI::Option* o, Spec s, std::function<void(const std::string&)> parse = {});
}  // namespace detail

/// Free text (a name, an image). An argument that names an object (NAME, JOB, MODEL) refuses "".
template <class T>
CLI::Option* text(CLI::App& app, const std::string& names, T& dest, const std::string& desc, const std::string& type = "TEXT") {
  Spec s;
  s.kind = Kind::text;
  s.form = type == "TEXT" ? "a value" : type;
  s.example = "x";
  // an argument that names an object, or a flag handed to another program (`--arg=`: an empty
  // word in its command line)
  s.nonempty = (!names.empty() && names.front() != '-' && (type == "NAME" || type == "JOB" || type == "MODEL")) ||
               type == "FLAG";
  return detail::attach(app.add_option(names, dest, desc), s)->type_name(type);
}

/// A switch (`--wait`, `--wait=false`).
CLI::Option* boolean(CLI::App& app, const std::string& names, bool& dest, const std::string& desc);

/// A whole number in [min, max].
template <class T>
CLI::Option* count(CLI::App& app, const std::string& names, T& dest, const std::string& desc, long long min,
                   long long max = std::numeric_limits<std::int32_t>::max(), const std::string& type = "N") {
  Spec s;
  s.kind = Kind::count;
  s.min = min;
  s.max = max;
  s.example = std::to_string(min > 1 ? min : 1 < max ? 1 : min);
  return detail::attach(app.add_option(names, dest, desc), s)->type_name(type);
}

/// A Kubernetes quantity (CPU, memory, a size).
template <class T>
CLI::Option* quantity(CLI::App& app, const std::string& names, T& dest, const std::string& desc) {
  Spec s;
  s.kind = Kind::quantity;
  s.example = "1";
  return detail::attach(app.add_option(names, dest, desc), s)->type_name("QTY");
}

/// A duration; `bare_seconds`: a number alone is seconds; `min_ms`: the shortest taken.
CLI::Option* duration(CLI::App& app, const std::string& names, std::string& dest, const std::string& desc,
                      bool bare_seconds = true, long long min_ms = 0);

/// One of `choices` (or a value starting with one of `prefixes`). `bare`: the value of the
/// flag given without one, which then never takes the next word (pflag's NoOptDefVal).
CLI::Option* choice(CLI::App& app, const std::string& names, std::string& dest, const std::string& desc,
                    std::vector<std::string> choices, std::vector<std::string> prefixes = {}, const std::string& bare = "");
/// The same for a repeatable flag whose values may also come comma-separated (--replica A,B).
CLI::Option* choices(CLI::App& app, const std::string& names, std::vector<std::string>& dest, const std::string& desc,
                     std::vector<std::string> choices);

/// kubectl's --dry-run: one of `choices`; given bare it never takes the next word and, as in
/// kubectl 1.32, means client with a deprecation warning (dry_run_strategy).
CLI::Option* dry_run(CLI::App& app, std::string& dest, const std::string& desc,
                     std::vector<std::string> choices = {"none", "client", "server"});

/// KEY=VALUE, repeatable; `comma_list`: "A=1,B=2" is two pairs. `type`: one pair as --help
/// shows it (CLAIM=DIR), which an error asks for, with `example` (default: by key and value kind).
CLI::Option* key_values(CLI::App& app, const std::string& names, std::vector<std::string>& dest, const std::string& desc,
                        Key key = Key::any, Value value = Value::any, bool comma_list = false, const std::string& type = "KEY=VALUE",
                        const std::string& example = "");

/// CLAIM:/mount/path[:ro] (repeatable); a bare CLAIM is read here and judged by the command
/// (submit: it replaces a built-in sample's claim).
CLI::Option* volumes(CLI::App& app, const std::string& names, std::vector<std::string>& dest, const std::string& desc);

/// KEY[=VALUE][:EFFECT] (repeatable).
CLI::Option* tolerations(CLI::App& app, const std::string& names, std::vector<std::string>& dest, const std::string& desc);

/// A value of a form of its own, read by `parse` (which throws what is wrong; the SDK's
/// parser for it). `form` says what would be right, `example` parses, `bad` do not.
template <class T>
CLI::Option* composite(CLI::App& app, const std::string& names, T& dest, const std::string& desc, const std::string& form,
                       const std::string& example, std::vector<std::string> bad, std::function<void(const std::string&)> parse) {
  Spec s;
  s.kind = Kind::composite;
  s.form = form;
  s.example = example;
  s.bad = std::move(bad);
  return detail::attach(app.add_option(names, dest, desc), s, std::move(parse))->type_name(form);
}

/// A file to read: `stdin_ok` takes "-", `dir_ok` a directory (of .yaml/.yml/.json files);
/// the file must exist and hold what `content` says.
template <class T>
CLI::Option* file(CLI::App& app, const std::string& names, T& dest, const std::string& desc, Content content,
                  bool stdin_ok = false, bool dir_ok = false, const std::string& type = "FILE") {
  Spec s;
  s.kind = Kind::file;
  s.content = content;
  s.stdin_ok = stdin_ok;
  s.dir_ok = dir_ok;
  s.form = std::string("a readable file") + (dir_ok ? ", a directory" : "") + (stdin_ok ? ", or - for stdin" : "");
  return detail::attach(app.add_option(names, dest, desc), s)->type_name(type);
}

// ---- the one error form --------------------------------------------------------------------

/// `error: --FLAG: what is wrong; what would be right` for a flag (or an argument: NAME)
/// and its problem. The CLI's parse errors, the commands' validate() and the matrix test
/// share this one form.
std::string error_line(const std::string& flag, const std::string& problem);

/// A usage error thrown by a command's validate(): CLI11's ValidationError, whose what()
/// is "FLAG: problem"; run_cli words it with error_line().
CLI::ValidationError usage(const std::string& flag, const std::string& what, const std::string& right);

/// Two things that exclude each other, in the one form CLI11's `excludes` is said in too:
/// `error: FLAG: cannot be combined with OTHER; give one of them`.
CLI::ValidationError exclusive(const std::string& flag, const std::string& other);

/// A name given with -A: kubectl's rule ("a resource cannot be retrieved by name across all
/// namespaces"), in the one form, the same for every command.
CLI::ValidationError name_with_all_namespaces();

/// Refuses the first of `flags` given on `cmd`'s command line: a flag the way the command was
/// asked to work never reads is refused, never ignored (`error: --keep: has no effect with
/// --inventory, which runs no probe; leave out one of them`). `when`: "with --X, which ...".
void refuse_given(const CLI::App& cmd, const std::vector<std::string>& flags, const std::string& when, const std::string& right);

}  // namespace tfjob::cli::flag
