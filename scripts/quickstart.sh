#!/usr/bin/env bash
# Quick start: installs the dependencies (Debian 12 packages), builds the plugin, then runs
# the main job.
#   - With a cluster configured (kubeconfig, --context or in-cluster) that answers: the
#     MNIST sample as a TFJob there, `kubectl tfjob submit mnist --follow` (its claim is
#     created when absent; the preflight says what is missing: the training operator, GPUs).
#     It names the context it found and, in auto mode, asks before submitting a GPU job to
#     it (on a terminal; without one it needs TFJOB_QUICKSTART=cluster and runs locally).
#   - Otherwise (the local default): the built-in `hello` TFJob on this machine - a Chief and
#     two Workers as local processes wired by a real TF_CONFIG (127.0.0.1, free ports) -
#     training softmax regression on Fashion-MNIST (Debian's dataset-fashion-mnist) with a
#     ring all-reduce. Prints the chief's epochs and the test accuracy (about 0.84); fails
#     below 0.80.
#
#   bash scripts/quickstart.sh                     # auto: the cluster if one answers and you say yes, else local
#   TFJOB_QUICKSTART=cluster bash scripts/quickstart.sh # submit to the current context without asking
#   TFJOB_QUICKSTART=local bash scripts/quickstart.sh   # force local
#   WORKERS=4 bash scripts/quickstart.sh --all     # extra args go to `kubectl tfjob submit` (--all: the local run's)
#   GPUS=0 bash scripts/quickstart.sh              # cluster mode on CPU nodes
#   TFJOB_QUICKSTART_SETUP=0 BUILD_DIR=build bash scripts/quickstart.sh   # already built: skip setup
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
STATE_DIR=${STATE_DIR:-$BUILD_DIR/quickstart}
WORKERS=${WORKERS:-2}
MIN_ACCURACY=${MIN_ACCURACY:-0.80}
MODE=${TFJOB_QUICKSTART:-auto}
case "$MODE" in auto|local|cluster) ;; *) echo "quickstart: TFJOB_QUICKSTART must be auto, local or cluster" >&2; exit 64 ;; esac

if [ "${TFJOB_QUICKSTART_SETUP:-1}" != 0 ]; then  # 0: use what BUILD_DIR already has
  echo "==> installing dependencies (scripts/install-deps.sh)" >&2
  bash scripts/install-deps.sh
  echo "==> building into $BUILD_DIR (scripts/build.sh)" >&2
  BUILD_DIR="$BUILD_DIR" TARGETS="kubectl-tfjob hello-tfjob" bash scripts/build.sh
fi
plugin="$BUILD_DIR/plugin/kubectl-tfjob"

if [ "$MODE" != local ]; then
  # `kubectl tfjob version` reaches the cluster as every command would (exit 1: none
  # configured, or it does not answer) and names the context it used
  if out=$("$plugin" version --request-timeout 10s 2>&1); then
    context=$(echo "$out" | sed -n 's/^Context: //p')
    echo "==> a cluster answers: context \"${context:-<none: in-cluster or flags>}\", $(echo "$out" | sed -n 's/^Server Version: //p')" >&2
    if [ "$MODE" = auto ]; then
      gpus_note="${GPUS:-1} GPU(s) per replica, $((WORKERS + 1)) replicas"
      if [ -t 0 ]; then
        printf '==> submit the MNIST TFJob (%s) to context "%s"? [y/N] ' "$gpus_note" "$context" >&2
        read -r answer || answer=
        case "$answer" in y|Y|yes|YES) MODE=cluster ;; *) MODE=local; echo "==> not submitting; running locally" >&2 ;; esac
      else
        MODE=local
        echo "==> not submitting a GPU job ($gpus_note) to context \"$context\" without asking: set TFJOB_QUICKSTART=cluster to submit it there; running locally" >&2
      fi
    fi
  elif [ "$MODE" = auto ]; then
    MODE=local
    echo "==> no cluster to use ($(echo "$out" | sed -n 's/^error: //p' | head -1)); running locally" >&2
  fi
fi

if [ "$MODE" = cluster ]; then
  args=(submit mnist --workers "$WORKERS" --follow)
  [ -n "${GPUS:-}" ] && args+=(--gpus "$GPUS")
  echo "==> kubectl tfjob ${args[*]} $* (TFJOB_QUICKSTART=local runs it on this machine instead)" >&2
  exec "$plugin" "${args[@]}" "$@"
fi

echo "==> kubectl tfjob submit hello --local --workers $WORKERS" >&2
rm -rf "$STATE_DIR/volumes/tfjob-hello/hello"
"$plugin" submit hello --local --workers "$WORKERS" --state-dir "$STATE_DIR" "$@"

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
