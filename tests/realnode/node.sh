#!/usr/bin/env bash
# A real single-node Kubernetes for the test suite, inside a network namespace this script
# makes: the realapi control plane (tests/realapi/cluster.sh in node mode: etcd and
# kube-apiserver), kube-scheduler and kube-controller-manager (garbage collector,
# deployment, replicaset, endpoint, namespace, service account, PV binder), containerd with
# runc and the CNI bridge, a kubelet that registers node `tfjob-node` (10.200.0.1), and
# dnsmasq as cluster DNS fed from the Services' endpoints. Images are built here and
# imported, no registry (images.sh). The node advertises nvidia.com/gpu 8 (played: no GPU).
#
#   node.sh up DIR              bring it up; writes DIR/env (KUBECONFIG and the realapi keys)
#   node.sh down DIR            stop everything, unmount, delete the netns; fails if anything
#                               survives (a process, a mount, the netns)
#   node.sh with DIR -- CMD..   run CMD inside the node's network namespace with DIR/env
#                               exported (exit 77 when `up` was skipped)
#   node.sh shell DIR           an interactive shell there (poke at it by hand)
#   node.sh reserve DIR [SYSTEM KUBE EVICTION]
#                               restart the kubelet with these reservations, as its config's
#                               systemReserved, kubeReserved and evictionHard (each KEY=VALUE,...
#                               or "" for none: e.g. cpu=100m,memory=20Gi and
#                               memory.available=100Mi), and wait until the node reports the
#                               allocatable they leave; no arguments: none, as `up` starts it
#
# Exit codes: 0 ok; 77 skipped (reason on stderr and in DIR/skip-reason); 1 error.
# A skip goes through the suite's rule (tests/support/skip.sh): a strict run (CI=true,
# TFJOB_STRICT=1, or TFJOB_REALNODE=require for this tier) fails instead; TFJOB_REALNODE=skip
# skips on purpose (refused when CI=true). What this suite starts (the control plane, the
# images it builds, containerd, the kubelet, the TFJob controller stand-in) not coming up is
# a failure with its log, never a skip. A watchdog runs `down` when the caller of `up` (ctest) exits
# (TFJOB_REALNODE_OWNER_PID overrides) or after TFJOB_REALNODE_TTL seconds (default 7200).
# All traffic stays inside namespaces made here: the node's and its pods'.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
REALAPI="$REPO/tests/realapi"
KUBECTL=${TFJOB_KUBECTL:-kubectl}

