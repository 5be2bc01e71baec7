#!/usr/bin/env bash
# Speed and scale of the GPU backend: a suite of COPIES copies of experiments/ (names suffixed
# _c1, _c2, ...) run on one GPU, on two and on every GPU of the host (1, 2, 4, 8 as there are), with
# timing and with counters alone (--no-timing), ROUNDS times in alternating order; then
# bench/scale_report.py writes the table: wall time and throughput against one GPU, where each
# worker's time went (start-up, configurations, per configuration: set-up, verification, counter
# pass, timing pass), the counter pass's parts summed over its groups, and the floor (the kernels'
# own GPU time times the passes their metric set needs).
# usage: bench/scale.sh [COPIES [ROUNDS]] (default 4 and 1). BB_BUILD: the build folder (default
# build/gpu; bankbench is built there for sm_90 when missing). Writes $OUT (or ./scale-out): the
# logs and scale.md; the suite and the databases go to $BB_SCALE_WORK (default /tmp/bankbench-scale).
set -uo pipefail
cd "$(dirname "$0")/.."
out="${OUT:-scale-out}"
copies="${1:-4}"
rounds="${2:-1}"
mkdir -p "$out"
export PATH=/usr/local/cuda/bin:$PATH
build="${BB_BUILD:-build/gpu}"
bb="$build/bankbench"

if [ ! -x "$bb" ]; then
  extra=()
  if [ -f .deps/include/sqlite3.h ] && [ ! -f /usr/include/sqlite3.h ]; then
    extra+=(-DSQLite3_INCLUDE_DIR="$PWD/.deps/include" -DSQLite3_LIBRARY="$(ls /usr/lib/x86_64-linux-gnu/libsqlite3.so.0)")
  fi
  [ -d .deps/include/valijson ] && extra+=(-DVALIJSON_INCLUDE_DIR="$PWD/.deps/include")
  echo "== build ($build)"
  t0=$(date +%s)
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 "${extra[@]}" \
    >"$out/build.log" 2>&1 && cmake --build "$build" -j "$(nproc)" --target bankbench >>"$out/build.log" 2>&1 ||
    { tail -30 "$out/build.log"; exit 1; }
  echo "built in $(($(date +%s) - t0)) s"
fi

work="${BB_SCALE_WORK:-/tmp/bankbench-scale}"
mkdir -p "$work"
suite="$work/suite"
rm -rf "$suite"
mkdir -p "$suite"
for k in $(seq 1 "$copies"); do
  cp -r experiments "$suite/copy$k"
  # Only the top-level name: a variant's `name:` is indented or inside a flow mapping.
  find "$suite/copy$k" -name '*.yaml' -exec sed -i "s/^name: *\\(.*\\)\$/name: \\1_c$k/" {} +
done

n=$(nvidia-smi -L | grep -c '^GPU ')
sets=("0")
[ "$n" -ge 2 ] && sets+=("0,1")
[ "$n" -ge 4 ] && sets+=("0,1,2,3")
[ "$n" -ge 8 ] && sets+=("all")
{
  date -u
  nvidia-smi --query-gpu=index,name,driver_version,clocks.sm,clocks.max.sm --format=csv
  nproc
  git rev-parse --short HEAD 2>/dev/null
} >"$out/machine.txt" 2>&1

# Source variants' kernels into the compile cache first, so no run pays for compiling them.
# (Exit 2 where an experiment cannot compile here, such as CuTe's without CUTLASS: runs skip those.)
"$bb" compile "$suite" >"$out/compile.log" 2>&1 || tail -3 "$out/compile.log"

echo "label devices gpus timing round wall_s rc" >"$out/walls.txt"
one() { # devices timing round
  local devices=$1 timing=$2 round=$3
  local gpus=$n
  [ "$devices" = all ] || gpus=$(echo "$devices" | tr -cd '0-9' | wc -c)
  local label="d$gpus-$timing-r$round"
  local db="$work/$label.sqlite"
  rm -f "$db"*
  local args=(run --devices "$devices")
  [ "$timing" = counters ] && args+=(--no-timing)
  local t0 t1 rc
  t0=$(date +%s.%N)
  "$bb" -vv --db "$db" "${args[@]}" "$suite" >"$work/$label.out" 2>"$out/$label.err"
  rc=$?
  t1=$(date +%s.%N)
  local s
  s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
  echo "$label $devices $gpus $timing $round $s $rc" >>"$out/walls.txt"
  echo "$label: $s s (exit $rc)"
}
for r in $(seq 1 "$rounds"); do
  order=("${sets[@]}")
  if [ $((r % 2)) -eq 0 ]; then # every other round the other way round
    order=()
    for ((i = ${#sets[@]} - 1; i >= 0; i--)); do order+=("${sets[i]}"); done
  fi
  for devices in "${order[@]}"; do
    one "$devices" full "$r"
    one "$devices" counters "$r"
  done
done
[ "$rounds" -gt 0 ] && python3 bench/scale_report.py "$out" "$work" | tee "$out/scale.md"
