#!/usr/bin/env bash
# 2026-11-26, sp4096 (issue 20's missed figure: the sandpile at 4096x4096,
# capped at 1000 iterations, >= 80 % of the copy bandwidth by the 8-byte
# model; calls B-D: 75.5 %, flag-1000 steps=4 tile=double 24x24 on cuda:0).
# The new form is cells=R (topple_strip: a column strip of R cells per
# work-item, in registers), which lets a group of at most 1024 items cover
# a taller, wider tile with less halo and fewer local-memory accesses.
#   1. build, `harness devices`, nvidia-smi; `harness peak` on both devices
#      (the copy ceiling in the same call and database);
#   2. the current best (steps=4 tile=double 24x24) on both devices;
#   3. cells=4|8 at steps 4, 6 and 8, tile=double (and single at one
#      point), blocks whose group is 32, 64 or 128 items wide, on cuda:0: 25
#      configs (sweep files; blocks R does not divide, or over 1024 items,
#      are stored as invalid, not run);
#   4. the fastest strip configs of phase 3 on opencl:1.0 (NVIDIA's OpenCL
#      has 48 KiB of local memory: a tile that does not fit is refused);
#   5. 512x512 to stability on cuda:0: the published best (steps=4
#      tile=double 32x16, 99.47 ms) beside cells=4|8 at three blocks, so
#      the new form is seen not to cost the small grid anything;
#   6. the table: every verified 4096x4096 row, fastest first, with median
#      ms, effective GB/s (8 bytes a cell update) and % of the copy
#      ceiling; then the 512x512 rows.
# Each step under `timeout`; a phase that would pass BUDGET seconds (the
# build included) is skipped, saying so. Everything is packed into
# $OUT/sp4096.tgz, and the table is also $OUT/sp4096.md.
# Run: OUT=DIR bash results/published/nvidia-h100-80gb/calls/2026-11-26-sp4096.sh from the
# repository root, with .gpu-host carried (about 4 to 5 minutes).
# Dry run here (PoCL for both devices, a small grid, no nvidia-smi):
#   CUDA=opencl:0.0 OCL=opencl:0.0 INPUT=128x128 ITERS=40 REPS=1 SMALL=64x64 \
#   JOBS=2 OUT=/tmp/sp bash results/published/nvidia-h100-80gb/calls/2026-11-26-sp4096.sh
set -u
: "${OUT:?set OUT to a folder for the results}"
mkdir -p "$OUT"
W=${WORK:-/tmp/sp4096}
rm -rf "$W"
mkdir -p "$W"
BUDGET=${BUDGET:-300}
CUDA=${CUDA:-cuda:0}
OCL=${OCL:-opencl:1.0}
IN=${INPUT:-4096x4096}
ITERS=${ITERS:-1000}
REPS=${REPS:-3}
SMALL=${SMALL:-512x512}
H=bin/harness
DB=$W/sp.db
log() { echo "[${SECONDS}s] $*"; }
left() { # SECONDS WHAT: whether SECONDS more fit in the budget (else says so)
    if [ $((SECONDS + $1)) -le "$BUDGET" ]; then return 0; fi
    log "skipped (over the ${BUDGET}s budget): ${2:-}"
    return 1
}
q() { sqlite3 -separator ' | ' "$DB" "$1" 2>&1; }
# sweep NAME CAP DEVICE INPUT ITERS KNOBS WG...: a sweep file of one knob line and its blocks, run under timeout.
sweep() {
    local name=$1 cap=$2 dev=$3 input=$4 iters=$5 knobs=$6
    shift 6
    {
        echo "app sandpile"
        echo "input $input"
        [ "$iters" = 0 ] || echo "iters $iters"
        echo "knobs flag-1000: $knobs"
        echo "device $dev"
        echo "wg $*"
        echo "reps $REPS"
        echo "warmup 1"
        echo "rounds 1"
        echo "timeout 30"
    } >"$W/$name.sweep"
    timeout -k 5 "$cap" $H --quiet sweep "$W/$name.sweep" --db "$DB" >"$W/$name.log" 2>&1
    log "$name ($dev, $input, $knobs; $*): exit $?"
}

if [ -f .gpu-host/setup.sh ]; then source .gpu-host/setup.sh >"$W/setup.log" 2>&1; fi
C=$(cat .gpu-host/commit 2>/dev/null || git rev-parse --short HEAD 2>/dev/null || echo unknown)
make -j"${JOBS:-16}" GIT_COMMIT=$C GIT_DIRTY=0 >"$W/build.log" 2>&1 || {
    tail -30 "$W/build.log"
    exit 1
}
log "built $C"
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv; $H devices; } >"$W/devices.txt" 2>&1
grep -E '^(cuda|opencl)|NVIDIA' "$W/devices.txt" | cut -c1-160 | head -6
BOTH=$CUDA
[ "$OCL" = "$CUDA" ] || BOTH="$CUDA $OCL" # the dry run names one device for both
timeout -k 5 60 $H --quiet peak --device "${BOTH/ /,}" --db "$DB" >"$W/peak.txt" 2>&1
log "peak: exit $?"
cut -c1-160 "$W/peak.txt"

# 2. The current best on both devices (the first run computes the serial
# grid after ITERS iterations, cached for the rest).
BASE="steps=4 tile=double cells=1"
left 60 "baseline" && sweep base 90 "$BOTH" "$IN" "$ITERS" "$BASE" 24x24

# 3. cells=R on CUDA. A block wx x wy with T steps is a group of
# (wx + 2T) x (wy + 2T)/R items: wx + 2T = 32, 64 or 128 (whole warps, a tile
# row a line or two), wy + 2T = 32, 64 or 128 rows.
left 60 "strip T=4" && sweep strip4 90 "$CUDA" "$IN" "$ITERS" "steps=4 tile=double cells=4|8" \
    24x24 24x56 24x120 56x24 56x56 56x120 120x56
