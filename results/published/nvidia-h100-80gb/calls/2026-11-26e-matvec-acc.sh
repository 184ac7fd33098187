#!/usr/bin/env bash
# GPU host call (issue 19's missed mat-vec goal: OpenACC's best within 25 % of
# CUDA's best at 162x81x40; calls G/H: CUDA v7-stream 0.110 ms a product,
# OpenACC v6-paired 64x2 0.184 ms, 1.67x). Where OpenACC's time goes: at
# gen:30x20x40 (a ~5 us kernel) a v6-paired product took 88 us, about 80 us of
# GCC's runtime per waited region that names variables (an argument block
# allocated, copied and freed each launch). The new variants take it away:
#   v8-globals  v6-paired with params=globals: the pointers and sizes in a
#               declare-create global read through a routine; no region maps
#               anything (kernels/matvec/matvec_directive.h);
#   v8-async    v8-globals with async=on: the regions queued on async(1),
#               waited for once a repetition, so --iters N products run back to
#               back and each region's remaining cost (~19 us, a stream
#               callback) overlaps the kernel before it.
# Parts, in order, while time is left (DEADLINE, default 450 s; each step under
# `timeout`, capped by the time left, and reported; what no longer fits is
# skipped with a line saying so):
#   1. build (make -j16); `harness peak` on cuda:0 and openacc:0 (copy ceilings);
#   2. `verify matvec` of v6-paired, v8-globals, v8-async on openacc:0 at
#      30x20x40 over 3 products (a wrong GPU path shows here in seconds);
#   3. at 162x81x40 with --iters 20, then --iters 1: cuda:0 v7-stream and
#      v6-paired at 160x4, 160x1, 64x4; openacc:0 v6-paired, then v8-globals
#      and v8-async, at 64x2, 64x1, 160x1, 32x2 (REPS repetitions x ROUNDS
#      rounds; every run verified against the serial reference, which
#      accumulates the same N products);
#   4. the table: per variant, device, shape and iters the median time of one
#      product (median_s / iters) and the status; then per iters the best
#      OpenACC row over the best CUDA row (goal <= 1.25).
# Compiles: every OpenACC (variant, shape) is a GCC offload build, 3 x 4 = 12
# for the timed runs plus 3 for the verify (32x1), each built once (the cache
# key has no iters), seconds each; CUDA's are NVRTC's, cached the same way.
# Everything in $OUT/matvec-acc.db (and .csv), logs in $OUT.
# Run from the repository root with .gpu-host carried (setup.sh, offload/*.deb
# and commit, holding the commit of the tree), as the device tool's command:
#     OUT=/some/dir bash results/published/nvidia-h100-80gb/calls/2026-11-26e-matvec-acc.sh
# Rehearsal without a GPU (this machine): DRY=1 runs every part with
# openacc:host (HARNESS_OFFLOAD_HOST=1, the system gcc-12 as OFFLOAD_CC) for
# openacc:0, PoCL (opencl:0.0) for cuda:0 and gen:30x20x40 for 162x81x40:
#     DRY=1 OUT=/tmp/mvacc bash results/published/nvidia-h100-80gb/calls/2026-11-26e-matvec-acc.sh
# CUDA, ACC, INPUT, ITERS ("20 1"), REPS, ROUNDS, CUDA_SHAPES, ACC_SHAPES override;
# ACC_VARIANTS (default v8-globals,v8-async) the second OpenACC run's variants,
# ACC_V6 (default v6-paired; empty: none) the first's, VERIFY_VARIANTS step 2's.
set -u
: "${OUT:?set OUT to a folder for the results}"
mkdir -p "$OUT"
DEADLINE=${DEADLINE:-450}
DRY=${DRY:-0}
if [ "$DRY" = 1 ]; then
    export HARNESS_OFFLOAD_HOST=1
    export OFFLOAD_CC=${OFFLOAD_CC:-gcc-12} # directive_call.sh then leaves .gpu-host/offload alone
    export OFFLOAD_LIBDIR=${OFFLOAD_LIBDIR:-}
    CUDA=${CUDA:-opencl:0.0} # PoCL: "openmp" would also name omp-target:host (a name match)
    ACC=${ACC:-openacc:host}
    INPUT=${INPUT:-gen:30x20x40}
    REPS=${REPS:-3}
    ROUNDS=${ROUNDS:-1}
fi
source scripts/gpu-calls/directive_call.sh # capped, set-up (setup.sh, offload.sh), make -j16
DB=$OUT/matvec-acc.db
export HARNESS_CACHE=${HARNESS_CACHE:-/tmp/mvacc-cache}
dld=${OFFLOAD_LIBDIR:-}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
DH=(env LD_LIBRARY_PATH="$dld" bin/harness) # directive processes load GCC 12's libgomp
H=bin/harness
CUDA=${CUDA:-cuda:0}
ACC=${ACC:-$("${DH[@]}" devices 2>"$OUT/devices-acc.err" | awk '/^openacc:[0-9]/{print $1; exit}')}
IN=${INPUT:-162x81x40}
ITERS=${ITERS:-20 1}
REPS=${REPS:-10}
ROUNDS=${ROUNDS:-2}
CUDA_SHAPES=${CUDA_SHAPES:-160x4,160x1,64x4}
ACC_SHAPES=${ACC_SHAPES:-64x2,64x1,160x1,32x2}
echo "devices: $CUDA and ${ACC:-no openacc device ($(grep -m1 'openacc' "$OUT/devices-acc.err" 2>/dev/null | cut -c1-160))}"
echo "input $IN, iters $ITERS, $REPS repetitions x $ROUNDS rounds"

