#!/usr/bin/env bash
# Does the range profiler serialise across GPUs, and does one process holding every GPU's context
# escape it? bb_profiler_ceiling_probe (profiler_ceiling.cu) for 5 s each: one process with 1, 2
# and 4 threads (one GPU each), then 2 and 4 processes at once (one GPU each), twice.
# usage (on a machine with 4 GPUs, after scripts/gpu-check.sh probes): bench/probes/profiler-ceiling.sh;
# the output goes to $OUT/profiler-ceiling.txt. docs/measurements/2026-11-27-h100x4-profiler-ceiling.md
# holds what 4 x H100 gave.
set -uo pipefail
cd "$(dirname "$0")/../.."
o="${OUT:-probe-out}"
p=build/gpu/bench/probes/bb_profiler_ceiling_probe
[ -x "$p" ] || { echo "profiler-ceiling.sh: no $p; run scripts/gpu-check.sh probes first" >&2; exit 2; }
mkdir -p "$o"
r="$o/profiler-ceiling.txt"
{ date -u; nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader; nproc; } | tee "$r"
for round in 1 2; do
  for n in 1 2 4; do
    echo "== round $round: one process, $n thread(s)" | tee -a "$r"
    timeout 60 "$p" threads "$n" 5 2>&1 | tee -a "$r"
  done
  for n in 2 4; do
    echo "== round $round: $n processes, one GPU each" | tee -a "$r"
    for i in $(seq 0 $((n - 1))); do CUDA_VISIBLE_DEVICES=$i timeout 60 "$p" threads 1 5 > "$o/pc-$i.txt" 2>&1 & done
    wait
    cat "$o"/pc-*.txt | tee -a "$r"
    rm -f "$o"/pc-*.txt
  done
done
