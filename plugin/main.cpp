// kubectl-tfjob: entry point. The CLI itself is run_cli (cli.cpp), which tests call
// in-process with string streams.
#include "cli.hpp"

#include <iostream>
#include <string>
#include <vector>

#if defined(__GLIBC__)
#include <malloc.h>  // mallopt
#endif

int main(int argc, char** argv) {
#if defined(__GLIBC__)
  // glibc raises its mmap threshold to the size of each large block freed (up to 32 MiB), so
  // after a first list page every later page's answer comes from the heap, which cannot give
  // it back while what is kept lies between: get -A --watch peaked at 27.8 MiB over 5,000
  // jobs instead of 23.3 (24.9 instead of 21.4 over 1,000). Setting the threshold (to its
  // default, 128 KiB) turns that adjustment off (mallopt(3)): large blocks are mapped and
  // given back when freed.
  mallopt(M_MMAP_THRESHOLD, 128 * 1024);
#endif
  std::vector<std::string> args(argv + 1, argv + argc);
  return tfjob::cli::run_cli(args, std::cout, std::cerr);
}
