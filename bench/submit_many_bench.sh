#!/usr/bin/env bash
# Many documents sent to the server (issue 32, "Manifests stream"): `kubectl tfjob submit -f`
# of N TFJobs (workflow::apply_concurrency at once, each with its preflight) beside
# `kubectl apply --server-side -f` (one object after another) and `kubectl create -f`, on the
# real kube-apiserver only (tests/realapi/cluster.sh), each into a fresh namespace; wall
# time, peak memory (GNU time -v) and requests sent (-v 6: our "requests: N", kubectl's
# round-tripper lines); and the same manifests read without the server
# (`--dry-run=client -o yaml`, beside `kubectl create --dry-run=client -o yaml`), whose memory
# must stay flat as N grows (issue 32: within 20% from 1,000 to 5,000). Run it under the cluster lock:
#   flock /tmp/tfjob-cluster.lock bash bench/submit_many_bench.sh [BUILD_DIR] [RUNS]
# Writes bench/results/submit-many.md.  SUBMIT_MANY_N="100 1000 5000" overrides the sizes.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${1:-build}
RUNS=${2:-3}
# shellcheck source=bench/lib.sh
. bench/lib.sh
bench_on_real_apiserver "$0" "$BUILD_DIR" "$RUNS"

# ---- inside: KUBECONFIG points at the real kube-apiserver with the TFJob CRD ----------------
"${K[@]}" api-resources >/dev/null 2>&1 || true
SIZES=${SUBMIT_MANY_N:-"100 1000 5000"}

for n in $SIZES; do
  python3 - "$TMP/jobs-$n.yaml" "$n" <<'PY'
import sys
path, n = sys.argv[1], int(sys.argv[2])
with open(path, "w") as f:
    for i in range(n):
        f.write(f"""---
apiVersion: kubeflow.org/v1
kind: TFJob
metadata:
  name: many-{i:05d}
spec:
  runPolicy:
    cleanPodPolicy: None
  tfReplicaSpecs:
    Worker:
      replicas: 2
      restartPolicy: OnFailure
      template:
        spec:
          containers:
          - name: tensorflow
            image: tensorflow/tensorflow:2.20.0
            command: [python, -c, "print(1)"]
            resources:
              requests: {{cpu: "1", memory: 1Gi}}
              limits: {{memory: 2Gi}}
""")
PY
done

# measure NAME NS CMD...: one run into a fresh namespace NS (NS "-": none, no server); "name
# wall_s maxrss_kb requests" to $TMP/raw
measure() {
  local name=$1 ns=$2; shift 2
  local nsflag=()
  if [ "$ns" != - ]; then "${K[@]}" create namespace "$ns" >/dev/null; nsflag=(-n "$ns"); fi
  local start end
  start=$(date +%s%N)
  if ! /usr/bin/time -v -o "$TMP/t" "$@" "${nsflag[@]}" -v 6 >"$TMP/out" 2>"$TMP/err"; then
    echo "command failed: $*" >&2; tail -n 20 "$TMP/err" >&2; exit 1
  fi
  end=$(date +%s%N)
  local reqs
  reqs=$(grep -c -E '^requests: |round_trippers.go.*(GET|PATCH|POST|PUT|DELETE) https' "$TMP/err" || true)
  if grep -q '^requests: ' "$TMP/err"; then reqs=$(awk '/^requests: / {print $2}' "$TMP/err" | tail -1); fi
  echo "$name $(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.6f", (b - a) / 1e9 }') $(awk -F': ' '/Maximum resident set size/ {print $2}' "$TMP/t") $reqs" >>"$TMP/raw"
}
: >"$TMP/raw"
for n in $SIZES; do
  for r in $(seq "$RUNS"); do
    measure "tfjob_$n" "t-$n-$r" "${P[@]}" submit -f "$TMP/jobs-$n.yaml" --skip-gpu-check
    [ "$("${K[@]}" get tfjobs -n "t-$n-$r" -o name | wc -l)" = "$n" ] || { echo "tfjob submit did not create the $n jobs" >&2; exit 1; }
    measure "apply_$n" "a-$n-$r" "${K[@]}" apply --server-side -f "$TMP/jobs-$n.yaml"
    measure "create_$n" "c-$n-$r" "${K[@]}" create -f "$TMP/jobs-$n.yaml"
    measure "tfjobdry_$n" - "${P[@]}" submit -f "$TMP/jobs-$n.yaml" --dry-run=client -o yaml
    [ "$(grep -c '^kind: TFJob' "$TMP/out")" = "$n" ] || { echo "tfjob submit --dry-run=client did not print the $n jobs" >&2; exit 1; }
    measure "kubectldry_$n" - "${K[@]}" create -f "$TMP/jobs-$n.yaml" --dry-run=client -o yaml
  done
