#!/usr/bin/env bash
# What including the SDK costs, one translation unit at a time (issue 13): preprocessed
# lines (`g++ -E | wc -l`), then `g++ -std=c++17 -O2 -c` under GNU time (user CPU s, wall s,
# max RSS) of a file that only includes a header, and of a few plugin/sample sources.
# With BASE (a git revision) the same files of that revision are measured too, alternately
# with this tree's, so that both see the same neighbours on a shared machine.
# Each file is measured in the SDK's two modes (MODES, default both): header-only, and
# compiled (-DTFJOB_SDK_COMPILED: the headers' declarations only, bodies in src/).
# Usage: bash bench/compile_bench.sh [BUILD_DIR] [BASE]   (prints a Markdown table)
# BUILD_DIR: a configured build (plugin/generated/sample_files.hpp); compiles are serial.
# EXTRA_FLAGS: more compiler flags for every compile, e.g. "--param ggc-min-expand=1000
# --param ggc-min-heapsize=4000000" to keep GCC's garbage collector from running, which shows
# the work a file costs apart from where GCC's collections happen to fall (BENCHMARKS.md).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=$(realpath "${1:-build}")
BASE=${2:-}
[ -x /usr/bin/time ] || { echo "GNU time is missing: apt-get install -y time" >&2; exit 1; }
[ -f "$BUILD_DIR/plugin/generated/sample_files.hpp" ] || { echo "configure $BUILD_DIR first (scripts/build.sh)" >&2; exit 1; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
trees=(".")
if [ -n "$BASE" ]; then
  mkdir "$TMP/base"
  git archive "$BASE" include plugin samples | tar -x -C "$TMP/base"
  trees=("$TMP/base" ".")
fi
HEADERS=${HEADERS:-"tfjob/api/types.hpp tfjob/kube/client.hpp tfjob/tfjob.hpp"}
SOURCES=${SOURCES:-"plugin/commands/completion.cpp plugin/commands/submit.cpp plugin/commands/predict.cpp samples/sdk/submit_and_follow.cpp"}
MODES=${MODES:-"header-only compiled"}
measure() {  # tree, label, source file, mode
  local flags=(-std=c++17 -I"$1/include" -I"$1/plugin" -I"$BUILD_DIR/plugin/generated" -isystem /usr/include/stb)
  [ "$4" = compiled ] && flags+=(-DTFJOB_SDK_COMPILED)
  # shellcheck disable=SC2206  # EXTRA_FLAGS is a list of words
  local extra=(${EXTRA_FLAGS:-})
  local lines u w m which=this
  [ "$1" = . ] || which="$BASE"
  if ! lines=$(g++ "${flags[@]}" -E "$3" 2>/dev/null | wc -l) ||
     ! /usr/bin/time -f "%U %e %M" -o "$TMP/time" g++ "${flags[@]}" "${extra[@]}" -O2 -c "$3" -o "$TMP/x.o" 2>/dev/null; then
    printf '| %s | %s | %s | does not compile | | | |\n' "$2" "$4" "$which"  # e.g. a header the base lacks
    return
  fi
  read -r u w m <"$TMP/time"
  printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$2" "$4" "$which" "$lines" "$u" "$w" $((m / 1024))
}
echo "| translation unit | SDK mode | tree | preprocessed lines | user s | wall s | max RSS MB |"
echo "| --- | --- | --- | ---: | ---: | ---: | ---: |"
for h in $HEADERS; do
  echo "#include <$h>" >"$TMP/include_only.cpp"
  for m in $MODES; do for t in "${trees[@]}"; do measure "$t" "\`#include <$h>\`" "$TMP/include_only.cpp" "$m"; done; done
done
for s in $SOURCES; do
  for m in $MODES; do for t in "${trees[@]}"; do measure "$t" "\`$s\`" "$t/$s" "$m"; done; done
done
echo "(load average: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores, $(date -u '+%Y-%m-%d %H:%M UTC')${EXTRA_FLAGS:+, EXTRA_FLAGS=$EXTRA_FLAGS})"
