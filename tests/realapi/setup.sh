#!/usr/bin/env bash
# Builds (once per machine) the kube-apiserver of Debian 12's `kubernetes` source package,
# with the kubelet, kube-scheduler and kube-controller-manager of the same tree and the pod
# sandbox's `pause` (build/pause/linux/pause.c, gcc -static) for the real-node tier
# (tests/realnode/), and prints the path of the cached kube-apiserver on stdout; the other
# binaries lie beside it.
#
#   tests/realapi/setup.sh            build if needed, print the binary's path
#   tests/realapi/setup.sh --check    print the path only if already cached, else exit 77;
#                                     read-only: installs, writes and builds nothing
#
# Exit codes: 0 ready; 77 skipped (the reason is printed on stderr); 1 error.
# A skip goes through the suite's rule (tests/support/skip.sh): a strict run (CI=true,
# TFJOB_STRICT=1, or TFJOB_REALAPI=require for this tier) fails instead of skipping.
# TFJOB_REALAPI=skip skips on purpose (refused when CI=true).
# TFJOB_REALAPI_SKIP_FILE, when set, receives the reason of a skip.
#
# Cache: ${TFJOB_REALAPI_CACHE:-/var/cache/kubectl-tfjob}/kube-apiserver-<source version>-<fixes>/
# holding bin/ (kube-apiserver, kubelet, kube-scheduler, kube-controller-manager, pause),
# build.log and source-version, written last: a cache without it (an interrupted build) is
# built again, never used. Go's build cache is in the work tree (Kubernetes' build sets GOCACHE
# to _output/local/go/cache whatever the environment says) and goes with it.
# Nothing is written in the repo.
set -euo pipefail

CACHE_ROOT=${TFJOB_REALAPI_CACHE:-/var/cache/kubectl-tfjob}
MODE=${1:-build}
. "$(dirname "${BASH_SOURCE[0]}")/../support/skip.sh"
[ "${TFJOB_REALAPI:-}" = require ] && export TFJOB_STRICT=1

skip() {  # skip ID REASON [FIX]: the rule, the skip kept for cluster.sh's dependent tests
  if [ -n "${TFJOB_REALAPI_SKIP_FILE:-}" ]; then tfjob_skip_record "$TFJOB_REALAPI_SKIP_FILE" "$@"; fi
  tfjob_skip "$@"
}
log() { echo "realapi setup: $*" >&2; }
not_cached() { echo "realapi setup: not built yet: $*" >&2; exit 77; }  # --check's answer, not a test's skip

[ "$MODE" = --check ] || [ "${TFJOB_REALAPI:-}" != skip ] || skip asked "TFJOB_REALAPI=skip"

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then sudo "$@"; else return 1; fi
}

# ---- 1. tools and packages (Debian only) --------------------------------------------------
if [ "$MODE" = --check ]; then command -v apt-get >/dev/null || not_cached "no apt-get"
else command -v apt-get >/dev/null || skip no-apt "no apt-get: this tier needs a Debian 12 machine" "run it on Debian 12"; fi
PKGS=(golang-go rsync jq curl procps etcd-server dpkg-dev make openssl python3 golang-github-modern-go-reflect2-dev)
# the real kubectl: any on PATH (or TFJOB_KUBECTL); else Debian's, from the same source (1.20.2)
if [ -z "${TFJOB_KUBECTL:-}" ] && ! command -v kubectl >/dev/null; then PKGS+=(kubernetes-client); fi
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

# deb-src entries for bookworm (the base entries are kept; this only adds the sources).
SRC_LIST=/etc/apt/sources.list.d/kubectl-tfjob-src.sources
need_update=0
# (--check writes nothing: without deb-src entries it cannot know the version, so nothing is built)
if [ "$MODE" != --check ] && ! { apt-cache showsrc kubernetes 2>/dev/null || true; } | grep -q '^Package: kubernetes'; then
  if [ ! -f "$SRC_LIST" ]; then
    log "adding deb-src entries for bookworm in $SRC_LIST"
    as_root tee "$SRC_LIST" >/dev/null <<'SRC' || skip no-root "cannot write $SRC_LIST (not root, no sudo)" "run as root"
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb-src
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
  fi
  need_update=1
fi
if [ "$MODE" != --check ] && { [ "$need_update" = 1 ] || [ "${#missing[@]}" -gt 0 ]; }; then
  log "apt-get update"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q >&2 \
    || skip apt-update "apt-get update failed (no network to the Debian mirrors?)" "reach deb.debian.org"
fi
if [ "$MODE" != --check ] && [ "${#missing[@]}" -gt 0 ]; then
  log "installing ${missing[*]}"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >&2 \
    || skip apt-install "apt-get install ${missing[*]} failed" "bash scripts/install-deps.sh"
fi

