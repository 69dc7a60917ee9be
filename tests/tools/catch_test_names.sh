#!/usr/bin/env bash
# Every Catch2 test case must be runnable by its own ctest entry: catch_discover_tests passes
# the name as Catch's test spec, where a leading '~' excludes that name (the entry then runs
# every other case) and a leading '-' is read as an option (the entry prints the usage and
# passes). Either way the case itself never runs. A ';' anywhere splits the name in two: CMake
# reads it as a list separator, and neither half matches a case. Usage: catch_test_names.sh TEST_EXE...
set -euo pipefail
bad=0
for exe in "$@"; do
  while IFS= read -r name; do
    case "$name" in
      '~'* | '-'*)
        echo "$(basename "$exe"): test case \"$name\" begins with '${name:0:1}', which Catch reads as a filter or an option, so its ctest entry never runs it: reword the name"
        bad=1 ;;
      *';'*)
        echo "$(basename "$exe"): test case \"$name\" contains ';', which CMake reads as a list separator, so its ctest entries match no case: reword the name"
        bad=1 ;;
    esac
  done < <("$exe" --list-test-names-only)
done
[ "$bad" = 0 ] && echo "ok: $# test programs, every case name runs as itself"
exit "$bad"
