#!/usr/bin/env bash
# GPU host call part (issue 20): the sandpile's launch=resident against the
# launch-per-T-steps kernels, and 4096x4096. Run from the repository root
# after the build (bin/harness) with $OUT set; DB=$OUT/... or $DB given.
#   verify   resident-8 bit for bit on cuda:0: 128x128, a pile, a random start
#   time     512x512 from 4 grains everywhere, to stability (69190 iterations):
#            blocked-4, blocked-8 and resident-8 at 16x16 on cuda:0 and
#            opencl:1.0 (resident: CUDA only), 5 repetitions in 2 rounds
#   sweep    resident over steps x block shapes (group = block + 2T halo,
#            at most 1024 items), 3 repetitions; blocked-4 over shapes
#   big      4096x4096 capped at 1000 iterations (compared with the serial
#            grid after 1000): effective GB/s by the 8-byte model, against
#            the copy ceiling measured in the same call
# Each run is capped by --timeout; nothing stops at a failure.
set -u
: "${OUT:?}"
H=${H:-bin/harness}
DB=${DB:-$OUT/sandpile.db}
PHASES=${PHASES:-verify time sweep big}
has() { [[ " $PHASES " == *" $1 "* ]]; }
log() { echo "[$(date +%H:%M:%S) ${SECONDS}s] $*"; }
q() { sqlite3 -separator ' | ' $DB "$1" 2>&1; }
if has verify; then
    for spec in "128x128 16x16" "pile:129x97:20000 8x8" "random:250x130:5 24x8"; do
        set -- $spec
        $H --quiet verify sandpile --device cuda:0 --variant resident-8,blocked-8 --input $1 --wg $2 --db $DB \
            --timeout 120 >$OUT/sp-verify-${1//:/-}.txt 2>&1
        log "verify resident-8 $1 --wg $2: exit $?"
    done
fi
if has time; then
    $H --quiet run --app sandpile --input 512x512 --variant blocked-4,blocked-8,resident-8 --device cuda:0,opencl:1.0 \
        --wg 16x16 --reps 5 --rounds 2 --warmup 1 --timeout 120 --db $DB >$OUT/sp-time-512.txt 2>&1
    log "512x512 16x16:"; cat $OUT/sp-time-512.txt
fi
if has sweep; then
    for T in 4 6 8 12; do
        $H --quiet run --app sandpile --input 512x512 --variant resident-8 --knobs steps=$T \
            --wg 8x8,16x8,16x16,24x8,24x16,32x8 --device cuda:0 --reps 3 --warmup 1 --timeout 60 --db $DB \
            >>$OUT/sp-sweep-512.txt 2>&1
    done
    $H --quiet run --app sandpile --input 512x512 --variant blocked-4 --wg 8x8,16x8,24x8,24x24,32x8 \
        --device cuda:0,opencl:1.0 --reps 3 --warmup 1 --timeout 60 --db $DB >>$OUT/sp-sweep-512.txt 2>&1
    log "512x512 to stability, the eight fastest verified per device:"
    q "SELECT d.spec, COALESCE(m.variant, c.variant), substr(c.knobs, 1, 60), c.wg_x || 'x' || c.wg_y,
              round(m.median_s * 1000, 2) || ' ms', m.result
       FROM measurement m JOIN config c ON c.id = m.config_id JOIN run r ON r.id = m.run_id
       JOIN device d ON d.id = r.device_id
       WHERE c.app = 'sandpile' AND c.input = '512x512' AND m.status = 'ok' ORDER BY d.spec, m.median_s" |
        awk -F' [|] ' '{ if (n[$1]++ < 8) print }'
fi
if has big; then
    $H --quiet run --app sandpile --input 4096x4096 --iters 1000 --variant plain,flag-1000,blocked-4,blocked-8,resident-8 \
        --device cuda:0,opencl:1.0 --wg 32x8,32x16,16x16 --reps 3 --warmup 1 --timeout 120 --db $DB \
        >$OUT/sp-big-4096.txt 2>&1
    log "4096x4096, 1000 iterations, effective GB/s (8 bytes per cell update) and % of copy:"
    q "SELECT d.spec, COALESCE(m.variant, c.variant), c.wg_x || 'x' || c.wg_y, m.status, round(m.median_s * 1000, 2) || ' ms',
              round(m.gbs, 1) || ' GB/s', round(100 * m.gbs / (SELECT copy_gbs FROM peak p WHERE p.device_id = d.id
              ORDER BY p.id DESC LIMIT 1), 1) || ' %'
       FROM measurement m JOIN config c ON c.id = m.config_id JOIN run r ON r.id = m.run_id
       JOIN device d ON d.id = r.device_id WHERE c.input = '4096x4096' ORDER BY d.spec, m.gbs DESC"
fi