# ---- 2. the source version is the cache key -------------------------------------------------
# (apt-cache exits 100 without deb-src entries: an empty version, said below, not a pipefail exit)
SRC_VERSION=$({ apt-cache showsrc kubernetes 2>/dev/null || true; } | awk '/^Version:/ {print $2}' | sort -V | tail -1)
if [ -z "$SRC_VERSION" ]; then
  [ "$MODE" != --check ] || not_cached "no deb-src entries for bookworm: the source version (the cache key) is unknown"
  skip no-deb-src "apt-cache showsrc kubernetes found nothing (deb-src for bookworm missing?)" "add deb-src entries for bookworm"
fi
# The suffix names the set of source fixes below; bump it when they change, so every machine
# rebuilds instead of reusing a binary built without them.
FIXES=fixes2-node
CACHE="$CACHE_ROOT/kube-apiserver-$SRC_VERSION-$FIXES"
BIN="$CACHE/bin/kube-apiserver"
NODE_BINS=(kubelet kube-scheduler kube-controller-manager)
cached() { [ -s "$CACHE/source-version" ] && [ -x "$BIN" ] && for b in "${NODE_BINS[@]}"; do [ -x "$CACHE/bin/$b" ] || return 1; done; }
# pause, the pod sandbox's only process, as upstream builds it (build/pause/Makefile:
# CFLAGS = -Os -Wall -Werror -static -DVERSION=v$(TAG)-$(REV)); TREE: the unpacked source
PAUSE_TAG=3.4.1
build_pause() { # TREE
  local src="$1/build/pause/linux/pause.c"
  [ -f "$src" ] || { log "no $src in the source: no pause for the real-node tier"; return 1; }
  command -v gcc >/dev/null || { log "no gcc: no pause for the real-node tier"; return 1; }
  mkdir -p "$CACHE/src" "$CACHE/bin"
  cp "$src" "$CACHE/src/pause.c"
  gcc -Os -Wall -Werror -static "-DVERSION=v$PAUSE_TAG-kubectl-tfjob" -o "$CACHE/bin/pause.tmp" "$CACHE/src/pause.c" \
    && mv "$CACHE/bin/pause.tmp" "$CACHE/bin/pause"
}
# a cache built before pause was kept: fetch pause.c alone from the same source package
ensure_pause() {
  [ -x "$CACHE/bin/pause" ] && return 0
  [ "$MODE" = --check ] && return 0
  local tmp; tmp=$(mktemp -d)
  log "fetching build/pause/linux/pause.c from kubernetes=$SRC_VERSION for the pause image"
  if (cd "$tmp" && apt-get source -q --download-only "kubernetes=$SRC_VERSION" >/dev/null 2>&1) \
     && tar -C "$tmp" -xzf "$tmp"/kubernetes_*.orig.tar.gz --wildcards '*/build/pause/linux/pause.c' 2>/dev/null; then
    build_pause "$(find "$tmp" -mindepth 1 -maxdepth 1 -type d -name 'kubernetes-*' | head -1)" || true
  else
    log "could not fetch the kubernetes source for pause.c"
  fi
  rm -rf "$tmp"
}
if cached; then ensure_pause; echo "$BIN"; exit 0; fi
[ "$MODE" != --check ] || not_cached "$BIN"

as_root mkdir -p "$CACHE_ROOT" && as_root chown "$(id -u):$(id -g)" "$CACHE_ROOT" 2>/dev/null || true
mkdir -p "$CACHE" 2>/dev/null || skip no-cache-dir "cannot create the cache $CACHE" "set TFJOB_REALAPI_CACHE to a writable folder"

# One build per machine: a second caller waits for the first.
exec 9>"$CACHE/.lock"
if ! flock -n 9; then
  log "another build holds $CACHE/.lock; waiting"
  flock 9
fi
if cached; then ensure_pause; echo "$BIN"; exit 0; fi

# ---- 3. apt-get source, reflect2 swap, GOPATH-mode build of cmd/kube-apiserver only -----------
WORK="$CACHE/work"
rm -rf "$WORK" "${CACHE:?}/source-version" "${CACHE:?}/bin"; mkdir -p "$WORK"  # what an interrupted build left
BUILD_LOG="$CACHE/build.log"
: >"$BUILD_LOG"
start=$(date +%s)
log "apt-get source kubernetes=$SRC_VERSION into $WORK (log: $BUILD_LOG)"
(cd "$WORK" && apt-get source -q "kubernetes=$SRC_VERSION") >>"$BUILD_LOG" 2>&1 \
  || { tail -20 "$BUILD_LOG" >&2; skip apt-source "apt-get source kubernetes=$SRC_VERSION failed" "reach deb.debian.org"; }
TREE=$(find "$WORK" -mindepth 1 -maxdepth 1 -type d -name 'kubernetes-*' | head -1)
[ -n "$TREE" ] && [ -d "$TREE/vendor" ] && [ -f "$TREE/Makefile" ] \
  || { echo "FAIL: the unpacked kubernetes source has no Makefile/vendor under $WORK" >&2; exit 1; }

