#!/usr/bin/env bash
# A real Kubernetes control plane on loopback for the test suite: etcd (Debian's
# etcd-server), the kube-apiserver built by setup.sh from Debian's kubernetes source, the
# official TFJob CRD, RBAC, fake GPU nodes and a loopback HTTPS kubelet for pod logs.
#
#   cluster.sh up DIR             start everything; writes DIR/env and DIR/kubeconfig
#                                 (TFJOB_CRD_FILE=none: no TFJob CRD, as before the operator)
#   cluster.sh down DIR           stop everything started by `up DIR`; fails if any survives
#   cluster.sh env DIR            print DIR/env (KEY=VALUE lines, shell-sourceable)
#   cluster.sh run DIR -- CMD..   up, run CMD with DIR/env exported, down (always)
#   cluster.sh with DIR -- CMD..  run CMD with DIR/env exported against a cluster already up
#                                 (exit 77 when the cluster's setup was skipped)
#   cluster.sh log DIR NS POD CONTAINER TEXT..   append lines to a container's log
#   cluster.sh previous-log DIR NS POD CONTAINER TEXT..  lines of the container's previous
#                                 attempt (what logs --previous reads)
#   cluster.sh exit DIR NS POD CONTAINER         mark the container exited (ends logs -f)
#   cluster.sh cert DIR NAME CA SUBJECT EKU [SAN]  one more certificate from the cluster's
#                                 CAs into DIR/pki (CA: client-ca, kubelet-ca, ...)
#   cluster.sh restart-apiserver DIR [SECONDS]   stop kube-apiserver, keep it down SECONDS
#                                 (default 3), start it again with the same flags (same etcd)
#
# Node mode (TFJOB_REALAPI_NODE=1, used by tests/realnode/node.sh inside its network
# namespace): the control plane only; no loopback kubelet and no fake GPU nodes, since a
# real kubelet registers the node.
#
# Exit codes: 0 ok; 77 skipped (reason on stderr; setup.sh decides, see there); 1 error.
# Only 127.0.0.1 is listened on; every port is chosen free at start. Each process started
# here is stopped by `down`, by a watchdog when the owner process (the caller of `up`, e.g.
# ctest; TFJOB_REALAPI_OWNER_PID overrides, 0 = none) exits, or after
# TFJOB_REALAPI_TTL seconds (default 7200), whichever comes first.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/../support/skip.sh"  # the suite's skip rule
REPO=$(cd "$HERE/../.." && pwd)
KUBECTL=${TFJOB_KUBECTL:-kubectl}
PY=/usr/bin/python3; [ -x "$PY" ] || PY=python3
CRD=${TFJOB_CRD_FILE:-}
if [ -z "$CRD" ]; then
  if [ -f "$REPO/../shared/crds/kubeflow.org_tfjobs.v1.9.4.yaml" ]; then
    CRD="$REPO/../shared/crds/kubeflow.org_tfjobs.v1.9.4.yaml"
  else
    CRD="$REPO/tests/data/crds/kubeflow.org_tfjobs.v1.9.4.yaml"
  fi
fi

