#!/usr/bin/env bash
# Do the medians of short kernels (20 to 25 us) agree better between runs when each
# configuration's samples span a longer time? The default suite three times each with 20 samples
# (the files' setting), --samples 100 and --samples 400, alternating, each into its own database,
# then bench/timing_stability.py on each. A kernel under 50 us is timed in batches of about 50 us
# per sample, so 20 samples span about 1 ms of GPU time, 400 about 20 ms.
# usage (on a GPU machine, after scripts/gpu-check.sh build): scripts/window-probe.sh;
# the databases and stability.txt go to $OUT/window-probe.tgz.
set -uo pipefail
cd "$(dirname "$0")/.."
o="${OUT:-probe-out}/wp"
b=build/gpu/bankbench
[ -x "$b" ] || { echo "window-probe.sh: no $b; run scripts/gpu-check.sh build first" >&2; exit 2; }
mkdir -p "$o"
for i in 1 2 3; do
  for s in 20 100 400; do
    opt=()
    [ "$s" = 20 ] || opt=(--samples "$s")
    /usr/bin/time -f "samples $s run $i: wall %e s" "$b" --db "$o/s$s.sqlite" -q run "${opt[@]}" experiments \
      > /dev/null 2> "$o/s$s-$i.log"
    echo "samples $s run $i rc=$?"; grep "wall" "$o/s$s-$i.log"
  done
done
for s in 20 100 400; do
  echo "== samples $s" >> "$o/stability.txt"
  python3 bench/timing_stability.py "$o/s$s.sqlite" >> "$o/stability.txt" 2>&1
done
cat "$o/stability.txt"
(cd "$o" && tar czf ../window-probe.tgz ./*.sqlite ./*.log stability.txt) && rm -rf "$o"
