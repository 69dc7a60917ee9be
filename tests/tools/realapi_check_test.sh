#!/usr/bin/env bash
# `tests/realapi/setup.sh --check` only looks, as its usage says: on a machine without deb-src
# entries (apt-cache showsrc exits 100, as apt does) and without the cache, it exits 77 saying
# it is not built, and runs no apt-get, writes no apt sources file (tee, sudo) and creates no
# cache directory. Stand-ins on PATH record what they were asked; setup.sh is the real one.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/bin"
printf '#!/bin/sh\necho "apt-cache $*" >>"$LOG"\nexit 100\n' >"$tmp/bin/apt-cache"
for c in apt-get tee sudo mkdir chown; do
  printf '#!/bin/sh\necho "%s $*" >>"$LOG"\nexit 0\n' "$c" >"$tmp/bin/$c"
done
chmod +x "$tmp/bin/"*
fail() { echo "FAIL: $*" >&2; exit 1; }
for mode in "" CI=true; do
  : >"$tmp/log"
  rc=0
  env ${mode:+"$mode"} PATH="$tmp/bin:$PATH" LOG="$tmp/log" TFJOB_REALAPI_CACHE="$tmp/cache" \
    bash "$root/tests/realapi/setup.sh" --check >"$tmp/out" 2>"$tmp/err" || rc=$?
  [ "$rc" = 77 ] || fail "--check ${mode:-outside CI} exited $rc, want 77: $(cat "$tmp/err")"
  grep -q "not built yet" "$tmp/err" || fail "--check does not say it is not built: $(cat "$tmp/err")"
  [ ! -s "$tmp/out" ] || fail "--check printed a path: $(cat "$tmp/out")"
  ! grep -E '^(apt-get|tee|sudo|mkdir|chown) ' "$tmp/log" || fail "--check ran the commands above"
  [ ! -e "$tmp/cache" ] || fail "--check created $tmp/cache"
  grep -q '^apt-cache showsrc' "$tmp/log" || fail "the stand-in apt-cache was not asked (test broken?)"
done
echo "ok: setup.sh --check exits 77 and writes nothing, outside CI and with CI=true"
