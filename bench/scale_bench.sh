#!/usr/bin/env bash
# What a command costs as the cluster grows (issue 32): kubectl-tfjob beside kubectl on the
# real kube-apiserver, at 100, 1,000 and 5,000 TFJobs in one namespace and at 500 and 2,000
# GPU nodes with 10 pods each, for
#   get -A (table and -o json)         vs kubectl get tfjobs -A [-o json]
#   describe / explain of one job      vs kubectl describe tfjob + kubectl describe pods -l
#     (what a user runs to see what describe shows: the job, its pods, the events of each; in a
#     namespace crowded with the other jobs, a pod and an event of each) and, for reference,
#     kubectl describe tfjob alone (the job's own events only)
#   top node, gpu-check --inventory    vs kubectl get nodes -o json + kubectl get pods -A (those
#                                         that hold resources) -o json: what a script that adds up
#                                         the GPUs held per node reads (kubectl top node needs
#                                         metrics-server and counts no GPU; kubectl describe nodes
#                                         asks 4 requests per node under its client-side rate
#                                         limit: 512 s at 500 nodes, BENCHMARKS.md)
# each with wall time, peak memory (GNU time -v), the requests it sent (-v 6 for both tools:
# our "requests: N", kubectl's round-tripper lines) and, for -o json, the bytes written.
# Nodes and pods are created through the API (nvidia.com/gpu capacity, pods bound with
# nodeName); no kubelet runs. Needs the real-apiserver tier (tests/realapi/setup.sh).
# Usage: bench/scale_bench.sh [BUILD_DIR] [RUNS]   (writes bench/results/scale.md)
#   SCALE_JOBS="100 1000 5000"  SCALE_NODES="500 2000"  override the sizes (" ": none)
#   SCALE_KEEP=DIR  keeps each -v 6 run's stderr there (the requests and their times)
#   SCALE_ONLY=watch  measures only the get -A --watch rows (table, -o wide, -o json) at SCALE_JOBS
#   SCALE_BASE=PLUGIN  measures those watch rows with another build of the plugin too (before/after)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${1:-build}
RUNS=${2:-3}
# shellcheck source=bench/lib.sh
. bench/lib.sh
bench_on_real_apiserver "$0" "$BUILD_DIR" "$RUNS"

# ---- inside: KUBECONFIG points at the real kube-apiserver with the TFJob CRD ----------------
NS=bench-crowd
"${K[@]}" create namespace "$NS" >/dev/null

