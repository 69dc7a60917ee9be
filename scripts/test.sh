#!/usr/bin/env bash
# The README's test command (= .ci/run): installs the dependencies, builds everything and runs
# the whole suite with ctest, then prints one line per phase and one per tier (ctest label):
# tests run, passed, failed, skipped with each reason, and time.
#
#   bash scripts/test.sh [CTEST_ARGS...]      e.g. -L unit, -R fakeserver: a partial run
#
# Strict by default: a test that skips fails the run (tests/support/skip.sh), except the
# skips listed in tests/support/skips-allowed.txt (what this machine cannot help: a GPU). A
# partial run on purpose may skip and says so at the end: CTEST_ARGS (strict unless
# TFJOB_STRICT=1 is given), TFJOB_STRICT=0, TFJOB_REALAPI=skip, TFJOB_REALNODE=skip. CI=true
# (.ci/run) refuses all of these but CTEST_ARGS, and is always strict.
#
# What only needs building once per machine (the real cluster's binaries, tests/realapi/setup.sh,
# and the release's chroots and static dependencies, scripts/release-chroot.sh prepare) is
# built in the background while the project compiles; the tests that need it wait for it (its
# cache's lock). The real-node tier, the longest chain, starts as soon as its programs are
# built (target realnode-programs), beside the rest of the build and the main ctest.
# The caches and where each lives (all can be moved by their variable, as
# bench/test_time.sh does for a run without caches): ccache (CCACHE_DIR), the cluster's
# binaries (TFJOB_REALAPI_CACHE; Go's own cache lives and goes with their build's work tree),
# the release's chroots (TFJOB_RELEASE_CACHE), npm's cache (npm_config_cache).
#
# Also: BUILD_DIR (build), JOBS (nproc: the build's -j), CTEST_JOBS (ctest -j: nproc + 2, as the
# cluster and release tiers wait more than they compute; their heavy tests claim PROCESSORS).
# The phase times land in $BUILD_DIR/test-phases.tsv too (bench/test_time.sh reads them); the
# main ctest's logs in $BUILD_DIR/Testing, the real-node tier's in $BUILD_DIR/tests/Testing.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
export BUILD_DIR

die() { echo "test.sh: $*" >&2; exit 2; }
if [ "${CI:-}" = true ]; then
  [ "${TFJOB_STRICT:-1}" = 1 ] || die "TFJOB_STRICT=${TFJOB_STRICT} is not accepted when CI=true: CI runs every test"
  for v in TFJOB_REALAPI TFJOB_REALNODE; do
    [ "${!v:-}" != skip ] || die "$v=skip is not accepted when CI=true: CI runs every tier"
  done
