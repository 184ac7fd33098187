#!/usr/bin/env bash
# Scale-out on a real single-host Slurm: munge, slurmctld and slurmd started
# here (root only) with a private slurm.conf and four fake GPUs (so the
# scripts' --gpus-per-task=1 is scheduled as on a GPU cluster). A 4-task array
# of a tiny OpenMP sweep (slurm/submit.sh: array + dependent merge job) must
# merge to exactly the configs of an unsharded run; then a second array whose
# task 2 is cancelled mid-way: the merge reports shard 2 incomplete (exit 1),
# resubmitting only index 2 resumes it, and the merge completes with nothing
# lost and nothing duplicated. Skipped (a "# skipped:" line) where Slurm
# cannot be started. Prints "ok - ..." / "not ok - ...".
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
REPO=$PWD
skip() { echo "# skipped: $*"; exit 0; }
[ "$(id -u)" -eq 0 ] || skip "needs root to start munged, slurmctld and slurmd"
for c in munged slurmctld slurmd sbatch sinfo scancel sqlite3; do
    command -v $c >/dev/null 2>&1 || skip "$c not found (apt-get install munge slurmctld slurmd slurm-client sqlite3)"
done
[ -r /etc/munge/munge.key ] || skip "no /etc/munge/munge.key (the munge package creates it)"
test_dir slurm
mkdir -p "$T/state" "$T/spool" "$T/logs"
export HARNESS_CACHE=${HARNESS_CACHE:-$T/cache} OMP_NUM_THREADS=1
unset HARNESS_ROOT SLURM_ARRAY_TASK_ID SLURM_ARRAY_TASK_COUNT

# --- a private Slurm -------------------------------------------------------
port=$((20000 + RANDOM % 20000))
for i in 0 1 2 3; do touch "$T/fakegpu$i"; done
echo "Name=gpu File=$T/fakegpu[0-3]" >"$T/gres.conf"
cat >"$T/slurm.conf" <<CONF
ClusterName=harness-ci
SlurmctldHost=localhost
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
GresTypes=gpu
ReturnToService=2
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$T/slurmd.pid
SlurmctldLogFile=$T/slurmctld.log
SlurmdLogFile=$T/slurmd.log
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
MpiDefault=none
SchedulerParameters=sched_interval=1
# Time between scancel's SIGTERM and its SIGKILL: the task's script copies
# its shard out after the sweep stops, which on a loaded 2-core CI machine
# (four tests at once) took longer than the default 30 s (the shard was lost).
KillWait=120
NodeName=localhost CPUs=$(nproc) Gres=gpu:4 State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$T/slurm.conf
started_munge=0
stop_all() {
    for p in slurmd slurmctld; do
        [ -f "$T/$p.pid" ] && kill "$(cat "$T/$p.pid")" 2>/dev/null
    done
    [ $started_munge -eq 1 ] && [ -f /run/munge/munged.pid ] && kill "$(cat /run/munge/munged.pid)" 2>/dev/null
    sleep 1
}
trap stop_all EXIT
if ! pgrep -x munged >/dev/null; then
    mkdir -p /run/munge && chown munge:munge /run/munge 2>/dev/null
    (service munge start || munged --force) >"$T/munge.out" 2>&1 || skip "munged did not start: $(tail -1 "$T/munge.out")"
    started_munge=1
fi
slurmctld -f "$SLURM_CONF" >"$T/slurmctld.out" 2>&1 || skip "slurmctld did not start: $(tail -1 "$T/slurmctld.out")"
slurmd -f "$SLURM_CONF" -N localhost >"$T/slurmd.out" 2>&1 || skip "slurmd did not start: $(tail -1 "$T/slurmd.out")"
for _ in $(seq 60); do
    [ "$(sinfo -h -o %t 2>/dev/null)" = idle ] && break
    sleep 0.5
done
[ "$(sinfo -h -o %t 2>/dev/null)" = idle ] ||
    skip "the Slurm node did not become idle in 30 s (sinfo: $(sinfo -h -o '%t %E' 2>&1 | head -1))"
