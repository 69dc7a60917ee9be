#!/usr/bin/env bash
# Installs the dependencies, builds everything and runs the whole test suite with ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh
# Build (or find cached) the real kube-apiserver first, so its one-time build shows in the log
# with its own timing; exit 77 means the tier is skipped on this machine, with the reason.
time bash tests/realapi/setup.sh >/dev/null || { rc=$?; [ "$rc" = 77 ] || exit "$rc"; }
cd "${BUILD_DIR:-build}"
ctest --output-on-failure -j "${JOBS:-$(nproc)}" "$@"
