#!/usr/bin/env bash
# Which part of Nsight Compute's bank_conflicts set lowers the conflict counts it reads? Over the
# colsum, reduction and layout experiments (where ncu's whole set read 1.6 to 3 % fewer conflicts
# than its four l1tex counters alone): ncu once without --csv (its pass count per kernel), then
# three runs of each metric list below, and bankbench three times with the whole set and three
# times with the l1tex counters alone. Launch i of every ncu run is configuration i of the suite.
# usage (on a GPU machine, after scripts/gpu-check.sh build): bench/probes/sass-pass-probe.sh; the CSVs
# and databases go to $OUT/sass-pass.tgz.
set -uo pipefail
cd "$(dirname "$0")/../.."
export PATH=/usr/local/cuda/bin:$PATH
o="${OUT:-probe-out}/s"
mkdir -p "$o/suite" "$o/suite-hw"
b=build/gpu/bankbench
[ -x "$b" ] || { echo "sass-pass-probe.sh: no $b; run scripts/gpu-check.sh build first" >&2; exit 2; }
cp experiments/colsum/colsum.yaml experiments/reduction/reduction.yaml experiments/layout/layout.yaml "$o/suite/"
sass=smsp__sass_inst_executed_op_shared_ld.sum,smsp__sass_inst_executed_op_shared_st.sum
hw=l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum
hw=$hw,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
for f in "$o"/suite/*.yaml; do
  sed "s/^metrics: bank_conflicts/metrics: [${hw//,/, }]/" "$f" > "$o/suite-hw/$(basename "$f")"
done
grep -h "^metrics" "$o"/suite-hw/*.yaml | sort -u
ncu_run() { # name metrics [csv]
  local extra=(--csv --print-units base)
  [ "${3:-csv}" = csv ] || extra=()
  ncu --metrics "$2" "${extra[@]}" --clock-control none --nvtx --nvtx-include bankbench-measure/ \
    "$b" --db "$o/t.sqlite" -q run --launch-once --no-isolation "$o/suite" > "$o/ncu-$1.csv" 2>"$o/ncu-$1.err"
  echo "ncu $1 rc=$?"
}
ncu_run passes-full "$sass,$hw,gpu__time_duration.sum" plain
ncu_run passes-hw-sass "$sass,$hw" plain
grep -ho "[0-9]* passes" "$o/ncu-passes-full.csv" | sort | uniq -c
grep -ho "[0-9]* passes" "$o/ncu-passes-hw-sass.csv" | sort | uniq -c
for i in 1 2 3; do
  ncu_run "full-$i" "$sass,$hw,gpu__time_duration.sum"
  ncu_run "hw-$i" "$hw"
  ncu_run "hw-sass-$i" "$sass,$hw"
  ncu_run "hw-sassld-$i" "smsp__sass_inst_executed_op_shared_ld.sum,$hw"
  ncu_run "hw-sassglobal-$i" "smsp__sass_inst_executed_op_global_ld.sum,$hw"
  ncu_run "hw-time-$i" "$hw,gpu__time_duration.sum"
  "$b" --db "$o/bb-full.sqlite" -q run --no-timing "$o/suite" >/dev/null 2>>"$o/bb.err"; echo "bb full $i rc=$?"
  "$b" --db "$o/bb-hw.sqlite" -q run --no-timing "$o/suite-hw" >/dev/null 2>>"$o/bb.err"; echo "bb hw $i rc=$?"
done
(cd "$o" && tar czf "../sass-pass.tgz" ./*.csv ./*.err bb-full.sqlite bb-hw.sqlite)
