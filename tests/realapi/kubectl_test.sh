#!/usr/bin/env bash
# The real kubectl against the realapi cluster (tests/realapi/cluster.sh): what a user's
# cluster answers, so what our SDK and plugin must agree with.
#   kubectl_test.sh CASE DIR      CASE: version | crud | apply-server-side | invalid |
#                                       rbac | exec | logs-follow | logs-errors
# Exit 0 pass, 1 fail, 77 skipped (the cluster's setup skipped: the skip rule, tests/support/skip.sh).
set -euo pipefail
CASE=${1:?case}; DIR=${2:?cluster dir}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
DATA=$(cd "$HERE/../data/realapi" && pwd)
. "$HERE/../support/skip.sh"
if [ ! -f "$DIR/env" ]; then
  tfjob_skip_recorded "$DIR/skip-reason" "no realapi cluster"
  echo "FAIL: no realapi cluster is up in $DIR (run: tests/realapi/cluster.sh up $DIR)" >&2
  exit 1
fi
if [ -f "$DIR/stopped" ]; then echo "FAIL: the realapi cluster is gone: $(cat "$DIR/stopped")" >&2; exit 1; fi
set -a; . "$DIR/env"; set +a
KUBECTL=${TFJOB_KUBECTL:-kubectl}
CL="$HERE/cluster.sh"
TMP=$(mktemp -d); BG=()
cleanup() { for p in "${BG[@]:-}"; do [ -n "$p" ] && kill "$p" 2>/dev/null || true; done; rm -rf "$TMP"; }
trap cleanup EXIT

fail() { echo "FAIL [$CASE]: $*" >&2; exit 1; }
k() { "$KUBECTL" --kubeconfig "$KUBECONFIG" "$@"; }
ka() { k --context realapi-cert "$@"; }
kl() { k --context realapi-limited "$@"; }
contains() { grep -qF -- "$2" <<<"$1" || fail "expected '$2' in: $1"; }
# curl as admin (cert) or with a bearer token; prints body, HTTP code on the last line
curl_admin() { curl -sS --cacert "$TFJOB_REALAPI_CA" --cert "$TFJOB_REALAPI_ADMIN_CERT" --key "$TFJOB_REALAPI_ADMIN_KEY" -w '\n%{http_code}' "$@"; }
curl_token() { local t=$1; shift; curl -sS --cacert "$TFJOB_REALAPI_CA" -H "Authorization: Bearer $t" -w '\n%{http_code}' "$@"; }
code_of() { tail -n1 <<<"$1"; }
body_of() { sed '$d' <<<"$1"; }
# expect a kubectl command to fail with a message
expect_fail() { local out; if out=$("$@" 2>&1); then fail "expected failure: $* -> $out"; fi; echo "$out"; }

case "$CASE" in
version)
  out=$(ka version -o json 2>/dev/null) || fail "kubectl version failed"
  [ "$(jq -r .serverVersion.gitVersion <<<"$out")" = "$TFJOB_REALAPI_SERVER_VERSION" ] || fail "server version: $out"
  [ "$(jq -r .serverVersion.minor <<<"$out")" = 20 ] || fail "not a 1.20 server: $out"
  out=$(ka api-resources --api-group=kubeflow.org -o name) || fail "api-resources"
  contains "$out" "tfjobs.kubeflow.org"
  out=$(ka get nodes -o json)
  [ "$(jq -r '.items|length' <<<"$out")" = 2 ] || fail "expected 2 nodes"
  [ "$(jq -r '.items[]|select(.metadata.name=="gpu-node-0").status.allocatable["nvidia.com/gpu"]' <<<"$out")" = 4 ] || fail "gpu-node-0 allocatable"
  [ "$(jq -r '.items[]|select(.metadata.name=="gpu-node-1").metadata.labels["nvidia.com/gpu.product"]' <<<"$out")" = Tesla-T4 ] || fail "GFD label"
  [ "$(jq -r '.items[0].status.conditions[]|select(.type=="Ready").status' <<<"$out")" = True ] || fail "node not Ready"
  # without credentials, the server still answers /version but refuses everything else with 401/403
  r=$(curl -sS --cacert "$TFJOB_REALAPI_CA" -w '\n%{http_code}' "$TFJOB_REALAPI_SERVER/api/v1/namespaces")
  [ "$(code_of "$r")" = 403 ] || fail "anonymous list namespaces: $(code_of "$r")"
  r=$(curl_token not-a-token "$TFJOB_REALAPI_SERVER/api/v1/namespaces")
  [ "$(code_of "$r")" = 401 ] || fail "bad token: $(code_of "$r")"
  # and a client that does not trust the server's CA does not get in either
  if curl -sS --cacert "$TFJOB_REALAPI_CLIENT_CA" "$TFJOB_REALAPI_SERVER/version" >/dev/null 2>&1; then
    fail "TLS verification against the wrong CA succeeded"
  fi
  ;;
