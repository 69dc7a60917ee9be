// The command line's contract (docs/cli.md), proven two ways:
// - a matrix generated from the CLI's own option table: every flag of every command, fed
//   every class of bad value its declared kind admits (plugin/common/flag_values.hpp), is
//   refused in the one form `error: --FLAG: what is wrong; what would be right`, with exit
//   64, before a single request reaches the (fake) API server. A flag added later is covered
//   by its kind, without editing this file.
// - where kubectl is the reference, the real kubectl against the same fake API server.
#include <catch2/catch.hpp>

#include "support/fake_apiserver.hpp"
#include "support/fake_cluster.hpp"
#include "support/paths.hpp"
#include "support/skip.hpp"

#if __has_include("cli.hpp")
#include "cli.hpp"                 // plugin/cli.hpp: linked from the plugin's object library
#include "common/flag_values.hpp"  // spec_of: what each option takes
#define TFJOB_HAVE_PLUGIN_CLI 1
#include <CLI/CLI.hpp>
#endif

#include <tfjob/kube/detail/util.hpp>

#include <nlohmann/json.hpp>

#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <thread>
#include <iterator>
#include <limits>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

struct Ran {
  int rc = -1;
  std::string out, err;
};

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

#ifdef TFJOB_HAVE_PLUGIN_CLI
Ran call(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  Ran r;
  r.rc = tfjob::cli::run_cli(args, out, err);
  r.out = out.str();
  r.err = err.str();
  return r;
}

/// A file of the matrix's bad inputs, made once.
struct Files {
  std::string dir = tfjob::test::temp_dir("cli-contract-files");
  std::string empty = dir + "/empty.yaml";
  std::string binary = dir + "/binary.bin";
  Files() {
    std::ofstream(empty).flush();
    std::ofstream b(binary, std::ios::binary);
    const char bytes[] = {'\x7f', 'E', 'L', 'F', '\0', '\x01', '\x02', '\0', '\xff', '\xfe'};
    b.write(bytes, sizeof bytes);
  }
};

/// One class of bad input: its name, and the values of it a flag of `spec` takes ("" none).
struct BadClass {
  const char* name;
  std::function<std::vector<std::string>(const tfjob::cli::flag::Spec&, const Files&)> values;
};

/// The classes of bad input, by what the flag's declared kind admits. A new class of mistake
/// is a row here; the manifest classes (an unknown field, a wrong type, a wrong kind or
/// apiVersion, a bad document among good ones) are fed to every command that judges the
/// manifests it reads (manifest_classes, below).
std::vector<BadClass> bad_classes() {
  using tfjob::cli::flag::Content;
  using tfjob::cli::flag::Kind;
  using tfjob::cli::flag::Spec;
  auto when = [](Kind k, std::vector<std::string> v) {
    return [k, v](const Spec& s, const Files&) { return s.kind == k ? v : std::vector<std::string>{}; };
  };
  return {
      {"non-number", when(Kind::count, {"abc", "1.5", "12x"})},
      {"negative", [](const Spec& s, const Files&) {
         return s.kind == Kind::count && s.min >= 0 ? std::vector<std::string>{std::to_string(s.min - 1)} : std::vector<std::string>{};
       }},
      {"out of range", [](const Spec& s, const Files&) {
         if (s.kind != Kind::count) return std::vector<std::string>{};
         return std::vector<std::string>{s.max < std::numeric_limits<long long>::max() ? std::to_string(s.max + 1)
                                                                                       : "99999999999999999999999"};
       }},
      {"malformed quantity", when(Kind::quantity, {"abc", "-1", "1Qi", "4 Gi"})},
      {"malformed duration", [](const Spec& s, const Files&) {
         if (s.kind != Kind::duration) return std::vector<std::string>{};
         std::vector<std::string> v = {"soon", "5x", "-1s", "1h-"};
         if (!s.bare_seconds) v.push_back("5");                                  // a unit is required
         if (s.min_ms > 0) v.push_back(std::to_string(s.min_ms > 1 ? s.min_ms - 1 : 0) + "ms");  // below the least
         return v;
       }},
      {"unknown enum value", [](const Spec& s, const Files&) {
         if (s.kind != Kind::choice) return std::vector<std::string>{};
         return std::vector<std::string>{"no-such-value", s.choices.empty() ? "x" : s.choices.front() + "x"};
       }},
      {"not a boolean", when(Kind::boolean, {"maybe", "yes", "2"})},
      {"malformed KEY=VALUE", [](const Spec& s, const Files&) {
         if (s.kind != Kind::key_value) return std::vector<std::string>{};
         std::vector<std::string> v = {"novalue", "=value"};
         if (s.key == tfjob::cli::flag::Key::label) v.push_back("Bad Key=v");
         if (s.value == tfjob::cli::flag::Value::label) v.push_back("k=a,b=c");
         if (s.value == tfjob::cli::flag::Value::quantity) v.push_back("nvidia.com/gpu=lots");
         return v;
       }},
      {"malformed volume", when(Kind::volume, {"data:/data:rw", "a:/a,b:/b", ":/data", "data:relative", "Data"})},
      {"malformed toleration", when(Kind::toleration, {"k:Sometimes", "=v", "k=v:Never"})},
      {"malformed form of its own", [](const Spec& s, const Files&) { return s.kind == Kind::composite ? s.bad : std::vector<std::string>{}; }},
      {"missing file", when(Kind::file, {"/nonexistent/kubectl-tfjob-contract"})},
      {"empty file", [](const Spec& s, const Files& f) {
         return s.kind == Kind::file && s.content != Content::any ? std::vector<std::string>{f.empty} : std::vector<std::string>{};
       }},
      {"binary file", [](const Spec& s, const Files& f) {
         return s.kind == Kind::file && s.content == Content::text ? std::vector<std::string>{f.binary} : std::vector<std::string>{};
       }},
      {"directory", [](const Spec& s, const Files& f) {
         return s.kind == Kind::file && !s.dir_ok ? std::vector<std::string>{f.dir} : std::vector<std::string>{};
       }},
  };
}

/// A command of the CLI: its words and the values its required arguments are given.
struct Command {
  std::vector<std::string> words;
  std::vector<std::string> required;
  std::vector<const CLI::Option*> required_of;  ///< the option each `required` value is for
  std::vector<const CLI::Option*> arguments;    ///< its positional arguments (NAME ...)
  std::vector<const CLI::Option*> options;  ///< its own, named (--flag) options
  std::vector<std::string> flag_names;      ///< every --name the command knows, the globals' too
};

void collect(const CLI::App* app, std::vector<std::string> words, std::vector<Command>& out, const std::vector<std::string>& globals) {
  for (const CLI::App* sub : app->get_subcommands([](const CLI::App*) { return true; })) {
    if (sub->get_group().empty()) continue;  // hidden (__complete)
    Command c;
    c.words = words;
    c.words.push_back(sub->get_name());
    c.flag_names = globals;
    for (const CLI::Option* o : sub->get_options()) {
      const bool argument = o->get_lnames().empty() && o->get_snames().empty();
      if (o->get_required()) {  // given a value that is read, so the parse reaches the flag fed
        auto s = tfjob::cli::flag::spec_of(*o);
        std::string v = s && s->kind == tfjob::cli::flag::Kind::file ? tfjob::test::source_dir() + "/samples/mnist/tfjob.yaml"
                        : s && !s->example.empty()                   ? s->example
                                                                     : "x";
        c.required.push_back(argument ? v : "--" + o->get_lnames().front() + "=" + v);
        c.required_of.push_back(o);
      }
      if (argument) {
        c.arguments.push_back(o);
        continue;
      }
      if (o->get_name() == "--help") continue;
      c.options.push_back(o);
      for (const auto& l : o->get_lnames()) c.flag_names.push_back("--" + l);
    }
    out.push_back(c);
    collect(sub, c.words, out, globals);
  }
}

/// The commands of `app` (which must outlive what this returns: it points at its options).
std::vector<Command> commands(const CLI::App& app, std::vector<const CLI::Option*>& global_options) {
  std::vector<Command> out;
  std::vector<std::string> globals;
  for (const CLI::Option* o : app.get_options()) {
    if (o->get_name() == "--help" || o->get_name() == "--version") continue;
    global_options.push_back(o);
    for (const auto& l : o->get_lnames()) globals.push_back("--" + l);
  }
  collect(&app, {}, out, globals);
  return out;
}

