#!/usr/bin/env bash
# make_results_db.sh FILE [HOST] [DAY]: write a generated results database of about one million
# metric rows (bench/results_db.sql says what is in it). HOST and DAY make databases that hold
# different runs, for merge. Needs the sqlite3 shell.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
file=${1:?usage: make_results_db.sh FILE [HOST] [DAY]}
host=${2:-lab-a}
day=${3:-0}
rm -f "$file" "$file-wal" "$file-shm"
{
  echo ".parameter init"
  echo ".parameter set @host '$host'"
  echo ".parameter set @day $day"
  echo "BEGIN;"
  cat "$root/schemas/store.sql" "$root/bench/results_db.sql"
  echo "COMMIT;"
} | sqlite3 -bail "$file"
