#!/usr/bin/env bash
# Runs one of the Node.js judges in tests/tools with its npm dependencies installed.
#
#   node_tool.sh DEST TOOL.mjs ARGS...
#
# DEST (in the build tree) receives package.json, package-lock.json and TOOL.mjs, and
# `npm ci` installs the locked dependencies there when they are missing or the lock file
# changed. Node resolves the tool's imports from DEST/node_modules, so the source tree
# stays clean. When node or npm is missing or `npm ci` fails (the registry did not answer),
# the skip rule decides (tests/support/skip.sh: 77, or a failure in a strict run); otherwise
# it exits with the tool's status. The dependencies count as installed only once `npm ci`
# finished (DEST/.installed holds the lock file it installed), so an interrupted install is
# done again, never used. npm's own cache: npm_config_cache (default ~/.npm).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dest=$1
tool=$2
shift 2

. "$here/../support/skip.sh"
fix="bash scripts/install-deps.sh (Debian's nodejs and npm)"
command -v node >/dev/null || tfjob_skip no-node "node is not installed" "$fix"
command -v npm >/dev/null || tfjob_skip no-npm "npm is not installed" "$fix"
major=$(node -p 'process.versions.node.split(".")[0]')
[ "$major" -ge 14 ] || tfjob_skip old-node "node $(node --version) is older than 14" "install node 14 or newer"

mkdir -p "$dest"
exec 9>"$dest/.lock"
if command -v flock >/dev/null; then flock 9; fi  # one npm ci at a time under ctest -j
if ! cmp -s "$here/package-lock.json" "$dest/.installed" || [ ! -d "$dest/node_modules/kubernetes-models" ]; then
  rm -f "$dest/.installed"
  cp "$here/package.json" "$here/package-lock.json" "$dest/"
  echo "installing the judges' npm dependencies into $dest" >&2
  if ! (cd "$dest" && npm ci --no-audit --no-fund --loglevel=error >&2); then
    exec 9>&-
    tfjob_skip npm-ci "npm ci failed in $dest (the npm registry did not answer?)" "reach registry.npmjs.org, or set npm_config_registry"
  fi
  cp "$here/package-lock.json" "$dest/.installed"
fi
cp "$here/$tool" "$dest/$tool"
exec 9>&-
exec node "$dest/$tool" "$@"
