#!/usr/bin/env bash
# Builds (once per machine) the kube-apiserver of Debian 12's `kubernetes` source package,
# with the kubelet, kube-scheduler and kube-controller-manager of the same tree and the pod
# sandbox's `pause` (build/pause/linux/pause.c, gcc -static) for the real-node tier
# (tests/realnode/), and prints the path of the cached kube-apiserver on stdout; the other
# binaries lie beside it.
#
#   tests/realapi/setup.sh            build if needed, print the binary's path
#   tests/realapi/setup.sh --check    print the path only if already cached (exit 77 if not)
#
# Exit codes: 0 ready; 77 skipped (the reason is printed on stderr); 1 error.
# TFJOB_REALAPI_SKIP_FILE, when set, receives the reason of a skip.
# When the tier is required (CI=true, or TFJOB_REALAPI=require) every skip becomes exit 1,
# so a CI run cannot pass without really running the tier. TFJOB_REALAPI=skip skips.
#
# Cache: ${TFJOB_REALAPI_CACHE:-/var/cache/kubectl-tfjob}/kube-apiserver-<source version>-<fixes>/
# holding bin/kube-apiserver, build.log and source-version. Nothing is written in the repo.
set -euo pipefail

CACHE_ROOT=${TFJOB_REALAPI_CACHE:-/var/cache/kubectl-tfjob}
MODE=${1:-build}

required() {
  [ "${TFJOB_REALAPI:-}" = require ] && return 0
  [ "${TFJOB_REALAPI:-}" = skip ] && return 1
  [ "${CI:-}" = true ]
}
skip() {
  echo "realapi setup: SKIPPED: $*" >&2
  [ -n "${TFJOB_REALAPI_SKIP_FILE:-}" ] && echo "$*" >"$TFJOB_REALAPI_SKIP_FILE"
  if required; then
    echo "realapi setup: the real-apiserver tier is required here (CI=true or TFJOB_REALAPI=require); failing." >&2
    exit 1
  fi
  exit 77
}
log() { echo "realapi setup: $*" >&2; }

if [ "${TFJOB_REALAPI:-}" = skip ]; then
  echo "realapi setup: SKIPPED: TFJOB_REALAPI=skip" >&2
  [ -n "${TFJOB_REALAPI_SKIP_FILE:-}" ] && echo "TFJOB_REALAPI=skip" >"$TFJOB_REALAPI_SKIP_FILE"
  exit 77
fi

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then sudo "$@"; else return 1; fi
}

# ---- 1. tools and packages (Debian only) --------------------------------------------------
command -v apt-get >/dev/null || skip "no apt-get: this tier needs a Debian 12 machine"
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
if ! apt-cache showsrc kubernetes 2>/dev/null | grep -q '^Package: kubernetes'; then
  if [ ! -f "$SRC_LIST" ]; then
    log "adding deb-src entries for bookworm in $SRC_LIST"
    as_root tee "$SRC_LIST" >/dev/null <<'SRC' || skip "cannot write $SRC_LIST (not root, no sudo)"
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
    || skip "apt-get update failed (no network to the Debian mirrors?)"
fi
if [ "$MODE" != --check ] && [ "${#missing[@]}" -gt 0 ]; then
  log "installing ${missing[*]}"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >&2 \
    || skip "apt-get install ${missing[*]} failed"
fi

# ---- 2. the source version is the cache key -------------------------------------------------
SRC_VERSION=$(apt-cache showsrc kubernetes 2>/dev/null | awk '/^Version:/ {print $2}' | sort -V | tail -1)
[ -n "$SRC_VERSION" ] || skip "apt-cache showsrc kubernetes found nothing (deb-src for bookworm missing?)"
# The suffix names the set of source fixes below; bump it when they change, so every machine
# rebuilds instead of reusing a binary built without them.
FIXES=fixes2-node
CACHE="$CACHE_ROOT/kube-apiserver-$SRC_VERSION-$FIXES"
BIN="$CACHE/bin/kube-apiserver"
NODE_BINS=(kubelet kube-scheduler kube-controller-manager)
cached() { [ -x "$BIN" ] && for b in "${NODE_BINS[@]}"; do [ -x "$CACHE/bin/$b" ] || return 1; done; }
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
[ "$MODE" = --check ] && { echo "realapi setup: not built yet: $BIN" >&2; exit 77; }

as_root mkdir -p "$CACHE_ROOT" && as_root chown "$(id -u):$(id -g)" "$CACHE_ROOT" 2>/dev/null || true
mkdir -p "$CACHE" 2>/dev/null || skip "cannot create the cache $CACHE (set TFJOB_REALAPI_CACHE)"

# One build per machine: a second caller waits for the first.
exec 9>"$CACHE/.lock"
if ! flock -n 9; then
  log "another build holds $CACHE/.lock; waiting"
  flock 9
fi
if cached; then ensure_pause; echo "$BIN"; exit 0; fi

# ---- 3. apt-get source, reflect2 swap, GOPATH-mode build of cmd/kube-apiserver only -----------
WORK="$CACHE/work"
rm -rf "$WORK"; mkdir -p "$WORK"
BUILD_LOG="$CACHE/build.log"
: >"$BUILD_LOG"
start=$(date +%s)
log "apt-get source kubernetes=$SRC_VERSION into $WORK (log: $BUILD_LOG)"
(cd "$WORK" && apt-get source -q "kubernetes=$SRC_VERSION") >>"$BUILD_LOG" 2>&1 \
  || { tail -20 "$BUILD_LOG" >&2; skip "apt-get source kubernetes=$SRC_VERSION failed"; }
TREE=$(find "$WORK" -mindepth 1 -maxdepth 1 -type d -name 'kubernetes-*' | head -1)
[ -n "$TREE" ] && [ -d "$TREE/vendor" ] && [ -f "$TREE/Makefile" ] \
  || skip "the unpacked kubernetes source has no Makefile/vendor under $WORK"

R2_SRC=/usr/share/gocode/src/github.com/modern-go/reflect2
[ -f "$R2_SRC/reflect2.go" ] || skip "$R2_SRC missing (golang-github-modern-go-reflect2-dev)"
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
  grep -qF "$ZERO_CHECK" "$f" && skip "could not patch the zero-value check in $f"
  patched=$((patched + 1))
done < <(grep -rlF "$ZERO_CHECK" "$TREE/vendor" || true)
[ "$patched" -gt 0 ] || skip "the OpenAPI zero-value check was not found in $TREE/vendor (source changed?)"
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
) >>"$BUILD_LOG" 2>&1 || { tail -30 "$BUILD_LOG" >&2; skip "building kube-apiserver failed (see $BUILD_LOG)"; }

mkdir -p "$CACHE/bin"
build_pause "$TREE" >>"$BUILD_LOG" 2>&1 || log "pause was not built (see $BUILD_LOG): the real-node tier will skip"
for b in "${NODE_BINS[@]}" kube-apiserver; do  # kube-apiserver last: its presence alone means "apiserver ready"
  OUT=$(find "$TREE/_output" -type f -name "$b" -perm -u+x | head -1)
  [ -n "$OUT" ] || skip "the build produced no $b binary (see $BUILD_LOG)"
  cp "$OUT" "$CACHE/bin/$b.tmp" && mv "$CACHE/bin/$b.tmp" "$CACHE/bin/$b"
done
echo "$SRC_VERSION" >"$CACHE/source-version"
secs=$(( $(date +%s) - start ))
echo "$secs" >"$CACHE/build-seconds"
log "built $BIN in ${secs}s; removing the work tree"
rm -rf "$WORK"
"$BIN" --version >&2 || true
echo "$BIN"
