#!/usr/bin/env bash
# The release's build and test environments, as Debian chroots made with mmdebstrap from
# Debian's archive and cached per machine under $TFJOB_RELEASE_CACHE
# (default /var/cache/kubectl-tfjob/release), each keyed by what it is built from.
#
#   scripts/release-chroot.sh build ARCH OUTDIR   build kubectl-tfjob and the hello-tfjob
#                                                 trainer it carries for linux/ARCH (amd64,
#                                                 arm64) into OUTDIR/kubectl-tfjob and
#                                                 OUTDIR/hello-tfjob
#   scripts/release-chroot.sh root SUITE ARCH     print the path of a minimal chroot
#                                                 (mmdebstrap's essential variant: nothing
#                                                 but Debian's Essential packages) of SUITE
#   scripts/release-chroot.sh cached ARCH         exit 0 when the build chroot and ARCH's
#                                                 static dependencies are already cached
#   scripts/release-chroot.sh prepare             build what the release tier needs into the
#                                                 cache (the build chroot, both architectures'
#                                                 static dependencies, the four run roots),
#                                                 one step at a time, each under the lock
#                                                 (scripts/test.sh runs it in the background)
#   scripts/release-chroot.sh run ROOT [-b HOSTDIR:DIR]... -- CMD...
#                                                 run CMD inside ROOT (its own mount
#                                                 namespace: /dev, /proc and the binds
#                                                 vanish with it; the network is shared)
#
# build: the binary is compiled inside a Debian 11 (bullseye) chroot against its glibc 2.31,
# and the one newer-than-2.28 symbol libstdc++ calls (pthread_cond_clockwait@GLIBC_2.30) is
# wrapped by release/glibc_compat.cpp (-DTFJOB_GLIBC_COMPAT=ON), so it needs only glibc
# >= 2.28 (RHEL 8; the newest symbol version it uses is what `objdump -T` shows;
# tests/tools/release_chroot_test.sh checks it), with bullseye's gcc 10 (arm64: Debian's
# cross toolchain g++-aarch64-linux-gnu) and the libraries the test suite runs against,
# Debian 12's: OpenSSL's and zlib's static archives from its packages, yaml-cpp built static from
# its source package, nlohmann-json, CLI11 and stb headers. libstdc++ and libgcc are linked in.
# The compile goes through ccache ($CACHE/ccache); the build dirs are kept ($CACHE/build-ARCH).
#
# Needs root (chroot, mount namespaces), mmdebstrap, and for arm64 roots qemu-user-static
# (copied into the root to run its binaries; binfmt_misc is not needed).
# Exit status: 0 on success, 1 on failure, 2 on a usage error, 77 when it cannot run here.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${TFJOB_RELEASE_CACHE:-/var/cache/kubectl-tfjob/release}
MIRROR=${TFJOB_DEBIAN_MIRROR:-http://deb.debian.org/debian}
SECURITY=${TFJOB_DEBIAN_SECURITY:-http://deb.debian.org/debian-security}
JOBS=${JOBS:-2}

die() { echo "release-chroot.sh: error: $*" >&2; exit 1; }
skip() { echo "SKIP: $*" >&2; exit 77; }
log() { echo "release-chroot.sh: $*" >&2; }
usage() { sed -n '2,37p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
key() { printf '%s\n' "$@" | sha256sum | cut -c1-12; }

need_root() {
  [ "$(id -u)" = 0 ] || skip "release chroots need root (chroot, mount namespaces)"
  command -v mmdebstrap >/dev/null || skip "mmdebstrap is not installed (apt-get install mmdebstrap; scripts/install-deps.sh does)"
  command -v unshare >/dev/null || skip "unshare (util-linux) is not installed"
}

# mmdebstrap with no inherited descriptor above 2: it hands apt a pipe as `cat >&N`, which
# /bin/sh (dash) refuses for N above 9, and a caller's open files (this script's lock on 9, a
# flock or a time wrapper around it) push N there. The lock stays held by this shell.
mmdebstrap_() {
  (
    for fd in /proc/$BASHPID/fd/*; do
      fd=${fd##*/}
      [ "$fd" -gt 2 ] 2>/dev/null && eval "exec $fd>&-"
    done
    exec mmdebstrap "$@"
  )
}

# One creator at a time per cache; a reader waits for the creator to finish.
lock() {
  mkdir -p "$CACHE"
  exec 9>"$CACHE/.lock"
  flock 9
}

# replace_cached DIR: DIR.tmp becomes DIR; the same kind's other keys (what older sources or
# recipes built) are removed, so the cache holds one of each.
replace_cached() {
  local dir=$1 stem old
  stem=${dir%-*}
  for old in "$stem"-*; do
    [ "$old" = "$dir.tmp" ] || [ ! -e "$old" ] || rm -rf "$old"
  done
  mv "$dir.tmp" "$dir"
}

# run ROOT [-b SRC:DST]... -- CMD...: CMD inside ROOT, in a private mount namespace so that
# nothing stays mounted when it ends (even if it is killed).
chroot_run() {
  local root=$1; shift
  local binds=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do
    [ "$1" = -b ] && [ $# -ge 2 ] || die "run: expected -b HOSTDIR:DIR or --, got '$1'"
    binds+=("$2"); shift 2
  done
  [ "${1:-}" = -- ] || die "run: missing -- before the command"
  shift
  [ -d "$root" ] || die "no chroot at $root"
  unshare --mount --propagation private -- bash -c '
    set -e
    root=$1; shift
    mount --rbind /dev "$root/dev"
    mount --rbind /proc "$root/proc"
    while [ "$1" != -- ]; do
      src=${1%%:*}; dst=${1#*:}; shift
      mkdir -p "$root$dst"
      mount --bind "$src" "$root$dst"
    done
    shift
    exec chroot "$root" "$@"' _ "$root" "${binds[@]}" -- "$@"
}

# ---- the build chroot: Debian 11 with gcc 10, cmake, the arm64 cross toolchain ----------
BUILD_SUITE=bullseye
BUILD_PACKAGES=build-essential,cmake,pkg-config,ccache,perl,dpkg-dev,g++-aarch64-linux-gnu
# Debian 12's sources: the same library versions the test suite builds against. Its point
# releases carry the security fixes (bookworm-security's source pool is not mirrored for
# this machine: it answers 404).
SOURCE_SUITE=bookworm
build_chroot_dir() {
  echo "$CACHE/chroot-$BUILD_SUITE-$(key "$BUILD_SUITE" "$BUILD_PACKAGES" "$SOURCE_SUITE" "$MIRROR" "$SECURITY" v2)"
}
build_chroot() {
  local dir
  dir=$(build_chroot_dir)
  if [ ! -f "$dir/.complete" ]; then
    lock
    if [ ! -f "$dir/.complete" ]; then
      log "making the $BUILD_SUITE build chroot in $dir (once per machine)"
      rm -rf "$dir.tmp"
      mmdebstrap_ --mode=root --variant=minbase \
        --include="$BUILD_PACKAGES" --skip=cleanup/apt/lists \
        "$BUILD_SUITE" "$dir.tmp" \
        "deb $MIRROR $BUILD_SUITE main" \
        "deb $SECURITY $BUILD_SUITE-security main" \
        "deb-src $MIRROR $SOURCE_SUITE main" >&2 || die "mmdebstrap $BUILD_SUITE failed"
      touch "$dir.tmp/.complete"
      replace_cached "$dir"
    fi
  fi
  echo "$dir"
}

# ---- static dependencies, Debian 12's -------------------------------------------------------
# The libraries the test suite builds against, Debian 12's (bookworm): OpenSSL's and zlib's
# static archives as Debian ships them (libssl-dev: libssl.a, libcrypto.a; zlib1g-dev: libz.a;
# C, so the Debian 11 toolchain links them, for arm64 too: the arm64 packages' archives),
# nlohmann-json, CLI11 and stb as their header packages; yaml-cpp from its source package,
# compiled here with Debian 11's gcc 10 (Debian 12's libyaml-cpp.a is C++ built by gcc 12 and
# calls libstdc++ symbols gcc 10's does not have). The binary packages are downloaded with an
# apt state of their own under /work (never installed: the chroot stays Debian 11).
DEP_SOURCES="openssl zlib yaml-cpp nlohmann-json3 cli11 libstb"  # the cache key: their source versions
DEP_DEBS="libssl-dev zlib1g-dev nlohmann-json3-dev libcli11-dev libstb-dev"
# Runs inside the build chroot: /deps is the prefix, /work a scratch dir.
# shellcheck disable=SC2016
DEPS_RECIPE='
set -euo pipefail
arch=$1 jobs=$2
cd /work
case "$arch" in amd64) triplet=x86_64-linux-gnu ;; arm64) triplet=aarch64-linux-gnu ;; esac
mkdir -p apt/lists/partial apt/archives/partial debs root
echo "deb '"$MIRROR $SOURCE_SUITE"' main" >apt/sources.list
aptb=(-o Dir::Etc::SourceList=/work/apt/sources.list -o Dir::Etc::SourceParts=/dev/null
      -o Dir::State::Lists=/work/apt/lists -o Dir::Cache=/work/apt -o APT::Architectures::=amd64
      -o APT::Architectures::="$arch" -o Debug::NoLocking=1)
apt-get "${aptb[@]}" -q update >/dev/null
debs=()
for p in '"$DEP_DEBS"'; do
  case "$p" in nlohmann-json3-dev|libcli11-dev) debs+=("$p") ;; *) debs+=("$p:$arch") ;; esac
