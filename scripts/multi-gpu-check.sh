#!/usr/bin/env bash
# On a machine with several GPUs (issue: run the suite across several GPUs of one host): build for
# sm_90, run the default suite on one GPU and with `run --devices all`, and compare: every
# configuration once, requests and wavefronts equal to the one-GPU run, timing medians against
# their spread, the wall time of each against (one-GPU time / N) (target: within 1.25x); then the
# fault experiment with --devices all --spread variant, so each faulting variant is pinned to one
# GPU, next to the transpose experiment: the faults must cost their own configurations only.
# usage: scripts/multi-gpu-check.sh [EXPERIMENTS...] (default: experiments/). Writes $OUT (or
# ./multi-gpu-out): the databases, logs, and multi-gpu.md, the dated result to commit as
# docs/measurements/<date>-<gpu>-multi-gpu.md. Set BB_BUILD=build/gpu to reuse a build there.
set -uo pipefail
cd "$(dirname "$0")/.."
out="${OUT:-multi-gpu-out}"
mkdir -p "$out"
export PATH=/usr/local/cuda/bin:$PATH
inputs=("$@")
[ ${#inputs[@]} -gt 0 ] || inputs=(experiments)
build="${BB_BUILD:-build/gpu}"

extra=()
if [ -f .deps/include/sqlite3.h ] && [ ! -f /usr/include/sqlite3.h ]; then
  extra+=(-DSQLite3_INCLUDE_DIR="$PWD/.deps/include" -DSQLite3_LIBRARY="$(ls /usr/lib/x86_64-linux-gnu/libsqlite3.so.0)")
fi
[ -d .deps/include/valijson ] && extra+=(-DVALIJSON_INCLUDE_DIR="$PWD/.deps/include")
echo "== build ($build)"
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 "${extra[@]}" \
  >"$out/build.log" 2>&1 && cmake --build "$build" -j "$(nproc)" --target bankbench bankbench_faults >>"$out/build.log" 2>&1 ||
  { tail -30 "$out/build.log"; exit 1; }
bb="$build/bankbench"
faults="$build/tests/bankbench_faults"
if ! command -v sqlite3 >/dev/null && [ -x .deps/bin/sqlite3 ]; then # staged by scripts/stage-build-deps.sh
  export PATH="$PWD/.deps/bin:$PATH"
fi
command -v sqlite3 >/dev/null || { echo "multi-gpu-check.sh: needs sqlite3 (scripts/stage-build-deps.sh stages one)" >&2; exit 1; }

n=$(nvidia-smi -L | grep -c '^GPU ')
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "== $n x $gpu"
one="$out/one.sqlite"
all="$out/all.sqlite"
rm -f "$one"* "$all"* "$out/faults.sqlite"*

timed() { # label, log, command...: runs it, prints and returns its wall time in seconds
  local label=$1 log=$2
  shift 2
  local t0 t1
  t0=$(date +%s.%N)
  "$@" >"$log.out" 2>"$log.err"
  local rc=$?
  t1=$(date +%s.%N)
  local s
  s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
  echo "$label: exit $rc, $s s" >&2
  echo "$s"
}
one_s=$(timed "one GPU" "$out/one" "$bb" --db "$one" run --device 0 "${inputs[@]}")
all_s=$(timed "--devices all" "$out/all" "$bb" --db "$all" run --devices all "${inputs[@]}")

q() { sqlite3 "$1" "$2"; }
counters="SELECT r.experiment_name || ' ' || c.variant || ' ' || c.params_json, m.name, m.value FROM configurations c
  JOIN runs r ON r.id = c.run_id JOIN metrics m ON m.configuration_id = c.id WHERE m.derived = 0 AND
  (m.name LIKE 'l1tex__data_pipe_lsu_wavefronts_mem_shared%' OR m.name LIKE 'smsp__sass_inst_executed_op_shared%')
  ORDER BY 1, 2, m.launch_index"
configs_one=$(q "$one" 'SELECT count(*) FROM configurations')
configs_all=$(q "$all" 'SELECT count(*) FROM configurations')
distinct_all=$(q "$all" 'SELECT count(*) FROM (SELECT DISTINCT r.experiment_name, c.variant, c.params_json
  FROM configurations c JOIN runs r ON r.id = c.run_id)')
counter_rows=$(q "$one" "$counters" | wc -l)
# Requests must be equal; wavefronts move between any two runs of one binary by lost arbitration,
# so they are compared as wavefronts per request against the regression gate's minimum effect
# (0.05 per request, or 1 %), with the largest difference shown.
per_request="SELECT r.experiment_name || ' ' || c.variant || ' ' || c.params_json || ' ' || m.name, avg(m.value)
  FROM configurations c JOIN runs r ON r.id = c.run_id JOIN metrics m ON m.configuration_id = c.id
  WHERE m.derived = 1 AND (m.name LIKE '%_requests' OR m.name LIKE '%_wavefronts_per_request')
  AND m.name NOT LIKE 'predicted_%' GROUP BY 1"
q "$one" "$per_request" | LC_ALL=C sort -t "|" -k1,1 >"$out/one.per_request"
q "$all" "$per_request" | LC_ALL=C sort -t "|" -k1,1 >"$out/all.per_request"
read -r requests_compared requests_differ wf_compared wf_beyond wf_max < <(LC_ALL=C join -t '|' "$out/one.per_request" "$out/all.per_request" |
  awk -F'|' '{ a = $2; b = $3; d = a - b; if (d < 0) d = -d
    if ($1 ~ /_requests$/) { rc++; if (d != 0) rd++ }
    else { wc++; lim = 0.05; if (0.01 * a > lim) lim = 0.01 * a; if (d > lim) wb++; if (d > wm) wm = d } }
    END { printf "%d %d %d %d %.4f\n", rc, rd, wc, wb, wm }')
ok_one=$(q "$one" "SELECT count(*) FROM configurations WHERE status = 'ok'")
ok_all=$(q "$all" "SELECT count(*) FROM configurations WHERE status = 'ok'")
per_gpu=$(q "$all" "SELECT g.name || ' ' || g.uuid || ': ' || count(c.id) FROM runs r JOIN gpus g ON g.id = r.gpu_id
  JOIN configurations c ON c.run_id = r.id GROUP BY g.uuid ORDER BY g.uuid")
# Medians: the ratio all/one per configuration, and how many differ by more than the larger spread.
sqlite3 "$all" "ATTACH '$one' AS one" "CREATE TEMP TABLE ratios AS SELECT ta.median_ns / t1.median_ns AS ratio,
  max(ta.spread, t1.spread) AS spread FROM configurations ca JOIN runs ra ON ra.id = ca.run_id JOIN timings ta ON
  ta.configuration_id = ca.id JOIN one.configurations c1 ON c1.variant = ca.variant AND c1.params_json = ca.params_json
  JOIN one.runs r1 ON r1.id = c1.run_id AND r1.experiment_name = ra.experiment_name JOIN one.timings t1 ON
  t1.configuration_id = c1.id" \
  "SELECT count(*), printf('%.3f', min(ratio)), printf('%.3f', max(ratio)), sum(abs(ratio - 1) > spread) FROM ratios" \
  >"$out/medians.txt"
IFS='|' read -r timed_n ratio_min ratio_max beyond_spread <"$out/medians.txt"
target=$(awk -v t="$one_s" -v n="$n" 'BEGIN { printf "%.1f", 1.25 * t / n }')
meets=$(awk -v a="$all_s" -v t="$target" 'BEGIN { print (a <= t) ? 1 : 0 }')

faults_s=$(timed "faults, --devices all --spread variant" "$out/faults" "$faults" --db "$out/faults.sqlite" run \
  --devices all --spread variant --time-limit 8 tests/data/faults/faults.yaml experiments/transpose/transpose.yaml)
fault_rows=$(q "$out/faults.sqlite" "SELECT r.experiment_name || ' ' || c.status || ' ' || count(*) FROM configurations c
  JOIN runs r ON r.id = c.run_id GROUP BY r.experiment_name, c.status ORDER BY 1")
fault_gpus=$(q "$out/faults.sqlite" "SELECT c.variant || ' on ' || group_concat(DISTINCT g.uuid) FROM configurations c
  JOIN runs r ON r.id = c.run_id JOIN gpus g ON g.id = r.gpu_id WHERE c.family = 'faulty' GROUP BY c.variant")

{
  echo "# $(date -u +%F): the default suite on $n x $gpu, one GPU against \`run --devices all\`"
  echo
  echo "Made by \`scripts/multi-gpu-check.sh\` at commit ${BB_GIT_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo "?")}."
  echo
  echo "| | one GPU (\`--device 0\`) | \`--devices all\` ($n GPUs) |"
  echo "|---|---|---|"
  echo "| wall time | $one_s s | $all_s s (target <= 1.25 x one / $n = $target s: $([ "$meets" = 1 ] && echo met || echo missed)) |"
  echo "| configurations stored | $configs_one | $configs_all ($distinct_all distinct) |"
  echo "| status ok | $ok_one | $ok_all |"
  echo
  echo "Counters ($counter_rows raw values in the one-GPU run): requests of $requests_compared (configuration, kind) pairs,"
  echo "$requests_differ differ; wavefronts per request of $wf_compared pairs, $wf_beyond differ by more than the"
  echo "regression gate's minimum effect (0.05 per request or 1 %), the largest difference $wf_max."
  echo
  echo "Timing medians, --devices all / one GPU, over $timed_n configurations: from $ratio_min to $ratio_max;"
  echo "$beyond_spread differ by more than the larger of the two (max - min) / median spreads."
  echo
  echo "Configurations per GPU:"
  echo
  echo '```'
  echo "$per_gpu"
  echo '```'
  echo
  echo "Faults ($faults_s s): tests/data/faults/faults.yaml with experiments/transpose/transpose.yaml, \`--devices all"
  echo "--spread variant\` (each faulting variant on one GPU). Statuses per experiment, then the GPU of each faulty variant:"
  echo
  echo '```'
  echo "$fault_rows"
  echo "$fault_gpus"
  echo '```'
} >"$out/multi-gpu.md"
cat "$out/multi-gpu.md"
dest="docs/measurements/$(date -u +%F)-$(echo "$gpu" | tr 'A-Z ' 'a-z-' | tr -cd 'a-z0-9-')-multi-gpu.md"
cp "$out/multi-gpu.md" "$dest" && echo "written to $dest and $out/multi-gpu.md" >&2
