#pragma once
/// \file kubectl-tfjob as a function: the CLI built from its command list, parsed
/// and run with the streams given. main() passes std::cout/std::cerr; a test passes string
/// streams and runs a command in-process, without forking.

#include <functional>
#include <ostream>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace tfjob::cli {

/// Runs `kubectl tfjob <args...>` (args without the program name) and returns its exit
/// code; data goes to `out`, progress and errors to `err`.
int run_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

/// The CLI's option table as run_cli builds it, handed to `visit` (the flag matrix test walks
/// every subcommand's options through it; flag_values.hpp's spec_of reads what each takes).
void with_cli(const std::function<void(CLI::App&)>& visit);

}  // namespace tfjob::cli
