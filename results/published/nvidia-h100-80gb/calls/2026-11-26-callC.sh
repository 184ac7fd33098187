#!/usr/bin/env bash
# 2026-11-26, call C: after call B (H100: sandpile 512x512 100.67 ms with
# blocked-4 32x16; 4096x4096 73 % of copy; the hybrid's 2048/4096 rows
# invalid on the GPU by their 32x8 block at steps=8):
#   1. the hybrid at 2048x2048 (1000 steps) and 4096x4096 (256) with
#      blocked-4 24x24 (hybrid-gpu.sh, one round);
#   2. the sandpile 512x512 to stability: steps 4|5 x tile single|double x
#      vote group|item x reads every 1000|8000 x 4 shapes, then the four
#      fastest again in 2 rounds of 5;
#   3. 4096x4096 capped at 1000: steps 2|4|6 x tile x vote x 3 shapes;
#   4. the mat-vec (matvec-gpu.sh with the time left; directives where
#      .gpu-host/offload is carried).
# Packed into $OUT/callC.tgz. Run with .gpu-host carried.
set -u
: "${OUT:?}"
W=/tmp/callC
mkdir -p $W/hybrid $W/matvec
source .gpu-host/setup.sh >$W/setup.log 2>&1
C=$(cat .gpu-host/commit 2>/dev/null || echo unknown)
make -j16 GIT_COMMIT=$C GIT_DIRTY=0 >$W/build.log 2>&1 || { tail -30 $W/build.log; exit 1; }
H=bin/harness
DB=$W/c.db
log() { echo "[${SECONDS}s] $*"; }
q() { sqlite3 -separator ' | ' $DB "$1" 2>&1; }
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv; $H devices; } >$W/devices.txt 2>&1
head -2 $W/devices.txt
$H --quiet peak --device cuda:0,opencl:1.0 --db $DB | tee $W/peak.txt
OUT=$W/hybrid SIZES="2048 4096" ROUNDS=1 timeout -k 5 130 bash scripts/gpu-calls/hybrid-gpu.sh >$W/hybrid/hybrid.log 2>&1
log "hybrid: exit $?"
sed -n '/summary/,$p' $W/hybrid/hybrid.log
cat >$W/sp.sweep <<'S'
app sandpile
input 512x512
knobs flag-1000: steps=4|5 tile=single|double vote=group|item every=1000|8000
device cuda:0
wg 32x16 24x24 16x32 24x16
reps 3
warmup 1
rounds 1
timeout 60
S
timeout -k 5 100 $H --quiet sweep $W/sp.sweep --db $DB >$W/sp-sweep.log 2>&1
log "sandpile sweep: exit $?"
top=$(sqlite3 $DB "SELECT c.knobs || '@' || c.wg_x || 'x' || c.wg_y FROM measurement m JOIN config c ON c.id = m.config_id
                   WHERE c.app = 'sandpile' AND c.input = '512x512' AND m.status = 'ok' ORDER BY m.median_s LIMIT 4")
for t in $top; do
    timeout -k 5 40 $H --quiet run --app sandpile --input 512x512 --variant flag-1000 --knobs "${t%@*}" --wg "${t#*@}" \
        --device cuda:0 --reps 5 --rounds 2 --warmup 1 --timeout 30 --db $DB >>$W/sp-top.log 2>&1
done
log "sandpile 512x512 to stability, fastest (10 samples: measured again in 2 rounds):"
q "SELECT substr(c.knobs, 1, 90), c.wg_x || 'x' || c.wg_y, round(m.median_s * 1000, 2) || ' ms', m.result,
          (SELECT count(*) FROM sample s WHERE s.measurement_id = m.id) || ' samples'
   FROM measurement m JOIN config c ON c.id = m.config_id WHERE c.app = 'sandpile' AND c.input = '512x512' AND m.status = 'ok'
   ORDER BY m.median_s LIMIT 10"
cat >$W/big.sweep <<'S'
app sandpile
input 4096x4096
iters 1000
knobs flag-1000: steps=2|4|6 tile=single|double vote=group|item
device cuda:0
wg 32x8 32x16 24x24
reps 3
warmup 1
rounds 1
timeout 60
S
timeout -k 5 90 $H --quiet sweep $W/big.sweep --db $DB >$W/big.log 2>&1
log "sandpile 4096x4096, 1000 steps: exit $?; fastest (8 bytes a cell update, % of copy)"
q "SELECT d.spec, substr(c.knobs, 1, 80), c.wg_x || 'x' || c.wg_y, round(m.median_s * 1000, 2) || ' ms', round(m.gbs, 1) || ' eff GB/s',
          round(100 * m.gbs / (SELECT copy_gbs FROM peak p WHERE p.device_id = d.id ORDER BY p.id DESC LIMIT 1), 1) || ' %'
   FROM measurement m JOIN config c ON c.id = m.config_id JOIN run r ON r.id = m.run_id JOIN device d ON d.id = r.device_id
   WHERE c.input = '4096x4096' AND c.app = 'sandpile' AND m.status = 'ok' ORDER BY m.gbs DESC LIMIT 8"
left=$((575 - SECONDS))
log "mat-vec with ${left}s"
OUT=$W/matvec DEADLINE=$left timeout -k 5 $((left + 10)) bash scripts/gpu-calls/matvec-gpu.sh >$W/matvec/matvec.log 2>&1
log "matvec: exit $?"
tail -45 $W/matvec/matvec.log
sqlite3 $DB "PRAGMA wal_checkpoint(TRUNCATE);" >/dev/null 2>&1
tar czf $OUT/callC.tgz -C $W .
log packed
