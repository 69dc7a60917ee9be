#!/usr/bin/env bash
# Rebuilds BENCHMARKS.md from bench/results/: the introduction (_intro.md), then each
# benchmark's section as its script (or its author, for the GPU) last wrote it.
#   bash bench/assemble.sh
set -euo pipefail
cd "$(dirname "$0")/.."
{
  cat bench/results/_intro.md
  for f in kube workflow logs memory submit-many scale local realnode edge gpu compile test-time-parts test-time; do
    [ -f "bench/results/$f.md" ] || continue
    echo
    # each result file starts with a level-1 or level-2 title; BENCHMARKS.md nests them at level 2
    sed '1s/^# /## /' "bench/results/$f.md"
  done
} >BENCHMARKS.md
echo "BENCHMARKS.md: $(wc -l <BENCHMARKS.md) lines from bench/results/" >&2
