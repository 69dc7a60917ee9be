#pragma once
/// \file How subcommands plug into `kubectl-tfjob` without editing main.cpp.
///
/// Each `plugin/commands/<name>.cpp` defines a command (options, `validate()`, `run(Context&)`,
/// context.hpp) and a `setup_<name>(CLI::App&, Globals&)` that adds its subcommand; it
/// registers the setup with `TFJOB_REGISTER_COMMAND`. The subcommand's parse callback stores
/// the step in `Globals::command` (`set_action`), and `run_cli` (cli.hpp) calls it after
/// parsing with the streams it was given (Complete -> Validate -> Run).

#include <CLI/CLI.hpp>

#include <functional>
#include <string>
#include <vector>

namespace tfjob::cli {

class Context;

/// kubectl's connection flags (cli-runtime `config_flags.go`), parsed by the plugin itself
/// because kubectl passes plugin arguments through untouched.
struct ConnectionFlags {
  std::string kubeconfig;             ///< --kubeconfig: explicit file, not merged with KUBECONFIG
  std::string context;                ///< --context
  std::string cluster;                ///< --cluster
  std::string user;                   ///< --user
  std::string namespace_;             ///< -n/--namespace
  std::string server;                 ///< -s/--server
  std::string token;                  ///< --token
  std::string certificate_authority;  ///< --certificate-authority
  std::string client_certificate;     ///< --client-certificate
  std::string client_key;             ///< --client-key
  std::string tls_server_name;        ///< --tls-server-name
  std::string request_timeout = "0";  ///< --request-timeout (0 = none)
  bool insecure_skip_tls_verify = false;  ///< --insecure-skip-tls-verify
};

/// Options every subcommand sees.
struct Globals {
  ConnectionFlags conn;
  int verbosity = 0;               ///< -v/--v: 6+ logs each request (credentials redacted)
  int chunk_size = 500;            ///< --chunk-size: items per page of a list (kubectl's; 0 = all at once)
  std::string color = "auto";      ///< --color auto|always|never (NO_COLOR honoured)
  std::function<int(Context&)> command;  ///< set by the chosen subcommand's parse callback
};

using SetupFn = void (*)(CLI::App&, Globals&);

struct CommandEntry {
  const char* name;
  int order;  ///< position in `--help`
  SetupFn setup;
};

inline std::vector<CommandEntry>& command_registry() {
  static std::vector<CommandEntry> r;
  return r;
}

struct CommandRegistrar {
  CommandRegistrar(const char* name, int order, SetupFn fn) {
    command_registry().push_back({name, order, fn});
  }
};

/// Exit codes shared by every command (documented in each `--help`).
enum exit_code : int { ok = 0, failure = 1, timeout = 2, usage = 64 };

}  // namespace tfjob::cli

#define TFJOB_CLI_CONCAT2(a, b) a##b
#define TFJOB_CLI_CONCAT(a, b) TFJOB_CLI_CONCAT2(a, b)
/// Register a subcommand's setup function; `order` sorts `--help`.
#define TFJOB_REGISTER_COMMAND(name, order, fn)                                            \
  static ::tfjob::cli::CommandRegistrar TFJOB_CLI_CONCAT(tfjob_cmd_registrar_, __LINE__) { \
    name, order, fn                                                                        \
  }
