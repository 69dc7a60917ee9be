#!/usr/bin/env python3
"""One line per tier (ctest label) of a finished ctest run: tests run, passed, failed,
skipped with each reason, and the tier's time; then the run's verdict on skips.

    test_summary.py BUILD_DIR JUNIT_XML... [--strict]

JUNIT_XML is ctest's --output-junit (several: runs of parts of BUILD_DIR's tests; a file
that is missing, a run that did not happen, is said so); the labels come from `ctest --show-only=json-v1` of
BUILD_DIR's tests (run on a copy: BUILD_DIR's logs stay as the run left them). A skip's reason is its "SKIP: ..." line (tests/support/skip.sh, skip.hpp); a test
that ctest did not run because a fixture it needs failed counts as failed. The time of a tier
is the sum of its tests' times (a test with two labels counts in both). Exit status: 0, or 2
when the inputs cannot be read (the verdict on the run is ctest's own).
"""
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET


def ctest_tests(build_dir):
    """`ctest --show-only=json-v1`'s tests, without touching BUILD_DIR: ctest replaces
    Testing/Temporary/LastTest.log even when it only lists, so it lists a copy of the
    CTestTestfile.cmake tree (the files they include are read where they are)."""
    with tempfile.TemporaryDirectory() as tmp:
        for d, _, files in os.walk(build_dir):
            if "CTestTestfile.cmake" in files:
                dst = os.path.join(tmp, os.path.relpath(d, build_dir))
                os.makedirs(dst, exist_ok=True)
                shutil.copy(os.path.join(d, "CTestTestfile.cmake"), dst)
        out = subprocess.run(["ctest", "--show-only=json-v1"], cwd=tmp, capture_output=True, text=True, check=True)
    return json.loads(out.stdout).get("tests", [])


def labels_by_test(build_dir):
    labels = {}
    for t in ctest_tests(build_dir):
        names = []
        for p in t.get("properties", []):
            if p.get("name") == "LABELS":
                names = list(p.get("value") or [])
        labels[t["name"]] = names or ["(no label)"]
    return labels


def skip_reason(text):
    m = re.findall(r"^SKIP: (.*)$", text or "", re.M)
    return m[-1].strip() if m else "no SKIP: line (skipped by ctest itself)"


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    strict = "--strict" in sys.argv
    if len(args) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    build_dir, junits = args[0], args[1:]
    try:
        labels = labels_by_test(build_dir)
    except (OSError, subprocess.CalledProcessError, ValueError) as e:
        print(f"test summary: cannot list the tests of {build_dir}: {e}", file=sys.stderr)
        return 2
    cases = []
    for junit in junits:
        try:
            cases += list(ET.parse(junit).getroot().iter("testcase"))
        except (OSError, ET.ParseError) as e:
            print(f"test summary: no results from {junit}: {e}")
    tiers = collections.OrderedDict()
    totals = collections.Counter()
    for case in cases:
        name, status = case.get("name"), case.get("status")
        secs = float(case.get("time") or 0)
        skipped = case.find("skipped")
        out = (case.findtext("system-out") or "")
        if status == "run":
            verdict, reason = "passed", None
        elif status == "notrun" and skipped is not None and skipped.get("message", "").startswith("SKIP_"):
            verdict, reason = "skipped", skip_reason(out)
        else:  # failed, or not run because a fixture it needs failed
            verdict, reason = "failed", None
        totals[verdict] += 1
        for label in labels.get(name, ["(no label)"]):
            t = tiers.setdefault(label, {"n": 0, "passed": 0, "failed": 0, "skipped": 0, "secs": 0.0,
                                         "reasons": collections.Counter()})
            t["n"] += 1
            t[verdict] += 1
            t["secs"] += secs
            if reason:
                t["reasons"][reason] += 1
    width = max([len(k) for k in tiers] + [4])
    print("tier summary (ctest labels; time = the sum of the tier's test times):")
    for label in sorted(tiers, key=lambda k: -tiers[k]["secs"]):
        t = tiers[label]
        line = (f"  {label:<{width}}  {t['n']:4d} run  {t['passed']:4d} passed  {t['failed']:3d} failed  "
                f"{t['skipped']:3d} skipped  {t['secs']:8.1f} s")
        if t["reasons"]:
            line += "  skipped: " + "; ".join(f"{n}x {r}" if n > 1 else r for r, n in t["reasons"].most_common())
        print(line)
    n = sum(totals.values())
    print(f"  all tests: {n} run, {totals['passed']} passed, {totals['failed']} failed, {totals['skipped']} skipped")
    if totals["skipped"]:
        if strict:
            print(f"  {totals['skipped']} skipped in a strict run: each is an exception of tests/support/skips-allowed.txt"
                  " or asked for by a variable (TFJOB_REALAPI=skip, ...)")
        else:
            print(f"  PARTIAL RUN: {totals['skipped']} test(s) skipped (not strict: TFJOB_STRICT=0 or a plain ctest);"
                  " a strict run (bash scripts/test.sh, CI=true) fails on them")
    return 0


if __name__ == "__main__":
    sys.exit(main())