# 1. The copy ceilings.
capped 40 "peak $CUDA" "$OUT/peak.txt" $H peak --device "$CUDA" --db "$DB"
[ -n "$ACC" ] && capped 60 "peak $ACC" "$OUT/peak.txt" "${DH[@]}" peak --device "$ACC" --db "$DB"
grep -E 'copy' "$OUT/peak.txt" | cut -c1-160

# 2. The new programs on the device at a small input, 3 products.
if [ -n "$ACC" ]; then
    capped 90 "verify $ACC" "$OUT/verify.txt" "${DH[@]}" verify matvec --device "$ACC" \
        --variant "${VERIFY_VARIANTS:-v6-paired,v8-globals,v8-async}" --input gen:30x20x40 --iters 3 --db "$DB"
    sed -n '/^matvec verification/,/^devices:/p' "$OUT/verify.txt"
fi

# 3. The timed runs: a product is 1 region; --iters N runs N of them a repetition.
common=(--app matvec --input "$IN" --reps "$REPS" --warmup 3 --rounds "$ROUNDS" --db "$DB")
for it in $ITERS; do
    capped 90 "$CUDA v7-stream,v6-paired iters $it" "$OUT/runs.txt" $H run "${common[@]}" --device "$CUDA" \
        --variant v7-stream,v6-paired --wg "$CUDA_SHAPES" --iters "$it"
    [ -n "$ACC" ] || continue
    [ -n "${ACC_V6-v6-paired}" ] && capped 90 "$ACC ${ACC_V6-v6-paired} iters $it" "$OUT/runs.txt" "${DH[@]}" run \
        "${common[@]}" --device "$ACC" --variant "${ACC_V6-v6-paired}" --wg "$ACC_SHAPES" --iters "$it"
    av=${ACC_VARIANTS:-v8-globals,v8-async}
    capped 150 "$ACC $av iters $it" "$OUT/runs.txt" "${DH[@]}" run "${common[@]}" --device "$ACC" \
        --variant "$av" --wg "$ACC_SHAPES" --iters "$it"
done
grep -E ' (ok|wrong|invalid|runtime-error|compile-error|crashed|timeout) ' "$OUT/runs.txt" | cut -c1-190

# 4. The table. Only `run`'s rows at the timed input (not verify's).
$H export --format csv --db "$DB" --out "$OUT/matvec-acc.csv" >/dev/null 2>&1
ref=${CUDA%%:*} # the reference backend: cuda (opencl in a dry run)
W="c.app = 'matvec' AND c.input = '${IN#gen:}' AND r.command LIKE 'harness run %'"
FROM="FROM measurement m JOIN config c ON c.id = m.config_id JOIN run r ON r.id = m.run_id JOIN device d ON d.id = r.device_id"
echo "rows not ok: $(sqlite3 "$DB" "SELECT count(*) $FROM WHERE $W AND m.status != 'ok'" 2>&1)"
sqlite3 "$DB" "SELECT m.variant, d.spec, c.wg_x || 'x' || c.wg_y, m.iters, m.status, substr(m.reason, 1, 140)
    $FROM WHERE $W AND m.status != 'ok'" 2>&1 | head -20
{
    echo "# matvec ${IN#gen:}: OpenACC's launch (params=globals, async=on) against CUDA"
    echo
    echo "Device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1);" \
        "commit $C; $REPS repetitions x $ROUNDS rounds; us a product = median_s / iters (end to end, host clock)."
    echo
    sqlite3 -markdown "$DB" "SELECT m.variant, d.spec AS device, c.wg_x || 'x' || c.wg_y AS shape, m.iters,
        m.status, round(1e6 * m.median_s / m.iters, 1) AS us_per_product,
        round(1e6 * m.device_median_s / m.iters, 1) AS device_us_per_product, round(m.gbs, 1) AS eff_gbs,
        round(100.0 * m.gbs / (SELECT p.copy_gbs FROM peak p WHERE p.device_id = d.id ORDER BY p.id DESC LIMIT 1), 1)
            AS pct_copy
        $FROM WHERE $W ORDER BY m.iters DESC, d.spec, m.status != 'ok', m.median_s"
    echo
    echo "Best OpenACC over best ${ref} at the same iters (goal <= 1.25):"
    echo
    sqlite3 -markdown "$DB" "WITH b AS (SELECT m.iters AS it, d.backend AS be, min(m.median_s / m.iters) AS t,
            m.variant || ' ' || c.wg_x || 'x' || c.wg_y AS best
        $FROM WHERE $W AND m.status = 'ok' GROUP BY m.iters, d.backend)
        SELECT a.it AS iters, a.best AS openacc_best, round(1e6 * a.t, 1) AS openacc_us, g.best AS ${ref}_best,
            round(1e6 * g.t, 1) AS ${ref}_us, round(a.t / g.t, 3) AS ratio,
            CASE WHEN a.t / g.t <= 1.25 THEN 'met' ELSE 'missed' END AS goal
        FROM b a JOIN b g ON g.it = a.it AND g.be = '$ref' WHERE a.be = 'openacc' ORDER BY a.it DESC"
} >"$OUT/matvec-acc.md" 2>&1
cat "$OUT/matvec-acc.md"
echo "done at ${SECONDS}s"
