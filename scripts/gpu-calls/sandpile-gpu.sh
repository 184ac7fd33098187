#!/usr/bin/env bash
# GPU host call (issue 20, items 1, 2 and 5): the sandpile on cuda:0 and
# opencl:1.0 (NVIDIA's OpenCL). Run as the device tool's command from the
# repository root with .gpu-host carried: `bash scripts/gpu-calls/sandpile-gpu.sh`.
# Writes every log under $OUT; the database lives on the host in $KEEP
# (default /tmp/sandpile-gpu, so the calls below add to one database and
# the copy ceiling measured in the first is beside the runs of the later
# ones) and is copied to $OUT/sandpile.db at the end of each call.
# Phases (PHASES="..." picks; the default is "build verify time"):
#   build    setup.sh, make, devices, peak (the copy ceiling of both devices)
#   verify   every variant verified bit for bit on both GPUs: 128x128 from 4
#            grains everywhere, a pile and a random start (shapes that leave
#            partial groups), and a 300-step cap
#   time     every variant at 512x512, 4 grains everywhere, to stability
#            (69190 iterations), 16x16 (the seed's shape); goals: the best under
#            0.1 s on CUDA and under 0.15 s on NVIDIA OpenCL
#   sweep    the fast variants over steps, check interval and shapes
#   big      4096x4096 for a stated 1000 iterations (a capped run, compared
#            with the serial grid after 1000): effective GB/s by the 8-byte
#            model against the copy bandwidth (goal: >= 80 %)
#   tune     harness tune sweeps/tune-sandpile-gpu.sweep (steps x read interval x
#            block shapes, forest, 50 evaluations a device), then the verdict
#   report   harness report sandpile: the seed's table beside ours
# Calls that fit the 10-minute limit on a warm host (the build, and the
# serial references cached in build/cache, stay between them):
#   (1) bash scripts/gpu-calls/sandpile-gpu.sh                  (build verify time)
#   (2) PHASES="sweep big" bash scripts/gpu-calls/sandpile-gpu.sh
#   (3) PHASES=report bash scripts/gpu-calls/sandpile-gpu.sh
#   (4) PHASES=tune bash scripts/gpu-calls/sandpile-gpu.sh
set -u
: "${OUT:?OUT must name the folder the results go to}"
PHASES=${PHASES:-build verify time}
DEV=${DEV:-cuda:0,opencl:1.0}
KEEP=${KEEP:-/tmp/sandpile-gpu}
mkdir -p $KEEP
DB=$KEEP/sandpile.db
H=bin/harness
has() { [[ " $PHASES " == *" $1 "* ]]; }
log() { echo "[$(date +%H:%M:%S) ${SECONDS}s] $*"; }

if [ -f .gpu-host/setup.sh ]; then source .gpu-host/setup.sh >$OUT/setup.log 2>&1; fi
if has build || [ ! -x $H ]; then
    make -j16 GIT_COMMIT=$(git rev-parse HEAD 2>/dev/null || echo unknown) GIT_DIRTY=0 >$OUT/build.log 2>&1 ||
        { tail -30 $OUT/build.log; exit 1; }
    log built
fi
if has build; then
    { nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,clocks.max.sm --format=csv; $H devices; lscpu | head -20; } \
        >$OUT/devices.txt 2>&1
    $H peak --device $DEV --db $DB >$OUT/peak.txt 2>&1
    log "peak:"; cat $OUT/peak.txt
fi

