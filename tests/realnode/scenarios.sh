#!/usr/bin/env bash
# kubectl-tfjob end to end on the real node (tests/realnode/node.sh): pods really scheduled
# by kube-scheduler, run by the kubelet in containerd, logs read through the kubelet,
# Deployments rolled out by the deployment controller, garbage collected for real.
#   scenarios.sh CASE PLUGIN DIR     (run by `node.sh with DIR --`, inside the node's netns)
# Cases: logs logs-exact unschedulable unschedulable-wait serve-crash-log image-missing serve gpu-check top hello logs-restarts interrupt
# explain-gpu explain-selector explain-claim explain-exitcode explain-ps logs-replicas logs-states.
# Where the TFJob controller stand-in (tfjob-controller-standin) is not running, the cases
# that need only one pod play its part for that pod (the operator's name, labels and owner);
# the cases that need the operator's behaviour (hello, logs-restarts, interrupt, explain-exitcode, explain-ps) skip.
# Exit codes: 0 pass, 1 fail, 77 skipped (with the reason).
set -euo pipefail
CASE=${1:?case}; PLUGIN=${2:?path to kubectl-tfjob}; DIR=${3:?node dir}
NAME=rn-$CASE
. "$(dirname "${BASH_SOURCE[0]}")/../realapi/lib.sh"
IMAGES=$TFJOB_REALNODE_IMAGES
TOOLS=tfjob.local/tools:v1
ka create namespace "$NS" >/dev/null
finish() {
  cleanup
  ka delete namespace "$NS" --wait=false >/dev/null 2>&1 || true
  ka delete pv "$NS-models" "$NS-hello" --ignore-not-found --wait=false >/dev/null 2>&1 || true
}
trap finish EXIT

