#!/usr/bin/env bash
# The coloured mat-vec (seed 004, kernels/matvec/) on the GPU host: run from
# the repository root with ../shared/gpu-host copied there as .gpu-host, as
#     OUT=/some/dir bash scripts/gpu-calls/matvec-gpu.sh
# (the device tool sets OUT). One call on a host with one H100 / H200, within
# DEADLINE seconds (285 by default, for a 300 s limit): every step runs under
# `timeout` capped by the time left, a failure or a cap is reported and the
# call goes on, and steps that no longer fit are listed as skipped. The steps,
# most wanted first:
#  1. `harness peak`: each device's device-to-device copy bandwidth, the
#     ceiling the effective GB/s are compared with (stored in the same db);
#  2. `harness verify matvec` on cuda:0 and opencl:1.0 (NVIDIA's OpenCL): every
#     variant at the verify input (30x20x40), the new ones and v4-masked at
#     the default 162x81x40;
#  3. at 162x81x40, 20 repetitions over 3 rounds: v4-masked (the published
#     best) and the new variants (v5-mesh, v6-paired, v7-stream, m6-paired)
#     at 4-5 shapes each, then the rest of the ladder at its published best
#     shape (the baseline in the same call);
#  4. where GCC 12's offloading compiler is set up (.gpu-host/offload/offload.sh, sourced here when
#     present and OFFLOAD_CC is not set yet; DIRECTIVES=0 leaves this part out) and lists directive
#     GPU devices (openacc:N, omp-target:N): the same peak, a verify of the variants they run, and
#     those variants at whole-warp shapes (GCC's OpenACC refuses others: kernels/matvec/README.md;
#     every shape is a build, so fewer of them); a line saying why when there are none;
#  5. last, a markdown table of every verified row: variant, device, shape, median ms (end to end),
#     effective GB/s (560 B per cell update), % of the device's copy ceiling and, off CUDA, the
#     row's time over CUDA's best (issue 19: OpenACC <= 1.25, OpenMP target <= 1.5).
# SWEEP=1 adds sweeps/matvec-shapes.sweep on the two GPU devices (only with DEADLINE raised).
set -u
: "${OUT:?set OUT to a folder for the results}"
mkdir -p "$OUT"
DEADLINE=${DEADLINE:-285}
RESERVE=12 # seconds kept for the table at the end
. scripts/gpu-calls/capped.sh

if [ -f .gpu-host/setup.sh ]; then source .gpu-host/setup.sh >"$OUT/setup.log" 2>&1; fi
C=$(cat .gpu-host/commit 2>/dev/null || git rev-parse HEAD 2>/dev/null || echo unknown)
make -j16 GIT_COMMIT=$C GIT_DIRTY=0 >"$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
echo "built $C at ${SECONDS}s"
DB=$OUT/matvec.db
DEV=${DEV:-cuda:0,opencl:1.0}
IN=${INPUT:-162x81x40} # INPUT, REPS: for a dry run elsewhere (DEV=openmp,opencl:0.0 INPUT=gen:30x20x40 REPS=2)
REPS=${REPS:-20}
NEW=v5-mesh,v6-paired,v7-stream,m6-paired
bin/harness devices >"$OUT/devices.txt" 2>&1
grep -E '^(cuda|opencl)' "$OUT/devices.txt" | cut -c1-160
capped 60 "peak $DEV" "$OUT/peak.txt" bin/harness peak --device "$DEV" --db "$DB"
cut -c1-160 "$OUT/peak.txt"

# check DEVICES VARIANTS INPUT FILE HARNESS...: `verify matvec`, its matrix printed.
check() {
    local dev=$1 vl=$2 in=$3 f=$4
    shift 4
    capped 90 "verify $vl at $in on $dev" "$f" "$@" verify matvec --device "$dev" --variant "$vl" --input "$in" --db "$DB"
    sed -n '/^matvec verification/,/^devices:/p' "$f"
}
ALL=$(grep -oE '^[a-z0-9-]+:' variants/matvec.variants | tr -d : | grep -vx final | paste -sd, -)
check "$DEV" "$ALL" gen:30x20x40 "$OUT/verify-30x20x40.txt" bin/harness
check "$DEV" "v4-masked,$NEW" "$IN" "$OUT/verify-${IN#gen:}.txt" bin/harness

