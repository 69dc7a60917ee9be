#!/usr/bin/env bash
# One prepared command for a machine with an NVIDIA GPU: preflight (what this machine has),
# build tfjob-gpu-probe from this checkout for the GPUs present, run it ONCE under
# `timeout` (and its own --watchdog), and render probe.txt from that run's probe.json, with
# a table row for BENCHMARKS.md. Needs only nvcc, cuBLAS, CMake and a C++ compiler there;
# nlohmann-json's header is carried with the checkout when the machine lacks it:
#   here:   bash gpu/run-on-device.sh --prepare     # copies nlohmann/json.hpp into build-carry/include
#   there:  bash gpu/run-on-device.sh [--expect v100] [--strict]   (carry build-carry/)
# Writes build-gpu-device/ and, when $OUT is set (device runner), $OUT/probe.json,
# $OUT/probe.txt, $OUT/probe.stderr and $OUT/preflight.txt. Exit code: the probe's (0 ready,
# 1 not ready, 2 no GPU, 3 no result), 4 a preflight or build failure, 124 timed out.
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build-gpu-device}
OUT=${OUT:-$BUILD}
LIMIT=${PROBE_TIMEOUT:-240}          # seconds for the probe run
BUILD_LIMIT=${BUILD_TIMEOUT:-420}    # seconds for configure + build
CARRY=build-carry/include

if [ "${1:-}" = --prepare ]; then
  src=""
  for d in "${NLOHMANN_JSON_INCLUDE_DIR:-}" /usr/include /usr/local/include; do
    [ -n "$d" ] && [ -f "$d/nlohmann/json.hpp" ] && { src=$d; break; }
  done
  [ -n "$src" ] || { echo "run-on-device.sh --prepare: no nlohmann/json.hpp here (apt-get install nlohmann-json3-dev)" >&2; exit 4; }
  mkdir -p "$CARRY" && rm -rf "$CARRY/nlohmann" && cp -r "$src/nlohmann" "$CARRY/"
  echo "carried $src/nlohmann -> $CARRY/nlohmann (pass build-carry to the device run)"
  exit 0
fi

