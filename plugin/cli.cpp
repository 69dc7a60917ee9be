// kubectl-tfjob as a function (cli.hpp): builds the CLI from the command list, parses, and
// runs the chosen command. Every mistake on the command line is said here, once, in the one
// form (`error: --FLAG: what is wrong; what would be right`) with exit 64; the SDK's errors
// become one clear line on `err` with the exit code of the table (command.hpp, docs/cli.md).
#include "cli.hpp"

#include "commands/commands.hpp"
#include "common/command.hpp"
#include "common/context.hpp"
#include "common/flag_values.hpp"
#include "common/samples.hpp"  // closest(): "did you mean"

#include <tfjob/error.hpp>
#include <tfjob/version.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <memory>
#include <string>
#include <vector>

namespace tfjob::cli {
namespace {

using Setup = void (*)(CLI::App&, Globals&);

void setup_help(CLI::App& app, Globals& g);

/// Every command, in the order `kubectl tfjob --help` lists them (kubectl lists its commands
/// in one place too: kubectl/pkg/cmd/cmd.go, NewKubectlCommand's command groups).
const std::vector<Setup>& commands() {
  static const std::vector<Setup> list = {
      setup_submit,  setup_lint,       setup_get,          setup_tf_config, setup_describe, setup_explain,
      setup_logs,    setup_archive,    setup_wait,         setup_delete,    setup_suspend,  setup_resume,
      setup_scale,   setup_exec,       setup_attach,       setup_port_forward, setup_gpu_check, setup_serve,
      setup_models,  setup_predict,    setup_top,          setup_tensorboard, setup_completion, setup_version,
      setup_help,    setup_complete,
  };
  return list;
}

/// The exit codes, the same for every command (command.hpp's exit_code; docs/cli.md).
constexpr const char* exit_codes_text = R"(Exit codes (every command):
  0    done (with a wait: the condition holds)
  1    failed, or the answer is no: a job Failed, a job or server not found, a node not
       ready, the server refused the request or could not be reached
  2    timed out: --timeout passed first
  3    no result: gpu-check's probe gave no answer within --timeout
  4    no GPU: gpu-check found no NVIDIA driver or no GPU
  64   usage: an unknown command or flag, a missing argument, a value that cannot be read
       or flags that exclude each other, or an input file or manifest that cannot be used;
       nothing was sent
  130  interrupted (128 + the signal: 130 Ctrl-C, 143 SIGTERM, 129 SIGHUP))";

/// The global flags: kubectl's connection flags (cli-runtime config_flags.go), -v, --color.
/// The files they name are read when the command connects, as kubectl reads them.
void add_global_flags(CLI::App& app, Globals& g) {
  auto* conn_group = "Connection (as kubectl)";
  auto& c = g.conn;
  flag::text(app, "--kubeconfig", c.kubeconfig, "Path to the kubeconfig file (used alone, not merged)", "FILE")->group(conn_group);
  flag::text(app, "--context", c.context, "The kubeconfig context to use", "NAME")->group(conn_group);
  flag::text(app, "--cluster", c.cluster, "The kubeconfig cluster to use", "NAME")->group(conn_group);
  flag::text(app, "--user", c.user, "The kubeconfig user to use", "NAME")->group(conn_group);
  flag::text(app, "-n,--namespace", c.namespace_, "Namespace (default: the context's, else \"default\")", "NAME")->group(conn_group);
  flag::text(app, "-s,--server", c.server, "The address and port of the Kubernetes API server", "URL")->group(conn_group);
  flag::text(app, "--token", c.token, "Bearer token for authentication to the API server", "TOKEN")->group(conn_group);
  flag::text(app, "--certificate-authority", c.certificate_authority, "Path to a CA certificate file", "FILE")->group(conn_group);
  flag::text(app, "--client-certificate", c.client_certificate, "Path to a client certificate file", "FILE")->group(conn_group);
  flag::text(app, "--client-key", c.client_key, "Path to a client key file", "FILE")->group(conn_group);
  flag::text(app, "--tls-server-name", c.tls_server_name, "Server name for certificate validation", "NAME")->group(conn_group);
  flag::boolean(app, "--insecure-skip-tls-verify", c.insecure_skip_tls_verify, "Do not verify the server's certificate (insecure)")
      ->group(conn_group);
  // client-go's clientcmd ParseTimeout: a bare number is seconds, 0 no limit
  flag::duration(app, "--request-timeout", c.request_timeout,
                 "Time to wait for one request: 30s, 1m, 500ms or a number of seconds (0 = no limit)")->group(conn_group);
  flag::count(app, "-v,--v", g.verbosity, "Log level; 6 and above print each request to stderr, and at the end how many", 0, 10)
      ->group(conn_group);
  flag::count(app, "--chunk-size", g.chunk_size, "Read lists in pages of this many items, as kubectl does (0 = each list at once)", 0)
      ->capture_default_str()
      ->group(conn_group);
  flag::choice(app, "--color", g.color, "Colour output: auto, always, never (NO_COLOR is honoured)", {"auto", "always", "never"})
      ->group("Output");
}

/// The subcommands parsed, outermost first (empty when none was).
std::vector<CLI::App*> parsed_path(CLI::App& app) {
  std::vector<CLI::App*> path;
  for (CLI::App* a = &app;;) {
    auto subs = a->get_subcommands();
    if (subs.empty()) break;
    a = subs.front();
    path.push_back(a);
  }
  return path;
}

/// "kubectl tfjob serve list" for the innermost command parsed.
std::string command_line(CLI::App& app) {
  std::string s = "kubectl tfjob";
  for (CLI::App* a : parsed_path(app)) s += " " + a->get_name();
  return s;
}

/// The options a word could have meant: the innermost command's and, through fallthrough,
/// its parents'.
std::vector<const CLI::Option*> options_in_scope(CLI::App& app) {
  auto path = parsed_path(app);
  std::vector<const CLI::Option*> out;
  for (const CLI::App* a = path.empty() ? &app : path.back(); a; a = a->get_parent())
    for (const CLI::Option* o : a->get_options()) out.push_back(o);
  return out;
}

const CLI::Option* find_option(CLI::App& app, const std::string& name) {
  for (const CLI::Option* o : options_in_scope(app)) {
    for (const auto& l : o->get_lnames())
      if ("--" + l == name) return o;
    for (const auto& s : o->get_snames())
      if ("-" + s == name) return o;
    if (o->get_lnames().empty() && o->get_snames().empty() && o->get_name() == name) return o;  // a positional
  }
  return nullptr;
}

/// A flag's or an argument's name as the error form says it: --gpus, -o, NAME.
std::string subject_of(const std::string& name) {
  if (!name.empty() && name[0] == '-') return name;
  std::string up = name;
  for (auto& c : up) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return up;
}

/// "give ..." for what an option takes.
std::string takes(CLI::App& app, const std::string& name) {
  const CLI::Option* o = find_option(app, name);
  if (!o) return "give a value";
  if (auto s = flag::spec_of(*o)) return flag::what_it_takes(*s);
  return "give " + (o->get_type_name().empty() ? std::string("a value") : o->get_type_name());
}

/// No subcommand matched: name the word, as cobra does ("unknown command", then its "Did
/// you mean this?" for names within distance 2). Returns whether it said so.
bool say_unknown_command(CLI::App& app, const std::string& w, std::ostream& err) {
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App* a) { return !a->get_group().empty(); }))
    names.push_back(sub->get_name());
  err << "error: unknown command \"" << w << "\" for \"kubectl tfjob\"\n";
  if (auto c = closest(w, names); !c.empty()) err << "\nDid you mean this?\n\t" << c << "\n";
  err << "\nRun 'kubectl tfjob --help' for usage.\n";
  return true;
}

