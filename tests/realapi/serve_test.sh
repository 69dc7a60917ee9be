#!/usr/bin/env bash
# `kubectl tfjob serve` against the real kube-apiserver 1.20 (realapi tier): what the server
# accepts (server-side apply of the Deployment and Service, --dry-run=server), the rollout
# wait read from what a deployment controller writes (this script plays it, the scheduler and
# the kubelet through the API), ProgressDeadlineExceeded and a crash loop reported with the
# events and the previous attempt's log (through the real pods/log proxy), list, delete, a
# 403. The model itself cannot be reached: the apiserver will not proxy to loopback
# endpoints, so the service has none and serve must say so (predict stays on the fake).
#   serve_test.sh PLUGIN DIR   (ctest realapi.serve; exit 0 pass, 1 fail, 77 skipped)
set -euo pipefail
PLUGIN=${1:?path to kubectl-tfjob}; DIR=${2:?cluster dir}
NAME=serve-e2e
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

gen() { ka get deployment "$1" -n "$NS" -o jsonpath='{.metadata.generation}'; }
# the ReplicaSet controller's pod for deployment NAME (labels of its template), on NODE
server_pod() { # DEPLOYMENT POD NODE
  local labels; labels=$(ka get deployment "$1" -n "$NS" -o json | jq -c '.spec.template.metadata.labels')
  ka create -n "$NS" -f - >/dev/null <<POD
{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "$2", "labels": $labels},
 "spec": {"containers": [{"name": "tensorflow-serving", "image": "tensorflow/serving:2.16.1"}]}}
POD
  [ -n "${3:-}" ] && bind_pod "$2" "$3"
  return 0
}
# the deployment controller's status: observed, N replicas updated/ready/available
rolled_out() { # DEPLOYMENT N
  status_patch deployments "$1" '{"status": {"observedGeneration": '"$(gen "$1")"', "replicas": '"$2"', "updatedReplicas": '"$2"', "readyReplicas": '"$2"', "availableReplicas": '"$2"', "conditions": [{"type": "Available", "status": "True", "reason": "MinimumReplicasAvailable", "message": "Deployment has minimum availability.", "lastUpdateTime": "'"$(date -u +%FT%TZ)"'", "lastTransitionTime": "'"$(date -u +%FT%TZ)"'"}]}}'
}

step setup
ka create namespace "$NS" >/dev/null

step dry-run-server
ok P serve rs --model resnet --gpus 1 -n "$NS" --dry-run=server -o yaml
contains "$OUT" "kind: Deployment"
contains "$OUT" "kind: Service"
contains "$OUT" "uid: "                       # the server's objects, defaulted
contains "$OUT" "progressDeadlineSeconds: 600"
if ka get deployment rs -n "$NS" >/dev/null 2>&1; then fail "--dry-run=server created the deployment"; fi