log() { echo "realnode: $*" >&2; }
die() { echo "realnode: ERROR: $*" >&2; exit 1; }
usage() { sed -n '2,27p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

cmd=${1:-}; [ -n "$cmd" ] || usage; shift
DIR=${1:-}; [ -n "$DIR" ] || usage; shift
mkdir -p "$DIR"; DIR=$(cd "$DIR" && pwd)
API="$DIR/api"; PIDS="$DIR/pids"; LOGDIR="$DIR/logs"; RUN="$DIR/run"
# one netns per DIR, so two build trees on a machine do not collide
NETNS=tfjob-rn-$(printf %s "$DIR" | md5sum | cut -c1-8)
NETNS_PATH=/run/netns/$NETNS
NODE=tfjob-node
NODE_IP=10.200.0.1
POD_CIDR=10.200.128.0/24
GPUS=8
CTR_SOCK="$RUN/containerd/containerd.sock"

. "$REPO/tests/support/skip.sh"  # the suite's skip rule
[ "${TFJOB_REALNODE:-}" = require ] && export TFJOB_STRICT=1
skip() { tfjob_skip_record "$DIR/skip-reason" "$@"; }  # skip ID REASON [FIX], kept for `with`

# ---- process bookkeeping (as cluster.sh: only pids whose command line names DIR) ---------
ours() { [ -r "/proc/$1/cmdline" ] && tr '\0' ' ' <"/proc/$1/cmdline" | grep -qF -- "$DIR"; }
in_netns() { nsenter --net="$NETNS_PATH" -- "$@"; }
start() { # NAME CMD...: a daemon in its own session inside the node's netns
  local name=$1; shift
  setsid nsenter --net="$NETNS_PATH" -- "$@" </dev/null >"$LOGDIR/$name.log" 2>&1 &
  echo $! >"$PIDS/$name.pid"
}
# The kubelet's pod log directory is a constant in kubelet 1.20 (/var/log/pods,
# kuberuntime podLogsRootDirectory), and its container GC removes every directory there
# whose pod it does not know (kuberuntime_gc.go evictPodLogsDirectories): two nodes on one
# machine (two build trees, two engineers) delete each other's pod logs within a minute.
# containerd and the kubelet therefore share a mount namespace of the node's own (a slave
# of the host's: host paths stay visible) where /var/log/pods and /var/log/containers are
# directories under DIR; what they mount there (rootfs, volumes, netns files) stays there.
MNTNS="$RUN/mnt/ns"
make_mntns() {
  mkdir -p "$RUN/mnt" "$DIR/var-log/pods" "$DIR/var-log/containers" /var/log/pods /var/log/containers
  mount --bind "$RUN/mnt" "$RUN/mnt"
  mount --make-private "$RUN/mnt"
  : >"$MNTNS"
  unshare --mount="$MNTNS" --propagation slave \
    sh -c 'mount --bind "$1/pods" /var/log/pods && mount --bind "$1/containers" /var/log/containers' _ "$DIR/var-log"
}
start_node_daemon() { # NAME CMD...: as start, in the node's mount namespace too
  local name=$1; shift
  setsid nsenter --net="$NETNS_PATH" --mount="$MNTNS" -- "$@" </dev/null >"$LOGDIR/$name.log" 2>&1 &
  echo $! >"$PIDS/$name.pid"
}
alive() { local pid; pid=$(cat "$PIDS/$1.pid" 2>/dev/null) && ours "$pid"; }
wait_for() { # NAME SECONDS CMD...: poll CMD until it succeeds, NAME dies, or time runs out
  local name=$1 secs=$2; shift 2
  local end=$(( $(date +%s) + secs ))
  until "$@" >/dev/null 2>&1; do
    alive "$name" || { log "$name exited:"; tail -25 "$LOGDIR/$name.log" >&2; return 1; }
    [ "$(date +%s)" -lt "$end" ] || { log "$name not ready after ${secs}s"; tail -25 "$LOGDIR/$name.log" >&2; return 1; }
    sleep 0.5
  done
}
stop_pid() { # NAME: TERM, then KILL after 10 s
  local f="$PIDS/$1.pid" pid
  [ -f "$f" ] || return 0
  pid=$(cat "$f")
  if ours "$pid"; then
    # the daemon leads its session and process group (setsid): signal the whole group
    kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 100); do ours "$pid" || break; sleep 0.1; done
    ours "$pid" && { kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true; }
    for _ in $(seq 20); do ours "$pid" || break; sleep 0.1; done
  fi
  rm -f "$f"
}
# every process inside the node's netns or a pod's (their netns files lie under DIR)
netns_inodes() {
  local f
  [ -e "$NETNS_PATH" ] && stat -L -c %i "$NETNS_PATH" 2>/dev/null
  # (the pods' netns files are mounted inside the node's mount namespace)
  while read -r f; do in_mnt stat -L -c %i "$f" 2>/dev/null || true; done < <(in_mnt findmnt -rn -o TARGET | grep -F "$DIR/" | grep -F /netns/ || true)
}
node_pids() {
  local inodes p i
  inodes=$(netns_inodes | sort -u | tr '\n' ' ')
  [ -n "${inodes// /}" ] || return 0
  for p in /proc/[0-9]*; do
    i=$(stat -L -c %i "$p/ns/net" 2>/dev/null) || continue
    case " $inodes " in *" $i "*) echo "${p#/proc/}";; esac
  done
}
in_mnt() { if [ -e "$MNTNS" ] && findmnt -rn "$MNTNS" >/dev/null 2>&1; then nsenter --mount="$MNTNS" -- "$@"; else "$@"; fi; }
mounts_under_dir() { findmnt -rn -o TARGET | awk -v d="$DIR/" 'index($0, d) == 1' | sort -r; }

# The kubelet writes these global sysctls (container_manager_linux.go setupKernelTunables,
# --protect-kernel-defaults=false); they are put back by `down`.
SYSCTLS="vm.overcommit_memory vm.panic_on_oom kernel.panic kernel.panic_on_oops kernel.keys.root_maxkeys kernel.keys.root_maxbytes"

