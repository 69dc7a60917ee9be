#!/usr/bin/env bash
# The release binary as users get it: scripts/release.sh --static builds kubectl-tfjob with
# libstdc++, libgcc, OpenSSL and yaml-cpp linked in; the archive's binary must need no
# shared library but glibc's, and must run (version, --help) from the unpacked archive.
# The build is cached under /var/cache/kubectl-tfjob/release-static; without that cache
# (and outside CI) the test reports SKIP (77) instead of spending a full build.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CACHE=${TFJOB_RELEASE_CACHE:-/var/cache/kubectl-tfjob/release-static}
if { [ ! -f "$CACHE/build/CMakeCache.txt" ] ||
     ! grep -qxF "CMAKE_HOME_DIRECTORY:INTERNAL=$ROOT" "$CACHE/build/CMakeCache.txt"; } && [ -z "${CI:-}" ]; then
  echo "SKIP: no cached static build of this checkout in $CACHE (run: bash scripts/release.sh --static --build-dir $CACHE/build, or set CI=1)"
  exit 77
fi
mkdir -p "$CACHE"
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
bash "$ROOT/scripts/release.sh" --static --build-dir "$CACHE/build" --out "$TMP/dist" --manifest "$TMP/dist/tfjob.yaml" 2>"$TMP/err" ||
  { cat "$TMP/err"; echo "FAIL: release.sh --static"; exit 1; }
grep "needs" "$TMP/err"
archive=$(ls "$TMP"/dist/kubectl-tfjob_*_linux_*.tar.gz)
mkdir "$TMP/x" && tar -C "$TMP/x" -xzf "$archive"
needed=$(readelf -d "$TMP/x/kubectl-tfjob" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
for l in $needed; do
  case "$l" in libc.so.*|libm.so.*|libpthread.so.*|libdl.so.*|librt.so.*|ld-linux*) ;;
    *) echo "FAIL: the release binary needs $l"; exit 1 ;; esac
done
"$TMP/x/kubectl-tfjob" version --client | grep -q "^kubectl-tfjob v" || { echo "FAIL: version"; exit 1; }
"$TMP/x/kubectl-tfjob" --help | grep -q "submit" || { echo "FAIL: --help"; exit 1; }
echo "PASS: the release binary needs only: $(echo $needed)"
