#!/usr/bin/env python3
"""Every ctest entry of this build is judged by its exit status alone (the skip rule,
tests/support/skip.sh): no PASS_/FAIL_/SKIP_REGULAR_EXPRESSION (a line of output would
override the status: a test that printed "SKIP: " and exited 1 showed as skipped), no
WILL_FAIL (a crash would pass), and SKIP_RETURN_CODE, where set, is the rule's 77.

    ctest_exit_status.py BUILD_DIR
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_summary import ctest_tests  # noqa: E402  (lists a copy: the running ctest's log stays whole)

FORBIDDEN = {"PASS_REGULAR_EXPRESSION", "FAIL_REGULAR_EXPRESSION", "SKIP_REGULAR_EXPRESSION", "WILL_FAIL"}


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    tests = ctest_tests(sys.argv[1])
    bad = []
    for t in tests:
        for p in t.get("properties", []):
            name, value = p.get("name"), p.get("value")
            if name in FORBIDDEN and value not in (False, "OFF", "FALSE", "0", ""):
                bad.append(f"{t['name']}: {name} {value!r}")
            if name == "SKIP_RETURN_CODE" and value != 77:
                bad.append(f"{t['name']}: SKIP_RETURN_CODE {value!r}, not 77")
    for b in bad:
        print("FAIL " + b)
    if not tests:
        print("FAIL no tests listed")
        return 1
    print(f"{len(tests)} ctest entries, {len(bad)} judged by something else than their exit status")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
