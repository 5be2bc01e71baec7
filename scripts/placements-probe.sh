#!/usr/bin/env bash
# Does the convolution experiment meet the 2 % timing target with more placements, now that
# buffers come from the pool? The default suite six times (two databases of three runs) with
# experiments/convolution/convolution.yaml at N placements of 3 samples each (default N = 16), then
# bench/timing_stability.py on each database. On an H200 the n = 1024 convolutions walking columns
# ran at levels from 20.3 to 22.5 us by instance, each instance at its level in every sample.
# usage (on a GPU machine, after scripts/gpu-check.sh build): scripts/placements-probe.sh [N];
# the databases, logs and stability.txt go to $OUT/placements-probe.tgz.
set -uo pipefail
cd "$(dirname "$0")/.."
n="${1:-16}"
o="${OUT:-probe-out}/pp"
b=$PWD/build/gpu/bankbench
[ -x "$b" ] || { echo "placements-probe.sh: no $b; run scripts/gpu-check.sh build first" >&2; exit 2; }
mkdir -p "$o"
cp -r experiments "$o/"
sed -i "s/^  samples: 20\$/  samples: $((3 * n))/; s/^  placements: 3\$/  placements: $n/" "$o/experiments/convolution/convolution.yaml"
grep -A4 '^repeat' "$o/experiments/convolution/convolution.yaml"
for db in 1 2; do
  for i in 1 2 3; do
    (cd "$o" && "$b" --db "t$db.sqlite" -q run experiments > /dev/null 2> "run-$db-$i.log")
    echo "database $db run $i rc=$?"; grep -h "resources" "$o/run-$db-$i.log"
  done
  echo "== database $db" >> "$o/stability.txt"
  python3 bench/timing_stability.py "$o/t$db.sqlite" >> "$o/stability.txt" 2>&1
done
cat "$o/stability.txt"
(cd "$o" && tar czf ../placements-probe.tgz ./*.sqlite ./*.log stability.txt) && rm -rf "$o"
