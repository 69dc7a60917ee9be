#!/usr/bin/env bash
# `kubectl tfjob gpu-check` against the real kube-apiserver 1.20 (realapi tier). The cluster's
# fake GPU nodes are gpu-node-0 (4 x nvidia.com/gpu) and gpu-node-1 (2); this script plays
# the scheduler (pods/binding, FailedScheduling events) and the kubelet (the probe's report
# as the container's log through the real pods/log proxy, pod status) for the probe pods
# gpu-check creates, and checks what gpu-check makes of it.
#   gpu_check_test.sh PLUGIN DIR   (ctest realapi.gpu-check; exit 0 pass, 1 fail, 77 skipped)
set -euo pipefail
PLUGIN=${1:?path to kubectl-tfjob}; DIR=${2:?cluster dir}
NAME=gpu-check-e2e
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
GPU_DATA=$(cd "$HERE/../data/gpu" && pwd)
export TFJOB_GPU_CHECK_POLL_MS=200
SEL=app.kubernetes.io/name=tfjob-gpu-probe

probe_pods() { ka get pods -n "$NS" -l "$SEL" -o json; }
probe_count_is() { [ "$(probe_pods | jq '.items | length')" = "$1" ]; }  # (evaluated on each call)
pod_for() { # NODE -> the probe pod's name for that node (by gpu-check's annotation)
  probe_pods | jq -r --arg n "$1" '.items[] | select(.metadata.annotations["kubectl-tfjob.kubeflow.org/node"] == $n) | .metadata.name'
}
wait_pods() { # N TAG: until gpu-check (started as bg_plugin TAG) has created N probe pods
  local n=$1 tag=$2
  until_ok 30 probe_count_is "$n" \
    || fail "gpu-check did not create $n probe pods: $(probe_pods | jq -c '[.items[].metadata.name]'); gpu-check said: $(cat "$TMP/$tag.out" "$TMP/$tag.err")"
}
# the kubelet runs the probe: its report becomes the container log, then the pod ends
run_probe() { # POD NODE REPORT_FILE EXIT_CODE
  local pod=$1 code=$4 phase=Succeeded reason=Completed
  [ "$code" = 0 ] || { phase=Failed; reason=Error; }
  bind_pod "$pod" "$2"
  status_patch pods "$pod" '{"status": {"phase": "Running", "containerStatuses": [{"name": "probe", "ready": true, "restartCount": 0, "image": "x", "imageID": "", "state": {"running": {"startedAt": "2026-01-01T00:00:00Z"}}}]}}'
  mapfile -t lines <"$3"
  "$CL" log "$DIR" "$NS" "$pod" probe "${lines[@]}"
  "$CL" exit "$DIR" "$NS" "$pod" probe
  status_patch pods "$pod" '{"status": {"phase": "'$phase'", "containerStatuses": [{"name": "probe", "ready": false, "restartCount": 0, "image": "x", "imageID": "", "state": {"terminated": {"exitCode": '"$code"', "reason": "'$reason'", "startedAt": "2026-01-01T00:00:00Z", "finishedAt": "2026-01-01T00:01:00Z"}}}]}}'
}
# the scheduler cannot place the pod: condition and event, as kube-scheduler writes them
unschedulable() { # POD MESSAGE
  status_patch pods "$1" '{"status": {"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "False", "reason": "Unschedulable", "message": "'"$2"'", "lastTransitionTime": "'"$(date -u +%FT%TZ)"'"}]}}'
  pod_event "$1" Warning FailedScheduling "$2" default-scheduler
}

step setup
ka create namespace "$NS" >/dev/null

