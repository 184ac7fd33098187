#!/usr/bin/env bash
# GPU host call (issue 20, item 4): the stencil (seed 001) at the copy
# ceiling. Run as the device tool's command from the repository root on a
# host with one H100/H200 (cuda:0, and opencl:1.0 = NVIDIA's OpenCL):
#     OUT=/some/dir bash scripts/gpu-calls/stencil-gpu.sh
# (the device tool sets OUT; .gpu-host/setup.sh is sourced when carried).
# Everything lands in $OUT: build and device logs, the copy ceiling,
# verification, every run's log, stencil.db, stencil.csv and stencil.md
# (the last is the draft of results/published/<gpu>/stencil.md). No step
# stops the call: each has its own time cap, and a phase is skipped, saying
# so, once the call has used its budget (BUDGET seconds, default 230).
#   1. build, `harness devices`, nvidia-smi; `harness peak` on both devices:
#      the copy bandwidth the effective GB/s are compared with, same call;
#   2. `harness verify stencil` (512x512, 23 iterations, every variant,
#      bit-exact against the serial program) on both devices;
#   3. the ladder at 4096x4096 (34 iterations, each run verified bit for
#      bit as well), work-group 32x8, 10 timed repetitions after 2;
#   4. the two fastest candidates (warp-check-8, warp-blocked-4) over
#      shapes, rows, check and steps;
#   5. the best verified row per variant, knobs and device, fastest first:
#      median ms (whole convergence loop, host clock), device ms, effective
#      GB/s (8 bytes per point per iteration, what any one-step-a-launch
#      kernel must move; with steps > 1 the real traffic is less, so the
#      figure is effective and may pass the copy ceiling), % of copy.
# Dry run elsewhere: DEV=openmp,opencl:0.0 INPUT=256x256 VERIFY_INPUT=64x64
# OUT=/tmp/s bash scripts/gpu-calls/stencil-gpu.sh (with no nvidia-smi).
set -u
: "${OUT:?set OUT to a folder for the results}"
mkdir -p "$OUT"
BUDGET=${BUDGET:-230}
DEV=${DEV:-cuda:0,opencl:1.0}
IN=${INPUT:-4096x4096}
VIN=${VERIFY_INPUT:-512x512}
REPS=${REPS:-10}
DB=$OUT/stencil.db
H=bin/harness
log() { echo "[${SECONDS}s] $*"; }
# left SECONDS: whether SECONDS more fit in the budget (else says so).
left() {
    if [ $((SECONDS + $1)) -le "$BUDGET" ]; then return 0; fi
    log "skipped (over the ${BUDGET}s budget): ${2:-}"
    return 1
}
# run LOG CAP ARGS...: one harness command under `timeout`, its exit logged.
run() {
    local out=$1 cap=$2
    shift 2
    timeout -k 5 "$cap" $H "$@" --db "$DB" >>"$OUT/$out" 2>&1
    log "$* -> exit $?"
}

if [ -f .gpu-host/setup.sh ]; then source .gpu-host/setup.sh >"$OUT/setup.log" 2>&1; fi
C=$(cat .gpu-host/commit 2>/dev/null || git rev-parse HEAD 2>/dev/null || echo unknown)
make -j16 GIT_COMMIT=$C GIT_DIRTY=0 >"$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
log "built $C"
{ nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,clocks.max.sm --format=csv; $H devices; } \
    >"$OUT/devices.txt" 2>&1
grep -E '^(cuda|opencl)|^name|NVIDIA' "$OUT/devices.txt" | cut -c1-160 | head -8

# 1. The copy ceiling, in the same call and database as the runs.
run peak.txt 60 peak --device "$DEV"
cut -c1-160 "$OUT/peak.txt"

# 2. Every variant verified bit for bit on both GPUs at 512x512.
left 40 "verify" && {
    run verify.txt 90 verify stencil --device "$DEV" --input "$VIN"
    sed -n '/^variant /,/^devices:/p' "$OUT/verify.txt" | cut -c1-160
}