R2_SRC=/usr/share/gocode/src/github.com/modern-go/reflect2
[ -f "$R2_SRC/reflect2.go" ] || skip no-reflect2 "$R2_SRC missing" "apt-get install golang-github-modern-go-reflect2-dev"
log "replacing vendor/github.com/modern-go/reflect2 (v1.0.1 crashes under Go >= 1.18) with Debian's 1.0.2"
rm -rf "$TREE/vendor/github.com/modern-go/reflect2"
cp -rL "$R2_SRC" "$TREE/vendor/github.com/modern-go/reflect2"
sed -i 's|^# github.com/modern-go/reflect2 v1.0.1$|# github.com/modern-go/reflect2 v1.0.2|' "$TREE/vendor/modules.txt" || true
sed -i 's|github.com/modern-go/reflect2 v1.0.1$|github.com/modern-go/reflect2 v1.0.2|' "$TREE/go.mod" || true

# Go >= 1.16 returns a shared zero value from reflect.Zero, so the OpenAPI type validator's
# "zero value means null" check (always false under the Go 1.15 that 1.20 was released with)
# turns true for "" and 0: the server then refuses every custom resource holding an empty
# string ("spec.successPolicy in body must be of type string: \"null\""). Upstream removed
# the check (kubernetes/kube-openapi#230, kubernetes/kubernetes#99804, fixed in 1.21);
# the same one-line fix is applied to both vendored copies of the validator.
log "applying kube-openapi#230 (empty strings in custom resources are not null under Go >= 1.16)"
ZERO_CHECK='if data == nil || reflect.DeepEqual(reflect.Zero(reflect.TypeOf(data)), reflect.ValueOf(data)) {'
patched=0
while IFS= read -r f; do
  sed -i "s/^\(\s*\)if data == nil || reflect.DeepEqual(reflect.Zero(reflect.TypeOf(data)), reflect.ValueOf(data)) {/\1if data == nil {/" "$f"
  grep -qF "$ZERO_CHECK" "$f" && { echo "FAIL: could not patch the zero-value check in $f" >&2; exit 1; }
  patched=$((patched + 1))
done < <(grep -rlF "$ZERO_CHECK" "$TREE/vendor" || true)
[ "$patched" -gt 0 ] || { echo "FAIL: the OpenAPI zero-value check was not found in $TREE/vendor (source changed?)" >&2; exit 1; }
echo "patched the zero-value check in $patched file(s)" >>"$BUILD_LOG"

mkdir -p "$WORK/.go/src/k8s.io"
ln -sfn "$TREE" "$WORK/.go/src/k8s.io/kubernetes"
JOBS=${TFJOB_REALAPI_JOBS:-$(nproc)}
WHAT="cmd/kube-apiserver cmd/kubelet cmd/kube-scheduler cmd/kube-controller-manager"
log "building $WHAT (GOPATH mode, -p $JOBS, nice ${TFJOB_REALAPI_NICE:-0}); ~11 min on 2 idle cores"
(
  cd "$WORK/.go/src/k8s.io/kubernetes"
  export GOPATH="$WORK/.go" GO111MODULE=off CGO_ENABLED=0 GOFLAGS="-p=$JOBS" \
         KUBE_GIT_VERSION="v${SRC_VERSION#*really}" \
         KUBE_BUILD_PLATFORMS=linux/$(go env GOARCH)
  export KUBE_GIT_VERSION="${KUBE_GIT_VERSION%%-*}"
  nice -n "${TFJOB_REALAPI_NICE:-0}" make WHAT="$WHAT"
) >>"$BUILD_LOG" 2>&1 || { tail -30 "$BUILD_LOG" >&2; echo "FAIL: building $WHAT failed (see $BUILD_LOG)" >&2; exit 1; }

mkdir -p "$CACHE/bin"
build_pause "$TREE" >>"$BUILD_LOG" 2>&1 || log "pause was not built (see $BUILD_LOG): the real-node tier will skip"
for b in "${NODE_BINS[@]}" kube-apiserver; do  # kube-apiserver last: its presence alone means "apiserver ready"
  OUT=$(find "$TREE/_output" -type f -name "$b" -perm -u+x | head -1)
  [ -n "$OUT" ] || { echo "FAIL: the build produced no $b binary (see $BUILD_LOG)" >&2; exit 1; }
  cp "$OUT" "$CACHE/bin/$b.tmp" && mv "$CACHE/bin/$b.tmp" "$CACHE/bin/$b"
done
secs=$(( $(date +%s) - start ))
echo "$secs" >"$CACHE/build-seconds"
echo "$SRC_VERSION" >"$CACHE/source-version.tmp" && mv "$CACHE/source-version.tmp" "$CACHE/source-version"  # complete
log "built $BIN in ${secs}s; removing the work tree"
rm -rf "$WORK"
"$BIN" --version >&2 || true
echo "$BIN"