done
(cd debs && apt-get "${aptb[@]}" -q download "${debs[@]}" >/dev/null)
for d in debs/*.deb; do dpkg-deb -x "$d" root; done
mkdir -p /deps/include /deps/lib /deps/share
cp -a root/usr/include/. /deps/include/
cp -a root/usr/include/"$triplet"/openssl/. /deps/include/openssl/  # configuration.h, opensslconf.h
rm -rf /deps/include/"$triplet"
for l in libssl.a libcrypto.a libz.a; do cp root/usr/lib/"$triplet"/$l /deps/lib/; done
cp -a root/usr/share/cmake /deps/share/  # nlohmann_json and CLI11 package configs
[ ! -d root/usr/lib/cmake ] || cp -a root/usr/lib/cmake /deps/lib/
# yaml-cpp from its source package, with this chroot'"'"'s compiler
apt-get source -q --download-only yaml-cpp >/dev/null
dpkg-source --no-check -x yaml-cpp_*.dsc >/dev/null
cmake_args=(-DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=/deps -DCMAKE_INSTALL_LIBDIR=lib
            -DCMAKE_POSITION_INDEPENDENT_CODE=ON)
[ "$arch" = amd64 ] || cmake_args+=(-DCMAKE_TOOLCHAIN_FILE=/deps/toolchain.cmake)
(cd yaml-cpp-*/ && cmake -S . -B b "${cmake_args[@]}" -DYAML_BUILD_SHARED_LIBS=OFF \
   -DYAML_CPP_BUILD_TESTS=OFF -DYAML_CPP_BUILD_TOOLS=OFF -DYAML_CPP_BUILD_CONTRIB=OFF >/dev/null &&
 cmake --build b -j"$jobs" >/dev/null && cmake --install b >/dev/null)
