#!/usr/bin/env bash
# One device call: build, every test, the default suite (timed, with memory), the transpose
# bandwidth file, and the Nsight Compute parity benchmark; everything lands in one archive under
# $OUT (the device tool brings back only a few files).
# usage: scripts/gpu-session.sh [no-parity | parity-only | stability]
# stability: main, then the suite twice more into the same database, and the spread of the three
# runs' medians for kernels over 20 us.
set -uo pipefail
cd "$(dirname "$0")/.."
final="${OUT:-gpu-session-out}"
export OUT="$final/w"
mkdir -p "$OUT"
b=build/gpu/bankbench
if [ "${1:-}" = parity-only ]; then
  bash scripts/gpu-check.sh parity > "$OUT/gpu-check.txt" 2>&1 # builds, then bench/ncu_parity.py
  cp "$OUT/parity/summary.md" "$final/parity-summary.md" 2>/dev/null
  set -- no-parity
else
  bash scripts/gpu-check.sh main > "$OUT/gpu-check.txt" 2>&1
  if [ "${1:-}" = stability ]; then
    for i in 2 3; do "$b" --db "$OUT/gpu-check.sqlite" -q run experiments > /dev/null 2>&1; done
    python3 bench/timing_stability.py "$OUT/gpu-check.sqlite" > "$OUT/stability.txt" 2>&1
    cp "$OUT/stability.txt" "$final/"
    set -- no-parity
  fi
  "$b" --db "$OUT/wide.sqlite" run experiments/transpose/wide.yaml > "$OUT/wide.txt" 2>&1
  for cc in once none; do
    "$b" --db "$OUT/cc-$cc.sqlite" -q run --cache-control "$cc" experiments > /dev/null 2> "$OUT/cc-$cc.log"
  done
fi
if [ "${1:-}" != no-parity ]; then
  python3 bench/ncu_parity.py --bankbench "$b" --out "$OUT/parity" > "$OUT/parity.txt" 2>&1
  cp "$OUT/parity/summary.md" "$final/parity-summary.md" 2>/dev/null
fi
cp "$OUT/gpu-check.txt" "$final/"
tar czf "$final/all.tgz" -C "$final" w && rm -rf "$final/w"
cat "$final/gpu-check.txt" | tail -60
head -40 "$final/parity-summary.md" 2>/dev/null
