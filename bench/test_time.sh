#!/usr/bin/env bash
# How long the README's test command takes (issue 33): `CI=true bash scripts/test.sh` (= .ci/run)
# from a clean clone, first with no caches, then with the caches that first run left (warm),
# without wiping the machine: every cache the suite keeps is pointed at a folder of WORK_DIR
# (ccache, npm's cache, the real cluster's binaries, the release's chroots; scripts/test.sh
# lists them; Go's build cache is in the cluster build's own work tree, always cold). The installed Debian packages are the one thing kept; with
# --apt, their download and installation is measured too: scripts/install-deps.sh run in a
# fresh Debian 12 base system (mmdebstrap --variant=important), the install alone timed.
#
#   sudo bash bench/test_time.sh [--apt] [--fresh-only|--warm-only|--record-only] WORK_DIR
#
# Needs root (the suite's cluster and release tiers do), the network (Debian's mirrors, npm),
# and a quiet machine: nothing else may run the cluster or release tiers meanwhile, and other
# load makes every figure an upper bound. Each phase's wall and CPU seconds come from
# scripts/test.sh's own record ($BUILD_DIR/test-phases.tsv); the tiers from its summary.
# Writes bench/results/test-time.md (with the commit measured) and rebuilds BENCHMARKS.md.
# WORK_DIR keeps the clones' logs; remove it afterwards (the release chroots take ~2 GB).
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$PWD
APT=0 RUNS="fresh warm"
while [ $# -gt 1 ]; do
  case "$1" in
    --apt) APT=1 ;;
    --fresh-only) RUNS=fresh ;;
    --warm-only) RUNS=warm ;;
    --record-only) RUNS=record ;;
    *) echo "usage: bench/test_time.sh [--apt] [--fresh-only|--warm-only|--record-only] WORK_DIR" >&2; exit 2 ;;
  esac
  shift
done
[ $# = 1 ] || { echo "usage: bench/test_time.sh [--apt] [--fresh-only|--warm-only] WORK_DIR" >&2; exit 2; }
WORK=$(realpath -m "$1")
[ "$(id -u)" = 0 ] || { echo "bench/test_time.sh: run as root (the suite's cluster and release tiers need it)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "GNU time is missing: apt-get install -y time" >&2; exit 1; }
mkdir -p "$WORK"
CACHES="$WORK/caches"
COMMIT=$(git rev-parse --short HEAD)
[ -z "$(git status --porcelain --untracked-files=no)" ] || echo "note: uncommitted changes are not measured (the clone is of $COMMIT)" >&2

# every cache of the suite, under WORK_DIR (scripts/test.sh names them)
cache_env=(CCACHE_DIR="$CACHES/ccache" npm_config_cache="$CACHES/npm"
           TFJOB_REALAPI_CACHE="$CACHES/kubectl-tfjob" TFJOB_RELEASE_CACHE="$CACHES/release"
           XDG_CACHE_HOME="$CACHES/xdg")

run() {  # run NAME: a clean clone, CI=true bash scripts/test.sh, its record in $WORK/NAME.*
  local name=$1 clone="$WORK/clone-$1" rc=0
  rm -rf "$clone"
  git clone -q --no-local "$REPO" "$clone"
  git -C "$clone" checkout -q "$COMMIT"
  echo "== $name run: $clone (log: $WORK/$name.log)" >&2
  (cd "$clone" && env "${cache_env[@]}" CI=true /usr/bin/time -f "%e %U %S" -o "$WORK/$name.time" \
     bash .ci/run >"$WORK/$name.log" 2>&1) || rc=$?
  echo "$rc" >"$WORK/$name.rc"
  cp "$clone/build/test-phases.tsv" "$WORK/$name.phases" 2>/dev/null || : >"$WORK/$name.phases"
  sed -n '/^tier summary/,$p' "$WORK/$name.log" >"$WORK/$name.tiers"
  echo "== $name run: exit $rc, $(tail -1 "$WORK/$name.time" | cut -d' ' -f1) s" >&2
  echo "$COMMIT" >"$WORK/commit"
  echo "$(date -u '+%Y-%m-%d %H:%M UTC'), load average at the end $(cut -d' ' -f1-3 /proc/loadavg)" >"$WORK/when"
}

case " $RUNS " in *" fresh "*) rm -rf "$CACHES"; mkdir -p "$CACHES"; run fresh ;; esac
case " $RUNS " in *" warm "*) [ -d "$CACHES" ] || { echo "no caches in $CACHES: run the fresh one first" >&2; exit 1; }; run warm ;; esac