(ls debs; ls *.dsc) > /deps/SOURCES
'
toolchain_file() {  # the cross build's CMake toolchain (arm64)
  cat <<'EOF'
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH /deps /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)
EOF
}
deps_key_dir() {  # deps_key_dir CHROOT ARCH: the prefix, keyed by the sources' versions
  local chroot=$1 arch=$2 versions
  versions=$(chroot_run "$chroot" -- bash -c "for p in $DEP_SOURCES; do apt-cache showsrc \$p | sed -n 's/^Version: //p' | sort -V | tail -1; done" | tr '\n' ' ')
  echo "$CACHE/deps-$arch-$(key "$chroot" "$arch" "$versions" "$DEPS_RECIPE" "$(toolchain_file)")"
}
deps_dir() {  # deps_dir CHROOT ARCH
  local chroot=$1 arch=$2 dir
  dir=$(deps_key_dir "$chroot" "$arch")
  if [ ! -f "$dir/.complete" ]; then
    lock
    if [ ! -f "$dir/.complete" ]; then
      log "the static dependencies for $arch from Debian's $SOURCE_SUITE ($DEP_DEBS; yaml-cpp built) into $dir (once per machine)"
      rm -rf "$dir.tmp" "$CACHE/work-$arch"
      mkdir -p "$dir.tmp" "$CACHE/work-$arch"
      toolchain_file > "$dir.tmp/toolchain.cmake"
      chroot_run "$chroot" -b "$dir.tmp:/deps" -b "$CACHE/work-$arch:/work" -- \
        bash -c "$DEPS_RECIPE" _ "$arch" "$JOBS" >&2 || die "building the static dependencies for $arch failed"
      rm -rf "$CACHE/work-$arch"
      touch "$dir.tmp/.complete"
      replace_cached "$dir"
    fi
  fi
  echo "$dir"
}

