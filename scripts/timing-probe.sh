#!/usr/bin/env bash
# Where do the between-process timing misses come from? The configurations that missed the 2 %
# stability target (the 256 MiB cudaMemcpyAsync; convolution at n = 1024 walking columns) in
# N separate processes (default 8), --no-counters. Every process times each convolution twice
# (two experiment names, fresh buffers, a 256 MiB copy between them) and the copy kernel and
# cudaMemcpyAsync at 256 MiB plus 0, 2, 4 and 6 MiB (per byte, to compare placements in one
# process). scripts/timing-probe-summary.py prints the spread within and between processes.
# usage (on a GPU machine, after scripts/gpu-check.sh build): scripts/timing-probe.sh [N [RUN OPTION...]]
# (e.g. 8 --samples 200, to see whether a slow configuration is slow in every sample);
# the databases and the summary go to $OUT/timing-probe.tgz.
set -uo pipefail
cd "$(dirname "$0")/.."
n="${1:-8}"
shift || true
o="${OUT:-probe-out}/t"
mkdir -p "$o/suite"
b=build/gpu/bankbench
[ -x "$b" ] || { echo "timing-probe.sh: no $b; run scripts/gpu-check.sh build first" >&2; exit 2; }
conv() {
  printf 'name: %s\ndescription: timing probe\nclaim: timing probe\nfamily: convolution\n' "$1"
  printf 'variants: [unpadded, padded]\naxes:\n  n: [1024]\n  walk: [columns]\nmetrics: bank_conflicts\n'
  printf 'repeat:\n  warmup: 3\n  samples: 20\nseed: 20261128\n'
}
conv convolution_a > "$o/suite/1-conv-a.yaml"
conv convolution_b > "$o/suite/3-conv-b.yaml"
cat > "$o/suite/2-reference.yaml" <<'YAML'
name: reference_placements
description: timing probe
claim: timing probe
family: reference
variants: [copy, memcpy]
axes:
  bytes: [268435456, 270532608, 272629760, 274726912]
metrics: bank_conflicts
repeat:
  warmup: 3
  samples: 20
seed: 20261125
YAML
for i in $(seq 1 "$n"); do
  "$b" --db "$o/p$i.sqlite" -q run --no-counters "$@" "$o/suite" > /dev/null 2>> "$o/stderr.txt"
  echo "process $i rc=$?"
done
python3 scripts/timing-probe-summary.py "$o"/p*.sqlite | tee "$o/summary.txt"
(cd "$o" && tar czf ../timing-probe.tgz ./*.sqlite summary.txt stderr.txt)