/// What is wrong with a word no argument of the command takes, and what is right.
std::string one_too_many(CLI::App& app, const std::string& word) {
  return nlohmann::json(word).dump() + " is one argument too many; " + command_line(app) + " takes no more (see --help)";
}

/// Words no option or argument took: an unknown flag (with the nearest known one), an
/// unknown command, or an argument too many.
void say_extras(CLI::App& app, std::ostream& err) {
  const auto extras = app.remaining(true);
  for (const auto& w : extras) {
    if (w.size() < 2 || w[0] != '-') continue;
    const std::string name = w.substr(0, w.find('='));
    err << "error: unknown flag " << name << "\n";
    std::vector<std::string> known;
    for (const CLI::Option* o : options_in_scope(app))
      for (const auto& l : o->get_lnames()) known.push_back("--" + l);
    if (auto c = closest(name, known); !c.empty()) err << "did you mean " << c << "?\n";
    return;
  }
  if (extras.empty()) return;
  if (parsed_path(app).empty()) {
    say_unknown_command(app, extras.front(), err);
    return;
  }
  err << flag::error_line("ARGS", one_too_many(app, extras.front())) << "\n";
}

/// What a command's parent took that the command run never reads: CLI11 hands a word a
/// subcommand has no place for up to its parent's positionals (`serve list a`, `serve status
/// a b` filled serve's NAME), thrown as a word too many; and a flag of the parent given to the
/// subcommand (`serve list --gpus 2`: serve's), refused by name. The root's flags (the
/// connection's, -v, --color) are every command's.
void check_parent_arguments(CLI::App& app) {
  const auto path = parsed_path(app);
  if (path.empty()) return;
  std::vector<CLI::App*> parents{&app};
  parents.insert(parents.end(), path.begin(), path.end() - 1);
  for (CLI::App* p : parents)
    for (const CLI::Option* o : p->get_options()) {
      if (o->count() == 0) continue;
      if (!o->nonpositional()) throw CLI::ValidationError("ARGS", one_too_many(app, o->results().front()));
      if (p != &app)
        throw flag::usage(o->get_name(), "is a flag of kubectl tfjob " + p->get_name() + ", which " + command_line(app) + " does not read",
                          "leave it out");
    }
}

