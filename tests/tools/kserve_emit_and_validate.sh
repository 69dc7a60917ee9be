#!/usr/bin/env bash
# Emits what `kubectl tfjob serve --kserve --dry-run=client` produces (GPU, CPU with
# resources and a node selector, autoscaling, a claim's root) and has the independent
# judge (validate_crd.py, python3-jsonschema) check each against KServe's InferenceService
# CRD schema, strictly; then proves the judge rejects broken objects.
#
#   kserve_emit_and_validate.sh PLUGIN PYTHON CRD OUT_DIR
set -euo pipefail
plugin=$1 python=$2 crd=$3 out=$4
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../support/skip.sh"
[ -n "$python" ] || tfjob_skip python-judge "no python3 with jsonschema and yaml when CMake configured" \
  "apt-get install python3-jsonschema python3-yaml (scripts/install-deps.sh), then reconfigure"
rm -rf "$out" && mkdir -p "$out/broken"
emit() {  # emit FILE ARGS...
  local f=$1; shift
  "$plugin" serve "$@" --kserve --dry-run=client -o yaml > "$out/$f.yaml"
}
emit gpu mnist --pvc tfjob-mnist:export
emit cpu mnist-cpu --pvc tfjob-mnist:export/models --gpus 0 --replicas 3 --cpu 4 --memory 8Gi \
     --selector cloud.google.com/gke-accelerator=nvidia-tesla-v100 --toleration nvidia.com/gpu:NoSchedule \
     --toleration dedicated=serving:NoExecute -n team-a
emit autoscale hpa --pvc claim --gpus 0 --cpu 2 --autoscale 2:10:70% --serving-version 2.15.0
emit json mnist-json --pvc claim:a/b --gpus 2
grep -q 'storageUri: pvc://tfjob-mnist/export/mnist' "$out/gpu.yaml" || { echo "no pvc storageUri in gpu.yaml" >&2; exit 1; }
grep -q 'runtimeVersion: 2.20.0-gpu' "$out/gpu.yaml" || { echo "no -gpu runtimeVersion in gpu.yaml" >&2; exit 1; }
"$python" "$here/validate_crd.py" --crd "$crd" --strict --min-jobs 4 "$out"/*.yaml
# the same judge must reject what KServe's schema does not allow (so a pass means something)
sed 's/minReplicas: 3/minReplicas: "three"/' "$out/cpu.yaml" > "$out/broken/replicas.yaml"
sed 's/scaleMetric: cpu/scaleMetric: gpu-memory/' "$out/autoscale.yaml" > "$out/broken/metric.yaml"
sed 's/storageUri:/storageURI:/' "$out/gpu.yaml" > "$out/broken/typo.yaml"
sed 's/effect: NoSchedule/effect: [NoSchedule]/' "$out/cpu.yaml" > "$out/broken/toleration.yaml"
sed 's/^        name: tensorflow$/        version: "2"/' "$out/gpu.yaml" > "$out/broken/format.yaml"  # modelFormat without its required name
for b in 'replicas:minReplicas: "three"' 'metric:scaleMetric: gpu-memory' 'typo:storageURI:' 'toleration:effect: [NoSchedule]' 'format:version: "2"'; do
  grep -qF -- "${b#*:}" "$out/broken/${b%%:*}.yaml" || { echo "broken/${b%%:*}.yaml was not broken (the edit matched nothing)" >&2; exit 1; }
done
"$python" "$here/validate_crd.py" --crd "$crd" --strict --expect-invalid "$out"/broken/*.yaml
echo "ok: serve --kserve output validates against KServe's InferenceService CRD schema"