# variant: shapes (lanes per cell x cells per group). The paired form has 160
# lanes a cell (40 layers x 4 pairs of rows), the collapsed 320, the others 40.
runs=("v4-masked:320x1,64x1,128x2" "v5-mesh:320x1,160x2,64x4,320x2"
      "v6-paired:160x1,160x2,32x8,64x4,160x4" "v7-stream:160x1,160x2,32x8,64x4,160x4" "m6-paired:160x1,160x2,32x8"
      "b3-transposed:64x1" "v3-collapsed:320x1" "c3-plain:320x1" "t2-transposed:40x1" "v2-scalar:32x1"
      "v1-original:40x1")
for r in "${runs[@]}"; do
    v=${r%%:*} wg=${r#*:}
    capped 60 "run $v ($wg)" "$OUT/runs.txt" bin/harness run --app matvec --input "$IN" --device "$DEV" --variant "$v" \
        --wg "$wg" --reps "$REPS" --warmup 3 --rounds 3 --db "$DB"
done
grep -E ' (ok|wrong|invalid|runtime-error|compile-error|crashed|timeout) ' "$OUT/runs.txt" | cut -c1-200

# The directive backends. Their processes load GCC 12's libgomp (LD_LIBRARY_PATH=$OFFLOAD_LIBDIR), the
# only one with the nvptx plugin (with another, no device is listed); the CUDA and OpenCL runs keep
# the image's, which the OpenMP CPU backend's kernels (built by the image's cc) need.
if [ "${DIRECTIVES:-1}" = 1 ] && [ -z "${OFFLOAD_CC:-}" ] && [ -f .gpu-host/offload/offload.sh ]; then
    source .gpu-host/offload/offload.sh >>"$OUT/setup.log" 2>&1 || echo "offload.sh failed: see setup.log"
fi
dld=${OFFLOAD_LIBDIR:-}
[ -n "${LD_LIBRARY_PATH:-}" ] && dld=${dld:+$dld:}$LD_LIBRARY_PATH
DH=(env LD_LIBRARY_PATH="$dld" bin/harness) # a command, not a function: timeout runs it
DDEV=
if [ "${DIRECTIVES:-1}" != 1 ]; then
    echo "directive devices: left out (DIRECTIVES=$DIRECTIVES)"
elif [ -n "${DIRECTIVE_DEV:-}" ]; then # a dry run elsewhere: DIRECTIVE_DEV=openacc:host,omp-target:host HARNESS_OFFLOAD_HOST=1
    DDEV=$DIRECTIVE_DEV
elif [ -z "${OFFLOAD_LIBDIR:-}" ]; then
    echo "directive devices: none (no .gpu-host/offload/offload.sh sourced: OFFLOAD_LIBDIR unset)"
else
    "${DH[@]}" devices >"$OUT/devices-directive.txt" 2>&1
    DDEV=$(awk '/^(openacc|omp-target):[0-9]/{print $1}' "$OUT/devices-directive.txt" | paste -sd, -)
    [ -n "$DDEV" ] || echo "directive devices: none listed ($(grep -E 'note: (openacc|omp-target)' \
        "$OUT/devices-directive.txt" | head -1 | cut -c1-160))"
fi
if [ -n "$DDEV" ]; then
    echo "directive devices: $DDEV"
    capped 60 "peak $DDEV" "$OUT/peak-directive.txt" "${DH[@]}" peak --device "$DDEV" --db "$DB"
    grep -E 'copy' "$OUT/peak-directive.txt" | cut -c1-160
    # load=stream is a CUDA / NVIDIA OpenCL load hint, a plain load here: v7 and m6 left out. Every
    # directive build is seconds of GCC, so verify checks three variants here (each run below is also
    # verified against the reference at the timed input).
    check "$DDEV" v4-masked,v5-mesh,v6-paired gen:30x20x40 \
        "$OUT/verify-directive-30x20x40.txt" "${DH[@]}"
    # vector_length / thread_limit x cells a gang: whole warps (40 or 320 lanes would be refused on
    # openacc for the scalar forms), a cell's lanes in one pass or two cells a gang.
    druns=("v6-paired:160x1,64x2" "v5-mesh:320x1,128x2" "v4-masked:320x1" "v3-collapsed:320x1" "v2-scalar:64x1")
    for r in "${druns[@]}"; do
        v=${r%%:*} wg=${r#*:}
        capped 90 "run $v ($wg) on $DDEV" "$OUT/runs-directive.txt" "${DH[@]}" run --app matvec --input "$IN" \
            --device "$DDEV" --variant "$v" --wg "$wg" --reps "$REPS" --warmup 3 --rounds 3 --db "$DB"
    done
    grep -E ' (ok|wrong|invalid|runtime-error|compile-error|crashed|timeout) ' "$OUT/runs-directive.txt" | cut -c1-200
fi

if [ "${SWEEP:-0}" = 1 ]; then
    sed "s/^device gpu/device ${DEV//,/ }/" sweeps/matvec-shapes.sweep >"$OUT/matvec-shapes.sweep"
    capped 900 "sweep" "$OUT/sweep.txt" bin/harness sweep "$OUT/matvec-shapes.sweep" --db "$DB"
    tail -3 "$OUT/sweep.txt"
fi

bin/harness export --format csv --db "$DB" --out "$OUT/matvec.csv" >/dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null
[ ${#SKIPPED[@]} -eq 0 ] || echo "skipped for time: ${SKIPPED[*]}"
echo "rows not ok: $(sqlite3 "$DB" "SELECT count(*) FROM measurement WHERE status != 'ok'" 2>&1)"
sqlite3 "$DB" "SELECT m.variant, d.spec, c.wg_x || 'x' || c.wg_y, m.status, substr(m.reason, 1, 120)
               FROM measurement m JOIN config c ON c.id = m.config_id JOIN run r ON r.id = m.run_id
               JOIN device d ON d.id = r.device_id WHERE m.status != 'ok'" 2>&1 | head -20
echo "done at ${SECONDS}s"

# Last: every verified row at the timed input, best first per device. ms is the end-to-end median of
# one product; GB/s effective at 560 B a cell update; % of the copy ceiling of the same device from
# the same call; vs CUDA best: this row's time over the fastest CUDA row's (blank on CUDA).
Q="WITH rows AS (
    SELECT d.spec AS device, m.variant, c.wg_x || 'x' || c.wg_y AS shape, min(m.median_s) AS s, m.gbs AS gbs,
           (SELECT p.copy_gbs FROM peak p WHERE p.device_id = d.id ORDER BY p.id DESC LIMIT 1) AS copy
    FROM measurement m JOIN config c ON c.id = m.config_id JOIN run r ON r.id = m.run_id
         JOIN device d ON d.id = r.device_id
    WHERE c.app = 'matvec' AND c.input = '${IN#gen:}' AND m.status = 'ok' AND m.variant != 'final'
          AND r.command LIKE 'harness run %' -- not verify's rows: 1 repetition at its default shape
    GROUP BY d.spec, m.variant, c.wg_x, c.wg_y),
  cuda AS (SELECT min(s) AS s FROM rows WHERE device LIKE 'cuda:%')
  SELECT variant, device, shape, round(s * 1e3, 4) AS median_ms, round(gbs, 1) AS eff_gbs,
         round(100.0 * gbs / copy, 1) AS pct_copy,
         CASE WHEN device LIKE 'cuda:%' THEN '' ELSE round(s / (SELECT s FROM cuda), 2) END AS vs_cuda_best
  FROM rows ORDER BY device, s"
{
    echo "# matvec (seed 004) at ${IN#gen:}: every verified row"
    echo
    echo "Device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1);"
    echo "commit $C; copy ceiling from \`harness peak\` in the same call; 560 B and 128 flop per cell update."
    echo
    sqlite3 -markdown "$DB" "$Q"
} >"$OUT/matvec.md" 2>&1
cat "$OUT/matvec.md"
