#!/usr/bin/env bash
# The TFJob controller stand-in against the real kube-apiserver (realapi tier): the plugin
# submits, the stand-in creates pods and headless services as training-operator v1.9 does,
# and this script plays the kubelet by binding pods and patching their status; the job's
# status must follow the operator's rules (Running, Restarting under ExitCode, Succeeded,
# Failed, cleanPodPolicy, suspend and resume), and SIGTERM ends the stand-in cleanly.
#   realapi_test.sh CONTROLLER PLUGIN DIR   (ctest realapi.controller; 0 pass, 1 fail, 77 skipped)
set -euo pipefail
CTRL=${1:?path to tfjob-controller-standin}; PLUGIN=${2:?path to kubectl-tfjob}; DIR=${3:?cluster dir}
NAME=ctrl-e2e
. "$(dirname "${BASH_SOURCE[0]}")/../../realapi/lib.sh"
command -v jq >/dev/null || fail "jq is required"

ka create namespace "$NS" >/dev/null
trap 'cleanup; ka delete namespace "$NS" --wait=false >/dev/null 2>&1 || true' EXIT

step start-controller
"$CTRL" --kubeconfig "$KUBECONFIG" --context "$TFJOB_TEST_CONTEXT_CERT" --namespace "$NS" \
  --cluster-domain cluster.local 2>"$TMP/ctrl.log" &
CPID=$!; BG+=("$CPID")

jp() { ka get "$@" -n "$NS" -o json 2>/dev/null; }
cond() { # JOB TYPE -> "status reason message" of that condition
  jp tfjob "$1" | jq -r --arg t "$2" '.status.conditions[]? | select(.type == $t) | "\(.status)|\(.reason)|\(.message)"'
}
has_cond() { [ "$(cond "$1" "$2" | cut -d'|' -f1)" = "${3:-True}" ]; }
pod_count() { [ "$(jp pods -l "training.kubeflow.org/job-name=$1" | jq '[.items[] | select(.metadata.deletionTimestamp == null)] | length')" = "$2" ]; }
svc_count() { [ "$(jp services -l "training.kubeflow.org/job-name=$1" | jq '.items | length')" = "$2" ]; }
uid_of() { ka get pod "$1" -n "$NS" -o jsonpath='{.metadata.uid}' 2>/dev/null; }
uid_changed() { local u; u=$(uid_of "$1") && [ -n "$u" ] && [ "$u" != "$2" ]; }
gone_or_deleting() { local j; j=$(jp pod "$1") || return 0; [ "$(jq -r '.metadata.deletionTimestamp // ""' <<<"$j")" != "" ]; }
# wait until CMD succeeds, re-checking every 0.2 s, for at most 60 s of wall time
waitfor() {
  local what=$1 end=$(( $(date +%s) + 60 )); shift
  until "$@" >/dev/null 2>&1; do
    [ "$(date +%s)" -lt "$end" ] || fail "timed out waiting for $what; controller log: $(tail -20 "$TMP/ctrl.log")"
    sleep 0.2
  done
}
now() { date -u +%FT%TZ; }
# the kubelet's part: bind, then a container state (running, or terminated with a code)
running() { # POD IP [RESTARTS]
  status_patch pods "$1" '{"status": {"phase": "Running", "podIP": "'"$2"'", "podIPs": [{"ip": "'"$2"'"}],
    "containerStatuses": [{"name": "tensorflow", "image": "trainer:1", "imageID": "", "ready": true,
      "restartCount": '"${3:-0}"', "state": {"running": {"startedAt": "'"$(now)"'"}}}]}}'
}
exited() { # POD CODE
  local phase=Succeeded; [ "$2" = 0 ] || phase=Failed
  status_patch pods "$1" '{"status": {"phase": "'$phase'", "containerStatuses": [{"name": "tensorflow", "image": "trainer:1",
    "imageID": "", "ready": false, "restartCount": 0, "state": {"terminated": {"exitCode": '"$2"', "reason": "Error",
    "startedAt": "'"$(now)"'", "finishedAt": "'"$(now)"'"}}}]}}'
}

job_yaml() { # NAME WORKER_POLICY CLEAN [SUSPEND]
  cat <<EOF
apiVersion: kubeflow.org/v1
kind: TFJob
metadata:
  name: $1
spec:
  runPolicy:
    cleanPodPolicy: $3
    suspend: ${4:-false}
  tfReplicaSpecs:
    Chief:
      replicas: 1
      restartPolicy: Never
      template:
        spec:
          containers:
          - name: tensorflow
            image: trainer:1
    Worker:
      replicas: 2
      restartPolicy: $2
      template:
        spec:
          containers:
          - name: tensorflow
            image: trainer:1
EOF
}