controller_running() { [ -n "${TFJOB_REALNODE_CONTROLLER_PID:-}" ] && kill -0 "$TFJOB_REALNODE_CONTROLLER_PID" 2>/dev/null; }
need_controller() {
  controller_running && return 0
  echo "SKIPPED: $CASE needs the TFJob controller stand-in (tfjob-controller-standin, branch wip-ctrl), not running on this node" >&2
  exit 77
}
# The operator's pod for replica 0 of a one-replica TFJob, as the training operator v1.9 makes
# it (pkg/controller.v1/tensorflow: name {job}-{type}-{index}, the replica labels, a
# controller ownerReference; restartPolicy ExitCode runs as Never), when no controller runs.
play_operator() { # JOB
  controller_running && return 0
  local job; job=$(ka get tfjob "$1" -n "$NS" -o json)
  jq -e '[.spec.tfReplicaSpecs[] | .replicas // 1] | add == 1' <<<"$job" >/dev/null \
    || fail "play_operator handles one-replica jobs only"
  jq -c '.metadata as $m | .spec.tfReplicaSpecs | to_entries[0] as $r | ($r.key | ascii_downcase) as $t
    | $r.value.template as $tpl
    | {apiVersion: "v1", kind: "Pod",
       metadata: {name: "\($m.name)-\($t)-0", namespace: $m.namespace,
         labels: (($tpl.metadata.labels // {}) + {"training.kubeflow.org/job-name": $m.name,
           "training.kubeflow.org/operator-name": "tfjob-controller", "training.kubeflow.org/replica-type": $t,
           "training.kubeflow.org/replica-index": "0", "training.kubeflow.org/job-role": "master"}),
         ownerReferences: [{apiVersion: "kubeflow.org/v1", kind: "TFJob", name: $m.name, uid: $m.uid,
           controller: true, blockOwnerDeletion: true}]},
       spec: ($tpl.spec + {restartPolicy: (if ($r.value.restartPolicy // "Never") == "ExitCode" then "Never"
                                            else ($r.value.restartPolicy // "Never") end)})}' <<<"$job" \
    | ka create -f - >/dev/null || fail "could not create the operator's pod for $1"
}
pod_phase() { ka get pod "$1" -n "$NS" -o jsonpath='{.status.phase}' 2>/dev/null; }
phase_is() { [ "$(pod_phase "$1")" = "$2" ]; }
chief_pod() { ka get pods -n "$NS" -l "training.kubeflow.org/job-name=$1,training.kubeflow.org/job-role=master" -o jsonpath='{.items[0].metadata.name}' 2>/dev/null; }
has_pod() { [ -n "$(chief_pod "$1")" ]; }
tfjob_exists() { ka get tfjob "$1" -n "$NS" >/dev/null 2>&1; }
api_get() { curl -sS --fail --cacert "$TFJOB_REALAPI_CA" --cert "$TFJOB_REALAPI_ADMIN_CERT" --key "$TFJOB_REALAPI_ADMIN_KEY" "$TFJOB_REALAPI_SERVER$1"; }
# Ctrl-C: SIGINT to the plugin itself (bg_plugin's pid is the subshell that runs it)
ctrl_c() { local c; c=$(pgrep -P "$1" -f kubectl-tfjob || true); kill -INT ${c:-$1}; }
no_pods_left() { [ -z "$(ka get pods -n "$NS" -o name 2>/dev/null)" ]; }
# a TFJob manifest whose one Worker runs CMD in IMAGE with imagePullPolicy Never
job_yaml() { # NAME IMAGE RESTART-POLICY CMD [GPUS]
  jq -n --arg name "$1" --arg image "$2" --arg rp "$3" --arg cmd "$4" --arg gpus "${5:-}" '
    {apiVersion: "kubeflow.org/v1", kind: "TFJob", metadata: {name: $name},
     spec: {runPolicy: {cleanPodPolicy: "None"}, tfReplicaSpecs: {Worker: {replicas: 1, restartPolicy: $rp, template: {spec: {
       terminationGracePeriodSeconds: 2,
       containers: [{name: "tensorflow", image: $image, imagePullPolicy: "Never", command: ["/bin/sh", "-c", $cmd]}
         | if $gpus != "" then .resources = {limits: {"nvidia.com/gpu": $gpus}} else . end]}}}}}}'
}

# ---- explain: why a job is where it is, by the operator's rules (docs/explain.md), with the
# real scheduler, kubelet and PV controller as the source of every reason it gives
# explain_both JOB: `explain JOB -o json` in $X, the text form in $XT
explain_both() {
  ok P explain "$1" -n "$NS" -o json; X=$OUT
  jq -e --arg j "$1" '.name == $j and (.findings | type == "array")' <<<"$X" >/dev/null || fail "explain -o json: $X"
  ok P explain "$1" -n "$NS"; XT=$OUT
}
# has_finding CODE REPLICA MESSAGE-PART [EVIDENCE-PART]: $X has a finding with that code and
# replica whose message contains the part (and one of whose evidence lines contains the other)
has_finding() {
  jq -e --arg c "$1" --arg r "$2" --arg m "$3" --arg e "${4:-}" '[.findings[] | select(.code == $c and .replica == $r
      and (.message | contains($m)) and ($e == "" or any(.evidence[]; contains($e))))] | length > 0' <<<"$X" >/dev/null \
    || fail "no $1 finding (replica '$2', message with '$3'${4:+, evidence with '$4'}): $(jq -c .findings <<<"$X")"
}
lacks_finding() { ! jq -e --arg c "$1" 'any(.findings[]; .code == $c)' <<<"$X" >/dev/null || fail "unexpected $1: $(jq -c .findings <<<"$X")"; }
# an event with REASON about the object NAME (a pod, a claim) exists
has_event() { ka get events -n "$NS" -o json | jq -e --arg n "$1" --arg r "$2" 'any(.items[]; .involvedObject.name == $n and .reason == $r)'; }
job_phase() { ka get tfjob "$1" -n "$NS" -o json | jq -e --arg t "$2" 'any(.status.conditions[]?; .type == $t and .status == "True")'; }
# unscheduled_pod JOB: the job's pod (played when no controller runs), once the real
# scheduler has said why it cannot place it; its name in $pod
unscheduled_pod() {
  play_operator "$1"
  until_ok 60 has_pod "$1" || fail "no pod for $1"
  pod=$(chief_pod "$1")
  said() { has_event "$pod" FailedScheduling; }
  until_ok 60 said || fail "no FailedScheduling event for $pod: $(ka get events -n "$NS")"
}
# one Worker that asks for twice the node's GPUs: the real scheduler's "Insufficient nvidia.com/gpu"
explain_gpu() {
  step submit
  local gpus=$(( TFJOB_REALNODE_GPUS * 2 ))
  job_yaml gpu-wait "$TOOLS" Never "true" "$gpus" >"$TMP/job.json"
  ok P submit -f "$TMP/job.json" -n "$NS" --skip-gpu-check
  local pod; unscheduled_pod gpu-wait
  step explain
  explain_both gpu-wait
  has_finding InsufficientGpu Worker "pod $pod waits: no node it may use has $gpus free nvidia.com/gpu" "Insufficient nvidia.com/gpu"
  has_finding InsufficientGpu Worker "" "node $TFJOB_REALNODE_NODE: allocatable $TFJOB_REALNODE_GPUS nvidia.com/gpu, 0 taken by pods of this job"
  has_finding WaitingFor Worker "waits for Worker 0: $pod (Pending)"
  contains "$XT" "[InsufficientGpu]"
  contains "$XT" "0/1 nodes are available: 1 Insufficient nvidia.com/gpu."
  step describe
  ok P describe gpu-wait -n "$NS"
  contains "$OUT" "Why:
  pod $pod waits: no node it may use has $gpus free nvidia.com/gpu"
}
# a nodeSelector no node has: submit warns first; then the scheduler's reason, in 1.20's words
explain_selector() {
  step submit
  job_yaml sel-wait "$TOOLS" Never "true" | jq '.spec.tfReplicaSpecs.Worker.template.spec.nodeSelector = {pool: "training"}' >"$TMP/job.json"
  ok P submit -f "$TMP/job.json" -n "$NS"
  contains "$ERR" "[NoNodeMatches]"
  local pod; unscheduled_pod sel-wait
  step explain
  explain_both sel-wait
  has_finding NodeSelectorMismatch Worker "pod $pod waits: no node matches its nodeSelector/affinity" "node $TFJOB_REALNODE_NODE: lacks pool=training"
  has_finding NodeSelectorMismatch Worker "" "didn't match Pod's node affinity"  # 1.20's words
  lacks_finding Unschedulable
  contains "$XT" "[NodeSelectorMismatch]"
}
# a claim with no StorageClass and no volume for it: the PV controller's reason, through the pod
explain_claim() {
  step claim
  ka apply -f - >/dev/null <<Y
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data, namespace: $NS}
spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
Y
  said() { has_event data FailedBinding; }
  until_ok 60 said || fail "the PV controller said nothing about claim data: $(ka get events -n "$NS")"
  step submit
  job_yaml claim-wait "$TOOLS" Never "true" | jq '.spec.tfReplicaSpecs.Worker.template.spec |= (.volumes = [{name: "data", persistentVolumeClaim: {claimName: "data"}}]
    | .containers[0].volumeMounts = [{name: "data", mountPath: "/data"}])' >"$TMP/job.json"
  ok P submit -f "$TMP/job.json" -n "$NS"
  contains "$ERR" "persistentvolumeclaim/data is Pending"
  local pod; unscheduled_pod claim-wait
  step explain
  explain_both claim-wait
  has_finding ClaimNotBound Worker "pod $pod waits for claim \"data\": FailedBinding: no persistent volumes available for this claim and no storage class is set" \
    'persistentvolumeclaim/data: Pending, accessModes ["ReadWriteOnce"], storageClassName <none>'
  has_finding ClaimNotBound Worker "" "unbound immediate PersistentVolumeClaims"
  contains "$XT" "[ClaimNotBound]"
}
# restartPolicy ExitCode: the first attempt exits 137 (what the OOM killer's SIGKILL leaves), so
# the operator recreates the pod; the second runs, then exits 1, permanent, and the job fails. (The
# second waits for /state/go, given once the operator has seen it Running: a pod that fails before
# that leaves the job Restarting for good, by the operator's own rule; explain says so, see
# StuckRestarting in docs/explain.md.) Then the pods go (cleanPodPolicy All, applied by the
# operator to the finished job): what is still known.
explain_exitcode() {
  need_controller
  mkdir -p "$TMP/state"; chmod 777 "$TMP/state"
  step submit
  job_yaml exit-codes "$TOOLS" ExitCode 'echo "attempt"; if [ ! -f /state/ran ]; then : >/state/ran; exit 137; fi
    until [ -f /state/go ]; do sleep 0.1; done; echo "Traceback: a transient error"; exit 1' \
    | jq --arg p "$TMP/state" '.spec.runPolicy.backoffLimit = 3 | .spec.tfReplicaSpecs.Worker.template.spec |= (.volumes = [{name: "state", hostPath: {path: $p}}]
      | .containers[0].volumeMounts = [{name: "state", mountPath: "/state"}])' >"$TMP/job.json"
  ok P submit -f "$TMP/job.json" -n "$NS"
  restarted() { has_event exit-codes TFJobRestarting; }
  until_ok 90 restarted || fail "the operator did not recreate the pod that exited 137: $(ka get events -n "$NS")"
  running_again() { job_phase exit-codes Running; }
  until_ok 90 running_again || fail "the recreated pod was not seen Running: $(ka get tfjob exit-codes -n "$NS" -o jsonpath='{.status}')"
  step explain-running
  explain_both exit-codes
  has_finding OperatorRestarted "" "because Worker replica(s) failed" "event TFJobRestarting"
  has_finding OperatorRestarted "" "only after an exit code of 128 or above"
  has_finding WaitingFor Worker "waits for Worker 0: exit-codes-worker-0 (Running)"
  lacks_finding FirstFailure
  : >"$TMP/state/go"
  failed() { job_phase exit-codes Failed; }
  until_ok 90 failed || fail "the job did not fail: $(ka get tfjob exit-codes -n "$NS" -o jsonpath='{.status}')"
  step explain-failed
  explain_both exit-codes
  jq -e '.state == "Failed" and .podsGone == false and .findings[0].code == "FirstFailure"' <<<"$X" >/dev/null || fail "want Failed, FirstFailure first: $X"
  has_finding FirstFailure Worker "Worker (pod exit-codes-worker-0) failed first, with exit code 1 (Error): restartPolicy ExitCode treats exit codes 1-127 as permanent" \
    "log: Traceback: a transient error"
  has_finding OperatorRestarted "" "because Worker replica(s) failed"
  has_finding BackoffLimit "" "not counted: Worker (ExitCode)"
  lacks_finding StuckRestarting
  contains "$XT" "TFJob $NS/exit-codes: Failed"
  contains "$XT" "✗ Worker (pod exit-codes-worker-0) failed first, with exit code 1"
  step pods-gone
  ka patch tfjob exit-codes -n "$NS" --type merge -p '{"spec":{"runPolicy":{"cleanPodPolicy":"All"}}}' >/dev/null
  gone() { [ -z "$(ka get pods -n "$NS" -l training.kubeflow.org/job-name=exit-codes -o name)" ]; }
  until_ok 60 gone || fail "cleanPodPolicy All left pods: $(ka get pods -n "$NS" -o name)"
  explain_both exit-codes
  jq -e '.podsGone == true' <<<"$X" >/dev/null || fail "podsGone: $X"
  has_finding PodsGone "" "exit codes, termination messages and logs can no longer be known" "1 Worker replica(s) failed"
  lacks_finding FirstFailure
}
# a PS serves until it is killed: after the Chief succeeds it still runs, and that is normal
explain_ps() {
  need_controller
  step submit
  job_yaml ps-after "$TOOLS" Never 'echo training; sleep 2; echo done' \
    | jq '.spec.tfReplicaSpecs |= {Chief: .Worker, PS: (.Worker | .template.spec.containers[0].command = ["/bin/sh", "-c", "echo ps up; exec sleep 300"])}' >"$TMP/job.json"
  ok P submit -f "$TMP/job.json" -n "$NS" --wait --timeout 90s
  ps_running() { phase_is ps-after-ps-0 Running; }
  ps_running || fail "the PS is not running: $(ka get pods -n "$NS" -o wide)"
  step explain
  explain_both ps-after
  jq -e '.state == "Succeeded"' <<<"$X" >/dev/null || fail "want Succeeded: $X"
  has_finding NeverExitsOnItsOwn PS "PS pods still run after the job Succeeded: normal" "ps-after-ps-0"
  has_finding NeverExitsOnItsOwn PS "cleanPodPolicy None leaves them running"
  has_finding SuccessDecidedBy Chief "success is decided by the Chief" 
  has_finding SuccessDecidedBy Chief "PS do not decide it"
  lacks_finding WaitingFor
  contains "$XT" "TFJob $NS/ps-after: Succeeded"
  contains "$XT" "[NeverExitsOnItsOwn]"
  step describe
  ok P describe ps-after -n "$NS"
  contains "$OUT" "PS pods still run after the job Succeeded: normal"
}

# ---- logs of every replica (issue 15), as functions: logs-replicas, logs-states --------------

# count LITERAL TEXT: how many lines of TEXT contain LITERAL
count() { grep -cF -- "$1" <<<"$2" || true; }
# once LITERAL TEXT WHAT: LITERAL in exactly one line of TEXT
once() { [ "$(count "$1" "$2")" = 1 ] || fail "want '$1' once in $3, got $(count "$1" "$2"): $2"; }

# A Chief (an init container, a sidecar), 2 Workers and a PS, cleanPodPolicy: All, on the real
# kubelet: --all's reading order and prefixes, --merge by the kubelet's timestamps, the
# filters and their errors, -o json's schema, --all-containers with init container and
# sidecar, byte-exact (CR, invalid UTF-8, a 1 MiB line, an unterminated last line), and after
# the operator's cleanup deleted every pod: what logs -f --save kept, and archive's manifest.
scenario_logs_replicas() {
  need_controller
  mkdir -p "$TMP/state"; chmod 777 "$TMP/state"
  # each replica: 15 ticks 0.2 s apart (the replicas overlap in time: what --merge orders)
  local ticks='h=$(cat /etc/hostname); i=0; while [ $i -lt 15 ]; do echo "tick $i from $h"; i=$((i+1)); sleep 0.2; done'
  # the PS writes the awkward bytes (after 4 s: logs -f --save is following it by then, with
  # timestamps on the wire, one per 16 KiB CRI entry of the 1 MiB line), the chief waits for
  # the test's go before it ends the job
  local exact='printf "cr\r\nprogress 10%%\rprogress 100%%\nbad \377\376 utf-8\n"; printf "%01048576d\n" 0; printf "no newline at the end"'
  # what the runtime records: containerd's log reader (bufio ReadLine, pkg/cri/io/logger.go)
  # drops the '\r' of a "\r\n" line end; a '\r' inside a line stays
  sh -c "$exact" | LC_ALL=C sed 's/\r$//' >"$TMP/ps.expected"
  jq -n --arg ticks "$ticks" --arg exact "$exact" --arg state "$TMP/state" --arg img "$TOOLS" '
    def c($name; $cmd): {name: $name, image: $img, imagePullPolicy: "Never", command: ["/bin/sh", "-c", $cmd]};
    {apiVersion: "kubeflow.org/v1", kind: "TFJob", metadata: {name: "rep"},
     spec: {runPolicy: {cleanPodPolicy: "All"}, tfReplicaSpecs: {
       Chief: {replicas: 1, restartPolicy: "Never", template: {spec: {terminationGracePeriodSeconds: 2,
         initContainers: [c("init"; "echo init says hi")],
         containers: [c("tensorflow"; $ticks + "; while [ ! -f /state/go ]; do sleep 0.2; done; echo chief done")
                        + {volumeMounts: [{name: "state", mountPath: "/state"}]},
                      c("sidecar"; "echo sidecar line")],
         volumes: [{name: "state", hostPath: {path: $state}}]}}},
       Worker: {replicas: 2, restartPolicy: "Never", template: {spec: {terminationGracePeriodSeconds: 2,
         containers: [c("tensorflow"; $ticks + "; echo worker done")]}}},
       PS: {replicas: 1, restartPolicy: "Never", template: {spec: {terminationGracePeriodSeconds: 2,
         containers: [c("tensorflow"; "sleep 4; " + $exact)]}}}}}}' >"$TMP/rep.json"
  step submit
  ok P submit -f "$TMP/rep.json" -n "$NS"
  step follow-needs-max-log-requests
  # 6 streams: chief's init, tensorflow and sidecar, 2 workers, the PS (kubectl's default limit is 5)
  run P logs rep -n "$NS" --all-containers -f
  [ "$RC" = 64 ] || fail "logs --all-containers -f of 6 streams: exit $RC, want 64: $ERR"
  contains "$ERR" "you are attempting to follow 6 log streams, but maximum allowed concurrency is 5, use --max-log-requests to increase the limit"
  step follow-save
  bg_plugin saver logs rep -n "$NS" --all-containers -f --max-log-requests 8 --save "$TMP/saved" --color never
  local saver=$BGPID
  others_done() {
    [ "$(ka get pods -n "$NS" -l training.kubeflow.org/job-name=rep -o json | jq '[.items[] | select(.status.phase == "Succeeded")] | length')" = 3 ] &&
      ka logs rep-chief-0 -n "$NS" -c tensorflow | grep -q "tick 14 from"
  }
  until_ok 120 others_done || fail "the replicas did not write their ticks: $(ka get pods -n "$NS" -o wide)"

  step order
  ok P logs rep -n "$NS" --all --color never
  local order; order=$(grep -o '^\[[a-z]*-[0-9]*\]' <<<"$OUT" | uniq | tr '\n' ' ')
  [ "$order" = "[chief-0] [worker-0] [worker-1] [ps-0] " ] || fail "--all reading order: $order"
  once "[worker-1] tick 14 from rep-worker-1" "$OUT" "--all"
  [ "$(count "[worker-0] tick " "$OUT")" = 15 ] || fail "worker-0's ticks: $OUT"
  ok P logs rep -n "$NS" --all -o wide --tail 1 --color never
  contains "$OUT" "[worker-1 rep-worker-1] worker done"
  step colour
  ok P logs rep -n "$NS" --all --tail 1 --color always
  contains "$OUT" $'\033['

  step merge
  ok P logs rep -n "$NS" --all --merge --timestamps --include '^tick ' --color never
  [ "$(wc -l <<<"$OUT")" = 45 ] || fail "--merge: want the 45 ticks of chief and workers, got $(wc -l <<<"$OUT")"
  # one timeline: the kubelet's timestamps never go back, and the replicas interleave
  awk '{ if (prev != "" && $2 < prev) { print "out of order at line " NR ": " $0; exit 1 } prev = $2 }' <<<"$OUT" >"$TMP/order" \
    || fail "--merge is not in timestamp order: $(cat "$TMP/order")"
  local switches; switches=$(awk '{ print $1 }' <<<"$OUT" | uniq | wc -l)
  [ "$switches" -gt 6 ] || fail "--merge did not interleave the replicas (prefix changes: $switches): $OUT"
  ok P logs rep -n "$NS" --all --timestamps --include '^tick ' --color never
  [ "$(awk '{ print $1 }' <<<"$OUT" | uniq | wc -l)" = 3 ] || fail "without --merge, each replica's lines together: $OUT"

  step filters
  ok P logs rep -n "$NS" --replica worker --index 1 --tail 2
  [ "$OUT" = "$(printf 'tick 14 from rep-worker-1\nworker done')" ] || fail "--replica worker --index 1 --tail 2: $OUT"
  ok P logs rep -n "$NS" --replica Chief,Worker --include 'tick 1[0-4] ' --exclude 'rep-worker-0' --color never
  [ "$(wc -l <<<"$OUT")" = 10 ] || fail "--include/--exclude: want 5 ticks of chief-0 and worker-1: $OUT"
  lacks "$OUT" "worker-0"
  ok P logs rep -n "$NS" --index 1 --since 1h --color never
  [ "$(count "tick " "$OUT")" = 15 ] && [ "$(count "from rep-worker-1" "$OUT")" = 15 ] || fail "--index 1 of every type (only Worker has one): $OUT"
  ok P logs rep -n "$NS" --replica worker --index 0 --highlight 'tick [0-9]+' --color always --tail 1
  contains "$OUT" "worker done"
  ok P logs rep -n "$NS" --replica worker --index 0 --highlight 'tick [0-9]+' --color always --tail 2
  contains "$OUT" $'\033[1m\033[31mtick 14\033[0m from rep-worker-0'

  step bad-input
  run P logs rep -n "$NS" --index 7
  [ "$RC" != 0 ] || fail "--index 7 succeeded"
  contains "$ERR" "TFJob \"rep\" has no replica with index 7: its replicas are Chief 0; PS 0; Worker 0-1"
  run P logs rep -n "$NS" --replica evaluator
  contains "$ERR" "TFJob \"rep\" has no evaluator replicas; it has Chief, PS, Worker"
  run P logs rep -n "$NS" --since 5
  [ "$RC" = 64 ] || fail "--since 5: exit $RC, want 64"
  contains "$ERR" "missing unit in duration \"5\""
  run P logs rep -n "$NS" --include '('
  [ "$RC" = 64 ] || fail "--include '(': exit $RC, want 64"
  contains "$ERR" "invalid regular expression \"(\""

  step json
  ok P logs rep -n "$NS" --all -o json
  [ "$(wc -l <<<"$OUT")" -gt 45 ] || fail "-o json: too few lines"
  # every line one object with the documented fields (docs/logs.md)
  jq -e --arg ns "$NS" -s 'all(.[]; (keys - ["partial"]) == ["attempt","container","index","job","line","namespace","pod","replicaType","stream","time"]
    and .job == "rep" and .namespace == $ns and (.replicaType | IN("chief","worker","ps")) and (.index | type) == "number"
    and .pod == "rep-\(.replicaType)-\(.index)" and .container == "tensorflow" and .attempt == 0 and .stream == "all"
    and (.time | test("^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z$")) and (.line | type) == "string")' <<<"$OUT" >/dev/null \
    || fail "-o json schema: $(head -3 <<<"$OUT")"
  jq -e -s '[.[] | select(.replicaType == "ps") | .line] | any(. == "bad \ufffd\ufffd utf-8")' <<<"$OUT" >/dev/null \
    || fail "-o json: invalid UTF-8 not replaced by U+FFFD"
  jq -e -s '[.[] | select(.replicaType == "worker" and .index == 1 and (.line | startswith("tick")))] | length == 15' <<<"$OUT" >/dev/null \
    || fail "-o json: worker-1's ticks"

  step all-containers
  ok P logs rep -n "$NS" --replica chief --all-containers --color never
  local cs; cs=$(grep -o '^\[chief-0/[a-z]*\]' <<<"$OUT" | uniq | tr '\n' ' ')
  [ "$cs" = "[chief-0/init] [chief-0/tensorflow] [chief-0/sidecar] " ] || fail "--all-containers: init container, then tensorflow, then the sidecar: $cs"
  once "[chief-0/init] init says hi" "$OUT" "--all-containers"
  once "[chief-0/sidecar] sidecar line" "$OUT" "--all-containers"
  ok P logs rep -n "$NS" --replica chief -c init
  [ "$OUT" = "init says hi" ] || fail "-c init: $OUT"

  step exact
  P logs rep -n "$NS" --replica ps >"$TMP/ps.out" 2>"$TMP/ps.err" || fail "logs --replica ps: $(cat "$TMP/ps.err")"
  cmp "$TMP/ps.expected" "$TMP/ps.out" || fail "logs --replica ps differs from what the container wrote"
  api_get "/api/v1/namespaces/$NS/pods/rep-ps-0/log?container=tensorflow" >"$TMP/ps.curl"
  cmp "$TMP/ps.expected" "$TMP/ps.curl" || fail "the pods/log API differs from what the container wrote"
  ka logs rep-ps-0 -n "$NS" -c tensorflow >"$TMP/ps.kubectl"
  cmp "$TMP/ps.kubectl" "$TMP/ps.out" || fail "logs --replica ps differs from kubectl logs"
  ka logs rep-worker-1 -n "$NS" -c tensorflow >"$TMP/w1.kubectl"

  step cleanup-deletes-pods
  : >"$TMP/state/go"
  bg_wait "$saver" 0 saver
  gone() { [ -z "$(ka get pods -n "$NS" -l training.kubeflow.org/job-name=rep -o name)" ]; }
  until_ok 60 gone || fail "cleanPodPolicy All left pods: $(ka get pods -n "$NS" -o name)"
  step saved
  cmp "$TMP/ps.expected" "$TMP/saved/rep-ps-0.tensorflow.log" || fail "--save: the PS's bytes differ"
  cmp "$TMP/w1.kubectl" "$TMP/saved/rep-worker-1.tensorflow.log" || fail "--save: worker-1's log differs from kubectl logs"
  [ "$(cat "$TMP/saved/rep-chief-0.init.log")" = "init says hi" ] || fail "--save: the init container's log"
  [ "$(cat "$TMP/saved/rep-chief-0.sidecar.log")" = "sidecar line" ] || fail "--save: the sidecar's log"
  [ "$(tail -1 "$TMP/saved/rep-chief-0.tensorflow.log")" = "chief done" ] || fail "--save: the chief's last line"
  [ "$(count "tick " "$(cat "$TMP/saved/rep-chief-0.tensorflow.log")")" = 15 ] || fail "--save: the chief's ticks"
  step archive
  ok P archive rep -n "$NS" -o "$TMP/ar"
  contains "$ERR" "not archived: pods: none left: the job is Succeeded and its cleanPodPolicy is All"
  jq -e '.state == "Succeeded" and (.missing | length) == 1 and .missing[0].what == "pods"' "$TMP/ar/manifest.json" >/dev/null \
    || fail "archive manifest: $(cat "$TMP/ar/manifest.json")"
  grep -q "cleanPodPolicy: All" "$TMP/ar/tfjob.yaml" || fail "archive: the TFJob as stored"
  [ -s "$TMP/ar/describe.txt" ] && [ -s "$TMP/ar/events.yaml" ] || fail "archive: describe and events"
  grep -q "SuccessfulDeletePod" "$TMP/ar/events.yaml" || fail "archive: the operator's cleanup events"
  [ ! -e "$TMP/ar/logs" ] || fail "archive: logs of pods that are gone"
}

# State changes on the real kubelet, each said once while following: OOMKilled (the kernel's
# OOM killer in the container's memory cgroup), restarted (attempt 2), --previous; a pod
# deleted while followed, and --save across it.
scenario_logs_states() {
  need_controller
  mkdir -p "$TMP/state"; chmod 777 "$TMP/state"
  with_state() { jq --arg p "$TMP/state" '.spec.tfReplicaSpecs.Worker.template.spec |= (.volumes = [{name: "state", hostPath: {path: $p}}]
    | .containers[0].volumeMounts = [{name: "state", mountPath: "/state"}])'; }
  step oomkilled
  # attempt 1 reads 200 MB into a shell variable under a 32 MiB limit; attempt 2 does not,
  # and waits for the test's go before it ends the job
  job_yaml oom "$TOOLS" OnFailure 'echo attempt start; if [ ! -f /state/oom ]; then : >/state/oom; x=$(yes | head -c 200000000); fi; echo survived; while [ ! -f /state/go ]; do sleep 0.2; done' \
    | with_state | jq '.spec.tfReplicaSpecs.Worker.template.spec.containers[0].resources = {limits: {memory: "32Mi"}}' >"$TMP/oom.json"
  ok P submit -f "$TMP/oom.json" -n "$NS"
  bg_plugin oomf logs oom -n "$NS" -f --color never
  local oomf=$BGPID
  second() { [ "$(ka get pod oom-worker-0 -n "$NS" -o jsonpath='{.status.containerStatuses[0].restartCount}')" = 1 ] && grep -q survived "$TMP/oomf.out"; }
  until_ok 90 second || fail "no second attempt: $(ka get pod oom-worker-0 -n "$NS" -o jsonpath='{.status.containerStatuses[0]}')"
  [ "$(ka get pod oom-worker-0 -n "$NS" -o jsonpath='{.status.containerStatuses[0].lastState.terminated.reason}')" = OOMKilled ] \
    || fail "the kubelet did not report OOMKilled: $(ka get pod oom-worker-0 -n "$NS" -o jsonpath='{.status.containerStatuses[0]}')"
  step previous
  # while attempt 2 runs, the kubelet keeps attempt 1's container: --previous reads it
  ok P logs oom -n "$NS" --previous
  [ "$OUT" = "attempt start" ] || fail "--previous: want the OOMKilled attempt's log: $OUT"
  ok P logs oom -n "$NS"
  [ "$OUT" = "$(printf 'attempt start\nsurvived')" ] || fail "the current attempt: $OUT"
  ok P logs oom -n "$NS" -o json
  jq -e -s 'length == 2 and all(.[]; .attempt == 1)' <<<"$OUT" >/dev/null || fail "-o json: the current attempt is attempt 1: $OUT"
  step state-lines
  : >"$TMP/state/go"
  bg_wait "$oomf" 0 oomf
  local out err; out=$(cat "$TMP/oomf.out"); err=$(cat "$TMP/oomf.err")
  [ "$(count "attempt start" "$out")" = 2 ] || fail "want each attempt's first line once: $out"
  once "survived" "$out" "stdout"
  once "terminated: exit code 137 (OOMKilled)" "$err" "stderr"
  once "restarted (restart 1, attempt 2)" "$err" "stderr"
  once "terminated: exit code 0 (Completed)" "$err" "stderr"
  step previous-gone
  # both attempts ended: the kubelet's garbage collection keeps one ended container per pod
  # container, so attempt 1 may be gone by now; then the kubelet answers 200 with its error
  # as the body, which is an error to the user, never printed as the log
  run P logs oom -n "$NS" --previous
  if [ "$RC" = 0 ]; then
    [ "$OUT" = "attempt start" ] || fail "--previous after the job ended: $OUT"
  else
    contains "$ERR" "the kubelet has no log of the previous attempt of container tensorflow of pod oom-worker-0"
    lacks "$OUT" "unable to retrieve"
  fi

  step pod-deleted
  # a user deletes the followed pod: said once, what it wrote is kept by --save; the operator
  # v1.9 counts a Running pod being deleted as failed (updateJobReplicaStatuses), so the job
  # fails and logs -f ends with it (recreated pods: realnode.logs-restarts)
  job_yaml del "$TOOLS" Never 'echo first pod; sleep 300' >"$TMP/del.json"
  ok P submit -f "$TMP/del.json" -n "$NS"
  bg_plugin lf logs del -n "$NS" -f --save "$TMP/dsaved" --color never
  local lf=$BGPID
  first() { grep -q "first pod" "$TMP/lf.out"; }
  until_ok 90 first || fail "logs -f did not stream the first pod: $(cat "$TMP/lf.err")"
  # (forced: the pod object goes at once, as a lost node's pods do; the kubelet kills the
  # container after it)
  ka delete pod del-worker-0 -n "$NS" --grace-period=0 --force >/dev/null 2>&1
  bg_wait "$lf" 1 lf
  out=$(cat "$TMP/lf.out"); err=$(cat "$TMP/lf.err")
  [ "$out" = "first pod" ] || fail "logs -f of the deleted pod: $out"
  once "pod del-worker-0 was deleted" "$err" "stderr"
  contains "$err" "TFJob del Failed"
  [ "$(cat "$TMP/dsaved/del-worker-0.tensorflow.log")" = "first pod" ] \
    || fail "--save: what the deleted pod wrote: $(cat "$TMP/dsaved/del-worker-0.tensorflow.log")"
  grep -q "deleted del-worker-0" "$TMP/dsaved/events.log" || fail "--save: events.log: $(cat "$TMP/dsaved/events.log")"
}

case "$CASE" in
explain-gpu|explain-selector|explain-claim|explain-exitcode|explain-ps) "explain_${CASE#explain-}" ;;
logs|logs-exact)
  # the bytes the container writes: lines, a tab, UTF-8; logs-exact adds what the issue asks
  # to survive too: a 20 kB line, which the CRI log splits into 16 KiB partial entries
  # (containerd max_container_log_line_size) that the kubelet joins again, and a last line
  # without a newline
  script='printf "first line\n"; seq -f "line %g of the chief" 1 20000; printf "tab\there, UTF-8 \303\251\n"'
  [ "$CASE" = logs-exact ] && script="$script"'; printf "%020000d\n" 0; printf "last line without a newline"'
  sh -c "$script" >"$TMP/expected"
  step submit
  job_yaml logs-bytes "$TOOLS" Never "$script" >"$TMP/job.json"
  ok P submit -f "$TMP/job.json" -n "$NS"
  play_operator logs-bytes
  until_ok 60 has_pod logs-bytes || fail "no chief pod for logs-bytes"
  pod=$(chief_pod logs-bytes)
  step run
  phase_ok() { phase_is "$pod" Succeeded; }
  until_ok 90 phase_ok || fail "pod $pod did not succeed: $(ka describe pod "$pod" -n "$NS" | tail -20)"
  [ "$(ka get pod "$pod" -n "$NS" -o jsonpath='{.spec.nodeName}')" = "$TFJOB_REALNODE_NODE" ] || fail "not on the real node"
  step kubectl-logs
  ka logs "$pod" -n "$NS" -c tensorflow >"$TMP/kubectl.out"
  cmp "$TMP/expected" "$TMP/kubectl.out" || fail "kubectl logs differs from what the container wrote"
  step curl
  api_get "/api/v1/namespaces/$NS/pods/$pod/log?container=tensorflow" >"$TMP/curl.out"
  cmp "$TMP/expected" "$TMP/curl.out" || fail "the pods/log API differs from what the container wrote"
  step plugin-logs
  P logs logs-bytes -n "$NS" >"$TMP/plugin.out" 2>"$TMP/plugin.err" || fail "kubectl tfjob logs: $(cat "$TMP/plugin.err")"
  cmp "$TMP/expected" "$TMP/plugin.out" || fail "kubectl tfjob logs differs: $(cmp "$TMP/expected" "$TMP/plugin.out" 2>&1; tail -c 40 "$TMP/plugin.out" | od -c | tail -3)"
  # -f ends when the job ends: the operator's Succeeded condition, so only with the controller
  controller_running || { echo "PASS $CASE (logs -f not checked: no controller to end the job)" >&2; exit 0; }
  step plugin-logs-follow
  P logs logs-bytes -n "$NS" -f >"$TMP/follow.out" 2>"$TMP/follow.err" || fail "kubectl tfjob logs -f: $(cat "$TMP/follow.err")"
  cmp "$TMP/expected" "$TMP/follow.out" || fail "kubectl tfjob logs -f differs: $(cmp "$TMP/expected" "$TMP/follow.out" 2>&1; tail -c 40 "$TMP/follow.out" | od -c | tail -3)"
  ;;