std::string long_name(const CLI::Option* o) { return "--" + o->get_lnames().front(); }

/// The one form: `error: --flag: what is wrong; what would be right` on the first line.
void check_form(const Ran& r, const std::string& flag) {
  const std::string line = first_line(r.err);
  INFO("stderr: " << r.err);
  CHECK(r.rc == 64);
  CHECK(r.out.empty());
  CHECK(line.rfind("error: " + flag + ": ", 0) == 0);
  CHECK(line.find("; ", flag.size() + 9) != std::string::npos);
  const auto give = line.find("give ");  // what to do is said once
  CHECK((give == std::string::npos || line.find("give ", give + 1) == std::string::npos));
}
#endif

}  // namespace

TEST_CASE("contract: every flag of every command refuses every class of bad value in one form, exit 64, nothing sent",
          "[cli][contract]") {
#ifndef TFJOB_HAVE_PLUGIN_CLI
  TFJOB_SKIP("the plugin is not built (TFJOB_BUILD_PLUGIN=OFF)");
#else
  tfjob::test::FakeCluster c(tfjob::test::with_controllers({}, false), "cli-contract");
  const Files files;
  // the option table, as run_cli builds it; each call below builds its own
  tfjob::cli::with_cli([&](CLI::App& app) {
  std::vector<const CLI::Option*> globals;
  const auto cmds = commands(app, globals);
  REQUIRE(cmds.size() >= 25);  // submit ... version, help, and serve's subcommands
  const auto classes = bad_classes();
  std::map<std::string, int> fed;  // class -> how many (flag, value) pairs it fed
  std::size_t runs = 0;

  auto feed = [&](const Command& cmd, const CLI::Option* o) {
    auto spec = tfjob::cli::flag::spec_of(*o);
    INFO(cmd.words.front() << " " << long_name(o));
    // every option is declared through the typed layer, so its kind is known
    REQUIRE(spec);
    // and takes one value per --flag, as pflag's do (a repeatable one is repeated): the word
    // after its value is the command's, never a second value
    CHECK(o->get_expected_max() <= 1);
    for (const auto& cls : classes) {
      for (const auto& v : cls.values(*spec, files)) {
        std::vector<std::string> args = cmd.words;
        args.insert(args.end(), cmd.required.begin(), cmd.required.end());
        args.push_back(long_name(o) + "=" + v);
        args.push_back("--kubeconfig=" + c.kubeconfig);
        c.server->clear_requests();
        const Ran r = call(args);
        INFO(cls.name << ": " << [&] { std::string s; for (auto& a : args) s += a + " "; return s; }());
        check_form(r, o->get_name());
        if (spec->kind == tfjob::cli::flag::Kind::key_value && (v == "novalue" || v == "=value")) {
          // a malformed pair asks for the pair as --help shows the flag (CLAIM=DIR, not KEY=VALUE)
          const std::string type = o->get_type_name();
          CHECK(has(first_line(r.err), "; give " + type.substr(0, type.find('['))));
        }
        CHECK(c.server->requests().empty());
        ++fed[cls.name];
        ++runs;
      }
    }
    // missing argument: a flag that takes a value, given none
    if (o->get_type_size() != 0 && o->get_expected_min() > 0 && spec->bare.empty()) {
      std::vector<std::string> args = cmd.words;
      args.insert(args.end(), cmd.required.begin(), cmd.required.end());
      args.insert(args.begin(), "--kubeconfig=" + c.kubeconfig);
      args.push_back(long_name(o));
      c.server->clear_requests();
      const Ran r = call(args);
      check_form(r, o->get_name());
      CHECK(has(first_line(r.err), "flag needs an argument; give "));
      CHECK(c.server->requests().empty());
      ++fed["missing argument"];
    }
  };

  for (const auto& cmd : cmds) {
    for (const CLI::Option* o : cmd.options) feed(cmd, o);
    // an empty NAME names nothing: refused as the command line is read (kubectl: "resource name
    // may not be empty"), not sent as a request for the whole collection
    for (const CLI::Option* o : cmd.arguments) {
      auto spec = tfjob::cli::flag::spec_of(*o);
      if (!spec || !spec->nonempty) continue;
      std::vector<std::string> args = cmd.words;
      bool given = false;
      for (std::size_t i = 0; i < cmd.required.size(); ++i) {
        given = given || cmd.required_of[i] == o;
        args.push_back(cmd.required_of[i] == o ? "" : cmd.required[i]);
      }
      if (!given) args.push_back("");  // an optional argument, after the required ones (top WHAT NAME)
      args.push_back("--kubeconfig=" + c.kubeconfig);
      c.server->clear_requests();
      const Ran r = call(args);
      INFO(cmd.words.front() << " " << o->get_name() << " \"\"");
      CHECK(r.rc == 64);
      CHECK(first_line(r.err) == "error: " + o->get_type_name() + ": \"\" is empty; give a " + o->get_type_name());
      CHECK(c.server->requests().empty());
      ++fed["empty name"];
    }
    // an unknown flag, and a near miss of one of the command's own
    std::vector<std::string> args = cmd.words;
    args.insert(args.end(), cmd.required.begin(), cmd.required.end());
    args.push_back("--no-such-flag-at-all");
    c.server->clear_requests();
    Ran r = call(args);
    INFO(cmd.words.front());
    CHECK(r.rc == 64);
    CHECK(first_line(r.err) == "error: unknown flag --no-such-flag-at-all");
    CHECK(c.server->requests().empty());
    ++fed["unknown flag"];
    if (!cmd.required.empty()) {
      // and without what the command requires: the unknown flag is said first, as pflag reads
      // flags before it checks what is required (`scale x --replicas 3`: not "--workers: required")
      std::vector<std::string> bare = cmd.words;
      bare.push_back("--no-such-flag-at-all");
      bare.push_back("--kubeconfig=" + c.kubeconfig);
      const Ran rb = call(bare);
      CHECK(rb.rc == 64);
      CHECK(first_line(rb.err) == "error: unknown flag --no-such-flag-at-all");
      ++fed["unknown flag before a missing one"];
    }
    // a repeatable KEY=VALUE flag given one key twice, with two values: which was meant is not guessed
    for (const CLI::Option* o : cmd.options) {
      auto spec = tfjob::cli::flag::spec_of(*o);
      if (!spec || spec->kind != tfjob::cli::flag::Kind::key_value) continue;
      const bool qty = spec->value == tfjob::cli::flag::Value::quantity;
      std::vector<std::string> twice = cmd.words;
      twice.insert(twice.end(), cmd.required.begin(), cmd.required.end());
      twice.push_back(long_name(o) + "=team=" + (qty ? "1" : "a"));
      twice.push_back(long_name(o) + "=team=" + (qty ? "2" : "b"));
      twice.push_back("--kubeconfig=" + c.kubeconfig);
      c.server->clear_requests();
      const Ran rt = call(twice);
      INFO(cmd.words.front() << " " << long_name(o) << " twice");
      check_form(rt, o->get_name());
      CHECK(has(first_line(rt.err), "the key \"team\" is given twice"));
      CHECK(c.server->requests().empty());
      ++fed["a key given twice"];
    }
    for (const CLI::Option* o : cmd.options) {
      std::string typo = long_name(o);
      if (typo.size() < 6) continue;
      std::swap(typo[3], typo[4]);  // --wrokers for --workers
      if (std::find(cmd.flag_names.begin(), cmd.flag_names.end(), typo) != cmd.flag_names.end()) continue;
      args.back() = typo;
      r = call(args);
      CHECK(r.rc == 64);
      CHECK(first_line(r.err) == "error: unknown flag " + typo);
      CHECK(has(r.err, "\ndid you mean --"));
      ++fed["unknown flag, a near miss"];
      break;
    }
  }
  // the global flags, once, with a command that would contact the server
  for (const CLI::Option* o : globals) feed(Command{{"get"}, {}, {}, {}, {}, {}}, o);

  // each class fed at least one flag: a kind no flag declares any more shows here
  for (const char* cls : {"non-number", "negative", "out of range", "malformed quantity", "malformed duration",
                          "unknown enum value", "not a boolean", "malformed KEY=VALUE", "malformed volume", "malformed toleration",
                          "malformed form of its own", "missing file", "empty file", "binary file", "missing argument",
                          "unknown flag", "unknown flag, a near miss", "empty name", "unknown flag before a missing one",
                          "a key given twice"}) {
    INFO(cls);
    CHECK(fed[cls] > 0);
  }
  CHECK(runs > 300);
  });
#endif
}

