#!/usr/bin/env bash
# Runs the plugin to emit TFJobs (the sample, flags, manifests) and has the independent
# judge (validate_crd.py, python3-jsonschema) check each against the official CRD schema.
#   api_emit_and_validate.sh PLUGIN PYTHON CRD SOURCE_DIR WORK_DIR
set -euo pipefail
plugin=$1 python=$2 crd=$3 src=$4 work=$5
. "$src/tests/support/skip.sh"
[ -n "$python" ] || tfjob_skip python-judge "no python3 with jsonschema and yaml when CMake configured" \
  "apt-get install python3-jsonschema python3-yaml (scripts/install-deps.sh), then reconfigure"
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
# every runPolicy.schedulingPolicy field of v1.9, the scheduler, managedBy, suspend
emit scheduling submit --name gang -n team-a --image tensorflow/tensorflow:2.15.0-gpu --chief --workers 3 --ps 1 \
  --gpus 1 --min-available 4 --queue research --priority-class high-priority --min-resources nvidia.com/gpu=4,cpu=8 \
  --min-resources memory=32Gi --schedule-timeout 600 --scheduler-name volcano --managed-by kubeflow.org/training-operator \
  --suspend --dry-run=client -o yaml
emit gang submit mnist --workers 4 --gang --scheduler-name scheduler-plugins-scheduler --dry-run=client -o yaml
emit kueue submit mnist --local-queue team-a-gpus --managed-by kueue.x-k8s.io/multikueue --dry-run=client -o yaml
# per replica type (Arena's flags) and the pods' settings
emit roles submit --name roles --image tf:common --chief --workers 2 --ps 1 --evaluator --gpus 1 --cpu 2 --memory 4Gi \
  --chief-image tf:chief --worker-image tf:worker --ps-image tf:ps --evaluator-image tf:eval --worker-cpu 8 \
  --worker-gpus 4 --ps-memory 64Gi --ps-cpu 500m --chief-memory 8Gi --evaluator-gpus 0 \
  --annotation sidecar.istio.io/inject=false --image-pull-policy IfNotPresent --image-pull-secret regcred \
  --service-account trainer --shm-size 2Gi --dry-run=client -o yaml
emit multi submit -f "$src/tests/data/api/multi.yaml" --dry-run=client -o yaml
"$plugin" submit mnist --dry-run=client -o json > "$work/mnist.json"
n=$((n + 1))
# 11 jobs: mnist, mnist-cpu, flags, minimal, scheduling, gang, kueue, roles, 2 in multi, mnist.json
"$python" "$src/tests/tools/validate_crd.py" --crd "$crd" --strict --min-jobs 11 "$work"
