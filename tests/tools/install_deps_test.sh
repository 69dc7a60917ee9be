#!/usr/bin/env bash
# scripts/install-deps.sh (which scripts/test.sh runs first) asks apt only for what is
# missing: with every package installed it runs no apt-get at all; with one missing it
# installs exactly that one. dpkg-query, apt-get and sudo are stand-ins on PATH that
# record what they were asked; the script itself is the real one.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/bin"
cat >"$tmp/bin/dpkg-query" <<'STUB'
#!/bin/sh
# dpkg-query -W -f='${Status}' PKG: "installed" unless PKG is named in $MISSING
for a; do pkg=$a; done
case " $MISSING " in (*" $pkg "*) exit 1;; esac
printf 'install ok installed'
STUB
cat >"$tmp/bin/apt-get" <<'STUB'
#!/bin/sh
echo "apt-get $*" >>"$LOG"
STUB
cat >"$tmp/bin/sudo" <<'STUB'
#!/bin/sh
exec "$@"
STUB
# the commands install-deps.sh looks for by name
for c in node npm kubectl; do printf '#!/bin/sh\nexit 0\n' >"$tmp/bin/$c"; done
chmod +x "$tmp/bin/"*
export PATH="$tmp/bin:$PATH" LOG="$tmp/apt.log"

MISSING="" bash "$root/scripts/install-deps.sh" >"$tmp/out" 2>&1
if [ -s "$LOG" ]; then
  echo "FAIL: everything installed, yet apt-get ran:" >&2
  cat "$LOG" >&2
  exit 1
fi

MISSING="jq" bash "$root/scripts/install-deps.sh" >"$tmp/out" 2>&1
if ! grep -q '^apt-get install .* jq$' "$LOG"; then
  echo "FAIL: jq missing, but apt-get was not asked for exactly it:" >&2
  cat "$LOG" "$tmp/out" >&2
  exit 1
fi
if [ "$(grep -c '^apt-get install' "$LOG")" != 1 ]; then
  echo "FAIL: more than one install for one missing package:" >&2
  cat "$LOG" >&2
  exit 1
fi
echo "ok: no apt-get when all is installed; only the missing package otherwise"
