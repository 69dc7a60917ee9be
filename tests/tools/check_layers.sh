#!/usr/bin/env bash
# The SDK's include graph against the layers the README documents. The README's sentence
# "Layers depend downwards only: `plugin/commands` → `serving` → ... → `detail`" is the
# rule: a header of include/tfjob/<area>/ may include its own area and the areas to the
# right of its own, never one to its left or beside it. Also, as the README says:
#  - `kube/` knows no TFJob beyond resource_traits: of api/ it includes the Kubernetes objects
#    (api/meta.hpp, api/k8s/), and only kube/tfjob_resource.hpp includes the rest;
#  - the SDK never includes the plugin's or the tests' headers ("..." includes).
# the root headers (error.hpp, setting.hpp, version.hpp) sit with detail/; kube/detail/ is
# kube's, local/detail/ local's;
# the umbrellas tfjob.hpp and src.hpp include everything.
#   check_layers.sh SOURCE_DIR           check the tree; prints "ok: ..." or each offending include
#   check_layers.sh --plant SOURCE_DIR   check a copy with violations planted: passes only when
#                                        every planted one (and nothing else) is reported
set -euo pipefail

if [ "${1:-}" = --plant ]; then
  src=$2
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  cp -r "$src/include" "$src/README.md" "$tmp/"
  # api/ reaching up to kube/, workflow/ beside itself to gpu/, kube/ naming a TFJob type,
  # and the SDK including a plugin header
  echo '#include <tfjob/kube/client.hpp>' >>"$tmp/include/tfjob/api/types.hpp"
  echo '#include <tfjob/gpu/check.hpp>' >>"$tmp/include/tfjob/workflow/status.hpp"
  echo '#include <tfjob/api/types.hpp>' >>"$tmp/include/tfjob/kube/watch.hpp"
  echo '#include "common/context.hpp"' >>"$tmp/include/tfjob/serving/status.hpp"
  set +e
  out=$(bash "$0" "$tmp" 2>&1)
  rc=$?
  set -e
  want=$'tfjob/api/types.hpp includes <tfjob/kube/client.hpp>: api may include only api, detail
tfjob/kube/watch.hpp includes <tfjob/api/types.hpp>: kube knows no TFJob beyond resource_traits (of api/ it includes the Kubernetes objects, api/meta.hpp and api/k8s/; only kube/tfjob_resource.hpp the rest)
tfjob/serving/status.hpp includes "common/context.hpp": the SDK includes no plugin or test header
tfjob/workflow/status.hpp includes <tfjob/gpu/check.hpp>: workflow may include only workflow, kube, api, detail'
  if [ "$rc" -ne 0 ] && [ "$(grep -v '^FAILED' <<<"$out" | sort)" = "$want" ]; then
    echo "ok: the planted violations were each reported, and nothing else"
    exit 0
  fi
  echo "the layer check did not report exactly the planted violations (exit $rc); it said:"
  echo "$out"
  exit 1
fi

src=$1
readme="$src/README.md"
# The layer sentence: from "Layers depend downwards only" to the end of its paragraph.
line=$(awk '/^Layers depend downwards only/ { on = 1 } on && /^$/ { exit } on { printf "%s ", $0 }' "$readme")
[ -n "$line" ] || { echo "README.md has no \"Layers depend downwards only: ...\" sentence to check against"; exit 1; }
# groups of `area` names between arrows, left (top) to right (bottom)
declare -A rank
groups=()
n=0
while IFS= read -r group; do
  areas=$(grep -o '`[^`]*`' <<<"$group" | tr -d '`' | tr '\n' ' ')
  [ -n "$areas" ] || continue
  groups+=("$areas")
  for a in $areas; do rank[$a]=$n; done
  n=$((n + 1))
done < <(sed 's/\.[[:space:]].*//' <<<"${line#*:}" | sed 's/→/\n/g')
[ "${#groups[@]}" -ge 3 ] || { echo "README.md's layer sentence names fewer than 3 layers: $line"; exit 1; }

cd "$src/include"
area_of() {  # the layer a header belongs to
  case $1 in
    tfjob/detail/* | tfjob/impl/*) echo detail ;;  # impl/: the root headers' bodies
    tfjob/*/*) local d=${1#tfjob/}; echo "${d%%/*}" ;;
    tfjob/*) echo detail ;;  # error.hpp, setting.hpp, version.hpp
    *) echo "" ;;
  esac
}
fail=0
report() { echo "$1"; fail=1; }
while IFS= read -r h; do
  case $h in tfjob/tfjob.hpp | tfjob/src.hpp) continue ;; esac
  a=$(area_of "$h")
  [ -n "${rank[$a]+x}" ] || { report "$h: its area \"$a\" is not in README.md's layer sentence"; continue; }
  while IFS= read -r inc; do
    case $inc in
      \"*) report "$h includes $inc: the SDK includes no plugin or test header"; continue ;;
    esac
    i=${inc#<}; i=${i%>}
    b=$(area_of "$i")
    [ -n "$b" ] || continue
    [ "$a" = "$b" ] && continue
    if [ -z "${rank[$b]+x}" ] || [ "${rank[$b]}" -le "${rank[$a]}" ]; then
      allowed="$a"
      for ((k = rank[$a] + 1; k < n; k++)); do allowed+=", $(sed 's/ *$//; s/ /, /g' <<<"${groups[$k]}")"; done
      report "$h includes $inc: $a may include only $allowed"
    elif [ "$a" = kube ] && [ "$b" = api ] && [ "$h" != tfjob/kube/tfjob_resource.hpp ] &&
      [ "$i" != tfjob/api/meta.hpp ] && [[ "$i" != tfjob/api/k8s/* ]]; then
      report "$h includes $inc: kube knows no TFJob beyond resource_traits (of api/ it includes the Kubernetes objects, api/meta.hpp and api/k8s/; only kube/tfjob_resource.hpp the rest)"
    fi
  done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*\([<"][^>"]*[>"]\).*/\1/p' "$h" | grep -E '^"|^<tfjob/')
done < <(find tfjob -name '*.hpp' | sort)
if [ "$fail" = 0 ]; then
  picture=""
  for g in "${groups[@]}"; do picture+="${picture:+ → }$(sed 's/ *$//; s/ /, /g' <<<"$g")"; done
  echo "ok: $(find tfjob -name '*.hpp' | wc -l) headers keep the layers of README.md: $picture"
else
  echo "FAILED: the includes above break README.md's layers ($line)"
fi
exit "$fail"
