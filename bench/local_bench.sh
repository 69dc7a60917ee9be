#!/usr/bin/env bash
# Local runner benchmark: hello-tfjob (softmax regression, Fashion-MNIST, 5 epochs, batch 32
# per replica) run with `kubectl tfjob submit hello --local` as 1, 2 and 4 replicas (a
# Chief plus 0, 1, 3 Workers). Reports the training throughput (examples/s over every
# epoch, from the chief's metrics.json) and the time from starting `submit --local` to the
# chief's first training step (data loading, ring formation included).
#
#   bash bench/local_bench.sh [BUILD_DIR]     # default: build
# Prints a Markdown table on stdout.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${1:-${BUILD_DIR:-build}}
plugin="$BUILD_DIR/plugin/kubectl-tfjob"
[ -x "$plugin" ] || { echo "local_bench: build first ($plugin not found)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "| replicas | examples/s (training) | submit -> first step | test accuracy | wall time |"
echo "|---:|---:|---:|---:|---:|"
for replicas in 1 2 4; do
  dir="$work/r$replicas"
  start=$(date +%s%N)
  "$plugin" submit hello --local --workers $((replicas - 1)) --state-dir "$dir" 2>"$dir.err" |
    while IFS= read -r line; do
      if [[ $line == *"first training step"* && ! -f "$dir.first" ]]; then
        echo $(( ($(date +%s%N) - start) / 1000000 )) > "$dir.first"
      fi
    done
  end=$(date +%s%N)
  m="$dir/volumes/tfjob-hello/hello/metrics.json"
  [ -f "$m" ] || { echo "local_bench: no metrics for $replicas replicas:" >&2; cat "$dir.err" >&2; exit 1; }
  eps=$(sed -n 's/^  "examples_per_second": \([0-9.eE+-]*\),\{0,1\}$/\1/p' "$m")
  acc=$(sed -n 's/^  "test_accuracy": \([0-9.eE+-]*\),\{0,1\}$/\1/p' "$m")
  printf '| %d | %.0f | %d ms | %.4f | %.1f s |\n' "$replicas" "$eps" "$(cat "$dir.first")" "$acc" \
    "$(awk -v a="$start" -v b="$end" 'BEGIN { print (b - a) / 1e9 }')"
done