# load KIND FROM TO [NODES]: objects created through the API on one keep-alive connection
# (kubectl create -f would take minutes for 20,000 pods): jobs FROM..TO-1 with a pod and an
# event each in $NS, or nodes FROM..TO-1 with 10 GPU pods each in namespace bench-gpu-<n%20>
load() {
  python3 - "$@" <<'PY'
import http.client, json, os, ssl, sys
kind, lo, hi = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
srv = os.environ["TFJOB_REALAPI_SERVER"].split("//")[1]
ctx = ssl.create_default_context(cafile=os.environ["TFJOB_REALAPI_CA"])
ctx.load_cert_chain(os.environ["TFJOB_REALAPI_ADMIN_CERT"], os.environ["TFJOB_REALAPI_ADMIN_KEY"])
conn = http.client.HTTPSConnection(srv, context=ctx)
def call(method, path, body, ctype="application/json"):
    global conn
    for attempt in range(5):
        try:
            conn.request(method, path, json.dumps(body), {"Content-Type": ctype})
            r = conn.getresponse(); data = r.read()
            if r.status >= 300 and r.status != 409:
                raise SystemExit(f"{method} {path}: {r.status} {data[:300]!r}")
            return json.loads(data) if data else {}
        except (http.client.HTTPException, OSError):
            conn.close(); conn = http.client.HTTPSConnection(srv, context=ctx)
    raise SystemExit(f"{method} {path}: no answer")
now = "2024-01-01T00:00:00Z"
env = [{"name": "EXTRA_%d" % i, "value": "v" * 200} for i in range(20)]  # as memory_bench.sh's jobs
def container(gpus):
    return {"name": "tensorflow", "image": "ghcr.io/kubectl-tfjob/mnist:v0.1.0",
            "command": ["python", "/opt/mnist.py", "--epochs", "5"], "env": env,
            "resources": {"limits": {"nvidia.com/gpu": str(gpus)}, "requests": {"cpu": "1", "memory": "2Gi"}}}
def event(about, ns, n):
    md = about["metadata"]
    return {"apiVersion": "v1", "kind": "Event", "metadata": {"name": "%s.%x" % (md["name"], n), "namespace": ns},
            "involvedObject": {"apiVersion": about["apiVersion"], "kind": about["kind"], "name": md["name"],
                               "namespace": ns, "uid": md["uid"]},
            "reason": "SuccessfulCreatePod" if about["kind"] == "TFJob" else "Started",
            "message": "Created pod: %s-chief-0" % md["name"] if about["kind"] == "TFJob" else "Started container tensorflow",
            "type": "Normal", "source": {"component": "tfjob-controller"}, "firstTimestamp": now, "lastTimestamp": now, "count": 1}
def pod(ns, name, job, node, gpus):
    labels = {"training.kubeflow.org/job-name": job, "training.kubeflow.org/replica-type": "chief",
              "training.kubeflow.org/replica-index": "0", "training.kubeflow.org/job-role": "master",
              "training.kubeflow.org/operator-name": "tfjob-controller"}
    p = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": ns, "labels": labels},
         "spec": {"restartPolicy": "Never", "containers": [container(gpus)]}}
    if node: p["spec"]["nodeName"] = node
    return p
if kind == "jobs":
    ns = sys.argv[4]
    for i in range(lo, hi):
        name = "job-%05d" % i
        spec = lambda n: {"replicas": n, "restartPolicy": "OnFailure", "template": {"spec": {"containers": [container(1)]}}}
        j = call("POST", f"/apis/kubeflow.org/v1/namespaces/{ns}/tfjobs",
                 {"apiVersion": "kubeflow.org/v1", "kind": "TFJob", "metadata": {"name": name, "namespace": ns},
                  "spec": {"runPolicy": {"cleanPodPolicy": "None"}, "tfReplicaSpecs": {"Chief": spec(1), "Worker": spec(4)}}})
        call("PATCH", f"/apis/kubeflow.org/v1/namespaces/{ns}/tfjobs/{name}/status",
             {"status": {"conditions": [{"type": "Created", "status": "True", "reason": "TFJobCreated", "lastUpdateTime": now, "lastTransitionTime": now},
                                        {"type": "Running", "status": "True", "reason": "TFJobRunning", "lastUpdateTime": now, "lastTransitionTime": now}],
                         "replicaStatuses": {"Chief": {"active": 1}, "Worker": {"active": 4}}, "startTime": now}},
             "application/merge-patch+json")
        p = call("POST", f"/api/v1/namespaces/{ns}/pods", pod(ns, name + "-chief-0", name, "", 1))
        if j.get("metadata"): call("POST", f"/api/v1/namespaces/{ns}/events", event(j, ns, i))
        if p.get("metadata"): call("POST", f"/api/v1/namespaces/{ns}/events", event(p, ns, i))