echo "# single-host Slurm up: $(sinfo -h -o '%P %t %c CPUs %G' | head -1)"
# The job scripts as written (their #SBATCH lines: one GPU a task, the array,
# the log paths) must be ones this cluster, built like a GPU cluster's node,
# would run: a directive it cannot satisfy or does not know fails here, by
# name, instead of as a job that never starts.
for s in sweep-array merge; do
    check "slurm/$s.sbatch's directives are accepted by Slurm (sbatch --test-only)" \
        bash -c "sbatch --test-only --chdir='$T' slurm/$s.sbatch sweeps/smoke.sweep >'$T/test-only-$s.out' 2>&1"
done

# --- the sweep: 8 configs on OpenMP, a fraction of a second each -----------
sed -e 's/^device .*/device openmp/' -e 's/^iters .*/iters 50/' -e 's/^reps .*/reps 2/' \
    sweeps/smoke.sweep >"$T/tiny.sweep"
keys() { # DB: every measured key, sorted (the sweep's canonical key)
    sqlite3 "$1" "SELECT DISTINCT d.fingerprint || '|' || c.app || '|' || c.input || '|' || c.knobs || '|' ||
        printf('%05dx%05d', c.wg_x, c.wg_y) FROM measurement m JOIN config c ON c.id = m.config_id
        JOIN run r ON r.id = m.run_id JOIN device d ON d.id = r.device_id ORDER BY 1" 2>/dev/null
}
rows() { sqlite3 "$1" "SELECT count(*) FROM measurement" 2>/dev/null; }
bin/harness sweep "$T/tiny.sweep" --db "$T/all.db" >"$T/all.out" 2>&1
keys "$T/all.db" >"$T/all.keys"
nall=$(wc -l <"$T/all.keys")
check "unsharded sweep: $nall configs measured" [ "$nall" -ge 4 ]
job_wait() { # JOBID: blocks until it has ended (no accounting: a dependent no-op job)
    sbatch --wait --quiet --dependency=afterany:"$1" -o /dev/null --wrap=true >/dev/null 2>&1
}

# --- 4-task array, at most 2 at once, then the dependent merge -------------
sub=$(OUT=$T/shards slurm/submit.sh "$T/tiny.sweep" 4 2 --output="$T/logs/%x-%A_%a.out" 2>&1)
merge_id=$(echo "$sub" | sed -n 's/.*merge \([0-9]*\).*/\1/p')
check "submit.sh submits the array and the merge ($sub)" [ -n "$merge_id" ]
job_wait "$merge_id"
mlog=$(ls "$T"/logs/harness-merge-*.out 2>/dev/null | head -1)
check "the merge job ran after the array and found every shard complete" grep -q "8 of 8 configs in 4 shards merged; complete\|of $nall configs in 4 shards merged; complete" "$mlog"
check "one log per array task (4)" [ "$(ls "$T"/logs/harness-sweep-*.out 2>/dev/null | wc -l)" -eq 4 ]
check "four shard databases copied out of \$TMPDIR" [ "$(ls "$T"/shards/shard-[0-3].db 2>/dev/null | wc -l)" -eq 4 ]
keys "$T/shards/merged.db" >"$T/m.keys"
check "merged shards hold exactly the unsharded configs ($(wc -l <"$T/m.keys") = $nall)" cmp -s "$T/all.keys" "$T/m.keys"
check "no config measured twice ($(rows "$T/shards/merged.db") rows)" [ "$(rows "$T/shards/merged.db")" = "$nall" ]
for i in 0 1 2 3; do
    [ "$(keys "$T/shards/shard-$i.db" | wc -l)" -ge 1 ] || notok "shard $i is empty"
done
check "shards do not overlap and cover the space" \
    bash -c "for i in 0 1 2 3; do sqlite3 '$T/shards/shard-'\$i'.db' 'SELECT count(*) FROM measurement'; done | awk '{s += \$1} END {exit s != $nall}'"

