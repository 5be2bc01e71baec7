#!/usr/bin/env bash
# Where do bankbench's and Nsight Compute's conflict counts part? Runs bench/ncu_parity.py over a
# subset of the suite (transposes, colsum, convolution, layout, vector: the configurations whose
# conflicts differed most) under several conditions, with an nvidia-smi clock trace alongside.
# usage (on a GPU machine, after scripts/gpu-check.sh build): scripts/parity-probe.sh; results in $OUT.
set -uo pipefail
cd "$(dirname "$0")/.."
out="${OUT:-probe-out}"
mkdir -p "$out"
b=build/gpu/bankbench
[ -x "$b" ] || { echo "parity-probe.sh: no $b; run scripts/gpu-check.sh build first" >&2; exit 2; }
suite="$out/suite"
mkdir -p "$suite"
cp experiments/transpose/tiles.yaml experiments/transpose/transpose.yaml experiments/transpose/wide.yaml \
  experiments/colsum/colsum.yaml experiments/convolution/convolution.yaml experiments/layout/layout.yaml \
  experiments/vector/vector.yaml "$suite/"
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_event_reasons.active \
  --format=csv,noheader -lms 50 > "$out/clocks.csv" 2>&1 &
smi=$!
phase() { echo "$(date -u +%H:%M:%S.%N | cut -c1-12) $*" | tee -a "$out/phases.txt"; }
parity() { # name, then ncu_parity.py options
  local name=$1; shift
  phase "begin $name"
  python3 bench/ncu_parity.py --bankbench "$b" --experiments "$suite" --out "$out/$name" "$@" > "$out/$name.txt" 2>&1
  phase "end $name rc=$?"
}
# Each variant: a BANKBENCH_PROBE setting, read by executor.cpp and run_session.cpp at commit 85f8b81
# only (later commits run every variant as base; check out 85f8b81 to repeat the probe)
# and how many runs of each tool. pre: an unprofiled launch of the same configuration before its
# flush and range; group1/group8: groups closed at 1 or 8 ranges; shift=N: N MiB held before any
# buffer (both tools' buffers move).
parity base --bankbench-runs 3 --ncu-runs 3
BANKBENCH_PROBE=pre parity pre --bankbench-runs 3 --ncu-runs 1
BANKBENCH_PROBE=group8 parity group8 --bankbench-runs 2 --ncu-runs 1
BANKBENCH_PROBE=group1 parity group1 --bankbench-runs 2 --ncu-runs 1
BANKBENCH_PROBE=shift=96 parity shift96 --bankbench-runs 2 --ncu-runs 2
BANKBENCH_PROBE=shift=1030 parity shift1030 --bankbench-runs 1 --ncu-runs 2
kill $smi
(cd "$out" && tar czf probe.tgz phases.txt clocks.csv ./*.txt ./*/parity.csv ./*/summary.md && find . -mindepth 1 -maxdepth 1 ! -name probe.tgz -exec rm -rf {} +)