crud)
  ns=default
  ka -n $ns delete tfjob realapi-dist --ignore-not-found --wait=true >/dev/null
  out=$(ka -n $ns apply -f "$DATA/tfjob-valid.yaml") || fail "apply: $out"
  contains "$out" "tfjob.kubeflow.org/realapi-dist created"
  j=$(ka -n $ns get tfjob realapi-dist -o json)
  [ "$(jq -r .spec.tfReplicaSpecs.Worker.replicas <<<"$j")" = 2 ] || fail "Worker replicas: $j"
  [ -n "$(jq -r '.metadata.uid // empty' <<<"$j")" ] || fail "no uid set by the server"
  [ -n "$(jq -r '.metadata.resourceVersion // empty' <<<"$j")" ] || fail "no resourceVersion"
  [ "$(jq -r '.metadata.generation' <<<"$j")" = 1 ] || fail "generation: $(jq .metadata.generation <<<"$j")"
  # the CRD's printer columns: NAME STATE AGE
  out=$(ka -n $ns get tfjobs)
  contains "$(head -1 <<<"$out")" "STATE"
  contains "$out" "realapi-dist"
  # client-side apply of a change
  sed 's/replicas: 2/replicas: 3/' "$DATA/tfjob-valid.yaml" >"$TMP/v3.yaml"
  out=$(ka -n $ns apply -f "$TMP/v3.yaml") || fail "re-apply: $out"
  contains "$out" "configured"
  j=$(ka -n $ns get tfjob realapi-dist -o json)
  [ "$(jq -r .spec.tfReplicaSpecs.Worker.replicas <<<"$j")" = 3 ] || fail "after apply: Worker replicas"
  [ "$(jq -r '.metadata.generation' <<<"$j")" = 2 ] || fail "generation did not move to 2"
  # merge patch and the status subresource (what the operator writes)
  ka -n $ns patch tfjob realapi-dist --type=merge -p '{"spec":{"runPolicy":{"backoffLimit":5}}}' >/dev/null
  [ "$(ka -n $ns get tfjob realapi-dist -o jsonpath='{.spec.runPolicy.backoffLimit}')" = 5 ] || fail "merge patch"
  r=$(curl_admin -X PATCH -H 'Content-Type: application/merge-patch+json' \
      --data '{"status":{"conditions":[{"type":"Created","status":"True","reason":"TFJobCreated","message":"created"}]}}' \
      "$TFJOB_REALAPI_SERVER/apis/kubeflow.org/v1/namespaces/$ns/tfjobs/realapi-dist/status")
  [ "$(code_of "$r")" = 200 ] || fail "status patch: $r"
  out=$(ka -n $ns get tfjob realapi-dist --no-headers)
  contains "$out" "Created"
  # a status write through the main resource is ignored (status is a subresource)
  ka -n $ns patch tfjob realapi-dist --type=merge -p '{"status":{"conditions":[]}}' >/dev/null 2>&1 || true
  [ "$(ka -n $ns get tfjob realapi-dist -o jsonpath='{.status.conditions[0].type}')" = Created ] || fail "status changed through the main resource"
  # list with a label selector, and paginate with limit/continue
  out=$(ka -n $ns get tfjobs -l app.kubernetes.io/part-of=realapi-tests -o name)
  contains "$out" "tfjob.kubeflow.org/realapi-dist"
  # 409 on create of an existing name
  out=$(expect_fail ka -n $ns create -f "$DATA/tfjob-valid.yaml")
  contains "$out" "AlreadyExists"
  out=$(ka -n $ns delete tfjob realapi-dist --wait=true) || fail "delete: $out"
  contains "$out" "deleted"
  out=$(expect_fail ka -n $ns get tfjob realapi-dist)
  contains "$out" "NotFound"
  r=$(curl_admin "$TFJOB_REALAPI_SERVER/apis/kubeflow.org/v1/namespaces/$ns/tfjobs/realapi-dist")
  [ "$(code_of "$r")" = 404 ] || fail "GET after delete: $(code_of "$r")"
  [ "$(body_of "$r" | jq -r .reason)" = NotFound ] || fail "Status reason: $r"
  ;;
