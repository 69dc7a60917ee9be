#!/usr/bin/env bash
# A clean build of the whole project (SDK, plugin, tests, samples, benchmarks; not the CUDA
# probe, not the fuzz targets), in one run, both ways the SDK can be compiled (issue 13):
# header-only (-DTFJOB_SDK_COMPILED=OFF: every file compiles the bodies it uses) and compiled
# (ON: the bodies once, src/sdk_<area>.cpp). Fresh build directories, no compiler cache, the
# same Release flags and -j; GNU time gives wall seconds and the CPU seconds of every
# compiler and linker (user + sys). Prints a Markdown table.
#   bench/build_bench.sh [JOBS] [ORDER]   (JOBS: default nproc; ORDER: "OFF ON" or "ON OFF")
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS=${1:-$(nproc)}
ORDER=${2:-"OFF ON"}
[ -x /usr/bin/time ] || { echo "GNU time is missing: apt-get install -y time" >&2; exit 1; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
declare -A wall cpu rss objs
for mode in $ORDER; do
  b="$TMP/build-$mode"
  CCACHE_DISABLE=1 cmake -S . -B "$b" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER_LAUNCHER= \
    -DTFJOB_SDK_COMPILED="$mode" -DTFJOB_BUILD_GPU_PROBE=OFF -DTFJOB_BUILD_FUZZ=OFF >"$TMP/configure-$mode.log" 2>&1 ||
    { cat "$TMP/configure-$mode.log" >&2; exit 1; }
  CCACHE_DISABLE=1 /usr/bin/time -f "%e %U %S %M" -o "$TMP/time-$mode" \
    cmake --build "$b" -j "$JOBS" >"$TMP/build-$mode.log" 2>&1 || { tail -40 "$TMP/build-$mode.log" >&2; exit 1; }
  read -r w u s m <"$TMP/time-$mode"
  wall[$mode]=$w
  cpu[$mode]=$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.0f", u + s }')
  rss[$mode]=$((m / 1024))
  objs[$mode]=$(find "$b" -name '*.o' | wc -l)
  rm -rf "$b"
done
echo "| SDK mode | objects compiled | wall s (-j$JOBS) | CPU s (user+sys) | largest process MB |"
echo "| --- | ---: | ---: | ---: | ---: |"
for mode in OFF ON; do
  [ -n "${wall[$mode]:-}" ] || continue
  label=$([ "$mode" = OFF ] && echo "header-only (TFJOB_SDK_COMPILED=OFF)" || echo "compiled (TFJOB_SDK_COMPILED=ON)")
  echo "| $label | ${objs[$mode]} | ${wall[$mode]} | ${cpu[$mode]} | ${rss[$mode]} |"
done
[ -n "${wall[OFF]:-}" ] && [ -n "${wall[ON]:-}" ] && awk -v a="${wall[OFF]}" -v b="${wall[ON]}" -v c="${cpu[OFF]}" -v d="${cpu[ON]}" \
  'BEGIN { printf "| compiled / header-only | | %.2f | %.2f | |\n", b / a, d / c }'
echo "($(nproc) cores, load average before the run's end: $(cut -d' ' -f1-3 /proc/loadavg), $(date -u '+%Y-%m-%d %H:%M UTC'), $(g++ --version | head -1))"
