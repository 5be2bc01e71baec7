#!/usr/bin/env bash
# Two open questions of the convolution experiment, in one device call:
# 1. Counters: why bankbench reads other conflict counts than Nsight Compute at n = 1024 (and
#    scatters more between its own runs). Over the 12 convolution configurations: ncu with the
#    four l1tex counters alone, 3 runs with --cache-control all and 2 with none; bankbench
#    --no-timing 3 times as it is and under each BANKBENCH_PROBE setting (read by executor.cpp at
#    the commit that added this script only: nopre, flush2, sleep), and twice each with
#    --cache-control once and none.
# 2. Timing: the default suite three times with the convolution experiment at 3 placements of 20
#    samples (as committed), 8 of 40 and 16 of 48, twice over (two databases per setting), for
#    bench/timing_stability.py.
# usage (on a GPU machine, after scripts/gpu-check.sh build): scripts/convolution-probe.sh;
# everything goes to $OUT/convolution-probe.tgz.
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH=/usr/local/cuda/bin:$PATH
o="${OUT:-probe-out}/c"
b=$PWD/build/gpu/bankbench
[ -x "$b" ] || { echo "convolution-probe.sh: no $b; run scripts/gpu-check.sh build first" >&2; exit 2; }
mkdir -p "$o/conv"
cp experiments/convolution/convolution.yaml "$o/conv/"
phase() { echo "$(date -u +%H:%M:%S) $*" | tee -a "$o/phases.txt"; }

hw=l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum
hw=$hw,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
phase "ncu"
for i in 1 2 3; do
  for cc in all none; do
    [ "$cc" = none ] && [ "$i" = 3 ] && continue
    ncu --metrics "$hw" --csv --print-units base --cache-control "$cc" --clock-control none --nvtx \
      --nvtx-include bankbench-measure/ "$b" --db "$o/target.sqlite" -q run --launch-once --no-isolation "$o/conv" \
      > "$o/ncu-$cc-$i.csv" 2> "$o/ncu-$cc-$i.err"
    echo "ncu $cc $i rc=$?"
  done
done
phase "bankbench"
for i in 1 2 3; do
  for v in base nopre flush2 sleep; do
    BANKBENCH_PROBE=$v "$b" --db "$o/bb-$v.sqlite" -q run --no-timing "$o/conv" > /dev/null 2>> "$o/bb.err"
    echo "bankbench $v $i rc=$?"
  done
done
for i in 1 2; do
  for cc in once none; do
    "$b" --db "$o/bb-cc-$cc.sqlite" -q run --no-timing --cache-control "$cc" "$o/conv" > /dev/null 2>> "$o/bb.err"
    echo "bankbench cache-control $cc $i rc=$?"
  done
done

phase "timing"
for v in p3 p8 p16; do mkdir -p "$o/$v" && cp -r experiments "$o/$v/"; done
sed -i 's/^  samples: 20$/  samples: 40/; s/^  placements: 3$/  placements: 8/' "$o/p8/experiments/convolution/convolution.yaml"
sed -i 's/^  samples: 20$/  samples: 48/; s/^  placements: 3$/  placements: 16/' "$o/p16/experiments/convolution/convolution.yaml"
grep -A3 '^repeat' "$o"/p*/experiments/convolution/convolution.yaml
for db in 1 2; do
  for i in 1 2 3; do
    for v in p3 p8 p16; do
      (cd "$o/$v" && "$b" --db "t$db.sqlite" -q run experiments > /dev/null 2>> run.err)
      echo "suite $v db $db run $i rc=$?"
    done
  done
done
for v in p3 p8 p16; do
  for db in 1 2; do
    echo "== $v database $db" >> "$o/stability.txt"
    python3 bench/timing_stability.py "$o/$v/t$db.sqlite" >> "$o/stability.txt" 2>&1
  done
done
phase "done"
cat "$o/stability.txt"
(cd "$o" && tar czf ../convolution-probe.tgz phases.txt ./*.csv ./*.err ./bb-*.sqlite stability.txt p*/t*.sqlite p*/run.err)
rm -rf "$o"
