#!/usr/bin/env bash
# ctests for samples/sdk (see tests/cmake/sdk_samples.cmake).
#   sdk_samples.sh build     SOURCE_DIR WORK_DIR PREFIX
#       build samples/sdk with find_package against the SDK installed in PREFIX (by the api
#       area's test, tests/tools/api_install_consumer.sh: installed and checked once)
#   sdk_samples.sh tf-config WORK_DIR KUBECTL_TFJOB
#       read_tf_config with TF_CONFIGs from `kubectl-tfjob tf-config -o json`, and with
#       malformed ones (clear error, exit 1)
#   sdk_samples.sh validate  WORK_DIR SOURCE_DIR
#       validate_manifest on the samples' TFJobs (valid) and on a misspelt one (exit 1, the
#       unknown field named with its path and the nearest known name)
#   sdk_samples.sh follow    WORK_DIR FAKE_APISERVER
#       submit_and_follow against a fake API server (simulated operator + kubelet)
#   sdk_samples.sh fail      WORK_DIR SDK_SAMPLES_FAKE_APISERVER
#       submit_and_follow on a job whose chief fails (tests/support/sdk_samples_fake_main.cpp)
set -uo pipefail
mode=$1
fail() { echo "FAIL: $*" >&2; exit 1; }

case "$mode" in
build)
  src=$2 work=$3 prefix=$4
  [ -f "$prefix/include/tfjob/tfjob.hpp" ] || fail "no SDK installed in $prefix (the api area's find_package test installs it)"
  rm -rf "$work/samples"; mkdir -p "$work"
  cmake -S "$src/samples/sdk" -B "$work/samples" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null ||
    fail "configuring samples/sdk against $prefix"
  cmake --build "$work/samples" -j 2 || fail "building samples/sdk"
  for t in submit_and_follow read_tf_config validate_manifest; do
    test -x "$work/samples/$t" || fail "$t was not built"
    grep -q "$prefix/include" "$work/samples/CMakeFiles/$t.dir/flags.make" ||
      fail "$t did not compile against the installed headers"
  done
  echo "ok: samples/sdk built with find_package(tfjob) from $prefix"
  ;;

validate)
  work=$2 src=$3
  bin="$work/samples/validate_manifest"
  test -x "$bin" || fail "$bin missing (the build test must run first)"
  out=$("$bin" "$src/samples/mnist/tfjob.yaml" "$src/samples/hello-tfjob/tfjob.yaml" 2>&1) || fail "the samples are refused: $out"
  grep -q "TFJob mnist is valid" <<<"$out" || fail "no verdict for mnist: $out"
  sed 's/^  runPolicy:/  runPolcy:/' "$src/samples/mnist/tfjob.yaml" > "$work/typo.yaml"
  grep -q runPolcy "$work/typo.yaml" || fail "the fixture has no runPolicy to misspell"
  err=$("$bin" "$work/typo.yaml" 2>&1); rc=$?
  echo "$err"
  [ "$rc" = 1 ] || fail "a misspelt field exited $rc"
  grep -qF "$work/typo.yaml: TFJob mnist: unknown field \"spec.runPolcy\"; did you mean \"runPolicy\"?" <<<"$err" ||
    fail "the unknown field is not named as expected"
  echo "ok: validate_manifest"
  ;;

tf-config)
  work=$2 plugin=$3
  bin="$work/samples/read_tf_config"
  test -x "$bin" || fail "$bin missing (the build test must run first)"
  json=$("$plugin" tf-config --name demo --image tensorflow/tensorflow --chief --workers 2 --ps 1 -n team-a -o json) ||
    fail "kubectl-tfjob tf-config"
  get() { python3 -c 'import json,sys; print(json.load(sys.stdin)[sys.argv[1]])' "$1" <<<"$json"; }
  check() {  # check REPLICA EXPECTED-LINE...
    local replica=$1; shift
    local out; out=$(TF_CONFIG=$(get "$replica") "$bin") || fail "read_tf_config for $replica exited $?"
    echo "--- $replica"; echo "$out"
    for want in "$@"; do grep -qxF -- "$want" <<<"$out" || fail "$replica: missing line '$want'"; done
  }
  check chief-0 "role: chief" "index: 0" "is-chief: true" "address: demo-chief-0.team-a.svc:2222" \
    "listen-port: 2222" "cluster: chief[0] demo-chief-0.team-a.svc:2222" \
    "cluster: worker[1] demo-worker-1.team-a.svc:2222" "cluster: ps[0] demo-ps-0.team-a.svc:2222" "replicas: 4"
  check worker-1 "role: worker" "index: 1" "is-chief: false" "address: demo-worker-1.team-a.svc:2222" "replicas: 4"
  check ps-0 "role: ps" "index: 0" "is-chief: false" "address: demo-ps-0.team-a.svc:2222"
  # no Chief: worker 0 is the chief (the operator's job-role=master)
  json=$("$plugin" tf-config --name solo --image tensorflow/tensorflow --workers 2 -o json) || fail "tf-config"
  check worker-0 "role: worker" "index: 0" "is-chief: true" "address: solo-worker-0.default.svc:2222"
  # unset: a single-replica job
  out=$(env -u TF_CONFIG "$bin") || fail "read_tf_config without TF_CONFIG exited $?"
  grep -q "single-replica" <<<"$out" || fail "no TF_CONFIG: unexpected output '$out'"
  # malformed: a clear error on stderr and exit 1, nothing half-printed on stdout
  bad() {  # bad TF_CONFIG EXPECTED-SUBSTRING
    local out err rc
    out=$(TF_CONFIG=$1 "$bin" 2>"$work/err"); rc=$?; err=$(cat "$work/err")
    echo "--- TF_CONFIG=$1 -> exit $rc: $err"
    [ "$rc" -eq 1 ] || fail "malformed TF_CONFIG '$1': exit $rc, want 1"
    [ -z "$out" ] || fail "malformed TF_CONFIG '$1' printed on stdout: $out"
    grep -qF -- "$2" <<<"$err" || fail "malformed TF_CONFIG '$1': error '$err' lacks '$2'"
  }
  bad '{"cluster":{"worker":["a:1"]},"task":{"type":"worker","index":0}' "not valid JSON at line 1"
  bad '{"cluster":{"worker":["a:1"]}}' 'missing "task" object'
  bad '{"cluster":{"worker":[1]},"task":{"type":"worker","index":0}}' 'must list "host:port" strings'
  bad '{"task":{"type":"worker","index":-1}}' "task.index must not be negative"
  echo "ok: read_tf_config"
  ;;

