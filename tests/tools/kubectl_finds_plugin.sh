#!/usr/bin/env bash
# The real kubectl, with the built plugin on PATH, must list it and run it:
# `kubectl plugin list` names kubectl-tfjob, `kubectl tfjob --help` and `version` work.
set -euo pipefail
plugin=$1
. "$(dirname "$0")/../support/skip.sh"
kubectl=${KUBECTL:-$(command -v kubectl || true)}
[ -n "$kubectl" ] || tfjob_skip no-kubectl "no kubectl on PATH" "bash scripts/install-deps.sh (Debian's kubernetes-client)"
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
mkdir -p "$dir/bin" "$dir/home"
ln -s "$plugin" "$dir/bin/kubectl-tfjob"
export PATH="$dir/bin:$PATH" HOME="$dir/home" KUBECONFIG="$dir/home/none"
list=$("$kubectl" plugin list 2>&1 || true)
echo "$list" | grep -q "$dir/bin/kubectl-tfjob" || { echo "kubectl plugin list did not find the plugin:"; echo "$list"; exit 1; }
help=$("$kubectl" tfjob --help)
echo "$help" | grep -q "submit" || { echo "kubectl tfjob --help lacks 'submit':"; echo "$help"; exit 1; }
echo "$help" | grep -q "gpu-check" || { echo "kubectl tfjob --help lacks 'gpu-check'"; exit 1; }
"$kubectl" tfjob version --client | grep -q "^kubectl-tfjob v" || { echo "kubectl tfjob version --client printed no version"; exit 1; }
# without a cluster, as kubectl version: the plugin's version first, then the error, exit 1
set +e; out=$("$kubectl" tfjob version 2>&1); rc=$?; set -e
[ "$rc" = 1 ] || { echo "kubectl tfjob version without a cluster: exit $rc, want 1: $out"; exit 1; }
echo "$out" | head -1 | grep -q "^kubectl-tfjob v" || { echo "kubectl tfjob version did not print its version first: $out"; exit 1; }
echo "$out" | grep -q "error: no configuration has been provided" || { echo "kubectl tfjob version: no clear error: $out"; exit 1; }
echo "kubectl finds and runs kubectl-tfjob"
