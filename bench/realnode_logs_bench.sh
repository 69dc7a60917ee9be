#!/usr/bin/env bash
# The chief's log through the real kubelet (tests/realnode/), side by side in one run:
# `kubectl tfjob logs JOB` vs `kubectl logs POD` vs `curl` on the same API path
# (/api/v1/namespaces/NS/pods/POD/log?container=tensorflow), for a chief that wrote
# SIZE_MIB MiB (default 256) of 100-byte lines. Each reader's bytes must equal the others'.
# Brings a node up (and down) unless TFJOB_REALNODE_DIR names one that is up.
#   bench/realnode_logs_bench.sh [BUILD_DIR] [RUNS] [SIZE_MIB]   (writes bench/results/realnode.md)
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$PWD
BUILD_DIR=$(cd "${1:-build}" && pwd)
RUNS=${2:-3}
SIZE_MIB=${3:-256}
PLUGIN="$BUILD_DIR/plugin/kubectl-tfjob"
[ -x "$PLUGIN" ] || { echo "build the plugin first: $PLUGIN" >&2; exit 1; }
NODE_SH="$REPO/tests/realnode/node.sh"

if [ "${_RN_INSIDE:-}" != 1 ]; then
  DIR=${TFJOB_REALNODE_DIR:-}
  own=0
  if [ -z "$DIR" ] || [ ! -f "$DIR/env" ]; then
    DIR=${DIR:-$BUILD_DIR/tests/realnode-bench}
    own=1
    TFJOB_REALNODE_HELLO=${TFJOB_REALNODE_HELLO:-$BUILD_DIR/samples/hello-tfjob/hello-tfjob} \
    TFJOB_REALNODE_TFSERVING=${TFJOB_REALNODE_TFSERVING:-$BUILD_DIR/tests/tfserving-standin} \
    TFJOB_REALNODE_DCGM=${TFJOB_REALNODE_DCGM:-$BUILD_DIR/tests/dcgm-exporter-standin} \
    TFJOB_REALNODE_OWNER_PID=$$ bash "$NODE_SH" up "$DIR"
  fi
  rc=0
  _RN_INSIDE=1 bash "$NODE_SH" with "$DIR" -- bash "$0" "$BUILD_DIR" "$RUNS" "$SIZE_MIB" || rc=$?
  [ "$own" = 1 ] && bash "$NODE_SH" down "$DIR"
  exit "$rc"
fi

# ---- inside the node's netns, with its env ----------------------------------------------------
KUBECTL=$(command -v kubectl)
TMP=$(mktemp -d)
NS=bench-logs-$$
trap 'rm -rf "$TMP"; "$KUBECTL" delete namespace "$NS" --wait=false >/dev/null 2>&1 || true' EXIT
k() { "$KUBECTL" --context "$TFJOB_TEST_CONTEXT_CERT" "$@"; }
k create namespace "$NS" >/dev/null
LINES=$(( SIZE_MIB * 1024 * 1024 / 100 ))
# 100-byte lines: "line NNNNNNNNNN " + padding + "\n"
SCRIPT="seq -f 'line %010.0f of the chief, padded to one hundred bytes with this text xxxxxxxxxxxxxxxxxxxxxxxxxx' 1 $LINES"
jq -n --arg cmd "$SCRIPT" '{apiVersion: "kubeflow.org/v1", kind: "TFJob", metadata: {name: "biglog"},
  spec: {tfReplicaSpecs: {Worker: {replicas: 1, restartPolicy: "Never", template: {spec: {containers: [
    {name: "tensorflow", image: "tfjob.local/tools:v1", imagePullPolicy: "Never", command: ["/bin/sh", "-c", $cmd]}]}}}}}}' \
  >"$TMP/job.json"