#ifdef TFJOB_HAVE_PLUGIN_CLI
namespace {
/// A manifest class: its name, the manifest (the MNIST sample changed by `edit`), and the
/// words stderr must hold (the path of what is wrong, and what would be right).
struct ManifestClass {
  const char* name;
  std::function<std::string(std::string)> edit;
  std::vector<std::string> said;
};

std::string replace_once(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

std::vector<ManifestClass> manifest_classes() {
  return {
      {"unknown field", [](std::string t) { return replace_once(t, "  runPolicy:", "  runPolcy:"); },
       {"unknown field \"spec.runPolcy\"; did you mean \"runPolicy\"?"}},
      {"field at the wrong level", [](std::string t) { return replace_once(t, "  runPolicy:", "  cleanPodPolicy: None\n  runPolicy:"); },
       {"spec.cleanPodPolicy", "spec.runPolicy"}},
      {"wrong type", [](std::string t) { return replace_once(t, "      replicas: 1", "      replicas: one"); },
       {"spec.tfReplicaSpecs.Chief.replicas"}},
      {"wrong kind", [](std::string t) { return replace_once(t, "kind: TFJob", "kind: TfJob"); }, {"TfJob", "TFJob"}},
      {"wrong apiVersion", [](std::string t) { return replace_once(t, "apiVersion: kubeflow.org/v1", "apiVersion: kubeflow.org/v1beta2"); },
       {"kubeflow.org/v1beta2", "kubeflow.org/v1"}},
      {"a bad document among good ones",
       [](std::string t) {
         return t + "\n---\n" + replace_once(replace_once(t, "name: mnist", "name: second"), "  runPolicy:", "  runPolcy:");
       },
       {"TFJob second", "spec.runPolcy"}},
  };
}
}  // namespace
#endif

TEST_CASE("contract: every command that reads a TFJob manifest refuses every class of bad manifest, exit 64, nothing sent",
          "[cli][contract][manifest]") {
#ifndef TFJOB_HAVE_PLUGIN_CLI
  TFJOB_SKIP("the plugin is not built (TFJOB_BUILD_PLUGIN=OFF)");
#else
  tfjob::test::FakeCluster c(tfjob::test::with_controllers({}, false), "cli-contract-manifests");
  std::string sample;
  {
    std::ifstream in(tfjob::test::source_dir() + "/samples/mnist/tfjob.yaml");
    sample.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  REQUIRE(!sample.empty());
  const std::string dir = tfjob::test::temp_dir("cli-contract-manifests");
  // the commands that judge what they read: those with --validate, found in the option table
  // (a command given the flag later is covered without editing this test)
  std::vector<std::vector<std::string>> readers;
  tfjob::cli::with_cli([&](CLI::App& app) {
    std::vector<const CLI::Option*> globals;
    for (const auto& cmd : commands(app, globals)) {
      bool validates = false, files = false;
      for (const CLI::Option* o : cmd.options) {
        validates = validates || o->get_name() == "--validate";
        files = files || o->check_name("--filename");
      }
      if (validates && files) readers.push_back(cmd.words);
    }
  });
  std::sort(readers.begin(), readers.end());
  CHECK(readers == std::vector<std::vector<std::string>>{{"explain"}, {"lint"}, {"submit"}, {"tensorboard"}, {"tf-config"}});
  std::size_t runs = 0;
  for (const auto& cls : manifest_classes()) {
    const std::string file = dir + "/" + std::to_string(runs) + ".yaml";
    std::ofstream(file) << cls.edit(sample);
    for (const auto& words : readers) {
      std::vector<std::string> args = words;
      args.insert(args.end(), {"-f", file, "--kubeconfig=" + c.kubeconfig});
      if (words.front() == "tensorboard") args.push_back("--dry-run=client");  // -f is read with a client dry run
      c.server->clear_requests();
      const Ran r = call(args);
      INFO(cls.name << ": kubectl tfjob " << words.front() << " -f FILE\nstdout: " << r.out << "\nstderr: " << r.err);
      CHECK(c.server->requests().empty());
      if (words.front() == "lint") {
        // lint's answer is its findings: an error finding, exit 1 (docs/cli.md: "the answer is no")
        CHECK(r.rc == 1);
        for (const auto& w : cls.said) CHECK(has(r.out + r.err, w));
        CHECK(has(r.out + r.err, "error"));
        continue;
      }
      CHECK(r.rc == 64);
      CHECK(r.out.empty());
      CHECK(first_line(r.err).rfind("error: ", 0) == 0);
      CHECK(has(r.err, file));
      for (const auto& w : cls.said) CHECK(has(r.err, w));
    }
    ++runs;
  }
  CHECK(runs == manifest_classes().size());
#endif
}

#ifdef TFJOB_HAVE_PLUGIN_CLI
namespace {
/// A command line refused before anything is sent, and the first line it is refused with.
struct Refused {
  std::vector<std::string> args;
  std::string first_line;
};

/// Each is refused with exit 64, nothing on stdout, and its first line of stderr as given.
void check_refused(const std::vector<Refused>& cases) {
  for (const auto& k : cases) {
    const Ran r = call(k.args);
    INFO(r.err);
    CHECK(r.rc == 64);
    CHECK(r.out.empty());
    CHECK(first_line(r.err) == k.first_line);
  }
}
}  // namespace
#endif

TEST_CASE("contract: the form's words for the everyday mistakes of the issue", "[cli][contract]") {
#ifndef TFJOB_HAVE_PLUGIN_CLI
  TFJOB_SKIP("the plugin is not built (TFJOB_BUILD_PLUGIN=OFF)");
#else
  const std::vector<Refused> cases = {
      {{"submit", "--name", "a", "--image", "x", "--gpus", "abc"},
       "error: --gpus: \"abc\" is not a whole number; give a whole number of 0 or more"},
      {{"serve", "x", "--model", "resnet", "--gpus", "-1"}, "error: --gpus: -1 is less than 0; give a whole number of 0 or more"},
      {{"predict", "x", "--top", "abc"}, "error: --top: \"abc\" is not a whole number; give a whole number of 1 or more"},
      {{"get", "-o", "jsn"},
       "error: --output: \"jsn\" is not one of them; give wide, json, yaml, name, jsonpath=... or custom-columns=... (did you mean json?)"},
      {{"submit", "mnist", "-o", "bogus"}, "error: --output: \"bogus\" is not one of them; give yaml, json or name"},
      {{"get", "--request-timeout", "abc"},
       "error: --request-timeout: \"abc\" is not a duration (must be a number of seconds or a duration with a unit (e.g. 0, 30s, 1m, 2h)); "
       "give a duration with a unit (ns, us, ms, s, m, h), e.g. 30s, 5m or 1h30m, or a number of seconds"},
      {{"submit", "--name", "a", "--image", "x", "--pvc", "data:/data:rw"},
       "error: --pvc: \"data:/data:rw\": \":rw\" is not a mode (only :ro is); give CLAIM:/mount/path, with :ro for read-only "
       "(read-write is the default), e.g. tfjob-mnist:/train"},
      {{"submit", "--name", "a", "--image", "x", "--pvc", "a:/a,b:/b"},
       "error: --pvc: \"a:/a,b:/b\": it holds more than one mount; give one CLAIM:/mount/path per flag, repeated for each claim"},
      {{"submit", "--name", "a", "--image", "x", "--pvc", "data", "--dry-run=client"},
       "error: --pvc: \"data\" has no mount path; give CLAIM:/mount/path[:ro], e.g. data:/data (a bare CLAIM replaces the claim of a "
       "built-in sample: submit mnist --pvc data)"},
      {{"submit", "mnist", "--gang", "--min-available", "2"}, "error: --min-available: cannot be combined with --gang; give one of them"},
      // the same words where a command judges two flags itself (flag::exclusive)
      {{"logs", "x", "--since", "5m", "--since-time", "2026-01-02T15:04:05Z"}, "error: --since: cannot be combined with --since-time; give one of them"},
      {{"logs", "x", "--all-containers", "-c", "tensorflow"}, "error: --all-containers: cannot be combined with --container; give one of them"},
      {{"describe", "x", "-l", "a=b"}, "error: --selector: cannot be combined with TFJob names; give one of them"},
      {{"delete", "--all", "-l", "a=b"}, "error: --all: cannot be combined with --selector; give one of them"},
      {{"models", "x", "--version", "1", "--label", "stable"}, "error: --version: cannot be combined with --label; give one of them"},
      {{"submit", "hello", "--wait", "--dry-run=server"}, "error: --wait: cannot be combined with --dry-run=server; give one of them"},
      {{"describe"}, "error: NAME: nothing to describe; give TFJob names, -l SELECTOR or -A"},
      {{"wait"}, "error: NAME: required; give NAME"},
      // a flag the way of checking never reads: refused, not ignored
      {{"gpu-check", "--inventory", "--keep"}, "error: --keep: has no effect with --inventory, which runs no probe; leave out one of them"},
      {{"gpu-check", "--local", "--node", "n1"}, "error: --node: has no effect with --local, which probes this machine; leave out one of them"},
      {{"gpu-check", "--probe-path", "/bin/true"},
       "error: --probe-path: has no effect without --local (the cluster's probe pods run --image); add --local, or leave it out"},
      // submit: what its --help says a flag applies with, or it is refused
      {{"submit", "mnist", "--command", "--dry-run=client"},
       "error: --command: has no effect without words after --; give the command after --, e.g. -- python train.py"},
      {{"submit", "hello", "--all", "--dry-run=client"}, "error: --all: has no effect without --local; add --local, or leave it out"},
      {{"submit", "hello", "--local", "--wait"},
       "error: --wait: has no effect with --local, which runs the job on this machine; leave out one of them"},
      // a suspended job, or one another controller admits, is not started by a local run
      {{"submit", "hello", "--local", "--suspend"},
       "error: --suspend: has no effect with --local, which runs the job on this machine; leave out one of them"},
      {{"submit", "hello", "--local", "--local-queue", "team-a"},
       "error: --local-queue: has no effect with --local, which runs the job on this machine; leave out one of them"},
      // one pod by role: an index without a type names none (it was the chief's, silently)
      {{"exec", "x", "--index", "1", "--", "hostname"},
       "error: --index: has no effect without --replica; add --replica TYPE, e.g. --replica Worker --index 1"},
      {{"attach", "x", "--index", "2"}, "error: --index: has no effect without --replica; add --replica TYPE, e.g. --replica Worker --index 1"},
      {{"port-forward", "x", "--index", "1", "6006"},
       "error: --index: has no effect without --replica; add --replica TYPE, e.g. --replica Worker --index 1"},
      // a data folder that is not there is refused, not made (a typo trained on nothing)
      {{"submit", "hello", "--local", "--volume", "tfjob-hello=/nonexistent/tfjob-contract-data"},
       "error: --volume: \"tfjob-hello=/nonexistent/tfjob-contract-data\": /nonexistent/tfjob-contract-data does not exist; give the "
       "folder that holds the claim's data (mkdir it first for an empty one)"},
      {{"submit", "hello", "--local", "--dry-run=server"},
       "error: --dry-run: \"server\" asks a cluster, and --local runs on this machine; leave out one of them"},
      {{"submit", "hello", "--local", "-o", "json"},
       "error: --output: has no effect with --local, which prints the replicas' output; leave out one of them"},
      {{"submit", "hello", "--follow", "--dry-run=client"},
       "error: --follow: has no effect with --dry-run=client, which creates nothing; leave out one of them"},
      {{"submit", "hello", "--save", "/tmp/x", "--dry-run=client"}, "error: --save: has no effect without --follow; add --follow, or leave it out"},
      {{"submit", "hello", "--timeout", "5m", "--dry-run=client"},
       "error: --timeout: has no effect without --wait or --follow; add --wait, or leave it out"},
      {{"serve", "m", "--model", "resnet", "--export-dir", "/x", "--dry-run=client"},
       "error: --export-dir: has no effect without --from-job; add --from-job JOB, or leave it out"},
      {{"serve", "m", "--model", "resnet", "--model-config-poll", "5", "--dry-run=client"},
       "error: --model-config-poll: has no effect without a model config (--model NAME=SOURCE, --version-policy, --version-label or "
       "--from-job); give the models as --model NAME=SOURCE, or leave it out"},
      {{"logs", "x", "-o", "json", "--timestamps"},
       "error: --timestamps: has no effect with --output json, whose objects hold each line's replica and time, uncoloured; leave out one of them"},
      {{"logs", "x", "-o", "json", "--highlight", "loss"},
       "error: --highlight: has no effect with --output json, whose objects hold each line's replica and time, uncoloured; leave out one of them"},
      {{"predict", "x", "--json", tfjob::test::source_dir() + "/samples/mnist/tfjob.yaml", "--top", "3"},
       "error: --top: has no effect with --json, which prints TF Serving's response as it came; leave out one of them"},
      // what the autoscaler or --image decides, given beside it: refused, not dropped
      {{"serve", "m", "--model", "resnet", "--cpu", "1", "--autoscale", "2:3:50%", "--replicas", "5", "--dry-run=client"},
       "error: --replicas: has no effect with --autoscale, whose MIN:MAX the autoscaler keeps the replicas within; leave out one of them"},
      {{"serve", "m", "--model", "resnet", "--image", "my/ts:1", "--serving-version", "2.19.0", "--dry-run=client"},
       "error: --serving-version: has no effect with --image, which names the whole image; leave out one of them"},
      // one setting given twice with two values: which was meant is not guessed
      {{"serve", "m", "--model", "resnet", "--batching", "max_batch_size=32,max_batch_size=64", "--dry-run=client"},
       "error: --batching: the key \"max_batch_size\" is given twice (\"max_batch_size=32\", \"max_batch_size=64\"); give each key once"},
      {{"serve", "m", "--model", "a=resnet", "--version-label", "a:stable=1", "--version-label", "a:stable=2", "--dry-run=client"},
       "error: --version-label: the label \"stable\" of model \"a\" is given twice (\"a:stable=1\", \"a:stable=2\"); give each once"},
      {{"serve", "m", "--model", "a=resnet", "--version-policy", "a=latest:2", "--version-policy", "a=latest:3", "--dry-run=client"},
       "error: --version-policy: the policy of model \"a\" is given twice (\"a=latest:2\", \"a=latest:3\"); give each once"},
      {{"serve", "m", "--model", "resnet", "--autoscale", "1:3:50%", "--cpu", "0", "--dry-run=client"},
       "error: --autoscale scales on CPU utilisation, a percentage of each pod's CPU request, and the pods have none: give them a "
       "CPU request too (--cpu 2)"},
      {{"serve", "m", "--model", "resnet", "--replicas", "0", "--dry-run=client"},
       "error: --replicas: 0 is less than 1; give a whole number of 1 or more"},
      {{"serve", "m", "--model", "resnet", "--no-wait", "--wait-version", "2"},
       "error: --wait-version: has no effect with --no-wait, which returns after the apply; leave out one of them"},
      {{"serve", "m", "--model", "resnet", "--dry-run=client", "--timeout", "1m"},
       "error: --timeout: has no effect with --dry-run, which waits for nothing; leave out one of them"},
      {{"serve", "label", "m", "a", "stable=1", "--no-wait", "--timeout", "1m"},
       "error: --timeout: has no effect with --no-wait, which returns once the label is written; leave out one of them"},
      {{"tensorboard", "x", "-o", "json"}, "error: --output: has no effect without --dry-run=client; add --dry-run=client, or leave it out"},
      {{"tensorboard", "x", "--keep", "--dry-run=client"},
       "error: --keep: has no effect with --dry-run=client, which starts nothing; leave out one of them"},
      // a parent's flag given to a subcommand that never reads it, and --validate without what it judges
      {{"serve", "list", "--gpus", "2"},
       "error: --gpus: is a flag of kubectl tfjob serve, which kubectl tfjob serve list does not read; leave it out"},
      {{"submit", "hello", "--validate=warn", "--dry-run=client"},
       "error: --validate: has no effect without --filename; add --filename, or leave it out"},
      {{"explain", "j", "--validate"}, "error: --validate: has no effect without --filename; add --filename, or leave it out"},
      // an index as given, and no range that expands past any job (it was 8 GB for 0-2000000000)
      {{"logs", "x", "--index", "-1"}, "error: --index: \"-1\" is not an index; give N, N,M or A-B, e.g. --index 0,2-3"},
      {{"logs", "x", "--index", "0-2000000000"},
       "error: --index: \"0-2000000000\" goes past any replica's index; give the indices of the replicas, e.g. --index 0-3"},
      {{"logs", "x", "--index", "0-999999999"},
       "error: --index: \"0-999999999\" names more replicas than a job has (over 10000 in all); give the indices of the replicas, "
       "e.g. --index 0-3"},
      // a word no argument takes, never dropped: serve's own NAME is not its subcommands'
      {{"gpu-check", "extra"}, "error: ARGS: \"extra\" is one argument too many; kubectl tfjob gpu-check takes no more (see --help)"},
      {{"serve", "list", "a"}, "error: ARGS: \"a\" is one argument too many; kubectl tfjob serve list takes no more (see --help)"},
      {{"serve", "status", "a", "b"},
       "error: ARGS: \"b\" is one argument too many; kubectl tfjob serve status takes no more (see --help)"},
  };
  check_refused(cases);
  // a typo'd flag, as the issue saw it
  Ran r = call({"submit", "mnist", "--wrokers", "2"});
  CHECK(r.rc == 64);
  CHECK(r.err.rfind("error: unknown flag --wrokers\ndid you mean --workers?\n", 0) == 0);
#endif
}

TEST_CASE("contract: --pvc as documented mounts what it says, nothing truncated or dropped", "[cli][contract]") {
#ifndef TFJOB_HAVE_PLUGIN_CLI
  TFJOB_SKIP("the plugin is not built (TFJOB_BUILD_PLUGIN=OFF)");
#else
  auto mounts = [](const json& job, const std::string& type) {
    json out = json::array();
    for (const auto& m : job["spec"]["tfReplicaSpecs"][type]["template"]["spec"]["containers"][0].value("volumeMounts", json::array()))
      out.push_back(m);
    return out;
  };
  // CLAIM:/path and CLAIM:/path:ro, repeated
  Ran r = call({"submit", "--name", "a", "--image", "x", "--pvc", "data:/data", "--pvc", "ckpt:/ckpt:ro", "--dry-run=client", "-o", "json"});
  INFO(r.err);
  REQUIRE(r.rc == 0);
  json job = json::parse(r.out);
  auto m = mounts(job, "Worker");
  REQUIRE(m.size() == 2);
  CHECK(m[0]["mountPath"] == "/data");
  CHECK_FALSE(m[0].value("readOnly", false));
  CHECK(m[1]["mountPath"] == "/ckpt");
  CHECK(m[1]["readOnly"] == true);
  // a bare CLAIM with a sample: that claim where the sample mounts its own (/train)
  r = call({"submit", "mnist", "--pvc", "my-data", "--dry-run=client", "-o", "json"});
  INFO(r.err);
  REQUIRE(r.rc == 0);
  job = json::parse(r.out);
  for (const char* type : {"Chief", "Worker"}) {
    bool found = false;
    for (const auto& v : job["spec"]["tfReplicaSpecs"][type]["template"]["spec"]["volumes"])
      if (v.contains("persistentVolumeClaim")) {
        CHECK(v["persistentVolumeClaim"]["claimName"] == "my-data");
        found = true;
      }
    CHECK(found);
    bool train = false;
    for (const auto& mm : mounts(job, type)) train = train || mm["mountPath"] == "/train";
    CHECK(train);
  }
  // two bare claims: which one? refused
  r = call({"submit", "mnist", "--pvc", "a", "--pvc", "b", "--dry-run=client"});
  CHECK(r.rc == 64);
  CHECK(first_line(r.err).rfind("error: --pvc: \"a\" and \"b\" both name the sample's claim; ", 0) == 0);
#endif
}

TEST_CASE("contract: submit's words are a SAMPLE, then after -- the ARGS, as --help says: nothing before -- is taken for an arg", "[cli][contract]") {
#ifndef TFJOB_HAVE_PLUGIN_CLI
  TFJOB_SKIP("the plugin is not built (TFJOB_BUILD_PLUGIN=OFF)");
#else
  auto args_of = [](const json& job, const std::string& type, const char* key) {
    return job["spec"]["tfReplicaSpecs"][type]["template"]["spec"]["containers"][0].value(key, json::array());
  };
  // refused, whatever else is given: a word before -- that names no sample (kubectl run's NAME
  // habit), a second word there, one beside --sample; and --workers 0 with no other replica
  const std::string flags_job = "; give one of hello, mnist (submit --list-samples); a job from flags takes --name and --image, and its args after --";
  const std::vector<Refused> cases = {
      {{"submit", "demo", "--image", "busybox", "--name", "x", "--dry-run=client"}, "error: SAMPLE: \"demo\" is not a built-in sample" + flags_job},
      {{"submit", "demo", "--image", "busybox", "--dry-run=client"}, "error: SAMPLE: \"demo\" is not a built-in sample" + flags_job},
      {{"submit", "--command", "--image", "x", "--name", "y", "python", "train.py", "--dry-run=client"},
       "error: SAMPLE: \"python\" is not a built-in sample" + flags_job},
      {{"tf-config", "mnsit"}, "error: SAMPLE: \"mnsit\" is not a built-in sample (did you mean mnist?)" + flags_job},
      {{"submit", "", "--image", "x", "--name", "y", "--dry-run=client"}, "error: SAMPLE: \"\" is not a built-in sample" + flags_job},
      {{"submit", "mnist", "foo", "bar", "--dry-run=client"},
       "error: ARGS: \"foo\" comes before --, where only a sample's name goes; give the container's args after --, e.g. submit mnist -- foo bar"},
      {{"submit", "--sample", "hello", "demo", "--dry-run=client"},
       "error: ARGS: \"demo\" comes before --; give the container's args after --, e.g. submit --sample hello -- demo"},
      {{"submit", "--sample", "hello", "mnist", "--dry-run=client"}, "error: --sample: \"hello\" and \"mnist\" both name a sample; give one of them"},
      {{"submit", "--image", "x", "--name", "y", "--workers", "0", "--dry-run=client"}, "error: invalid TFJob:"},
  };
  check_refused(cases);
  Ran r = call({"submit", "--image", "x", "--name", "y", "--workers", "0", "--dry-run=client"});
  CHECK_THAT(r.err, Catch::Contains("--workers: Invalid value: 0 leaves the job without a replica: give --workers 1 or more"));

  // taken: the args after --, with or without a sample before it; --command makes them the command
  r = call({"submit", "--image", "x", "--name", "y", "--dry-run=client", "-o", "json", "--", "demo", "--lr=0.1"});
  INFO(r.err);
  REQUIRE(r.rc == 0);
  json job = json::parse(r.out);
  CHECK(args_of(job, "Worker", "args") == json::array({"demo", "--lr=0.1"}));
  r = call({"submit", "mnist", "--dry-run=client", "-o", "json", "--", "--epochs=1"});
  REQUIRE(r.rc == 0);
  job = json::parse(r.out);
  CHECK(job["metadata"]["name"] == "mnist");
  CHECK(args_of(job, "Chief", "args") == json::array({"--epochs=1"}));
  // an empty word after -- is an empty arg, as typed
  r = call({"submit", "--image", "x", "--name", "y", "--dry-run=client", "-o", "json", "--", ""});
  REQUIRE(r.rc == 0);
  CHECK(args_of(json::parse(r.out), "Worker", "args") == json::array({""}));
  // a sample's name after -- is an arg like any other word
  r = call({"submit", "--image", "x", "--name", "y", "--dry-run=client", "-o", "json", "--", "mnist"});
  REQUIRE(r.rc == 0);
  CHECK(args_of(json::parse(r.out), "Worker", "args") == json::array({"mnist"}));
  // a sample with --command: the words after -- replace its command (they were its command's
  // first word "mnist" and the rest before)
  r = call({"submit", "mnist", "--command", "--dry-run=client", "-o", "json", "--", "python", "x.py"});
  INFO(r.err);
  REQUIRE(r.rc == 0);
  job = json::parse(r.out);
  CHECK(job["metadata"]["name"] == "mnist");
  CHECK(args_of(job, "Chief", "command") == json::array({"python", "x.py"}));
  // --workers 0 beside another replica: no Worker, as typed
  r = call({"submit", "--image", "x", "--name", "y", "--chief", "--workers", "0", "--dry-run=client", "-o", "json"});
  REQUIRE(r.rc == 0);
  job = json::parse(r.out);
  CHECK(job["spec"]["tfReplicaSpecs"].contains("Chief"));
  CHECK_FALSE(job["spec"]["tfReplicaSpecs"].contains("Worker"));
#endif
}

TEST_CASE("contract: --FLAG= is the empty value, as pflag reads it, never the next word", "[cli][contract]") {
#ifndef TFJOB_HAVE_PLUGIN_CLI
  TFJOB_SKIP("the plugin is not built (TFJOB_BUILD_PLUGIN=OFF)");
#else
  // CLI11 took the word after `--arg=` as its value: `serve x --arg= --dry-run=client` applied
  // for real. Every flag of every command that takes a value, given `--flag=` and then --help:
  // the help is printed, or the empty value refused by name; never "--help" taken as the value.
  std::size_t fed = 0;
  tfjob::cli::with_cli([&](CLI::App& app) {
    std::vector<const CLI::Option*> globals;
    auto cmds = commands(app, globals);
    for (const auto& cmd : cmds) {
      std::vector<const CLI::Option*> opts = cmd.options;
      if (&cmd == &cmds.front()) opts.insert(opts.end(), globals.begin(), globals.end());
      for (const CLI::Option* o : opts) {
        if (o->get_items_expected_max() == 0) continue;  // a switch: `--watch=` is --watch
        std::vector<std::string> args = cmd.words;
        args.insert(args.end(), cmd.required.begin(), cmd.required.end());
        args.push_back(long_name(o) + "=");
        args.push_back("--help");
        const Ran r = call(args);
        INFO(cmd.words.front() << " " << long_name(o) << "= --help: " << r.err);
        CHECK_FALSE(has(r.err, "--help\""));
        CHECK(((r.rc == 0 && has(r.out, "Usage")) || (r.rc == 64 && has(first_line(r.err), "\"\""))));
        ++fed;
      }
    }
  });
  CHECK(fed > 150);
  // as typed: an empty extra server flag is refused, an empty --image is no image given
  check_refused({{{"serve", "x", "--model", "resnet", "--arg=", "--dry-run=client"}, "error: --arg: \"\" is empty; give a FLAG"}});
  Ran r = call({"serve", "x", "--model", "resnet", "--image=", "--dry-run=client", "-o", "json"});
  INFO(r.err);
  REQUIRE(r.rc == 0);
  CHECK(has(r.out, "\"image\": \"tensorflow/serving:"));
  // the same pair twice is taken once; two mounts at one path are the operator's pods' 422, said first
  r = call({"serve", "m", "--model", "a=resnet", "--version-policy", "a=latest:2", "--version-policy", "a=latest:2", "--dry-run=client", "-o", "name"});
  CHECK(r.rc == 0);
  r = call({"submit", "--name", "a", "--image", "x", "--pvc", "d:/data", "--pvc", "e:/data", "--dry-run=client"});
  CHECK(r.rc == 64);
  CHECK(has(r.err, "spec.tfReplicaSpecs[Worker].template.spec.containers[0].volumeMounts[1].mountPath: Invalid value: \"/data\": must be unique"));
#endif
}

TEST_CASE("contract: what the operator refuses in a manifest, every command that reads one refuses alike", "[cli][contract]") {
#ifndef TFJOB_HAVE_PLUGIN_CLI
  TFJOB_SKIP("the plugin is not built (TFJOB_BUILD_PLUGIN=OFF)");
#else
  // explain -f and tensorboard -f judged the schema only: a job the operator refuses was explained
  // ("the operator has not seen it"), and a job with generateName alone passed every command but
  // submit, which failed at the apply
  const std::string dir = tfjob::test::temp_dir("cli-contract-operator");
  const std::string job = "apiVersion: kubeflow.org/v1\nkind: TFJob\nmetadata:\n  %META%\nspec:\n  tfReplicaSpecs:\n    Worker:\n"
                          "      replicas: %N%\n      template:\n        spec:\n          containers:\n          - name: tensorflow\n"
                          "            image: x\n            args: [--log-dir=/train/logs]\n";
  auto write = [&](const std::string& name, const std::string& meta, const std::string& n) {
    std::string text = std::regex_replace(std::regex_replace(job, std::regex("%META%"), meta), std::regex("%N%"), n);
    std::ofstream(dir + "/" + name) << text;
    return dir + "/" + name;
  };
  const std::vector<std::pair<std::string, std::string>> bad = {
      {write("neg.yaml", "name: neg", "-1"), "spec.tfReplicaSpecs[Worker].replicas: Invalid value: -1: must be greater than or equal to 0"},
      {write("gen.yaml", "generateName: gen-", "1"),
       "metadata.name: Required value: a TFJob from a manifest is applied by its name; generateName is not supported"},
      {write("ns.yaml", "name: ns\n  namespace: Team_A", "1"), "metadata.namespace: Invalid value: \"Team_A\": a lowercase RFC 1123 label"}};
  for (const auto& [file, why] : bad) {
    for (std::vector<std::string> cmd : {std::vector<std::string>{"submit", "-f", file, "--dry-run=client"},
                                         {"tf-config", "-f", file},
                                         {"explain", "-f", file},
                                         {"tensorboard", "-f", file, "--dry-run=client"}}) {
      const Ran r = call(cmd);
      INFO(cmd.front() << " -f " << file << ": " << r.err);
      CHECK(r.rc == 64);
      CHECK(r.out.empty());
      CHECK(first_line(r.err) == "error: invalid TFJob:");
      CHECK(has(r.err, why));
    }
    const Ran l = call({"lint", "-f", file});  // lint says it as an error finding, exit 1
    INFO(l.out << l.err);
    CHECK(l.rc == 1);
    CHECK(has(l.out + l.err, why));
  }
#endif
}

TEST_CASE("contract: --request-timeout as kubectl: a bare number is seconds, 0 none, a positive value never none",
          "[cli][contract][unit]") {
  using tfjob::kube::detail::parse_duration;
  using ms = std::chrono::milliseconds;
  CHECK(parse_duration("30") == ms(30000));
  CHECK(parse_duration("0") == ms(0));
  CHECK(parse_duration("500us") == ms(1));    // rounded up: a limit, never "no limit"
  CHECK(parse_duration("1ns") == ms(1));
  CHECK(parse_duration("1.5ms") == ms(2));
  CHECK(parse_duration("1h30m") == ms(5400000));
  CHECK(parse_duration("2\xc2\xb5s") == ms(1));  // µs
  CHECK_THROWS(parse_duration("-1s"));
  CHECK_THROWS(parse_duration("5x"));
}

TEST_CASE("contract: one exit-code table, in --help and the same for a mistake in every command", "[cli][contract]") {
#ifndef TFJOB_HAVE_PLUGIN_CLI
  TFJOB_SKIP("the plugin is not built (TFJOB_BUILD_PLUGIN=OFF)");
#else
  Ran r = call({"--help"});
  CHECK(r.rc == 0);
  for (const char* line : {"Exit codes (every command):", "\n  0    done", "\n  1    failed", "\n  2    timed out", "\n  3    no result",
                           "\n  4    no GPU", "\n  64   usage", "\n  130  interrupted"})
    CHECK(has(r.out, line));
  // the same mistakes the issue saw with two exit codes: 64 in every command now
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"submit", "mnist", "--gpus", "-1"}, {"serve", "x", "--model", "resnet", "--gpus", "-1"},
           {"get", "-o", "bogus"}, {"submit", "mnist", "-o", "bogus"}, {"wait", "x", "--timeout", "soon"},
           {"get", "--request-timeout", "soon"}, {"serve", "X", "--model", "resnet", "--dry-run=client"}}) {
    r = call(args);
    INFO(args.front() << ": " << r.err);
    CHECK(r.rc == 64);
  }
  // --version and help [COMMAND], as kubectl has them
  r = call({"--version"});
  CHECK(r.rc == 0);
  CHECK(r.out.rfind("kubectl-tfjob v", 0) == 0);
  CHECK(r.out == call({"version", "--client"}).out);
  r = call({"help"});
  CHECK(r.rc == 0);
  CHECK(r.out == call({"--help"}).out);
  r = call({"help", "serve", "list"});
  CHECK(r.rc == 0);
  CHECK(r.out == call({"serve", "list", "--help"}).out);
  r = call({"help", "sevre"});
  CHECK(r.rc == 64);
  CHECK(has(r.err, "error: unknown command \"sevre\" for \"kubectl tfjob\"\n\nDid you mean this?\n\tserve\n"));
  // --min-available says what it excludes in its description, not on its name's line
  r = call({"submit", "--help"});
  CHECK_FALSE(has(r.out, "Excludes:"));
  CHECK(has(r.out, "(schedulingPolicy.minAvailable; not with --gang)"));
