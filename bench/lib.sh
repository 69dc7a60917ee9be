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
