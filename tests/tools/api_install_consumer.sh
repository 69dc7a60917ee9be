#!/usr/bin/env bash
# Installs the SDK (header-only: configure + install, nothing to compile) into a temporary
# prefix, then builds and runs tests/cmake_import against it with find_package(tfjob).
#   api_install_consumer.sh SOURCE_DIR WORK_DIR
set -euo pipefail
src=$1
work=$2
rm -rf "$work"
mkdir -p "$work"
cmake -S "$src" -B "$work/sdk-build" -DTFJOB_BUILD_TESTS=OFF -DTFJOB_BUILD_PLUGIN=OFF \
  -DTFJOB_BUILD_SAMPLES=OFF -DTFJOB_BUILD_GPU_PROBE=OFF -DTFJOB_BUILD_BENCH=OFF -DTFJOB_INSTALL=ON >/dev/null
cmake --install "$work/sdk-build" --prefix "$work/prefix" >/dev/null
test -f "$work/prefix/include/tfjob/tfjob.hpp"
cfg=$(find "$work/prefix" -name tfjobConfig.cmake | head -1)
test -n "$cfg" || { echo "tfjobConfig.cmake was not installed" >&2; exit 1; }
cmake -S "$src/tests/cmake_import" -B "$work/consumer" -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/consumer" -j 2 >/dev/null
out=$("$work/consumer/consumer")
echo "$out"
case "$out" in
  '{"cluster":{"chief":["consumer-chief-0.default.svc:2222"],"worker":["consumer-worker-0.default.svc:2222"]},"task":{"type":"worker","index":0},"environment":"cloud"}') ;;
  *) echo "unexpected TF_CONFIG from the consumer" >&2; exit 1 ;;
esac
# the consumer must have used the installed headers, not the source tree
grep -q "$work/prefix/include" "$work/consumer/CMakeFiles/consumer.dir/flags.make" || {
  echo "the consumer did not compile against the installed headers" >&2; exit 1; }
echo "ok: find_package(tfjob) consumer built against $work/prefix"
