#!/usr/bin/env bash
# Peak memory (GNU time -v, maximum resident set size) and wall time of kubectl-tfjob and
# kubectl side by side, in one run, on big inputs (issue 21's resource bounds):
#   1. a 50 MB manifest (10,000 TFJobs): `tfjob submit -f --dry-run=client -o yaml` vs
#      `kubectl create -f --dry-run=client -o yaml`
#   2. a 50 MB manifest (100 TFJobs of 0.5 MB) submitted to the server: `tfjob submit -f` vs
#      `kubectl apply --server-side -f` (one run each, into two namespaces)
#   3. a 5,000-TFJob list: `tfjob get -A` vs `kubectl get tfjobs -A`
# Against the real kube-apiserver tier (tests/realapi/cluster.sh) when
# `tests/realapi/setup.sh --check` says it is built, else against fake-apiserver.
# Usage: bench/memory_bench.sh [BUILD_DIR] [RUNS]   (writes bench/results/memory.md)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${1:-build}
RUNS=${2:-3}
PLUGIN=$(cd "$BUILD_DIR" && pwd)/plugin/kubectl-tfjob
KUBECTL=$(command -v kubectl || true)
[ -x /usr/bin/time ] || { echo "GNU time is missing: apt-get install -y time" >&2; exit 1; }
[ -x "$PLUGIN" ] || { echo "build the plugin first: $PLUGIN" >&2; exit 1; }
[ -n "$KUBECTL" ] || { echo "kubectl is not on PATH" >&2; exit 1; }

if [ "${MEMORY_BENCH_INNER:-}" != 1 ]; then
  export MEMORY_BENCH_INNER=1 PLUGIN KUBECTL RUNS
  if bash tests/realapi/setup.sh --check >/dev/null 2>&1; then
    export MEMORY_BENCH_SERVER="the real kube-apiserver (tests/realapi/cluster.sh: Debian 12's kubernetes 1.20 source, etcd, the official TFJob CRD)"
    DIR=$(mktemp -d)
    trap 'rm -rf "$DIR"' EXIT
    exec_rc=0
    bash tests/realapi/cluster.sh run "$DIR" -- bash "$0" "$BUILD_DIR" "$RUNS" || exec_rc=$?
    exit "$exec_rc"
  fi
  FAKE=$(find "$BUILD_DIR" -type f -name fake-apiserver -perm -u+x | head -1)
  [ -n "$FAKE" ] || { echo "neither the real apiserver tier (tests/realapi/setup.sh) nor fake-apiserver is built" >&2; exit 1; }
  TMPF=$(mktemp -d)
  "$FAKE" --port 0 --no-controllers --kubeconfig-out "$TMPF/kubeconfig" >"$TMPF/fake.log" 2>&1 &
  FPID=$!
  trap 'kill $FPID 2>/dev/null; wait 2>/dev/null; rm -rf "$TMPF"' EXIT
  for _ in $(seq 100); do [ -s "$TMPF/kubeconfig" ] && break; sleep 0.1; done  # the file appears when it listens
  [ -s "$TMPF/kubeconfig" ] || { echo "fake-apiserver did not start:"; cat "$TMPF/fake.log"; exit 1; } >&2
  export KUBECONFIG=$TMPF/kubeconfig MEMORY_BENCH_SERVER="fake-apiserver (tests/support, no controllers)"
  bash "$0" "$BUILD_DIR" "$RUNS"
  exit $?
fi

# ---- inside: KUBECONFIG points at a server with the TFJob CRD --------------------------
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
CTX=()
[ -n "${TFJOB_TEST_CONTEXT_CERT:-}" ] && CTX=(--context "$TFJOB_TEST_CONTEXT_CERT")
P=("$PLUGIN" "${CTX[@]}")   # arrays, not functions: /usr/bin/time runs them
K=("$KUBECTL" "${CTX[@]}")