else:
    for i in range(lo, hi):
        name = "gpu-node-%05d" % i
        call("POST", "/api/v1/nodes", {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": {
            "kubernetes.io/hostname": name, "nvidia.com/gpu.present": "true", "nvidia.com/gpu.count": "8",
            "nvidia.com/gpu.product": "Tesla-V100-SXM2-16GB", "nvidia.com/gpu.family": "volta",
            "nvidia.com/gpu.compute.major": "7", "nvidia.com/gpu.compute.minor": "0",
            "nvidia.com/cuda.driver.major": "550", "nvidia.com/cuda.driver.minor": "54"}}, "spec": {}})
        call("PATCH", f"/api/v1/nodes/{name}/status", {"status": {
            "capacity": {"cpu": "64", "memory": "500Gi", "pods": "110", "nvidia.com/gpu": "8"},
            "allocatable": {"cpu": "63", "memory": "490Gi", "pods": "110", "nvidia.com/gpu": "8"},
            "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady", "lastHeartbeatTime": now, "lastTransitionTime": now}]}},
            "application/merge-patch+json")
        call("PATCH", f"/api/v1/nodes/{name}", {"spec": {"taints": None}}, "application/merge-patch+json")
        ns = "bench-gpu-%02d" % (i % 20)
        for k in range(10):
            call("POST", f"/api/v1/namespaces/{ns}/pods", pod(ns, "%s-p%d" % (name, k), "gjob-%05d-%d" % (i, k), name, 1 if k < 8 else 0))
PY
}

# measure NAME CMD...: RUNS runs; per run "NAME wall_s maxrss_kb user_s sys_s requests out_bytes" to $TMP/raw.
# The last run is made with -v 6 added (requests counted; its time not kept).
measure() {
  local name=$1; shift
  for _ in $(seq "$RUNS"); do
    local start end
    start=$(date +%s%N)
    if ! /usr/bin/time -v -o "$TMP/t" "$@" >"$TMP/out" 2>"$TMP/err" && [ -z "${ANY_EXIT:-}" ]; then
      echo "command failed: $*" >&2; tail -n 20 "$TMP/err" >&2; exit 1
    fi
    end=$(date +%s%N)
    local wall rss user sys bytes
    wall=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.6f", (b - a) / 1e9 }')
    rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$TMP/t")
    user=$(awk -F': ' '/User time/ {print $2}' "$TMP/t"); sys=$(awk -F': ' '/System time/ {print $2}' "$TMP/t")
    bytes=$(stat -c %s "$TMP/out")
    echo "$name $wall $rss $user $sys - $bytes" >>"$TMP/raw"
  done
  "$@" -v 6 >/dev/null 2>"$TMP/v6" || true
  if [ -n "${SCALE_KEEP:-}" ]; then mkdir -p "$SCALE_KEEP" && cp "$TMP/v6" "$SCALE_KEEP/$name.v6"; fi  # each request's time, to read
  local n
  if [ "$1" = "$PLUGIN" ] || [ "$1" = "${SCALE_BASE:-}" ]; then
    n=$(sed -n 's/^requests: \([0-9]*\)$/\1/p' "$TMP/v6" | tail -1)
  else  # kubectl -v 6: one round_trippers line per answered request
    n=$(grep -cE 'round_trippers.*("Response"|(GET|POST|PUT|PATCH|DELETE) https)' "$TMP/v6" || true)
  fi
  echo "$name-requests $n" >>"$TMP/req"
}
: >"$TMP/raw"; : >"$TMP/req"
"${K[@]}" get tfjobs -A >/dev/null 2>&1 || true  # warm kubectl's discovery cache

