#!/usr/bin/env bash
# The suite's one skip rule for shell (tests/support/skip.hpp is Catch2's, skip.cmake CMake's;
# docs/testing.md says how they fit together).
#
#   . tests/support/skip.sh; tfjob_skip ID "REASON" "FIX"     in a test script
#   bash tests/support/skip.sh ID "REASON" "FIX"               a ctest placeholder (skip.cmake)
#
# A test that cannot run here calls tfjob_skip before it asserts anything. It prints one line
#   SKIP: REASON (fix: FIX) [ID]
# and exits with the skip status 77 (ctest's SKIP_RETURN_CODE), except in a strict run, where
# the same line is followed by a FAIL line and the exit status is 1. A run is strict when
# CI=true or TFJOB_STRICT=1 (scripts/test.sh sets it unless TFJOB_STRICT=0 is given, which
# CI=true refuses). Strict runs still skip, with 77:
#   - the IDs listed in tests/support/skips-allowed.txt: what this machine cannot help (a GPU);
#   - ID `asked`: a documented variable asked for the skip (TFJOB_REALAPI=skip, ...), a partial
#     run on purpose; refused (exit 1) when CI=true.
# A missing package, tool, cache, root, or a registry that did not answer is never such an
# exception: install it (bash scripts/install-deps.sh) or run non-strict on purpose.
# Sourcing this file defines functions only; it changes no shell option.

TFJOB_SKIP_ALLOWED_LIST="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/skips-allowed.txt"

# tfjob_strict: true when a skip is a failure in this run
tfjob_strict() {
  [ "${CI:-}" = true ] || [ "${TFJOB_STRICT:-0}" = 1 ]
}

# tfjob_skip_allowed ID: true when ID is in the list of skips a strict run accepts
tfjob_skip_allowed() {
  [ -n "$1" ] && [ "$1" != asked ] && grep -qE "^$1([[:space:]]|\$)" "$TFJOB_SKIP_ALLOWED_LIST" 2>/dev/null
}

# tfjob_skip ID REASON [FIX]: report the skip and exit (77, or 1 where the run is strict)
tfjob_skip() {
  local id=${1:?tfjob_skip ID REASON [FIX]} reason=${2:?tfjob_skip ID REASON [FIX]} fix=${3:-}
  echo "SKIP: $reason${fix:+ (fix: $fix)} [$id]" >&2
  if [ "$id" = asked ]; then
    if [ "${CI:-}" = true ]; then
      echo "FAIL: a skip asked for by a variable is not accepted when CI=true: $reason" >&2
      exit 1
    fi
    exit 77
  fi
  if tfjob_strict && ! tfjob_skip_allowed "$id"; then
    echo "FAIL: a strict run (CI=true or TFJOB_STRICT=1) does not skip: $reason${fix:+; $fix}" \
         "(the exceptions are listed in tests/support/skips-allowed.txt)" >&2
    exit 1
  fi
  exit 77
}

# A skip that tests depending on this one must repeat (a cluster's setup, the release build):
# tfjob_skip_record FILE ID REASON [FIX] keeps it in FILE (ID, REASON, FIX, tab-separated)
# and applies the rule; tfjob_skip_recorded FILE WHAT applies it again, as "WHAT: REASON",
# when FILE holds one (and returns otherwise).
tfjob_skip_record() {
  local file=$1; shift
  printf '%s\t%s\t%s\n' "$1" "$2" "${3:-}" >"$file"
  tfjob_skip "$@"
}
tfjob_skip_recorded() {
  local file=$1 what=$2 id reason fix
  [ -s "$file" ] || return 0
  IFS=$'\t' read -r id reason fix <"$file" || true
  tfjob_skip "${id:-unknown}" "$what: ${reason:-$(cat "$file")}" "$fix"
}

# run as a program (not sourced: `return` works only in a sourced file): the rule itself,
# for a test that cannot even be built here
if ! (return 0 2>/dev/null); then
  [ $# -ge 2 ] || { echo "usage: skip.sh ID REASON [FIX]" >&2; exit 2; }
  tfjob_skip "$@"
fi