# ---- the plugin ---------------------------------------------------------------------------
build() {  # build ARCH OUTDIR
  local arch=$1 out=$2 chroot deps
  case "$arch" in
    amd64|arm64) ;;
    *) die "unsupported architecture '$arch' (amd64, arm64)" ;;
  esac
  need_root
  chroot=$(build_chroot)
  deps=$(deps_dir "$chroot" "$arch")
  lock  # one build in the kept build dirs at a time
  # a kept build dir whose last build did not finish (no .complete) may hold half-written
  # objects: start it afresh (ccache keeps that cheap)
  [ -f "$CACHE/build-$arch/.complete" ] || rm -rf "$CACHE/build-$arch"
  rm -f "$CACHE/build-$arch/.complete"
  mkdir -p "$out" "$CACHE/ccache" "$CACHE/build-$arch"
  out=$(cd "$out" && pwd)
  # (the plugin's commands compile as unity files, plugin/CMakeLists.txt says why)
  local cmake_args=(-DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER_LAUNCHER=ccache
    -DTFJOB_BUILD_TESTS=OFF -DTFJOB_BUILD_SAMPLES=OFF -DTFJOB_BUILD_GPU_PROBE=OFF
    -DTFJOB_BUILD_BENCH=OFF -DTFJOB_INSTALL=OFF -DTFJOB_STATIC_DEPS=ON -DTFJOB_GLIBC_COMPAT=ON
    -DCMAKE_PREFIX_PATH=/deps -DOPENSSL_ROOT_DIR=/deps
    -DZLIB_LIBRARY=/deps/lib/libz.a -DZLIB_INCLUDE_DIR=/deps/include)
  [ "$arch" = amd64 ] || cmake_args+=(-DCMAKE_TOOLCHAIN_FILE=/deps/toolchain.cmake)
  log "building kubectl-tfjob and hello-tfjob for linux/$arch in the $BUILD_SUITE chroot"
  # The checkout is always /src inside the chroot, so the kept build dir and ccache serve
  # every clone (CI's included). Every build starts clean (--clean-first) and ccache, which
  # keys on content, makes that cheap: make and cmake's dependency scan judge by mtime, and a
  # clone made before another clone's build has older files than that build's objects, so a
  # changed header was once left unseen (stale objects calling a constructor that had changed).
  chroot_run "$chroot" -b "$ROOT:/src" -b "$deps:/deps" -b "$CACHE/build-$arch:/build" \
    -b "$CACHE/ccache:/ccache" -b "$out:/out" -- \
    env CCACHE_DIR=/ccache CCACHE_BASEDIR=/src CCACHE_NOHASHDIR=1 CCACHE_MAXSIZE=2G \
    bash -c 'set -e; cmake -S /src -B /build "${@:2}" >/dev/null
             cmake --build /build --target kubectl-tfjob hello-tfjob -j "$1" --clean-first
             install -m 0755 /build/plugin/kubectl-tfjob /out/kubectl-tfjob
             install -m 0755 /build/samples/hello-tfjob/hello-tfjob /out/hello-tfjob' _ "$JOBS" "${cmake_args[@]}" >&2 ||
    die "building kubectl-tfjob for $arch failed"
  touch "$CACHE/build-$arch/.complete"
  echo "$out/kubectl-tfjob"
}

