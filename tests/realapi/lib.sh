# Shared helpers of the tier's kubectl-tfjob scripts (plugin_test.sh, gpu_check_test.sh,
# serve_test.sh). Source it after setting PLUGIN and DIR; it loads the cluster's env (or
# applies the cluster's recorded skip, or fails, when no cluster is up), makes a namespace $NS and a temp dir $TMP, and
# cleans up background processes ($BG) and $TMP on exit.
#   NAME: the test's name (namespace prefix and messages)
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/../support/skip.sh"  # the suite's skip rule
if [ ! -f "$DIR/env" ]; then
  tfjob_skip_recorded "$DIR/skip-reason" "no realapi cluster"
  echo "FAIL: no realapi cluster is up in $DIR" >&2; exit 1
fi
if [ -f "$DIR/stopped" ]; then echo "FAIL: the realapi cluster is gone: $(cat "$DIR/stopped")" >&2; exit 1; fi
set -a; . "$DIR/env"; set +a
KUBECTL=${TFJOB_KUBECTL:-kubectl}
CL="$HERE/cluster.sh"
NS=${NAME:-e2e}-$$
TMP=$(mktemp -d); BG=()
cleanup() { for p in "${BG[@]:-}"; do [ -n "$p" ] && kill "$p" 2>/dev/null || true; done; rm -rf "$TMP"; }
trap cleanup EXIT

STEP=start
fail() { echo "FAIL [$STEP]: $*" >&2; exit 1; }
step() { STEP=$1; echo "== $1" >&2; }
ka() { "$KUBECTL" --kubeconfig "$KUBECONFIG" --context "$TFJOB_TEST_CONTEXT_CERT" "$@"; }
P() { "$PLUGIN" --kubeconfig "$KUBECONFIG" --context "$TFJOB_TEST_CONTEXT_CERT" "$@"; }
PL() { "$PLUGIN" --kubeconfig "$KUBECONFIG" --context "$TFJOB_TEST_CONTEXT_LIMITED" "$@"; }
contains() { grep -qF -- "$2" <<<"$1" || fail "expected '$2' in: $1"; }
lacks() { if grep -qF -- "$2" <<<"$1"; then fail "did not expect '$2' in: $1"; fi; }
# run a command; its stdout in $OUT, stderr in $ERR, exit code in $RC
run() { set +e; "$@" >"$TMP/out" 2>"$TMP/err"; RC=$?; set -e; OUT=$(cat "$TMP/out"); ERR=$(cat "$TMP/err"); }
ok() { run "$@"; [ "$RC" = 0 ] || fail "exit $RC from $*: $ERR"; }
refused() { run "$@"; [ "$RC" != 0 ] || fail "expected a failure from $*: $OUT"; }
# start the plugin in the background: bg_plugin TAG ARGS... (stdout/stderr in $TMP/TAG.out/.err,
# pid in $BGPID)
bg_plugin() { local tag=$1; shift; P "$@" >"$TMP/$tag.out" 2>"$TMP/$tag.err" & BGPID=$!; BG+=("$BGPID"); }
# wait for a background command and check its exit code: bg_wait PID WANT TAG [SECONDS]
# (at most SECONDS, 150 unless told: one that hangs is stopped and fails the test with what it
# printed, rather than ctest's timeout killing the test without a word)
bg_wait() {
  local rc n=$(( ${4:-150} * 10 ))
  while kill -0 "$1" 2>/dev/null && [ "$n" -gt 0 ]; do sleep 0.1; n=$((n - 1)); done
  if kill -0 "$1" 2>/dev/null; then
    kill "$1" 2>/dev/null || true
    fail "still running after ${4:-150} s: $3 (stopped): $(cat "$TMP/$3.out" "$TMP/$3.err")"
  fi
  set +e; wait "$1"; rc=$?; set -e
  [ "$rc" = "$2" ] || fail "exit $rc, want $2: $(cat "$TMP/$3.out" "$TMP/$3.err")"
}
# a merge patch of a status subresource through the API as the admin (what controllers do)
status_patch() { # RESOURCE NAME JSON   (RESOURCE: pods, tfjobs or deployments)
  local base=/api/v1
  [ "$1" = tfjobs ] && base=/apis/kubeflow.org/v1
  [ "$1" = deployments ] && base=/apis/apps/v1
  curl -sS --fail --cacert "$TFJOB_REALAPI_CA" --cert "$TFJOB_REALAPI_ADMIN_CERT" --key "$TFJOB_REALAPI_ADMIN_KEY" \
    -X PATCH -H 'Content-Type: application/merge-patch+json' --data "$3" \
    "$TFJOB_REALAPI_SERVER$base/namespaces/$NS/$1/$2/status" >/dev/null || fail "status patch of $1/$2"
}
# bind a pod to a node through pods/binding, as the scheduler does
bind_pod() { # POD NODE
  curl -sS --fail --cacert "$TFJOB_REALAPI_CA" --cert "$TFJOB_REALAPI_ADMIN_CERT" --key "$TFJOB_REALAPI_ADMIN_KEY" \
    -X POST -H 'Content-Type: application/json' \
    --data '{"apiVersion":"v1","kind":"Binding","metadata":{"name":"'"$1"'"},"target":{"apiVersion":"v1","kind":"Node","name":"'"$2"'"}}' \
    "$TFJOB_REALAPI_SERVER/api/v1/namespaces/$NS/pods/$1/binding" >/dev/null || fail "binding $1 to $2"
}
# an event about a pod, as the scheduler or the kubelet records it
pod_event() { # POD TYPE REASON MESSAGE COMPONENT
  local uid now; uid=$(ka get pod "$1" -n "$NS" -o jsonpath='{.metadata.uid}'); now=$(date -u +%FT%TZ)
  ka create -n "$NS" -f - >/dev/null <<EVENT
{"apiVersion": "v1", "kind": "Event", "metadata": {"name": "$1.$(date +%s%N)"},
 "involvedObject": {"kind": "Pod", "namespace": "$NS", "name": "$1", "uid": "$uid", "apiVersion": "v1"},
 "reason": "$3", "message": "$4", "type": "$2", "source": {"component": "$5"},
 "firstTimestamp": "$now", "lastTimestamp": "$now", "count": 1}
EVENT
}
# wait until CMD succeeds (0.1 s steps), at most SECONDS: until_ok SECONDS CMD...
# (CMD's arguments are expanded once, by the call: for a condition on changing state, pass a
# function that computes it, not "$(...)")
until_ok() { local n=$(( $1 * 10 )); shift; for _ in $(seq 1 "$n"); do "$@" >/dev/null 2>&1 && return 0; sleep 0.1; done; return 1; }