# kubectl's way to what describe shows: the job and its events, then its pods and theirs (the
# operator's job-name label); its arguments are kubectl and its global flags
cat >"$TMP/kubectl-job-and-pods" <<SH
#!/usr/bin/env bash
"\$@" describe tfjob job-00042 -n $NS && "\$@" describe pods -l training.kubeflow.org/job-name=job-00042 -n $NS
SH
chmod +x "$TMP/kubectl-job-and-pods"
have=0
for n in ${SCALE_JOBS:-100 1000 5000}; do
  echo "== $n TFJobs" >&2
  load jobs "$have" "$n" "$NS"
  have=$n
  if [ "${SCALE_ONLY:-}" != watch ]; then
    measure "tfjob-get-$n" "${P[@]}" get -A
    measure "kubectl-get-$n" "${K[@]}" get tfjobs -A
    measure "tfjob-json-$n" "${P[@]}" get -A -o json
    measure "kubectl-json-$n" "${K[@]}" get tfjobs -A -o json
    measure "tfjob-describe-$n" "${P[@]}" describe job-00042 -n "$NS"
    measure "kubectl-describe-$n" "${K[@]}" describe tfjob job-00042 -n "$NS"
    measure "kubectl-jobpods-$n" "$TMP/kubectl-job-and-pods" "${K[@]}"
    grep -q 'job-00042-chief-0' "$TMP/out" || { echo "kubectl describe pods did not show the job's pod" >&2; exit 1; }
    measure "tfjob-explain-$n" "${P[@]}" explain job-00042 -n "$NS"
  fi
  # a watch's first list and 5 s of watching (kubectl's --request-timeout ends its watch with an error: any exit),
  # as a table; -o wide and -o json (each job a document, as kubectl's watch prints them) read
  # whole jobs, whose first list takes longer: 15 s, so that every job is printed
  ANY_EXIT=1 measure "tfjob-watch-$n" "${P[@]}" get -A --watch --request-timeout 5s
  ANY_EXIT=1 measure "kubectl-watch-$n" "${K[@]}" get tfjobs -A --watch --request-timeout 5s
  ANY_EXIT=1 measure "tfjob-watchwide-$n" "${P[@]}" get -A --watch -o wide --request-timeout 15s
  ANY_EXIT=1 measure "kubectl-watchwide-$n" "${K[@]}" get tfjobs -A --watch -o wide --request-timeout 15s
  ANY_EXIT=1 measure "tfjob-watchjson-$n" "${P[@]}" get -A --watch -o json --request-timeout 15s
  [ "$(grep -c '^    "kind": "TFJob"' "$TMP/out")" = "$n" ] || { echo "get -A --watch -o json did not print the $n jobs" >&2; exit 1; }
  ANY_EXIT=1 measure "kubectl-watchjson-$n" "${K[@]}" get tfjobs -A --watch -o json --request-timeout 15s
  if [ -n "${SCALE_BASE:-}" ]; then
    B=("$SCALE_BASE" --context "$TFJOB_TEST_CONTEXT_CERT")
    ANY_EXIT=1 measure "base-watch-$n" "${B[@]}" get -A --watch --request-timeout 5s
    ANY_EXIT=1 measure "base-watchwide-$n" "${B[@]}" get -A --watch -o wide --request-timeout 15s
    ANY_EXIT=1 measure "base-watchjson-$n" "${B[@]}" get -A --watch -o json --request-timeout 15s
  fi
  [ "$("${P[@]}" get -A -o name | grep -c '/job-')" = "$n" ] || { echo "get -A did not list the $n jobs" >&2; exit 1; }
done
# kubectl's way to the GPUs held per node: the nodes, and the pods that hold resources (the
# field selector of kubectl describe node's "Allocated resources"), as JSON for a script to add
# up; its arguments are kubectl and its global flags (and -v 6 for the requests run)
cat >"$TMP/kubectl-gpu-use" <<'SH'
#!/usr/bin/env bash
"$@" get nodes -o json && "$@" get pods -A --field-selector=status.phase!=Succeeded,status.phase!=Failed -o json
SH
chmod +x "$TMP/kubectl-gpu-use"
for ns in $(seq -f 'bench-gpu-%02g' 0 19); do "${K[@]}" create namespace "$ns" >/dev/null; done
have=0
[ "${SCALE_ONLY:-}" = watch ] && SCALE_NODES=" "
for m in ${SCALE_NODES:-500 2000}; do
  echo "== $m GPU nodes, $((m * 10)) pods" >&2
  load nodes "$have" "$m"
  have=$m
  measure "tfjob-topnode-$m" "${P[@]}" top node --no-metrics
  measure "kubectl-nodespods-$m" "$TMP/kubectl-gpu-use" "${K[@]}"
  measure "tfjob-inventory-$m" "${P[@]}" gpu-check --inventory
  [ "$("${P[@]}" top node --no-metrics -o json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["nodes"]))')" -ge "$m" ] ||
    { echo "top node did not see the $m GPU nodes" >&2; exit 1; }