apply-server-side)
  ns=team-a
  kl -n $ns delete tfjob realapi-dist --ignore-not-found --wait=true >/dev/null
  out=$(kl -n $ns apply --server-side --field-manager=realapi-test -f "$DATA/tfjob-valid.yaml") || fail "SSA: $out"
  contains "$out" "serverside-applied"
  j=$(kl get --raw "/apis/kubeflow.org/v1/namespaces/$ns/tfjobs/realapi-dist")  # with managedFields, any kubectl
  jq -e '.metadata.managedFields[]|select(.manager=="realapi-test" and .operation=="Apply")' <<<"$j" >/dev/null \
    || fail "no Apply managedFields entry for realapi-test"
  # another manager changing an owned field conflicts (409) unless forced
  sed 's/replicas: 2/replicas: 4/' "$DATA/tfjob-valid.yaml" >"$TMP/v4.yaml"
  out=$(expect_fail kl -n $ns apply --server-side --field-manager=someone-else -f "$TMP/v4.yaml")
  contains "$out" "conflict"
  out=$(kl -n $ns apply --server-side --field-manager=someone-else --force-conflicts -f "$TMP/v4.yaml") || fail "forced SSA: $out"
  [ "$(kl -n $ns get tfjob realapi-dist -o jsonpath='{.spec.tfReplicaSpecs.Worker.replicas}')" = 4 ] || fail "forced SSA value"
  kl -n $ns delete tfjob realapi-dist --wait=true >/dev/null
  ;;
invalid)
  ns=default
  # the server's judgement (--validate=false: kubectl's client-side OpenAPI check would
  # race the apiserver publishing the CRD's schema)
  out=$(expect_fail ka -n $ns create --validate=false -f "$DATA/tfjob-invalid.yaml")
  contains "$out" 'is invalid'
  contains "$out" 'spec.tfReplicaSpecs.Worker.replicas'
  r=$(curl_admin -X POST -H 'Content-Type: application/yaml' --data-binary @"$DATA/tfjob-invalid.yaml" \
      "$TFJOB_REALAPI_SERVER/apis/kubeflow.org/v1/namespaces/$ns/tfjobs")
  [ "$(code_of "$r")" = 422 ] || fail "expected 422, got: $r"
  b=$(body_of "$r")
  [ "$(jq -r .kind <<<"$b")" = Status ] || fail "not a Status: $b"
  [ "$(jq -r .reason <<<"$b")" = Invalid ] || fail "reason: $b"
  [ "$(jq -r .code <<<"$b")" = 422 ] || fail "code: $b"
  jq -e '.details.causes[]|select(.field=="spec.tfReplicaSpecs.Worker.replicas")' <<<"$b" >/dev/null || fail "no cause for replicas: $b"
  jq -e '.details.causes[]|select(.field|test("containers\\[0\\].name|containers.name"))' <<<"$b" >/dev/null || fail "no cause for the container name: $b"
  r=$(curl_admin -X POST -H 'Content-Type: application/yaml' --data-binary @"$DATA/tfjob-missing-spec.yaml" \
      "$TFJOB_REALAPI_SERVER/apis/kubeflow.org/v1/namespaces/$ns/tfjobs")
  [ "$(code_of "$r")" = 422 ] || fail "missing tfReplicaSpecs: expected 422, got: $r"
  jq -e '.details.causes[]|select(.field=="spec.tfReplicaSpecs" and .reason=="FieldValueRequired")' <<<"$(body_of "$r")" >/dev/null \
    || fail "no FieldValueRequired cause: $r"
  # nothing was half-created
  out=$(expect_fail ka -n $ns get tfjob realapi-invalid)
  contains "$out" NotFound
  # malformed JSON is a 400, not a 422
  r=$(curl_admin -X POST -H 'Content-Type: application/json' --data '{"apiVersion":' \
      "$TFJOB_REALAPI_SERVER/apis/kubeflow.org/v1/namespaces/$ns/tfjobs")
  [ "$(code_of "$r")" = 400 ] || fail "malformed body: $r"
  ;;
