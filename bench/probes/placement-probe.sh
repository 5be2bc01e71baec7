#!/usr/bin/env bash
# Is the speed of a DRAM-bound kernel set by where its buffer lies, and does bankbench's buffer
# pool keep it the same from run to run?
# 1. build/gpu/bench/probes/bb_placement_probe (bench/probes/placement_probe.cu: an 8 GiB arena, a read of every
#    256 MiB chunk and a copy into the next): 4 plain processes, 2 after a 4 GiB cudaMalloc freed
#    again, 2 with it held, 2 with 64 MiB chunks, and from a pool that keeps freed memory mapped,
#    2 after 4 GiB and 2 after 8 GiB were freed into it.
# 2. The default suite three times with --allocator driver and three times with the pool (the
#    default), alternating, each into its own database, then bench/timing_stability.py on each.
# usage (on a GPU machine, after scripts/gpu-check.sh probes): bench/probes/placement-probe.sh [SUITE_RUNS];
# the CSVs, databases and stability.txt go to $OUT/placement-probe.tgz.
set -uo pipefail
cd "$(dirname "$0")/../.."
o="${OUT:-probe-out}/pl"
p=build/gpu/bench/probes/bb_placement_probe
b=build/gpu/bankbench
runs="${1:-3}"
[ -x "$p" ] && [ -x "$b" ] || { echo "placement-probe.sh: no $p or $b; run scripts/gpu-check.sh probes first" >&2; exit 2; }
mkdir -p "$o"
probe() { # name, then options
  local name=$1; shift
  "$p" "$@" > "$o/$name.csv"; echo "$name rc=$?"
}
for i in 1 2 3 4; do probe plain-$i; done
for i in 1 2; do probe freed-$i --before-mib 4096; done
for i in 1 2; do probe held-$i --before-mib 4096 --hold; done
for i in 1 2; do probe chunk64-$i --chunk-mib 64; done
for i in 1 2; do probe pool-freed4-$i --pool --before-mib 4096; done
for i in 1 2; do probe pool-freed8-$i --pool --before-mib 8192; done
for i in $(seq "$runs"); do
  for a in driver pool; do
    /usr/bin/time -f "suite $a $i: wall %e s, max RSS %M KB" "$b" --db "$o/$a.sqlite" run --allocator "$a" experiments \
      > /dev/null 2> "$o/suite-$a-$i.log"
    echo "suite $a $i rc=$?"; grep -E "resources|suite .*wall" "$o/suite-$a-$i.log"
  done
done
for a in driver pool; do
  echo "== --allocator $a" >> "$o/stability.txt"
  python3 bench/timing_stability.py "$o/$a.sqlite" >> "$o/stability.txt" 2>&1
done
cat "$o/stability.txt"
(cd "$o" && tar czf ../placement-probe.tgz ./*.csv ./*.sqlite ./*.log stability.txt) && rm -rf "$o"
