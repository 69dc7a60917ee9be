#!/usr/bin/env bash
# Builds the release archives of kubectl-tfjob and the krew manifest that names them.
#
#   scripts/release.sh [--version X.Y.Z] [--out DIR] [--manifest FILE]
#                      [--binary OS/ARCH=PATH]... [--host-binary PATH]
#                      [--trainer OS/ARCH=PATH]... [--host-trainer PATH]
#                      [--base-url URL] [--build-dir DIR] [--static] [--chroot]
#                      [--max-glibc X.Y]
#
# Each archive, DIR/kubectl-tfjob_<version>_<os>_<arch>.tar.gz, holds the plugin binary,
# hello-tfjob (the C++ trainer `kubectl tfjob submit hello --local` runs: the plugin looks
# for it next to itself, so the archive needs no image and no build), the
# kubectl_complete-tfjob completion helper and LICENSE at its top level, packed
# reproducibly (sorted names, owner 0, fixed mtime from SOURCE_DATE_EPOCH, gzip -n).
# The manifest (default krew/tfjob.yaml) gets one platform entry per archive with its real
# sha256; DIR/SHA256SUMS lists the same sums.
#
# Without --binary the host's binary is built in Release mode (cmake, --build-dir, default
# build-release) and packaged for the host's os/arch. Give --binary once per platform to
# package binaries built elsewhere (e.g. --binary linux/arm64=out/arm64/kubectl-tfjob);
# --host-binary PATH packages an already built binary for the host's os/arch. Each
# platform's hello-tfjob is the one next to its binary, or --trainer OS/ARCH=PATH
# (--host-trainer PATH for the host's); a platform without one is refused.
# The version defaults to the one in include/tfjob/version.hpp; a host binary must report
# the same version or nothing is packaged.
# --chroot (the release; needs root and mmdebstrap) builds linux/amd64 and linux/arm64 with
# scripts/release-chroot.sh inside a Debian 11 chroot, static but for glibc, with the
# glibc 2.28 shim (release/glibc_compat.cpp), so they run on glibc >= 2.28 (RHEL 8, Debian
# 11, Ubuntu 20.04 and newer); --max-glibc defaults to 2.28 then (docs/release.md says what
# is proven and what is not). --static builds the host binary with -DTFJOB_STATIC_DEPS=ON on this host
# (libstdc++, libgcc, OpenSSL and yaml-cpp linked in from Debian's static archives), which
# needs this host's glibc or newer. Every Linux binary packaged is checked with readelf:
# one that needs a shared library other than glibc's (libc, libm, libpthread, libdl, librt,
# the loader) is refused unless --allow-shared, one that needs a glibc symbol version newer
# than --max-glibc is refused; the newest glibc symbol version it needs is printed.
#
# Exit status: 0 on success, 1 on any failure, 2 on a usage error.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
VERSION=""
OUT="$ROOT/dist"
MANIFEST="$ROOT/krew/tfjob.yaml"
BASE_URL="https://github.com/kubectl-tfjob/kubectl-tfjob/releases/download"
BUILD_DIR="$ROOT/build-release"
BINARIES=()
TRAINERS=()
HOST_BINARY=""
HOST_TRAINER=""
STATIC=0
CHROOT=0
MAX_GLIBC=""
ALLOW_SHARED=0

die() { echo "release.sh: error: $*" >&2; exit 1; }
usage() { sed -n '2,39p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

while [ $# -gt 0 ]; do
  case "$1" in
    --version) [ $# -ge 2 ] || usage; VERSION=${2#v}; shift 2 ;;
    --out) [ $# -ge 2 ] || usage; OUT=$2; shift 2 ;;
    --manifest) [ $# -ge 2 ] || usage; MANIFEST=$2; shift 2 ;;
    --binary) [ $# -ge 2 ] || usage; BINARIES+=("$2"); shift 2 ;;
    --host-binary) [ $# -ge 2 ] || usage; HOST_BINARY=$2; shift 2 ;;
    --trainer) [ $# -ge 2 ] || usage; TRAINERS+=("$2"); shift 2 ;;
    --host-trainer) [ $# -ge 2 ] || usage; HOST_TRAINER=$2; shift 2 ;;
    --base-url) [ $# -ge 2 ] || usage; BASE_URL=${2%/}; shift 2 ;;
    --build-dir) [ $# -ge 2 ] || usage; BUILD_DIR=$2; shift 2 ;;
    --static) STATIC=1; shift ;;
    --chroot) CHROOT=1; shift ;;
    --max-glibc) [ $# -ge 2 ] || usage; MAX_GLIBC=$2; shift 2 ;;
    --allow-shared) ALLOW_SHARED=1; shift ;;
    -h|--help) usage ;;
    *) echo "release.sh: unknown argument: $1" >&2; usage ;;
  esac