done

kver=$("${K[@]}" version --client -o json 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["clientVersion"]["gitVersion"])' 2>/dev/null || echo unknown)
python3 - "$TMP/raw" "$TMP/req" "$RUNS" "$(uname -srm)" "$(nproc)" "$(cut -d' ' -f1-3 /proc/loadavg)" "$kver" \
  "${TFJOB_REALAPI_SERVER_VERSION:-}" "${SCALE_JOBS:-100 1000 5000}" "${SCALE_NODES:-500 2000}" >bench/results/scale.md <<'PY'
import sys, statistics, datetime
raw, reqf, runs, uname, ncpu, load, kver, sver, jobs, nodes = sys.argv[1:11]
jobs = [int(x) for x in jobs.split()]; nodes = [int(x) for x in nodes.split()]
data, req = {}, {}
for line in open(raw):
    name, wall, rss, user, sys_, _, nbytes = line.split()
    d = data.setdefault(name, {"wall": [], "rss": [], "cpu": [], "bytes": []})
    d["wall"].append(float(wall)); d["rss"].append(int(rss) / 1024); d["cpu"].append(float(user) + float(sys_)); d["bytes"].append(int(nbytes))
for line in open(reqf):
    parts = line.split()
    req[parts[0][:-len("-requests")]] = parts[1] if len(parts) > 1 else "?"
med = lambda name, k: statistics.median(data[name][k])
def growth(prefix, sizes, k):
    if len(sizes) < 2 or any(f"{prefix}-{n}" not in data for n in sizes[-2:]): return "-"
    a, b = med(f"{prefix}-{sizes[-2]}", k), med(f"{prefix}-{sizes[-1]}", k)
    return f"{b / a:.2f}× per {sizes[-1] / sizes[-2]:.0f}×" if a else "-"
out = []
out.append("# Scale: kubectl-tfjob vs kubectl as the cluster grows (issue 32)\n")
out.append(f"`bench/scale_bench.sh`, {datetime.datetime.utcnow():%Y-%m-%d %H:%M} UTC, {uname}, {ncpu} CPUs, load average {load} at the end, "
           f"kubectl {kver}, against the real kube-apiserver {sver} (tests/realapi/cluster.sh: Debian 12's kubernetes source, etcd, the "
           f"official TFJob CRD). Median of {runs} runs each; peak resident memory from GNU `time -v`; requests from a further run "
           "with `-v 6` (ours: its last line `requests: N`; kubectl: its round-tripper lines). Each TFJob is about 10 KB "
           "(a Chief and 4 Workers, 20 environment variables of 200 bytes each, as in the memory benchmark); the namespace "
           "holds every job, one pod and two events per job. GPU nodes have 8 `nvidia.com/gpu` each and 10 pods bound to them "
           "(8 asking for a GPU), created through the API; no kubelet runs.\n")