#endif
}

// ---- the real kubectl as the reference ---------------------------------------------------

namespace {

std::string find_kubectl() {
  if (const char* env = std::getenv("KUBECTL")) return env;
  for (const char* p : {"/usr/bin/kubectl", "/usr/local/bin/kubectl"})
    if (fs::exists(p)) return p;
  return "";
}

/// kubectl with `args` (a shell word list), its own HOME and KUBECONFIG.
Ran kubectl(const std::string& bin, const std::string& kubeconfig, const std::string& args) {
  const std::string dir = tfjob::test::temp_dir("cli-contract-kubectl");
  const std::string cmd = "cd '" + dir + "' && HOME='" + dir + "' KUBECONFIG='" + kubeconfig + "' timeout 60 '" + bin + "' " + args +
                          " > out 2> err";
  const int rc = std::system(cmd.c_str());
  auto slurp = [&](const char* f) {
    std::ifstream in(dir + "/" + f);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  };
  return {WIFEXITED(rc) ? WEXITSTATUS(rc) : -1, slurp("out"), slurp("err")};
}

/// kubectl's last stderr line, without klog's "E1206 04:46:25.45 22070 file.go:1] " prefix.
std::string last_line(std::string s) {
  while (!s.empty() && s.back() == '\n') s.pop_back();
  s = s.substr(s.rfind('\n') == std::string::npos ? 0 : s.rfind('\n') + 1);
  static const std::regex klog(R"(^[IWEF]\d{4} [0-9:.]+ +\d+ [^\]]+\] )");
  return std::regex_replace(s, klog, "");
}

/// A kubeconfig with no cluster: kubectl and the plugin connect where the flags say.
std::string empty_kubeconfig(const std::string& prefix) {
  const std::string path = tfjob::test::temp_dir(prefix) + "/kubeconfig";
  std::ofstream(path) << "apiVersion: v1\nkind: Config\n";
  return path;
}

json tfjob_manifest(const std::string& name, json labels) {
  json c = {{"name", "tensorflow"}, {"image", "tensorflow/tensorflow:2.15.0"}};
  json spec = {{"replicas", 1}, {"restartPolicy", "Never"}, {"template", {{"spec", {{"containers", json::array({c})}}}}}};
  return {{"apiVersion", "kubeflow.org/v1"},
          {"kind", "TFJob"},
          {"metadata", {{"name", name}, {"namespace", "default"}, {"labels", labels}}},
          {"spec", {{"runPolicy", {{"cleanPodPolicy", "None"}}}, {"tfReplicaSpecs", {{"Worker", spec}}}}}};
}

}  // namespace