step rollout-then-no-endpoints
bg_plugin rs serve rs --model resnet --gpus 1 -n "$NS" --timeout 20s
pid=$BGPID
until_ok 20 ka get deployment rs -n "$NS" || fail "serve did not create deployment rs: $(cat "$TMP/rs.err")"
d=$(ka get --raw "/apis/apps/v1/namespaces/$NS/deployments/rs")
[ "$(jq -r '.metadata.managedFields[] | select(.operation == "Apply") | .manager' <<<"$d")" = kubectl-tfjob ] || fail "not applied by kubectl-tfjob"
[ "$(jq -r '.spec.template.spec.containers[0].resources.limits["nvidia.com/gpu"]' <<<"$d")" = 1 ] || fail "GPU limit: $(jq -c .spec.template.spec.containers[0].resources <<<"$d")"
[ "$(jq -r '.spec.template.spec.containers[0].image' <<<"$d")" = tensorflow/serving:2.20.0-gpu ] || fail "image: $(jq -r '.spec.template.spec.containers[0].image' <<<"$d")"
[ "$(jq -r '.spec.template.spec.containers[0].readinessProbe.httpGet.path' <<<"$d")" = /v1/models/rs ] || fail "readiness probe: $(jq -c .spec.template.spec.containers[0].readinessProbe <<<"$d")"
[ "$(jq -r '.spec.template.spec.initContainers | length' <<<"$d")" = 1 ] || fail "no init container fetching the model"
svc=$(ka get service rs -n "$NS" -o json)
[ "$(jq -c '[.spec.ports[] | [.name, .port]]' <<<"$svc")" = '[["grpc",8500],["http",8501]]' ] || fail "service ports: $(jq -c .spec.ports <<<"$svc")"
# the endpoints controller's object for the new service: no ready address (it would hold the
# pods' IPs; the apiserver refuses to proxy to the loopback addresses this tier has)
ka create -n "$NS" -f - >/dev/null <<'EP'
{"apiVersion": "v1", "kind": "Endpoints", "metadata": {"name": "rs"}, "subsets": []}
EP
sleep 1
kill -0 "$pid" 2>/dev/null || fail "serve returned before the rollout: $(cat "$TMP/rs.err")"
contains "$(cat "$TMP/rs.err")" "Waiting for deployment spec update to be observed..."
# the controller observes it and creates the pod, which is not ready yet
server_pod rs rs-7d4b9-abcde gpu-node-0
status_patch deployments rs '{"status": {"observedGeneration": '"$(gen rs)"', "replicas": 1, "updatedReplicas": 1, "unavailableReplicas": 1}}'
until_ok 5 grep -q "0 of 1 updated replicas are available" "$TMP/rs.err" || fail "no rollout progress: $(cat "$TMP/rs.err")"
rolled_out rs 1
bg_wait "$pid" 2 rs
err=$(cat "$TMP/rs.err")
contains "$err" 'deployment "rs" successfully rolled out'
contains "$err" 'timed out after 20s waiting for model "rs" to be AVAILABLE'
contains "$err" "the service proxy answered 503"
contains "$err" 'no endpoints available for service "rs"'

step predict-no-endpoints
printf '\xff\xd8\xff\xe0 not really a cat' >"$TMP/cat.jpg"
refused P predict rs --image "$TMP/cat.jpg" -n "$NS"
[ "$RC" = 1 ] || fail "exit $RC, want 1: $ERR"
contains "$ERR" "no endpoints available"
refused P predict nope --image "$TMP/cat.jpg" -n "$NS"
contains "$ERR" "nope"

step progress-deadline
ok P serve stuck --model resnet --gpus 1 -n "$NS" --no-wait
server_pod stuck stuck-5f6c7-xyzab
unschedulable_msg="0/2 nodes are available: 2 Insufficient nvidia.com/gpu."
status_patch pods stuck-5f6c7-xyzab '{"status": {"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "False", "reason": "Unschedulable", "message": "'"$unschedulable_msg"'", "lastTransitionTime": "'"$(date -u +%FT%TZ)"'"}]}}'
pod_event stuck-5f6c7-xyzab Warning FailedScheduling "$unschedulable_msg" default-scheduler
status_patch deployments stuck '{"status": {"observedGeneration": '"$(gen stuck)"', "replicas": 1, "updatedReplicas": 1, "unavailableReplicas": 1, "conditions": [{"type": "Progressing", "status": "False", "reason": "ProgressDeadlineExceeded", "message": "ReplicaSet \"stuck-5f6c7\" has timed out progressing.", "lastUpdateTime": "'"$(date -u +%FT%TZ)"'", "lastTransitionTime": "'"$(date -u +%FT%TZ)"'"}]}}'
refused P serve stuck --model resnet --gpus 1 -n "$NS" --timeout 30s
[ "$RC" = 1 ] || fail "exit $RC, want 1: $ERR"
contains "$ERR" 'deployment "stuck" exceeded its progress deadline'
contains "$ERR" "Insufficient nvidia.com/gpu"
lacks "$ERR" "timed out"

