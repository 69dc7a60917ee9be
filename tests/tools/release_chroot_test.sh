#!/usr/bin/env bash
# The release as users get it (ctest label release, tests/cmake/release.cmake):
#
#   release_chroot_test.sh build DIST
#       scripts/release.sh --chroot: linux/amd64 and linux/arm64 built in the Debian 11
#       chroot, archived into DIST with SHA256SUMS and DIST/tfjob.yaml (the krew manifest)
#   release_chroot_test.sh elf DIST ARCH GLIBC
#       the archived linux/ARCH binaries (kubectl-tfjob and the hello-tfjob trainer it
#       carries) are ELFs for ARCH that need no shared library but glibc's, and no glibc
#       symbol version newer than GLIBC (the oldest glibc claimed)
#   release_chroot_test.sh run DIST SUITE ARCH FAKE_APISERVER
#       the archived linux/ARCH binary, unpacked inside a minimal chroot of Debian SUITE
#       (nothing but its Essential packages; arm64 through qemu-user), prints its version
#       and --help, and reaches the test API server over TLS with the kubeconfig's CA and
#       client certificate, and refuses it when the server's name does not match; then
#       submits a job whose pods run for 15 minutes and `wait`s for it with --timeout: a wait
#       whose loop is a steady_clock condition-variable wait (libstdc++'s
#       pthread_cond_clockwait, the release's glibc 2.28 shim, release/glibc_compat.cpp)
#       must end with the timeout's exit status 2, neither hang nor spin; and runs
#       `kubectl tfjob submit hello --local` from the unpacked archive, as the README promises
#       ("needs no image at all"): the plugin finds the hello-tfjob next to itself, a Chief
#       and 2 Workers train (on the generated set: the chroot has no Fashion-MNIST) and the
#       job ends Succeeded with every replica's model the same (arm64, under qemu-user with no
#       binfmt_misc for the plugin's children: the archive's hello-tfjob trains alone)
#
# The chroots and static dependencies are cached under $TFJOB_RELEASE_CACHE (default
# /var/cache/kubectl-tfjob/release; scripts/release-chroot.sh). A strict run (scripts/test.sh,
# CI=true, TFJOB_STRICT=1) builds what is missing; a non-strict one (a plain `ctest`) skips
# `build` until they exist: warm them with `sudo bash scripts/release.sh --chroot`. What
# this tier needs (root, mmdebstrap, unshare, qemu-user-static) is checked first, through the
# skip rule (tests/support/skip.sh); a chroot script that then cannot run is a failure.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CHROOT="$ROOT/scripts/release-chroot.sh"
. "$ROOT/tests/support/skip.sh"

fail() { echo "FAIL: $*"; exit 1; }
needs() {  # needs [qemu]: what scripts/release-chroot.sh needs, or the skip rule (kept in
  # $DIST_FOR_SKIP/SKIPPED by the build step, for the tests that need its archives)
  skip() { if [ -n "${DIST_FOR_SKIP:-}" ]; then tfjob_skip_record "$DIST_FOR_SKIP/SKIPPED" "$@"; else tfjob_skip "$@"; fi; }
  [ "$(id -u)" = 0 ] || skip no-root "the release chroots need root" "run the suite as root (sudo)"
  for t in mmdebstrap unshare; do
    command -v "$t" >/dev/null || skip "no-$t" "$t is not installed" "bash scripts/install-deps.sh"
  done
  if [ "${1:-}" = qemu ]; then
    command -v qemu-aarch64-static >/dev/null ||
      tfjob_skip no-qemu "qemu-user-static is not installed (linux/arm64 binaries run through it)" "bash scripts/install-deps.sh"
  fi
}

archive_of() {  # archive_of DIST ARCH: the archive, or the build step's skip again
  local dist=$1 arch=$2 a
  tfjob_skip_recorded "$dist/SKIPPED" "the release build skipped"
  a=$(ls "$dist"/kubectl-tfjob_*_linux_"$arch".tar.gz 2>/dev/null || true)
  [ -n "$a" ] || fail "no linux/$arch archive in $dist (did release:chroot-build run?)"
  echo "$a"
}