step every-node
# gpu-node-0's probe reports two healthy V100s; gpu-node-1's pod never schedules
bg_plugin all gpu-check -n "$NS" --timeout 15s -o json
pid=$BGPID
wait_pods 2 all
p0=$(pod_for gpu-node-0); p1=$(pod_for gpu-node-1)
[ -n "$p0" ] && [ -n "$p1" ] || fail "no probe pod per node: $(probe_pods | jq -c '[.items[].metadata]')"
# the pod as the real server stored it: pinned through the scheduler, all the node's GPUs,
# tolerating nvidia.com/gpu taints, bounded
spec=$(ka get pod "$p0" -n "$NS" -o json)
[ "$(jq -r '.spec.nodeSelector["kubernetes.io/hostname"]' <<<"$spec")" = gpu-node-0 ] || fail "not pinned: $(jq -c .spec.nodeSelector <<<"$spec")"
[ "$(jq -r '.spec.containers[0].resources.limits["nvidia.com/gpu"]' <<<"$spec")" = 4 ] || fail "GPUs: $(jq -c .spec.containers[0].resources <<<"$spec")"
[ "$(jq -r '.spec.tolerations[] | select(.key == "nvidia.com/gpu") | .operator' <<<"$spec")" = Exists ] || fail "tolerations: $(jq -c .spec.tolerations <<<"$spec")"
[ "$(jq -r .spec.activeDeadlineSeconds <<<"$spec")" = 15 ] || fail "activeDeadlineSeconds: $(jq -c .spec <<<"$spec")"
[ "$(jq -r .spec.restartPolicy <<<"$spec")" = Never ] || fail "restartPolicy: $(jq -r .spec.restartPolicy <<<"$spec")"
run_probe "$p0" gpu-node-0 "$GPU_DATA/v100-healthy.json" 0
unschedulable "$p1" "0/2 nodes are available: 1 Insufficient nvidia.com/gpu, 1 node(s) didn't match Pod's node affinity."
bg_wait "$pid" 3 all   # one node gave no result in time: exit 3
res=$(cat "$TMP/all.out")
[ "$(jq -r '.nodes[] | select(.node == "gpu-node-0") | .status' <<<"$res")" = ready ] || fail "gpu-node-0: $(jq -c '.nodes' <<<"$res")"
[ "$(jq -r '.nodes[] | select(.node == "gpu-node-0") | .report.devices | length' <<<"$res")" = 2 ] || fail "gpu-node-0 report: $res"
[ "$(jq -r '.nodes[] | select(.node == "gpu-node-1") | .status' <<<"$res")" = pending ] || fail "gpu-node-1: $(jq -c '.nodes' <<<"$res")"
contains "$(jq -r '.nodes[] | select(.node == "gpu-node-1") | .message' <<<"$res")" "Insufficient nvidia.com/gpu"
[ "$(jq -r .ready <<<"$res")" = false ] || fail "ready: $res"
contains "$(cat "$TMP/all.err")" "gpu-node-1: Pending: FailedScheduling"
contains "$(cat "$TMP/all.err")" "deleted 2 probe pods"
[ "$(probe_pods | jq '.items | length')" = 0 ] || fail "probe pods left behind: $(probe_pods | jq -c '[.items[].metadata.name]')"

step one-node-not-ready
# --node and --expect: a T4 whose probe fails (exit 1) is not a V100, and says so
bg_plugin one gpu-check -n "$NS" --node gpu-node-1 --gpus 1 --expect v100 --timeout 20s
pid=$BGPID
wait_pods 1 one
p1=$(pod_for gpu-node-1)
# --watchdog: the probe answers "no result" before the pod's 20 s deadline and the wait's margin
[ "$(ka get pod "$p1" -n "$NS" -o jsonpath='{.spec.containers[0].args}')" = '["--expect","v100","--watchdog","11"]' ] \
  || fail "probe args: $(ka get pod "$p1" -n "$NS" -o jsonpath='{.spec.containers[0].args}')"
run_probe "$p1" gpu-node-1 "$GPU_DATA/t4-slow-ecc-off.json" 1
bg_wait "$pid" 1 one
table=$(cat "$TMP/one.out")
contains "$table" "NODE"
contains "$table" "gpu-node-1"
contains "$table" "Tesla T4"
contains "$table" "NOT-READY"
lacks "$table" "gpu-node-0"
until_ok 5 probe_count_is 0 || fail "probe pod left behind: $(probe_pods | jq -c '[.items[].metadata.name]')"

step failed-pod
# a probe pod that fails without a report (the kubelet's deadline): the reason, not a crash
bg_plugin dl gpu-check -n "$NS" --node gpu-node-0 --timeout 20s -o json
pid=$BGPID
wait_pods 1 dl
p0=$(pod_for gpu-node-0)
bind_pod "$p0" gpu-node-0
"$CL" exit "$DIR" "$NS" "$p0" probe
status_patch pods "$p0" '{"status": {"phase": "Failed", "reason": "DeadlineExceeded", "message": "Pod was active on the node longer than the specified deadline"}}'
bg_wait "$pid" 1 dl
[ "$(jq -r '.nodes[0].status' "$TMP/dl.out")" = failed ] || fail "status: $(cat "$TMP/dl.out")"
contains "$(jq -r '.nodes[0].message' "$TMP/dl.out")" "DeadlineExceeded"

step missing-node
refused P gpu-check -n "$NS" --node no-such-node --timeout 5s
[ "$RC" = 1 ] || fail "exit $RC, want 1: $ERR"
contains "$ERR" 'node "no-such-node" not found'

step forbidden
# alice may not list nodes (cluster-scoped): a 403 explained, nothing created
refused PL gpu-check -n "$TFJOB_TEST_LIMITED_NAMESPACE" --timeout 5s
[ "$RC" = 1 ] || fail "exit $RC, want 1: $ERR"
grep -qiE 'forbidden|403' <<<"$ERR" || fail "no 403 in: $ERR"
contains "$ERR" "nodes"
[ "$(ka get pods -n "$TFJOB_TEST_LIMITED_NAMESPACE" -l "$SEL" -o name | wc -l)" = 0 ] || fail "probe pods created by a refused check"

ka delete namespace "$NS" --wait=false >/dev/null 2>&1 || true
echo "PASS: gpu-check on the real apiserver" >&2