done

python3 - "$TMP/raw" "$RUNS" "$(uname -srm)" "$(nproc)" "$(cut -d' ' -f1-3 /proc/loadavg)" \
  "$("${K[@]}" version --client -o json 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["clientVersion"]["gitVersion"])' 2>/dev/null || echo unknown)" \
  "$SIZES" >bench/results/submit-many.md <<'PY'
import sys, statistics, datetime
raw, runs, uname, ncpu, load, kver, sizes = sys.argv[1:8]
data = {}
for line in open(raw):
    name, wall, rss, reqs = line.split()
    d = data.setdefault(name, ([], [], []))
    d[0].append(float(wall)); d[1].append(int(rss)); d[2].append(int(reqs))
med = lambda name, k: statistics.median(data[name][k])
print("# Many documents: `submit -f` vs `kubectl apply -f` and `kubectl create -f`\n")
print(f"One run of `bench/submit_many_bench.sh`, {datetime.datetime.utcnow():%Y-%m-%d %H:%M} UTC, {uname}, {ncpu} CPUs, "
      f"load average {load} at the end, kubectl {kver}, against the real kube-apiserver (tests/realapi/cluster.sh). "
      f"Median of {runs} runs, each into a fresh namespace; wall time from the clock around the run, peak resident "
      "memory from GNU `time -v`, requests from `-v 6` (ours: `requests: N`; kubectl: its round-tripper lines). "
      "kubectl-tfjob reads and parses the manifest once, judging every job and keeping each in a spool (an "
      "unlinked temporary file), then reads what is the same for every job once (discovery, the namespace, the "
      "access review, the nodes), then per job its GET and its server-side apply, 8 jobs at a time (and lints each); kubectl "
      "sends one PATCH (apply) or POST (create) per object, one after another. The machine's 2 CPUs serve "
      "etcd and kube-apiserver as well: at the larger N the server is the bottleneck for both tools. Ratio = kubectl-tfjob / kubectl.\n")
print("| N TFJobs | `tfjob submit -f` wall | `kubectl apply --server-side -f` wall | ratio | `kubectl create -f` wall | ratio | tfjob RSS | apply RSS | ratio | tfjob requests | apply requests |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
for n in sizes.split():
    t, a, c = f"tfjob_{n}", f"apply_{n}", f"create_{n}"
    print(f"| {n} | {med(t,0):.2f} s | {med(a,0):.2f} s | {med(t,0)/med(a,0):.2f}× | {med(c,0):.2f} s | {med(t,0)/med(c,0):.2f}× | "
          f"{med(t,1)/1024:.1f} MiB | {med(a,1)/1024:.1f} MiB | {med(t,1)/med(a,1):.2f}× | {med(t,2):.0f} | {med(a,2):.0f} |")
print("\nThe same manifests without the server: `tfjob submit -f --dry-run=client -o yaml` vs `kubectl create -f "
      "--dry-run=client -o yaml` (both read, convert and print a document at a time).\n")
print("| N TFJobs | `tfjob` wall | `kubectl` wall | ratio | `tfjob` peak RSS | `kubectl` peak RSS | ratio |")
print("|---|---|---|---|---|---|---|")
ns = sizes.split()
for n in ns:
    t, k = f"tfjobdry_{n}", f"kubectldry_{n}"
    print(f"| {n} | {med(t,0):.2f} s | {med(k,0):.2f} s | {med(t,0)/med(k,0):.2f}× | {med(t,1)/1024:.1f} MiB | {med(k,1)/1024:.1f} MiB | {med(t,1)/med(k,1):.2f}× |")
if len(ns) >= 2:
    a, b = ns[-2], ns[-1]
    g = lambda name, k: med(f"{name}_{b}", k) / med(f"{name}_{a}", k)
    print(f"\nFrom {int(a):,} to {int(b):,} TFJobs ({int(b) / int(a):.0f}×): `submit -f` to the server, time {g('tfjob', 0):.2f}× "
          f"(kubectl apply {g('apply', 0):.2f}×), peak RSS {100 * (g('tfjob', 1) - 1):+.0f}% (kubectl apply {100 * (g('apply', 1) - 1):+.0f}%); "
          f"`--dry-run=client`, time {g('tfjobdry', 0):.2f}× (kubectl {g('kubectldry', 0):.2f}×), peak RSS "
          f"{100 * (g('tfjobdry', 1) - 1):+.0f}% (kubectl {100 * (g('kubectldry', 1) - 1):+.0f}%).")
PY
cat bench/results/submit-many.md
