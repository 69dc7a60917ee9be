// The one Catch2 main shared by every test executable, with the skip rule's bookkeeping
// (tests/support/skip.hpp): a listener counts each case's assertions, TFJOB_SKIP records a
// skip, and main() maps the result to the exit status ctest reads: the Catch session's own
// status when anything failed, 77 when a case skipped and nothing failed, 0 otherwise.
#define CATCH_CONFIG_RUNNER
#include "support/skip.hpp"

#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

namespace {
struct CaseState {
  std::string name;
  long assertions = 0;        ///< every assertion of the case so far (a listener wants them all)
  bool skipped = false;
  long after_skip = 0;        ///< assertions that ran after the skip (a section run again)
};
CaseState current;
std::vector<std::string> skipped_cases;  ///< "name: reason"
std::vector<std::string> broken_skips;   ///< cases whose skip did not end them

struct SkipListener : Catch::TestEventListenerBase {
  using TestEventListenerBase::TestEventListenerBase;
  void testCaseStarting(Catch::TestCaseInfo const& info) override { current = CaseState{info.name}; }
  bool assertionEnded(Catch::AssertionStats const&) override {
    ++current.assertions;
    if (current.skipped) ++current.after_skip;
    return true;
  }
  void testCaseEnded(Catch::TestCaseStats const&) override {
    if (current.skipped && current.after_skip > 0)
      broken_skips.push_back(current.name + ": " + std::to_string(current.after_skip) +
                             " assertion(s) ran after its skip");
  }
};
}  // namespace
CATCH_REGISTER_LISTENER(SkipListener)

namespace tfjob::test {
bool strict_run() {
  const char* ci = std::getenv("CI");
  const char* strict = std::getenv("TFJOB_STRICT");
  return (ci && std::string(ci) == "true") || (strict && std::string(strict) == "1");
}

void skip_case(const std::string& reason) {
  if (current.assertions > 0)
    FAIL("a skip after " << current.assertions << " assertion(s) of this case is a failure "
         "(decide skips before asserting): " << reason);
  if (strict_run())
    FAIL("a strict run (CI=true or TFJOB_STRICT=1) does not skip: " << reason);
  std::cout << "SKIP: " << reason << std::endl;
  if (!current.skipped) skipped_cases.push_back(current.name + ": " + reason);
  current.skipped = true;
  // ends the case without a failure: Catch's own signal for "this case stops here"
  throw Catch::TestFailureException{};
}
}  // namespace tfjob::test

int main(int argc, char* argv[]) {
  const int rc = Catch::Session().run(argc, argv);
  for (const auto& b : broken_skips) std::cout << "FAIL: " << b << std::endl;
  if (rc != 0) return rc;
  if (!broken_skips.empty()) return 1;
  if (!skipped_cases.empty()) {
    for (const auto& s : skipped_cases) std::cout << "skipped: " << s << std::endl;
    return 77;
  }
  return 0;
}
