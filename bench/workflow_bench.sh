#!/usr/bin/env bash
# Side-by-side wall time and peak memory (GNU time -v) of kubectl-tfjob and kubectl, in one
# run on one machine:
#   1. `kubectl tfjob submit --dry-run=client -o yaml` vs `kubectl create deployment --dry-run=client -o yaml`
#   2. `kubectl tfjob get` vs `kubectl get tfjobs`, both against the standalone fake-apiserver
# Usage: bench/workflow_bench.sh [BUILD_DIR] [RUNS]   (writes bench/results/workflow.md)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${1:-build}
RUNS=${2:-20}
. bench/lib.sh
bench_tools "$BUILD_DIR"

TMP=$(mktemp -d)
FAKE_PID=""
cleanup() { [ -n "$FAKE_PID" ] && kill "$FAKE_PID" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$TMP"; }
trap cleanup EXIT

"$FAKE" --port 0 --kubeconfig-out "$TMP/kubeconfig" >"$TMP/fake.log" 2>&1 &
FAKE_PID=$!
for _ in $(seq 100); do [ -s "$TMP/kubeconfig" ] && break; sleep 0.1; done
[ -s "$TMP/kubeconfig" ] || { echo "fake-apiserver did not start:"; cat "$TMP/fake.log"; exit 1; } >&2
export KUBECONFIG="$TMP/kubeconfig"

# 20 TFJobs to list
for i in $(seq 1 20); do
  "$PLUGIN" submit --name "bench-$i" --image tensorflow/tensorflow:2.15.0 --workers 2 --gpus 0 --dry-run=client -o yaml \
    | "$KUBECTL" apply --server-side --field-manager kubectl-tfjob -f - >/dev/null
done

# measure NAME CMD...: appends "name wall_s maxrss_kb" per run to $TMP/raw
measure() {
  local name=$1; shift
  "$@" >/dev/null 2>&1 || { echo "command failed: $*" >&2; "$@" >&2 || true; exit 1; }  # warm-up + check
  for _ in $(seq "$RUNS"); do
    # wall time from the clock around the run (GNU time's own figure has 10 ms steps);
    # peak memory from GNU time
    local start end wall rss
    start=$(date +%s%N)
    /usr/bin/time -v -o "$TMP/t" "$@" >/dev/null 2>"$TMP/err"
    end=$(date +%s%N)
    wall=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.6f", (b - a) / 1e9 }')
    rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$TMP/t")
    echo "$name $wall $rss" >>"$TMP/raw"
  done
}
: >"$TMP/raw"
measure tfjob_dry "$PLUGIN" submit mnist --dry-run=client -o yaml
measure kubectl_dry "$KUBECTL" create deployment x --image=y --dry-run=client -o yaml
measure tfjob_get "$PLUGIN" get
measure kubectl_get "$KUBECTL" get tfjobs

LOAD=$(cut -d' ' -f1-3 /proc/loadavg)
python3 - "$TMP/raw" "$RUNS" "$(uname -srm)" "$(nproc)" "$LOAD" "$("$KUBECTL" version --client -o json 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["clientVersion"]["gitVersion"])' 2>/dev/null || echo unknown)" >bench/results/workflow.md <<'PY'
import sys, statistics, datetime
raw, runs, uname, ncpu, load, kver = sys.argv[1:7]
def secs(s):
    return float(s)
data = {}
for line in open(raw):
    name, wall, rss = line.split()
    data.setdefault(name, ([], []))
    data[name][0].append(secs(wall)); data[name][1].append(int(rss))
def row(label, a, b):
    wa, wb = statistics.median(data[a][0]) * 1000, statistics.median(data[b][0]) * 1000
    ma, mb = statistics.median(data[a][1]) / 1024, statistics.median(data[b][1]) / 1024
    return f"| {label} | {wa:.1f} ms | {wb:.1f} ms | {wa/wb:.2f}× | {ma:.1f} MiB | {mb:.1f} MiB | {ma/mb:.2f}× |"
print("# Workflow benchmark: kubectl-tfjob vs kubectl\n")
print(f"One run of `bench/workflow_bench.sh`, {datetime.datetime.utcnow():%Y-%m-%d %H:%M} UTC, "
      f"{uname}, {ncpu} CPUs, load average {load} at the end, kubectl {kver}. Median of {runs} runs each "
      "(after one warm-up); wall time from the clock around each run (process start included), peak resident "
      "memory from GNU `time -v`. Ratio = kubectl-tfjob / kubectl (below 1 = faster / smaller).\n")
print("| command pair | kubectl-tfjob wall | kubectl wall | ratio | kubectl-tfjob RSS | kubectl RSS | ratio |")
print("|---|---|---|---|---|---|---|")
print(row("`tfjob submit mnist --dry-run=client -o yaml` vs `create deployment x --image=y --dry-run=client -o yaml`", "tfjob_dry", "kubectl_dry"))
print(row("`tfjob get` vs `get tfjobs` (20 TFJobs, fake-apiserver over loopback TLS)", "tfjob_get", "kubectl_get"))
print("\nThe two columns of a row were measured back to back; on a busy machine absolute figures move, the ratios much less.")
PY
cat bench/results/workflow.md