rbac)
  # alice (token, group team-a-devs) may work in team-a only
  kl -n team-a get tfjobs >/dev/null || fail "alice cannot list tfjobs in team-a"
  kl -n team-a delete tfjob realapi-rbac --ignore-not-found >/dev/null
  sed 's/name: realapi-dist/name: realapi-rbac/' "$DATA/tfjob-valid.yaml" | kl -n team-a create -f - >/dev/null || fail "alice create in team-a"
  out=$(expect_fail kl -n team-b get tfjobs)
  contains "$out" 'Forbidden'
  contains "$out" 'User "alice" cannot list resource "tfjobs" in API group "kubeflow.org" in the namespace "team-b"'
  out=$(expect_fail kl get nodes)
  contains "$out" 'Forbidden'
  [ "$(kl auth can-i create tfjobs -n team-a)" = yes ] || fail "can-i team-a"
  [ "$(kl auth can-i create tfjobs -n team-b 2>/dev/null || true)" = no ] || fail "can-i team-b"
  r=$(curl_token "$TFJOB_REALAPI_LIMITED_TOKEN" "$TFJOB_REALAPI_SERVER/apis/kubeflow.org/v1/namespaces/team-b/tfjobs")
  [ "$(code_of "$r")" = 403 ] || fail "expected 403: $r"
  b=$(body_of "$r")
  [ "$(jq -r .reason <<<"$b")" = Forbidden ] || fail "reason: $b"
  [ "$(jq -r .details.kind <<<"$b")" = tfjobs ] || fail "details.kind: $b"
  [ "$(jq -r .details.group <<<"$b")" = kubeflow.org ] || fail "details.group: $b"
  # the same user by client certificate (O=team-a-devs) gets the same answer
  r=$(curl -sS --cacert "$TFJOB_REALAPI_CA" --cert "$TFJOB_REALAPI_LIMITED_CERT" --key "$TFJOB_REALAPI_LIMITED_KEY" \
      -w '\n%{http_code}' "$TFJOB_REALAPI_SERVER/apis/kubeflow.org/v1/namespaces/team-b/tfjobs")
  [ "$(code_of "$r")" = 403 ] || fail "cert user expected 403: $r"
  r=$(curl -sS --cacert "$TFJOB_REALAPI_CA" --cert "$TFJOB_REALAPI_LIMITED_CERT" --key "$TFJOB_REALAPI_LIMITED_KEY" \
      -w '\n%{http_code}' "$TFJOB_REALAPI_SERVER/apis/kubeflow.org/v1/namespaces/team-a/tfjobs/realapi-rbac")
  [ "$(code_of "$r")" = 200 ] || fail "cert user in team-a: $r"
  kl -n team-a delete tfjob realapi-rbac >/dev/null
  ;;
exec)
  out=$(k --context realapi-exec get namespaces -o name) || fail "exec credential plugin: $out"
  contains "$out" "namespace/team-a"
  ;;
logs-follow|logs-errors)
  ns=team-a; pod=realapi-logs-$CASE; c=tensorflow
  ka -n $ns delete pod $pod --ignore-not-found --grace-period=0 --force >/dev/null 2>&1 || true
  rm -f "$TFJOB_REALAPI_KUBELET_LOGS/${ns}_${pod}_"*
  # the harness plays scheduler and kubelet: the pod is bound to a GPU node and Running
  kl -n $ns create -f - >/dev/null <<Y || fail "create pod"
apiVersion: v1
kind: Pod
metadata: {name: $pod, labels: {training.kubeflow.org/job-name: realapi-logs}}
spec:
  nodeName: gpu-node-0
  restartPolicy: Never
  containers:
  - name: $c
    image: ghcr.io/kubectl-tfjob/mnist:v0.1.0
    resources: {limits: {nvidia.com/gpu: 1}}