/// A word on the command line that no option took and reads as a flag (`--replicas`).
bool has_unknown_flag(CLI::App& app) {
  for (const auto& w : app.remaining(true))
    if (w.size() >= 2 && w[0] == '-') return true;
  return false;
}

/// The values of every repeatable KEY=VALUE flag of the parsed commands, each key once
/// (flag::check_repeats): thrown as the flag's ValidationError, said in the one form.
void check_repeated_keys(CLI::App& app) {
  std::vector<CLI::App*> scope = parsed_path(app);
  scope.insert(scope.begin(), &app);
  for (CLI::App* a : scope)
    for (const CLI::Option* o : a->get_options()) {
      if (o->count() < 1) continue;
      auto spec = flag::spec_of(*o);
      if (!spec) continue;
      if (auto m = flag::check_repeats(*spec, o->as<std::vector<std::string>>()); !m.empty())
        throw CLI::ValidationError(o->get_name(), m);
    }
}

/// Says a mistake on the command line in the one form; returns the exit code.
int say_parse_error(CLI::App& app, const CLI::ParseError& e, std::ostream& out, std::ostream& err) {
  if (e.get_exit_code() == 0) return app.exit(e, out, err) == 0 ? exit_code::ok : exit_code::usage;  // --help, --version
  // no command matched the first word: cobra's "unknown command", whatever CLI11 saw first
  if (parsed_path(app).empty())
    for (const auto& w : app.remaining())
      if (!w.empty() && w[0] != '-') {
        say_unknown_command(app, w, err);
        return exit_code::usage;
      }
  const std::string what = e.what();
  const auto colon = what.find(": ");
  const std::string head = colon == std::string::npos ? "" : what.substr(0, colon);
  const std::string rest = colon == std::string::npos ? what : what.substr(colon + 2);
  auto after = [&](const std::string& marker) { return what.substr(0, what.find(marker)); };
  // pflag reads the flags before it checks what is required: `scale x --replicas=3` is an
  // unknown flag (kubectl's name for --workers), not a missing --workers
  if (dynamic_cast<const CLI::ExtrasError*>(&e) || (dynamic_cast<const CLI::RequiredError*>(&e) && has_unknown_flag(app))) {
    say_extras(app, err);
    if (parsed_path(app).empty()) return exit_code::usage;  // cobra's own lines said it all
  } else if (dynamic_cast<const CLI::ValidationError*>(&e) && !head.empty() && head.find(' ') == std::string::npos) {
    err << flag::error_line(subject_of(head), rest) << "\n";
  } else if (dynamic_cast<const CLI::ArgumentMismatch*>(&e) && !head.empty()) {
    err << flag::error_line(subject_of(head), "flag needs an argument; " + takes(app, head)) << "\n";  // pflag's words
  } else if (dynamic_cast<const CLI::RequiredError*>(&e) && what.find(" is required") != std::string::npos &&
             what.rfind("A subcommand", 0) != 0) {
    const std::string name = after(" is required");
    err << flag::error_line(subject_of(name), "required; " + takes(app, name)) << "\n";
  } else if (dynamic_cast<const CLI::RequiresError*>(&e) && what.find(" requires ") != std::string::npos) {
    const std::string needed = what.substr(what.find(" requires ") + 10);  // CLI11's "A requires B" (Option::needs)
    err << flag::error_line(after(" requires "), "has no effect without " + needed + "; add " + needed + ", or leave it out") << "\n";
  } else if (dynamic_cast<const CLI::ExcludesError*>(&e) && what.find(" excludes ") != std::string::npos) {
    err << flag::error_line(after(" excludes "), "cannot be combined with " + what.substr(what.find(" excludes ") + 10) +
                                                      "; give one of them")
        << "\n";
  } else if (dynamic_cast<const CLI::RequiredError*>(&e)) {
    err << "error: a command is required; `kubectl tfjob --help` lists them\n";
  } else {
    err << "error: " << what << "\n";
  }
  err << "See '" << command_line(app) << " --help' for usage.\n";
  return exit_code::usage;
}

