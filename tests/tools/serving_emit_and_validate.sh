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
# the operations: batching + monitoring (ConfigMap), a PDB for 3 replicas, an HPA
emit ops-replicas ops --model resnet --replicas 3 --batching max_batch_size=32,batch_timeout_micros=5000,num_batch_threads=4,allowed_batch_sizes=8:16:32 --monitoring
emit ops-autoscale ops-hpa --model resnet --gpus 0 --cpu 2 --autoscale 2:10:70% -n team-a
# the edge profile: CPU limits apart from requests, the init container's resources, maxSurge 0
emit edge edge --model resnet --profile edge -n team-a
grep -q 'maxSurge: 0' "$out/edge.yaml" || { echo "serve --profile edge emitted no maxSurge 0" >&2; exit 1; }
# tensorboard JOB's Deployment and Service, for the MNIST sample's log directory
"$plugin" tensorboard -f "$here/../../samples/mnist/tfjob.yaml" --dry-run=client -o yaml > "$out/tensorboard.yaml" 2>/dev/null
grep -q 'claimName: tfjob-mnist' "$out/tensorboard.yaml" || { echo "tensorboard emitted no claim" >&2; exit 1; }
# several models through TF Serving's model config file: ConfigMap + Deployment + Service
emit model-config zoo --model a=pvc:tfjob-mnist:export/a --model b=https://example.com/b.tar.gz --model r=resnet \
     --version-policy a=specific:1,2 --version-policy b=latest:2 --version-label a:stable=1 --version-label a:canary=2 \
     --model-config-poll 30 --gpus 0 -n team-a
grep -q 'kind: ConfigMap' "$out/model-config.yaml" || { echo "serve --model NAME=SOURCE emitted no ConfigMap" >&2; exit 1; }
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
# and the HPA and PDB kinds are really judged too
grep -q 'kind: HorizontalPodAutoscaler' "$out/ops-autoscale.yaml" || { echo "no HPA emitted" >&2; exit 1; }
grep -q 'kind: PodDisruptionBudget' "$out/ops-replicas.yaml" || { echo "no PDB emitted" >&2; exit 1; }
sed 's/maxReplicas: 10/maxReplicas: "ten"/' "$out/ops-autoscale.yaml" > "$out/broken/broken-hpa.yaml"
sed 's/maxUnavailable: 1/maxUnavailable: [1]/' "$out/ops-replicas.yaml" > "$out/broken/broken-pdb.yaml"
for b in broken-hpa broken-pdb; do
  if bash "$here/node_tool.sh" "$node_dir" validate_k8s.mjs "$out/broken/$b.yaml" >/dev/null 2>&1; then
    echo "the judge accepted $b.yaml" >&2
    exit 1
  fi
done
echo "every emitted object is valid; the broken one was rejected"