# --- kill task 2 mid-way, resubmit only index 2 ------------------------------
# HARNESS wrapper: in task 2 (first time only) the sweep is stopped as soon as
# its first config is stored and the task is cancelled (scancel: SIGTERM, so
# the script copies what it has out), as an operator or a preemption would.
# The kill array's sweep: the same configs (the key has no reps) with more
# repetitions, so a config's round lasts long enough to be caught mid-way.
sed 's/^reps .*/reps 24/' "$T/tiny.sweep" >"$T/kill.sweep"
cat >"$T/harness-wrap" <<WRAP
#!/usr/bin/env bash
db=; prev=
for a in "\$@"; do [ "\$prev" = --db ] && db=\$a; prev=\$a; done
"$REPO/bin/harness" "\$@" & pid=\$!
if [ "\${SLURM_ARRAY_TASK_ID:-}" = 2 ] && [ ! -e "$T/killed" ]; then
    touch "$T/killed"
    until [ "\$(sqlite3 "\$db" 'SELECT count(*) FROM measurement WHERE rounds_done >= rounds' 2>/dev/null)" = 1 ]; do
        kill -0 \$pid 2>/dev/null || break
        sleep 0.01
    done
    kill -STOP \$pid; pkill -STOP -P \$pid # the sweep and its worker, mid-config
    trap 'pkill -CONT -P \$pid; kill -CONT \$pid; kill -TERM \$pid' TERM
    scancel "\${SLURM_ARRAY_JOB_ID}_2"
fi
while kill -0 \$pid 2>/dev/null; do wait \$pid; done
WRAP
chmod +x "$T/harness-wrap"
export OUT=$T/kill HARNESS=$T/harness-wrap
sub=$(slurm/submit.sh "$T/kill.sweep" 4 4 --output="$T/logs/kill-%x-%A_%a.out" 2>&1)
merge_id=$(echo "$sub" | sed -n 's/.*merge \([0-9]*\).*/\1/p')
job_wait "$merge_id"
mlog=$(ls "$T"/logs/kill-harness-merge-*.out 2>/dev/null | head -1)
check "task 2 was cancelled mid-way: the merge lists shard 2/4 as incomplete and exits 1" \
    bash -c "grep -q 'shard 2/4: incomplete (1 of 2' '$mlog' && grep -q 'of $nall configs in 4 shards merged\$' '$mlog'"
before=$(rows "$T/kill/merged.db")
complete=$(sqlite3 "$T/kill/merged.db" "SELECT count(*) FROM measurement WHERE rounds_done >= rounds")
check "what arrived is kept ($before rows of $nall configs, $complete with all rounds)" \
    bash -c "[ '$before' -eq '$nall' ] && [ '$complete' -eq $((nall - 1)) ]"
unset SHARDS
sbatch --wait --quiet --array=2 --gpus-per-task=1 --output="$T/logs/kill-redo-%A_%a.out" \
    slurm/sweep-array.sbatch "$T/kill.sweep" >/dev/null 2>&1
check "the resubmitted task resumed the half-measured config and skipped the finished one" \
    grep -q "1 measured (0 failed), 0 invalid, 1 skipped as already measured, 1 resumed" "$T"/logs/kill-redo-*.out
sbatch --wait --quiet --output="$T/logs/kill-merge2-%j.out" slurm/merge.sbatch "$T/kill.sweep" >/dev/null 2>&1; rc=$?
check "the merge after the resubmission completes (exit $rc)" \
    bash -c "[ $rc -eq 0 ] && grep -q '; complete' '$T'/logs/kill-merge2-*.out"
keys "$T/kill/merged.db" >"$T/k.keys"
check "nothing lost: the merged keys are the unsharded ones" cmp -s "$T/all.keys" "$T/k.keys"
check "nothing duplicated: $(rows "$T/kill/merged.db") measurement rows for $nall configs" [ "$(rows "$T/kill/merged.db")" = "$nall" ]
exit $((fails > 0))