/// help [COMMAND...]: the help of the command named, as `kubectl help COMMAND` prints it.
struct HelpCommand {
  CLI::App* root = nullptr;
  std::vector<std::string> words;

  void validate() const {}
  int run(Context& ctx) const {
    CLI::App* a = root;
    std::string path = root->get_name();  // "kubectl tfjob serve list", as its own --help says it
    for (const auto& w : words) {
      CLI::App* sub = nullptr;
      try {
        sub = a->get_subcommand(w);
      } catch (const CLI::OptionNotFound&) {
      }
      if (!sub || sub->get_group().empty()) {
        say_unknown_command(*root, w, ctx.err);
        return exit_code::usage;
      }
      a = sub;
      path += " " + a->get_name();
    }
    // the formatter itself: App::help would hand over to the command parsed, this one
    ctx.out << a->get_formatter()->make_help(a, path, CLI::AppFormatMode::Normal);
    return exit_code::ok;
  }
};

void setup_help(CLI::App& app, Globals& g) {
  auto o = std::make_shared<HelpCommand>();
  o->root = &app;
  auto* sub = app.add_subcommand("help", "Help about any command: kubectl tfjob help [COMMAND]");
  flag::text(*sub, "command", o->words, "The command (and its subcommand, e.g. serve list)", "COMMAND");
  sub->footer(R"(Examples:
  kubectl tfjob help submit
  kubectl tfjob help serve list

Exit codes: 0 the help was printed, 64 an unknown command. The table for every command:
kubectl tfjob --help.)");
  set_action(*sub, g, o);
}

/// CLI11's help without the "Needs:"/"Excludes:" it appends to a flag's name, which breaks
/// the columns (each flag's description says what it cannot be combined with instead).
class Formatter : public CLI::Formatter {
 public:
  /// The names without a flag's value given bare (`--dry-run{unchanged}`: its option text says it).
  std::string make_option_name(const CLI::Option* opt, bool positional) const override {
    std::string n = CLI::Formatter::make_option_name(opt, positional);
    for (auto b = n.find('{'); b != std::string::npos; b = n.find('{')) n.erase(b, n.find('}', b) - b + 1);
    return n;
  }
  std::string make_option_opts(const CLI::Option* opt) const override {
    if (!opt->get_option_text().empty()) return " " + opt->get_option_text();
    std::string out;
    if (opt->get_type_size() == 0) return out;
    if (!opt->get_type_name().empty()) out += " " + get_label(opt->get_type_name());
    if (!opt->get_default_str().empty()) out += "=" + opt->get_default_str();
    if (opt->get_expected_max() == CLI::detail::expected_max_vector_size) out += " ...";
    if (opt->get_required()) out += " " + get_label("REQUIRED");
    return out;
  }
};

/// The CLI for these globals: every command, the global flags, the help and version flags.
void build(CLI::App& app, Globals& g) {
  app.formatter(std::make_shared<Formatter>());  // before the commands: they inherit it
  app.name("kubectl tfjob");
  app.fallthrough();  // connection flags may come after the subcommand, as with kubectl
  app.require_subcommand(1);
  app.footer(std::string(exit_codes_text) + "\n\nUse \"kubectl tfjob <command> --help\" for more information about a command.");
  // kubectl's root --version (and `kubectl tfjob version --client`)
  app.set_version_flag("--version", std::string("kubectl-tfjob v") + tfjob::version + " (Kubeflow training operator " +
                                        tfjob::operator_version + " rules, kubeflow.org/v1 TFJob)",
                       "Print the plugin's version and exit");
  add_global_flags(app, g);
  for (Setup s : commands()) s(app, g);
}