cmd=${1:-}; shift || true
case "$cmd" in
build)
  dist=$1
  rm -rf "$dist"; mkdir -p "$dist"
  DIST_FOR_SKIP=$dist needs
  if ! tfjob_strict; then
    for arch in amd64 arm64; do
      if ! bash "$CHROOT" cached "$arch" 2>/dev/null; then
        tfjob_skip_record "$dist/SKIPPED" release-cache-cold "no cached release chroot and static dependencies for $arch under ${TFJOB_RELEASE_CACHE:-/var/cache/kubectl-tfjob/release}" \
          "warm them once: sudo bash scripts/release.sh --chroot; or run strict (TFJOB_STRICT=1), which builds them"
      fi
    done
  fi
  bash "$ROOT/scripts/release.sh" --chroot --out "$dist" --manifest "$dist/tfjob.yaml" ||
    fail "scripts/release.sh --chroot"
  ls -l "$dist"
  cat "$dist/SHA256SUMS"
  for arch in amd64 arm64; do
    grep -q "  kubectl-tfjob_.*_linux_$arch.tar.gz\$" "$dist/SHA256SUMS" || fail "SHA256SUMS has no linux/$arch archive"
    grep -q "arch: $arch\$" "$dist/tfjob.yaml" || fail "the krew manifest has no linux/$arch platform"
  done
  echo "PASS: linux/amd64 and linux/arm64 archived, in SHA256SUMS and the krew manifest"
  ;;
