#!/usr/bin/env bash
# Logs, side by side in one run against the standalone fake-apiserver (its kubelet serves
# synthetic lines "line NNNNNNNNNNNN ..." of 100 bytes):
#   1. plain read of a finished chief's log of LOG_MIB (default 256) MiB:
#      `kubectl tfjob logs JOB` vs `kubectl logs POD` vs curl on the same URL
#   2. every replica followed: REPLICAS (default 8) workers x PER_MIB (default 32) MiB,
#      `kubectl tfjob logs JOB --all -f` vs
#      `kubectl logs -f -l training.kubeflow.org/job-name=JOB --prefix --tail=-1 --max-log-requests 8`
# Each: wall time, CPU time (user+sys, GNU time), throughput, and a check that every line
# arrived exactly once (per replica, the synthetic indices 0..N-1 each once; the plain
# read byte-identical across the three). This is the fake's kubelet; the same bench
# against a real kubelet belongs to the real-node tier.
# Usage: bench/logs_bench.sh [BUILD_DIR] [RUNS]   (writes bench/results/logs.md)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${1:-build}
RUNS=${2:-3}
LOG_MIB=${LOG_MIB:-256}
PER_MIB=${PER_MIB:-32}
REPLICAS=${REPLICAS:-8}
. bench/lib.sh
bench_tools "$BUILD_DIR"

TMP=$(mktemp -d)
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$TMP"; }
trap cleanup EXIT

# start_fake NAME LINES: a fake-apiserver whose TFJob pods print LINES lines of 100 bytes
start_fake() {
  "$FAKE" --port 0 --kubeconfig-out "$TMP/$1.kubeconfig" --log-lines "$2" --log-line-bytes 100 \
    --job-pod-runtime 100 >"$TMP/$1.fake.log" 2>&1 &
  PIDS+=($!)
  for _ in $(seq 200); do [ -s "$TMP/$1.kubeconfig" ] && return 0; sleep 0.1; done
  echo "fake-apiserver did not start:" >&2; cat "$TMP/$1.fake.log" >&2; exit 1
}

# measure NAME CMD...: appends "name wall_s cpu_s bytes" per run to $TMP/raw; keeps the
# last run's stdout in $TMP/NAME.out
measure() {
  local name=$1; shift
  for _ in $(seq "$RUNS"); do
    local start end
    start=$(date +%s%N)
    /usr/bin/time -f "%U %S" -o "$TMP/t" "$@" >"$TMP/$name.out" 2>"$TMP/$name.err" || { echo "failed: $*" >&2; cat "$TMP/$name.err" >&2; exit 1; }
    end=$(date +%s%N)
    echo "$name $(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.6f", (b - a) / 1e9 }') $(awk '{ printf "%.3f", $1 + $2 }' "$TMP/t") $(stat -c %s "$TMP/$name.out")" >>"$TMP/raw"
  done
}
: >"$TMP/raw"

# ---- 1. plain read of one big log
PLAIN_LINES=$(( LOG_MIB * 1048576 / 101 ))
start_fake plain "$PLAIN_LINES"
export KUBECONFIG="$TMP/plain.kubeconfig"
"$PLUGIN" submit --name big --image tensorflow/tensorflow:2.15.0 --chief --workers 0 --gpus 0 --wait --timeout 10m >/dev/null 2>&1 \
  || "$PLUGIN" submit --name big --image tensorflow/tensorflow:2.15.0 --chief --gpus 0 --wait --timeout 10m >/dev/null
python3 - "$KUBECONFIG" "$TMP" <<'PY'
import base64, sys, yaml
kc = yaml.safe_load(open(sys.argv[1])); d = sys.argv[2]
cl = kc["clusters"][0]["cluster"]; us = [u for u in kc["users"] if "client-certificate-data" in u["user"]][0]["user"]
open(d + "/ca.pem", "wb").write(base64.b64decode(cl["certificate-authority-data"]))
open(d + "/cert.pem", "wb").write(base64.b64decode(us["client-certificate-data"]))
open(d + "/key.pem", "wb").write(base64.b64decode(us["client-key-data"]))
open(d + "/server", "w").write(cl["server"])
PY
URL="$(cat "$TMP/server")/api/v1/namespaces/default/pods/big-chief-0/log?container=tensorflow"
measure plain_tfjob "$PLUGIN" logs big
measure plain_kubectl "$KUBECTL" logs big-chief-0 -c tensorflow
measure plain_curl curl -sS --fail --cacert "$TMP/ca.pem" --cert "$TMP/cert.pem" --key "$TMP/key.pem" "$URL"
PLAIN_SAME=yes
cmp -s "$TMP/plain_tfjob.out" "$TMP/plain_curl.out" || PLAIN_SAME=no
cmp -s "$TMP/plain_kubectl.out" "$TMP/plain_curl.out" || PLAIN_SAME=no