TEST_CASE("contract vs kubectl: a refused server is said at once in kubectl's words, whatever the flags", "[cli][contract][kubectl]") {
#ifndef TFJOB_HAVE_PLUGIN_CLI
  TFJOB_SKIP("the plugin is not built (TFJOB_BUILD_PLUGIN=OFF)");
#else
  const std::string k = find_kubectl();
  if (k.empty()) TFJOB_SKIP("kubectl not found (/usr/bin/kubectl or $KUBECTL)");
  const std::string none = empty_kubeconfig("cli-contract-none");
  for (const std::string extra : {"", "--request-timeout=5s", "--request-timeout=500us"}) {
    const Ran ref = kubectl(k, none, "get pods -s https://127.0.0.1:1 --token x " + extra);
    std::vector<std::string> args = {"get", "-s", "https://127.0.0.1:1", "--token", "x", "--kubeconfig", none};
    if (!extra.empty()) args.push_back(extra);
    const Ran r = call(args);
    INFO(extra << "\nkubectl: " << ref.err << "\nplugin: " << r.err);
    const std::string refused = "The connection to the server 127.0.0.1:1 was refused - did you specify the right host or port?";
    CHECK(r.err == refused + "\n");  // the refusal, never the deadline's words: a failed dial is not retried
    CHECK(r.rc == 1);
    // kubectl says the same; with 500us its own deadline can pass first on a loaded machine
    // (then it says "context deadline exceeded"), which says nothing about ours
    if (extra != "--request-timeout=500us" || last_line(ref.err) == refused) {
      CHECK(last_line(ref.err) == refused);
      CHECK(r.rc == ref.rc);
    }
  }
#endif
}