die() { echo "realapi cluster: ERROR: $*" >&2; exit 1; }
log() { echo "realapi cluster: $*" >&2; }
usage() { sed -n '2,31p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

cmd=${1:-}; [ -n "$cmd" ] || usage; shift
DIR=${1:-}; [ -n "$DIR" ] || usage; shift
mkdir -p "$DIR"; DIR=$(cd "$DIR" && pwd)
PKI="$DIR/pki"; PIDS="$DIR/pids"; LOGDIR="$DIR/logs"; KLOGS="$DIR/kubelet-logs"

# ---- process bookkeeping: only pids whose command line names DIR are ever signalled -------
ours() { [ -r "/proc/$1/cmdline" ] && tr '\0' ' ' <"/proc/$1/cmdline" | grep -qF -- "$DIR"; }
stop_all() {
  local self=${1:-} f pid name left=()
  [ -d "$PIDS" ] || return 0
  for f in "$PIDS"/*.pid; do
    [ -e "$f" ] || continue
    name=$(basename "$f" .pid); pid=$(cat "$f")
    [ "$name" = watchdog ] && [ -n "$self" ] && { rm -f "$f"; continue; }
    if [ -n "$pid" ] && ours "$pid"; then signal TERM "$pid"; fi
  done
  for _ in $(seq 100); do
    left=()
    for f in "$PIDS"/*.pid; do
      [ -e "$f" ] || continue
      pid=$(cat "$f"); if ours "$pid"; then left+=("$pid"); else rm -f "$f"; fi
    done
    [ "${#left[@]}" = 0 ] && break
    sleep 0.1
  done
  for pid in "${left[@]}"; do ours "$pid" && signal KILL "$pid"; done
  sleep 0.2
  for f in "$PIDS"/*.pid; do
    [ -e "$f" ] || continue
    pid=$(cat "$f"); if ours "$pid"; then log "pid $pid ($(basename "$f" .pid)) survived SIGKILL"; return 1; fi
    rm -f "$f"
  done
  rm -rf "$DIR/etcd-data"
  return 0
}

# signal SIG PID: the daemon's whole process group when it leads one (setsid), else the pid
signal() {
  if [ "$(ps -o pgid= -p "$2" 2>/dev/null | tr -d ' ')" = "$2" ]; then
    kill -"$1" -- "-$2" 2>/dev/null || true
  else
    kill -"$1" "$2" 2>/dev/null || true
  fi
}
# start NAME CMD...: a detached daemon (own session, stdin /dev/null, output to a log file, so
# it never holds the caller's pipes open), its pid recorded.
start() {
  local name=$1; shift
  setsid "$@" </dev/null >"$LOGDIR/$name.log" 2>&1 &
  echo $! >"$PIDS/$name.pid"
}
alive() { local pid; pid=$(cat "$PIDS/$1.pid" 2>/dev/null) && ours "$pid"; }
free_ports() { # N distinct free loopback ports
  "$PY" -c 'import socket,sys
socks=[socket.socket() for _ in range(int(sys.argv[1]))]
for s in socks: s.bind(("127.0.0.1",0))
print(" ".join(str(s.getsockname()[1]) for s in socks))' "$1"
}
wait_for() { # NAME SECONDS CMD...: poll CMD until it succeeds, the daemon NAME dies, or time runs out
  local name=$1 secs=$2; shift 2
  local end=$(( $(date +%s) + secs ))
  until "$@" >/dev/null 2>&1; do
    alive "$name" || { tail -25 "$LOGDIR/$name.log" >&2; return 1; }
    [ "$(date +%s)" -lt "$end" ] || { log "$name not ready after ${secs}s"; tail -25 "$LOGDIR/$name.log" >&2; return 1; }
    sleep 0.5
  done
}

# ---- certificates (openssl) --------------------------------------------------------------
mkca() { # NAME CN
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 3 \
    -keyout "$PKI/$1.key" -out "$PKI/$1.crt" -subj "/CN=$2" \
    -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign 2>/dev/null
}
mkcert() { # NAME CA SUBJECT EKU [SAN]
  local ext="basicConstraints=critical,CA:FALSE
keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=$4"
  [ -n "${5:-}" ] && ext="$ext
subjectAltName=$5"
  openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
    -keyout "$PKI/$1.key" -out "$PKI/$1.csr" -subj "$3" 2>/dev/null
  openssl x509 -req -in "$PKI/$1.csr" -CA "$PKI/$2.crt" -CAkey "$PKI/$2.key" -CAcreateserial \
    -days 2 -out "$PKI/$1.crt" -extfile <(echo "$ext") 2>/dev/null
  rm -f "$PKI/$1.csr"
}
make_pki() {
  mkdir -p "$PKI"; chmod 700 "$PKI"
  mkca etcd-ca realapi-etcd-ca
  mkca server-ca realapi-server-ca          # signs the apiserver's serving certificate
  mkca client-ca realapi-client-ca          # --client-ca-file: signs user certificates
  mkca kubelet-ca realapi-kubelet-ca        # kubelet serving cert and the apiserver's kubelet client cert
  mkcert etcd etcd-ca "/CN=realapi-etcd" serverAuth,clientAuth "IP:127.0.0.1,DNS:localhost"
  mkcert apiserver-etcd-client etcd-ca "/CN=kube-apiserver-etcd-client" clientAuth
  mkcert apiserver server-ca "/CN=kube-apiserver" serverAuth \
    "IP:127.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc"
  mkcert admin client-ca "/O=system:masters/CN=realapi-admin" clientAuth
  mkcert alice client-ca "/O=team-a-devs/CN=alice" clientAuth
  mkcert kubelet kubelet-ca "/CN=realapi-kubelet" serverAuth "IP:127.0.0.1"
  mkcert apiserver-kubelet-client kubelet-ca "/O=system:masters/CN=kube-apiserver-kubelet-client" clientAuth
  openssl genrsa -out "$PKI/sa.key" 2048 2>/dev/null
  openssl rsa -in "$PKI/sa.key" -pubout -out "$PKI/sa.pub" 2>/dev/null
  ADMIN_TOKEN=$(openssl rand -hex 24); LIMITED_TOKEN=$(openssl rand -hex 24)
  # token,user,uid,"group1,group2"
  printf '%s,realapi-admin,uid-realapi-admin,"system:masters"\n%s,alice,uid-alice,"team-a-devs"\n' \
    "$ADMIN_TOKEN" "$LIMITED_TOKEN" >"$PKI/tokens.csv"
  chmod 600 "$PKI"/*.key "$PKI/tokens.csv"
}

b64() { base64 -w0 <"$1"; }
write_kubeconfig() { # SERVER
  cat >"$DIR/exec-credential.sh" <<X
#!/bin/sh
# client-go exec credential plugin for the realapi cluster (prints the admin bearer token)
printf '{"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential","status":{"token":"%s"}}\n' "\$(cat "$PKI/exec-token")"
X
  chmod 700 "$DIR/exec-credential.sh"
  printf '%s' "$ADMIN_TOKEN" >"$PKI/exec-token"; chmod 600 "$PKI/exec-token"
  cat >"$DIR/kubeconfig" <<X
apiVersion: v1
kind: Config
clusters:
- name: realapi
  cluster:
    server: $1
    certificate-authority-data: $(b64 "$PKI/server-ca.crt")
users:
- name: realapi-admin-cert
  user:
    client-certificate-data: $(b64 "$PKI/admin.crt")
    client-key-data: $(b64 "$PKI/admin.key")
- name: realapi-admin-token
  user:
    token: $ADMIN_TOKEN
- name: alice-token
  user:
    token: $LIMITED_TOKEN
- name: realapi-exec
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1beta1
      command: $DIR/exec-credential.sh
      interactiveMode: Never
contexts:
- name: realapi-cert
  context: {cluster: realapi, user: realapi-admin-cert, namespace: default}
- name: realapi-token
  context: {cluster: realapi, user: realapi-admin-token, namespace: default}
- name: realapi-limited
  context: {cluster: realapi, user: alice-token, namespace: team-a}
- name: realapi-exec
  context: {cluster: realapi, user: realapi-exec, namespace: default}
current-context: realapi-cert
X
  chmod 600 "$DIR/kubeconfig"
}

k() { "$KUBECTL" --kubeconfig "$DIR/kubeconfig" --context realapi-cert "$@"; }
api() { # METHOD PATH [BODY] [CONTENT-TYPE]: curl as the admin (client certificate)
  curl -sS --fail-with-body --cacert "$PKI/server-ca.crt" --cert "$PKI/admin.crt" --key "$PKI/admin.key" \
    -X "$1" ${3:+-H "Content-Type: ${4:-application/merge-patch+json}" --data-binary "$3"} "$SERVER$2"
}

gpu_node() { # NAME GPUS PRODUCT MEMORY_MIB FAMILY CC_MAJOR CC_MINOR
  local name=$1 gpus=$2
  api POST /api/v1/nodes "$(cat <<J
{"apiVersion":"v1","kind":"Node","metadata":{"name":"$name","labels":{
 "kubernetes.io/hostname":"$name","kubernetes.io/os":"linux","kubernetes.io/arch":"amd64",
 "nvidia.com/gpu.present":"true","nvidia.com/gpu.count":"$gpus","nvidia.com/gpu.product":"$3",
 "nvidia.com/gpu.memory":"$4","nvidia.com/gpu.family":"$5","nvidia.com/gpu.compute.major":"$6",
 "nvidia.com/gpu.compute.minor":"$7","nvidia.com/cuda.driver.major":"550","nvidia.com/cuda.driver.minor":"54",
 "nvidia.com/cuda.runtime.major":"12","nvidia.com/cuda.runtime.minor":"4","nvidia.com/gfd.timestamp":"$(date +%s)"}},
 "spec":{}}
J
)" application/json >/dev/null
  api PATCH "/api/v1/nodes/$name/status" "$(cat <<J
{"status":{
 "capacity":{"cpu":"32","memory":"263859348Ki","pods":"110","ephemeral-storage":"1055762868Ki","nvidia.com/gpu":"$gpus"},
 "allocatable":{"cpu":"31800m","memory":"257553812Ki","pods":"110","ephemeral-storage":"972991057538","nvidia.com/gpu":"$gpus"},
 "addresses":[{"type":"InternalIP","address":"127.0.0.1"},{"type":"Hostname","address":"$name"}],
 "daemonEndpoints":{"kubeletEndpoint":{"Port":$KUBELET_PORT}},
 "conditions":[{"type":"Ready","status":"True","reason":"KubeletReady","message":"kubelet is posting ready status",
   "lastHeartbeatTime":"$(date -u +%FT%TZ)","lastTransitionTime":"$(date -u +%FT%TZ)"}],
 "nodeInfo":{"machineID":"$(printf %s "$name" | md5sum | cut -c1-32)","systemUUID":"$(cat /proc/sys/kernel/random/uuid)",
   "bootID":"$(cat /proc/sys/kernel/random/uuid)","kernelVersion":"$(uname -r)","osImage":"Debian GNU/Linux 12 (bookworm)",
   "containerRuntimeVersion":"containerd://1.6.20","kubeletVersion":"$SERVER_VERSION","kubeProxyVersion":"$SERVER_VERSION",
   "operatingSystem":"linux","architecture":"amd64"}}}
J
)" >/dev/null
  # The TaintNodesByCondition admission gives a new node node.kubernetes.io/not-ready:NoSchedule;
  # the node lifecycle controller (not run on this tier) lifts it once the node is Ready.
  api PATCH "/api/v1/nodes/$name" '{"spec":{"taints":null}}' >/dev/null
}

cluster_up() {
  local bin rc=0
  rm -f "$DIR/env" "$DIR/skip-reason" "$DIR/stopped"
  bin=$(TFJOB_REALAPI_SKIP_FILE="$DIR/skip-reason" bash "$HERE/setup.sh") || rc=$?
  [ "$rc" = 0 ] || exit "$rc"
  command -v etcd >/dev/null || die "etcd not found (apt-get install etcd-server)"
  command -v "$KUBECTL" >/dev/null || die "kubectl not found (set TFJOB_KUBECTL)"
  [ "$CRD" = none ] || [ -f "$CRD" ] || die "the TFJob CRD is missing: $CRD"
  if [ -d "$PIDS" ] && ls "$PIDS"/*.pid >/dev/null 2>&1; then
    log "stopping a previous cluster in $DIR"; stop_all || die "could not stop the previous cluster in $DIR"
  fi
  rm -rf "$PKI" "$LOGDIR" "$KLOGS" "$DIR/etcd-data" "$DIR/env" "$DIR/kubelet.port" "$DIR/apiserver-certs"
  mkdir -p "$PIDS" "$LOGDIR" "$KLOGS"
  trap 'rc=$?; if [ $rc != 0 ]; then log "start failed; stopping what was started (logs in $LOGDIR)"; stop_all || true; fi' EXIT

  local t0; t0=$(date +%s)
  make_pki
  SERVER_VERSION=$("$bin" --version | awk '{print $2}')

  # watchdog: tears everything down when the owner exits or the TTL passes
  local owner=${TFJOB_REALAPI_OWNER_PID:-$PPID} ttl=${TFJOB_REALAPI_TTL:-7200}
  start watchdog bash "$0" _watchdog "$DIR" "$owner" "$ttl"

  KUBELET_PORT=
  if [ "${TFJOB_REALAPI_NODE:-}" != 1 ]; then
    start kubelet "$PY" "$HERE/kubelet.py" --cert "$PKI/kubelet.crt" --key "$PKI/kubelet.key" \
      --client-ca "$PKI/kubelet-ca.crt" --logs "$KLOGS" --port-file "$DIR/kubelet.port"
    wait_for kubelet 30 test -s "$DIR/kubelet.port" || die "the loopback kubelet did not start"
    KUBELET_PORT=$(cat "$DIR/kubelet.port")
  fi

  local try ports
  for try in 1 2 3; do
    read -r ETCD_PORT ETCD_PEER_PORT < <(free_ports 2)
    start etcd etcd --name realapi --data-dir "$DIR/etcd-data" \
      --listen-client-urls "https://127.0.0.1:$ETCD_PORT" --advertise-client-urls "https://127.0.0.1:$ETCD_PORT" \
      --listen-peer-urls "https://127.0.0.1:$ETCD_PEER_PORT" --initial-advertise-peer-urls "https://127.0.0.1:$ETCD_PEER_PORT" \
      --initial-cluster "realapi=https://127.0.0.1:$ETCD_PEER_PORT" --initial-cluster-state new \
      --cert-file "$PKI/etcd.crt" --key-file "$PKI/etcd.key" --trusted-ca-file "$PKI/etcd-ca.crt" --client-cert-auth \
      --peer-cert-file "$PKI/etcd.crt" --peer-key-file "$PKI/etcd.key" --peer-trusted-ca-file "$PKI/etcd-ca.crt" \
      --peer-client-cert-auth --quota-backend-bytes 1073741824 --snapshot-count 5000
    if wait_for etcd 60 curl -sf --cacert "$PKI/etcd-ca.crt" --cert "$PKI/apiserver-etcd-client.crt" \
         --key "$PKI/apiserver-etcd-client.key" "https://127.0.0.1:$ETCD_PORT/health"; then break; fi
    alive etcd && die "etcd did not become healthy"
    [ "$try" = 3 ] && die "etcd failed to start three times (see $LOGDIR/etcd.log)"
    rm -rf "$DIR/etcd-data"; log "etcd failed to start (port taken?); retrying"
  done

  for try in 1 2 3; do
    read -r API_PORT < <(free_ports 1)
    SERVER="https://127.0.0.1:$API_PORT"
    APISERVER_ARGS=("$bin" \
      --bind-address=127.0.0.1 --secure-port="$API_PORT" --insecure-port=0 --advertise-address=127.0.0.1 \
      --endpoint-reconciler-type=none --cert-dir="$DIR/apiserver-certs" \
      --etcd-servers="https://127.0.0.1:$ETCD_PORT" --etcd-cafile="$PKI/etcd-ca.crt" \
      --etcd-certfile="$PKI/apiserver-etcd-client.crt" --etcd-keyfile="$PKI/apiserver-etcd-client.key" \
      --tls-cert-file="$PKI/apiserver.crt" --tls-private-key-file="$PKI/apiserver.key" \
      --client-ca-file="$PKI/client-ca.crt" --token-auth-file="$PKI/tokens.csv" \
      --authorization-mode=Node,RBAC \
      --service-account-key-file="$PKI/sa.pub" --service-account-signing-key-file="$PKI/sa.key" \
      --service-account-issuer=https://kubernetes.default.svc.cluster.local \
      --api-audiences=https://kubernetes.default.svc.cluster.local \
      --service-cluster-ip-range=10.96.0.0/16 \
      --disable-admission-plugins=ServiceAccount --enable-admission-plugins=NodeRestriction \
      --kubelet-client-certificate="$PKI/apiserver-kubelet-client.crt" \
      --kubelet-client-key="$PKI/apiserver-kubelet-client.key" \
      --kubelet-certificate-authority="$PKI/kubelet-ca.crt" \
      --kubelet-preferred-address-types=InternalIP,Hostname \
      --allow-privileged=true --profiling=false --event-ttl=1h -v=1)
    start kube-apiserver "${APISERVER_ARGS[@]}"
    printf '%s\0' "${APISERVER_ARGS[@]}" >"$DIR/apiserver.args"  # for restart-apiserver
    if wait_for kube-apiserver 240 curl -sf --cacert "$PKI/server-ca.crt" --cert "$PKI/admin.crt" \
         --key "$PKI/admin.key" "$SERVER/readyz"; then break; fi
    alive kube-apiserver && die "kube-apiserver did not become ready in 240s (see $LOGDIR/kube-apiserver.log)"
    [ "$try" = 3 ] && die "kube-apiserver failed to start three times (see $LOGDIR/kube-apiserver.log)"
    log "kube-apiserver exited at start (port taken?); retrying"
  done
  write_kubeconfig "$SERVER"

  # ---- cluster content -------------------------------------------------------------------
  k create namespace team-a >/dev/null
  k create namespace team-b >/dev/null
  # no controller-manager: ServiceAccount admission is off, but `default` accounts exist
  for ns in default team-a team-b; do k -n "$ns" create serviceaccount default >/dev/null; done
  k apply -f - >/dev/null <<'Y'
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: team-a-developer, namespace: team-a}
rules:
- apiGroups: ["kubeflow.org"]
  resources: ["tfjobs", "tfjobs/status"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"]
- apiGroups: [""]
  resources: ["pods", "pods/log", "services", "events", "configmaps", "persistentvolumeclaims"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: ["apps"]
  resources: ["deployments", "deployments/status"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: team-a-developers, namespace: team-a}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: team-a-developer}
subjects:
- {apiGroup: rbac.authorization.k8s.io, kind: Group, name: team-a-devs}
Y
  # TFJOB_CRD_FILE=none: a cluster without the training operator (what its users meet first)
  if [ "$CRD" != none ]; then
    # 1.20 knows no x-kubernetes-validations and server-side apply refuses the field: create
    k create --validate=false -f "$CRD" >/dev/null
    # (kubectl wait fails outright while the CRD has no conditions yet: poll instead)
    crd_established() {
      api GET /apis/apiextensions.k8s.io/v1/customresourcedefinitions/tfjobs.kubeflow.org \
        | jq -e '.status.conditions[]? | select(.type=="Established" and .status=="True")'
    }
    wait_for kube-apiserver 60 crd_established || die "the TFJob CRD was not Established in 60s"
    # the TFJob resource is served once discovery shows it
    wait_for kube-apiserver 60 api GET /apis/kubeflow.org/v1/tfjobs || die "tfjobs not served after the CRD was established"
  fi

  local nodes="gpu-node-0 gpu-node-1"
  if [ "${TFJOB_REALAPI_NODE:-}" = 1 ]; then
    nodes=
  else
    gpu_node gpu-node-0 4 NVIDIA-A100-SXM4-40GB 40960 ampere 8 0
    gpu_node gpu-node-1 2 Tesla-T4 15360 turing 7 5
  fi

  cat >"$DIR/env" <<X
TFJOB_REALAPI_DIR=$DIR
KUBECONFIG=$DIR/kubeconfig
TFJOB_TEST_KUBECONFIG=$DIR/kubeconfig
TFJOB_TEST_CONTEXT_CERT=realapi-cert
TFJOB_TEST_CONTEXT_TOKEN=realapi-token
TFJOB_TEST_CONTEXT_LIMITED=realapi-limited
TFJOB_TEST_CONTEXT_EXEC=realapi-exec
TFJOB_TEST_LIMITED_NAMESPACE=team-a
TFJOB_TEST_FORBIDDEN_NAMESPACE=team-b
TFJOB_REALAPI_SERVER=$SERVER
TFJOB_REALAPI_SERVER_VERSION=$SERVER_VERSION
TFJOB_REALAPI_CA=$PKI/server-ca.crt
TFJOB_REALAPI_CLIENT_CA=$PKI/client-ca.crt
TFJOB_REALAPI_CLIENT_CA_KEY=$PKI/client-ca.key
TFJOB_REALAPI_ADMIN_CERT=$PKI/admin.crt
TFJOB_REALAPI_ADMIN_KEY=$PKI/admin.key
TFJOB_REALAPI_LIMITED_CERT=$PKI/alice.crt
TFJOB_REALAPI_LIMITED_KEY=$PKI/alice.key
TFJOB_REALAPI_ADMIN_TOKEN=$ADMIN_TOKEN
TFJOB_REALAPI_LIMITED_TOKEN=$LIMITED_TOKEN
TFJOB_REALAPI_KUBELET_LOGS=$KLOGS
TFJOB_REALAPI_KUBELET_PORT=$KUBELET_PORT
TFJOB_REALAPI_KUBELET_CA=$PKI/kubelet-ca.crt
TFJOB_REALAPI_NODES="$nodes"
TFJOB_REALAPI_CLUSTER_SH=$HERE/cluster.sh
X
  trap - EXIT
  log "up in $(( $(date +%s) - t0 ))s: $SERVER ($SERVER_VERSION), etcd :$ETCD_PORT, kubelet :$KUBELET_PORT; env in $DIR/env"
}

# restart-apiserver DIR [SECONDS]: stop kube-apiserver (SIGTERM, as a rolling restart does),
# keep it down SECONDS (default 3), start it again with the same flags and wait until ready.
# What clients see: connections cut, then refused, then answers again from the same etcd.
restart_apiserver() {
  local down=${1:-3} args=()
  [ -f "$DIR/apiserver.args" ] && alive kube-apiserver || die "no kube-apiserver of ours runs in $DIR"
  mapfile -d '' args <"$DIR/apiserver.args"
  local pid t0; pid=$(cat "$PIDS/kube-apiserver.pid")
  t0=$(date +%s)
  signal TERM "$pid"
  for _ in $(seq 150); do ours "$pid" || break; sleep 0.1; done
  if ours "$pid"; then signal KILL "$pid"; sleep 0.5; fi
  sleep "$down"
  mv -f "$LOGDIR/kube-apiserver.log" "$LOGDIR/kube-apiserver.before-restart.log" 2>/dev/null || true
  start kube-apiserver "${args[@]}"
  local server; server=$(sed -n 's/^TFJOB_REALAPI_SERVER=//p' "$DIR/env")
  wait_for kube-apiserver 240 curl -sf --cacert "$PKI/server-ca.crt" --cert "$PKI/admin.crt" \
    --key "$PKI/admin.key" "$server/readyz" || die "kube-apiserver did not come back after a restart"
  log "kube-apiserver restarted (down $(( $(date +%s) - t0 ))s, ${down}s of them stopped): $server"
}

cri_line() { # TEXT -> one CRI log line (kubelet's on-disk format)
  printf '%s stdout F %s\n' "$(date -u +%Y-%m-%dT%H:%M:%S.%NZ)" "$1"
}

case "$cmd" in
  up) cluster_up ;;
  down)
    rm -f "$DIR/env"
    if stop_all; then log "down: no process left ($DIR)"; else die "down: processes survived in $DIR"; fi ;;
  env) [ -f "$DIR/env" ] || die "no cluster is up in $DIR (run: $0 up $DIR)"; cat "$DIR/env" ;;
  run)
    [ "${1:-}" = -- ] && shift
    [ $# -gt 0 ] || usage
    rc=0; TFJOB_REALAPI_OWNER_PID=$$ bash "$0" up "$DIR" || rc=$?
    [ "$rc" = 0 ] || exit "$rc"
    trap 'bash "$0" down "$DIR"' EXIT INT TERM
    set -a; . "$DIR/env"; set +a
    "$@" ;;
  with)
    [ "${1:-}" = -- ] && shift
    [ $# -gt 0 ] || usage
    if [ ! -f "$DIR/env" ]; then
      tfjob_skip_recorded "$DIR/skip-reason" "no realapi cluster"
      die "no realapi cluster is up in $DIR (run: $0 up $DIR)"
    fi
    [ -f "$DIR/stopped" ] && die "the realapi cluster is gone: $(cat "$DIR/stopped")"
    set -a; . "$DIR/env"; set +a
    exec "$@" ;;
  log)
    [ $# -ge 4 ] || usage
    ns=$1 pod=$2 c=$3; shift 3
    mkdir -p "$KLOGS"
    for line in "$@"; do cri_line "$line"; done >>"$KLOGS/${ns}_${pod}_${c}.log" ;;
  previous-log)
    [ $# -ge 4 ] || usage
    ns=$1 pod=$2 c=$3; shift 3
    mkdir -p "$KLOGS"
    for line in "$@"; do cri_line "$line"; done >>"$KLOGS/${ns}_${pod}_${c}.previous.log" ;;
  cert)
    [ $# -ge 4 ] || usage
    [ -f "$PKI/$2.key" ] || die "no CA $2 in $PKI (is the cluster up?)"
    mkcert "$@" ;;
  restart-apiserver) restart_apiserver "${1:-3}" ;;
  exit)
    [ $# -eq 3 ] || usage
    touch "$KLOGS/$1_$2_$3.log" "$KLOGS/$1_$2_$3.exited" ;;
  _watchdog)
    owner=$1 ttl=$2 end=$(( $(date +%s) + $2 ))
    while [ "$(date +%s)" -lt "$end" ]; do
      if [ "$owner" != 0 ] && ! kill -0 "$owner" 2>/dev/null; then break; fi
      sleep 2
    done
    log "watchdog: owner $owner gone or TTL ${ttl}s passed; stopping the cluster in $DIR"
    echo "stopped by the watchdog at $(date -u +%FT%TZ): owner $owner gone or TTL ${ttl}s passed" >"$DIR/stopped"
    stop_all self ;;
  *) usage ;;
esac
