#!/usr/bin/env bash
# Quick start, no cluster needed: installs the dependencies (Debian 12 packages), builds
# everything, then runs the built-in `hello` TFJob on this machine - a Chief and two Workers
# as local processes wired by a real TF_CONFIG (127.0.0.1, free ports) - training softmax
# regression on Fashion-MNIST (Debian's dataset-fashion-mnist) with a ring all-reduce.
# Prints the chief's epochs and the test accuracy (about 0.84); fails below 0.80.
#
#   bash scripts/quickstart.sh                  # defaults: 2 workers, build/ and build/quickstart/
#   WORKERS=4 bash scripts/quickstart.sh --all  # extra args go to `kubectl tfjob submit`
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
STATE_DIR=${STATE_DIR:-$BUILD_DIR/quickstart}
WORKERS=${WORKERS:-2}
MIN_ACCURACY=${MIN_ACCURACY:-0.80}

echo "==> installing dependencies (scripts/install-deps.sh)" >&2
bash scripts/install-deps.sh
echo "==> building into $BUILD_DIR (scripts/build.sh)" >&2
BUILD_DIR="$BUILD_DIR" TARGETS="kubectl-tfjob hello-tfjob" bash scripts/build.sh

echo "==> kubectl tfjob submit hello --local --workers $WORKERS" >&2
rm -rf "$STATE_DIR/volumes/tfjob-hello/hello"
"$BUILD_DIR/plugin/kubectl-tfjob" submit hello --local --workers "$WORKERS" --state-dir "$STATE_DIR" "$@"

metrics="$STATE_DIR/volumes/tfjob-hello/hello/metrics.json"
if [ ! -f "$metrics" ]; then
  echo "quickstart: the chief wrote no $metrics; logs: $STATE_DIR/logs/" >&2
  exit 1
fi
acc=$(sed -n 's/^  "test_accuracy": \([0-9.eE+-]*\),\{0,1\}$/\1/p' "$metrics")
echo "==> test accuracy: $acc (model and metrics in $(dirname "$metrics"), logs in $STATE_DIR/logs)"
if ! awk -v a="$acc" -v m="$MIN_ACCURACY" 'BEGIN { exit !(a + 0 > m + 0) }'; then
  echo "quickstart: test accuracy $acc is not above $MIN_ACCURACY" >&2
  exit 1
fi
