// kubectl-tfjob: entry point. The CLI itself is run_cli (cli.cpp), which tests call
// in-process with string streams.
#include "cli.hpp"

#include <iostream>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  return tfjob::cli::run_cli(args, std::cout, std::cerr);
}
