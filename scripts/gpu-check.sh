#!/usr/bin/env bash
# On a GPU machine: build for sm_90, run every test (GPU tests included), run the transpose
# experiment and the default suite, and run compute-sanitizer over the GPU tests.
# usage: scripts/gpu-check.sh [all|main|sanitize|parity [OPTION...]|regress [OPTION...]|build|probes] (parity:
# bench/ncu_parity.py over the default suite, bankbench against Nsight Compute, with any further options
# passed to it; regress: bench/regress_noise.py, the regression gate's false alarms and planted
# regressions caught; neither is part of all. build: the build alone; probes: the build with the
# standalone probes of bench/probes/, -DBB_BUILD_PROBES=ON). Logs
# go to $OUT (or ./gpu-check-out). Where the build machine lacks the SQLite header or valijson, put
# them in .deps/include (scripts/stage-build-deps.sh does that on a machine that has them). Where the
# tree is a copy whose .git is not the commit it holds, set BB_GIT_COMMIT=<hash> so runs record it.
set -uo pipefail
cd "$(dirname "$0")/.."
phase="${1:-all}" # all | main (tests and measurements) | sanitize (compute-sanitizer only) | parity | regress | build | probes
shift || true
case "$phase" in all | main | sanitize | parity | regress | build | probes) ;; *) echo "gpu-check.sh: unknown phase '$phase'" >&2; exit 2 ;; esac
out="${OUT:-gpu-check-out}"
mkdir -p "$out"
export PATH=/usr/local/cuda/bin:$PATH
jobs=$(nproc)

extra=()
if [ -f .deps/include/sqlite3.h ] && [ ! -f /usr/include/sqlite3.h ]; then
  lib=$(ls /usr/lib/x86_64-linux-gnu/libsqlite3.so.0 2>/dev/null)
  extra+=(-DSQLite3_INCLUDE_DIR="$PWD/.deps/include" -DSQLite3_LIBRARY="$lib")
fi
[ -d .deps/include/valijson ] && extra+=(-DVALIJSON_INCLUDE_DIR="$PWD/.deps/include")
[ "$phase" = probes ] && extra+=(-DBB_BUILD_PROBES=ON)

{
  echo "== machine"; date -u; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv
  nvcc --version | tail -2; cmake --version | head -1; ncu --version 2>/dev/null | tail -1
} 2>&1 | tee "$out/build.log"

echo "== build"
t0=$(date +%s)
cmake -S . -B build/gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  "${extra[@]}" >>"$out/build.log" 2>&1 &&
  cmake --build build/gpu -j "$jobs" >>"$out/build.log" 2>&1
rc=$?
echo "build rc=$rc in $(( $(date +%s) - t0 )) s"; tail -30 "$out/build.log" | grep -E "error|FAILED|warning" | head -30
[ $rc -eq 0 ] || exit $rc
{ [ "$phase" = build ] || [ "$phase" = probes ]; } && exit 0

if [ "$phase" = regress ]; then
  echo "== the regression gate: false alarms on unchanged code, planted regressions (bench/regress_noise.py)"
  python3 bench/regress_noise.py --bankbench build/gpu/bankbench --out "$out/regress" "$@" 2>&1 | tail -60
  exit 0
fi
if [ "$phase" = parity ]; then
  echo "== counters and wall time against Nsight Compute (bench/ncu_parity.py)"
  python3 bench/ncu_parity.py --bankbench build/gpu/bankbench --out "$out/parity" "$@" 2>&1 | tail -40
  exit 0
fi
if [ "$phase" != sanitize ]; then
echo "== tests"
ctest --test-dir build/gpu --output-on-failure -j 4 >"$out/ctest.log" 2>&1
echo "ctest rc=$?"; grep -E "tests passed|tests failed|\*\*\*Failed|gpu_" "$out/ctest.log" | tail -20

echo "== transpose experiment"
rm -f results/gpu-check.sqlite*
bin=build/gpu/bankbench
/usr/bin/time -v "$bin" -v --db results/gpu-check.sqlite run experiments/transpose/transpose.yaml \
  >"$out/transpose.log" 2>&1
echo "run rc=$?"; grep -vE "^\s+(Page|Volun|Invol|Swaps|File|Socket|Signals|Exit|Minor|Major|Average|Percent|System|User|Command)" "$out/transpose.log"

echo "== default suite, timed"
/usr/bin/time -f "suite wall %e s, max RSS %M KB" "$bin" --db results/gpu-check.sqlite run experiments \
  >"$out/show.md" 2>"$out/suite.log"; echo "suite rc=$?"; grep -E "FAIL|failed|wrong|skipped|unsupported|configurations in|under 100|suite wall|resources" "$out/suite.log" | tail -40
"$bin" --db results/gpu-check.sqlite techniques -o "$out/techniques.md"; echo "techniques rc=$?"

echo "== the same experiment measured and predicted"
"$bin" -q --db results/gpu-check.sqlite run --backend model experiments/transpose/transpose.yaml >/dev/null 2>&1
"$bin" --db results/gpu-check.sqlite compare gpus transpose; echo "compare rc=$?"


echo "== timing stability: transpose twice more"
for i in 2 3; do "$bin" -q --db results/gpu-check.sqlite run experiments/transpose/transpose.yaml >/dev/null 2>&1; done
python3 - <<'PY'
import sqlite3, statistics
con = sqlite3.connect("results/gpu-check.sqlite")
rows = con.execute("select c.variant, c.params_json, t.median_ns from configurations c join runs r on r.id = c.run_id "
                   "join timings t on t.configuration_id = c.id where r.experiment_name = 'transpose'").fetchall()
by = {}
for v, p, m in rows: by.setdefault((v, p), []).append(m)
for k, ms in sorted(by.items()):
    if min(ms) > 20e3: print(f"{k[0]} {k[1]} medians us {[round(m/1e3,2) for m in ms]} spread {100*(max(ms)-min(ms))/min(ms):.2f}%")
PY

echo "== SASS: predicated shared accesses or branches?"
for f in reduction/sequential scan/blelloch scan/hillis_steele; do
  o=build/gpu/kernels/CMakeFiles/bb_kernels.dir/$f.cu.o
  echo "$f: $(cuobjdump -sass "$o" | grep -cE '@!?P[0-9T] +(LDS|STS)') predicated LDS/STS, $(cuobjdump -sass "$o" | grep -cE '@!?P[0-9T] +BRA') predicated BRA"
done

fi
if [ "$phase" != main ]; then
echo "== compute-sanitizer"
for tool in memcheck racecheck initcheck synccheck; do
  timeout 120 compute-sanitizer --tool "$tool" --error-exitcode 9 build/gpu/tests/bb_test_gpu \
    --gtest_filter='gpu_variants.small_problems*' >"$out/sanitizer-one.log" 2>&1
  echo "$tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/sanitizer-one.log" | tail -1)"
  cat "$out/sanitizer-one.log" >>"$out/sanitizer.log"
done
rm -f "$out/sanitizer-one.log"
fi
cp results/gpu-check.sqlite "$out/" 2>/dev/null
exit 0