/// `words` as CLI11 should read them, the way pflag reads them, up to `--` (after it every word
/// is an argument; the completion back end reads words as typed):
/// - `-v=8`, `-n=team-a`: the short flag and its value (CLI11 would keep the "=");
/// - `--image=`: the empty value. CLI11 takes the next word as the value of a flag given `=` and
///   nothing after it (`serve x --arg= --dry-run=client` applied for real); a flag that takes a
///   value in the command being read (`--version` takes one in `predict` and none at the top) is
///   given "" as its own word.
std::vector<std::string> pflag_words(const CLI::App& app, const std::vector<std::string>& args) {
  const CLI::App* at = &app;  // the command being read
  auto option = [&](const std::string& name) -> const CLI::Option* {
    for (const CLI::App* a = at; a; a = a->get_parent())  // its own flags, then its parents' (fallthrough)
      if (const CLI::Option* o = a->get_option_no_throw(name)) return o;
    return nullptr;
  };
  auto takes_value = [](const CLI::Option* o) { return o && o->get_items_expected_max() > 0; };
  std::vector<std::string> words;
  bool value_next = false;  // the word is the value of the flag before it
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--" || a == "__complete") {
      words.insert(words.end(), args.begin() + static_cast<std::ptrdiff_t>(i), args.end());
      break;
    }
    if (value_next) {
      value_next = false;
      words.push_back(a);
    } else if (a.size() > 2 && a[0] == '-' && a[1] != '-' && a[2] == '=') {
      words.push_back(a.substr(0, 2));
      words.push_back(a.substr(3));
    } else if (a.size() > 2 && a.compare(0, 2, "--") == 0) {
      const auto eq = a.find('=');
      const CLI::Option* o = option(a.substr(0, eq));
      if (eq == a.size() - 1 && takes_value(o)) {
        words.push_back(a.substr(0, eq));
        words.push_back("");
      } else {
        words.push_back(a);
        value_next = eq == std::string::npos && o && o->get_items_expected_min() > 0;
      }
    } else if (a.size() == 2 && a[0] == '-' && a[1] != '-') {
      words.push_back(a);
      const CLI::Option* o = option(a);
      value_next = o && o->get_items_expected_min() > 0;
    } else {
      words.push_back(a);
      if (a.empty() || a[0] == '-') continue;
      for (const CLI::App* sub : at->get_subcommands({}))  // a command's name: its flags from here on
        if (sub->check_name(a)) {
          at = sub;
          break;
        }
    }
  }
  return words;
}

/// The chosen command, run: its exit code, or what stopped it said as one line.
int run_command(CLI::App& app, Globals& g, Context& ctx) {
  std::ostream& out = ctx.out;
  std::ostream& err = ctx.err;
  try {
    return g.command(ctx);
  } catch (const CLI::ParseError& e) {
    return say_parse_error(app, e, out, err);
  } catch (const input_error& e) {
    err << failure_line(e) << "\n";
    return exit_code::usage;
  } catch (const nlohmann::json::exception& e) {
    // A last net: the SDK names the field of a wrong-shaped value itself; should a case
    // slip through, the user still reads words, not "[json.exception.type_error.302]".
    std::string why = e.what();
    if (auto p = why.find("] "); p != std::string::npos) why = why.substr(p + 2);
    err << "error: a value read from the input or the server has an unexpected type or encoding (" << why
        << "); run with -v=8 to see the server's answers\n";
    return exit_code::failure;
  } catch (const std::exception& e) {
    err << failure_line(e) << "\n";
    return exit_code::failure;
  }
}

}  // namespace

void with_cli(const std::function<void(CLI::App&)>& visit) {
  CLI::App app{"kubectl tfjob"};
  Globals g;
  build(app, g);
  visit(app);
}

int run_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  CLI::App app{"Train TensorFlow models on Kubernetes with Kubeflow TFJobs, check GPU nodes, "
               "and serve models with TensorFlow Serving."};
  Globals g;
  build(app, g);

  // `kubectl tfjob` alone prints the help, as kubectl does for itself (cobra's root command)
  if (args.empty()) {
    out << app.help();
    return exit_code::ok;
  }
  const std::vector<std::string> words = pflag_words(app, args);
  if (auto dashes = std::find(args.begin(), args.end(), "--");
      dashes != args.end() && std::find(args.begin(), dashes, "__complete") == dashes)
    g.args_after_dashes = static_cast<std::size_t>(args.end() - dashes - 1);
  std::vector<const char*> argv{"kubectl-tfjob"};
  for (const auto& a : words) argv.push_back(a.c_str());
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
    check_parent_arguments(app);
    check_repeated_keys(app);
  } catch (const CLI::ParseError& e) {
    return say_parse_error(app, e, out, err);
  }
  if (!g.command) return exit_code::ok;
  Context ctx(g, out, err);
  // validate: no request was made, so whatever it refuses is the input's fault
  try {
    if (g.validate) g.validate();
  } catch (const CLI::ParseError& e) {
    return say_parse_error(app, e, out, err);
  } catch (const std::exception& e) {
    err << failure_line(e) << "\n";
    return exit_code::usage;
  }
  const int rc = run_command(app, g, ctx);
  ctx.log_request_count();  // -v 6: how many requests the command made
  return rc;
}

}  // namespace tfjob::cli
