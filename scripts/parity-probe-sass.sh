#!/usr/bin/env bash
# Does the SASS metric change what Nsight Compute reads for the hardware counters? Over the colsum,
# layout, vector and reduction experiments: bench/ncu_parity.py (bankbench twice, ncu twice with
# the whole bank_conflicts set), then ncu twice more with the whole set and twice with the four
# l1tex counters alone (no smsp__sass_inst_executed_op_shared_*). Launch i of every ncu run is
# configuration i of parity.csv. usage (on a GPU machine, after scripts/gpu-check.sh build):
# scripts/parity-probe-sass.sh; the CSVs and parity.csv go to $OUT/pass.tgz.
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH=/usr/local/cuda/bin:$PATH
o="${OUT:-probe-out}/p"
mkdir -p "$o/suite"
b=build/gpu/bankbench
[ -x "$b" ] || { echo "parity-probe-sass.sh: no $b; run scripts/gpu-check.sh build first" >&2; exit 2; }
cp experiments/colsum/colsum.yaml experiments/layout/layout.yaml experiments/vector/vector.yaml \
  experiments/reduction/reduction.yaml "$o/suite/"
python3 bench/ncu_parity.py --bankbench "$b" --experiments "$o/suite" --out "$o/parity" --ncu-runs 2 > "$o/parity.txt" 2>&1
echo "parity rc=$?"
sass=smsp__sass_inst_executed_op_shared_ld.sum,smsp__sass_inst_executed_op_shared_st.sum
hw=l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum
hw=$hw,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
for i in 1 2; do
  for kind in full hw; do
    m=$hw
    [ "$kind" = full ] && m=$sass,$hw
    ncu --metrics "$m" --csv --print-units base --clock-control none --nvtx --nvtx-include bankbench-measure/ \
      "$b" --db "$o/t.sqlite" -q run --launch-once --no-isolation "$o/suite" > "$o/ncu-$kind-$i.csv" 2>/dev/null
    echo "ncu $kind $i rc=$?"
  done
done
(cd "$o" && tar czf "../pass.tgz" ./*.csv parity/parity.csv parity/summary.md parity.txt)
