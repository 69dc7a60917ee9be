#!/usr/bin/env bash
# Installs the SDK (header-only: configure + install, nothing to compile) into a temporary
# prefix, then builds and runs tests/cmake_import against it with find_package(tfjob), in
# both of the SDK's modes (header-only, and TFJOB_SDK_COMPILED with <tfjob/src.hpp>).
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
for prog in consumer consumer-compiled; do
  out=$("$work/consumer/$prog")
  echo "$prog: $out"
  case "$out" in
    '{"cluster":{"chief":["consumer-chief-0.default.svc:2222"],"worker":["consumer-worker-0.default.svc:2222"]},"task":{"type":"worker","index":0},"environment":"cloud"}') ;;
    *) echo "unexpected TF_CONFIG from $prog" >&2; exit 1 ;;
  esac
done
# compiled mode: the SDK's bodies are in sdk.cpp's object, not in main.cpp's
objdir="$work/consumer/CMakeFiles/consumer-compiled.dir"
main_syms=$(nm -C "$objdir/main.cpp.o") sdk_syms=$(nm -C "$objdir/sdk.cpp.o")  # whole: grep -q would cut nm's pipe
grep -q ' [TW] tfjob::gen_tf_config' <<<"$main_syms" && {
  echo "consumer-compiled: main.cpp defines tfjob::gen_tf_config, TFJOB_SDK_COMPILED did not keep the bodies out" >&2; exit 1; }
grep -q ' T tfjob::gen_tf_config' <<<"$sdk_syms" || {
  echo "consumer-compiled: sdk.cpp (<tfjob/src.hpp>) does not define tfjob::gen_tf_config" >&2; exit 1; }
# the consumer must have used the installed headers, not the source tree
grep -q "$work/prefix/include" "$work/consumer/CMakeFiles/consumer.dir/flags.make" || {
  echo "the consumer did not compile against the installed headers" >&2; exit 1; }
echo "ok: find_package(tfjob) consumer built against $work/prefix, header-only and compiled (TFJOB_SDK_COMPILED)"