mkdir -p "$OUT" "$BUILD"
missing=0
{
  echo "== preflight $(date -u +%FT%TZ) on $(hostname)"
  if command -v nvidia-smi >/dev/null; then
    echo "nvidia-smi: $(command -v nvidia-smi)"
    nvidia-smi --query-gpu=index,name,driver_version,pci.bus_id,memory.total,ecc.mode.current,pcie.link.gen.max,pcie.link.width.max,clocks.max.sm,clocks.max.mem,power.limit --format=csv 2>&1 || true
  else
    echo "nvidia-smi: not found (no driver tools in PATH)"
  fi
  ls /dev/nvidia* 2>/dev/null | tr '\n' ' ' | sed 's/^/device files: /'; echo
  if ldconfig -p 2>/dev/null | grep -q 'libnvidia-ml.so.1'; then echo "NVML: libnvidia-ml.so.1 in the loader cache"; else echo "NVML: libnvidia-ml.so.1 not in the loader cache"; fi
  NVCC=${CMAKE_CUDA_COMPILER:-$(command -v nvcc || true)}
  [ -z "$NVCC" ] && [ -x /usr/local/cuda/bin/nvcc ] && NVCC=/usr/local/cuda/bin/nvcc
  if [ -n "$NVCC" ] && [ -x "$NVCC" ]; then echo "nvcc: $NVCC ($("$NVCC" --version | tail -1))"; else echo "nvcc: NOT FOUND${NVCC:+ ($NVCC)}"; missing=1; fi
  if command -v cmake >/dev/null; then echo "cmake: $(cmake --version | head -1)"; else echo "cmake: NOT FOUND"; missing=1; fi
  if command -v c++ >/dev/null; then echo "c++: $(c++ --version | head -1)"; else echo "c++: NOT FOUND"; missing=1; fi
  json=""
  for d in "${NLOHMANN_JSON_INCLUDE_DIR:-}" "$PWD/$CARRY" /usr/include /usr/local/include; do
    [ -n "$d" ] && [ -f "$d/nlohmann/json.hpp" ] && { json=$d; break; }
  done
  if [ -n "$json" ]; then echo "nlohmann/json.hpp: $json"; else echo "nlohmann/json.hpp: NOT FOUND (run gpu/run-on-device.sh --prepare where it exists and carry build-carry/)"; missing=1; fi
  echo "timeout: $(command -v timeout || echo 'NOT FOUND')"; command -v timeout >/dev/null || missing=1
  echo "cores: $(nproc)"
} > "$OUT/preflight.txt" 2>&1
echo "$missing" > "$OUT/.missing"
cat "$OUT/preflight.txt" >&2
missing=$(cat "$OUT/.missing"); rm -f "$OUT/.missing"
[ "$missing" = 0 ] || { echo "preflight: something the build needs is missing (above)" >&2; exit 4; }
NVCC=${CMAKE_CUDA_COMPILER:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
json_dir=$(sed -n 's/^nlohmann\/json.hpp: //p' "$OUT/preflight.txt")

# Only the architecture of the GPUs present, for a fast build (the image builds them all).
# "native" needs CMake >= 3.24; older CMake builds the toolkit's whole list.
cmv=$(cmake --version | awk 'NR==1{print $3}')
if printf '3.24\n%s\n' "$cmv" | sort -V -C; then ARCHS=${TFJOB_GPU_ARCHITECTURES:-native}; else ARCHS=${TFJOB_GPU_ARCHITECTURES:-}; fi
echo "== build (CUDA architectures: ${ARCHS:-all of the toolkit})" >&2
t0=$(date +%s.%N)
timeout "$BUILD_LIMIT" cmake -S gpu -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_COMPILER="$NVCC" \
  -DTFJOB_GPU_ARCHITECTURES="$ARCHS" -DNLOHMANN_JSON_INCLUDE_DIR="$json_dir" >&2 || { echo "configure failed" >&2; exit 4; }
timeout "$BUILD_LIMIT" cmake --build "$BUILD" -j"$(nproc)" >&2 || { echo "build failed (or over ${BUILD_LIMIT}s)" >&2; exit 4; }
t1=$(date +%s.%N)
PROBE="$BUILD/tfjob-gpu-probe"
"$PROBE" --version >&2

echo "== probe (timeout ${LIMIT}s, watchdog $((LIMIT - 20))s)" >&2
timeout --kill-after=10 "$LIMIT" "$PROBE" --watchdog "$((LIMIT - 20))" "$@" > "$OUT/probe.json" 2> "$OUT/probe.stderr"
rc=$?
t2=$(date +%s.%N)
cat "$OUT/probe.stderr" >&2
# probe.txt is the same run's report, rendered (not a second run).
"$PROBE" --render "$OUT/probe.json" > "$OUT/probe.txt" 2>&1
cat "$OUT/probe.txt"
build_s=$(awk "BEGIN{print $t1 - $t0}")
probe_s=$(awk "BEGIN{print $t2 - $t1}")
if ! command -v python3 >/dev/null; then
  echo "(no python3 here: no BENCHMARKS.md row; probe.json and probe.txt have everything)"
  exit $rc
fi
python3 - "$OUT/probe.json" "$build_s" "$probe_s" <<'PY' || true
import json, sys
r = json.load(open(sys.argv[1]))
d = r["driver"]
cv = lambda v: "%d.%d" % (v // 1000, v % 1000 // 10)
pct = lambda p: "" if p is None else " (%.0f%%)" % p
print("\n| GPU | driver (CUDA) | runtime | bandwidth GB/s (% peak) | FP16 TC TFLOP/s (% peak) | FP32 TFLOP/s (% peak) | H2D / D2H GB/s | PCIe under load | ECC DBE vol/agg | throttle | probe s |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
for g in r["devices"]:
    c = g["checks"]
    h = g.get("health") or {}
    p = h.get("pcie") or {}
    e = h.get("ecc") or {}
    print("| %s (cc %s) | %s (%s) | %s | %.0f%s | %.1f%s | %.1f%s | %.1f / %.1f | Gen%s x%s of Gen%s x%s | %s/%s | %s | %.1f |" % (
        g["name"], g["computeCapability"], d["version"], cv(d["cudaDriverVersion"]), cv(d["cudaRuntimeVersion"]),
        c["bandwidth"]["GBps"], pct(c["bandwidth"]["percentOfPeak"]),
        c["gemmFp16"]["TFLOPS"], pct(c["gemmFp16"]["percentOfPeak"]),
        c["gemmFp32"]["TFLOPS"], pct(c["gemmFp32"]["percentOfPeak"]),
        c["pinned"]["h2dGBps"], c["pinned"]["d2hGBps"],
        p.get("genCurrent"), p.get("widthCurrent"), p.get("genMax"), p.get("widthMax"),
        e.get("volatileDbe"), e.get("aggregateDbe"), ",".join(h.get("throttleReasons") or []) or "none", g["elapsedSeconds"]))
for p in r.get("peers", []):
    print("| peer gpu%d -> gpu%d | %s | %.1f GB/s | verified %s | %s |" % (p["src"], p["dst"], p.get("link") or "?", p["GBps"], p.get("verified"), "peer access" if p["canAccess"] else "staged"))
print("\nstatus: %s (%s); probe total %.1f s (wall %s s), build %s s" % (r["status"], r["message"], r["probe"]["elapsedSeconds"], sys.argv[3], sys.argv[2]))
PY
exit $rc