left 40 "strip T=8" && sweep strip8 60 "$CUDA" "$IN" "$ITERS" "steps=8 tile=double cells=4|8" 16x48 16x112 48x48 48x112
left 30 "strip T=6" && sweep strip6 45 "$CUDA" "$IN" "$ITERS" "steps=6 tile=double cells=4|8" 20x52 52x52
left 30 "strip single" && sweep strip1 45 "$CUDA" "$IN" "$ITERS" "steps=4 tile=single cells=8" 24x56 56x56
grep -hE ' (wrong|runtime-error|compile-error|crash|timeout) ' "$W"/*.log 2>/dev/null | cut -c1-200 | head -10

# 4. The fastest strip configs on OpenCL, one run each (a refusal costs nothing).
if [ "$OCL" != "$CUDA" ]; then
    top=$(sqlite3 "$DB" "SELECT c.knobs || '@' || c.wg_x || 'x' || c.wg_y FROM measurement m
            JOIN config c ON c.id = m.config_id JOIN run r ON r.id = m.run_id JOIN device d ON d.id = r.device_id
            WHERE d.spec = '$CUDA' AND c.input = '$IN' AND m.status = 'ok' AND c.knobs NOT LIKE '%cells=1,%'
            ORDER BY m.median_s LIMIT 8")
    n=0
    for t in $top; do
        [ $n -lt 6 ] && left 25 "opencl: ${t}" || break
        timeout -k 5 40 $H --quiet run --app sandpile --input "$IN" --iters "$ITERS" --variant flag-1000 \
            --knobs "${t%@*}" --wg "${t#*@}" --device "$OCL" --reps "$REPS" --warmup 1 --rounds 1 --timeout 30 \
            --db "$DB" >>"$W/opencl.log" 2>&1
        rc=$?
        log "opencl ${t#*@} ${t%@*}: exit $rc"
        [ $rc -eq 2 ] || n=$((n + 1)) # a refusal (the tile over 48 KiB) does not count
    done
fi

# 5. The small grid to stability on CUDA: the published best beside the strips.
left 60 "$SMALL to stability" && sweep small 75 "$CUDA" "$SMALL" 0 "steps=4 tile=double cells=1|4|8" \
    32x16 24x24 24x56

# 6. The tables.
KN="replace(replace(replace(replace(c.knobs, 'detect=flag,every=1000,predict=seed,', ''), ',vote=group', ''),
     ',launch=each,rule=sync', ''), 'steps=', 'T=')"
COPY="(SELECT p.copy_gbs FROM peak p WHERE p.device_id = d.id ORDER BY p.id DESC LIMIT 1)"
T4096="SELECT d.spec AS device, $KN AS knobs, c.wg_x || 'x' || c.wg_y AS block,
          round(m.median_s * 1e3, 2) AS median_ms, round(m.gbs, 1) AS eff_gbs, round($COPY, 1) AS copy_gbs,
          round(100.0 * m.gbs / $COPY, 1) AS pct_copy, CAST(m.result AS INT) AS iters
   FROM measurement m JOIN config c ON c.id = m.config_id JOIN run r ON r.id = m.run_id JOIN device d ON d.id = r.device_id
   WHERE c.app = 'sandpile' AND c.input = '$IN' AND m.status = 'ok' ORDER BY d.spec, m.median_s"
TSMALL="SELECT d.spec AS device, $KN AS knobs, c.wg_x || 'x' || c.wg_y AS block,
          round(m.median_s * 1e3, 2) AS median_ms, CAST(m.result AS INT) AS iters
   FROM measurement m JOIN config c ON c.id = m.config_id JOIN run r ON r.id = m.run_id JOIN device d ON d.id = r.device_id
   WHERE c.app = 'sandpile' AND c.input = '$SMALL' AND m.status = 'ok' ORDER BY m.median_s"
{
    echo "# sandpile $IN capped at $ITERS iterations: cells=R against the current best"
    echo
    echo "- $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1); commit $C;"
    echo "  \`results/published/nvidia-h100-80gb/calls/2026-11-26-sp4096.sh\`; $REPS repetitions after 1, one round; every row verified"
    echo "  bit for bit (the grid after $ITERS iterations and the count). eff GB/s: 8 bytes a cell update."
    echo "- Rows not verified or not run: $(sqlite3 "$DB" "SELECT coalesce(group_concat(n || ' ' || s, ', '), 'none')
        FROM (SELECT m.status AS s, count(*) AS n FROM measurement m WHERE m.status != 'ok' GROUP BY m.status)" 2>/dev/null)"
    echo "  (invalid: blocks refused, their reasons in the sweep logs)."
    echo
    sqlite3 -markdown "$DB" "$T4096"
    echo
    echo "## $SMALL to stability ($CUDA)"
    echo
    sqlite3 -markdown "$DB" "$TSMALL"
} >"$W/sp4096.md" 2>&1
cp "$W/sp4096.md" "$OUT/sp4096.md"
sqlite3 "$DB" "PRAGMA wal_checkpoint(TRUNCATE);" >/dev/null 2>&1
tar czf "$OUT/sp4096.tgz" -C "$W" .
log "packed; the best 12 at $IN per device and the $SMALL rows (all in $OUT/sp4096.md):"
q "SELECT device, knobs, block, median_ms || ' ms', eff_gbs || ' GB/s', pct_copy || ' %', iters FROM ($T4096)" |
    awk -F' [|] ' '{ if (n[$1]++ < 12) print }'
q "SELECT device, knobs, block, median_ms || ' ms', iters FROM ($TSMALL)"
