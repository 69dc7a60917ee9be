// kubectl-tfjob as a function (cli.hpp): builds the CLI from the registered subcommands,
// parses, and runs the chosen one. Errors from the SDK become one clear line on `err`.
#include "cli.hpp"

#include "common/command.hpp"
#include "common/context.hpp"
#include "common/samples.hpp"  // closest(): "did you mean"

#include <tfjob/error.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <string>
#include <vector>

namespace tfjob::cli {
namespace {

/// The global flags: kubectl's connection flags (cli-runtime config_flags.go), -v, --color.
void add_global_flags(CLI::App& app, Globals& g) {
  auto* conn_group = "Connection (as kubectl)";
  app.add_option("--kubeconfig", g.conn.kubeconfig, "Path to the kubeconfig file (used alone, not merged)")->group(conn_group);
  app.add_option("--context", g.conn.context, "The kubeconfig context to use")->group(conn_group);
  app.add_option("--cluster", g.conn.cluster, "The kubeconfig cluster to use")->group(conn_group);
  app.add_option("--user", g.conn.user, "The kubeconfig user to use")->group(conn_group);
  app.add_option("-n,--namespace", g.conn.namespace_, "Namespace (default: the context's, else \"default\")")->group(conn_group);
  app.add_option("-s,--server", g.conn.server, "The address and port of the Kubernetes API server")->group(conn_group);
  app.add_option("--token", g.conn.token, "Bearer token for authentication to the API server")->group(conn_group);
  app.add_option("--certificate-authority", g.conn.certificate_authority, "Path to a CA certificate file")->group(conn_group);
  app.add_option("--client-certificate", g.conn.client_certificate, "Path to a client certificate file")->group(conn_group);
  app.add_option("--client-key", g.conn.client_key, "Path to a client key file")->group(conn_group);
  app.add_option("--tls-server-name", g.conn.tls_server_name, "Server name for certificate validation")->group(conn_group);
  app.add_flag("--insecure-skip-tls-verify", g.conn.insecure_skip_tls_verify,
               "Do not verify the server's certificate (insecure)")->group(conn_group);
  app.add_option("--request-timeout", g.conn.request_timeout,
                 "Time to wait for one request, e.g. 30s, 1m (0 = no limit)")->group(conn_group);
  app.add_option("-v,--v", g.verbosity, "Log level; 6 and above print each request to stderr, and at the end how many")
      ->group(conn_group);
  app.add_option("--chunk-size", g.chunk_size,
                 "Read lists in pages of this many items, as kubectl does (0 = each list at once)")
      ->check(CLI::NonNegativeNumber)->capture_default_str()->group(conn_group);
  app.add_option("--color", g.color, "Colour output: auto, always, never (NO_COLOR is honoured)")
      ->check(CLI::IsMember({"auto", "always", "never"}))->group("Output");
}

/// No subcommand matched: name the word, as cobra does ("unknown command", then its "Did
/// you mean this?" for names within distance 2). Returns whether it said so.
bool say_unknown_command(CLI::App& app, std::ostream& err) {
  for (const auto& w : app.remaining()) {
    if (w.empty() || w[0] == '-') continue;
    std::vector<std::string> names;
    for (const CLI::App* sub : app.get_subcommands([](const CLI::App* a) { return !a->get_group().empty(); }))
      names.push_back(sub->get_name());
    err << "error: unknown command \"" << w << "\" for \"kubectl tfjob\"\n";
    if (auto c = closest(w, names); !c.empty()) err << "\nDid you mean this?\n\t" << c << "\n";
    err << "\nRun 'kubectl tfjob --help' for usage.\n";
    return true;
  }
  return false;
}

/// The chosen command, run: its exit code, or an error from the SDK said as one line.
int run_command(CLI::App& app, Globals& g, Context& ctx) {
  std::ostream& out = ctx.out;
  std::ostream& err = ctx.err;
  try {
    return g.command(ctx);
  } catch (const CLI::ParseError& e) {
    return app.exit(e, out, err) == 0 ? 0 : exit_code::usage;
  } catch (const tfjob::error& e) {
    err << "error: " << error_message(e) << "\n";
    return exit_code::failure;
  } catch (const nlohmann::json::exception& e) {
    // A last net: the SDK names the field of a wrong-shaped value itself; should a case
    // slip through, the user still reads words, not "[json.exception.type_error.302]".
    std::string why = e.what();
    if (auto p = why.find("] "); p != std::string::npos) why = why.substr(p + 2);
    err << "error: a value read from the input or the server has an unexpected type or encoding (" << why
        << "); run with -v=8 to see the server's answers\n";
    return exit_code::failure;
  } catch (const std::exception& e) {
    err << "error: " << e.what() << "\n";
    return exit_code::failure;
  }
}

}  // namespace

int run_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  CLI::App app{"Train TensorFlow models on Kubernetes with Kubeflow TFJobs, check GPU nodes, "
               "and serve models with TensorFlow Serving."};
  app.name("kubectl tfjob");
  app.fallthrough();  // connection flags may come after the subcommand, as with kubectl
  app.require_subcommand(1);
  app.footer("Use \"kubectl tfjob <command> --help\" for more information about a command.");

  Globals g;
  add_global_flags(app, g);
  auto reg = command_registry();
  std::stable_sort(reg.begin(), reg.end(), [](const CommandEntry& a, const CommandEntry& b) {
    return a.order < b.order;
  });
  for (const auto& c : reg) c.setup(app, g);

  // `kubectl tfjob` alone prints the help, as kubectl does for itself (cobra's root command)
  if (args.empty()) {
    out << app.help();
    return exit_code::ok;
  }
  std::vector<const char*> argv{"kubectl-tfjob"};
  for (const auto& a : args) argv.push_back(a.c_str());
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() != 0 && app.get_subcommands().empty() && say_unknown_command(app, err)) return exit_code::usage;
    return app.exit(e, out, err) == 0 ? 0 : exit_code::usage;
  }
  if (!g.command) return exit_code::ok;
  Context ctx(g, out, err);
  const int rc = run_command(app, g, ctx);
  ctx.log_request_count();
  return rc;
}

}  // namespace tfjob::cli
