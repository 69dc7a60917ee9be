#!/usr/bin/env bash
# <tfjob/src.hpp> (the SDK's bodies for TFJOB_SDK_COMPILED) must include every header under
# include/tfjob/, or a header's bodies are compiled nowhere and its functions fail to link in
# compiled programs. Also: every header whose bodies sit in an area section includes
# <tfjob/detail/compiled.hpp> (else TFJOB_SDK_DEFINE_* is undefined there and reads as 0), has
# no inline function above its section, and guards its section with its directory's area.
#   sdk_src_headers.sh SOURCE_DIR
set -euo pipefail
cd "$1/include"
src=tfjob/src.hpp
fail=0
while IFS= read -r h; do
  case $h in tfjob/src.hpp | tfjob/tfjob.hpp | tfjob/detail/compiled.hpp) continue ;; esac
  grep -qxF "#include <$h>" "$src" || { echo "$src does not include <$h>: add it to the list there"; fail=1; }
  if grep -q '^#if TFJOB_SDK_DEFINE_' "$h" && ! grep -qxF '#include <tfjob/detail/compiled.hpp>' "$h"; then
    echo "$h has an area section but does not include <tfjob/detail/compiled.hpp>"; fail=1
  fi
  # the convention (detail/compiled.hpp): a non-template body above the section would be
  # compiled in every file again; the section is the header's own area's
  awk -v F="$h" 'BEGIN { sec = 0 } /^#if TFJOB_SDK_DEFINE_/ { sec = 1 }
      sec == 0 && /^ *inline / && !/inline constexpr/ && prev !~ /template/ {
        print F ":" NR ": an inline function above the area section (declare it; define it in the section, TFJOB_INLINE)"; bad = 1 }
      { prev = $0 } END { exit bad }' "$h" || fail=1
  case $h in
    tfjob/api/*) area=API ;; tfjob/kube/*) area=KUBE ;; tfjob/gpu/*) area=GPU ;; tfjob/local/*) area=LOCAL ;;
    tfjob/serving/*) area=SERVING ;; tfjob/workflow/*) area=WORKFLOW ;; *) area=CORE ;;
  esac
  if grep '^#if TFJOB_SDK_DEFINE_' "$h" | grep -qv "^#if TFJOB_SDK_DEFINE_${area}\$"; then
    echo "$h: its section must be #if TFJOB_SDK_DEFINE_${area} (the area of its directory)"; fail=1
  fi
done < <(find tfjob -name '*.hpp' | sort)
while IFS= read -r inc; do
  [ -f "$inc" ] || { echo "$src includes <$inc>, which does not exist"; fail=1; }
done < <(sed -n 's/^#include <\(tfjob\/.*\)>$/\1/p' "$src")
[ "$fail" = 0 ] && echo "ok: $src includes all $(( $(find tfjob -name "*.hpp" | wc -l) - 3 )) headers (every one but itself, tfjob.hpp and compiled.hpp)"
exit "$fail"