def table(title, rows, sizes, unit):
    out.append(f"\n### {title}\n")
    out.append(f"| command | {unit} | wall | kubectl wall | ratio | peak RSS | kubectl peak RSS | ratio | CPU s | kubectl CPU s | requests | kubectl requests |")
    out.append("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for label, ours, theirs in rows:
        for n in sizes:
            a, b = f"{ours}-{n}", (f"{theirs}-{n}" if theirs else None)
            if a not in data: continue
            wa, ra, ca = med(a, "wall"), med(a, "rss"), med(a, "cpu")
            if b and b in data:
                wb, rb, cb = med(b, "wall"), med(b, "rss"), med(b, "cpu")
                out.append(f"| {label} | {n:,} | {wa:.2f} s | {wb:.2f} s | {wa / wb:.2f}× | {ra:.1f} MiB | {rb:.1f} MiB | {ra / rb:.2f}× | "
                           f"{ca:.2f} | {cb:.2f} | {req.get(a, '?')} | {req.get(b, '?')} |")
            else:
                out.append(f"| {label} | {n:,} | {wa:.2f} s | - | - | {ra:.1f} MiB | - | - | {ca:.2f} | - | {req.get(a, '?')} | - |")
table("TFJobs in one namespace", [
    ("`tfjob get -A` vs `kubectl get tfjobs -A`", "tfjob-get", "kubectl-get"),
    ("`tfjob get -A -o json` vs `kubectl get tfjobs -A -o json`", "tfjob-json", "kubectl-json"),
    ("`tfjob describe JOB` vs `kubectl describe tfjob JOB` + `kubectl describe pods -l` (the same: the job, its pods, their events)", "tfjob-describe", "kubectl-jobpods"),
    ("`tfjob explain JOB` vs `kubectl describe tfjob JOB` + `kubectl describe pods -l`", "tfjob-explain", "kubectl-jobpods"),
    ("`tfjob describe JOB` vs `kubectl describe tfjob JOB` alone (the job's own events only: less than describe shows)", "tfjob-describe", "kubectl-describe"),
    ("`tfjob get -A --watch` vs `kubectl get tfjobs -A --watch`, 5 s (`--request-timeout`)", "tfjob-watch", "kubectl-watch"),
    ("`tfjob get -A --watch -o wide` vs `kubectl get tfjobs -A --watch -o wide`, 15 s", "tfjob-watchwide", "kubectl-watchwide"),
    ("`tfjob get -A --watch -o json` vs `kubectl get tfjobs -A --watch -o json`, 15 s", "tfjob-watchjson", "kubectl-watchjson"),
    ("the same, `SCALE_BASE`'s build: `get -A --watch` vs kubectl's, 5 s", "base-watch", "kubectl-watch"),
    ("the same, `SCALE_BASE`'s build: `get -A --watch -o wide` vs kubectl's, 15 s", "base-watchwide", "kubectl-watchwide"),
    ("the same, `SCALE_BASE`'s build: `get -A --watch -o json` vs kubectl's, 15 s", "base-watchjson", "kubectl-watchjson")],
      jobs, "TFJobs")
table("GPU nodes, 10 pods each", [
    ("`tfjob top node` vs `kubectl get nodes` + `get pods -A` (-o json)", "tfjob-topnode", "kubectl-nodespods"),
    ("`tfjob gpu-check --inventory` vs `kubectl get nodes` + `get pods -A` (-o json)", "tfjob-inventory", "kubectl-nodespods")], nodes, "GPU nodes")
out.append("\n### Growth and bytes\n")
out.append("| what | kubectl-tfjob | kubectl |")
out.append("|---|---|---|")
for label, ours, theirs, sizes in [("`get -A` peak RSS", "tfjob-get", "kubectl-get", jobs), ("`get -A` wall", "tfjob-get", "kubectl-get", jobs),
                                   ("`get -A -o json` peak RSS", "tfjob-json", "kubectl-json", jobs),
                                   ("`get -A --watch` peak RSS", "tfjob-watch", "kubectl-watch", jobs),
                                   ("`get -A --watch -o wide` peak RSS", "tfjob-watchwide", "kubectl-watchwide", jobs),
                                   ("`get -A --watch -o json` peak RSS", "tfjob-watchjson", "kubectl-watchjson", jobs),
                                   ("`describe` wall", "tfjob-describe", "kubectl-jobpods", jobs),
                                   ("`top node` peak RSS", "tfjob-topnode", "kubectl-nodespods", nodes),
                                   ("`top node` wall", "tfjob-topnode", "kubectl-nodespods", nodes)]:
    k = "rss" if "RSS" in label else "wall"
    out.append(f"| {label}, growth | {growth(ours, sizes, k)} | {growth(theirs, sizes, k)} |")
if len(jobs) >= 2 and all(f"tfjob-get-{n}" in data for n in jobs[-2:]):
    a, b = med(f"tfjob-get-{jobs[-2]}", "rss"), med(f"tfjob-get-{jobs[-1]}", "rss")
    out.append(f"| `get -A` peak RSS from {jobs[-2]:,} to {jobs[-1]:,} jobs | {100 * (b / a - 1):+.0f}% | |")
for n in jobs:
    a, b = f"tfjob-json-{n}", f"kubectl-json-{n}"
    if a in data and b in data:
        out.append(f"| `-o json` bytes at {n:,} jobs | {med(a, 'bytes'):,.0f} ({med(a, 'bytes') / med(b, 'bytes'):.3f}×) | {med(b, 'bytes'):,.0f} |")
# issue 32's bar, row by row: at the largest size time <= kubectl's and peak memory <= 0.5x
# kubectl's; a list's peak memory flat from 1,000 to the largest (within 20%); the requests
# for one job the same whatever the number of others
out.append("\n### The bar (issue 32)\n")
out.append("| command | at | time <= kubectl's | peak RSS <= 0.5x kubectl's | memory flat in N (within 20%) | requests independent of N |")
out.append("|---|---|---|---|---|---|")
yes = lambda ok: "holds" if ok else "**misses**"
for label, ours, theirs, sizes, is_list, one_job in [
        ("`get -A`", "tfjob-get", "kubectl-get", jobs, True, False),
        ("`get -A -o json`", "tfjob-json", "kubectl-json", jobs, True, False),
        ("`describe JOB` (vs `kubectl describe tfjob` + `describe pods -l`)", "tfjob-describe", "kubectl-jobpods", jobs, False, True),
        ("`explain JOB` (vs the same pair)", "tfjob-explain", "kubectl-jobpods", jobs, False, True),
        ("`get -A --watch`, 5 s", "tfjob-watch", "kubectl-watch", jobs, True, False),
        ("`get -A --watch -o wide`, 15 s", "tfjob-watchwide", "kubectl-watchwide", jobs, True, False),
        ("`get -A --watch -o json`, 15 s", "tfjob-watchjson", "kubectl-watchjson", jobs, True, False),
        ("`top node`", "tfjob-topnode", "kubectl-nodespods", nodes, True, False),
        ("`gpu-check --inventory`", "tfjob-inventory", "kubectl-nodespods", nodes, True, False)]:
    have = [n for n in sizes if f"{ours}-{n}" in data]
    if not have: continue
    n = have[-1]
    a, b = f"{ours}-{n}", f"{theirs}-{n}"
    if b in data:
        tr, rr = med(a, "wall") / med(b, "wall"), med(a, "rss") / med(b, "rss")
        t, r = f"{yes(tr <= 1)} ({tr:.2f}×)", f"{yes(rr <= 0.5)} ({rr:.2f}×)"
    else:
        t = r = "-"
    flat = "-"
    if is_list:
        lo = [m for m in have if m >= 1000 and m < n] if sizes is jobs else have[:-1]
        if lo:
            g = med(a, "rss") / med(f"{ours}-{lo[0]}", "rss")
            flat = f"{yes(g <= 1.2)} ({100 * (g - 1):+.0f}% from {lo[0]:,})"
    reqs = "-"
    if one_job:
        rs = [req.get(f"{ours}-{m}", "?") for m in have]
        reqs = f"{yes(len(set(rs)) == 1)} ({', '.join(rs)})"
    out.append(f"| {label} | {n:,} | {t} | {r} | {flat} | {reqs} |")
print("\n".join(out))
PY
cat bench/results/scale.md
