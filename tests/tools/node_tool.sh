#!/usr/bin/env bash
# Runs one of the Node.js judges in tests/tools with its npm dependencies installed.
#
#   node_tool.sh DEST TOOL.mjs ARGS...
#
# DEST (in the build tree) receives package.json, package-lock.json and TOOL.mjs, and
# `npm ci` installs the locked dependencies there when they are missing or the lock file
# changed. Node resolves the tool's imports from DEST/node_modules, so the source tree
# stays clean. Exits 77 with a "SKIP:" line (ctest SKIP_RETURN_CODE) when node or npm is
# missing or the npm registry cannot be reached; otherwise with the tool's status.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dest=$1
tool=$2
shift 2

skip() { echo "SKIP: $*"; exit 77; }
command -v node >/dev/null || skip "node is not installed (apt-get install nodejs npm)"
command -v npm >/dev/null || skip "npm is not installed (apt-get install npm)"
major=$(node -p 'process.versions.node.split(".")[0]')
[ "$major" -ge 14 ] || skip "node $(node --version) is older than 14"

mkdir -p "$dest"
exec 9>"$dest/.lock"
if command -v flock >/dev/null; then flock 9; fi  # one npm ci at a time under ctest -j
if ! cmp -s "$here/package-lock.json" "$dest/package-lock.json" ||
   [ ! -d "$dest/node_modules/kubernetes-models" ]; then
  cp "$here/package.json" "$here/package-lock.json" "$dest/"
  echo "installing the judges' npm dependencies into $dest" >&2
  if ! (cd "$dest" && npm ci --no-audit --no-fund --loglevel=error >&2); then
    rm -f "$dest/package-lock.json"
    skip "npm ci failed in $dest (is the npm registry reachable?)"
  fi
fi
cp "$here/$tool" "$dest/$tool"
exec 9>&-
exec node "$dest/$tool" "$@"