"$PLUGIN" --context "$TFJOB_TEST_CONTEXT_CERT" submit -f "$TMP/job.json" -n "$NS" >/dev/null
POD=biglog-worker-0
if [ -z "${TFJOB_REALNODE_CONTROLLER_PID:-}" ]; then
  # no controller stand-in: the operator's pod for the one Worker (name, labels, owner)
  uid=$(k get tfjob biglog -n "$NS" -o jsonpath='{.metadata.uid}')
  jq --arg uid "$uid" --arg ns "$NS" '.spec.tfReplicaSpecs.Worker.template.spec as $s |
    {apiVersion: "v1", kind: "Pod", metadata: {name: "biglog-worker-0", namespace: $ns, labels: {
      "training.kubeflow.org/job-name": "biglog", "training.kubeflow.org/replica-type": "worker",
      "training.kubeflow.org/replica-index": "0", "training.kubeflow.org/job-role": "master",
      "training.kubeflow.org/operator-name": "tfjob-controller"},
      ownerReferences: [{apiVersion: "kubeflow.org/v1", kind: "TFJob", name: "biglog", uid: $uid, controller: true}]},
     spec: ($s + {restartPolicy: "Never"})}' "$TMP/job.json" | k create -f - >/dev/null
fi
for _ in $(seq 600); do
  [ "$(k get pod "$POD" -n "$NS" -o jsonpath='{.status.phase}' 2>/dev/null)" = Succeeded ] && break
  sleep 0.5
done
[ "$(k get pod "$POD" -n "$NS" -o jsonpath='{.status.phase}')" = Succeeded ] || { echo "the chief did not finish writing" >&2; exit 1; }

URL="$TFJOB_REALAPI_SERVER/api/v1/namespaces/$NS/pods/$POD/log?container=tensorflow"
declare -A best
measure() { # NAME CMD...: best wall seconds of RUNS, output in $TMP/NAME.out
  local name=$1; shift
  local b="" t0 t1 s
  for _ in $(seq "$RUNS"); do
    t0=$(date +%s.%N); "$@" >"$TMP/$name.out"; t1=$(date +%s.%N)
    s=$(echo "$t1 - $t0" | bc -l)
    if [ -z "$b" ] || [ "$(echo "$s < $b" | bc -l)" = 1 ]; then b=$s; fi
  done
  best[$name]=$b
}
measure curl curl -sS --fail --cacert "$TFJOB_REALAPI_CA" --cert "$TFJOB_REALAPI_ADMIN_CERT" --key "$TFJOB_REALAPI_ADMIN_KEY" "$URL"
measure kubectl "$KUBECTL" --context "$TFJOB_TEST_CONTEXT_CERT" logs "$POD" -n "$NS" -c tensorflow
measure plugin "$PLUGIN" --context "$TFJOB_TEST_CONTEXT_CERT" logs biglog -n "$NS"
bytes=$(stat -c %s "$TMP/curl.out")
cmp "$TMP/curl.out" "$TMP/kubectl.out" || { echo "kubectl logs and curl differ" >&2; exit 1; }
cmp "$TMP/curl.out" "$TMP/plugin.out" || { echo "kubectl tfjob logs and curl differ" >&2; exit 1; }
rate() { printf '%.1f' "$(echo "$bytes / 1000000 / ${best[$1]}" | bc -l)"; }
ratio() { printf '%.2f' "$(echo "${best[$2]} / ${best[$1]}" | bc -l)"; }
secs() { printf '%.2f' "${best[$1]}"; }

cat >"$REPO/bench/results/realnode.md" <<MD
# The chief's log through the real kubelet

\`bench/realnode_logs_bench.sh\` on the real node (\`tests/realnode/\`: kubelet, containerd, the
real kube-apiserver's pods/log proxy), one run, the same pod: a chief that wrote $SIZE_MIB MiB
($bytes bytes, 100-byte lines). Best of $RUNS reads each; all three read identical bytes.
Machine: $(nproc) cores, $(uname -r), load average $(cut -d' ' -f1 /proc/loadavg) at the end, measured $(date -u +%F).

| reader | seconds | MB/s | vs kubectl logs | vs curl |
| --- | ---: | ---: | ---: | ---: |
| \`curl\` (the same API path) | $(secs curl) | $(rate curl) | $(ratio curl kubectl)x | 1.00x |
| \`kubectl logs POD\` ($("$KUBECTL" version --client -o json 2>/dev/null | jq -r .clientVersion.gitVersion)) | $(secs kubectl) | $(rate kubectl) | 1.00x | $(ratio kubectl curl)x |
| \`kubectl tfjob logs JOB\` | $(secs plugin) | $(rate plugin) | $(ratio plugin kubectl)x | $(ratio plugin curl)x |

A ratio above 1 is faster than the reference. The bar (issue 14): the plugin at least as fast as
\`kubectl logs\` and at least 95% of curl's rate.
MD
cat "$REPO/bench/results/realnode.md"