unschedulable|unschedulable-wait)
  step submit-wait
  job_yaml gpu-hog "$TOOLS" Never "sleep 1" 16 >"$TMP/job.json"
  bg_plugin submit submit -f "$TMP/job.json" -n "$NS" --skip-gpu-check --wait --timeout 25s
  pid=$BGPID
  until_ok 30 tfjob_exists gpu-hog || fail "submit did not create the TFJob: $(cat "$TMP/submit.err")"
  play_operator gpu-hog
  bg_wait "$pid" 2 submit
  contains "$(cat "$TMP/submit.err")" "Insufficient nvidia.com/gpu"
  step scheduler-event
  pod=$(chief_pod gpu-hog)
  # (kube-scheduler 1.20 writes events.k8s.io events: reportingController, core's source.component)
  sched_event() { ka get events -n "$NS" -o json | jq -e --arg pod "$pod" '[.items[] | select(.involvedObject.name == $pod
    and .reason == "FailedScheduling" and ((.reportingComponent // .source.component // "") | startswith("default-scheduler")))] | length > 0'; }
  until_ok 30 sched_event || fail "no FailedScheduling event from default-scheduler: $(ka get events -n "$NS" -o wide)"
  step wait
  run P wait gpu-hog -n "$NS" --for=condition=Running --timeout=5s
  [ "$RC" = 2 ] || fail "wait: exit $RC, want 2 (timed out): $ERR"
  # (unschedulable-wait: wait's timeout message names the scheduler's reason, as submit --wait's does)
  [ "$CASE" = unschedulable-wait ] && contains "$ERR" "Insufficient nvidia.com/gpu"
  step describe
  ok P describe gpu-hog -n "$NS"
  contains "$OUT" "FailedScheduling"
  contains "$OUT" "0/1 nodes are available: 1 Insufficient nvidia.com/gpu."
  ;;

image-missing)
  step submit-wait
  job_yaml no-image tfjob.local/not-on-this-node:v1 Never "true" >"$TMP/job.json"
  # a timeout far beyond the kubelet's first answer: the wait must end on that answer (exit
  # 1, "cannot start"), not run out (exit 2, "timed out")
  bg_plugin submit submit -f "$TMP/job.json" -n "$NS" --wait --timeout 600s
  pid=$BGPID
  until_ok 30 tfjob_exists no-image || fail "submit did not create the TFJob: $(cat "$TMP/submit.err")"
  play_operator no-image
  bg_wait "$pid" 1 submit
  contains "$(cat "$TMP/submit.err")" "a pod cannot start"
  contains "$(cat "$TMP/submit.err")" "ErrImageNeverPull: Container image \"tfjob.local/not-on-this-node:v1\" is not present with pull policy of Never"
  contains "$(cat "$TMP/submit.err")" "load it onto the node"
  lacks "$(cat "$TMP/submit.err")" "timed out"
  step wait
  run P wait no-image -n "$NS" --timeout 600s
  [ "$RC" = 1 ] || fail "wait on a pod that cannot start: exit $RC: $ERR"
  contains "$ERR" "ErrImageNeverPull"
  step kubelet-reason
  pod=$(chief_pod no-image)
  [ "$(ka get pod "$pod" -n "$NS" -o jsonpath='{.status.containerStatuses[0].state.waiting.reason}')" = ErrImageNeverPull ] \
    || fail "the kubelet's reason: $(ka get pod "$pod" -n "$NS" -o jsonpath='{.status.containerStatuses[0].state}')"
  step describe
  ok P describe no-image -n "$NS"
  contains "$OUT" "ErrImageNeverPull"
  ;;

serve|serve-crash-log)
  step volume
  # a model on a hostPath volume, bound by the real PV controller: export/sv/1/saved_model.pb
  mkdir -p "$TMP/models/export/sv/1"
  printf 'not a real SavedModel: the stand-in serves what it finds' >"$TMP/models/export/sv/1/saved_model.pb"
  ka apply -f - >/dev/null <<Y
apiVersion: v1
kind: PersistentVolume
metadata: {name: $NS-models}
spec:
  capacity: {storage: 1Gi}
  accessModes: [ReadOnlyMany, ReadWriteOnce]
  storageClassName: ""
  claimRef: {namespace: $NS, name: models}
  hostPath: {path: $TMP/models, type: Directory}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: models, namespace: $NS}
