#!/usr/bin/env bash
# `kubectl tfjob logs -f` on a job whose chief stays Pending (the realapi tier runs no
# scheduler), against the real kube-apiserver: it waits on watches, so the requests it has
# made (-v 6: one line per answered request) are as many after 10 s as after 2 s (the old
# follow listed the pods, got the job and listed the events every 0.5 s: 123 requests in
# 20 s); Ctrl-C ends it.
#   logs_pending_test.sh PLUGIN DIR   (ctest realapi.logs-pending; exit 0 pass, 1 fail, 77 skipped)
set -euo pipefail
PLUGIN=${1:?path to kubectl-tfjob}; DIR=${2:?cluster dir}
NAME=logs-pending
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

step setup
ka create namespace "$NS" >/dev/null
trap 'ka delete namespace "$NS" --wait=false >/dev/null 2>&1 || true; cleanup' EXIT
ka apply -n "$NS" -f - >/dev/null <<Y
apiVersion: kubeflow.org/v1
kind: TFJob
metadata: {name: lp}
spec:
  tfReplicaSpecs:
    Chief:
      replicas: 1
      template:
        spec:
          containers: [{name: tensorflow, image: tensorflow/tensorflow:2.15.0}]
Y
# the operator's pod as v1.9 labels it; unscheduled, it stays Pending
ka apply -n "$NS" -f - >/dev/null <<Y
apiVersion: v1
kind: Pod
metadata:
  name: lp-chief-0
  labels: {training.kubeflow.org/job-name: lp, training.kubeflow.org/operator-name: tfjob-controller,
           training.kubeflow.org/replica-type: chief, training.kubeflow.org/replica-index: "0",
           training.kubeflow.org/job-role: master}
spec:
  containers: [{name: tensorflow, image: tensorflow/tensorflow:2.15.0}]
Y

step follow
set -m  # job control: a background command keeps SIGINT (else bash starts it ignoring SIGINT)
bg_plugin lf logs lp -f -n "$NS" -v 6
pid=$BGPID
set +m
requests() { grep -cE '^(GET|POST|PUT|PATCH|DELETE) https' "$TMP/lf.err" || true; }
waiting() { grep -qF "1 pending" "$TMP/lf.err"; }
for _ in $(seq 300); do waiting && break; sleep 0.1; done
waiting || fail "no progress line saying the chief is pending: $(cat "$TMP/lf.err")"
sleep 2
early=$(requests)
sleep 8  # the span over which a polling follow would have made ~48 more requests
late=$(requests)
[ "$late" = "$early" ] || fail "logs -f made requests while the pod was Pending: $early after 2 s, $late after 10 s:
$(grep -E '^(GET|POST) https' "$TMP/lf.err")"
echo "requests while Pending: $early after 2 s, $late after 10 s" >&2

step ctrl-c
child=$(pgrep -P "$pid" -f kubectl-tfjob || true)
kill -INT "${child:-$pid}"
set +e; wait "$pid"; rc=$?; set -e
[ "$rc" = 130 ] || fail "exit $rc after SIGINT, want 130: $(tail -3 "$TMP/lf.err")"
echo PASS >&2