elf)
  dist=$1 arch=$2 max=$3
  archive=$(archive_of "$dist" "$arch")
  x=$(mktemp -d); trap 'rm -rf "$x"' EXIT
  tar -C "$x" -xzf "$archive"
  for name in kubectl-tfjob hello-tfjob; do
  bin="$x/$name"
  [ -f "$bin" ] || fail "$archive holds no $name"
  case "$arch" in amd64) machine="Advanced Micro Devices X86-64" ;; arm64) machine="AArch64" ;; *) fail "arch $arch" ;; esac
  got=$(readelf -h "$bin" | sed -n 's/^ *Machine: *//p')
  [ "$got" = "$machine" ] || fail "$archive holds a binary for '$got', not $arch ($machine)"
  file "$bin" 2>/dev/null || true
  needed=$(readelf -d "$bin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
  for l in $needed; do
    case "$l" in libc.so.6|libm.so.6|libpthread.so.0|libdl.so.2|librt.so.1|ld-linux-x86-64.so.2|ld-linux-aarch64.so.1) ;;
      *) fail "the linux/$arch binary needs $l (only the C library may be needed)" ;; esac
  done
  # Which glibc symbol versions it needs (readelf reads any architecture's ELF).
  readelf --dyn-syms -W "$bin" | grep -o '@GLIBC_[0-9.]*' | sort | uniq -c | sort -k2V | sed 's/^/  /'
  newest=$(readelf --dyn-syms -W "$bin" | grep -o '@GLIBC_[0-9.]*' | sed 's/@GLIBC_//' | sort -uV | tail -1)
  [ -n "$newest" ] || fail "no glibc symbol versions found in the linux/$arch binary"
  if [ "$(printf '%s\n%s\n' "$newest" "$max" | sort -V | tail -1)" != "$max" ]; then
    readelf --dyn-syms -W "$bin" | awk -v max="$max" '{ for (i = 1; i <= NF; i++) if ($i ~ /@GLIBC_/) print $i }' |
      while read -r s; do v=${s##*@GLIBC_}; [ "$(printf '%s\n%s\n' "$v" "$max" | sort -V | tail -1)" = "$max" ] || echo "  above $max: $s"; done
    fail "the linux/$arch binary needs GLIBC_$newest, newer than the $max it claims"
  fi
  echo "PASS: linux/$arch $name: ELF, needs only $(echo "$needed" | tr '\n' ' '), newest glibc symbol version $newest <= $max"
  done
  ;;
run)
  dist=$1 suite=$2 arch=$3 fake=$4
  tfjob_skip_recorded "$dist/SKIPPED" "the release build skipped"  # the build's skip, first
  if [ "$arch" = amd64 ]; then needs; else needs qemu; fi
  archive=$(archive_of "$dist" "$arch")
  [ -x "$fake" ] || fail "no fake API server at $fake"
  root=$(bash "$CHROOT" root "$suite" "$arch") || fail "no $suite/$arch chroot (scripts/release-chroot.sh root exited $?)"
  t=$(mktemp -d); pid=""
  trap '[ -z "$pid" ] || kill "$pid" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$t"' EXIT
  mkdir "$t/x"
  tar -C "$t/x" -xzf "$archive"
  # the job of the timed wait below runs far longer than the test
  "$fake" --kubeconfig-out "$t/kubeconfig" --job-pod-runtime 900000 > "$t/url" 2> "$t/fake.err" & pid=$!
  for _ in $(seq 1 200); do [ -s "$t/kubeconfig" ] && grep -q '^current-context:' "$t/kubeconfig" && break
    kill -0 "$pid" 2>/dev/null || { cat "$t/fake.err"; fail "the fake API server exited"; }
    sleep 0.05; done  # polls the condition above
  [ -s "$t/kubeconfig" ] || fail "the fake API server wrote no kubeconfig"
  # The same kubeconfig with a TLS server name the certificate does not carry.
  sed 's|^\(    server: .*\)$|\1\n    tls-server-name: not-this-server.invalid|' "$t/kubeconfig" > "$t/kubeconfig-wrong-name"
  grep -q tls-server-name "$t/kubeconfig-wrong-name" || fail "could not write the wrong-name kubeconfig"
  run=(bash "$CHROOT" run "$root" -b "$t:/release" --)
  [ "$arch" = amd64 ] || run+=(/qemu-static)
  # What is in the chroot: its own libc, nothing else we brought but the unpacked archive.
  "${run[@]}" /release/x/kubectl-tfjob version --client > "$t/version" 2>&1 || { cat "$t/version"; fail "version --client in $suite/$arch"; }
  grep -q '^kubectl-tfjob v[0-9]' "$t/version" || { cat "$t/version"; fail "version --client printed no version"; }
  "${run[@]}" /release/x/kubectl-tfjob --help > "$t/help" 2>&1 || { cat "$t/help"; fail "--help in $suite/$arch"; }
  grep -q 'submit' "$t/help" || { cat "$t/help"; fail "--help does not list submit"; }
  "${run[@]}" /release/x/kubectl-tfjob --kubeconfig /release/kubeconfig version > "$t/server" 2>&1 ||
    { cat "$t/server" "$t/fake.err"; fail "version against the test API server (TLS) in $suite/$arch"; }
  grep -q '^Server Version: ' "$t/server" || { cat "$t/server"; fail "no server version over TLS"; }
  if "${run[@]}" /release/x/kubectl-tfjob --kubeconfig /release/kubeconfig-wrong-name version > "$t/wrong" 2>&1; then
    cat "$t/wrong"; fail "a server whose certificate does not name it was accepted"
  fi
  grep -qi 'certificate\|verif' "$t/wrong" || { cat "$t/wrong"; fail "the refusal does not say why (certificate)"; }
  # A timed wait (workflow::wait_for_job wakes on a 100 ms steady_clock condition-variable
  # wait): the job never finishes, so `wait` must return the timeout's exit status 2. It
  # would hang with a wait that never times out (`timeout` ends it: 124) and spin with one
  # that times out at once (libstdc++ loops until steady_clock passes the deadline). Spinning
  # burns CPU for as long as it waits; sleeping does not. The process's own CPU clock
  # (/proc/PID/stat) is read every half second while it waits, and the quietest 3 s of it
  # judged: start-up (under qemu, a second or two of code translation whose cost varies by
  # tenths of a second from run to run) and exit are outside that window, a spin is in all of
  # them.
  cat > "$t/forever.yaml" <<'YAML'
