#pragma once
/// \file kubectl-tfjob as a function: the CLI built from the registered subcommands, parsed
/// and run with the streams given. main() passes std::cout/std::cerr; a test passes string
/// streams and runs a command in-process, without forking.

#include <ostream>
#include <string>
#include <vector>

namespace tfjob::cli {

/// Runs `kubectl tfjob <args...>` (args without the program name) and returns its exit
/// code; data goes to `out`, progress and errors to `err`.
int run_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace tfjob::cli