if [ "$APT" = 1 ]; then
  # A fresh Debian 12 machine: the base system (Priority important and above: what a minimal
  # install or a cloud image has) made first, not timed; then the README's install step itself,
  # scripts/install-deps.sh, run inside it and timed (apt-get update, download, unpack,
  # configure; the services it installs are not started in a chroot, mmdebstrap's policy-rc.d)
  rm -rf "$WORK/aptroot" "$WORK/apt.time"
  mmdebstrap --variant=important \
    --customize-hook="cp '$REPO/scripts/install-deps.sh' \"\$1/tmp/install-deps.sh\"" \
    --customize-hook="/usr/bin/time -f '%e %U %S' -o '$WORK/apt.time' chroot \"\$1\" bash /tmp/install-deps.sh" \
    bookworm "$WORK/aptroot" >"$WORK/apt.log" 2>&1 || echo "apt root failed: $WORK/apt.log" >&2
  rm -rf "$WORK/aptroot"
fi

# ---- the record, in BENCHMARKS.md's form (--record-only: from WORK_DIR's files alone) ---------
[ -f "$WORK/commit" ] || { echo "nothing measured in $WORK yet" >&2; exit 1; }
COMMIT=$(cat "$WORK/commit")
col() {  # col NAME PHASE: "wall s | CPU s" of PHASE in NAME's record, or "-"
  awk -F'\t' -v p="$2" '$1 == p { printf "%s | %s", $2, ($3 == "" ? "-" : $3); found = 1 } END { if (!found) printf "- | -" }' "$WORK/$1.phases" 2>/dev/null || printf -- '- | -'
}
{
  echo "# Test time: the README's test command, fresh and warm (issue 33)"
  echo
  echo "\`CI=true bash scripts/test.sh\` (= \`.ci/run\`) from a clean clone of $COMMIT, measured by"
  echo "\`sudo bash bench/test_time.sh${APT:+ }$([ "$APT" = 1 ] && echo --apt) WORK_DIR\`: *fresh* with every cache of the suite pointed at an empty"
  echo "folder (ccache, npm's cache, the cluster's binaries, the release's chroots),"
  echo "*warm* from a second clean clone with the caches the fresh run left. $(nproc) cores,"
  echo "$(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), $(cat "$WORK/when")."
  echo "Wall seconds, and the CPU seconds of each phase's own processes (background phases overlap the"
  echo "build and the tests: their wall time is not added to the total)."
  echo
  echo "| phase | fresh wall s | fresh CPU s | warm wall s | warm CPU s |"
  echo "| --- | ---: | ---: | ---: | ---: |"
  # every phase either run recorded, in the order scripts/test.sh wrote them (total last)
  while IFS= read -r p; do
    echo "| $p | $(col fresh "$p") | $(col warm "$p") |"
  done < <({ cat "$WORK/fresh.phases" "$WORK/warm.phases" 2>/dev/null || true; } | cut -f1 | awk '!seen[$0]++ && $0 != "total"'; echo total)
  if [ -f "$WORK/apt.time" ]; then
    read -r w u s < <(tail -1 "$WORK/apt.time")
    echo "| apt: \`scripts/install-deps.sh\` on a fresh Debian 12 base system (\`--apt\`) | $w | $(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.0f", u + s }') | | |"
  fi
  for name in fresh warm; do
    [ -s "$WORK/$name.tiers" ] || continue
    echo
    echo "Tiers of the $name run (exit $(cat "$WORK/$name.rc")):"
    echo
    echo '```'
    cat "$WORK/$name.tiers"
    echo '```'
  done
} >bench/results/test-time.md
bash bench/assemble.sh
echo "bench/results/test-time.md and BENCHMARKS.md written" >&2