spec:
  accessModes: [ReadOnlyMany]
  storageClassName: ""
  resources: {requests: {storage: 1Gi}}
Y
  bound() { [ "$(ka get pvc models -n "$NS" -o jsonpath='{.status.phase}')" = Bound ]; }
  until_ok 60 bound || fail "the PV controller did not bind the claim"
  step serve
  ok P serve sv --pvc models:export --gpus 0 --image tfjob.local/tfserving-standin:v1 -n "$NS" --timeout 120s
  contains "$OUT$ERR" "AVAILABLE"
  d=$(ka get deployment sv -n "$NS" -o json)
  [ "$(jq -r '.status.availableReplicas' <<<"$d")" = 1 ] || fail "the deployment controller did not roll out: $(jq -c .status <<<"$d")"
  ka get replicasets -n "$NS" -o name | grep -q . || fail "no ReplicaSet: the deployment controller did not run"
  step predict
  # JPEG magic and a JFIF header: what TF Serving's DecodeJpeg needs to start
  printf '\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00\xff\xd9' >"$TMP/cat.jpg"
  ok P predict sv --image "$TMP/cat.jpg" --top 3 -n "$NS"
  contains "$OUT" "1"
  step model-through-the-proxy
  st=$(api_get "/api/v1/namespaces/$NS/services/sv:8501/proxy/v1/models/sv")
  [ "$(jq -r '.model_version_status[0].state' <<<"$st")" = AVAILABLE ] || fail "model status through the real proxy: $st"
  step crash-loop
  run P serve bad --pvc models:export --gpus 0 --image tfjob.local/tfserving-standin:v1 --arg=--no_such_flag -n "$NS" --timeout 120s
  [ "$RC" = 1 ] || fail "serve of a crash-looping server: exit $RC, want 1: $OUT $ERR"
  contains "$OUT$ERR" "CrashLoopBackOff"
  contains "$OUT$ERR" "Back-off restarting failed container"
  # (serve-crash-log: the crashed attempt's own words. While a container waits in
  # CrashLoopBackOff the kubelet serves the last attempt as the current log; previous=true
  # names the attempt before it, which the kubelet has already removed)
  [ "$CASE" = serve-crash-log ] && contains "$OUT$ERR" "unknown command line flag 'no_such_flag'"
  ;;

