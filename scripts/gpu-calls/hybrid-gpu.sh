#!/usr/bin/env bash
# GPU host call (issue 20, item 3): the sandpile on the device set
# cuda:0+openmp (the GPU and the host's cores on one grid, rows split, halo
# rows exchanged every k steps) against each device alone. Run from the
# repository root with .gpu-host carried, OUT set by the device tool:
#   bash scripts/gpu-calls/hybrid-gpu.sh
# Everything is verified (bit for bit: the grid and the exact count) and
# stored in $OUT/hybrid.db; logs in $OUT. Budget: about 300 s on a fresh
# host (the build, three serial references of about 15 s each, cached in
# build/cache, then the runs).
#
# Per input, one sweep file measures:
#   cuda:0 alone and openmp alone (the same variant and shape);
#   the set at fixed splits (cuda:0's share) near where both take as long,
#   at split=first / second (every row on one member: the tuner's
#   single-device ends, so the best of the space is never worse than the
#   best single device by more than the set's overhead; second is left out
#   at 512, where the host alone takes seconds a repetition) and at split=auto
#   (the run-time balancer), each at two exchange depths k.
# Inputs (SIZES="..." picks):
#   512     512x512, 4 grains everywhere, to stability (69190 steps), blocked-8
#   2048    2048x2048, 1000 steps (a capped run), blocked-4 24x24 (blocked-8's
#           32x8 block is a 48x24 group, over a GPU's 1024 items): the grid
#           fits the host's caches, where the CPU side is at its relative best
#   4096    4096x4096, 256 steps, blocked-4 24x24: both memory-bound
# The table at the end: per input, the best single device, the best fixed
# split (the exhaustive optimum of the split x k space above: what tune
# would find), auto, and the ratios the acceptance names: tuned / best
# single (<= 1.02; < 1 where both matter), auto / best fixed (<= 1.05).
set -u
: "${OUT:?OUT must name the folder the results go to}"
SIZES=${SIZES:-512 2048 4096}
SET=${SET:-cuda:0+openmp}
GPU=${SET%%+*}
CPU=${SET#*+}
ROUNDS=${ROUNDS:-2}
DB=$OUT/hybrid.db
H=bin/harness
log() { echo "[$(date +%H:%M:%S) ${SECONDS}s] $*"; }

if [ -f .gpu-host/setup.sh ]; then source .gpu-host/setup.sh >$OUT/setup.log 2>&1; fi
make -j16 GIT_COMMIT=$(cat .gpu-host/commit 2>/dev/null || git rev-parse HEAD 2>/dev/null || echo unknown) GIT_DIRTY=0 \
    >$OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
log built
{ nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv; $H devices; nproc; } >$OUT/devices.txt 2>&1

# sweep NAME INPUT ITERS VARIANT WG SPLITS KS REPS: each device alone, then
# the set over splits x k (two files: a set's default, split=auto with
# k=1, exchanges every step, the seed's slow hybrid, and is not asked for).
sweep() {
    local name=$1 input=$2 iters=$3 variant=$4 wg=$5 splits=$6 ks=$7 reps=$8
    for part in alone set; do
        local f=$OUT/$name-$part.sweep
        {
            echo "app sandpile"
            echo "input $input"
            if [ $part = alone ]; then
                echo "variant $variant"
                echo "device $GPU $CPU"
            else
                echo "knobs $variant: split=$splits exchange=$ks"
                echo "device $SET"
            fi
            echo "wg $wg"
            [ "$iters" = 0 ] || echo "iters $iters"
            echo "reps $reps"
            # the balancer learns in the warm-up (every config gets as many)
            [ $part = alone ] && echo "warmup 1" || echo "warmup 3"
            echo "rounds $ROUNDS"
            echo "timeout 120"
        } >$f
        $H sweep $f --db $DB --quiet >$OUT/$name-$part.log 2>&1
        log "$name-$part ($input, ${iters/#0/to stability} steps, $variant $wg): exit $?"
        grep -E ' (ok|wrong|crashed|timeout|runtime-error|invalid) ' $OUT/$name-$part.log | sed 's/^/  /' | head -40
    done
}

for size in $SIZES; do
    case $size in
    512) sweep hybrid-512 512x512 0 blocked-8 16x16 "first|0.9|0.95|0.98|0.99|auto" "16|64" 3 ;;
    2048) sweep hybrid-2048 2048x2048 1000 blocked-4 24x24 "first|second|0.95|0.97|0.98|0.99|auto" "8|32" 3 ;;
    4096) sweep hybrid-4096 4096x4096 256 blocked-4 24x24 "first|second|0.95|0.97|0.98|0.99|auto" "8|32" 3 ;;
    dry) sweep hybrid-dry 96x96 400 flag-1000 16x8 "first|second|0.5|auto" "8" 1 ;; # a rehearsal on any host
    esac
done

log "summary (median ms; every row verified)"
sqlite3 -separator ' | ' $DB "
WITH r AS (
  SELECT c.input AS input, d.spec AS dev, c.knobs AS knobs, m.median_s AS t
  FROM measurement m JOIN config c ON c.id = m.config_id JOIN run r ON r.id = m.run_id JOIN device d ON d.id = r.device_id
  WHERE c.app = 'sandpile' AND m.status = 'ok'),
single AS (SELECT input, min(t) AS t FROM r WHERE dev <> '$SET' GROUP BY input),
fixed AS (SELECT input, min(t) AS t FROM r WHERE dev = '$SET' AND knobs LIKE '%split=0.%' GROUP BY input),
tuned AS (SELECT input, min(t) AS t FROM r WHERE dev = '$SET' AND knobs LIKE '%split=%' AND knobs NOT LIKE '%split=auto%' GROUP BY input),
auto AS (SELECT input, min(t) AS t FROM r WHERE dev = '$SET' AND knobs NOT LIKE '%split=%' GROUP BY input)
SELECT 'input', '$GPU alone', '$CPU alone', 'best fixed split', 'tuned (split x k, first/second incl.)', 'auto',
       'tuned / best single', 'auto / best fixed'
UNION ALL
SELECT s.input,
  printf('%.2f', 1000 * (SELECT min(t) FROM r WHERE r.input = s.input AND dev = '$GPU')),
  printf('%.2f', 1000 * (SELECT min(t) FROM r WHERE r.input = s.input AND dev = '$CPU')),
  printf('%.2f %s', 1000 * f.t, (SELECT substr(knobs, instr(knobs, 'split=')) FROM r WHERE r.input = s.input AND dev = '$SET' AND r.t = f.t)),
  printf('%.2f %s', 1000 * tu.t, (SELECT substr(knobs, instr(knobs, 'split=')) FROM r WHERE r.input = s.input AND dev = '$SET' AND r.t = tu.t)),
  printf('%.2f', 1000 * a.t),
  printf('%.3f', tu.t / s.t), printf('%.3f', a.t / f.t)
FROM single s LEFT JOIN fixed f USING (input) LEFT JOIN tuned tu USING (input) LEFT JOIN auto a USING (input);" 2>&1 |
    tee $OUT/summary.txt
echo "where the balancer ended (auto rows):"
sqlite3 $DB "SELECT c.input, c.knobs, m.reason FROM measurement m JOIN config c ON c.id = m.config_id
             WHERE m.reason LIKE '%split auto ended%'" 2>&1 | tee -a $OUT/summary.txt
sqlite3 $DB "PRAGMA wal_checkpoint(TRUNCATE);" >/dev/null 2>&1
log done