python3 - "$TMP" <<'PY'
import sys, json
tmp = sys.argv[1]
def job(name, ns, env_bytes=0, workers=2):
    env = [{"name": "EXTRA_%d" % i, "value": "v" * 200} for i in range(20)]
    if env_bytes:
        env = [{"name": "BLOB", "value": "x" * env_bytes}]
    c = {"name": "tensorflow", "image": "ghcr.io/kubectl-tfjob/mnist:v0.1.0",
         "command": ["python", "/opt/mnist.py", "--epochs", "5"], "env": env,
         "resources": {"requests": {"cpu": "1", "memory": "2Gi"}, "limits": {"memory": "4Gi"}}}
    spec = lambda n: {"replicas": n, "restartPolicy": "OnFailure", "template": {"spec": {"containers": [c]}}}
    m = {"name": name, "labels": {"app.kubernetes.io/part-of": "memory-bench"}}
    if ns: m["namespace"] = ns
    return {"apiVersion": "kubeflow.org/v1", "kind": "TFJob", "metadata": m,
            "spec": {"runPolicy": {"cleanPodPolicy": "None"}, "tfReplicaSpecs": {"Chief": spec(1), "Worker": spec(workers)}}}
def write(path, docs):
    # YAML as users write it: block style, one document per job (JSON is valid YAML flow
    # style, but that would spare both readers the YAML work)
    import yaml
    dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    with open(path, "w") as f:
        for d in docs:
            f.write("---\n"); f.write(yaml.dump(d, Dumper=dumper, sort_keys=False, width=1 << 30))
# 1. ~50 MB of ordinary jobs
write(tmp + "/client.yaml", [job("mem-%05d" % i, None) for i in range(10000)])
# 2. ~50 MB in 100 jobs of 0.5 MB (the apiserver takes objects up to ~1.5 MB: etcd's limit)
write(tmp + "/server.yaml", [job("big-%03d" % i, None, env_bytes=500000) for i in range(100)])
# 3. 5,000 jobs to list
write(tmp + "/list.yaml", [job("list-%04d" % i, "bench-list", workers=4) for i in range(5000)])
PY
for ns in bench-tfjob bench-kubectl bench-list; do "${K[@]}" create namespace "$ns" >/dev/null 2>&1 || true; done
size() { awk -v b="$(stat -c %s "$1")" 'BEGIN { printf "%.1f MB", b / 1e6 }'; }

# measure NAME N CMD...: N runs, "name wall_s maxrss_kb" per run to $TMP/raw
measure() {
  local name=$1 n=$2; shift 2
  for _ in $(seq "$n"); do
    local start end
    start=$(date +%s%N)
    if ! /usr/bin/time -v -o "$TMP/t" "$@" >/dev/null 2>"$TMP/err"; then
      echo "command failed: $*" >&2; tail -n 20 "$TMP/err" >&2; exit 1
    fi
    end=$(date +%s%N)
    echo "$name $(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.6f", (b - a) / 1e9 }') $(awk -F': ' '/Maximum resident set size/ {print $2}' "$TMP/t")" >>"$TMP/raw"
  done
}
: >"$TMP/raw"
measure tfjob_dry "$RUNS" "${P[@]}" submit -f "$TMP/client.yaml" --dry-run=client -o yaml
measure kubectl_dry "$RUNS" "${K[@]}" create -f "$TMP/client.yaml" --dry-run=client -o yaml
measure tfjob_server 1 "${P[@]}" submit -f "$TMP/server.yaml" -n bench-tfjob
measure kubectl_server 1 "${K[@]}" apply --server-side -f "$TMP/server.yaml" -n bench-kubectl
"${K[@]}" apply --server-side -f "$TMP/list.yaml" >/dev/null
# one run of each first, not counted: the server is still settling after the 5,000-job apply
# (its first lists here took 7.5 s where the next took 6), then the two tools alternate, so
# that neither is measured only in the server's busier or quieter moments
"${P[@]}" get -A >/dev/null 2>&1
"${K[@]}" get tfjobs -A >/dev/null 2>&1
for _ in $(seq "$RUNS"); do
  measure tfjob_get 1 "${P[@]}" get -A
  measure kubectl_get 1 "${K[@]}" get tfjobs -A
