#!/usr/bin/env bash
# The real-node tier's skip paths, exercised (ctest realnode.skips): where the tier cannot run,
# `node.sh up` exits 77 with the reason on stderr and in DIR/skip-reason, `node.sh with`
# then skips with the same reason, and CI=true (or TFJOB_REALNODE=require) turns each skip
# into a failure that says the tier is required. Cases: TFJOB_REALNODE=skip; not root
# (setpriv to nobody); root in a user namespace, which cannot create a network namespace.
# Needs root (to drop it) and util-linux's setpriv and unshare; else skips itself.
#   skip_test.sh   (0 pass, 1 fail, 77 skipped)
set -uo pipefail
NODE_SH="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/node.sh"
fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIPPED: $*" >&2; [ "${CI:-}" = true ] && fail "required when CI=true"; exit 77; }
[ "$(id -u)" = 0 ] || skip "needs root (to run node.sh as another user)"
for t in setpriv unshare; do command -v "$t" >/dev/null || skip "$t not found (util-linux)"; done
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
chmod 755 "$TMP"
n=0
# expect NAME WANT_RC WANT_TEXT CMD...: runs CMD with a fresh DIR, checks rc, stderr and the
# skip-reason file; a 77 must leave `node.sh with DIR` skipping with the same reason
expect() {
  local name=$1 want=$2 text=$3; shift 3
  local dir="$TMP/$name-$((n += 1))"
  mkdir -p "$dir"; chmod 777 "$dir"
  local rc=0
  env -u CI -u TFJOB_REALNODE "$@" "$dir" >"$dir.out" 2>"$dir.err" || rc=$?
  [ "$rc" = "$want" ] || fail "$name: exit $rc, wanted $want; stderr: $(cat "$dir.err")"
  grep -qF -- "$text" "$dir.err" || fail "$name: stderr lacks \"$text\": $(cat "$dir.err")"
  [ -e "$dir/env" ] && fail "$name: a skipped up wrote $dir/env"
  if [ "$want" = 77 ]; then
    grep -qF -- "${text#SKIPPED: }" "$dir/skip-reason" || fail "$name: skip-reason: $(cat "$dir/skip-reason" 2>/dev/null)"
    rc=0; bash "$NODE_SH" with "$dir" -- true 2>"$dir.with.err" || rc=$?
    [ "$rc" = 77 ] || fail "$name: node.sh with after a skipped up: exit $rc"
    grep -qF -- "SKIPPED: no real node: $(cat "$dir/skip-reason")" "$dir.with.err" || fail "$name: with: $(cat "$dir.with.err")"
  fi
  bash "$NODE_SH" down "$dir" >/dev/null 2>&1 || fail "$name: down after a skip failed"
  echo "ok: $name"
}
nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups)
userns=(unshare --user --map-root-user)

expect asked-to-skip 77 "SKIPPED: TFJOB_REALNODE=skip" env TFJOB_REALNODE=skip bash "$NODE_SH" up
expect not-root 77 "SKIPPED: not root: the kubelet, containerd and the network namespace need root" \
  "${nobody[@]}" bash "$NODE_SH" up
expect not-root-ci 1 "the real-node tier is required here (CI=true or TFJOB_REALNODE=require); failing." \
  env CI=true "${nobody[@]}" bash "$NODE_SH" up
expect not-root-required 1 "SKIPPED: not root" env TFJOB_REALNODE=require "${nobody[@]}" bash "$NODE_SH" up
# root of a user namespace: uid 0, every tool there, but no network namespace for it
if command -v containerd >/dev/null && command -v dnsmasq >/dev/null && [ -x /usr/lib/cni/bridge ] && [ -d /sys/fs/cgroup/cpu ]; then
  expect no-netns 77 "SKIPPED: cannot create a network namespace" "${userns[@]}" bash "$NODE_SH" up
  expect no-netns-ci 1 "failing." env CI=true "${userns[@]}" bash "$NODE_SH" up
else
  echo "note: the no-netns case needs the tier's tools installed (scripts/install-deps.sh); not run" >&2
fi
echo "PASS: $n skip cases"