TEST_CASE("contract vs kubectl: --dry-run given bare, or as a boolean, as kubectl 1.32 takes it", "[cli][contract][kubectl]") {
#ifndef TFJOB_HAVE_PLUGIN_CLI
  TFJOB_SKIP("the plugin is not built (TFJOB_BUILD_PLUGIN=OFF)");
#else
  const std::string k = find_kubectl();
  if (k.empty()) TFJOB_SKIP("kubectl not found (/usr/bin/kubectl or $KUBECTL)");
  const std::string none = empty_kubeconfig("cli-contract-dry");
  for (const std::string form : {"--dry-run", "--dry-run=true", "--dry-run=client"}) {
    // kubectl's own client-side create needs no server: its warning is the reference
    const Ran ref = kubectl(k, none, "create deployment x --image=y -o name " + form);
    // the bare flag never takes the next word: the sample's name stays the sample's
    const Ran r = call({"submit", form, "mnist", "-o", "name"});
    INFO(form << "\nkubectl: " << ref.err << "\nplugin: " << r.err);
    CHECK(ref.rc == 0);
    CHECK(r.rc == 0);
    CHECK(r.out == "tfjob.kubeflow.org/mnist\n");
    // kubectl's warning, in its words, or none where kubectl says none (lint's notes follow)
    const std::string warning = ref.err.empty() ? "" : "warning: " + last_line(ref.err) + "\n";
    if (!warning.empty()) CHECK(r.err.rfind(warning, 0) == 0);
    CHECK_FALSE(has(r.err.substr(warning.size()), "--dry-run"));
  }
  const Ran ref = kubectl(k, none, "create deployment x --image=y -o name --dry-run=bogus");
  const Ran r = call({"submit", "mnist", "--dry-run=bogus"});
  CHECK(ref.rc != 0);
  CHECK(r.rc == 64);
  CHECK(first_line(r.err).rfind("error: --dry-run: \"bogus\" is not one of them; give none, client or server", 0) == 0);
#endif
}

