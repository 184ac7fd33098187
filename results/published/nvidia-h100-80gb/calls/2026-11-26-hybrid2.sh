#!/usr/bin/env bash
# GPU host call (issue 20's missed figure): the CPU + GPU hybrid "faster
# than either alone on a size where both devices matter", again, now that
# a set's OpenMP member runs its own tiles (knob host_tile) with the
# line-buffered kernel (kernels/sandpile/sandpile_omp.c). hybrid-gpu.sh's
# sets ran the host cores on the GPU's 24x24 tiles at 0.3-0.5 Gcell/s a
# core, 36-51x slower than the H100, where no split can pay for its
# exchanges; full-width tiles run 4x faster a core (measured on a 2-core
# EPYC), which should bring the 16 cores to 10-15x slower than the GPU.
#
# Run from the repository root with .gpu-host carried, OUT set by the
# device tool:
#   bash results/published/nvidia-h100-80gb/calls/2026-11-26-hybrid2.sh
# Everything is verified (bit for bit: the grid and the exact count) and
# stored in $OUT/hybrid2.db; logs in $OUT. Budget: about 5 minutes on a
# fresh host: the build (60-90 s), two serial references of about 15 and
# 30 s (cached in build/cache), then about 2 minutes of sweeps.
#
# Per input (SIZES picks; "dry" is a rehearsal for any host):
#   1. each device alone: $GPU with blocked-4-double at 24x24 (the best at
#      4096x4096 so far); $CPU with blocked-4 at host tiles HOST_TILES
#      (steps=4: the set's members share the steps knob), and blocked-8 at
#      one full-width tile, for scale only (whether fewer passes over
#      memory would pay on the CPU side: a host_steps knob's case);
#   2. the set with $CPU's best steps=4 host tile from 1: fixed GPU shares
#      at OFFSETS around where both would take as long (the alone times
#      predict it: t_cpu / (t_gpu + t_cpu); a fixed list where one is
#      missing), and split=auto (the balancer), each at exchange k in KS.
#      (split=first, the GPU alone through the set, is hybrid-gpu.sh's:
#      within 0.2 % of cuda:0 alone at every size, so not measured again.)
# ITERS replaces an input's step count; SPLITS the GPU shares the set runs
# at; SKIP_CPU=1 leaves out the host cores alone (their time sets the
# shares otherwise; SET_TILES then names the set's host tile).
# Inputs:
#   4096   4096x4096, 256 steps: the size hybrid-gpu.sh measured (15.70 ms on cuda:0)
#   8192   8192x8192, 128 steps: 4x the cells a step, half the exchange's share
#          of a step (a halo row is twice as wide, a step four times the work)
# The table at the end: per input each device alone, the best fixed split,
# auto, and the ratios the acceptance names: best set / best single (< 1:
# faster than either alone), auto / best fixed (<= 1.05).
set -u
: "${OUT:?OUT must name the folder the results go to}"
SIZES=${SIZES:-4096 8192}
SET=${SET:-cuda:0+openmp}
GPU=${SET%%+*}
CPU=${SET#*+}
ROUNDS=${ROUNDS:-2}
KS=${KS:-16|32|64}
HOST_TILES=${HOST_TILES:-65536x32|65536x64|65536x128}
OFFSETS=${OFFSETS:--0.03 -0.01 0.01 0.03}
SET_TILES=${SET_TILES:-}
# The GPU's configuration, alone and in the set: GPU_VARIANT with GPU_KNOBS
# (knob settings, space-separated) at WG (call I's best at 4096x4096:
# GPU_VARIANT=blocked-4 GPU_KNOBS=cells=8 WG=56x56).
GPU_VARIANT=${GPU_VARIANT:-blocked-4-double}
GPU_KNOBS=${GPU_KNOBS:-}
WG=${WG:-24x24}
DB=$OUT/hybrid2.db
H=bin/harness
log() { echo "[$(date +%H:%M:%S) ${SECONDS}s] $*"; }
q() { sqlite3 -separator ' | ' $DB "$1" 2>&1; }

if [ -f .gpu-host/setup.sh ]; then source .gpu-host/setup.sh >$OUT/setup.log 2>&1; fi
make -j16 GIT_COMMIT=$(cat .gpu-host/commit 2>/dev/null || git rev-parse HEAD 2>/dev/null || echo unknown) GIT_DIRTY=0 \
    >$OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
log built
{ nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv; $H devices; nproc; lscpu; } \
    >$OUT/devices.txt 2>&1

# sweep_file FILE INPUT ITERS CONFIGS DEVICE REPS WARMUP: one sweep file;
# CONFIGS is a `variant NAME` or a `knobs NAME: k=v|v ...` line.
sweep_file() {
    {
        echo "app sandpile"
        echo "input $2"
        echo "$4"
        echo "device $5"
        echo "wg $WG"
        [ "$3" = 0 ] || echo "iters $3"
        echo "reps $6"
        echo "warmup $7"
        echo "rounds $ROUNDS"
        echo "timeout 120"
    } >$1
}
run_sweep() { # NAME DESCRIPTION
    $H sweep $OUT/$1.sweep --db $DB --quiet >$OUT/$1.log 2>&1
    log "$1 ($2): exit $?"
    grep -E ' (ok|wrong|crashed|timeout|runtime-error|invalid|compile-error) ' $OUT/$1.log | sed 's/^/  /' | head -40
}
# The median seconds of the best steps=4 row on DEVICE for INPUT, and its knobs.
best() { q "SELECT m.median_s, c.knobs FROM measurement m JOIN config c ON c.id = m.config_id JOIN run r ON r.id = m.run_id
            JOIN device d ON d.id = r.device_id WHERE c.input = '$1' AND d.spec = '$2' AND m.status = 'ok'
            AND c.knobs LIKE '%steps=4%' ORDER BY m.median_s LIMIT 1"; }

# The GPU shares the set runs at: OFFSETS around the equal-time share (as
# 0.915), within (0.5, 0.995); FALLBACK where an alone time is missing.
splits_near() { # SHARE FALLBACK
    awk -v p="$1" -v f="$2" -v o="$OFFSETS" 'BEGIN {
        if (p !~ /^0\.[0-9]+$/) { print f; exit }
        n = split(o, d, " "); out = ""
        for (i = 1; i <= n; i++) {
            x = p + d[i]; if (x < 0.5) x = 0.5; if (x > 0.995) x = 0.995
            v = sprintf("%.3f", x); if (!(v in seen)) { seen[v] = 1; out = out (out == "" ? "" : "|") v }
        }
        print out }'
}

hybrid() { # NAME INPUT ITERS FALLBACK_SPLITS
    local name=$1 input=$2 iters=${ITERS:-$3}
    local gconf="variant $GPU_VARIANT"
    [ -z "$GPU_KNOBS" ] || gconf="knobs $GPU_VARIANT: $GPU_KNOBS"
    sweep_file $OUT/$name-gpu.sweep $input $iters "$gconf" "$GPU" 5 1
    run_sweep $name-gpu "$GPU alone, $GPU_VARIANT $GPU_KNOBS $WG"
    if [ "${SKIP_CPU:-0}" != 1 ]; then
        sweep_file $OUT/$name-cpu.sweep $input $iters "knobs blocked-4: host_tile=$HOST_TILES" "$CPU" 3 1
        echo "knobs blocked-8: host_tile=65536x64" >>$OUT/$name-cpu.sweep
        run_sweep $name-cpu "$CPU alone, blocked-4 at host tiles $HOST_TILES; blocked-8 65536x64"
    fi
    local g c tile share splits
    g=$(best $input $GPU | cut -d' ' -f1)
    c=$(best $input $CPU)
    tile=$(echo "$c" | grep -o 'host_tile=[0-9x]*' | cut -d= -f2)
    tile=${tile:-65536x64}
    # SET_TILES: the set's host tiles instead (a member with few rows needs
    # tiles narrower than the grid, or some of its cores have no tile: the
    # first call's 65536x32 gave 8192x8192's 5 % of rows 12 tiles for 16 cores)
    tile=${SET_TILES:-$tile}
    c=$(echo "$c" | cut -d' ' -f1)
    share=$(awk -v g="${g:-0}" -v c="${c:-0}" 'BEGIN { if (g > 0 && c > 0) printf "%.3f", c / (g + c); else print "?" }')
    splits=${SPLITS:-$(splits_near "$share" "$4")}
    log "$input: $GPU alone ${g:-?} s, $CPU alone ${c:-?} s at host_tile=$tile: equal times at a GPU share of $share"
    # the balancer learns in the warm-up (every config gets as many)
    sweep_file $OUT/$name-set.sweep $input $iters \
        "knobs $GPU_VARIANT: $GPU_KNOBS host_tile=$tile split=$splits|auto exchange=$KS" "$SET" 5 3
    run_sweep $name-set "$SET, $GPU_VARIANT $GPU_KNOBS $WG, $CPU's tiles $tile, split $splits|auto, k $KS"
}

for size in $SIZES; do
    case $size in
    4096) hybrid hybrid2-4096 4096x4096 256 "0.90|0.92|0.94|0.96" ;;
    8192) hybrid hybrid2-8192 8192x8192 128 "0.90|0.92|0.94|0.96" ;;
    16384) hybrid hybrid2-16384 16384x16384 128 "0.94|0.95|0.96|0.97" ;;
    dry) hybrid hybrid2-dry 256x256 400 "0.3|0.5|0.7" ;; # SET=opencl:0.0+openmp KS='8|16' on any host
    esac
