#!/usr/bin/env bash
# kubectl-tfjob against a real kube-apiserver 1.20 that has no TFJob CRD (the training
# operator is not installed): every command says so and prints the command that installs
# the operator, and nothing is created (submit's preflight runs before the claim and the
# job). The tier's shared cluster has the CRD and its tests run in parallel, so this test
# starts a second cluster of its own (TFJOB_CRD_FILE=none) and stops it at the end.
#   nocrd_test.sh PLUGIN MAIN_DIR DIR   (ctest realapi.no-crd; exit 0 pass, 1 fail, 77 skipped)
set -euo pipefail
PLUGIN=${1:?path to kubectl-tfjob}; MAIN=${2:?the shared cluster dir}; DIR=${3:?a dir for this cluster}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if [ -z "${TFJOB_NOCRD_INNER:-}" ]; then
  # the shared cluster's setup decides whether this tier runs here at all
  if [ ! -f "$MAIN/env" ]; then
    . "$HERE/../support/skip.sh"
    tfjob_skip_recorded "$MAIN/skip-reason" "no realapi cluster"
  fi
  export TFJOB_CRD_FILE=none TFJOB_NOCRD_INNER=1
  exec bash "$HERE/cluster.sh" run "$DIR" -- bash "$0" "$PLUGIN" "$MAIN" "$DIR"
fi
NAME=no-crd
. "$HERE/lib.sh"
INSTALL='kubectl apply --server-side -k "github.com/kubeflow/trainer.git/manifests/overlays/standalone?ref=v1.9.4"'

step setup
ka create namespace "$NS" >/dev/null
if ka get --raw /apis/kubeflow.org/v1 >/dev/null 2>&1; then fail "this cluster serves kubeflow.org/v1"; fi

step version
ok P version
contains "$OUT" "Server Version: $TFJOB_REALAPI_SERVER_VERSION"
contains "$OUT" "TFJobs (kubeflow.org/v1): not served - the Kubeflow training operator is not installed"

step submit
refused P submit mnist -n "$NS" --gpus 0
[ "$RC" = 1 ] || fail "exit $RC, want 1: $ERR"
contains "$ERR" "does not serve TFJobs"
contains "$ERR" "$INSTALL"
[ -z "$(ka get pvc -n "$NS" -o name)" ] || fail "submit created a claim before failing: $(ka get pvc -n "$NS" -o name)"
refused P submit mnist -n "$NS" --gpus 0 --dry-run=server
contains "$ERR" "does not serve TFJobs"

step get-describe-wait-logs-delete
for cmd in "get" "get mnist" "describe mnist" "wait mnist --timeout 5s" "logs mnist" "delete mnist"; do
  # shellcheck disable=SC2086
  refused P $cmd -n "$NS"
  [ "$RC" = 1 ] || fail "$cmd: exit $RC, want 1: $ERR"
  contains "$ERR" "does not serve TFJobs"
  contains "$ERR" "$INSTALL"
done

echo "PASS: kubectl-tfjob on a real apiserver without the TFJob CRD" >&2
