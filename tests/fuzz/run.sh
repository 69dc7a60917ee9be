#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, -fsanitize=fuzzer,address,undefined) in a build
# directory of their own and runs each on its seed corpus and past findings, then for a
# bounded number of mutations.
#
#   tests/fuzz/run.sh [--build-only] BUILD_DIR [SECONDS] [TARGET...]
#
# Every run first replays, whole, the target's seed corpus (tests/fuzz/corpus/TARGET), its
# past findings (tests/fuzz/regressions/TARGET) and what earlier runs found, under the
# sanitizers; libFuzzer never stops during that replay. Then it mutates: with SECONDS (the
# argument, else $TFJOB_FUZZ_SECONDS) for that many seconds; else for the target's budget in
# tests/fuzz/budgets, a number of executions (the same with a fixed seed on any machine, so a
# finding shows where it was introduced, not with the load), capped at
# $TFJOB_FUZZ_MAX_SECONDS (300). TARGETs: the names
# of tests/fuzz/*_fuzz.cpp without the suffix (default: all). Inputs the fuzzer finds are
# kept in BUILD_DIR/corpus/TARGET (so a later run starts where this one stopped); a crash
# leaves its reproducer in BUILD_DIR/crashes/TARGET/ and this script names it and exits 1.
# Without clang or libFuzzer the skip rule decides (tests/support/skip.sh: 77, or a failure
# in a strict run: CI=true or TFJOB_STRICT=1).
# Extra libFuzzer flags: $TFJOB_FUZZ_ARGS (e.g. "-jobs=4 -workers=4"). See docs/fuzzing.md.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build_only=0
if [ "${1:-}" = --build-only ]; then build_only=1; shift; fi
if [ $# -lt 1 ]; then
  echo "usage: $0 [--build-only] BUILD_DIR [SECONDS] [TARGET...]" >&2
  exit 2
fi
build=$1; shift
seconds=
case ${1-x} in (''|*[!0-9]*) [ "${1-x}" = '' ] && shift;; (*) seconds=$1; shift;; esac  # "" = the default
seconds=${seconds:-${TFJOB_FUZZ_SECONDS:-}}
case $seconds in (*[!0-9]*) echo "$0: TFJOB_FUZZ_SECONDS must be a whole number, not \"$seconds\"" >&2; exit 2;; esac
max_seconds=${TFJOB_FUZZ_MAX_SECONDS:-300}
mkdir -p "$build"
build=$(cd "$build" && pwd)

. "$root/tests/support/skip.sh"
skip() { tfjob_skip no-libfuzzer "$1" "bash scripts/install-deps.sh installs clang and libclang-rt-14-dev"; }

cxx=${TFJOB_FUZZ_CXX:-}
if [ -z "$cxx" ]; then
  for c in clang++-14 clang++; do
    if command -v "$c" >/dev/null 2>&1; then cxx=$(command -v "$c"); break; fi
  done
fi
[ -n "$cxx" ] || skip "no clang++ on PATH"
probe_dir=$build/.probe
mkdir -p "$probe_dir"
printf '%s\n' '#include <cstdint>' '#include <cstddef>' \
  'extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t*, std::size_t) { return 0; }' >"$probe_dir/probe.cpp"
if ! "$cxx" -fsanitize=fuzzer,address,undefined "$probe_dir/probe.cpp" -o "$probe_dir/probe" >"$probe_dir/log" 2>&1; then
  skip "$cxx cannot link a libFuzzer target ($(head -c 300 "$probe_dir/log"))"
fi

all=()
for f in "$root"/tests/fuzz/*_fuzz.cpp; do n=$(basename "$f" _fuzz.cpp); all+=("$n"); done
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all[@]}")
for t in "${targets[@]}"; do
  [ -f "$root/tests/fuzz/${t}_fuzz.cpp" ] || { echo "$0: no fuzz target \"$t\" (known: ${all[*]})" >&2; exit 2; }
done

# One build at a time per build dir (ctest may start several targets at once).
exec 9>"$build/.build.lock"
flock 9
if [ ! -f "$build/CMakeCache.txt" ]; then
  launcher=()  # ccache per machine, as scripts/build.sh: a fresh clone rebuilds only what changed
  if [ "${TFJOB_CCACHE:-1}" != 0 ] && command -v ccache >/dev/null; then
    launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  fi
  cmake -S "$root" -B "$build" -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=Debug "${launcher[@]}" \
    -DTFJOB_BUILD_FUZZ=ON -DTFJOB_BUILD_TESTS=OFF -DTFJOB_BUILD_PLUGIN=OFF -DTFJOB_BUILD_SAMPLES=OFF \
    -DTFJOB_BUILD_GPU_PROBE=OFF -DTFJOB_BUILD_BENCH=OFF -DTFJOB_INSTALL=OFF >"$build/configure.log" 2>&1 ||
    { cat "$build/configure.log" >&2; exit 1; }
fi
build_targets=()
for t in "${targets[@]}"; do build_targets+=("fuzz_$t"); done
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$root} CCACHE_NOHASHDIR=1
cmake --build "$build" -j "${JOBS:-2}" --target "${build_targets[@]}" >"$build/build.log" 2>&1 ||
  { tail -n 60 "$build/build.log" >&2; echo "FAIL: building the fuzz targets (log: $build/build.log)" >&2; exit 1; }
flock -u 9
[ "$build_only" = 1 ] && { echo "built: ${build_targets[*]} in $build"; exit 0; }

export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
status=0
for t in "${targets[@]}"; do
  seeds=$root/tests/fuzz/corpus/$t
  work=$build/corpus/$t
  crashes=$build/crashes/$t
  log=$build/logs/$t.log
  mkdir -p "$work" "$crashes" "$(dirname "$log")"
  # A fixed seed (TFJOB_FUZZ_SEED, default 1) makes a CI run repeat the same mutations on
  # the same code, so a finding shows up where it was introduced, not at random later; run
  # longer or with other seeds by hand (docs/fuzzing.md).
  args=(-seed="${TFJOB_FUZZ_SEED:-1}" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=1024
        -error_exitcode=1 -timeout_exitcode=1 -print_final_stats=1 -artifact_prefix="$crashes/")
  [ -f "$root/tests/fuzz/dict/$t.dict" ] && args+=(-dict="$root/tests/fuzz/dict/$t.dict")
  # shellcheck disable=SC2206
  extra=(${TFJOB_FUZZ_ARGS:-})
  # the first directory receives what this run finds; the others are read (replayed) only
  dirs=("$work")
  [ -d "$seeds" ] && dirs+=("$seeds")
  [ -d "$root/tests/fuzz/regressions/$t" ] && dirs+=("$root/tests/fuzz/regressions/$t")
  replay=$(find "${dirs[@]}" -type f | wc -l)
  if [ -n "$seconds" ]; then
    args+=(-max_total_time="$seconds")
    what="${seconds}s"
  else
    budget=$(awk -v t="$t" '$1 == t { print $2 }' "$root/tests/fuzz/budgets")
    [ -n "$budget" ] || { echo "FAIL: no budget for fuzz target $t in tests/fuzz/budgets" >&2; exit 1; }
    # -runs counts the replay's executions too
    args+=(-runs=$((replay + budget)) -max_total_time="$max_seconds")
    what="$budget executions"
  fi
  echo "fuzz $t: $replay inputs replayed, then $what (seeds ${seeds#"$root"/}, corpus $work)"
  rc=0
  "$build/tests/fuzz/fuzz_$t" "${args[@]}" "${extra[@]}" "${dirs[@]}" >"$log" 2>&1 || rc=$?
  if [ "$rc" = 0 ]; then
    grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -n 1 | sed "s/^/fuzz $t: /" || true
    grep -E '^stat::number_of_executed_units' "$log" | sed "s/^/fuzz $t: /" || true
    continue
  fi
  status=1
  tail -n 80 "$log" >&2
  repro=$(grep -oE '(Test unit written to|written to) [^ ]+' "$log" | tail -n 1 | awk '{print $NF}' || true)
  echo "FAIL: fuzz target $t (exit $rc; full log: $log)" >&2
  if [ -n "$repro" ]; then
    echo "reproducer: $repro" >&2
    echo "rerun it:   $build/tests/fuzz/fuzz_$t $repro" >&2
    echo "make it a test: copy it to tests/fuzz/regressions/$t/ (tests/fuzz_test.cpp replays that folder; see docs/fuzzing.md)" >&2
  fi
done
exit $status
