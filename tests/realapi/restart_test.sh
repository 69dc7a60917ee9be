#!/usr/bin/env bash
# A kube-apiserver restart under running commands (issue 32), on a cluster of its own (the
# restart would cut every other test's connections): `wait` and `get -A --watch` keep going
# across it and resume from their resourceVersion (relisting on 410), so each change after
# the restart is shown once and none is lost or repeated; a `get -A --watch` whose first list
# the restart cuts lists again instead of exiting.
#   restart_test.sh PLUGIN DIR   (ctest realapi.restart; DIR: this test's own cluster;
#                                 exit 0 pass, 1 fail, 77 skipped)
set -euo pipefail
PLUGIN=${1:?path to kubectl-tfjob}; OWN=${2:?a directory for the cluster of this test}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
rc=0; TFJOB_REALAPI_OWNER_PID=$$ bash "$HERE/cluster.sh" up "$OWN" || rc=$?
[ "$rc" = 0 ] || exit "$rc"
DIR=$OWN
NAME=restart
. "$HERE/lib.sh"
trap 'cleanup; bash "$HERE/cluster.sh" down "$OWN" >/dev/null 2>&1 || true' EXIT

job() { # NAME: a TFJob as kubectl apply writes it
  cat <<Y
apiVersion: kubeflow.org/v1
kind: TFJob
metadata: {name: $1, namespace: $NS}
spec:
  tfReplicaSpecs:
    Chief:
      replicas: 1
      template:
        spec:
          containers: [{name: tensorflow, image: tensorflow/tensorflow:2.15.0}]
---
Y
}
state() { # NAME TYPE: the job's newest condition, as the operator writes it
  local now; now=$(date -u +%FT%TZ)
  status_patch tfjobs "$1" '{"status": {"conditions": [{"type": "Created", "status": "True", "reason": "TFJobCreated", "lastUpdateTime": "'$now'", "lastTransitionTime": "'$now'"}, {"type": "'$2'", "status": "True", "reason": "TFJob'$2'", "lastUpdateTime": "'$now'", "lastTransitionTime": "'$now'"}]}}'
}
rows() { grep -cE "^$NS +$1 +$2( |$)" "$TMP/w.out" || true; }  # table rows of job $1 in state $2

step setup
ka create namespace "$NS" >/dev/null
{ job rs-wait; job rs-change; job rs-gone; } | ka apply -f - >/dev/null
state rs-wait Running; state rs-change Running; state rs-gone Running

step watch-and-wait
bg_plugin w get -A --watch
wpid=$BGPID
bg_plugin wait wait rs-wait -n "$NS" --for condition=Succeeded --timeout 150s --progress
waitpid=$BGPID
for _ in $(seq 100); do [ "$(rows rs-gone Running)" = 1 ] && break; sleep 0.1; done
[ "$(rows rs-gone Running)" = 1 ] || fail "get -A --watch did not list the jobs: $(cat "$TMP/w.out" "$TMP/w.err")"
sleep 2  # the watches are open

step restart
bash "$HERE/cluster.sh" restart-apiserver "$OWN" 3
kill -0 "$wpid" 2>/dev/null || fail "get -A --watch ended with the API server: $(cat "$TMP/w.out" "$TMP/w.err")"
kill -0 "$waitpid" 2>/dev/null || fail "wait ended with the API server: $(cat "$TMP/wait.out" "$TMP/wait.err")"

step changes-after-restart
state rs-change Failed
ka delete tfjob rs-gone -n "$NS" >/dev/null
job rs-new | ka apply -f - >/dev/null
state rs-wait Succeeded
bg_wait "$waitpid" 0 wait 120
contains "$(cat "$TMP/wait.out")" "tfjob.kubeflow.org/rs-wait condition met"
for _ in $(seq 300); do
  [ "$(rows rs-change Failed)" -ge 1 ] && [ "$(rows rs-gone Deleted)" -ge 1 ] && [ "$(rows rs-wait Succeeded)" -ge 1 ] &&
    [ "$(grep -cE "^$NS +rs-new " "$TMP/w.out" || true)" -ge 1 ] && break
  sleep 0.1
done
# each change once: none lost, none repeated (an unchanged job is not printed again)
for r in "rs-change Failed" "rs-gone Deleted" "rs-wait Succeeded"; do
  set -- $r
  [ "$(rows "$1" "$2")" = 1 ] || fail "$1 $2 shown $(rows "$1" "$2") times, want once: $(cat "$TMP/w.out")"
done
[ "$(grep -cE "^$NS +rs-new " "$TMP/w.out" || true)" = 1 ] || fail "rs-new not shown once: $(cat "$TMP/w.out")"
[ "$(rows rs-gone Running)" = 1 ] || fail "rs-gone's first row repeated after the restart: $(cat "$TMP/w.out")"
kill "$wpid" 2>/dev/null || true

step first-list-cut
# many jobs read one per request, so that the restart lands in the middle of the first list
for i in $(seq -w 1 300); do job "rs-many-$i"; done | ka apply -f - >/dev/null
bg_plugin cut get -A --watch --chunk-size 1 -v 6
cutpid=$BGPID
for _ in $(seq 300); do [ "$(grep -c 'tfjobs?limit=1' "$TMP/cut.err" || true)" -ge 20 ] && break; sleep 0.02; done
# down 30 s and more: longer than the 8 quick retries of a first list once lasted (25 s), which
# a restart on a loaded node outlasted; the watch keeps trying for two minutes (FailureStreak)
bash "$HERE/cluster.sh" restart-apiserver "$OWN" 30
for _ in $(seq 900); do [ "$(grep -c ' rs-many-300 ' "$TMP/cut.out" || true)" -ge 1 ] && break; sleep 0.1; done
kill -0 "$cutpid" 2>/dev/null || fail "get -A --watch exited when the restart cut its first list: $(tail -20 "$TMP/cut.err")"
grep -qE 'retrying|refused|broken|EOF|reset|closed' "$TMP/cut.err" ||
  fail "the restart did not cut the first list (it ended before): $(grep -c limit=1 "$TMP/cut.err") pages"
for i in 001 150 300; do
  [ "$(grep -cE "^$NS +rs-many-$i " "$TMP/cut.out" || true)" = 1 ] || fail "rs-many-$i not listed once: $(grep -c rs-many "$TMP/cut.out") rows"
done
[ "$(grep -c rs-many "$TMP/cut.out")" = 300 ] || fail "the first listing has $(grep -c rs-many "$TMP/cut.out") rows of the 300 jobs"
[ "$(grep -c '^NAMESPACE' "$TMP/cut.out")" = 1 ] || fail "more than one table header: $(head -3 "$TMP/cut.out")"
kill "$cutpid" 2>/dev/null || true
echo "PASS: wait and get --watch across kube-apiserver restarts" >&2