gpu-check)
  [ -f "$IMAGES/gpu-probe.tar" ] || { echo "SKIPPED: no GPU probe image (tfjob-gpu-probe not built: no nvcc?)" >&2; exit 77; }
  step import
  ctr --address "$TFJOB_REALNODE_CONTAINERD" -n k8s.io images import "$IMAGES/gpu-probe.tar" >/dev/null \
    || fail "could not import the probe image"
  step probe
  run P gpu-check -n "$NS" --timeout 120s
  contains "$OUT$ERR" "$TFJOB_REALNODE_NODE"
  contains "$OUT$ERR" "no NVIDIA driver"
  step interrupt
  bg_plugin gc gpu-check -n "$NS" --timeout 120s
  pid=$BGPID
  probe_pod() { [ -n "$(ka get pods -n "$NS" -o name 2>/dev/null)" ]; }
  until_ok 60 probe_pod || fail "no probe pod appeared: $(cat "$TMP/gc.err")"
  ctrl_c "$pid"
  bg_wait "$pid" 130 gc
  contains "$(cat "$TMP/gc.err")" "interrupted by SIGINT"
  until_ok 60 no_pods_left || fail "probe pods left after Ctrl-C: $(ka get pods -n "$NS" -o name)"
  ;;

top)
  # `top node` and `top job` on the real node: the scheduler's GPU accounting (a worker
  # holding 2 of the node's 8 played GPUs) and a dcgm-exporter stand-in's metrics page read
  # through the real API server's pod proxy (the page's figures are this test's: no GPU here)
  [ -f "$IMAGES/dcgm.tar" ] || { echo "SKIPPED: no dcgm-exporter stand-in image (the dcgm-exporter-standin target is not built)" >&2; exit 77; }
  node=$TFJOB_REALNODE_NODE
  step exporter
  {
    echo '# HELP DCGM_FI_DEV_GPU_UTIL GPU utilization (in %).'
    echo '# TYPE DCGM_FI_DEV_GPU_UTIL gauge'
    for g in 0 1 2; do
      who=''; [ "$g" != 2 ] && who=",container=\"tensorflow\",namespace=\"$NS\",pod=\"gpujob-worker-0\""
      l="gpu=\"$g\",UUID=\"GPU-0000000$g-test-not-measured\",device=\"nvidia$g\",modelName=\"Tesla V100-SXM2-16GB\",Hostname=\"$node\"$who"
      util=$(( g == 2 ? 10 : 80 + 10 * g )); used=$(( g == 2 ? 0 : 12000 + 1000 * g ))
      echo "DCGM_FI_DEV_GPU_UTIL{$l} $util"
      echo "DCGM_FI_DEV_FB_USED{$l} $used"
      echo "DCGM_FI_DEV_FB_FREE{$l} $(( 16160 - used ))"
    done
  } >"$TMP/metrics.prom"
  ka create configmap dcgm-page -n "$NS" --from-file=metrics.prom="$TMP/metrics.prom" >/dev/null
  ka apply -n "$NS" -f - >/dev/null <<Y
