#!/usr/bin/env bash
# One prepared script for a machine with an NVIDIA GPU: builds tfjob-gpu-probe from this
# checkout (only nvcc, cuBLAS, cmake and nlohmann-json needed), runs it once for the JSON
# report and prints a short table for BENCHMARKS.md. Usage, from the repository root:
#   bash gpu/run-on-device.sh [--expect v100]
# Writes build-gpu-device/ and, when $OUT is set (device runner), $OUT/probe.json and
# $OUT/probe.txt. Exit code: the probe's (0 ready, 1 not ready, 2 no GPU).
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build-gpu-device}
OUT=${OUT:-$BUILD}
mkdir -p "$OUT"
echo "== nvidia-smi" >&2
nvidia-smi --query-gpu=name,driver_version,memory.total,ecc.mode.current,clocks.max.sm,clocks.max.mem --format=csv >&2 || true
# Only the architecture of the GPUs present, for a fast build (the image builds them all).
# "native" needs CMake >= 3.24; older CMake builds the toolkit's whole list.
cmv=$(cmake --version | awk 'NR==1{print $3}')
if printf '3.24\n%s\n' "$cmv" | sort -V -C; then ARCHS=${TFJOB_GPU_ARCHITECTURES:-native}; else ARCHS=${TFJOB_GPU_ARCHITECTURES:-}; fi
echo "== build (CUDA architectures: $ARCHS)" >&2
t0=$(date +%s.%N)
cmake -S gpu -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DTFJOB_GPU_ARCHITECTURES="$ARCHS" >&2 || exit 3
cmake --build "$BUILD" -j"$(nproc)" >&2 || exit 3
t1=$(date +%s.%N)
echo "== probe" >&2
"$BUILD/tfjob-gpu-probe" "$@" > "$OUT/probe.json"
rc=$?
t2=$(date +%s.%N)
"$BUILD/tfjob-gpu-probe" "$@" --human > "$OUT/probe.txt" 2>&1
cat "$OUT/probe.txt"
python3 - "$OUT/probe.json" "$(awk "BEGIN{print $t1 - $t0}")" "$(awk "BEGIN{print $t2 - $t1}")" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
d = r["driver"]
cv = lambda v: "%d.%d" % (v // 1000, v % 1000 // 10)
print("\n| GPU | driver (CUDA) | runtime | bandwidth GB/s (% peak) | FP16 TC TFLOP/s (% peak) | FP32 TFLOP/s (% peak) | H2D / D2H GB/s | probe s |")
print("|---|---|---|---|---|---|---|---|")
pct = lambda p: "" if p is None else " (%.0f%%)" % p
for g in r["devices"]:
    c = g["checks"]
    print("| %s (cc %s) | %s (%s) | %s | %.0f%s | %.1f%s | %.1f%s | %.1f / %.1f | %.1f |" % (
        g["name"], g["computeCapability"], d["version"], cv(d["cudaDriverVersion"]), cv(d["cudaRuntimeVersion"]),
        c["bandwidth"]["GBps"], pct(c["bandwidth"]["percentOfPeak"]),
        c["gemmFp16"]["TFLOPS"], pct(c["gemmFp16"]["percentOfPeak"]),
        c["gemmFp32"]["TFLOPS"], pct(c["gemmFp32"]["percentOfPeak"]),
        c["pinned"]["h2dGBps"], c["pinned"]["d2hGBps"], g["elapsedSeconds"]))
print("\nstatus: %s (%s); probe total %.1f s (wall %s s), build %s s" % (r["status"], r["message"], r["probe"]["elapsedSeconds"], sys.argv[3], sys.argv[2]))
PY
exit $rc
