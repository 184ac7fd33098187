#!/usr/bin/env bash
# 2026-11-26, call B (issue 20): after call A on an H100 (blocked-4 24x24
# 105.5 ms at 512x512; the stencil's best 79.7 % of copy), a wider search of
# both as sweep files (invalid shapes are stored as such, not refusals):
#   sandpile 512x512 to stability: steps 2..6 x block shapes, blocked and
#   resident, one round of 3 repetitions; then the eight fastest measured
#   again (5 repetitions in 2 rounds); 4096x4096 capped at 1000 steps;
#   the stencil 4096x4096: warp-check-8 over check x rows x shapes;
# then the hybrid (hybrid-gpu.sh, SIZES below). Everything packed into
# $OUT/callB.tgz. Run with .gpu-host carried.
set -u
: "${OUT:?}"
W=/tmp/callB
mkdir -p $W
source .gpu-host/setup.sh >$W/setup.log 2>&1
C=$(cat .gpu-host/commit 2>/dev/null || echo unknown)
make -j16 GIT_COMMIT=$C GIT_DIRTY=0 >$W/build.log 2>&1 || { tail -30 $W/build.log; exit 1; }
H=bin/harness
DB=$W/b.db
log() { echo "[${SECONDS}s] $*"; }
q() { sqlite3 -separator ' | ' $DB "$1" 2>&1; }
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv; $H devices; } >$W/devices.txt 2>&1
head -2 $W/devices.txt
$H --quiet peak --device cuda:0,opencl:1.0 --db $DB | tee $W/peak.txt
cat >$W/sp.sweep <<'S'
app sandpile
input 512x512
knobs flag-1000: steps=2|3|4|5|6 launch=each|resident
device cuda:0
wg {16,24,32} x {8,16,24}
reps 3
warmup 1
rounds 1
timeout 60
S
timeout -k 5 125 $H --quiet sweep $W/sp.sweep --db $DB >$W/sp-sweep.log 2>&1
log "sandpile sweep: exit $?"
top=$(sqlite3 $DB "SELECT c.knobs || '@' || c.wg_x || 'x' || c.wg_y FROM measurement m JOIN config c ON c.id = m.config_id
                   WHERE c.app = 'sandpile' AND m.status = 'ok' ORDER BY m.median_s LIMIT 6")
for t in $top; do
    [ $SECONDS -lt 230 ] || break
    timeout -k 5 40 $H --quiet run --app sandpile --input 512x512 --variant flag-1000 --knobs "${t%@*}" --wg "${t#*@}" \
        --device cuda:0 --reps 5 --rounds 2 --warmup 1 --timeout 30 --db $DB >>$W/sp-top.log 2>&1
done
log "sandpile 512x512 to stability, fastest (the re-measured rows have 10 samples):"
q "SELECT COALESCE(m.variant, c.variant), substr(c.knobs, 1, 70), c.wg_x || 'x' || c.wg_y, round(m.median_s * 1000, 2) || ' ms',
          m.result, (SELECT count(*) FROM sample s WHERE s.measurement_id = m.id) || ' samples'
   FROM measurement m JOIN config c ON c.id = m.config_id WHERE c.app = 'sandpile' AND m.status = 'ok'
   ORDER BY m.median_s LIMIT 12"
cat >$W/big.sweep <<'S'
app sandpile
input 4096x4096
iters 1000
knobs flag-1000: steps=1|4 launch=each
variant plain
device cuda:0 opencl:1.0
wg 32x8 24x24
reps 3
warmup 1
rounds 1
timeout 90
S
timeout -k 5 70 $H --quiet sweep $W/big.sweep --db $DB >$W/big.log 2>&1
log "sandpile 4096x4096, 1000 steps: exit $?; best per device and variant (8 bytes a cell update, % of copy)"
q "SELECT d.spec, COALESCE(m.variant, c.variant), substr(c.knobs, 1, 40), c.wg_x || 'x' || c.wg_y, round(m.median_s * 1000, 2) || ' ms',
          round(m.gbs, 1) || ' eff GB/s', round(100 * m.gbs / (SELECT copy_gbs FROM peak p WHERE p.device_id = d.id ORDER BY p.id DESC LIMIT 1), 1) || ' %'
   FROM measurement m JOIN config c ON c.id = m.config_id JOIN run r ON r.id = m.run_id JOIN device d ON d.id = r.device_id
   WHERE c.input = '4096x4096' AND c.app = 'sandpile' AND m.status = 'ok' ORDER BY d.spec, m.gbs DESC LIMIT 10"
cat >$W/st.sweep <<'S'
app stencil
input 4096x4096
knobs warp-check-8: check=40|200 rows=8|16
device cuda:0 opencl:1.0
wg 64x4 128x2 64x8 256x1
reps 10
warmup 2
rounds 1
timeout 30
S
timeout -k 5 100 $H --quiet sweep $W/st.sweep --db $DB >$W/st.log 2>&1
log "stencil sweep: exit $?; the best per device (8 bytes a point, % of copy)"
q "SELECT d.spec, substr(c.knobs, 1, 70), c.wg_x || 'x' || c.wg_y, round(m.median_s * 1000, 3) || ' ms', round(m.gbs, 1),
          round(100 * m.gbs / (SELECT copy_gbs FROM peak p WHERE p.device_id = d.id ORDER BY p.id DESC LIMIT 1), 1) || ' %', m.result
   FROM measurement m JOIN config c ON c.id = m.config_id JOIN run r ON r.id = m.run_id JOIN device d ON d.id = r.device_id
   WHERE c.app = 'stencil' AND m.status = 'ok' ORDER BY d.spec, m.median_s" | awk -F' [|] ' '{ if (n[$1]++ < 5) print }'
mkdir -p $W/hybrid
OUT=$W/hybrid SIZES="${SIZES:-4096 2048 512}" timeout -k 5 ${HYBRID_S:-200} bash scripts/gpu-calls/hybrid-gpu.sh >$W/hybrid/hybrid.log 2>&1
log "hybrid: exit $?"
tail -25 $W/hybrid/hybrid.log
sqlite3 $DB "PRAGMA wal_checkpoint(TRUNCATE);" >/dev/null 2>&1
tar czf $OUT/callB.tgz -C $W .
log packed
