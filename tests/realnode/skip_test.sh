#!/usr/bin/env bash
# The real-node tier's skip paths, exercised (ctest realnode.skips): where the tier cannot run,
# `node.sh up` exits 77 with the reason on stderr and in DIR/skip-reason, `node.sh with`
# then skips with the same reason, and a strict run (CI=true, TFJOB_STRICT=1 or
# TFJOB_REALNODE=require) turns each skip into a failure; TFJOB_REALNODE=skip is refused
# when CI=true. Cases: TFJOB_REALNODE=skip; not root (setpriv to nobody); root in a user
# namespace, which cannot create a network namespace.
# Needs root (to drop it) and util-linux's setpriv and unshare (the skip rule otherwise).
#   skip_test.sh   (0 pass, 1 fail, 77 skipped)
set -uo pipefail
NODE_SH="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/node.sh"
. "$(dirname "${BASH_SOURCE[0]}")/../support/skip.sh"
fail() { echo "FAIL: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || tfjob_skip no-root "needs root (to run node.sh as another user)" "run the suite as root"
for t in setpriv unshare; do command -v "$t" >/dev/null || tfjob_skip missing-tool "$t not found" "apt-get install util-linux"; done
# the no-netns case reaches node.sh's network-namespace check only with the tier's tools there
{ command -v containerd && command -v dnsmasq && [ -x /usr/lib/cni/bridge ] && [ -d /sys/fs/cgroup/cpu ]; } >/dev/null ||
  tfjob_skip missing-tool "the tier's tools (containerd, dnsmasq, the CNI plugins, cgroup v1) are not all here" "bash scripts/install-deps.sh"
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
  env -u CI -u TFJOB_STRICT -u TFJOB_REALNODE "$@" "$dir" >"$dir.out" 2>"$dir.err" || rc=$?
  [ "$rc" = "$want" ] || fail "$name: exit $rc, wanted $want; stderr: $(cat "$dir.err")"
  grep -qF -- "$text" "$dir.err" || fail "$name: stderr lacks \"$text\": $(cat "$dir.err")"
  [ -e "$dir/env" ] && fail "$name: a skipped up wrote $dir/env"
  if [ "$want" = 77 ]; then
    grep -qF -- "${text#SKIP: }" "$dir/skip-reason" || fail "$name: skip-reason: $(cat "$dir/skip-reason" 2>/dev/null)"
    rc=0; env -u CI -u TFJOB_STRICT bash "$NODE_SH" with "$dir" -- true 2>"$dir.with.err" || rc=$?
    [ "$rc" = 77 ] || fail "$name: node.sh with after a skipped up: exit $rc"
    grep -qF -- "SKIP: no real node: ${text#SKIP: }" "$dir.with.err" || fail "$name: with: $(cat "$dir.with.err")"
    # a strict run's dependent test fails on the same recorded skip
    rc=0; env -u CI TFJOB_STRICT=1 bash "$NODE_SH" with "$dir" -- true 2>"$dir.with.err" || rc=$?
    if [ "$name" = asked-to-skip ]; then want=77; else want=1; fi  # asked on purpose: a partial run, outside CI
    [ "$rc" = "$want" ] || fail "$name: node.sh with, strict, after a skipped up: exit $rc, want $want"
  fi
  bash "$NODE_SH" down "$dir" >/dev/null 2>&1 || fail "$name: down after a skip failed"
  echo "ok: $name"
}
nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups)
userns=(unshare --user --map-root-user)

expect asked-to-skip 77 "SKIP: TFJOB_REALNODE=skip" env TFJOB_REALNODE=skip bash "$NODE_SH" up
expect asked-to-skip-ci 1 "FAIL: a skip asked for by a variable is not accepted when CI=true: TFJOB_REALNODE=skip" \
  env CI=true TFJOB_REALNODE=skip bash "$NODE_SH" up
expect not-root 77 "SKIP: not root: the kubelet, containerd and the network namespace need root" \
  "${nobody[@]}" bash "$NODE_SH" up
expect not-root-ci 1 "FAIL: a strict run (CI=true or TFJOB_STRICT=1) does not skip: not root" \
  env CI=true "${nobody[@]}" bash "$NODE_SH" up
expect not-root-strict 1 "FAIL: a strict run" env TFJOB_STRICT=1 "${nobody[@]}" bash "$NODE_SH" up
expect not-root-required 1 "SKIP: not root" env TFJOB_REALNODE=require "${nobody[@]}" bash "$NODE_SH" up
# root of a user namespace: uid 0, every tool there, but no network namespace for it
expect no-netns 77 "SKIP: cannot create a network namespace" "${userns[@]}" bash "$NODE_SH" up
expect no-netns-ci 1 "FAIL: a strict run" env CI=true "${userns[@]}" bash "$NODE_SH" up
echo "PASS: $n skip cases"
