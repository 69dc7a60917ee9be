#!/usr/bin/env bash
# Runs the plugin to emit TFJobs (the sample, flags, manifests) and has the independent
# judge (validate_crd.py, python3-jsonschema) check each against the official CRD schema.
#   api_emit_and_validate.sh PLUGIN PYTHON CRD SOURCE_DIR WORK_DIR
set -euo pipefail
plugin=$1 python=$2 crd=$3 src=$4 work=$5
if [ -z "$python" ]; then
  echo "skipped: no python3 with jsonschema and yaml (install python3-jsonschema python3-yaml)"
  exit 0
fi
rm -rf "$work"
mkdir -p "$work"
n=0
emit() {  # emit NAME ARGS...
  local name=$1
  shift
  "$plugin" "$@" > "$work/$name.yaml"
  n=$((n + 1))
}
emit mnist submit mnist --dry-run=client -o yaml
emit mnist-cpu submit mnist --gpus 0 --workers 4 -n ml --dry-run=client -o yaml -- --epochs=1
emit flags submit --name resnet -n team-a --image tensorflow/tensorflow:2.15.0-gpu --chief --workers 3 --ps 1 \
  --evaluator --gpus 2 --cpu 4 --memory 16Gi --env EPOCHS=10 --pvc data:/data --pvc models:/models:ro \
  --restart-policy ExitCode --clean-pod-policy All --ttl 600 --active-deadline 3600 --backoff-limit 2 \
  --success-policy AllWorkers --selector gpu=v100 --toleration nvidia.com/gpu:NoSchedule --label team=vision \
  --queue research --dynamic-worker --command --dry-run=client -o yaml -- python /data/train.py
emit minimal submit --name tiny --image busybox --dry-run=client -o yaml
emit multi submit -f "$src/tests/data/api/multi.yaml" --dry-run=client -o yaml
"$plugin" submit mnist --dry-run=client -o json > "$work/mnist.json"
n=$((n + 1))
# 7 jobs: mnist, mnist-cpu, flags, minimal, 2 in multi, mnist.json
"$python" "$src/tests/tools/validate_crd.py" --crd "$crd" --strict --min-jobs 7 "$work"
