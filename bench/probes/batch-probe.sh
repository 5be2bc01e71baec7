#!/usr/bin/env bash
# Where do the remaining timing misses of 20 to 25 us kernels come from: the number of launches in
# a sample (a bracket of events costs a fixed amount beyond its launches, so a kernel whose one
# probe launch falls on either side of 25 us gets 2 or 3 launches per sample and a different
# share of it), or where its buffers lie?
# 1. build/gpu/bench/probes/bb_batch_probe (bench/probes/batch_probe.cu) twice: brackets of 1 to 16 launches.
# 2. The default suite six times (two databases of three runs) in each setting, alternating:
#    the files' setting; --min-sample-us 200; --placements 4; both. Then bench/timing_stability.py
#    on each database.
# usage (on a GPU machine, after scripts/gpu-check.sh probes): bench/probes/batch-probe.sh;
# the CSVs, databases and stability.txt go to $OUT/batch-probe.tgz.
set -uo pipefail
cd "$(dirname "$0")/../.."
o="${OUT:-probe-out}/bp"
p=build/gpu/bench/probes/bb_batch_probe
b=build/gpu/bankbench
[ -x "$p" ] && [ -x "$b" ] || { echo "batch-probe.sh: no $p or $b; run scripts/gpu-check.sh probes first" >&2; exit 2; }
mkdir -p "$o"
for i in 1 2; do "$p" > "$o/batch-$i.csv"; echo "batch probe $i rc=$?"; done
grep fit "$o"/batch-*.csv
declare -A opts=([files]="" [s200]="--min-sample-us 200" [p4]="--placements 4" [s200p4]="--min-sample-us 200 --placements 4")
for db in 1 2; do
  for i in 1 2 3; do
    for name in files s200 p4 s200p4; do
      # shellcheck disable=SC2086 # the options are words
      /usr/bin/time -f "$name db $db run $i: wall %e s" "$b" --db "$o/$name-$db.sqlite" -q run ${opts[$name]} experiments \
        > /dev/null 2> "$o/$name-$db-$i.log"
      echo "rc=$? $(grep wall "$o/$name-$db-$i.log")"
    done
  done
done
for name in files s200 p4 s200p4; do
  for db in 1 2; do
    echo "== $name, database $db" >> "$o/stability.txt"
    python3 bench/timing_stability.py "$o/$name-$db.sqlite" >> "$o/stability.txt" 2>&1
  done
done
cat "$o/stability.txt"
(cd "$o" && tar czf ../batch-probe.tgz ./*.csv ./*.sqlite ./*.log stability.txt) && rm -rf "$o"