# ---- minimal roots to run the release in ----------------------------------------------
run_root() {  # run_root SUITE ARCH
  local suite=$1 arch=$2 k dir variant=essential qemu=""
  need_root
  if [ "$arch" != amd64 ]; then
    # A foreign root's maintainer scripts cannot run without binfmt_misc: unpack it only
    # (mmdebstrap's extract variant) and run its binaries through qemu-user-static.
    variant=extract
    qemu=$(command -v "qemu-aarch64-static" || true)
    [ -n "$qemu" ] || skip "qemu-user-static is not installed (needed to run linux/$arch binaries)"
  fi
  k=$(key "$suite" "$arch" "$variant" "$MIRROR" v1 ${qemu:+include=?essential})
  dir="$CACHE/root-$suite-$arch-$k"
  if [ ! -f "$dir/.complete" ]; then
    lock
    if [ ! -f "$dir/.complete" ]; then
      log "making a minimal $suite/$arch chroot in $dir (once per machine)"
      rm -rf "$dir.tmp"
      # extract installs what --include names: the Essential set, as the essential variant
      mmdebstrap_ --mode=root --variant="$variant" --architectures="$arch" \
        ${qemu:+--include='?essential'} "$suite" "$dir.tmp" \
        "deb $MIRROR $suite main" >&2 || die "mmdebstrap $suite/$arch failed"
      mkdir -p "$dir.tmp/dev" "$dir.tmp/proc" "$dir.tmp/tmp"
      [ -z "$qemu" ] || install -m 0755 "$qemu" "$dir.tmp/qemu-static"
      touch "$dir.tmp/.complete"
      replace_cached "$dir"
    fi
  fi
  echo "$dir"
}

[ $# -ge 1 ] || usage
cmd=$1; shift
case "$cmd" in
  build) [ $# -eq 2 ] || usage; build "$1" "$2" ;;
  root) [ $# -eq 2 ] || usage; run_root "$1" "$2" ;;
  deps)  # deps ARCH: the build chroot and ARCH's static dependencies, built when missing
    [ $# -eq 1 ] || usage; need_root; c=$(build_chroot); deps_dir "$c" "$1" ;;
  prepare)  # each step its own process: the cache's lock is held for one step only
    [ $# -eq 0 ] || usage; need_root
    for a in amd64 arm64; do bash "$0" deps "$a" >/dev/null; done
    for r in "bullseye amd64" "trixie amd64" "bullseye arm64" "trixie arm64"; do
      # shellcheck disable=SC2086
      bash "$0" root $r >/dev/null
    done
    log "prepared: the build chroot, amd64 and arm64 static dependencies, the run roots" ;;
  cached)  # cached ARCH: exit 0 when the build chroot and ARCH's static deps are built
    [ $# -eq 1 ] || usage; need_root
    c=$(build_chroot_dir); [ -f "$c/.complete" ] || exit 1
    d=$(deps_key_dir "$c" "$1"); [ -f "$d/.complete" ] || exit 1 ;;
  run) [ $# -ge 3 ] || usage; need_root; chroot_run "$@" ;;
  -h|--help) usage ;;
  *) echo "release-chroot.sh: unknown command '$cmd'" >&2; usage ;;
esac; exit  # parsed whole: editing this file cannot disturb a run in progress
