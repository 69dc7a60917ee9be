#!/usr/bin/env bash
# `kubectl tfjob serve --kserve` against the real kube-apiserver (realapi tier). Without
# KServe's CRD the plugin says what is missing and applies nothing; with the CRD installed
# (KServe's official schema text, the excerpt tests/data/crds/...excerpt.yaml) the real
# apiserver judges what serve --kserve applies: --dry-run=server, server-side apply, its
# structural-schema validation and pruning (the stored spec equals what serve emitted, so no
# field was pruned as unknown), a wrongly typed field refused. No KServe controller runs here,
# so nothing sets the InferenceService's status: serve's wait must time out saying so (its
# status is not faked). The CRD is removed again at the end.
#   serve_kserve_test.sh PLUGIN DIR CRD   (ctest realapi.serve-kserve; exit 0 pass, 1 fail, 77 skipped)
set -euo pipefail
PLUGIN=${1:?path to kubectl-tfjob}; DIR=${2:?cluster dir}; CRD=${3:?the InferenceService CRD}
NAME=serve-kserve
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
trap 'ka delete -f "$CRD" --ignore-not-found --wait=false >/dev/null 2>&1 || true; cleanup' EXIT
command -v jq >/dev/null || tfjob_skip no-jq "no jq" "bash scripts/install-deps.sh"

step setup
ka create namespace "$NS" >/dev/null
ka create -n "$NS" -f - >/dev/null <<'PVC'
{"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "models"},
 "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}
PVC
ARGS=(serve mnist --pvc models:export --kserve --gpus 0 --cpu 1 --memory 1Gi --replicas 2 -n "$NS")

step not-served
# the cluster is this suite's own: a CRD left there is a failure of the run that left it
ka get crd inferenceservices.serving.kserve.io >/dev/null 2>&1 &&
  fail "this cluster already has KServe's CRD (left by another test of this run?)"
refused P "${ARGS[@]}"
contains "$ERR" "this cluster does not serve inferenceservices.serving.kserve.io/v1beta1 (KServe's InferenceService), so --kserve cannot be used"
contains "$ERR" "install KServe"

step install-crd
ka apply -f "$CRD" >/dev/null
ka wait --for=condition=Established crd/inferenceservices.serving.kserve.io --timeout=60s >/dev/null
served() { ka get --raw /apis/serving.kserve.io/v1beta1 | grep -q '"inferenceservices"'; }
until_ok 60 served || fail "the apiserver does not serve inferenceservices after the CRD is Established"

step dry-run-server
ok P "${ARGS[@]}" --dry-run=server -o json
contains "$OUT" '"uid"'                                   # the server's object
contains "$OUT" '"storageUri": "pvc://models/export/mnist"'
if ka get inferenceservice mnist -n "$NS" >/dev/null 2>&1; then fail "--dry-run=server created the InferenceService"; fi

step apply-nothing-pruned
ok P "${ARGS[@]}" --no-wait
contains "$ERR" "inferenceservice.serving.kserve.io/mnist serverside-applied"
ok P "${ARGS[@]}" --dry-run=client -o json
want=$(jq -S .spec <<<"$OUT")
got=$(ka get inferenceservice mnist -n "$NS" -o json | jq -S .spec)
[ "$want" = "$got" ] || fail "the apiserver stored another spec than serve emitted (pruned as unknown to KServe's schema?):
emitted: $want
stored:  $got"

step invalid-refused
run ka apply -n "$NS" -f - <<<"$(jq '.metadata.name = "broken" | .spec.predictor.minReplicas = "three"' <<<"$OUT")"
[ "$RC" != 0 ] || fail "the apiserver accepted minReplicas: \"three\""
contains "$ERR" "minReplicas"

step wait-without-controller
run P "${ARGS[@]}" --timeout 3s
[ "$RC" = 2 ] || fail "exit $RC, want 2 (timeout): $ERR"
contains "$ERR" "waiting for inferenceservice \"mnist\" to be Ready: waiting for the KServe controller to report a status"
contains "$ERR" "no predictor pod exists yet"

step list-delete
ok P serve list -n "$NS" -o name
contains "$OUT" "inferenceservice.serving.kserve.io/mnist"
ok P serve delete mnist -n "$NS"
contains "$OUT" "inferenceservice.serving.kserve.io/mnist deleted"
if ka get inferenceservice mnist -n "$NS" >/dev/null 2>&1; then fail "serve delete left the InferenceService"; fi
echo "ok: serve --kserve on the real apiserver"