apiVersion: v1
kind: Pod
metadata: {name: dcgm-exporter, labels: {app: nvidia-dcgm-exporter}}
spec:
  terminationGracePeriodSeconds: 1
  containers:
  - name: exporter
    image: tfjob.local/dcgm-exporter-standin:v1
    imagePullPolicy: Never
    args: [--file, /etc/dcgm/metrics.prom, --address, ":9400"]
    ports: [{name: metrics, containerPort: 9400}]
    volumeMounts: [{name: page, mountPath: /etc/dcgm}]
  volumes: [{name: page, configMap: {name: dcgm-page}}]
Y
  exporter_running() { phase_is dcgm-exporter Running; }
  until_ok 90 exporter_running || fail "the exporter stand-in did not start: $(ka get pod dcgm-exporter -n "$NS" -o jsonpath='{.status}')"
  step job
  job_yaml gpujob "$TOOLS" Never "sleep 600" 2 >"$TMP/job.json"
  ok P submit -f "$TMP/job.json" -n "$NS"
  play_operator gpujob
  worker_running() { phase_is gpujob-worker-0 Running; }
  until_ok 90 worker_running || fail "the GPU worker did not start: $(ka get pod gpujob-worker-0 -n "$NS" -o jsonpath='{.status}')"
  step top-node
  ok P top node -o json
  n=$(jq -c --arg n "$node" '.nodes[] | select(.node == $n)' <<<"$OUT")
  [ -n "$n" ] || fail "top node -o json has no $node: $OUT"
  [ "$(jq -c '[.allocatable, .requested, .free, .pods]' <<<"$n")" = "[$TFJOB_REALNODE_GPUS,2,$(( TFJOB_REALNODE_GPUS - 2 )),1]" ] \
    || fail "top node's GPU counts: $n"
  [ "$(jq -c '.metrics | [.gpusReporting, .utilizationPercent, .memoryUsedMiB, .memoryTotalMiB]' <<<"$n")" = "[3,60,25000,48480]" ] \
    || fail "top node's metrics (3 GPUs: 80, 90, 10 % and 12000+13000 MiB of 3x16160): $n"
  [ "$(jq -r '.metricsSources | join(",")' <<<"$OUT")" = "$NS/dcgm-exporter" ] || fail "metrics sources: $OUT"
  ok P top node
  contains "$OUT" "$node"
  contains "$OUT" "60%"                    # the mean of the three GPUs the exporter reports
  step top-job
  ok P top job -n "$NS" -o json
  j=$(jq -c '.jobs[] | select(.name == "gpujob")' <<<"$OUT")
  [ "$(jq -c '[.gpus, .replicas[0].type, .replicas[0].gpus, .replicas[0].nodes, .metrics.gpusReporting, .metrics.utilizationPercent, .metrics.memoryUsedMiB]' <<<"$j")" \
    = "[2,\"worker\",2,[\"$node\"],2,85,25000]" ] || fail "top job: $j"
  ok P top job -n "$NS"
  contains "$OUT" "gpujob"
  step no-exporter
  ka delete pod dcgm-exporter -n "$NS" --wait=true >/dev/null
  ok P top node
  contains "$OUT$ERR" "DCGM exporter is not installed"
  ;;