done

for tool in tar gzip sha256sum; do
  command -v "$tool" >/dev/null || die "$tool is required"
done

SOURCE_VERSION=$(sed -n 's/.*inline constexpr const char\* version = "\([^"]*\)".*/\1/p' \
  "$ROOT/include/tfjob/version.hpp")
[ -n "$SOURCE_VERSION" ] || die "cannot read the version from include/tfjob/version.hpp"
VERSION=${VERSION:-$SOURCE_VERSION}
# krew requires a semantic version (with a leading v in the manifest).
[[ "$VERSION" =~ ^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$ ]] ||
  die "version '$VERSION' is not a semantic version X.Y.Z"

HELPER="$ROOT/plugin/kubectl_complete-tfjob"
LICENSE_FILE="$ROOT/LICENSE"
[ -f "$HELPER" ] || die "missing $HELPER"
[ -f "$LICENSE_FILE" ] || die "missing $LICENSE_FILE"

host_platform() {
  local os arch
  case "$(uname -s)" in
    Linux) os=linux ;;
    Darwin) os=darwin ;;
    *) die "unsupported host OS $(uname -s); pass --binary OS/ARCH=PATH" ;;
  esac
  case "$(uname -m)" in
    x86_64|amd64) arch=amd64 ;;
    aarch64|arm64) arch=arm64 ;;
    ppc64le) arch=ppc64le ;;
    *) die "unsupported host architecture $(uname -m); pass --binary OS/ARCH=PATH" ;;
  esac
  echo "$os/$arch"
}

if [ "$CHROOT" = 1 ]; then
  # The release's glibc claim (README "Install", docs/release.md): RHEL 8's 2.28.
  MAX_GLIBC=${MAX_GLIBC:-2.28}
  CHROOT_OUT=$(mktemp -d)
  trap 'rm -rf "$CHROOT_OUT"' EXIT
  for arch in amd64 arm64; do
    bin=$(bash "$ROOT/scripts/release-chroot.sh" build "$arch" "$CHROOT_OUT/$arch") ||
      die "building linux/$arch in the release chroot failed"
    BINARIES+=("linux/$arch=$bin")
  done
fi
if [ -n "$HOST_BINARY" ]; then
  BINARIES+=("$(host_platform)=$HOST_BINARY")
fi
if [ -n "$HOST_TRAINER" ]; then
  TRAINERS+=("$(host_platform)=$HOST_TRAINER")
