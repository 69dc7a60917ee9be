#pragma once
// The suite's one skip rule for Catch2 (v2): tests/support/skip.sh is the same rule for
// shell, skip.cmake for CMake (docs/testing.md).
//
// A case that cannot run here calls TFJOB_SKIP("reason (fix: how)") before its first
// assertion. That prints one line, "SKIP: <reason>", and ends the case (from a helper too).
// The program then exits 77, which ctest reads as skipped (SKIP_RETURN_CODE 77, set for
// every Catch2 area in tests/CMakeLists.txt): the result comes from the exit status alone.
// - Failure wins: a TFJOB_SKIP after an assertion of the same case is a failure (decide
//   skips first), and so is an assertion that runs after a skip; a case that failed is
//   reported failed, whatever it printed.
// - A strict run (CI=true or TFJOB_STRICT=1, as scripts/test.sh runs) does not skip: the
//   same call fails the case, saying it was required.
// The bookkeeping is a Catch2 listener and the main in tests/support/catch_main.cpp.
#include <catch2/catch.hpp>

#include <sstream>
#include <string>

namespace tfjob::test {
/// True when a skip is a failure: CI=true or TFJOB_STRICT=1 (skip.sh's tfjob_strict).
bool strict_run();
/// The rule: fail (strict run, or assertions already ran in this case) or record the skip,
/// print its line and end the case. Never returns.
[[noreturn]] void skip_case(const std::string& reason);
}  // namespace tfjob::test

/// Skip the current test case with a reason that says how to fix it (see above).
#define TFJOB_SKIP(reason)                   \
  do {                                       \
    std::ostringstream tfjob_skip_reason_;   \
    tfjob_skip_reason_ << reason;            \
    ::tfjob::test::skip_case(tfjob_skip_reason_.str()); \
  } while (0)