done

log "summary (median ms; every row verified)"
q "
WITH r AS (
  SELECT c.input AS input, d.spec AS dev, c.knobs AS knobs, m.median_s AS t
  FROM measurement m JOIN config c ON c.id = m.config_id JOIN run r ON r.id = m.run_id JOIN device d ON d.id = r.device_id
  WHERE c.app = 'sandpile' AND m.status = 'ok'),
g AS (SELECT input, min(t) AS t FROM r WHERE dev = '$GPU' GROUP BY input),
c AS (SELECT input, min(t) AS t FROM r WHERE dev = '$CPU' AND knobs LIKE '%steps=4%' GROUP BY input),
fixed AS (SELECT input, min(t) AS t FROM r WHERE dev = '$SET' AND knobs LIKE '%split=0.%' GROUP BY input),
auto AS (SELECT input, min(t) AS t FROM r WHERE dev = '$SET' AND knobs NOT LIKE '%split=%' GROUP BY input)
SELECT 'input', '$GPU alone', '$CPU alone (host tile)', 'equal-time share', 'best fixed split', 'auto',
       'best fixed / best single', 'auto / best fixed', 'auto / best single'
UNION ALL
SELECT g.input,
  printf('%.2f', 1000 * g.t),
  printf('%.2f %s', 1000 * c.t, (SELECT substr(knobs, instr(knobs, 'host_tile=')) FROM r WHERE r.input = g.input AND dev = '$CPU' AND r.t = c.t)),
  printf('%.3f', c.t / (g.t + c.t)),
  printf('%.2f %s', 1000 * f.t, (SELECT substr(knobs, instr(knobs, 'split=')) FROM r WHERE r.input = g.input AND dev = '$SET' AND r.t = f.t)),
  printf('%.2f', 1000 * a.t),
  printf('%.3f', f.t / min(g.t, c.t)), printf('%.3f', a.t / f.t), printf('%.3f', a.t / min(g.t, c.t))
FROM g LEFT JOIN c USING (input) LEFT JOIN fixed f USING (input) LEFT JOIN auto a USING (input);" | tee $OUT/summary.txt
echo "every row (median ms, Gcell/s; the CPU's blocked-8 row for scale):" | tee -a $OUT/summary.txt
q "SELECT c.input, d.spec, substr(c.knobs, instr(c.knobs, 'steps=')), printf('%.2f', 1000 * m.median_s),
          printf('%.1f Gcell/s', m.cell_updates / m.median_s / 1e9), coalesce(m.reason, '')
   FROM measurement m JOIN config c ON c.id = m.config_id JOIN run r ON r.id = m.run_id JOIN device d ON d.id = r.device_id
   WHERE m.status = 'ok' ORDER BY c.input, d.spec, m.median_s" | tee -a $OUT/summary.txt
sqlite3 $DB "PRAGMA wal_checkpoint(TRUNCATE);" >/dev/null 2>&1
log done