hello)
  need_controller
  step claim
  mkdir -p "$TMP/hello"
  ka apply -f - >/dev/null <<Y
apiVersion: v1
kind: PersistentVolume
metadata: {name: $NS-hello}
spec:
  capacity: {storage: 20Gi}   # submit's claim asks for --pvc-size (10Gi by default)
  accessModes: [ReadWriteMany, ReadWriteOnce]
  storageClassName: ""
  claimRef: {namespace: $NS, name: tfjob-hello}
  hostPath: {path: $TMP/hello, type: Directory}
Y
  step submit-follow
  ok P submit hello --workers 2 --follow -n "$NS"
  acc=$(grep -o 'accuracy[^0-9]*[0-9.]*' <<<"$OUT$ERR" | tail -1 | grep -o '[0-9.]*$')
  [ -n "$acc" ] || fail "no accuracy in the chief's log: $OUT"
  awk -v a="$acc" 'BEGIN { exit !(a > 0.80) }' || fail "accuracy $acc <= 0.80"
  n=$(ka get pods -n "$NS" -l training.kubeflow.org/job-name=hello -o name | wc -l)
  [ "$n" = 3 ] || fail "want 3 pods, got $n"
  step wait
  ok P wait hello -n "$NS" --for=condition=Succeeded --timeout=60s
  step delete
  ok P delete hello -n "$NS" --wait
  gc_done() { [ -z "$(ka get pods -n "$NS" -l training.kubeflow.org/job-name=hello -o name)" ]; }
  until_ok 60 gc_done || fail "pods left after delete: $(ka get pods -n "$NS" -o name)"
  ;;