apiVersion: kubeflow.org/v1
kind: TFJob
metadata:
  name: forever
spec:
  tfReplicaSpecs:
    Worker:
      replicas: 1
      template:
        spec:
          containers:
          - name: tensorflow
            image: busybox:1.36
            command: ["sleep", "infinity"]
YAML
  "${run[@]}" /release/x/kubectl-tfjob --kubeconfig /release/kubeconfig submit -f /release/forever.yaml > "$t/submit" 2>&1 ||
    { cat "$t/submit" "$t/fake.err"; fail "submit -f in $suite/$arch"; }
  TIMEFORMAT='%R %U %S'
  timed_wait() {  # timed_wait SECONDS: `wait --timeout SECONDS`; its wall, user, system time in $t/wait-SECONDS.time
    local s=$1 rc
    { time timeout 300 "${run[@]}" /release/x/kubectl-tfjob --kubeconfig /release/kubeconfig wait forever \
        --for=condition=Succeeded --timeout "${s}s" > "$t/wait-$s" 2>&1; } 2> "$t/wait-$s.time" && rc=0 || rc=$?
    cat "$t/wait-$s"
    [ "$rc" != 124 ] || fail "wait --timeout ${s}s did not return (hangs: a timed wait never timed out)"
    [ "$rc" = 2 ] || { cat "$t/fake.err"; fail "wait --timeout ${s}s exited $rc, not the timeout's 2"; }
    grep -q 'timed out' "$t/wait-$s" || fail "wait --timeout ${s}s did not say it timed out"
    read -r wall user sys < "$t/wait-$s.time"
    echo "wait --timeout ${s}s: ${wall}s wall, ${user}s user, ${sys}s system"
    [ "$(awk -v w="$wall" -v t="$s" 'BEGIN { print (w >= t) }')" = 1 ] ||
      fail "wait --timeout ${s}s returned after ${wall}s, before its timeout"
  }
  plugin_below() {  # plugin_below PID: the kubectl-tfjob process (itself, or qemu running it) under PID
    local p q
    for p in $(pgrep -P "$1" || true); do
      if tr '\0' ' ' < "/proc/$p/cmdline" 2>/dev/null | grep -Eq '^(/qemu-static )?/release/x/kubectl-tfjob '; then
        echo "$p"; return 0
      fi
      q=$(plugin_below "$p"); if [ -n "$q" ]; then echo "$q"; return 0; fi
    done
    return 0
  }
  cpu_ticks() {  # cpu_ticks PID: its user + system CPU so far, in clock ticks; nothing once it has gone
    local st; st=$(cat "/proc/$1/stat" 2>/dev/null) || return 0
    st=${st##*) }; set -- $st  # fields from the 3rd (state) on: utime is the 14th, stime the 15th
    echo $(( ${12} + ${13} ))
  }
  timed_wait 9 &
  waiter=$! plugin_pid=
  for _ in $(seq 200); do plugin_pid=$(plugin_below "$waiter"); [ -z "$plugin_pid" ] || break; sleep 0.05; done
  [ -n "$plugin_pid" ] || { wait "$waiter" || true; fail "the waiting kubectl-tfjob process was not found under the test's shell"; }
  : > "$t/cpu"
  while c=$(cpu_ticks "$plugin_pid") && [ -n "$c" ]; do
    echo "$(date +%s.%N) $c" >> "$t/cpu"; sleep 0.5
  done
  wait "$waiter" || exit 1  # it said why
  share=$(awk -v hz="$(getconf CLK_TCK)" '{ t[NR] = $1; c[NR] = $2 }
    END { best = -1
      for (i = 1; i <= NR; i++) for (j = i + 1; j <= NR; j++) if (t[j] - t[i] >= 3) {
        r = (c[j] - c[i]) / hz / (t[j] - t[i]); if (best < 0 || r < best) best = r; break }
      printf "%.3f", best }' "$t/cpu")
  [ "$share" != -1.000 ] || { cat "$t/cpu"; fail "the wait was watched for less than 3 s: no window to judge"; }
  echo "while it waited (its quietest 3 s): ${share} of a core"
  # a sleeping wait: ten wakeups a second, next to nothing even under qemu; a spinning one: a
  # core, or on a loaded machine a fifth of one (four times this bound)
  [ "$(awk -v c="$share" 'BEGIN { print (c < 0.05) }')" = 1 ] ||
    { cat "$t/cpu"; fail "waiting cost ${share} of a core, where its timed waits should sleep: they spin"; }
  # `submit hello --local` as the README has it, from the archive alone: no image, no build,
  # no Fashion-MNIST package (the trainer generates its data), no cluster. Under qemu-user
  # (arm64 here) the plugin's children cannot start without binfmt_misc, which this test does
  # not register on the host: there the archive's trainer trains alone, through qemu.
  if [ "$arch" != amd64 ]; then
    "${run[@]}" /release/x/hello-tfjob --epochs 2 --output-dir /release/hello-alone > "$t/hello.out" 2>&1 ||
      { cat "$t/hello.out"; fail "the archive's hello-tfjob in $suite/$arch"; }
    cat "$t/hello.out"
    grep -q 'no TF_CONFIG: training alone' "$t/hello.out" || fail "hello-tfjob did not train alone"
    grep -q 'training on a generated 10-class set' "$t/hello.out" || fail "hello-tfjob did not say it trained on the generated set"
    acc=$(sed -n 's/^test accuracy: \([0-9.]*\) .*/\1/p' "$t/hello.out")
    [ "$(awk -v a="${acc:-0}" 'BEGIN { print (a > 0.8) }')" = 1 ] || fail "test accuracy ${acc:-none} on the generated set (expected above 0.80)"
    cat "$t/version"; sed -n 1,2p "$t/server"; grep -i -m1 'certificate\|verif' "$t/wrong"
    echo "PASS: linux/$arch release binary in a minimal Debian $suite chroot: version, --help, TLS to the test API server, a timed wait, the archive's hello-tfjob (test accuracy $acc)"
    exit 0
  fi
  "${run[@]}" /release/x/kubectl-tfjob submit hello --local --state-dir /release/hello > "$t/hello.out" 2>&1 ||
    { cat "$t/hello.out"; for l in "$t"/hello/logs/*.log; do echo "== $l"; tail -5 "$l"; done; fail "submit hello --local from the archive in $suite/$arch"; }
  cat "$t/hello.out"
  grep -q '^hello .*Succeeded' "$t/hello.out" || fail "submit hello --local did not end Succeeded"
  grep -q 'training on a generated 10-class set' "$t/hello/logs/chief-0.log" ||
    fail "the chief did not say it trained on the generated set: $(head -5 "$t/hello/logs/chief-0.log")"
  metrics="$t/hello/volumes/tfjob-hello/hello/metrics.json"
  [ -s "$metrics" ] || fail "the chief wrote no $metrics"
  acc=$(sed -n 's/^  "test_accuracy": \([0-9.eE+-]*\),\{0,1\}$/\1/p' "$metrics")
  [ "$(awk -v a="${acc:-0}" 'BEGIN { print (a > 0.8) }')" = 1 ] || fail "test accuracy ${acc:-none} on the generated set (expected above 0.80, the quickstart's bar)"
  sums=$(grep -ho 'model checksum [0-9a-f]*' "$t"/hello/logs/*.log | sort -u | wc -l)
  [ "$sums" = 1 ] || fail "the replicas ended with different models: $(grep -h 'model checksum' "$t"/hello/logs/*.log)"
  cat "$t/version"; sed -n 1,2p "$t/server"; grep -i -m1 'certificate\|verif' "$t/wrong"
  echo "PASS: linux/$arch release binary in a minimal Debian $suite chroot: version, --help, TLS to the test API server, a timed wait, submit hello --local (test accuracy $acc)"
  ;;
*) echo "usage: release_chroot_test.sh build DIST | elf DIST ARCH GLIBC | run DIST SUITE ARCH FAKE_APISERVER" >&2; exit 2 ;;
esac