fi
if [ ${#BINARIES[@]} -eq 0 ]; then
  echo "release.sh: building kubectl-tfjob (Release) in $BUILD_DIR" >&2
  # A build dir kept between checkouts (the static build's cache under /var/cache, reused by
  # every clone CI makes) was configured for another source tree, which CMake refuses:
  # start it afresh; ccache keeps that cheap.
  if [ -f "$BUILD_DIR/CMakeCache.txt" ] &&
     ! grep -qxF "CMAKE_HOME_DIRECTORY:INTERNAL=$ROOT" "$BUILD_DIR/CMakeCache.txt"; then
    echo "release.sh: $BUILD_DIR was configured for another checkout; configuring it again" >&2
    rm -rf "$BUILD_DIR"
  fi
  launcher=()
  if [ "${TFJOB_CCACHE:-1}" != 0 ] && command -v ccache >/dev/null; then
    export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$ROOT} CCACHE_NOHASHDIR=1
    launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  fi
  cmake -S "$ROOT" -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" -DTFJOB_BUILD_TESTS=OFF \
    -DTFJOB_BUILD_SAMPLES=OFF -DTFJOB_BUILD_GPU_PROBE=OFF -DTFJOB_BUILD_BENCH=OFF \
    -DTFJOB_STATIC_DEPS=$([ "$STATIC" = 1 ] && echo ON || echo OFF) >/dev/null
  cmake --build "$BUILD_DIR" --target kubectl-tfjob hello-tfjob -j "${JOBS:-2}" >&2
  BINARIES=("$(host_platform)=$BUILD_DIR/plugin/kubectl-tfjob")
  TRAINERS+=("$(host_platform)=$BUILD_DIR/samples/hello-tfjob/hello-tfjob")
fi

HOST=""
if [ "$(uname -s)" = Linux ] || [ "$(uname -s)" = Darwin ]; then HOST=$(host_platform); fi

mkdir -p "$OUT" "$(dirname "$MANIFEST")"
OUT=$(cd "$OUT" && pwd)
STAGE=$(mktemp -d)
trap 'rm -rf "$STAGE" ${CHROOT_OUT:+"$CHROOT_OUT"}' EXIT
export TZ=UTC LC_ALL=C
MTIME=${SOURCE_DATE_EPOCH:-0}

declare -a ENTRIES=()
: > "$STAGE/SHA256SUMS"
for spec in "${BINARIES[@]}"; do
  platform=${spec%%=*}
  bin=${spec#*=}
  [ "$platform" != "$spec" ] || die "--binary wants OS/ARCH=PATH, got '$spec'"
  os=${platform%/*}
  arch=${platform#*/}
  [[ "$os" =~ ^(linux|darwin|windows)$ ]] || die "unknown os '$os' in '$spec'"
  [[ "$arch" =~ ^(amd64|arm64|arm|386|ppc64le)$ ]] || die "unknown arch '$arch' in '$spec'"
  [ "$os" != windows ] || die "windows archives need a .exe binary and a zip; not supported"
  case " ${SEEN:-} " in *" $platform "*) die "platform $platform given twice" ;; esac
  SEEN="${SEEN:-} $platform"
  [ -f "$bin" ] && [ -x "$bin" ] || die "binary for $platform not found or not executable: $bin"
  trainer=""
  for t in "${TRAINERS[@]}"; do [ "${t%%=*}" != "$platform" ] || trainer=${t#*=}; done
  [ -n "$trainer" ] || trainer="$(dirname "$bin")/hello-tfjob"
  [ -f "$trainer" ] && [ -x "$trainer" ] ||
    die "no hello-tfjob for $platform at $trainer (the archive carries it for 'submit hello --local'; pass --trainer $platform=PATH)"
  if [ "$os" = linux ] && command -v readelf >/dev/null; then
    for elf in "$bin" "$trainer"; do
      # what a user's machine must provide: only glibc (the release's promise)
      needed=$(readelf -d "$elf" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
      extra=$(for l in $needed; do case "$l" in libc.so.*|libm.so.*|libpthread.so.*|libdl.so.*|librt.so.*|ld-linux*) ;; *) printf '%s ' "$l" ;; esac; done)
      glibc=$(readelf -V "$elf" | grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -1)
      echo "release.sh: $platform $(basename "$elf") needs ${needed:-nothing}(newest symbol version ${glibc:-none})" >&2
      if [ -n "$extra" ] && [ "$ALLOW_SHARED" != 1 ]; then
        die "$elf needs shared libraries users may not have: $extra(build it with --chroot or --static / -DTFJOB_STATIC_DEPS=ON, or pass --allow-shared)"
      fi
      if [ -n "$MAX_GLIBC" ] && [ -n "$glibc" ] &&
         [ "$(printf '%s\n%s\n' "${glibc#GLIBC_}" "$MAX_GLIBC" | sort -V | tail -1)" != "$MAX_GLIBC" ]; then
        die "$elf needs $glibc, newer than --max-glibc $MAX_GLIBC (build it with --chroot)"
      fi
    done
  fi
  if [ "$platform" = "$HOST" ]; then
    # A binary we can run must say it is the version we are about to publish.
    got=$("$bin" version --client 2>/dev/null | head -1 || true)
    case "$got" in
      *"v$VERSION "*|*"v$VERSION") ;;
      *) die "$bin reports '$got', expected version v$VERSION" ;;
    esac
  fi
  name="kubectl-tfjob_${VERSION}_${os}_${arch}"
  dir="$STAGE/$name"
  mkdir -p "$dir"
  install -m 0755 "$bin" "$dir/kubectl-tfjob"
  install -m 0755 "$trainer" "$dir/hello-tfjob"
  install -m 0755 "$HELPER" "$dir/kubectl_complete-tfjob"
  install -m 0644 "$LICENSE_FILE" "$dir/LICENSE"
  touch -d "@$MTIME" "$dir"/* "$dir"
  archive="$OUT/$name.tar.gz"
  tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$MTIME" \
    -C "$dir" -cf - hello-tfjob kubectl-tfjob kubectl_complete-tfjob LICENSE | gzip -n -9 > "$archive.tmp"
  mv "$archive.tmp" "$archive"
  sum=$(sha256sum "$archive" | cut -d' ' -f1)
  echo "$sum  $name.tar.gz" >> "$STAGE/SHA256SUMS"
  ENTRIES+=("$os|$arch|$name.tar.gz|$sum")
  echo "release.sh: $archive  sha256 $sum" >&2
done
cp "$STAGE/SHA256SUMS" "$OUT/SHA256SUMS"

# The linux binaries' promise, when they were checked against one (--chroot, --max-glibc).
GLIBC_LINE=""
if [ -n "$MAX_GLIBC" ] && [ "$ALLOW_SHARED" != 1 ]; then
  GLIBC_LINE=$'\n'"    The linux binaries need nothing but glibc >= $MAX_GLIBC$([ "$MAX_GLIBC" = 2.28 ] && echo ' (RHEL 8, Debian 11, Ubuntu 20.04 and newer)')."
fi
{
  cat <<EOF
# Generated by scripts/release.sh for v$VERSION: do not edit by hand.
apiVersion: krew.googlecontainertools.github.com/v1alpha2
kind: Plugin
metadata:
  name: tfjob
spec:
  version: v$VERSION
  homepage: https://github.com/kubectl-tfjob/kubectl-tfjob
  shortDescription: Train with Kubeflow TFJobs on GPUs and serve with TF Serving
  description: |
    kubectl tfjob submits Kubeflow TFJobs (kubeflow.org/v1, training operator v1.9)
    with the operator's defaults and validation applied before anything is created,
    follows the chief's logs, waits for and describes jobs, checks that GPU nodes
    are ready for training with an on-node CUDA probe, rolls out TensorFlow Serving
    for a trained model or ResNet-50 and sends it predictions, and runs a TFJob
    locally with real TF_CONFIG wiring.${GLIBC_LINE}
  caveats: |
    kubectl tfjob needs the Kubeflow training operator in the cluster:
      kubectl apply --server-side -k "github.com/kubeflow/trainer.git/manifests/overlays/standalone?ref=v1.9.4"
    Without a cluster, "kubectl tfjob submit hello --local" trains on this machine with the
    hello-tfjob trainer installed beside the plugin.
    For "kubectl tfjob <TAB>" completion (kubectl >= 1.26), put the helper on PATH:
      ln -s "\$(dirname "\$(readlink -f "\$(command -v kubectl-tfjob)")")/kubectl_complete-tfjob" ~/.krew/bin/
  platforms:
EOF
  for e in "${ENTRIES[@]}"; do
    IFS='|' read -r os arch file sum <<< "$e"
    cat <<EOF
  - selector:
      matchLabels:
        os: $os
        arch: $arch
    uri: $BASE_URL/v$VERSION/$file
    sha256: $sum
    bin: kubectl-tfjob
    files:
    - from: kubectl-tfjob
      to: .
    - from: hello-tfjob
      to: .
    - from: kubectl_complete-tfjob
      to: .
    - from: LICENSE
      to: .
EOF
  done
} > "$MANIFEST.tmp"
mv "$MANIFEST.tmp" "$MANIFEST"
echo "release.sh: wrote $MANIFEST (${#ENTRIES[@]} platform(s))" >&2