done
# both listed the same 5,000 jobs
[ "$("${P[@]}" get -A -o name | grep -c '/list-')" = 5000 ] || { echo "tfjob get -A did not list the 5,000 jobs" >&2; exit 1; }
[ "$("${K[@]}" get tfjobs -A -o name | grep -c '/list-')" = 5000 ] || { echo "kubectl get tfjobs -A did not list the 5,000 jobs" >&2; exit 1; }

python3 - "$TMP/raw" "$RUNS" "$(uname -srm)" "$(nproc)" "$(cut -d' ' -f1-3 /proc/loadavg)" \
  "$("${K[@]}" version --client -o json 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["clientVersion"]["gitVersion"])' 2>/dev/null || echo unknown)" \
  "$MEMORY_BENCH_SERVER" "$(size "$TMP/client.yaml")" "$(size "$TMP/server.yaml")" >bench/results/memory.md <<'PY'
import sys, statistics, datetime
raw, runs, uname, ncpu, load, kver, server, csize, ssize = sys.argv[1:10]
data = {}
for line in open(raw):
    name, wall, rss = line.split()
    data.setdefault(name, ([], []))
    data[name][0].append(float(wall)); data[name][1].append(int(rss))
def row(label, a, b):
    ma, mb = statistics.median(data[a][1]) / 1024, statistics.median(data[b][1]) / 1024
    wa, wb = statistics.median(data[a][0]), statistics.median(data[b][0])
    return f"| {label} | {ma:.1f} MiB | {mb:.1f} MiB | {ma/mb:.2f}× | {wa:.2f} s | {wb:.2f} s | {wa/wb:.2f}× |"
print("# Memory on big inputs: kubectl-tfjob vs kubectl\n")
print(f"One run of `bench/memory_bench.sh`, {datetime.datetime.utcnow():%Y-%m-%d %H:%M} UTC, {uname}, {ncpu} CPUs, "
      f"load average {load} at the end, kubectl {kver}, against {server}. Peak resident memory from GNU `time -v`, "
      f"wall time from the clock around each run; median of {runs} runs where it says so, else one run. "
      "Ratio = kubectl-tfjob / kubectl (below 1 = smaller / faster).\n")
print("| command pair | kubectl-tfjob peak RSS | kubectl peak RSS | ratio | kubectl-tfjob wall | kubectl wall | ratio |")
print("|---|---|---|---|---|---|---|")
print(row(f"`tfjob submit -f` vs `kubectl create -f`, `--dry-run=client -o yaml`, {csize} manifest (10,000 TFJobs), median of {runs}", "tfjob_dry", "kubectl_dry"))
print(row(f"`tfjob submit -f` vs `kubectl apply --server-side -f`, {ssize} manifest (100 TFJobs of 0.5 MB), one run", "tfjob_server", "kubectl_server"))
print(row(f"`tfjob get -A` vs `kubectl get tfjobs -A`, 5,000 TFJobs and the 200 of 0.5 MB sent above, median of {runs} alternating runs", "tfjob_get", "kubectl_get"))
print("\nThe two columns of a row were measured one after the other (`get -A`: the tools alternating, after a run of "
      "each not counted; both send the same requests, the server's Table, whose time is most of the wall time), under the load the figures' header gives (other "
      "builds on the same 2 cores: wall times move with it, peak memory much less). Both tools read a manifest a "
      "document at a time: kubectl-tfjob reads and parses it once, judging every job (nothing is printed or sent when "
      "one is wrong) and keeping each, defaults applied, in a spool (an unlinked temporary file: the page cache, not "
      "the process's memory), then prints or sends them from there (to the server, `workflow::apply_concurrency` jobs "
      "at a time: what it holds is the jobs in flight, each 0.5 MB here and twice that once its shared container is "
      "expanded). `get -A` decodes each page of the list into rows as it arrives.")
PY
cat bench/results/memory.md
