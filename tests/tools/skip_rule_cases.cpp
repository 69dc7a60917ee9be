// Catch2 cases that exercise the skip rule itself (tests/support/skip.hpp and catch_main.cpp):
// run one at a time by tests/tools/skip_rule_test.sh, never as tests of the suite (some must
// fail). Each name says what the case does; the script says what ctest must make of it.
#include "support/skip.hpp"

namespace {
void skip_from_a_helper() { TFJOB_SKIP("a prerequisite is missing (fix: install it)"); }
}  // namespace

TEST_CASE("skips before asserting") {
  TFJOB_SKIP("a prerequisite is missing (fix: install it)");
}

TEST_CASE("skips from a helper and nothing after it runs") {
  skip_from_a_helper();
  CHECK(false);  // never reached: the skip ended the case
}

TEST_CASE("fails then skips") {
  CHECK(1 == 2);
  TFJOB_SKIP("a prerequisite is missing (fix: install it)");
}

TEST_CASE("passes an assertion then skips") {
  CHECK(1 == 1);
  TFJOB_SKIP("a prerequisite is missing (fix: install it)");
}

TEST_CASE("passes") { CHECK(1 == 1); }