logs-restarts)
  need_controller
  mkdir -p "$TMP/state"; chmod 777 "$TMP/state"
  # the job's pods keep state on a hostPath: the first attempt fails, the second succeeds
  with_state() { jq --arg p "$TMP/state" '.spec.tfReplicaSpecs.Worker.template.spec |= (.volumes = [{name: "state", hostPath: {path: $p}}]
    | .containers[0].volumeMounts = [{name: "state", mountPath: "/state"}])'; }
  step onfailure
  # OnFailure: the kubelet restarts the container in the same pod
  job_yaml restarts "$TOOLS" OnFailure 'for i in 1 2 3; do echo "attempt line $i"; done; if [ ! -f /state/ran ]; then : >/state/ran; sleep 5; exit 3; fi; echo done' \
    | with_state >"$TMP/job.json"
  ok P submit -f "$TMP/job.json" -n "$NS"
  ok P logs restarts -n "$NS" -f
  [ "$(grep -c '^attempt line 1$' <<<"$OUT")" = 2 ] || fail "want both attempts' lines once each: $OUT"
  [ "$(grep -cF "restarted (restart 1, attempt 2)" <<<"$ERR")" = 1 ] || fail "want the restart said once: $ERR"
  [ "$(grep -cF "terminated: exit code 3 (Error)" <<<"$ERR")" = 1 ] || fail "want the failed attempt's end said once: $ERR"
  [ "$(grep -c '^done$' <<<"$OUT")" = 1 ] || fail "want done once: $OUT"
  [ "$(ka get pod restarts-worker-0 -n "$NS" -o jsonpath='{.status.containerStatuses[0].restartCount}')" = 1 ] \
    || fail "the kubelet did not restart the container once"
  step exitcode
  # ExitCode: 130 is retryable (the operator's rule: exit codes above 127), the pod is recreated;
  # the first pod lives 5 s after its lines (the workload's shape: a deleted pod's log is gone
  # with it, so logs -f must be following it before the controller replaces it)
  rm -f "$TMP/state/ran"
  job_yaml recreated "$TOOLS" ExitCode 'for i in 1 2 3; do echo "attempt line $i"; done; if [ ! -f /state/ran ]; then : >/state/ran; sleep 5; exit 130; fi; echo done' \
    | with_state >"$TMP/job2.json"
  ok P submit -f "$TMP/job2.json" -n "$NS"
  ok P logs recreated -n "$NS" -f
  [ "$(grep -c '^attempt line 1$' <<<"$OUT")" = 2 ] || fail "want both pods' lines once each: $OUT"
  [ "$(grep -cF "was recreated; following the new pod" <<<"$ERR")" = 1 ] || fail "want the recreation said once: $ERR"
  [ "$(grep -c '^done$' <<<"$OUT")" = 1 ] || fail "want done once: $OUT"
  ;;

interrupt)
  need_controller
  step submit-follow
  job_yaml sleeper "$TOOLS" Never 'echo started; sleep 300' >"$TMP/job.json"
  bg_plugin sf submit -f "$TMP/job.json" -n "$NS" --follow
  pid=$BGPID
  started() { grep -q started "$TMP/sf.out"; }
  until_ok 60 started || fail "the chief did not start: $(cat "$TMP/sf.err")"
  ctrl_c "$pid"
  set +e; wait "$pid"; rc=$?; set -e
  [ "$rc" = 130 ] || fail "submit --follow after Ctrl-C: exit $rc, want 130"
  # what remains is the job the user submitted, nothing the command made for itself
  [ "$(ka get tfjobs -n "$NS" -o name)" = tfjob.kubeflow.org/sleeper ] || fail "unexpected jobs: $(ka get tfjobs -n "$NS" -o name)"
  step logs-follow
  # Ctrl-C while `logs -f` streams the running chief through the real kubelet: exit 130, the
  # stream's process gone, and the job and its pod exactly as they were (logs makes nothing)
  before=$(ka get tfjobs,pods,services,configmaps -n "$NS" -o name | sort)
  bg_plugin lf logs sleeper -f -n "$NS"
  pid=$BGPID
  streamed() { grep -q started "$TMP/lf.out"; }
  until_ok 60 streamed || fail "logs -f did not stream the chief: $(cat "$TMP/lf.err")"
  ctrl_c "$pid"
  set +e; wait "$pid"; rc=$?; set -e
  [ "$rc" = 130 ] || fail "logs -f after Ctrl-C: exit $rc, want 130: $(cat "$TMP/lf.err")"
  ! pgrep -f "kubectl-tfjob logs sleeper" >/dev/null || fail "logs -f is still running after Ctrl-C"
  after=$(ka get tfjobs,pods,services,configmaps -n "$NS" -o name | sort)
  [ "$before" = "$after" ] || fail "logs -f changed the namespace: before [$before] after [$after]"
  ;;

logs-replicas) scenario_logs_replicas ;;
logs-states) scenario_logs_states ;;

*) fail "unknown case $CASE" ;;
esac
echo "PASS $CASE" >&2
