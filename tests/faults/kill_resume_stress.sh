#!/usr/bin/env bash
# Kill a model-backend suite run N times at random moments (SIGKILL, SIGTERM or SIGHUP), resuming
# after each kill, until every run is complete; then check that every configuration is stored
# exactly once and that the database passes PRAGMA integrity_check. A fresh database is started
# when a suite completes before N kills. Usage: kill_resume_stress.sh BANKBENCH [KILLS] [WORKDIR]
set -euo pipefail
bin="$(realpath "$1")"
kills="${2:-50}"
work="${3:-$(mktemp -d)}"
mkdir -p "$work"
cd "$(dirname "$0")/../.."   # experiment files name no paths of their own; run from the source root

sizes=(700 500 300)          # three experiments of 3 * size configurations
make_suite() {
  rm -rf "$work/suite"
  mkdir -p "$work/suite"
  local i=0
  for s in "${sizes[@]}"; do
    {
      printf 'name: stress%d\ndescription: kill and resume\nfamily: transpose\nvariants: [naive, padded, swizzled]\naxes:\n  n: [' "$i"
      seq -s ', ' 1 "$s" | tr -d '\n'
      printf ']\n'
    } >"$work/suite/stress$i.yaml"
    i=$((i + 1))
  done
}

sql() { sqlite3 -batch -noheader "$1" "$2"; }

done_kills=0 rounds=0 resumes=0 starts=0
signals=(KILL TERM HUP)
declare -A by_signal=([KILL]=0 [TERM]=0 [HUP]=0)
while ((done_kills < kills)); do
  rounds=$((rounds + 1))
  db="$work/round$rounds.sqlite"
  rm -f "$db" "$db"-wal "$db"-shm
  make_suite
  while :; do
    # What is left: runs not completed, and experiments with no run yet.
    pending_runs=()
    files=()
    if [ -f "$db" ]; then
      mapfile -t pending_runs < <(sql "$db" "select id from runs where status != 'completed' order by id")
    fi
    for i in "${!sizes[@]}"; do
      if [ ! -f "$db" ] || [ -z "$(sql "$db" "select id from runs where experiment_name = 'stress$i'")" ]; then
        files+=("$work/suite/stress$i.yaml")
      fi
    done
    if ((${#pending_runs[@]} == 0 && ${#files[@]} == 0)); then break; fi
    if ((${#pending_runs[@]} > 0)); then
      args=(run --backend model --resume "${pending_runs[0]}")
      resumes=$((resumes + 1))
    else
      args=(run --backend model "${files[@]}")
      starts=$((starts + 1))
    fi
    CUDA_VISIBLE_DEVICES= "$bin" -q --db "$db" "${args[@]}" >/dev/null 2>>"$work/stderr.log" &
    pid=$!
    if ((done_kills < kills)); then
      sleep "0.$(printf '%03d' $((RANDOM % 400 + 20)))"
      sig="${signals[$((RANDOM % 3))]}"
      if kill -s "$sig" "$pid" 2>/dev/null; then
        done_kills=$((done_kills + 1))
        by_signal[$sig]=$((by_signal[$sig] + 1))
      fi
    fi
    set +e
    wait "$pid"
    rc=$?
    set -e
    case "$rc" in
      0 | 129 | 137 | 143) ;;
      *) echo "kill_resume_stress: bankbench ${args[*]} exited $rc; see $work/stderr.log" >&2; exit 1 ;;
    esac
  done
  # Every configuration once, every run complete, the file sound.
  for i in "${!sizes[@]}"; do
    want=$((3 * sizes[i]))
    got="$(sql "$db" "select count(*) || ' ' || count(distinct c.seq) || ' ' || min(r.status) from configurations c join runs r on r.id = c.run_id where r.experiment_name = 'stress$i'")"
    if [ "$got" != "$want $want completed" ]; then
      echo "kill_resume_stress: round $rounds stress$i: stored/distinct/status '$got', expected '$want $want completed'" >&2
      exit 1
    fi
  done
  runs="$(sql "$db" "select count(*) from runs")"
  [ "$runs" = "${#sizes[@]}" ] || { echo "kill_resume_stress: round $rounds has $runs runs" >&2; exit 1; }
  check="$(sql "$db" "pragma integrity_check")"
  [ "$check" = "ok" ] || { echo "kill_resume_stress: integrity_check: $check" >&2; exit 1; }
done
echo "kill_resume_stress: $done_kills kills (KILL ${by_signal[KILL]}, TERM ${by_signal[TERM]}, HUP ${by_signal[HUP]}), $starts starts, $resumes resumes, $rounds database(s): every configuration exactly once, integrity ok"
