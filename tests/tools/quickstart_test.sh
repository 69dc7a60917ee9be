#!/usr/bin/env bash
# scripts/quickstart.sh's choice of where to run the main job, with the setup skipped
# (TFJOB_QUICKSTART_SETUP=0, the build tree given):
#   quickstart_test.sh local BUILD_DIR           no cluster configured: hello-tfjob trains here
#   quickstart_test.sh cluster BUILD_DIR FAKE    a cluster answers (the standalone fake API
#                                                server with GPU nodes and its operator) and
#                                                TFJOB_QUICKSTART=cluster: the MNIST TFJob is
#                                                submitted there and followed
#   quickstart_test.sh auto-cluster BUILD_DIR FAKE   a cluster answers, auto mode, no terminal
#                                                to ask on: it names the context, submits
#                                                nothing there, and trains locally
set -euo pipefail
MODE=${1:?local|cluster}; BUILD=$(cd "${2:?build dir}" && pwd)
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TMP=$(mktemp -d); FAKE_PID=""
cleanup() { [ -n "$FAKE_PID" ] && kill "$FAKE_PID" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$TMP"; }
trap cleanup EXIT
export TFJOB_QUICKSTART_SETUP=0 BUILD_DIR="$BUILD" STATE_DIR="$TMP/state"
unset TFJOB_QUICKSTART
fail() { echo "FAIL: $*" >&2; exit 1; }
case "$MODE" in
  local)
    export KUBECONFIG="$TMP/no-such-kubeconfig" HOME="$TMP"
    set +e; bash "$ROOT/scripts/quickstart.sh" >"$TMP/out" 2>"$TMP/err"; rc=$?; set -e
    [ "$rc" = 0 ] || fail "exit $rc: $(cat "$TMP/out" "$TMP/err")"
    grep -q "no cluster to use (no configuration has been provided" "$TMP/err" || fail "no local fallback note: $(cat "$TMP/err")"
    grep -q "^==> test accuracy: 0\.[89]" "$TMP/out" || fail "no accuracy line: $(cat "$TMP/out")"
    ;;
  cluster|auto-cluster)
    FAKE=${3:?fake-apiserver}
    "$FAKE" --gpu-nodes 3 --gpus-per-node 1 --job-pod-runtime 300 --kubeconfig-out "$TMP/kubeconfig" >"$TMP/fake.log" 2>&1 &
    FAKE_PID=$!
    for _ in $(seq 100); do [ -s "$TMP/kubeconfig" ] && break; sleep 0.1; done
    [ -s "$TMP/kubeconfig" ] || fail "fake-apiserver did not start: $(cat "$TMP/fake.log")"
    export KUBECONFIG="$TMP/kubeconfig"
    context=$(sed -n 's/^current-context: *//p' "$TMP/kubeconfig" | tr -d '"')
    [ -n "$context" ] || fail "the fake's kubeconfig names no current context"
    if [ "$MODE" = auto-cluster ]; then
      set +e; timeout 120 bash "$ROOT/scripts/quickstart.sh" </dev/null >"$TMP/out" 2>"$TMP/err"; rc=$?; set -e
      [ "$rc" = 0 ] || fail "exit $rc: $(cat "$TMP/out" "$TMP/err")"
      grep -q "==> a cluster answers: context \"$context\"" "$TMP/err" || fail "the context is not named: $(cat "$TMP/err")"
      grep -q "without asking: set TFJOB_QUICKSTART=cluster" "$TMP/err" || fail "no note on how to submit: $(cat "$TMP/err")"
      grep -q "^==> test accuracy: 0\.[89]" "$TMP/out" || fail "did not train locally: $(cat "$TMP/out")"
      if grep -q "persistentvolumeclaim/tfjob-mnist" "$TMP/err"; then fail "submitted to the cluster without asking"; fi
      echo "PASS: quickstart ($MODE)"; exit 0
    fi
    export TFJOB_QUICKSTART=cluster
    set +e; timeout 120 bash "$ROOT/scripts/quickstart.sh" >"$TMP/out" 2>"$TMP/err"; rc=$?; set -e
    [ "$rc" = 0 ] || fail "exit $rc: $(cat "$TMP/out" "$TMP/err")"
    grep -q "==> a cluster answers: context \"$context\"" "$TMP/err" || fail "cluster not detected or context not named: $(cat "$TMP/err")"
    grep -q "kubectl tfjob submit mnist --workers 2 --follow" "$TMP/err" || fail "not the MNIST sample: $(cat "$TMP/err")"
    grep -q "persistentvolumeclaim/tfjob-mnist created" "$TMP/err" || fail "the sample's claim was not created: $(cat "$TMP/err")"
    grep -q "chief" "$TMP/out" || fail "no chief log lines followed: $(cat "$TMP/out")"
    grep -q "TFJob mnist Succeeded" "$TMP/err" || fail "the job did not end Succeeded: $(cat "$TMP/err")"
    ;;
  *) fail "unknown mode $MODE" ;;
esac
echo "PASS: quickstart ($MODE)"
