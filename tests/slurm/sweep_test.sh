#!/usr/bin/env bash
# A real Slurm for `bankbench slurm`: munged, slurmctld and slurmd started here as root without
# systemd (proctrack/linuxproc, no accounting, four GPUs as GRES on character devices made with
# mknod, so Slurm sets CUDA_VISIBLE_DEVICES per task), a 4-task array over the model backend and
# its merge job. Task 2 is cancelled (scancel) after storing its shard and before its marker:
# the task's shell passes the SIGTERM on and marks it stopped with the stand-in's exit code 143;
# status must name it so and give the resubmit command; the resubmit must complete the sweep with
# every configuration exactly once. Every daemon is stopped by its pid when the test ends.
# Exit 77 (ctest SKIP_RETURN_CODE) where it cannot run: not root, or Slurm or munge not installed.
# While task 2 is held, status must show it running (from squeue) and offer no resubmit.
# Usage: sweep_test.sh BANKBENCH SOURCE_DIR
set -euo pipefail
bb=$1
src=$2
export PATH="$PATH:/usr/sbin:/sbin"

skip() { echo "SKIPPED: $*"; exit 77; }
[ "$(id -u)" -eq 0 ] || skip "needs root to start munged, slurmctld and slurmd"
for b in munged slurmctld slurmd sbatch squeue scancel sinfo setpriv sqlite3 mknod; do
  command -v "$b" >/dev/null || skip "$b is not installed (scripts/install-deps.sh installs slurm-wlm and munge)"
done
id munge >/dev/null 2>&1 || skip "no munge user (package munge)"