step submit
job_yaml cj ExitCode Running >"$TMP/cj.yaml"
ok P submit -f "$TMP/cj.yaml" -n "$NS"
waitfor "3 pods" pod_count cj 3
waitfor "3 services" svc_count cj 3
waitfor "Created" has_cond cj Created
[ "$(cond cj Created)" = "True|TFJobCreated|TFJob cj is created." ] || fail "Created: $(cond cj Created)"

step pods-as-the-operator-makes-them
w1=$(jp pod cj-worker-1)
want='{"cluster":{"chief":["cj-chief-0.'$NS'.svc.cluster.local:2222"],"worker":["cj-worker-0.'$NS'.svc.cluster.local:2222","cj-worker-1.'$NS'.svc.cluster.local:2222"]},"task":{"type":"worker","index":1},"environment":"cloud"}'
got=$(jq -r '.spec.containers[0].env[] | select(.name == "TF_CONFIG") | .value' <<<"$w1")
[ "$got" = "$want" ] || fail "TF_CONFIG of cj-worker-1: $got, want $want"
[ "$(jq -r '.spec.restartPolicy' <<<"$w1")" = Never ] || fail "ExitCode pods are restartPolicy Never: $(jq -c .spec.restartPolicy <<<"$w1")"
[ "$(jq -c '.metadata.ownerReferences[0] | [.kind, .name, .controller, .blockOwnerDeletion]' <<<"$w1")" = '["TFJob","cj",true,true]' ] ||
  fail "ownerReferences: $(jq -c .metadata.ownerReferences <<<"$w1")"
[ "$(jq -r '.metadata.ownerReferences[0].uid' <<<"$w1")" = "$(ka get tfjob cj -n "$NS" -o jsonpath='{.metadata.uid}')" ] || fail "owner uid"
[ "$(jq -r '.metadata.labels["training.kubeflow.org/replica-index"]' <<<"$w1")" = 1 ] || fail "labels: $(jq -c .metadata.labels <<<"$w1")"
[ "$(jp pod cj-chief-0 | jq -r '.metadata.labels["training.kubeflow.org/job-role"]')" = master ] || fail "job-role on the chief"
svc=$(jp service cj-worker-1)
[ "$(jq -r .spec.clusterIP <<<"$svc")" = None ] || fail "headless: $(jq -c .spec <<<"$svc")"
[ "$(jq -c '.spec.ports[0] | [.name, .port]' <<<"$svc")" = '["tfjob-port",2222]' ] || fail "service port: $(jq -c .spec.ports <<<"$svc")"
[ "$(jq -r '.spec.selector["training.kubeflow.org/replica-index"]' <<<"$svc")" = 1 ] || fail "selector: $(jq -c .spec.selector <<<"$svc")"

step running
for p in cj-chief-0 cj-worker-0 cj-worker-1; do bind_pod "$p" gpu-node-0; done
running cj-worker-0 10.244.0.11
running cj-worker-1 10.244.0.12
running cj-chief-0 10.244.0.10
waitfor "Running" has_cond cj Running
[ "$(cond cj Running)" = "True|TFJobRunning|TFJob $NS/cj is running." ] || fail "Running: $(cond cj Running)"

step exitcode-retryable-restarts
old=$(uid_of cj-worker-1)
exited cj-worker-1 137
# the operator deletes the pod and says Restarting; with the chief running, the next pass's
# Running replaces that condition at once, so its event is what stays to be checked
restart_event() {
  ka get events -n "$NS" --field-selector involvedObject.name=cj -o json |
    jq -e --arg m "job cj is restarting because Worker replica(s) failed." \
      '[.items[] | select(.reason == "TFJobRestarting" and .type == "Warning" and .message == $m)] | length > 0' >/dev/null
}
waitfor "the TFJobRestarting event" restart_event
waitfor "cj-worker-1 recreated" uid_changed cj-worker-1 "$old"
has_cond cj Failed && fail "a retryable exit failed the job"
bind_pod cj-worker-1 gpu-node-0
running cj-worker-1 10.244.0.13
waitfor "Running again" has_cond cj Running
[ "$(cond cj Restarting)" = "" ] || fail "Running replaces Restarting: $(cond cj Restarting)"