Y
  now=$(date -u +%FT%TZ)
  curl_admin -X PATCH -H 'Content-Type: application/merge-patch+json' --data \
    "{\"status\":{\"phase\":\"Running\",\"podIP\":\"10.244.0.7\",\"startTime\":\"$now\",\"containerStatuses\":[{\"name\":\"$c\",\"ready\":true,\"restartCount\":0,\"image\":\"ghcr.io/kubectl-tfjob/mnist:v0.1.0\",\"imageID\":\"\",\"state\":{\"running\":{\"startedAt\":\"$now\"}}}]}}" \
    "$TFJOB_REALAPI_SERVER/api/v1/namespaces/$ns/pods/$pod/status" >/dev/null
  if [ "$CASE" = logs-errors ]; then
    # no log yet: the kubelet's answer comes back through the apiserver
    out=$(expect_fail kl -n $ns logs $pod)
    contains "$out" "is waiting to start"
    out=$(expect_fail kl -n $ns logs $pod -c no-such-container)
    contains "$out" "no-such-container"
    out=$(expect_fail kl -n team-b logs $pod)
    contains "$out" "Forbidden"
    bash "$CL" log "$DIR" $ns $pod $c "one" "two" "three"
    # the kubelet serves only the apiserver's kubelet-client certificate
    if curl -sS --cacert "$TFJOB_REALAPI_KUBELET_CA" --cert "$TFJOB_REALAPI_ADMIN_CERT" --key "$TFJOB_REALAPI_ADMIN_KEY" \
         "https://127.0.0.1:$TFJOB_REALAPI_KUBELET_PORT/containerLogs/$ns/$pod/$c" >/dev/null 2>&1; then
      fail "the kubelet accepted a certificate not signed by the kubelet-client CA"
    fi
    out=$(kl -n $ns logs $pod --tail=2) || fail "logs --tail: $out"
    [ "$out" = $'two\nthree' ] || fail "tail=2 gave: $out"
    out=$(kl -n $ns logs $pod --timestamps) || fail "logs --timestamps"
    grep -qE '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z one$' <<<"$out" || fail "timestamps: $out"
    out=$(kl -n $ns logs $pod --limit-bytes=5) || fail "limit-bytes"
    [ "$out" = $'one\nt' ] || fail "limit-bytes=5 gave: $out"
  else
    bash "$CL" log "$DIR" $ns $pod $c "epoch 1/3 loss=0.71" "epoch 2/3 loss=0.42"
    kl -n $ns logs -f $pod -c $c >"$TMP/out" 2>"$TMP/err" & BG+=($!); kpid=$!
    for _ in $(seq 200); do [ "$(wc -l <"$TMP/out")" -ge 2 ] && break; sleep 0.1; done
    [ "$(wc -l <"$TMP/out")" -ge 2 ] || fail "logs -f showed no backlog: $(cat "$TMP/out" "$TMP/err")"
    # lines appended while following arrive, in order
    for i in $(seq 1 50); do bash "$CL" log "$DIR" $ns $pod $c "step $i"; done
    bash "$CL" log "$DIR" $ns $pod $c "epoch 3/3 loss=0.19" "done"
    for _ in $(seq 200); do [ "$(wc -l <"$TMP/out")" -ge 54 ] && break; sleep 0.1; done
    kill -0 $kpid 2>/dev/null || fail "logs -f ended before the container exited"
    # the container exits: the follow ends by itself, nothing lost
    bash "$CL" exit "$DIR" $ns $pod $c
    for _ in $(seq 300); do kill -0 $kpid 2>/dev/null || break; sleep 0.1; done
    kill -0 $kpid 2>/dev/null && fail "logs -f did not end after the container exited"
    wait $kpid || fail "kubectl logs -f failed: $(cat "$TMP/err")"
    { echo "epoch 1/3 loss=0.71"; echo "epoch 2/3 loss=0.42"; seq 1 50 | sed 's/^/step /'; echo "epoch 3/3 loss=0.19"; echo done; } >"$TMP/want"
    diff -u "$TMP/want" "$TMP/out" || fail "logs -f output differs"
  fi
  ka -n $ns delete pod $pod --grace-period=0 --force >/dev/null 2>&1 || true
  ;;
*) echo "unknown case $CASE" >&2; exit 2 ;;
esac
echo "PASS [$CASE]"