if has verify; then
    for spec in "128x128 16x16" "pile:129x97:20000 32x8" "random:250x130:5 16x16"; do
        set -- $spec
        $H verify sandpile --device $DEV --input $1 --wg $2 --db $DB >$OUT/verify-${1//:/-}.txt 2>&1
        log "verify $1 --wg $2: exit $?"; grep -E '^[a-z0-9-]+ +\||^\[' $OUT/verify-${1//:/-}.txt
    done
    $H run --app sandpile --input 128x128 --iters 300 --variant plain,grid-200,flag-1000,blocked-4,blocked-8 \
        --device $DEV --wg 16x16 --reps 1 --warmup 0 --db $DB >$OUT/verify-capped.txt 2>&1
    log "capped at 300: exit $?"; grep -c ' ok .*iterations 300  err 0' $OUT/verify-capped.txt
fi

if has time; then
    # The 512x512 reference is computed once on the host (about 20 s) and cached.
    $H run --app sandpile --input 512x512 --variant grid --device $DEV --wg 16x16 --reps 3 --warmup 0 \
        --db $DB >$OUT/time-512-grid.txt 2>&1
    $H run --app sandpile --input 512x512 --variant plain,grid-200,flag,flag-1000,predict,blocked-4,blocked-8,predict-blocked \
        --device $DEV --wg 16x16 --reps 5 --warmup 1 --db $DB >$OUT/time-512.txt 2>&1
    log "512x512 to stability, 16x16:"; grep -h 'sandpile' $OUT/time-512-grid.txt $OUT/time-512.txt
fi

if has sweep; then
    for T in 2 4 6 8 12 16; do
        for E in 1000 8000; do
            $H run --app sandpile --input 512x512 --variant flag-1000 --knobs steps=$T,every=$E \
                --wg 16x16,32x8,32x16,64x4,64x8,16x32 --device $DEV --reps 3 --warmup 1 --db $DB \
                >>$OUT/sweep-512.txt 2>&1
        done
        $H run --app sandpile --input 512x512 --variant predict-blocked --knobs steps=$T \
            --wg 16x16,32x8,32x16,64x8 --device $DEV --reps 3 --warmup 1 --db $DB >>$OUT/sweep-512.txt 2>&1
    done
    log "sweep: the ten fastest verified per device"
    sqlite3 $DB "SELECT d.spec, c.knobs, c.wg_x || 'x' || c.wg_y, round(m.median_s * 1000, 2) AS ms, round(m.gbs, 1) AS gbs, m.result
                 FROM measurement m JOIN config c ON c.id = m.config_id JOIN run r ON r.id = m.run_id
                 JOIN device d ON d.id = r.device_id
                 WHERE c.app = 'sandpile' AND c.input = '512x512' AND m.status = 'ok'
                 ORDER BY d.spec, m.median_s" 2>&1 | awk -F'|' '{ if (n[$1]++ < 10) print }' | tee $OUT/sweep-best.txt
fi

if has big; then
    # The serial grid after 1000 steps at 4096x4096: about 1.7e10 cell updates on one host core, cached.
    $H run --app sandpile --input 4096x4096 --iters 1000 --variant plain,flag-1000,blocked-4,blocked-8 \
        --device $DEV --wg 32x8,32x16,64x8 --reps 3 --warmup 1 --db $DB >$OUT/big-4096.txt 2>&1
    log "4096x4096, 1000 iterations (8 bytes per cell update):"; grep sandpile $OUT/big-4096.txt
    log "copy ceilings stored:"
    sqlite3 $DB "SELECT d.spec, round(p.copy_gbs, 1) || ' GB/s copy' FROM peak p JOIN device d ON d.id = p.device_id" 2>&1
    log "4096x4096 rows, effective GB/s by 8 bytes per cell update:"
    sqlite3 $DB "SELECT d.spec, c.variant, c.wg_x || 'x' || c.wg_y, m.status, round(m.median_s * 1000, 2) || ' ms',
                        round(m.gbs, 1) || ' GB/s'
                 FROM measurement m JOIN config c ON c.id = m.config_id JOIN run r ON r.id = m.run_id
                 JOIN device d ON d.id = r.device_id WHERE c.input = '4096x4096' ORDER BY d.spec, m.gbs DESC" 2>&1
fi

if has tune; then
    $H tune sweeps/tune-sandpile-gpu.sweep --strategy forest --budget ${BUDGET:-50} --db $DB >$OUT/tune.txt 2>&1
    log "tune: exit $?"; tail -15 $OUT/tune.txt
    $H best --db $DB 2>&1 | grep -i sandpile | tee $OUT/best.txt
fi

if has report; then
    $H report sandpile --device $DEV --db $KEEP/report.db --out $OUT/report >$OUT/report.log 2>&1
    cp $KEEP/report.db $OUT/ 2>/dev/null
    log "report: exit $?"; tail -5 $OUT/report.log
    cat $OUT/report/report-*.md 2>/dev/null | head -60
fi
sqlite3 $DB "PRAGMA wal_checkpoint(TRUNCATE);" >/dev/null 2>&1
cp $DB $OUT/sandpile.db
log done