t0=$SECONDS
work=$(mktemp -d /tmp/bankbench-slurm.XXXXXX)
chmod 711 "$work"
pids=()
cleanup() {
  local rc=$?
  if [ -n "${SLURM_CONF:-}" ] && [ "${#pids[@]}" -ge 3 ]; then # jobs of this test's own cluster, before its daemons
    timeout 5 scancel --full --signal=KILL -u root 2>/dev/null || true
    for _ in $(seq 50); do [ -z "$(timeout 2 squeue -h -o %i 2>/dev/null)" ] && break; sleep 0.1; done
  fi
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do
    for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$p" 2>/dev/null || true
  done
  if [ "$rc" -ne 0 ] && [ "$rc" -ne 77 ]; then
    for f in "$work"/log/* "$work"/munge/log "$work"/sweep/logs/*; do [ -f "$f" ] && { echo "== $f"; tail -n 30 "$f"; }; done
  fi
  rm -rf "$work"
  exit "$rc"
}
trap cleanup EXIT
fail() { # the daemons' and tasks' last words go with the failure
  echo "FAILED: $*" >&2
  for f in "${work:-/nonexistent}"/log/* "${work:-/nonexistent}"/sweep/logs/*; do
    [ -f "$f" ] && { echo "--- $f" >&2; tail -n 8 "$f" >&2; }
  done
  exit 1
}

# munge, on a socket of its own so that nothing else on the machine is touched
mkdir -p "$work/munge" "$work/socket" "$work/log" "$work/state" "$work/spool" "$work/dev"
dd if=/dev/urandom of="$work/munge/key" bs=1024 count=1 status=none
chown -R munge:munge "$work/munge" "$work/socket"
chmod 700 "$work/munge"
chmod 755 "$work/socket" # munged wants its socket's folder open to every user
chmod 400 "$work/munge/key"
setpriv --reuid=munge --regid=munge --clear-groups /usr/sbin/munged -F --socket="$work/socket/munge" \
  --key-file="$work/munge/key" --pid-file="$work/munge/pid" --log-file="$work/munge/log" \
  --seed-file="$work/munge/seed" >"$work/log/munged.log" 2>&1 &
pids+=($!)

for i in 0 1 2 3; do mknod "$work/dev/nvidia$i" c 1 3; done
port=$((20000 + RANDOM % 20000))
node=bbnode$$
cat > "$work/slurm.conf" <<CONF
ClusterName=bankbench
SlurmctldHost=$(hostname -s)(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
AuthType=auth/munge
AuthInfo=socket=$work/socket/munge
CredType=cred/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
MpiDefault=none
ReturnToService=2
SchedulerType=sched/backfill
SchedulerParameters=sched_interval=1
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool/%n
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.log
SlurmdParameters=config_overrides
GresTypes=gpu
KillWait=10
NodeName=$node NodeHostname=$(hostname -s) NodeAddr=127.0.0.1 CPUs=8 Gres=gpu:fake:4 State=UNKNOWN
PartitionName=test Nodes=$node Default=YES MaxTime=INFINITE State=UP
CONF
echo "NodeName=$node Name=gpu Type=fake File=$work/dev/nvidia[0-3]" > "$work/gres.conf"
export SLURM_CONF="$work/slurm.conf"

for _ in $(seq 50); do [ -S "$work/socket/munge" ] && break; sleep 0.1; done
[ -S "$work/socket/munge" ] || fail "munged did not start"
slurmctld -D -i -f "$SLURM_CONF" >"$work/log/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -N "$node" -f "$SLURM_CONF" >"$work/log/slurmd.out" 2>&1 &
pids+=($!)
for _ in $(seq 100); do
  [ "$(sinfo -h -o %t 2>/dev/null)" = idle ] && break
  sleep 0.2
done
[ "$(sinfo -h -o %t)" = idle ] || fail "the node is not idle: $(sinfo 2>&1)"
echo "slurm up after $((SECONDS - t0)) s"

files=("$src/experiments/transpose/transpose.yaml" "$src/experiments/transpose/tiles.yaml")
expected=$("$bb" run --dry-run --backend model "${files[@]}" | wc -l)
[ "$expected" -ge 8 ] || fail "expected a suite of 8 or more configurations, got $expected"

# The binary the tasks run: task 2's first attempt stores its shard, then hangs until cancelled.
cat > "$work/bankbench" <<WRAP
#!/bin/bash
"$bb" "\$@"
rc=\$?
if [ "\${SLURM_ARRAY_TASK_ID:-}" = 2 ] && mkdir "$work/task2-held" 2>/dev/null; then sleep 300; fi
exit \$rc
WRAP
chmod 755 "$work/bankbench"

wait_idle() { # every job of the sweep ended
  for _ in $(seq 300); do [ -z "$(squeue -h -o %i 2>/dev/null)" ] && return 0; sleep 0.2; done
  fail "jobs still queued: $(squeue 2>&1)"
}

sweep="$work/sweep"
out=$("$bb" slurm submit --sweep "$sweep" --tasks 4 --throttle 4 --gres gpu:1 --backend model \
      --bankbench "$work/bankbench" "${files[@]}")
echo "$out"
array=$(sed -n 's/^submitted array job \([0-9]*\) .*/\1/p' <<<"$out")
[ -n "$array" ] || fail "no array job id in: $out"

for _ in $(seq 300); do
  [ -d "$work/task2-held" ] && [ -e "$sweep/markers/0.done" ] && [ -e "$sweep/markers/1.done" ] && \
    [ -e "$sweep/markers/3.done" ] && break
  sleep 0.2
done
[ -d "$work/task2-held" ] || fail "task 2 never started"
running=$("$bb" slurm status "$sweep" || true)
grep -Eq '^ +2  running ' <<<"$running" || fail "status does not show task 2 running: $running"
! grep -q 'slurm resubmit' <<<"$running" || fail "status offers to resubmit a running task: $running"
scancel "${array}_2"
wait_idle

set +e
status=$("$bb" slurm status "$sweep")
rc=$?
set -e
echo "$status"
[ "$rc" -eq 1 ] || fail "status of an incomplete sweep exited $rc, expected 1"
grep -Eq '^ +2  stopped +143 ' <<<"$status" || fail "status does not name task 2 as stopped with exit 143"
resubmit=$(grep -E '^  bankbench slurm resubmit ' <<<"$status" | sed 's/^  //')
[ "$resubmit" = "bankbench slurm resubmit $sweep --tasks 2" ] || fail "resubmit command: '$resubmit'"
merged="$sweep/merged.sqlite"
[ -f "$merged" ] || fail "the merge job wrote no $merged"
partial=$(sqlite3 "$merged" 'select count(*) from configurations')
[ "$partial" -lt "$expected" ] && [ "$partial" -gt 0 ] || fail "merge before the resubmit holds $partial of $expected"

eval "\"$bb\" ${resubmit#bankbench }"
wait_idle
"$bb" slurm status "$sweep" || fail "the sweep is not complete after the resubmit"

q() { sqlite3 "$merged" "$1"; }
total=$(q 'select count(*) from configurations')
distinct=$(q "select count(*) from (select distinct r.experiment_name, c.variant, c.params_json
                                    from configurations c join runs r on r.id = c.run_id)")
[ "$total" -eq "$expected" ] || fail "merged $total configurations, expected $expected"
[ "$distinct" -eq "$expected" ] || fail "$distinct distinct configurations of $expected: some twice"
bad=$(q "select count(*) from runs where slurm_job_id is null or slurm_array_task_id is null
         or shard is not slurm_array_task_id || '/4' or coalesce(cuda_visible_devices, '') not glob '[0-3]'")
[ "$bad" -eq 0 ] || fail "$bad run(s) without their Slurm job, task, share or CUDA_VISIBLE_DEVICES: $(q 'select id, slurm_job_id, slurm_array_task_id, shard, cuda_visible_devices from runs')"
tasks=$(q 'select count(distinct slurm_array_task_id) from runs')
[ "$tasks" -eq 4 ] || fail "runs from $tasks tasks, expected 4"
echo "PASSED: $expected configurations from 4 array tasks, once each; task 2 resubmitted; wall $((SECONDS - t0)) s"