# ---- 2. every replica followed
PER_LINES=$(( PER_MIB * 1048576 / 101 ))
start_fake all "$PER_LINES"
export KUBECONFIG="$TMP/all.kubeconfig"
"$PLUGIN" submit --name par --image tensorflow/tensorflow:2.15.0 --workers "$REPLICAS" --gpus 0 --wait --timeout 10m >/dev/null
measure all_tfjob "$PLUGIN" logs par --all -f -q --color never --max-log-requests "$REPLICAS"
# --tail=-1: with a selector kubectl shows only the last 10 lines of each pod by default
measure all_kubectl "$KUBECTL" logs -f -l training.kubeflow.org/job-name=par -c tensorflow --prefix --tail=-1 --max-log-requests "$REPLICAS"

# every replica's synthetic indices 0..N-1 exactly once (prefix "[worker-3] " or "[pod/par-worker-3/tensorflow] ")
check_all() {
  awk -v n="$PER_LINES" -v r="$REPLICAS" '
    { p = $1; if ($2 != "line") next; k = p SUBSEP $3; if (k in seen) dup++; seen[k] = 1; cnt[p]++ }
    END { bad = 0; np = 0; for (p in cnt) { np++; if (cnt[p] != n) bad++ }
          if (np != r || bad || dup) print "NO (replicas " np ", short " bad ", repeated " dup+0 ")"; else print "yes" }' "$1"
}
ALL_TFJOB_OK=$(check_all "$TMP/all_tfjob.out")
ALL_KUBECTL_OK=$(check_all "$TMP/all_kubectl.out")

LOAD=$(cut -d' ' -f1-3 /proc/loadavg)
KV=$("$KUBECTL" version --client -o json 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["clientVersion"]["gitVersion"])' 2>/dev/null || echo unknown)
python3 - "$TMP/raw" "$RUNS" "$(uname -srm)" "$(nproc)" "$LOAD" "$KV" "$PLAIN_SAME" "$ALL_TFJOB_OK" "$ALL_KUBECTL_OK" "$LOG_MIB" "$REPLICAS" "$PER_MIB" >bench/results/logs.md <<'PY'
import sys, statistics, datetime
raw, runs, uname, cpus, load, kv, same, ok_t, ok_k, log_mib, reps, per_mib = sys.argv[1:]
rows = {}
for line in open(raw):
    n, w, c, b = line.split()
    rows.setdefault(n, []).append((float(w), float(c), int(b)))
def med(n, i): return statistics.median(r[i] for r in rows[n])
def mbs(n): return rows[n][-1][2] / 1e6 / med(n, 0)
print("## Logs benchmarks (fake kubelet): kubectl-tfjob vs kubectl logs (and curl)\n")
print(f"{datetime.date.today()}, {uname}, {cpus} CPUs, load {load}, kubectl {kv}, median of {runs} runs. "
      "Server: the standalone fake-apiserver on loopback TLS (its kubelet, not a real one: the real-node run is the node tier's).\n")
print("| case | tool | bytes | wall s | MB/s | CPU s | ratio (wall, vs kubectl) | every line once |")
print("| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |")
for case, names, ok in ((f"plain read, chief log {log_mib} MiB", ["plain_tfjob", "plain_kubectl", "plain_curl"], {"plain_tfjob": same, "plain_kubectl": same, "plain_curl": "reference"}),
                        (f"--all -f, {reps} x {per_mib} MiB", ["all_tfjob", "all_kubectl"], {"all_tfjob": ok_t, "all_kubectl": ok_k})):
    base = med(names[1], 0)
    for n in names:
        tool = {"tfjob": "kubectl tfjob logs", "kubectl": "kubectl logs", "curl": "curl"}[n.split("_")[1]]
        print(f"| {case} | {tool} | {rows[n][-1][2]} | {med(n,0):.3f} | {mbs(n):.1f} | {med(n,1):.3f} | {med(n,0)/base:.2f} | {ok[n]} |")
print("\nratio < 1: faster than kubectl. Plain read: `kubectl tfjob logs JOB` asks without timestamps and writes the bytes as they come; "
      "`--all -f` asks with timestamps (to resume a broken stream by time) and prefixes each line.")
PY
cat bench/results/logs.md
