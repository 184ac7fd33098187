#!/usr/bin/env bash
# 2026-11-26, call D: call C's 512x512 sweep was cut by its time cap before
# it stored a row. Here a short list from calls B and C, each to stability
# in 2 rounds of 5 repetitions: blocked-4 with tile=double and reads every
# 1000 or 8000 steps at the three fastest shapes of call B, and steps=5;
# then 4096x4096 (1000 steps) at steps 3|5 with tile=double. Packed into
# $OUT/callD.tgz. Run with .gpu-host carried.
set -u
: "${OUT:?}"
W=/tmp/callD
mkdir -p $W
source .gpu-host/setup.sh >$W/setup.log 2>&1
C=$(cat .gpu-host/commit 2>/dev/null || echo unknown)
make -j16 GIT_COMMIT=$C GIT_DIRTY=0 >$W/build.log 2>&1 || { tail -30 $W/build.log; exit 1; }
H=bin/harness
DB=$W/d.db
log() { echo "[${SECONDS}s] $*"; }
q() { sqlite3 -separator ' | ' $DB "$1" 2>&1; }
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv; $H devices; } >$W/devices.txt 2>&1
head -2 $W/devices.txt
$H --quiet peak --device cuda:0,opencl:1.0 --db $DB | tee $W/peak.txt
cat >$W/sp.sweep <<'S'
app sandpile
input 512x512
knobs flag-1000: steps=4 tile=single|double every=1000|8000
device cuda:0 opencl:1.0
wg 32x16 24x24 16x32
reps 5
warmup 1
rounds 2
timeout 30
S
timeout -k 5 150 $H --quiet sweep $W/sp.sweep --db $DB >$W/sp.log 2>&1
log "sandpile 512x512 sweep: exit $?"
q "SELECT d.spec, substr(c.knobs, 1, 90), c.wg_x || 'x' || c.wg_y, round(m.median_s * 1000, 2) || ' ms', m.result,
          (SELECT count(*) FROM sample s WHERE s.measurement_id = m.id) || ' samples'
   FROM measurement m JOIN config c ON c.id = m.config_id JOIN run r ON r.id = m.run_id JOIN device d ON d.id = r.device_id
   WHERE c.app = 'sandpile' AND c.input = '512x512' AND m.status = 'ok' ORDER BY d.spec, m.median_s"
cat >$W/big.sweep <<'S'
app sandpile
input 4096x4096
iters 1000
knobs flag-1000: steps=3|4|5 tile=double every=1000
device cuda:0
wg 24x24 20x20 24x16 26x26
reps 3
warmup 1
rounds 1
timeout 30
S
timeout -k 5 90 $H --quiet sweep $W/big.sweep --db $DB >$W/big.log 2>&1
log "4096x4096: exit $?"
q "SELECT d.spec, substr(c.knobs, 1, 80), c.wg_x || 'x' || c.wg_y, round(m.median_s * 1000, 2) || ' ms', round(m.gbs, 1) || ' eff GB/s',
          round(100 * m.gbs / (SELECT copy_gbs FROM peak p WHERE p.device_id = d.id ORDER BY p.id DESC LIMIT 1), 1) || ' %'
   FROM measurement m JOIN config c ON c.id = m.config_id JOIN run r ON r.id = m.run_id JOIN device d ON d.id = r.device_id
   WHERE c.input = '4096x4096' AND c.app = 'sandpile' AND m.status = 'ok' ORDER BY m.gbs DESC LIMIT 6"
sqlite3 $DB "PRAGMA wal_checkpoint(TRUNCATE);" >/dev/null 2>&1
tar czf $OUT/callD.tgz -C $W .
log packed
