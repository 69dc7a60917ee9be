#!/usr/bin/env bash
# Kube benchmarks, in one run against the test API server (tests/support, served by
# kube-bench-server): a followed log stream of LOG_BYTES (default 1 GiB) through the SDK
# and through the real `kubectl logs -f`, and list + decode of PODS (default 5,000) pods
# through the SDK and `kubectl get pods -o json`. Prints a Markdown table.
#   bench/run.sh [BUILD_DIR]        (default: build; LOG_BYTES=… PODS=… REPEAT=… override)
set -euo pipefail
cd "$(dirname "$0")/.."
B=${1:-${BUILD_DIR:-build}}
LOG_BYTES=${LOG_BYTES:-1073741824}
PODS=${PODS:-5000}
REPEAT=${REPEAT:-3}
if [ ! -x "$B/bench/kube-bench" ] || [ ! -x "$B/bench/kube-bench-server" ]; then
  cmake --build "$B" --target kube-bench kube-bench-server >&2
fi
tmp=$(mktemp -d)
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT
"$B/bench/kube-bench-server" --log-bytes "$LOG_BYTES" --pods "$PODS" \
  --kubeconfig-out-logs "$tmp/logs.kubeconfig" --kubeconfig-out-list "$tmp/list.kubeconfig" >"$tmp/urls" &
server_pid=$!
for _ in $(seq 1 600); do
  [ "$(wc -l <"$tmp/urls")" -ge 2 ] && break
  sleep 0.1
done
[ "$(wc -l <"$tmp/urls")" -ge 2 ] || { echo "kube-bench-server did not start" >&2; exit 1; }

now() { date +%s.%N; }
rate() { awk -v b="$1" -v s="$2" 'BEGIN { printf "%.1f", b / s / 1e6 }'; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
best() { sort -g | head -1; }

have_kubectl=0
command -v kubectl >/dev/null 2>&1 && have_kubectl=1
export KUBECACHEDIR="$tmp/kubecache"

# ---- followed log stream -------------------------------------------------------------
t0=$(now)
sdk_bytes=$("$B/bench/kube-bench" logs --kubeconfig "$tmp/logs.kubeconfig" --pod bench-log 2>"$tmp/sdk-logs.err" | wc -c)
t1=$(now)
sdk_s=$(secs "$t0" "$t1")
kc_bytes=0; kc_s=0
if [ $have_kubectl = 1 ]; then
  t0=$(now)
  kc_bytes=$(kubectl --kubeconfig "$tmp/logs.kubeconfig" logs -f bench-log | wc -c)
  t1=$(now)
  kc_s=$(secs "$t0" "$t1")
fi

# ---- list + decode -------------------------------------------------------------------
sdk_list=(); sdk_print=(); kc_list=()
for _ in $(seq 1 "$REPEAT"); do
  t0=$(now); "$B/bench/kube-bench" list --kubeconfig "$tmp/list.kubeconfig" -n bench-list 2>>"$tmp/sdk-list.err"; t1=$(now)
  sdk_list+=("$(secs "$t0" "$t1")")
  t0=$(now); "$B/bench/kube-bench" list --print --kubeconfig "$tmp/list.kubeconfig" -n bench-list >/dev/null 2>>"$tmp/sdk-list.err"; t1=$(now)
  sdk_print+=("$(secs "$t0" "$t1")")
  if [ $have_kubectl = 1 ]; then
    t0=$(now); kubectl --kubeconfig "$tmp/list.kubeconfig" get pods -n bench-list -o json >"$tmp/kubectl-list.json"; t1=$(now)
    kc_list+=("$(secs "$t0" "$t1")")
  fi
done
sdk_list_best=$(printf '%s\n' "${sdk_list[@]}" | best)
sdk_print_best=$(printf '%s\n' "${sdk_print[@]}" | best)
items=$(sed -n 's/.*items=\([0-9]*\).*/\1/p' "$tmp/sdk-list.err" | head -1)

echo "| measurement | SDK (kubectl-tfjob) | kubectl $(kubectl version --client 2>/dev/null | sed -n 's/Client Version: //p' | head -1) | ratio SDK/kubectl |"
echo "|---|---|---|---|"
if [ $have_kubectl = 1 ]; then
  kc_items=$(python3 -c "import json,sys; print(len(json.load(open('$tmp/kubectl-list.json'))['items']))" 2>/dev/null || echo "?")
  kc_list_best=$(printf '%s\n' "${kc_list[@]}" | best)
  echo "| \`logs -f\` of $sdk_bytes bytes (kubectl: $kc_bytes) | $(rate "$sdk_bytes" "$sdk_s") MB/s ($sdk_s s) | $(rate "$kc_bytes" "$kc_s") MB/s ($kc_s s) | $(awk -v a="$sdk_bytes" -v b="$sdk_s" -v c="$kc_bytes" -v d="$kc_s" 'BEGIN { printf "%.2f", (a/b)/(c/d) }') |"
  echo "| list + decode $items pods (kubectl: $kc_items, \`get pods -o json\`) | $sdk_list_best s | $kc_list_best s | $(awk -v a="$sdk_list_best" -v b="$kc_list_best" 'BEGIN { printf "%.2f (time)", a/b }') |"
  echo "| list + decode + print JSON, $items pods | $sdk_print_best s | $kc_list_best s | $(awk -v a="$sdk_print_best" -v b="$kc_list_best" 'BEGIN { printf "%.2f (time)", a/b }') |"
else
  echo "| \`logs -f\` of $sdk_bytes bytes | $(rate "$sdk_bytes" "$sdk_s") MB/s ($sdk_s s) | kubectl not installed | |"
  echo "| list + decode $items pods | $sdk_list_best s | kubectl not installed | |"
  echo "| list + decode + print JSON | $sdk_print_best s | kubectl not installed | |"
fi
echo
echo "Times are wall-clock, best of $REPEAT for lists; both clients stream to a pipe (\`| wc -c\`)."
