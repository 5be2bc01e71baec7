#!/usr/bin/env bash
# results_bench.sh [BANKBENCH]: time compare, regress and merge on two generated databases of about
# one million metric rows each (bench/make_results_db.sh) and print the figures. Targets: compare
# and regress under 1 s, merge of the two under 10 s. A benchmark, not a test: nothing fails.
# BANKBENCH defaults to the newest build/*/bankbench; REPEAT (default 3) runs of each, best kept.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$(ls -t "$root"/build*/bankbench 2>/dev/null | head -1 || true)}
[ -x "$bin" ] || { echo "results_bench: no bankbench binary; build first or pass its path" >&2; exit 2; }
repeat=${REPEAT:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

seconds() { # the best wall time of $repeat runs of "$@", in seconds (exit status ignored)
  local best="" t0 t1 t
  for _ in $(seq "$repeat"); do
    t0=$(date +%s.%N)
    "$@" >/dev/null 2>&1 || true
    t1=$(date +%s.%N)
    t=$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')
    if [ -z "$best" ] || awk -v t="$t" -v b="$best" 'BEGIN { exit !(t < b) }'; then best=$t; fi
  done
  printf '%.3f' "$best"
}

echo "generating two databases (bench/results_db.sql) in $work ..." >&2
t0=$(date +%s.%N)
"$root/bench/make_results_db.sh" "$work/a.sqlite" lab-a 0
"$root/bench/make_results_db.sh" "$work/b.sqlite" lab-b 1
gen=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')
rows=$(sqlite3 "$work/a.sqlite" "SELECT count(*) FROM metrics")
runs=$(sqlite3 "$work/a.sqlite" "SELECT count(*) FROM runs")
# The newest H200 run of transpose, and the one of the same experiment 30 runs before it.
new=$(sqlite3 "$work/a.sqlite" "SELECT max(r.id) FROM runs r JOIN gpus g ON g.id = r.gpu_id
                                WHERE r.experiment_name = 'transpose' AND g.name = 'NVIDIA H200'")
old=$(sqlite3 "$work/a.sqlite" "SELECT min(r.id) FROM runs r JOIN gpus g ON g.id = r.gpu_id
                                WHERE r.experiment_name = 'transpose' AND g.name = 'NVIDIA H200'")
a=(--db "$work/a.sqlite")

printf 'machine: %s, %s cores; %s\n' "$(uname -m)" "$(nproc)" "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
printf 'database: %s metric rows, %s runs each (generated in %.1f s for two)\n\n' "$rows" "$runs" "$gen"
printf '%-58s %8s  %s\n' "command" "seconds" "target"
row() { printf '%-58s %8s  %s\n' "$1" "$2" "$3"; }
row "compare runs $old $new" "$(seconds "$bin" "${a[@]}" compare runs "$old" "$new")" "< 1"
row "compare gpus transpose" "$(seconds "$bin" "${a[@]}" compare gpus transpose)" "< 1"
row "compare variants $new" "$(seconds "$bin" "${a[@]}" compare variants "$new")" "< 1"
row "regress --baseline $old --candidate $new" "$(seconds "$bin" "${a[@]}" regress --baseline "$old" --candidate "$new")" "< 1"
row "regress --baseline latest --candidate $new" "$(seconds "$bin" "${a[@]}" regress --baseline latest --candidate "$new")" "< 1"
"$bin" "${a[@]}" baseline save bench "$old" >/dev/null
row "regress --baseline bench (a saved baseline)" "$(seconds "$bin" "${a[@]}" regress --baseline bench --candidate "$new")" "< 1"
merge_once() { rm -f "$work/all.sqlite"*; "$bin" merge "$work/a.sqlite" "$work/b.sqlite" --into "$work/all.sqlite"; }
row "merge a.sqlite b.sqlite --into all.sqlite (new)" "$(seconds merge_once)" "< 10"
merge_once >/dev/null
row "the same merge again (adds nothing)" "$(seconds "$bin" merge "$work/a.sqlite" "$work/b.sqlite" --into "$work/all.sqlite")" "< 10"
echo
echo "merged: $(sqlite3 "$work/all.sqlite" "SELECT count(*) FROM metrics") metric rows, $(sqlite3 "$work/all.sqlite" "SELECT count(*) FROM runs") runs"