TEST_CASE("contract vs kubectl: get --show-labels, -L, --field-selector and describe -l pick and show what kubectl does",
          "[cli][contract][kubectl]") {
#ifndef TFJOB_HAVE_PLUGIN_CLI
  TFJOB_SKIP("the plugin is not built (TFJOB_BUILD_PLUGIN=OFF)");
#else
  const std::string k = find_kubectl();
  if (k.empty()) TFJOB_SKIP("kubectl not found (/usr/bin/kubectl or $KUBECTL)");
  tfjob::test::FakeCluster c(tfjob::test::with_controllers({}, false), "cli-contract-get");
  c.server->put_object(tfjob_manifest("alpha", {{"team", "vision"}, {"app.kubernetes.io/name", "mnist"}}));
  c.server->put_object(tfjob_manifest("beta", {{"team", "nlp"}}));
  c.server->put_object(tfjob_manifest("gamma", json::object()));
  auto run = [&](std::vector<std::string> args) {
    args.push_back("--kubeconfig");
    args.push_back(c.kubeconfig);
    return call(args);
  };
  // the last column of each row, by NAME (the first column): both tables end alike
  auto cells = [](const std::string& table, std::size_t from_end) {
    std::map<std::string, std::string> out;
    std::istringstream in(table);
    std::string line, header;
    std::getline(in, header);
    while (std::getline(in, line)) {
      std::vector<std::string> words;
      std::istringstream w(line);
      for (std::string x; w >> x;) words.push_back(x);
      out[words.front()] = words.size() > from_end ? words[words.size() - 1 - from_end] : "";
    }
    return std::make_pair(header, out);
  };
  const Ran ref = kubectl(k, c.kubeconfig, "get tfjobs --show-labels");
  Ran r = run({"get", "--show-labels"});
  REQUIRE(ref.rc == 0);
  REQUIRE(r.rc == 0);
  CHECK(cells(r.out, 0).second == cells(ref.out, 0).second);  // LABELS: sorted key=value, <none>
  CHECK(cells(r.out, 0).first.substr(cells(r.out, 0).first.rfind(' ') + 1) == "LABELS");

  // -L: the column is named after the key's last path segment, and holds the value
  const Ran ref_l = kubectl(k, c.kubeconfig, "get tfjobs -L app.kubernetes.io/name,team");
  r = run({"get", "-L", "app.kubernetes.io/name,team"});
  REQUIRE(ref_l.rc == 0);
  REQUIRE(r.rc == 0);
  auto header_tail = [](const std::string& h, int n) {
    std::vector<std::string> w;
    std::istringstream in(h);
    for (std::string x; in >> x;) w.push_back(x);
    return std::vector<std::string>(w.end() - n, w.end());
  };
  CHECK(header_tail(first_line(r.out), 2) == header_tail(first_line(ref_l.out), 2));
  CHECK(header_tail(first_line(r.out), 2) == std::vector<std::string>{"NAME", "TEAM"});
  CHECK((has(r.out, "alpha") && has(r.out, "mnist") && has(r.out, "vision")));

  // --field-selector: the server picks; the same jobs either way
  const Ran ref_f = kubectl(k, c.kubeconfig, "get tfjobs --field-selector metadata.name=beta -o name");
  r = run({"get", "--field-selector", "metadata.name=beta", "-o", "name"});
  CHECK(ref_f.rc == 0);
  CHECK(r.rc == 0);
  CHECK(r.out == ref_f.out);

  // describe -l: the jobs the selector picks, as kubectl describe tfjobs -l
  const Ran ref_d = kubectl(k, c.kubeconfig, "describe tfjobs -l team");
  r = run({"describe", "-l", "team"});
  CHECK(ref_d.rc == 0);
  CHECK(r.rc == 0);
  for (const char* name : {"alpha", "beta"}) {
    CHECK(has(ref_d.out, std::string("Name:         ") + name));
    CHECK(has(r.out, std::string("Name:         ") + name));
  }
  CHECK_FALSE(has(r.out, "gamma"));
  CHECK_FALSE(has(ref_d.out, "gamma"));
  r = run({"describe", "-A", "-l", "team=nlp"});
  CHECK(r.rc == 0);
  CHECK(has(r.out, "Name:         beta"));
  CHECK_FALSE(has(r.out, "alpha"));
#endif
}

