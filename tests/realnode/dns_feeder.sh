#!/usr/bin/env bash
# Cluster DNS records for the real node: regenerates dnsmasq's hosts file from the Services
# and their Endpoints on every change (a watch), then signals dnsmasq to re-read it. The
# records are CoreDNS's kubernetes plugin's A records: a ClusterIP service's name gives its
# cluster IP, a headless one's gives each ready endpoint address
# (github.com/coredns/coredns plugin/kubernetes; the DNS spec in kubernetes/dns
# docs/specification.md, "A/AAAA Records").
#   dns_feeder.sh DIR KUBECONFIG HOSTS DNSMASQ-PIDFILE    (started by node.sh, in the netns)
set -euo pipefail
DIR=$1 KC=$2 HOSTS=$3 PIDFILE=$4
KUBECTL=${TFJOB_KUBECTL:-kubectl}
k() { "$KUBECTL" --kubeconfig "$KC" --context realapi-cert "$@"; }
regen() {
  local svcs eps
  svcs=$(k get services -A -o json) || return 0
  eps=$(k get endpoints -A -o json) || return 0
  jq -rn --argjson s "$svcs" --argjson e "$eps" '
    ($e.items | map({key: "\(.metadata.namespace)/\(.metadata.name)", value: [.subsets[]?.addresses[]?.ip]}) | from_entries) as $ep
    | $s.items[] | "\(.metadata.name).\(.metadata.namespace).svc" as $n
    | (if .spec.clusterIP == "None" then ($ep["\(.metadata.namespace)/\(.metadata.name)"] // [])[] else .spec.clusterIP end)
    | "\(.) \($n).cluster.local \($n)"' >"$HOSTS.tmp"
  if ! cmp -s "$HOSTS.tmp" "$HOSTS"; then
    mv "$HOSTS.tmp" "$HOSTS"
    [ -s "$PIDFILE" ] && kill -HUP "$(cat "$PIDFILE")" 2>/dev/null || true
  fi
}
regen
# every endpoints change (services come with theirs) triggers a full regeneration; the watch
# is restarted when the server ends it
while true; do
  k get endpoints -A --watch-only -o name 2>/dev/null | while read -r _; do regen; done
  sleep 1
done
