#!/usr/bin/env bash
# The real-node tier's images, built here from this build tree and Debian files (image.sh),
# no registry: one docker-archive tarball each in OUTDIR, imported by node.sh.
#   pause        tfjob.local/pause:3.4.1                   the pod sandbox (upstream pause.c, static)
#   hello        ghcr.io/kubectl-tfjob/hello-tfjob:v0.1.0  the trainer of `submit hello`, with
#                                                          Debian's Fashion-MNIST at its fallback path
#   tfserving    tfjob.local/tfserving-standin:v1          TF Serving's REST API (serve --image)
#   dcgm         tfjob.local/dcgm-exporter-standin:v1      dcgm-exporter's /metrics page (top)
#   gpu-probe    ghcr.io/kubectl-tfjob/gpu-probe:v0.1.0    the CUDA probe of `gpu-check` (when built)
#   tools        tfjob.local/tools:v1                      sh, cat, sleep, printf, head... for scenario pods
#
#   images.sh OUTDIR      (binaries from TFJOB_REALNODE_PAUSE, _HELLO, _TFSERVING, _DCGM, _PROBE)
# A tarball is rebuilt only when its inputs changed (a stamp of their sha256 beside it).
# Exit codes: 0 ok; 1 error (a binary this build makes is missing: a failure, never a skip);
# 77 when a Debian package is missing (the skip rule, kept in OUTDIR/skip-reason for node.sh).
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
OUT=${1:?OUTDIR}
mkdir -p "$OUT"
IMG="$HERE/image.sh"
. "$HERE/../support/skip.sh"
missing() { echo "realnode images: FAIL: $*" >&2; exit 1; }

# image NAME REF ENTRYPOINT-ARGS -- INPUTS...: (re)build NAME.tar when its inputs changed;
# the root file system is made by the function rootfs_NAME ROOT
image() {
  local name=$1 ref=$2 entry=$3; shift 3; [ "${1:-}" = -- ] && shift
  local stamp; stamp=$( { echo "$ref $entry"; sha256sum "$IMG" "$0" "$@"; } | sha256sum | cut -d' ' -f1)
  if [ -f "$OUT/$name.tar" ] && [ "$(cat "$OUT/$name.stamp" 2>/dev/null)" = "$stamp" ]; then return 0; fi
  local root; root=$(mktemp -d)
  bash "$IMG" base "$root"
  "rootfs_$name" "$root"
  # shellcheck disable=SC2086
  bash "$IMG" build "$OUT/$name.tar" "$ref" "$root" -- $entry
  rm -rf "$root"
  echo "$stamp" >"$OUT/$name.stamp"
}

PAUSE=${TFJOB_REALNODE_PAUSE:-}
[ -x "$PAUSE" ] || missing "no pause binary (TFJOB_REALNODE_PAUSE=$PAUSE; tests/realapi/setup.sh builds it)"
rootfs_pause() { install -D -m 0755 "$PAUSE" "$1/pause"; }
image pause tfjob.local/pause:${PAUSE_TAG:-3.4.1} /pause -- "$PAUSE"

# a few coreutils for scenario pods (sh is dash, everything with its shared libraries)
# (wc and base64: serve's export check pod, which runs in the server's image, the stand-in's here)
TOOLS=(/bin/sh /bin/cat /bin/sleep /usr/bin/printf /usr/bin/head /usr/bin/yes /bin/echo /bin/ls /usr/bin/env /usr/bin/seq /bin/true /bin/false
       /usr/bin/wc /usr/bin/base64 /bin/mkdir)
rootfs_tools() {
  local t
  for t in "${TOOLS[@]}"; do bash "$IMG" add-bin "$1" "$(readlink -f "$t")" "$t"; done
}
image tools tfjob.local/tools:v1 /bin/sh -- "${TOOLS[@]}"

HELLO=${TFJOB_REALNODE_HELLO:-}
[ -x "$HELLO" ] || missing "no hello-tfjob binary (TFJOB_REALNODE_HELLO=$HELLO; build the hello-tfjob target)"
FMNIST=/usr/share/datasets/fashion-mnist
[ -f "$FMNIST/train-images-idx3-ubyte.gz" ] ||
  tfjob_skip_record "$OUT/skip-reason" no-dataset "no Fashion-MNIST in $FMNIST" "apt-get install dataset-fashion-mnist (scripts/install-deps.sh)"
rootfs_hello() {
  bash "$IMG" add-bin "$1" "$HELLO" /usr/local/bin/hello-tfjob
  rootfs_tools "$1"
  mkdir -p "$1$FMNIST"; cp "$FMNIST"/*.gz "$1$FMNIST/"
}
# samples/hello-tfjob/Dockerfile: the TFJob gives the command, the image a --help default
image hello ghcr.io/kubectl-tfjob/hello-tfjob:v0.1.0 "hello-tfjob --help" -- "$HELLO" "$FMNIST"/*.gz

TFS=${TFJOB_REALNODE_TFSERVING:-}
[ -x "$TFS" ] || missing "no tfserving-standin binary (TFJOB_REALNODE_TFSERVING=$TFS)"
rootfs_tfserving() {
  bash "$IMG" add-bin "$1" "$TFS" /usr/bin/tensorflow_model_server
  rootfs_tools "$1"
}
# tensorflow/serving's entrypoint is tensorflow_model_server with its flags as args
image tfserving tfjob.local/tfserving-standin:v1 /usr/bin/tensorflow_model_server -- "$TFS"

DCGM=${TFJOB_REALNODE_DCGM:-}
if [ -x "$DCGM" ]; then
  rootfs_dcgm() { bash "$IMG" add-bin "$1" "$DCGM" /usr/bin/dcgm-exporter; }
  image dcgm tfjob.local/dcgm-exporter-standin:v1 /usr/bin/dcgm-exporter -- "$DCGM"
else
  echo "realnode images: no dcgm-exporter-standin binary (TFJOB_REALNODE_DCGM=$DCGM): the top scenario will fail" >&2
  rm -f "$OUT/dcgm.tar"
fi

PROBE=${TFJOB_REALNODE_PROBE:-}
if [ -x "$PROBE" ]; then
  rootfs_gpu-probe() { bash "$IMG" add-bin "$1" "$PROBE" /usr/local/bin/tfjob-gpu-probe; }
  image gpu-probe ghcr.io/kubectl-tfjob/gpu-probe:v0.1.0 /usr/local/bin/tfjob-gpu-probe -- "$PROBE"
else
  echo "realnode images: no tfjob-gpu-probe binary (no nvcc here?): no probe image; the gpu-check scenario skips by the rule" >&2
  rm -f "$OUT/gpu-probe.tar"
fi
rm -f "$OUT/skip-reason"
