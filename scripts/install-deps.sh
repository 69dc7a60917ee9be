#!/usr/bin/env bash
# Installs everything kubectl-tfjob needs to build and test on Debian 12, from Debian's
# packages only. Run as root (or with sudo). Safe to rerun.
set -euo pipefail
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
pkgs=(
  build-essential cmake pkg-config git ca-certificates ccache
  libcpp-httplib-dev libssl-dev nlohmann-json3-dev libyaml-cpp-dev libcli11-dev catch2 zlib1g-dev
  libstb-dev  # stb_image.h: predict --image decodes PNG/JPEG for float inputs (plugin/common/image_decode.cpp)
  python3 python3-jsonschema python3-yaml
  time  # GNU time: the plugin's peak memory in tests/logs_cli_test, and the benchmarks
  zsh fish  # the completion scripts are sourced and TABbed in each real shell (tests/security_test, issue 37)
  dataset-fashion-mnist
  # the real-apiserver test tier (tests/realapi/): kube-apiserver built from Debian's source
  golang-go golang-github-modern-go-reflect2-dev rsync jq curl procps etcd-server dpkg-dev make openssl
  # the fuzz targets (tests/fuzz/, docs/fuzzing.md): clang 14 with libFuzzer and the sanitizers' runtimes
  clang libclang-rt-14-dev
  # peak-memory benchmarks (bench/*.sh): GNU time -v
  time
  # the release workflow's run blocks (ctest release:workflow-lint)
  shellcheck
  # the real-node tier (tests/realnode/): container runtime, pod network, cluster DNS,
  # network namespaces (ip, nsenter, findmnt), portmap's iptables, a static pause (libc6-dev)
  containerd runc containernetworking-plugins dnsmasq-base iproute2 util-linux iptables libc6-dev
  # the release (scripts/release-chroot.sh, ctest -L release): Debian chroots from Debian's
  # archive (the cross toolchain is installed inside the Debian 11 one), arm64 through qemu
  mmdebstrap qemu-user-static file
)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "installing: ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -q
  $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# Tools that may come from elsewhere on a machine image; Debian's packages otherwise.
want_cmd() {  # want_cmd COMMAND PACKAGE...
  local cmd=$1; shift
  if ! command -v "$cmd" >/dev/null 2>&1; then
    echo "installing $* (for $cmd)" >&2
    export DEBIAN_FRONTEND=noninteractive
    $SUDO apt-get update -q
    $SUDO apt-get install -y -q --no-install-recommends "$@"
  fi
}
want_cmd node nodejs
want_cmd npm npm
want_cmd kubectl kubernetes-client   # Debian's kubectl is 1.20; a newer one on PATH is used as is
