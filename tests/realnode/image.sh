#!/usr/bin/env bash
# Container images without a registry or a docker engine: a root file system assembled from
# binaries of this build (with the shared libraries ldd names) and Debian files, packed as a
# docker-archive tarball (`docker save` format 1.2: manifest.json, one config JSON, one
# layer tar) that `ctr -n k8s.io images import` loads into the node's containerd.
#
#   image.sh build OUT.tar NAME:TAG ROOTFS -- ENTRYPOINT...   pack ROOTFS as one image
#   image.sh add-bin ROOTFS FILE [DEST]     copy FILE (to DEST, default: the same path) and
#                                          every shared library ldd lists for it
#   image.sh base ROOTFS                    /etc/passwd, group, nsswitch.conf, /tmp: what a
#                                          glibc program expects to find
# Exit codes: 0 ok; 1 error (the reason on stderr).
set -euo pipefail
die() { echo "realnode image: ERROR: $*" >&2; exit 1; }

add_bin() { # ROOTFS FILE [DEST]
  local root=$1 file=$2 dest=${3:-$2} lib
  [ -x "$file" ] || die "$file is not an executable file"
  install -D -m 0755 "$file" "$root$dest"
  # ldd prints "name => /path (addr)" and the loader as "/lib64/ld-linux-x86-64.so.2 (addr)";
  # a static binary prints "not a dynamic executable" (and ldd exits 1)
  while read -r lib; do
    [ -n "$lib" ] || continue
    [ -e "$root$lib" ] || install -D -m 0755 "$(readlink -f "$lib")" "$root$lib"
  done < <(ldd "$file" 2>/dev/null | awk '/=> \// {print $3} /^[ \t]*\/[^ ]+ \(/ {print $1}' || true)
  if ldd "$file" 2>/dev/null | grep -q 'not found'; then die "$file needs libraries that are missing here: $(ldd "$file" | grep 'not found')"; fi
}

base() { # ROOTFS
  local root=$1
  mkdir -p "$root/etc" "$root/tmp" "$root/proc" "$root/sys" "$root/dev"
  chmod 0755 "$root"
  chmod 1777 "$root/tmp"
  printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\ntrainer:x:1000:1000::/tmp:/bin/false\n' >"$root/etc/passwd"
  printf 'root:x:0:\nnogroup:x:65534:\ntrainer:x:1000:\n' >"$root/etc/group"
  # glibc's resolver through /etc/hosts (the kubelet's) then DNS (the pod's resolv.conf)
  printf 'hosts: files dns\n' >"$root/etc/nsswitch.conf"
}

build() { # OUT NAME:TAG ROOTFS -- ENTRYPOINT...
  local out=$1 ref=$2 root=$3; shift 3
  [ "${1:-}" = -- ] && shift
  [ -d "$root" ] || die "no root file system at $root"
  case "$ref" in *:*) ;; *) die "image name $ref has no tag (give NAME:TAG)";; esac
  local work; work=$(mktemp -d)
  # one layer, reproducible: sorted names, no owners, a fixed time
  tar --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 -C "$root" -cf "$work/layer.tar" .
  local diff; diff=$(sha256sum "$work/layer.tar" | cut -d' ' -f1)
  mkdir -p "$work/$diff"; mv "$work/layer.tar" "$work/$diff/layer.tar"
  local entry; entry=$(printf '%s\n' "$@" | jq -R . | jq -sc .)
  # the image config of the OCI/Docker image spec: architecture, os, config, rootfs.diff_ids
  jq -nc --argjson entry "$entry" --arg diff "sha256:$diff" --arg arch "$(dpkg --print-architecture 2>/dev/null || echo amd64)" \
    '{architecture: $arch, os: "linux", created: "1970-01-01T00:00:00Z",
      config: {Entrypoint: $entry, Env: ["PATH=/usr/local/bin:/usr/bin:/bin"], WorkingDir: "/"},
      rootfs: {type: "layers", diff_ids: [$diff]},
      history: [{created: "1970-01-01T00:00:00Z", created_by: "tests/realnode/image.sh"}]}' >"$work/config.json"
  local cfg; cfg=$(sha256sum "$work/config.json" | cut -d' ' -f1)
  mv "$work/config.json" "$work/$cfg.json"
  jq -nc --arg cfg "$cfg.json" --arg ref "$ref" --arg layer "$diff/layer.tar" \
    '[{Config: $cfg, RepoTags: [$ref], Layers: [$layer]}]' >"$work/manifest.json"
  mkdir -p "$(dirname "$out")"; out=$(cd "$(dirname "$out")" && pwd)/$(basename "$out")
  # entries named as `docker save` names them (no "./": containerd's importer looks up
  # "manifest.json" by that exact name)
  tar --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 -C "$work" -cf "$out.tmp" manifest.json "$cfg.json" "$diff"
  mv "$out.tmp" "$out"
  rm -rf "$work"
}

cmd=${1:-}; shift || true
case "$cmd" in
  build) [ $# -ge 4 ] || die "usage: image.sh build OUT.tar NAME:TAG ROOTFS -- ENTRYPOINT..."; build "$@" ;;
  add-bin) [ $# -ge 2 ] || die "usage: image.sh add-bin ROOTFS FILE [DEST]"; add_bin "$@" ;;
  base) [ $# = 1 ] || die "usage: image.sh base ROOTFS"; base "$1" ;;
  *) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