# 3. The ladder at 4096x4096, one shape (the published table's). The slides'
# first two steps (over a second a repetition) are in the H100 table.
LADDER=range-coalesced,fused,atomic,atomic-lean,warp,rows-8,check-8,warp-check-8,blocked-4,warp-blocked-4
left 60 "ladder" && run ladder.txt 100 run --app stencil --input "$IN" --device "$DEV" --variant "$LADDER" \
    --wg 32x8 --reps "$REPS" --warmup 2 --timeout 30

# 4. The candidates over shapes and knobs (single launches: --rounds 1).
S="--app stencil --input $IN --device $DEV --reps $REPS --warmup 2 --rounds 1 --timeout 30"
left 40 "rows sweep" && for rows in 4 16; do
    run sweep.txt 45 run $S --variant warp-check-8 --knobs rows=$rows --wg 32x4,64x4,128x2,32x16
done
left 30 "check sweep" && run sweep.txt 40 run $S --variant warp-check-8 --knobs check=40 --wg 32x8,64x4
left 40 "steps sweep" && for st in 2:8 8:2; do
    run sweep.txt 45 run $S --variant warp-blocked-4 --knobs steps=${st%:*},rows=${st#*:} --wg 32x8,64x4,32x4
done
left 30 "blocked shapes" && run sweep.txt 40 run $S --variant warp-blocked-4 --wg 64x4,32x4,64x8,128x2
grep -hE ' (wrong|invalid|runtime-error|compile-error|crash|timeout) ' "$OUT/ladder.txt" "$OUT/sweep.txt" 2>/dev/null |
    cut -c1-200 | head -20

# 5. The table: the best verified row per variant, knobs and device.
Q="WITH r AS (
    SELECT d.spec, m.variant,
           replace(replace(replace(c.knobs, 'setup=hoisted,', ''), 'partials=4096,', ''), 'range=', '') AS knobs,
           c.wg_x || 'x' || c.wg_y AS wg, m.median_s AS s, m.device_median_s AS dev_s, m.gbs,
           (SELECT p.copy_gbs FROM peak p WHERE p.device_id = d.id ORDER BY p.id DESC LIMIT 1) AS copy,
           row_number() OVER (PARTITION BY d.spec, m.variant, c.knobs ORDER BY m.median_s) AS k
    FROM measurement m JOIN config c ON c.id = m.config_id JOIN run r ON r.id = m.run_id
         JOIN device d ON d.id = r.device_id
    WHERE c.app = 'stencil' AND c.input = '$IN' AND m.status = 'ok')
  SELECT spec AS device, variant, knobs, wg AS shape, round(s * 1e3, 3) AS median_ms,
         round(dev_s * 1e3, 3) AS device_ms, round(gbs, 1) AS eff_gbs, round(copy, 1) AS copy_gbs,
         round(100.0 * gbs / copy, 1) AS pct_copy
  FROM r WHERE k = 1 ORDER BY spec, s"
{
    echo "# The stencil (seed 001) at $IN on $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)"
    echo
    echo "- Device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)" \
        "(driver version after the comma); \`$DEV\`."
    echo "- Commit $C; \`bash scripts/gpu-calls/stencil-gpu.sh\`; the copy ceiling from \`harness peak\` in the same"
    echo "  call: $(sqlite3 "$DB" "SELECT group_concat(d.spec || ' ' || round(p.copy_gbs, 1) || ' GB/s', ', ')
        FROM peak p JOIN device d ON d.id = p.device_id" 2>/dev/null)."
    echo "- Verification: \`verify stencil\` at $VIN on both devices, and every row below: the iteration count,"
    echo "  the final range and every grid point bit-identical to the serial program's."
    echo "- ms: median of $REPS repetitions of the whole loop to range <= 100 (host clock; device ms from events)."
    echo "  eff GB/s: 8 bytes per point per iteration over the median; an effective figure (steps > 1 moves less)."
    echo
    sqlite3 -markdown "$DB" "$Q"
} >"$OUT/stencil.md" 2>&1
$H export --format csv --db "$DB" --out "$OUT/stencil.csv" >/dev/null 2>&1
sqlite3 "$DB" "PRAGMA wal_checkpoint(TRUNCATE);" >/dev/null 2>&1
log "done; the table (also $OUT/stencil.md):"
sqlite3 -markdown "$DB" "$Q" 2>&1 | head -60