TEST_CASE("contract vs kubectl: delete -f, --ignore-not-found, --grace-period and --now send and say what kubectl does",
          "[cli][contract][kubectl]") {
#ifndef TFJOB_HAVE_PLUGIN_CLI
  TFJOB_SKIP("the plugin is not built (TFJOB_BUILD_PLUGIN=OFF)");
#else
  const std::string k = find_kubectl();
  if (k.empty()) TFJOB_SKIP("kubectl not found (/usr/bin/kubectl or $KUBECTL)");
  tfjob::test::FakeCluster c(tfjob::test::with_controllers({}, false), "cli-contract-delete");
  auto run = [&](std::vector<std::string> args) {
    args.push_back("--kubeconfig");
    args.push_back(c.kubeconfig);
    return call(args);
  };
  // the DeleteOptions body each sends (-v=8 logs it, kubectl and the plugin alike, each in
  // its own words: the line of the log that holds it)
  auto body = [](const std::string& log) {
    std::istringstream in(log);
    for (std::string line; std::getline(in, line);)
      if (line.find("\"propagationPolicy\"") != std::string::npos && line.find('{') != std::string::npos)
        return json::parse(line.substr(line.find('{'), line.rfind('}') - line.find('{') + 1), nullptr, false);
    return json();
  };
  for (const std::string flags : {"--grace-period=0", "--grace-period=7", "--now"}) {
    c.server->put_object(tfjob_manifest("a", json::object()));
    const Ran ref = kubectl(k, c.kubeconfig, "delete tfjob a --wait=false -v=8 " + flags);
    c.server->put_object(tfjob_manifest("a", json::object()));
    const Ran r = run({"delete", "a", "--wait=false", "-v=8", flags});
    INFO(flags << "\nkubectl: " << ref.err << "\nplugin: " << r.err);
    REQUIRE(ref.rc == 0);
    REQUIRE(r.rc == 0);
    CHECK(body(r.err).value("gracePeriodSeconds", -1) == body(ref.err).value("gracePeriodSeconds", -2));
    CHECK(r.out == ref.out);  // tfjob.kubeflow.org "a" deleted
  }
  // --ignore-not-found: nothing said, exit 0, as kubectl
  const Ran ref = kubectl(k, c.kubeconfig, "delete tfjob nosuch --ignore-not-found");
  Ran r = run({"delete", "nosuch", "--ignore-not-found"});
  CHECK(ref.rc == 0);
  CHECK(r.rc == 0);
  CHECK(r.out == ref.out);
  CHECK(r.err == ref.err);
  // -f FILE: the TFJobs the manifest names
  c.server->put_object(tfjob_manifest("from-file", json::object()));
  const std::string file = tfjob::test::temp_dir("cli-contract-delete-f") + "/job.yaml";
  std::ofstream(file) << tfjob_manifest("from-file", json::object()).dump();
  r = run({"delete", "-f", file, "--wait=false"});
  INFO(r.err);
  CHECK(r.rc == 0);
  CHECK(r.out == "tfjob.kubeflow.org \"from-file\" deleted\n");
  CHECK_FALSE(c.server->get_object("tfjobs", "default", "from-file"));
  r = run({"delete", "-f", file});  // gone already
  CHECK(r.rc == 1);
  r = run({"delete", "-f", file, "--ignore-not-found"});
  CHECK(r.rc == 0);
  CHECK(r.err.empty());
#endif
}

TEST_CASE("contract vs kubectl: get --watch-only --output-watch-events says each change as kubectl does", "[cli][contract][kubectl]") {
#ifndef TFJOB_HAVE_PLUGIN_CLI
  TFJOB_SKIP("the plugin is not built (TFJOB_BUILD_PLUGIN=OFF)");
#else
  const std::string k = find_kubectl();
  if (k.empty()) TFJOB_SKIP("kubectl not found (/usr/bin/kubectl or $KUBECTL)");
  tfjob::test::FakeCluster c(tfjob::test::with_controllers({}, false), "cli-contract-watch");
  c.server->put_object(tfjob_manifest("w", {{"step", "1"}}));
  // both watch for 4s (--request-timeout bounds a watch, which then ends with exit 0)
  auto ref = std::async(std::launch::async, [&] {
    return kubectl(k, c.kubeconfig, "get tfjobs --watch-only --output-watch-events -o json --request-timeout=4s");
  });
  auto ours = std::async(std::launch::async, [&] {
    return call({"get", "--watch-only", "--output-watch-events", "-o", "json", "--request-timeout=4s", "--kubeconfig", c.kubeconfig});
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  c.server->put_object(tfjob_manifest("w", {{"step", "2"}}));  // MODIFIED
  c.server->delete_object("tfjobs", "default", "w");          // DELETED
  const Ran kr = ref.get(), r = ours.get();
  INFO("kubectl: " << kr.out << kr.err << "\nplugin: " << r.out << r.err);
  // the events, as {"type": ..., "object": ...} documents, in order; the job listed first is no event
  auto types = [](const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    std::string doc, line;
    int depth = 0;
    while (std::getline(in, line)) {
      doc += line + "\n";
      for (char ch : line) depth += ch == '{' ? 1 : ch == '}' ? -1 : 0;
      if (depth == 0 && !doc.empty() && doc.find('{') != std::string::npos) {
        auto j = json::parse(doc, nullptr, false);
        if (j.is_object()) out.push_back(j.value("type", "") + "/" + j["object"]["metadata"].value("name", ""));
        doc.clear();
      }
    }
    return out;
  };
  CHECK(kr.rc == 0);
  CHECK(r.rc == 0);
  CHECK(types(r.out) == types(kr.out));
  CHECK(types(r.out) == std::vector<std::string>{"MODIFIED/w", "DELETED/w"});
#endif
}
