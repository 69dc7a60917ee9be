#pragma once
/// \file What every subcommand shares: the global flags and the exit-code table.
///
/// Each `plugin/commands/<name>.cpp` defines a command (options, `validate()`, `run(Context&)`,
/// context.hpp) and a `setup_<name>(CLI::App&, Globals&)` that adds its subcommand; cli.cpp
/// lists every setup in one place (commands.hpp). The subcommand's parse callback stores the
/// steps in `Globals::validate` and `Globals::command` (`set_action`), and `run_cli` (cli.hpp)
/// calls them after parsing with the streams it was given (Complete -> Validate -> Run).

#include <CLI/CLI.hpp>

#include <cstddef>
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
  /// How many words came after the first `--`: each is an argument, never a flag (a command
  /// whose positionals mean one thing before `--` and another after reads it: JobFlags).
  std::size_t args_after_dashes = 0;
  std::function<void()> validate;        ///< the chosen command's checks: no request; what it throws is a usage error
  std::function<int(Context&)> command;  ///< the chosen command's run, set by its parse callback
};

/// The one exit-code table of kubectl-tfjob, the same for every command and every class of
/// mistake (docs/cli.md; the footer of `kubectl tfjob --help`). 128+N: stopped by signal N
/// (130 SIGINT, 143 SIGTERM, 129 SIGHUP), as a shell reports it.
enum exit_code : int {
  ok = 0,         ///< done; a wait's condition holds
  failure = 1,    ///< the operation failed, or its answer is no (a job Failed, not found, a node not ready)
  timeout = 2,    ///< --timeout passed before the condition
  no_result = 3,  ///< a check gave no answer (gpu-check: no probe result within --timeout)
  no_gpu = 4,     ///< gpu-check: no NVIDIA driver or no GPU
  usage = 64,     ///< the command line, or an input it names, cannot be used: nothing was sent (sysexits EX_USAGE)
};

}  // namespace tfjob::cli
