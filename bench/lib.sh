# Sourced by the bench scripts that race the plugin against kubectl on the standalone fake
# API server: bench_tools BUILD_DIR sets PLUGIN, FAKE and KUBECTL, or says what to build or
# install and exits.
bench_tools() {  # BUILD_DIR
  PLUGIN="$1/plugin/kubectl-tfjob"
  KUBECTL=$(command -v kubectl || true)
  [ -x /usr/bin/time ] || { echo "GNU time is missing: apt-get install -y time" >&2; exit 1; }
  [ -x "$PLUGIN" ] || { echo "build the plugin first: $PLUGIN" >&2; exit 1; }
  FAKE=$(find "$1" -type f -name fake-apiserver -perm -u+x | head -1)
  [ -n "$FAKE" ] || { echo "build fake-apiserver first (under $1)" >&2; exit 1; }
  [ -n "$KUBECTL" ] || { echo "kubectl is not on PATH" >&2; exit 1; }
}

# Sourced by the bench scripts that race the plugin against kubectl on the real kube-apiserver
# (tests/realapi/cluster.sh): bench_on_real_apiserver SCRIPT BUILD_DIR RUNS sets PLUGIN and
# KUBECTL, and, the first time, runs SCRIPT again inside a real cluster (KUBECONFIG set,
# BENCH_REAL_INNER=1) and exits with its status; inside, it returns with TMP (a folder removed
# at exit), P and K (the plugin and kubectl with the cluster's cert context) and HOME (kubectl's
# discovery cache, in TMP) set. Exits 77 when the real-apiserver tier is not built here: such a
# benchmark measures against it only.
bench_on_real_apiserver() {  # SCRIPT BUILD_DIR RUNS
  PLUGIN=$(cd "$2" && pwd)/plugin/kubectl-tfjob
  KUBECTL=$(command -v kubectl || true)
  [ -x /usr/bin/time ] || { echo "GNU time is missing: apt-get install -y time" >&2; exit 1; }
  [ -x "$PLUGIN" ] || { echo "build the plugin first: $PLUGIN" >&2; exit 1; }
  [ -n "$KUBECTL" ] || { echo "kubectl is not on PATH" >&2; exit 1; }
  if [ "${BENCH_REAL_INNER:-}" = 1 ]; then
    TMP=$(mktemp -d)
    trap 'rm -rf "$TMP"' EXIT
    P=("$PLUGIN" --context "$TFJOB_TEST_CONTEXT_CERT")
    K=("$KUBECTL" --context "$TFJOB_TEST_CONTEXT_CERT")
    export HOME=$TMP/home  # kubectl's discovery cache: the same for every run of the script
    mkdir -p "$HOME"
    return 0
  fi
  bash tests/realapi/setup.sh --check >/dev/null 2>&1 ||
    { echo "the real kube-apiserver tier is not built here (tests/realapi/setup.sh): this benchmark measures against it only" >&2; exit 77; }
  export BENCH_REAL_INNER=1 PLUGIN KUBECTL
  local dir rc=0
  dir=$(mktemp -d)
  bash tests/realapi/cluster.sh run "$dir" -- bash "$1" "$2" "$3" || rc=$?
  rm -rf "$dir"
  exit "$rc"
}
