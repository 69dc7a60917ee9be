#!/bin/sh
# A client-go credential plugin for tests. Behaviour comes from its environment (the
# kubeconfig's exec.env sets these):
#   EXEC_TOKEN_FILE    print the token read from this file (re-read on every run)
#   EXEC_CERT_FILE / EXEC_KEY_FILE  print a client certificate and key instead
#   EXEC_EXPIRY_SECONDS  add expirationTimestamp = now + N seconds
#   EXEC_COUNT_FILE    append one line per run (tests count the runs)
#   EXEC_INFO_FILE     write KUBERNETES_EXEC_INFO and EXEC_MARK there
#   EXEC_API_VERSION   apiVersion to print (default: the one asked in KUBERNETES_EXEC_INFO)
#   EXEC_FAIL          print this on stderr and exit 3
set -eu
if [ -n "${EXEC_COUNT_FILE:-}" ]; then echo run >> "$EXEC_COUNT_FILE"; fi
if [ -n "${EXEC_INFO_FILE:-}" ]; then
  printf '%s\n%s\n%s\n' "${KUBERNETES_EXEC_INFO:-}" "${EXEC_MARK:-}" "$*" > "$EXEC_INFO_FILE"
fi
if [ -n "${EXEC_FAIL:-}" ]; then echo "$EXEC_FAIL" >&2; exit 3; fi
api="${EXEC_API_VERSION:-}"
if [ -z "$api" ]; then
  api=$(printf '%s' "${KUBERNETES_EXEC_INFO:-}" | sed -n 's/.*"apiVersion":"\([^"]*\)".*/\1/p')
fi
expiry=""
if [ -n "${EXEC_EXPIRY_SECONDS:-}" ]; then
  ts=$(date -u -d "@$(( $(date +%s) + EXEC_EXPIRY_SECONDS ))" +%Y-%m-%dT%H:%M:%SZ)
  expiry=",\"expirationTimestamp\":\"$ts\""
fi
json_escape() { sed -e ':a' -e 'N' -e '$!ba' -e 's/\n/\\n/g' "$1"; }
if [ -n "${EXEC_CERT_FILE:-}" ]; then
  cert=$(json_escape "$EXEC_CERT_FILE")
  key=$(json_escape "$EXEC_KEY_FILE")
  printf '{"apiVersion":"%s","kind":"ExecCredential","status":{"clientCertificateData":"%s\\n","clientKeyData":"%s\\n"%s}}\n' \
    "$api" "$cert" "$key" "$expiry"
else
  token=$(cat "$EXEC_TOKEN_FILE")
  printf '{"apiVersion":"%s","kind":"ExecCredential","status":{"token":"%s"%s}}\n' "$api" "$token" "$expiry"
fi