step chief-succeeds-clean-running
exited cj-chief-0 0
waitfor "Succeeded" has_cond cj Succeeded
[ "$(cond cj Succeeded)" = "True|TFJobSucceeded|TFJob $NS/cj successfully completed." ] || fail "Succeeded: $(cond cj Succeeded)"
has_cond cj Running False || fail "Running turns False: $(cond cj Running)"
[ -n "$(ka get tfjob cj -n "$NS" -o jsonpath='{.status.completionTime}')" ] || fail "completionTime"
# cleanPodPolicy Running: the running workers go (the apiserver marks them; no kubelet
# confirms here), the succeeded chief stays
waitfor "workers deleted" gone_or_deleting cj-worker-0
waitfor "workers deleted" gone_or_deleting cj-worker-1
[ "$(jp pod cj-chief-0 | jq -r '.metadata.deletionTimestamp // "kept"')" = kept ] || fail "the succeeded chief was deleted"

step permanent-failure
job_yaml fj ExitCode None >"$TMP/fj.yaml"
ok P submit -f "$TMP/fj.yaml" -n "$NS"
waitfor "3 pods" pod_count fj 3
bind_pod fj-worker-0 gpu-node-0
exited fj-worker-0 1
waitfor "Failed" has_cond fj Failed
[ "$(cond fj Failed)" = "True|TFJobFailed|TFJob $NS/fj has failed because 1 Worker replica(s) failed." ] || fail "Failed: $(cond fj Failed)"
[ "$(jp pod fj-worker-0 | jq -r .status.phase)" = Failed ] || fail "cleanPodPolicy None keeps the failed pod"

step suspend-resume
job_yaml sj Never None >"$TMP/sj.yaml"
ok P submit -f "$TMP/sj.yaml" -n "$NS"
waitfor "3 pods" pod_count sj 3
ka patch tfjob sj -n "$NS" --type=merge -p '{"spec":{"runPolicy":{"suspend":true}}}' >/dev/null
waitfor "Suspended" has_cond sj Suspended
[ "$(cond sj Suspended)" = "True|TFJobSuspended|TFJob sj is suspended." ] || fail "Suspended: $(cond sj Suspended)"
waitfor "pods deleted" pod_count sj 0
waitfor "services deleted" svc_count sj 0
ka patch tfjob sj -n "$NS" --type=merge -p '{"spec":{"runPolicy":{"suspend":false}}}' >/dev/null
waitfor "resumed" has_cond sj Suspended False
[ "$(cond sj Suspended)" = "False|TFJobResumed|TFJob sj is resumed." ] || fail "resumed: $(cond sj Suspended)"
waitfor "pods recreated" pod_count sj 3
waitfor "services recreated" svc_count sj 3

step deadline-then-ttl
# nothing changes on the cluster: the stand-in must wake for the deadline by itself, then
# again for ttlSecondsAfterFinished
cat >"$TMP/dj.yaml" <<EOF
apiVersion: kubeflow.org/v1
kind: TFJob
metadata:
  name: dj
spec:
  runPolicy:
    activeDeadlineSeconds: 2
    ttlSecondsAfterFinished: 5
  tfReplicaSpecs:
    Worker:
      replicas: 1
      template:
        spec:
          containers:
          - name: tensorflow
            image: trainer:1
EOF
ok P submit -f "$TMP/dj.yaml" -n "$NS"
waitfor "Failed by the deadline" has_cond dj Failed
[ "$(cond dj Failed)" = "True|TFJobFailed|Job dj has failed because it was active longer than specified deadline" ] || fail "deadline: $(cond dj Failed)"
waitfor "the pod deleted" pod_count dj 0
job_gone() { ! ka get tfjob dj -n "$NS" >/dev/null 2>&1; }
waitfor "the TFJob deleted after its TTL" job_gone

step sigterm
kill -TERM "$CPID"
set +e; wait "$CPID"; rc=$?; set -e
[ "$rc" = 0 ] || fail "the controller exited $rc on SIGTERM: $(tail -20 "$TMP/ctrl.log")"
grep -q "stopped" "$TMP/ctrl.log" || fail "no clean stop in the log: $(tail -5 "$TMP/ctrl.log")"
echo "PASS: controller stand-in against $TFJOB_REALAPI_SERVER_VERSION" >&2
