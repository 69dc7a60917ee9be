#!/usr/bin/env bash
# The skip rule, tested the way the suite uses it: a small CMake project registers, through
# tests/support/skip.cmake and with SKIP_RETURN_CODE 77 as tests/CMakeLists.txt does,
#   - Catch2 cases (tests/tools/skip_rule_cases.cpp, linked with the suite's own main): one that
#     skips before asserting, one that skips from a helper, one that fails an assertion and then
#     skips, one that passes an assertion and then skips, one that passes;
#   - a script whose tool is hidden from PATH (tests/tools/kubectl_finds_plugin.sh, no kubectl);
#   - a tier whose prerequisite is absent (tfjob_skip_test, as gpu.cmake registers the probe's
#     tests without nvcc);
#   - the allowed exception (tests/support/skips-allowed.txt) and a skip asked for by a variable;
# runs it with ctest non-strict, strict (TFJOB_STRICT=1) and as CI (CI=true), and checks what
# ctest made of each (through tests/tools/test_summary.py, one label per test): red where it
# must be red, skipped with its reason where it may skip, never passed.
#   skip_rule_test.sh SOURCE_DIR CASES_PROGRAM WORK_DIR
set -euo pipefail
src=$1 cases=$2 work=$3
rm -rf "$work"; mkdir -p "$work/proj" "$work/nokubectl"
# a PATH with what kubectl_finds_plugin.sh needs before its check, and no kubectl
for t in dirname grep cat; do ln -s "$(command -v "$t")" "$work/nokubectl/$t"; done

{
  echo 'cmake_minimum_required(VERSION 3.20)'
  echo 'project(skip_rule NONE)'
  echo 'enable_testing()'
  echo "include(\"$src/tests/support/skip.cmake\")"
  while IFS='|' read -r label name; do
    # (as catch_discover_tests runs each case: by its name, --warn NoTests)
    echo "add_test(NAME \"$label\" COMMAND \"$cases\" \"$name\" --warn NoTests)"
  done <<'EOF'
catch-skips-first|skips before asserting
catch-skips-in-helper|skips from a helper and nothing after it runs
catch-fails-then-skips|fails then skips
catch-passes-then-skips|passes an assertion then skips
catch-passes|passes
EOF
  echo "add_test(NAME script-tool-hidden COMMAND env \"PATH=$work/nokubectl\" /bin/bash \"$src/tests/tools/kubectl_finds_plugin.sh\" /bin/true)"
  echo 'tfjob_skip_test(tier-prerequisite-absent no-nvcc "no CUDA compiler (nvcc) when CMake configured" "install the CUDA toolkit")'
  echo "add_test(NAME allowed-exception COMMAND bash \"$src/tests/support/skip.sh\" gpu-driver-present \"a GPU driver is loaded\")"
  echo "add_test(NAME asked-by-variable COMMAND bash \"$src/tests/support/skip.sh\" asked \"TFJOB_EXAMPLE=skip\")"
  echo 'get_property(all DIRECTORY PROPERTY TESTS)'
  echo 'foreach(t ${all})'
  echo '  set_tests_properties(${t} PROPERTIES SKIP_RETURN_CODE 77 LABELS ${t})'
  echo 'endforeach()'
} >"$work/proj/CMakeLists.txt"
cmake -S "$work/proj" -B "$work/build" >/dev/null

fail=0
# run MODE ENV...: ctest in that mode; the summary in $work/MODE.summary
run() {
  local mode=$1; shift
  (cd "$work/build" && env -u CI -u TFJOB_STRICT "$@" ctest --output-junit "$work/$mode.xml" >"$work/$mode.ctest" 2>&1 || true)
  python3 "$src/tests/tools/test_summary.py" "$work/build" "$work/$mode.xml" >"$work/$mode.summary"
  echo "== $mode"; cat "$work/$mode.summary"
}
# expect MODE LABEL VERDICT [REASON]: the summary's line for LABEL counts one VERDICT (and the reason)
expect() {
  local mode=$1 label=$2 verdict=$3 reason=${4:-} line
  line=$(grep -E "^  $label +1 run" "$work/$mode.summary" || true)
  if ! grep -qE " 1 $verdict" <<<"$line"; then
    echo "FAIL: $mode: $label was not $verdict: ${line:-no summary line}"; fail=1
  elif [ -n "$reason" ] && ! grep -qF -- "$reason" <<<"$line"; then
    echo "FAIL: $mode: $label skipped without its reason \"$reason\": $line"; fail=1
  fi
}

run nonstrict
expect nonstrict catch-skips-first skipped "a prerequisite is missing (fix: install it)"
expect nonstrict catch-skips-in-helper skipped "a prerequisite is missing (fix: install it)"
expect nonstrict catch-fails-then-skips failed
expect nonstrict catch-passes-then-skips failed
expect nonstrict catch-passes passed
expect nonstrict script-tool-hidden skipped "no kubectl on PATH (fix: bash scripts/install-deps.sh"
expect nonstrict tier-prerequisite-absent skipped "no CUDA compiler (nvcc) when CMake configured (fix: install the CUDA toolkit) [no-nvcc]"
expect nonstrict allowed-exception skipped "a GPU driver is loaded [gpu-driver-present]"
expect nonstrict asked-by-variable skipped "TFJOB_EXAMPLE=skip [asked]"
grep -q "PARTIAL RUN: 6 test(s) skipped" "$work/nonstrict.summary" || { echo "FAIL: the non-strict run does not say it was partial"; fail=1; }

for mode in strict ci; do
  if [ "$mode" = strict ]; then run strict TFJOB_STRICT=1; else run ci CI=true; fi
  for label in catch-skips-first catch-skips-in-helper catch-fails-then-skips catch-passes-then-skips \
               script-tool-hidden tier-prerequisite-absent; do
    expect "$mode" "$label" failed
  done
  expect "$mode" catch-passes passed
  expect "$mode" allowed-exception skipped "a GPU driver is loaded"
done
expect strict asked-by-variable skipped "TFJOB_EXAMPLE=skip"
expect ci asked-by-variable failed
# the strict runs' failures say why
grep -q "a strict run (CI=true or TFJOB_STRICT=1) does not skip" "$work/ci.xml" ||
  { echo "FAIL: the CI run's failures do not say a strict run does not skip"; fail=1; }
[ "$fail" = 0 ] && echo "PASS: the skip rule: failure wins, strict runs are red, non-strict ones skip with the reason"
exit "$fail"
