#!/usr/bin/env bash
# <tfjob/src.hpp> (the SDK's bodies for TFJOB_SDK_COMPILED) must include every public header
# under include/tfjob/, or a header's bodies are compiled nowhere and its functions fail to link
# in compiled programs. Also the layout of detail/compiled.hpp: a header that has bodies
# includes <tfjob/detail/compiled.hpp>, guards its section with its directory's area, has no
# inline function above it, and its section is one line, the #include of its sibling
# impl/<stem>_inl.hpp (CLI11's layout), where the bodies are; every impl file belongs to its
# header and is included by nothing else; a virtual function with its body in impl/ is declared
# TFJOB_INLINE in its class (else it is the class's key function, emitted by every file).
#   sdk_src_headers.sh SOURCE_DIR
set -euo pipefail
cd "$1/include"
src=tfjob/src.hpp
fail=0
while IFS= read -r h; do
  case $h in tfjob/src.hpp | tfjob/tfjob.hpp | tfjob/detail/compiled.hpp) continue ;; esac
  grep -qxF "#include <$h>" "$src" || { echo "$src does not include <$h>: add it to the list there"; fail=1; }
  grep -q '^#if TFJOB_SDK_DEFINE_' "$h" || continue
  grep -qxF '#include <tfjob/detail/compiled.hpp>' "$h" ||
    { echo "$h has an area section but does not include <tfjob/detail/compiled.hpp>"; fail=1; }
  # a non-template body above the section would be compiled in every file again
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
  impl="$(dirname "$h")/impl/$(basename "$h" .hpp)_inl.hpp"
  section=$(awk '/^#if TFJOB_SDK_DEFINE_/ { s = 1; next } s && /^#endif/ { exit } s' "$h")
  if [ "$section" != "#include <$impl>" ]; then
    echo "$h: its section must hold only '#include <$impl>' (the bodies live there, so the header reads as its interface)"; fail=1
  elif [ ! -f "$impl" ]; then
    echo "$h includes <$impl>, which does not exist"; fail=1
  fi
  # a virtual function whose body is in impl/ must be declared TFJOB_INLINE in its class: else it
  # is the class's key function (Itanium ABI) and header-only every file that includes the header
  # emits the vtable and every override, optimized (BENCHMARKS.md, "Compile time")
  awk -v F="$h" '{ line = $0; sub(/\/\/.*/, "", line); stmt = stmt " " line }
      line ~ /[;{}][[:space:]]*$/ {
        if (stmt ~ /[^A-Za-z_](override|virtual)[^A-Za-z_]/ && stmt ~ /\)[^;{]*;/ && stmt !~ /[{]/ &&
            stmt !~ /= *(0|default|delete) *;/ && stmt !~ /TFJOB_INLINE/) {
          print F ":" NR ": a virtual function declared without TFJOB_INLINE, so header-only it is its class'"'"'s key function (declare it TFJOB_INLINE)"; bad = 1 }
        stmt = "" }
      END { exit bad }' "$h" || fail=1
  # a body: TFJOB_INLINE, or a JSON converter's TFJOB_JSON_FN with its braces
  if grep -qE '^(TFJOB_INLINE |TFJOB_JSON_FN .*\{)' "$h"; then
    echo "$h: a function body outside its impl file: $(grep -nE '^(TFJOB_INLINE |TFJOB_JSON_FN .*\{)' "$h" | head -1)"; fail=1
  fi
done < <(find tfjob -name '*.hpp' -not -path '*/impl/*' | sort)
while IFS= read -r impl; do
  owner="$(dirname "$(dirname "$impl")")/$(basename "$impl" _inl.hpp).hpp"
  users=$(grep -rlxF "#include <$impl>" tfjob | sort | tr '\n' ' ')
  [ "$users" = "$owner " ] || { echo "$impl must be included by $owner alone (is by: ${users:-nothing})"; fail=1; }
done < <(find tfjob -path '*/impl/*_inl.hpp' | sort)
while IFS= read -r inc; do
  [ -f "$inc" ] || { echo "$src includes <$inc>, which does not exist"; fail=1; }
done < <(sed -n 's/^#include <\(tfjob\/.*\)>$/\1/p' "$src")
n=$(find tfjob -name '*.hpp' -not -path '*/impl/*' | wc -l)
[ "$fail" = 0 ] && echo "ok: $src includes all $((n - 3)) headers (every one but itself, tfjob.hpp and compiled.hpp); $(find tfjob -path '*/impl/*_inl.hpp' | wc -l) keep their bodies in impl/"
exit "$fail"