step crash-loop
ka create -n "$NS" -f - >/dev/null <<'PVC'
{"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "models"},
 "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}
PVC
bg_plugin cl serve cl --pvc models --gpus 0 -n "$NS" --timeout 30s --no-export-check  # this tier has no kubelet to run the check pod (the real node tier runs it)
pid=$BGPID
until_ok 20 ka get deployment cl -n "$NS" || fail "serve did not create deployment cl: $(cat "$TMP/cl.err")"
[ "$(ka get deployment cl -n "$NS" -o jsonpath='{.spec.template.spec.volumes[0].persistentVolumeClaim.claimName}')" = models ] \
  || fail "the model volume is not the claim"
server_pod cl cl-6b8d9-qwert gpu-node-1
"$CL" previous-log "$DIR" "$NS" cl-6b8d9-qwert tensorflow-serving \
  "2026-01-01 00:00:00: I tensorflow_serving/model_servers/server.cc:74] Building single TensorFlow model file config" \
  "2026-01-01 00:00:01: E tensorflow_serving/sources/storage_path/file_system_storage_path_source.cc:353] No versions of servable cl found under base path /models/cl"
pod_event cl-6b8d9-qwert Warning BackOff "Back-off restarting failed container" kubelet
status_patch pods cl-6b8d9-qwert '{"status": {"phase": "Running", "containerStatuses": [{"name": "tensorflow-serving", "ready": false, "restartCount": 3, "image": "tensorflow/serving:2.16.1", "imageID": "", "state": {"waiting": {"reason": "CrashLoopBackOff", "message": "back-off 40s restarting failed container=tensorflow-serving pod=cl-6b8d9-qwert"}}, "lastState": {"terminated": {"exitCode": 1, "reason": "Error", "startedAt": "2026-01-01T00:00:00Z", "finishedAt": "2026-01-01T00:00:02Z"}}}]}}'
status_patch deployments cl '{"status": {"observedGeneration": '"$(gen cl)"', "replicas": 1, "updatedReplicas": 1, "unavailableReplicas": 1}}'
bg_wait "$pid" 1 cl
err=$(cat "$TMP/cl.err")
contains "$err" 'deployment "cl" will not become ready'
contains "$err" "CrashLoopBackOff (restarted 3 times, last exit code 1)"
contains "$err" "event Warning BackOff: Back-off restarting failed container"
contains "$err" "No versions of servable cl found under base path /models/cl"   # the previous attempt's log

step list-delete
ok P serve list -n "$NS"
contains "$OUT" "rs"
contains "$OUT" "stuck"
contains "$OUT" "cl"
rs_row=$(grep '^rs ' <<<"$OUT") || fail "no row for rs: $OUT"
contains "$rs_row" "1/1"
ok P serve delete rs -n "$NS"
contains "$OUT" "deployment.apps/rs deleted"
contains "$OUT" "service/rs deleted"
if ka get deployment rs -n "$NS" >/dev/null 2>&1 || ka get service rs -n "$NS" >/dev/null 2>&1; then fail "rs still there after serve delete"; fi
refused P serve delete rs -n "$NS"
contains "$ERR" 'model server "rs" not found'

step forbidden
refused PL serve x --model resnet -n "$TFJOB_TEST_FORBIDDEN_NAMESPACE" --timeout 5s
[ "$RC" = 1 ] || fail "exit $RC, want 1: $ERR"
grep -qiE 'forbidden|403' <<<"$ERR" || fail "no 403 in: $ERR"
if ka get deployment x -n "$TFJOB_TEST_FORBIDDEN_NAMESPACE" >/dev/null 2>&1; then fail "created in the forbidden namespace"; fi

ka delete namespace "$NS" --wait=false >/dev/null 2>&1 || true
echo "PASS: serve on the real apiserver" >&2