node_down() {
  rm -f "$DIR/env"
  local self=${1:-}
  [ -n "$self" ] || stop_pid watchdog
  for n in tfjob-controller dns-feeder dnsmasq kube-scheduler kube-controller-manager kubelet; do stop_pid "$n"; done
  # containers: kill every task containerd runs for the CRI, then containerd and its shims
  if alive containerd; then
    local ids id
    ids=$(ctr --address "$CTR_SOCK" -n k8s.io tasks ls -q 2>/dev/null || true)
    for id in $ids; do ctr --address "$CTR_SOCK" -n k8s.io tasks kill -s SIGKILL "$id" >/dev/null 2>&1 || true; done
    for id in $ids; do
      for _ in $(seq 50); do
        ctr --address "$CTR_SOCK" -n k8s.io tasks delete "$id" >/dev/null 2>&1 && break
        sleep 0.1
      done
    done
  fi
  stop_pid containerd
  local p
  for p in $(pgrep -f containerd-shim 2>/dev/null || true); do ours "$p" && kill -KILL "$p" 2>/dev/null || true; done
  # whatever still lives in the node's or a pod's network namespace
  for _ in 1 2 3; do
    local left; left=$(node_pids)
    [ -n "$left" ] || break
    # shellcheck disable=SC2086
    kill -KILL $left 2>/dev/null || true
    sleep 0.3
  done
  if [ -d "$API" ]; then bash "$REALAPI/cluster.sh" down "$API" || true; fi
  local m
  while read -r m; do [ -n "$m" ] && umount -l "$m" 2>/dev/null || true; done < <(mounts_under_dir)
  if [ -e "$NETNS_PATH" ]; then ip netns delete "$NETNS" 2>/dev/null || true; fi
  if [ -f "$DIR/sysctls" ]; then
    local k v
    while read -r k v; do sysctl -q -w "$k=$v" >/dev/null 2>&1 || true; done <"$DIR/sysctls"
    rm -f "$DIR/sysctls"
  fi
  # what the kubelet keeps outside its root dir (pod logs in /var/log/pods/NS_POD_UID, a
  # constant in kubelet 1.20) and what runc leaves (the empty k8s.io cgroup parents)
  if [ -f "$DIR/pod-logs-before" ]; then
    local d
    for d in /var/log/pods/*_*_*; do
      [ -e "$d" ] || continue
      grep -qxF "$(basename "$d")" "$DIR/pod-logs-before" || rm -rf "$d"
    done
    find /var/log/containers -xtype l -delete 2>/dev/null || true
    rm -f "$DIR/pod-logs-before"
  fi
  rmdir /sys/fs/cgroup/*/k8s.io 2>/dev/null || true
  # the verdict: nothing running, nothing mounted, no netns
  local bad=()
  [ -z "$(node_pids)" ] || bad+=("processes in the node's namespaces: $(node_pids | tr '\n' ' ')")
  for f in "$PIDS"/*.pid; do [ -e "$f" ] && ours "$(cat "$f")" && bad+=("$(basename "$f" .pid) still runs"); done
  for p in $(pgrep -f "$DIR" 2>/dev/null || true); do [ "$p" != $$ ] && [ "$p" != "$PPID" ] && ours "$p" && ! grep -q "node.sh" "/proc/$p/cmdline" 2>/dev/null && bad+=("pid $p: $(tr '\0' ' ' <"/proc/$p/cmdline")"); done
  [ -z "$(mounts_under_dir)" ] || bad+=("mounts left: $(mounts_under_dir | tr '\n' ' ')")
  [ ! -e "$NETNS_PATH" ] || bad+=("netns $NETNS left")
  if [ "${#bad[@]}" -gt 0 ]; then printf 'realnode: down: %s\n' "${bad[@]}" >&2; return 1; fi
  rm -rf "$RUN"
  return 0
}

# ---- preflight: what this tier needs, or a skip that says what is missing -------------------
preflight() {
  [ "${TFJOB_REALNODE:-}" = skip ] && skip asked "TFJOB_REALNODE=skip"
  [ "$(id -u)" = 0 ] || skip no-root "not root: the kubelet, containerd and the network namespace need root" "run the suite as root"
  local t
  for t in ip nsenter findmnt containerd containerd-shim-runc-v2 runc ctr dnsmasq iptables jq curl openssl "$KUBECTL"; do
    command -v "$t" >/dev/null || skip missing-tool "$t not found" "bash scripts/install-deps.sh installs containerd, runc, containernetworking-plugins, dnsmasq-base, iproute2, util-linux"
  done
  for t in bridge host-local portmap loopback; do
    [ -x "/usr/lib/cni/$t" ] || skip missing-tool "/usr/lib/cni/$t missing" "apt-get install containernetworking-plugins"
  done
  [ -d /sys/fs/cgroup/cpu ] && [ -d /sys/fs/cgroup/memory ] \
    || skip no-cgroup-v1 "no cgroup v1 cpu/memory hierarchies under /sys/fs/cgroup (this tier's kubelet runs with cgroupfs on cgroup v1)" \
         "boot with systemd.unified_cgroup_hierarchy=0"
  local probe=tfjob-rn-probe-$$
  ip netns add "$probe" 2>/dev/null || skip no-netns "cannot create a network namespace (ip netns add failed: no CAP_SYS_ADMIN?)" \
    "run the suite as root outside a container, or in one with CAP_SYS_ADMIN"
  ip netns delete "$probe"
}

kubeconfig_for() { # USER-NAME CERT KEY OUT: a kubeconfig for a component
  cat >"$4" <<X
apiVersion: v1
kind: Config
clusters:
- name: realnode
  cluster: {server: "$SERVER", certificate-authority: "$TFJOB_REALAPI_CA"}
users:
- name: $1
  user: {client-certificate: "$2", client-key: "$3"}
contexts:
- name: realnode
  context: {cluster: realnode, user: $1}
current-context: realnode
X
  chmod 600 "$4"
}

node_up() {
  rm -f "$DIR/env" "$DIR/skip-reason" "$DIR/stopped"
  preflight
  local bin rc=0
  # (setup.sh applies the rule itself and keeps its skip in DIR/skip-reason for `with`)
  bin=$(TFJOB_REALAPI_SKIP_FILE="$DIR/skip-reason" bash "$REALAPI/setup.sh") || rc=$?
  [ "$rc" = 0 ] || exit "$rc"
  local BIN; BIN=$(dirname "$bin")
  for b in kubelet kube-scheduler kube-controller-manager pause; do
    [ -x "$BIN/$b" ] || die "$BIN/$b is not built (tests/realapi/setup.sh builds it with kube-apiserver; see $(dirname "$BIN")/build.log)"
  done
  if [ -e "$NETNS_PATH" ] || [ -d "$PIDS" ]; then
    log "stopping a previous node in $DIR"; node_down || die "could not stop the previous node in $DIR"
  fi
  rm -rf "$RUN" "$LOGDIR" "$PIDS"
  mkdir -p "$PIDS" "$LOGDIR" "$RUN"
  rm -rf "$DIR/var-log"
  trap 'rc=$?; if [ $rc != 0 ]; then log "start failed; stopping what was started (logs in $LOGDIR)"; node_down || true; fi' EXIT
  local t0; t0=$(date +%s)

  # ---- network: the netns, a veth pair inside it carrying the node's address --------------
  ip netns add "$NETNS"
  make_mntns
  in_netns ip link set lo up
  in_netns ip link add rn0 type veth peer name rn1
  in_netns ip addr add "$NODE_IP/24" dev rn0
  in_netns ip link set rn0 up
  in_netns ip link set rn1 up
  # a default route, so that the kubelet finds a node address and the pods a way out (to
  # nowhere: nothing else is in this namespace)
  in_netns ip route add default via 10.200.0.2 dev rn0
  in_netns sysctl -q -w net.ipv4.ip_forward=1

  # ---- the watchdog: `down` when the owner (ctest) exits or the TTL passes ---------------
  local owner=${TFJOB_REALNODE_OWNER_PID:-$PPID} ttl=${TFJOB_REALNODE_TTL:-7200}
  setsid bash "$0" _watchdog "$DIR" "$owner" "$ttl" </dev/null >"$LOGDIR/watchdog.log" 2>&1 &
  echo $! >"$PIDS/watchdog.pid"

  # ---- the control plane, inside the netns (cluster.sh in node mode) ---------------------
  TFJOB_REALAPI_NODE=1 TFJOB_REALAPI_OWNER_PID="$owner" TFJOB_REALAPI_TTL="$ttl" \
    in_netns bash "$REALAPI/cluster.sh" up "$API" || rc=$?
  [ "$rc" = 0 ] || die "the control plane did not start (see $API/logs)"
  set -a; . "$API/env"; set +a
  SERVER=$TFJOB_REALAPI_SERVER
  local PKI="$API/pki"
  for k in $SYSCTLS; do echo "$k $(sysctl -n "$k")"; done >"$DIR/sysctls"
  ls /var/log/pods 2>/dev/null >"$DIR/pod-logs-before" || : >"$DIR/pod-logs-before"

  # ---- certificates and kubeconfigs of the node's components -----------------------------
  bash "$REALAPI/cluster.sh" cert "$API" node-kubelet-client client-ca "/O=system:nodes/CN=system:node:$NODE" clientAuth
  bash "$REALAPI/cluster.sh" cert "$API" node-kubelet-serving kubelet-ca "/CN=$NODE" serverAuth "IP:$NODE_IP,DNS:$NODE"
  bash "$REALAPI/cluster.sh" cert "$API" kube-scheduler client-ca "/CN=system:kube-scheduler" clientAuth
  # one identity for every controller (no per-controller service account tokens: the
  # ServiceAccount admission and token controller are off in this tier), so it needs what all
  # the controllers' bootstrap roles together grant
  bash "$REALAPI/cluster.sh" cert "$API" kube-controller-manager client-ca "/O=system:masters/CN=system:kube-controller-manager" clientAuth
  kubeconfig_for "system:node:$NODE" "$PKI/node-kubelet-client.crt" "$PKI/node-kubelet-client.key" "$RUN/kubelet.kubeconfig"
  kubeconfig_for system:kube-scheduler "$PKI/kube-scheduler.crt" "$PKI/kube-scheduler.key" "$RUN/scheduler.kubeconfig"
  kubeconfig_for system:kube-controller-manager "$PKI/kube-controller-manager.crt" "$PKI/kube-controller-manager.key" "$RUN/kcm.kubeconfig"

  # ---- kube-scheduler and kube-controller-manager (their RBAC roles are the bootstrap ones) --
  start kube-scheduler "$BIN/kube-scheduler" --kubeconfig="$RUN/scheduler.kubeconfig" \
    --authentication-kubeconfig="$RUN/scheduler.kubeconfig" --authorization-kubeconfig="$RUN/scheduler.kubeconfig" \
    --leader-elect=false --port=0 --secure-port=0 -v=1
  start kube-controller-manager "$BIN/kube-controller-manager" --kubeconfig="$RUN/kcm.kubeconfig" \
    --authentication-kubeconfig="$RUN/kcm.kubeconfig" --authorization-kubeconfig="$RUN/kcm.kubeconfig" \
    --leader-elect=false --port=0 --secure-port=0 --use-service-account-credentials=false \
    --controllers=garbagecollector,deployment,replicaset,endpoint,endpointslice,namespace,serviceaccount,persistentvolume-binder,podgc,nodelifecycle,horizontalpodautoscaling \
    --horizontal-pod-autoscaler-sync-period=5s \
    --service-account-private-key-file="$PKI/sa.key" --root-ca-file="$TFJOB_REALAPI_CA" \
    --concurrent-gc-syncs=5 --namespace-sync-period=10s -v=1

  # ---- containerd: own root/state/socket, runc, the CNI bridge ---------------------------
  mkdir -p "$RUN/containerd" "$RUN/cni/net.d" "$RUN/cni/ipam"
  cat >"$RUN/cni/net.d/10-tfjob.conflist" <<J
{"cniVersion": "0.4.0", "name": "tfjob-realnode", "plugins": [
  {"type": "bridge", "bridge": "cni0", "isGateway": true, "ipMasq": false, "hairpinMode": true,
   "ipam": {"type": "host-local", "dataDir": "$RUN/cni/ipam", "ranges": [[{"subnet": "$POD_CIDR"}]],
            "routes": [{"dst": "0.0.0.0/0"}]}},
  {"type": "portmap", "capabilities": {"portMappings": true}}]}
J
  cat >"$RUN/containerd/config.toml" <<T
version = 2
root = "$RUN/containerd/root"
state = "$RUN/containerd/state"
disabled_plugins = ["io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.btrfs",
  "io.containerd.snapshotter.v1.devmapper", "io.containerd.snapshotter.v1.zfs", "io.containerd.internal.v1.tracing",
  "io.containerd.tracing.processor.v1.otlp"]
[grpc]
  address = "$CTR_SOCK"
[ttrpc]
  address = "$CTR_SOCK.ttrpc"
[debug]
  address = "$RUN/containerd/debug.sock"
[plugins."io.containerd.internal.v1.opt"]
  path = "$RUN/containerd/opt"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "tfjob.local/pause:$PAUSE_TAG"
  stream_server_address = "127.0.0.1"
  stream_server_port = "0"
  # root here lacks CAP_SYS_RESOURCE: the CRI's oomScoreAdj of -998 for sandboxes would make
  # runc fail ("can't get final child's PID from pipe"); restricted, containers get no lower
  # score than containerd's own (containerd pkg/cri/opts/spec_linux.go WithOOMScoreAdj)
  restrict_oom_score_adj = true
  netns_mounts_under_state_dir = true
  max_container_log_line_size = 16384
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "$RUN/cni/net.d"
    max_conf_num = 1
T
  start_node_daemon containerd containerd --config "$RUN/containerd/config.toml"
  wait_for containerd 60 ctr --address "$CTR_SOCK" version || die "containerd did not start"

  # ---- images, built here (images.sh) and imported: pause, the trainer, serving, the probe --
  rc=0; TFJOB_REALNODE_PAUSE="$BIN/pause" PAUSE_TAG=$PAUSE_TAG bash "$HERE/images.sh" "$DIR/images" || rc=$?
  if [ "$rc" = 77 ]; then cp "$DIR/images/skip-reason" "$DIR/skip-reason"; tfjob_skip_recorded "$DIR/skip-reason" "the node's images"; fi
  [ "$rc" = 0 ] || die "the node's images could not be built (tests/realnode/images.sh exited $rc)"
  local tar
  for tar in "$DIR"/images/*.tar; do
    # the probe image (~600 MB of CUDA libraries) is imported by the gpu-check scenario only
    [ "$(basename "$tar")" = gpu-probe.tar ] && continue
    ctr --address "$CTR_SOCK" -n k8s.io images import "$tar" >/dev/null \
      || die "ctr images import $tar failed"
  done

  # ---- the kubelet --------------------------------------------------------------------------
  printf 'nameserver %s\nsearch cluster.local\n' "$NODE_IP" >"$RUN/resolv.conf"
  cat >"$RUN/kubelet.base.yaml" <<Y
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: $NODE_IP
port: 10250
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: 10248
tlsCertFile: $PKI/node-kubelet-serving.crt
tlsPrivateKeyFile: $PKI/node-kubelet-serving.key
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: false}
  x509: {clientCAFile: $PKI/kubelet-ca.crt}
authorization: {mode: AlwaysAllow}
# cgroup v1 without systemd, and no QoS/allocatable hierarchy (this VM's root may not
# create them): the kubelet settings this machine was proven with (issue 14)
cgroupDriver: cgroupfs
cgroupsPerQOS: false
enforceNodeAllocatable: []
failSwapOn: false
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
clusterDNS: [$NODE_IP]
clusterDomain: cluster.local
resolvConf: $RUN/resolv.conf
containerLogMaxSize: 1Gi
containerLogMaxFiles: 2
serializeImagePulls: false
oomScoreAdj: 0
maxPods: 50
Y
  echo "$BIN/kubelet" >"$RUN/kubelet.bin"
  kubelet_config "" "" ""
  start_kubelet
  wait_for kubelet 120 node_ready || die "node $NODE did not become Ready (see $LOGDIR/kubelet.log)"
  # the node lifecycle controller lifts the kubelet's node.kubernetes.io/not-ready taint
  untainted() { [ -z "$(k get node "$NODE" -o jsonpath='{.spec.taints}')" ]; }
  wait_for kube-controller-manager 60 untainted || die "node $NODE kept its taints: $(k get node "$NODE" -o jsonpath='{.spec.taints}')"

  # ---- the GPUs: what NVIDIA's device plugin and GPU feature discovery would publish (played) --
  in_netns curl -sS --fail --cacert "$TFJOB_REALAPI_CA" --cert "$TFJOB_REALAPI_ADMIN_CERT" --key "$TFJOB_REALAPI_ADMIN_KEY" \
    -X PATCH -H 'Content-Type: application/json-patch+json' \
    --data '[{"op": "add", "path": "/status/capacity/nvidia.com~1gpu", "value": "'"$GPUS"'"}]' \
    "$SERVER/api/v1/nodes/$NODE/status" >/dev/null || die "could not add nvidia.com/gpu to the node's capacity"
  k label node "$NODE" --overwrite \
    nvidia.com/gpu.present=true nvidia.com/gpu.count=$GPUS nvidia.com/gpu.product=Tesla-V100-SXM2-16GB \
    nvidia.com/gpu.memory=16384 nvidia.com/gpu.family=volta nvidia.com/gpu.compute.major=7 nvidia.com/gpu.compute.minor=0 >/dev/null
  gpus_allocatable() { k get node "$NODE" -o jsonpath='{.status.allocatable.nvidia\.com/gpu}' | grep -qx "$GPUS"; }
  wait_for kubelet 60 gpus_allocatable || die "nvidia.com/gpu did not become allocatable on $NODE"

  # ---- cluster DNS: dnsmasq on the node's address, fed from the Services' endpoints ---------
  mkdir -p "$RUN/dns"; : >"$RUN/dns/hosts"
  start dnsmasq dnsmasq --keep-in-foreground --no-resolv --no-hosts --no-daemon --user=root \
    --listen-address="$NODE_IP" --bind-interfaces --addn-hosts="$RUN/dns/hosts" \
    --local=/cluster.local/ --local=/svc/ --domain-needed --log-facility=-
  # (nsenter execs dnsmasq: the recorded pid is dnsmasq's, which the feeder sends SIGHUP)
  start dns-feeder bash "$HERE/dns_feeder.sh" "$DIR" "$API/kubeconfig" "$RUN/dns/hosts" "$PIDS/dnsmasq.pid"
  dns_listening() { in_netns ss -Hlun "sport = :53" | grep -qF "$NODE_IP:53"; }
  wait_for dnsmasq 20 dns_listening || die "dnsmasq did not start"

  # ---- the TFJob controller stand-in (the training operator's part; tests/realnode/controller/) --
  local ctrl_pid=
  if [ -n "${TFJOB_REALNODE_CONTROLLER:-}" ]; then
    [ -x "$TFJOB_REALNODE_CONTROLLER" ] || die "TFJOB_REALNODE_CONTROLLER=$TFJOB_REALNODE_CONTROLLER is not an executable (build tfjob-controller-standin)"
    start tfjob-controller "$TFJOB_REALNODE_CONTROLLER" --kubeconfig "$API/kubeconfig"
    ctrl_pid=$(cat "$PIDS/tfjob-controller.pid")
    sleep 1
    alive tfjob-controller || { tail -25 "$LOGDIR/tfjob-controller.log" >&2; die "the TFJob controller stand-in exited at once (log: $LOGDIR/tfjob-controller.log)"; }
  else
    log "no TFJob controller stand-in (TFJOB_REALNODE_CONTROLLER unset, by hand): the scenarios that need the operator fail"
  fi

  cp "$API/env" "$DIR/env"
  cat >>"$DIR/env" <<X
TFJOB_REALNODE_DIR=$DIR
TFJOB_REALNODE_NETNS=$NETNS_PATH
TFJOB_REALNODE_NODE=$NODE
TFJOB_REALNODE_NODE_IP=$NODE_IP
TFJOB_REALNODE_GPUS=$GPUS
TFJOB_REALNODE_CONTAINERD=$CTR_SOCK
TFJOB_REALNODE_IMAGES=$DIR/images
TFJOB_REALNODE_SH=$HERE/node.sh
TFJOB_REALNODE_CONTROLLER_PID=$ctrl_pid
X
  trap - EXIT
  log "up in $(( $(date +%s) - t0 ))s: node $NODE ($NODE_IP) Ready in netns $NETNS, API $SERVER; env in $DIR/env"
}
# kubelet.yaml: the base `up` wrote, with the reservations (SYSTEM KUBE EVICTION, each
# KEY=VALUE,... or ""): what --system-reserved, --kube-reserved and --eviction-hard set
kubelet_config() {
  yaml_map() { local out="" kv; for kv in ${1//,/ }; do out="$out${out:+, }\"${kv%%=*}\": \"${kv#*=}\""; done; echo "{$out}"; }
  { cat "$RUN/kubelet.base.yaml"
    echo "systemReserved: $(yaml_map "$1")"
    echo "kubeReserved: $(yaml_map "$2")"
    echo "evictionHard: $(yaml_map "$3")"
  } >"$RUN/kubelet.yaml"
}
start_kubelet() {
  start_node_daemon kubelet "$(cat "$RUN/kubelet.bin")" --config="$RUN/kubelet.yaml" --kubeconfig="$RUN/kubelet.kubeconfig" \
    --root-dir="$RUN/kubelet" --cert-dir="$RUN/kubelet/pki" --hostname-override="$NODE" --node-ip="$NODE_IP" \
    --container-runtime=remote --container-runtime-endpoint="unix://$CTR_SOCK" --runtime-request-timeout=5m \
    --pod-infra-container-image="tfjob.local/pause:$PAUSE_TAG" -v=1
}
# node.sh reserve: the kubelet restarted with other reservations (its pods keep running in
# containerd); the node's allocatable is then capacity - systemReserved - kubeReserved -
# evictionHard's memory.available (the kubelet's node allocatable rule)
node_reserve() {
  [ -f "$DIR/env" ] || die "no real node is up in $DIR (run: $0 up $DIR)"
  set -a; . "$API/env"; set +a
  local before old
  before=$(k get node "$NODE" -o jsonpath='{.status.allocatable.memory}')
  old=$(cat "$RUN/kubelet.yaml")
  kubelet_config "${1:-}" "${2:-}" "${3:-}"
  if [ "$old" = "$(cat "$RUN/kubelet.yaml")" ]; then log "kubelet reservations unchanged"; return 0; fi
  [ -f "$LOGDIR/kubelet.log" ] && cat "$LOGDIR/kubelet.log" >>"$LOGDIR/kubelet.before-restart.log"
  stop_pid kubelet
  start_kubelet
  wait_for kubelet 120 node_ready || die "node $NODE did not become Ready after the kubelet's restart (see $LOGDIR/kubelet.log)"
  # the restarted kubelet posts its new allocatable with its next status update
  changed() { [ "$(k get node "$NODE" -o jsonpath='{.status.allocatable.memory}')" != "$before" ]; }
  wait_for kubelet 60 changed || die "the node's allocatable did not change after the kubelet's restart"
  # the played GPUs (a patch of the node's status) survive a restart; put them back if not
  if ! k get node "$NODE" -o jsonpath='{.status.allocatable.nvidia\.com/gpu}' | grep -qx "$GPUS"; then
    in_netns curl -sS --fail --cacert "$TFJOB_REALAPI_CA" --cert "$TFJOB_REALAPI_ADMIN_CERT" --key "$TFJOB_REALAPI_ADMIN_KEY" \
      -X PATCH -H 'Content-Type: application/json-patch+json' \
      --data '[{"op": "add", "path": "/status/capacity/nvidia.com~1gpu", "value": "'"$GPUS"'"}]' \
      "$TFJOB_REALAPI_SERVER/api/v1/nodes/$NODE/status" >/dev/null || die "could not put nvidia.com/gpu back"
  fi
  log "kubelet restarted: allocatable $(k get node "$NODE" -o jsonpath='{.status.allocatable.cpu} CPU, {.status.allocatable.memory} memory')"
}
k() { in_netns "$KUBECTL" --kubeconfig "$API/kubeconfig" --context realapi-cert "$@"; }
node_ready() { k get node "$NODE" -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}' | grep -qx True; }

PAUSE_TAG=3.4.1

case "$cmd" in
  up) node_up ;;
  reserve) node_reserve "$@" ;;
  down)
    if [ -f "$DIR/env" ] || [ -e "$NETNS_PATH" ] || [ -d "$PIDS" ]; then
      if node_down; then log "down: nothing left running or mounted ($DIR)"; else die "down: something survived in $DIR"; fi
    else
      log "down: no node in $DIR"
    fi ;;
  with)
    [ "${1:-}" = -- ] && shift
    [ $# -gt 0 ] || usage
    if [ ! -f "$DIR/env" ]; then
      tfjob_skip_recorded "$DIR/skip-reason" "no real node"
      die "no real node is up in $DIR (run: $0 up $DIR)"
    fi
    [ -f "$DIR/stopped" ] && die "the real node is gone: $(cat "$DIR/stopped")"
    set -a; . "$DIR/env"; set +a
    exec nsenter --net="$NETNS_PATH" -- "$@" ;;
  shell)
    [ -f "$DIR/env" ] || die "no real node is up in $DIR (run: $0 up $DIR)"
    set -a; . "$DIR/env"; set +a
    echo "inside netns $NETNS; KUBECONFIG=$KUBECONFIG; exit to leave" >&2
    exec nsenter --net="$NETNS_PATH" -- "${SHELL:-bash}" ;;
  _watchdog)
    owner=$1 ttl=$2 end=$(( $(date +%s) + $2 ))
    while [ "$(date +%s)" -lt "$end" ]; do
      if [ "$owner" != 0 ] && ! kill -0 "$owner" 2>/dev/null; then break; fi
      sleep 2
    done
    log "watchdog: owner $owner gone or TTL ${ttl}s passed; stopping the node in $DIR"
    echo "stopped by the watchdog at $(date -u +%FT%TZ): owner $owner gone or TTL ${ttl}s passed" >"$DIR/stopped"
    node_down self ;;
  *) usage ;;
esac
