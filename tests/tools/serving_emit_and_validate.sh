#!/usr/bin/env bash
# Emits what `kubectl tfjob serve --dry-run=client` produces for every model source and
# option family, then has the independent kubernetes-models judge validate all of it.
#
#   serving_emit_and_validate.sh PLUGIN NODE_TOOLS_DIR OUT_DIR
set -euo pipefail
plugin=$1 node_dir=$2 out=$3
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$out" && mkdir -p "$out"
emit() {  # emit FILE ARGS...
  local f=$1; shift
  "$plugin" serve "$@" --dry-run=client -o yaml > "$out/$f.yaml"
}
emit resnet-gpu resnet --model resnet
emit resnet-cpu resnet-cpu --model resnet --gpus 0 --replicas 3 --cpu 4 --memory 8Gi
emit url clf --model-url https://example.com/m.tar.gz --model-version 7 --gpus 2 \
     --selector cloud.google.com/gke-accelerator=nvidia-tesla-v100 --toleration nvidia.com/gpu:NoSchedule \
     --toleration dedicated=serving:NoExecute --image tensorflow/serving:2.15.0-gpu --arg=--enable_batching
emit pvc mnist --pvc tfjob-mnist:export --model-name mnist -n team-a
emit pvc-root m2 --pvc claim
# a broken object must be rejected by the same judge (so a pass means something)
sed 's/containerPort: 8501/containerPort: "eighty-five-oh-one"/' "$out/resnet-gpu.yaml" > "$out/broken.yaml.bad"
rc=0
bash "$here/node_tool.sh" "$node_dir" validate_k8s.mjs "$out"/*.yaml || rc=$?
[ "$rc" -eq 0 ] || exit "$rc"
mkdir -p "$out/broken" && mv "$out/broken.yaml.bad" "$out/broken/broken.yaml"
if bash "$here/node_tool.sh" "$node_dir" validate_k8s.mjs "$out/broken/broken.yaml" >/dev/null 2>&1; then
  echo "the judge accepted a Deployment with a string containerPort" >&2
  exit 1
fi
echo "every emitted object is valid; the broken one was rejected"