fi
if [ $# -gt 0 ]; then export TFJOB_STRICT=${TFJOB_STRICT:-0}; else export TFJOB_STRICT=${TFJOB_STRICT:-1}; fi
[ "${CI:-}" != true ] || TFJOB_STRICT=1

# ---- phases: wall and CPU seconds of each (children's user + sys, from `times`) -----------
PHASES=()
mkdir -p "$BUILD_DIR"
# CPU: this shell's children's user + sys so far (`times` here, never in a $(...) subshell,
# which would report its own children)
cpu_now() { times >"$BUILD_DIR/.times"; CPU=$(awk 'NR == 2 { for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); s += a[1] * 60 + a[2] } printf "%.2f", s }' "$BUILD_DIR/.times"); }
phase_line() {  # phase_line NAME WALL CPU RC
  awk -v n="$1" -v w="$2" -v c="$3" -v r="$4" 'BEGIN { printf "%s\t%.0f\t%s\t%s", n, w, (c == "" ? "" : sprintf("%.0f", c)), r }'
}
phase() {  # phase NAME CMD...: run CMD as one phase; its line is kept for the end
  local name=$1; shift
  local t0 c0 rc=0
  t0=$(date +%s.%N); cpu_now; c0=$CPU
  echo "==> $name" >&2
  "$@" || rc=$?
  cpu_now
  PHASES+=("$(phase_line "$name" "$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')" \
              "$(awk -v a="$c0" -v b="$CPU" 'BEGIN { print b - a }')" "$rc")")
  return "$rc"
}
T0=$(date +%s)

phase install-deps bash scripts/install-deps.sh
BG="$BUILD_DIR/test-background"
rm -rf "$BG"; mkdir -p "$BG"

# ---- once per machine, in the background ---------------------------------------------------
# each runs under GNU time (its own wall and CPU), with its log in $BG/NAME.log and its exit
# status in $BG/NAME.rc once done; detached (not this shell's child), so that its CPU is never
# counted again in the phase during which it would have been reaped
# (in a session of its own, whose id is in $BG/NAME.pid: the real-node tier is stopped with it
# when this script ends first)
background() {  # background NAME CMD...
  local name=$1; shift
  ( ( rc=0; setsid /usr/bin/time -f "%e %U %S" -o "$BG/$name.time" "$@" >"$BG/$name.log" 2>&1 </dev/null &
      echo $! >"$BG/$name.pid"; wait $! || rc=$?
      echo "$rc" >"$BG/$name.rc.tmp" && mv "$BG/$name.rc.tmp" "$BG/$name.rc" ) & )
}
BGS=()
if [ "${TFJOB_REALAPI:-}" != skip ] || [ "${TFJOB_REALNODE:-}" != skip ]; then
  background cluster-binaries bash tests/realapi/setup.sh; BGS+=(cluster-binaries)
fi
if [ "$(id -u)" = 0 ] && command -v mmdebstrap >/dev/null; then
  background release-chroots bash scripts/release-chroot.sh prepare; BGS+=(release-chroots)
fi

# ---- the suite ---------------------------------------------------------------------------
JUNIT="$BUILD_DIR/Testing/junit.xml"
JUNITS=("$JUNIT")
rm -f "$JUNIT"
if [ $# = 0 ]; then
  # The real-node tier is the longest chain (a node, then its scenarios one at a time, mostly
  # waiting on pods): its programs are built first and the tier runs while the rest compiles
  # and tests. It is a ctest of its own, run in $BUILD_DIR/tests (so its Testing/ logs are
  # apart from the main run's); the main run leaves it out.
  phase build-realnode-programs env TARGETS=realnode-programs bash scripts/build.sh
  RN_JUNIT="$(realpath -m "$BUILD_DIR/tests/Testing/junit.xml")"
  JUNITS+=("$RN_JUNIT")
  rm -f "$RN_JUNIT"
  background realnode-tier ctest --test-dir "$BUILD_DIR/tests" -L realnode --output-on-failure \
    --output-junit "$RN_JUNIT" -j 2
  BGS+=(realnode-tier)
  # a build that fails, or an interrupted run, stops the tier (its node's watchdog cleans up)
  trap '[ -f "$BG/realnode-tier.rc" ] || kill -TERM -- "-$(cat "$BG/realnode-tier.pid" 2>/dev/null)" 2>/dev/null || true' EXIT
  set -- -LE realnode
fi

phase build bash scripts/build.sh

ctest_rc=0
phase ctest ctest --test-dir "$BUILD_DIR" --output-on-failure --output-junit "$(realpath -m "$JUNIT")" \
  -j "${CTEST_JOBS:-$(( $(nproc) + 2 ))}" "$@" || ctest_rc=$?

bg_rc=0
for name in "${BGS[@]}"; do
  until [ -f "$BG/$name.rc" ]; do sleep 2; done
  # (GNU time puts "Command exited with non-zero status N" first when it did)
  read -r w u s < <(tail -1 "$BG/$name.time" 2>/dev/null) || { w=0 u=0 s=0; }
  rc=$(cat "$BG/$name.rc")
  PHASES+=("$(phase_line "$name (background)" "$w" "$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }')" "$rc")")
  # a failure here shows in the tests that need it too; its log says why
  if [ "$name" = realnode-tier ]; then
    echo "==> ctest -L realnode (ran beside the build and the main ctest):"; cat "$BG/$name.log"
    [ "$rc" = 0 ] || ctest_rc=$rc
    continue
  fi
  case "$rc" in 0) ;; 77) echo "test.sh: $name skipped: $(grep -m1 '^SKIP: ' "$BG/$name.log" || true)" >&2 ;;
    *) echo "test.sh: $name failed (exit $rc); the end of $BG/$name.log:" >&2; tail -20 "$BG/$name.log" >&2; bg_rc=1 ;; esac
done
PHASES+=("$(phase_line total "$(( $(date +%s) - T0 ))" "" "$ctest_rc")")

printf '%s\n' "${PHASES[@]}" >"$BUILD_DIR/test-phases.tsv"
echo
echo "phases (wall s, CPU s of its processes, exit status):"
awk -F'\t' '{ printf "  %-30s %6s s  %6s CPU s  exit %s\n", $1, $2, ($3 == "" ? "-" : $3), $4 }' "$BUILD_DIR/test-phases.tsv"
strict=(); [ "$TFJOB_STRICT" = 1 ] && strict=(--strict)
python3 tests/tools/test_summary.py "$BUILD_DIR" "${JUNITS[@]}" "${strict[@]}" || true
[ "$ctest_rc" = 0 ] || exit "$ctest_rc"
exit "$bg_rc"