follow|fail)
  work=$2 server=$3
  bin="$work/samples/submit_and_follow"
  test -x "$bin" || fail "$bin missing (the build test must run first)"
  dir="$work/$mode"; rm -rf "$dir"; mkdir -p "$dir"
  if [ "$mode" = follow ]; then
    "$server" --port 0 --kubeconfig-out "$dir/kubeconfig" --job-pod-runtime 300 >"$dir/url" 2>"$dir/server.err" &
  else  # the chief of TFJob sdk-fail prints three lines and exits 3
    "$server" --kubeconfig-out "$dir/kubeconfig" --failing-job sdk-fail --exit-code 3 >"$dir/url" 2>"$dir/server.err" &
  fi
  pid=$!
  trap 'kill -TERM $pid 2>/dev/null; wait $pid 2>/dev/null' EXIT
  for _ in $(seq 1 300); do [ -s "$dir/url" ] && [ -s "$dir/kubeconfig" ] && break; sleep 0.1; done
  [ -s "$dir/kubeconfig" ] || { cat "$dir/server.err" >&2; fail "the fake API server did not start"; }
  export KUBECONFIG="$dir/kubeconfig"
  run() {  # run WANT-RC ARGS...: runs the sample, leaves stdout in $out and stderr in $err
    local want=$1; shift
    timeout 120 "$bin" "$@" >"$dir/out" 2>"$dir/err"; rc=$?
    out=$(cat "$dir/out"); err=$(cat "$dir/err")
    echo "--- submit_and_follow $* -> exit $rc"; echo "$out"; sed 's/^/stderr: /' <<<"$err"
    [ "$rc" -eq "$want" ] || fail "submit_and_follow $*: exit $rc, want $want"
  }
  if [ "$mode" = fail ]; then
    # the chief fails: every line it wrote, then exit 1 naming the pod and its exit code
    run 1 sdk-fail
    [ "$out" = $'epoch 1/5 loss=2.30\nepoch 2/5 loss=nan\nerror: loss is NaN, giving up' ] ||
      fail "the failed chief's log lines are not all there, in order, once"
    grep -qF "TFJob sdk-fail Failed: pod sdk-fail-chief-0 exited with code 3" <<<"$err" ||
      fail "the failure does not name the pod and exit code"
    # a job whose chief succeeds on the same server still exits 0
    run 0 sdk-ok
    grep -qxF "fake-kubelet: training done" <<<"$out" || fail "sdk-ok: the chief's log is missing"
    echo "ok: submit_and_follow Failed"
    exit 0
  fi
  # 1. submit and follow the chief until the job Succeeds: exit 0, the chief's lines only
  run 0 sdk-demo
  for want in "fake-kubelet: starting tensorflow in sdk-demo-chief-0" \
              "fake-kubelet: replica chief 0 of TFJob sdk-demo" "fake-kubelet: training done"; do
    grep -qxF "$want" <<<"$out" || fail "the chief's log line '$want' is missing"
  done
  grep -q "worker" <<<"$out" && fail "a worker's log was shown instead of only the chief's"
  grep -qF "tfjob.kubeflow.org/sdk-demo created" <<<"$err" || fail "no 'created' on stderr"
  grep -qF "TFJob sdk-demo Succeeded" <<<"$err" || fail "no 'Succeeded' on stderr"
  [ "$(grep -c . <<<"$out")" -eq 3 ] || fail "expected exactly the chief's 3 lines, no repeats"
  # 2. the same job again: unchanged, the finished chief's log shown once more, exit 0
  run 0 sdk-demo
  grep -qF "tfjob.kubeflow.org/sdk-demo unchanged" <<<"$err" || fail "resubmitting: no 'unchanged'"
  grep -qxF "fake-kubelet: training done" <<<"$out" || fail "resubmitting: the chief's log is missing"
  # 3. another namespace from the argument (team-a exists in the fake)
  run 0 sdk-demo team-a
  grep -qxF "fake-kubelet: replica chief 0 of TFJob sdk-demo" <<<"$out" || fail "team-a: chief's log missing"
  # 4. errors: a namespace that does not exist, an invalid name -> exit 3 with a message
  run 3 sdk-demo no-such-ns
  grep -q "^error: .*no-such-ns" <<<"$err" || fail "missing namespace: unclear error"
  run 3 Bad_Name
  grep -q "^error: invalid TFJob" <<<"$err" && grep -qF 'metadata.name: Invalid value: "Bad_Name"' <<<"$err" ||
    fail "invalid name: unclear error"
  echo "ok: submit_and_follow"
  ;;
*) fail "unknown mode $mode" ;;
esac
