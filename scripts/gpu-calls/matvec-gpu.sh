#!/usr/bin/env bash
# The coloured mat-vec (seed 004, kernels/matvec/) on the GPU host: run from
# the repository root with ../shared/gpu-host copied there as .gpu-host, as
#     OUT=/some/dir bash scripts/gpu-calls/matvec-gpu.sh
# (the device tool sets OUT). Everything lands in $OUT: the build and setup
# logs, devices, the copy ceiling, verification, each variant's runs, CSV and
# the database. About 3-5 minutes of device time (a few more with the directive
# devices, whose every shape is a build); SWEEP=1 adds
# sweeps/matvec-shapes.sweep restricted to the two GPU devices (a few minutes more).
#  1. `harness peak`: each device's device-to-device copy bandwidth, the
#     ceiling the effective GB/s are compared with (stored in the same db);
#  2. `harness verify matvec` on cuda:0 and opencl:1.0 (NVIDIA's OpenCL) at
#     the verify input (30x20x40) and at the default 162x81x40;
#  3. every variant at the default input on both devices, at the shapes the
#     blog's mapping suggests (a cell's lanes per group: 40 for v1/v2, 320
#     for v3/v4/c3) and two others each, 20 repetitions over 3 rounds;
#  4. where GCC 12's offloading compiler is set up (.gpu-host/offload/offload.sh, sourced here when
#     present and OFFLOAD_CC is not set yet; DIRECTIVES=0 leaves this part out) and lists directive
#     GPU devices (openacc:N, omp-target:N): the same peak, verify and ladder on them, at widths that
#     are whole warps (GCC's OpenACC refuses others: kernels/matvec/README.md); a line saying why
#     when there are none, and the rest of the call is unchanged;
#  5. the best ok row per variant and device with its % of the copy ceiling.
set -u
: "${OUT:?set OUT to a folder for the results}"
mkdir -p "$OUT"
if [ -f .gpu-host/setup.sh ]; then source .gpu-host/setup.sh >"$OUT/setup.log" 2>&1; fi
C=$(cat .gpu-host/commit 2>/dev/null || git rev-parse HEAD 2>/dev/null || echo unknown)
make -j16 GIT_COMMIT=$C GIT_DIRTY=0 >"$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
echo "built $C at ${SECONDS}s"
DB=$OUT/matvec.db
DEV=${DEV:-cuda:0,opencl:1.0}
IN=${INPUT:-162x81x40} # INPUT, REPS: for a dry run elsewhere (DEV=openmp,opencl:0.0 INPUT=gen:30x20x40 REPS=2)
REPS=${REPS:-20}
bin/harness devices >"$OUT/devices.txt" 2>&1
grep -E '^(cuda|opencl)' "$OUT/devices.txt" | cut -c1-160
bin/harness peak --device "$DEV" --db "$DB" >"$OUT/peak.txt" 2>&1
echo "peak exit $? at ${SECONDS}s"; cat "$OUT/peak.txt" | cut -c1-160

for in in gen:30x20x40 $IN; do
    timeout 300 bin/harness verify matvec --device "$DEV" --input $in --db "$DB" >"$OUT/verify-${in#gen:}.txt" 2>&1
    echo "verify matvec $in exit $? at ${SECONDS}s"
    sed -n '/^matvec verification/,/^devices:/p' "$OUT/verify-${in#gen:}.txt"
done

# variant: shapes (lanes per cell x cells per group)
runs=("v1-original:40x1,40x4,64x2" "v2-scalar:40x1,40x4,64x2" "v3-collapsed:320x1,64x1,128x2"
      "c3-plain:320x1,64x1,128x2" "v4-masked:320x1,64x1,128x2" "b3-transposed:320x1,64x1,128x2"
      "t2-transposed:40x1,40x4,64x2")
for r in "${runs[@]}"; do
    v=${r%%:*} wg=${r#*:}
    timeout 300 bin/harness run --app matvec --input $IN --device "$DEV" --variant $v --wg $wg \
        --reps $REPS --warmup 3 --rounds 3 --db "$DB" >>"$OUT/runs.txt" 2>&1
    echo "run $v ($wg) exit $? at ${SECONDS}s"
done
grep -E ' (ok|wrong|invalid|runtime-error|compile-error) ' "$OUT/runs.txt" | cut -c1-220

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
    "${DH[@]}" peak --device "$DDEV" --db "$DB" >"$OUT/peak-directive.txt" 2>&1
    echo "peak ($DDEV) exit $? at ${SECONDS}s"; grep -E 'copy' "$OUT/peak-directive.txt" | cut -c1-160
    for in in gen:30x20x40 $IN; do
        f=$OUT/verify-directive-${in#gen:}.txt
        timeout 300 "${DH[@]}" verify matvec --device "$DDEV" --input $in --db "$DB" >"$f" 2>&1
        echo "verify matvec $in on $DDEV exit $? at ${SECONDS}s"
        sed -n '/^matvec verification/,/^devices:/p' "$f"
    done
    # vector_length / thread_limit x cells a gang: whole warps (40 or 320 lanes would be refused on
    # openacc), a cell's lanes in one or two passes, and two cells a gang.
    druns=("v1-original:32x1,64x1,64x2" "v2-scalar:32x1,64x1,64x2" "t2-transposed:32x1,64x1,64x2"
           "v3-collapsed:320x1,128x1,128x2" "c3-plain:320x1,128x1,128x2" "v4-masked:320x1,128x1,128x2"
           "b3-transposed:320x1,128x1,128x2")
    for r in "${druns[@]}"; do
        v=${r%%:*} wg=${r#*:}
        timeout 300 "${DH[@]}" run --app matvec --input $IN --device "$DDEV" --variant $v --wg $wg \
            --reps $REPS --warmup 3 --rounds 3 --db "$DB" >>"$OUT/runs-directive.txt" 2>&1
        echo "run $v ($wg) on $DDEV exit $? at ${SECONDS}s"
    done
    grep -E ' (ok|wrong|invalid|runtime-error|compile-error|crashed|timeout) ' "$OUT/runs-directive.txt" | cut -c1-220
fi

if [ "${SWEEP:-0}" = 1 ]; then
    sed "s/^device gpu/device ${DEV//,/ }/" sweeps/matvec-shapes.sweep >/tmp/matvec-shapes.sweep
    timeout 900 bin/harness sweep /tmp/matvec-shapes.sweep --db "$DB" >"$OUT/sweep.txt" 2>&1
    echo "sweep exit $? at ${SECONDS}s"; tail -3 "$OUT/sweep.txt"
fi

# The best verified row per variant and device; % of the copy ceiling; the
# speed-up over v1-original on the same device (the blog: 9.45 -> 0.32 ms, 30x).
Q="WITH best AS (
    SELECT d.spec, d.name, m.variant, c.wg_x || 'x' || c.wg_y AS wg, min(m.median_s) AS s,
           m.device_median_s AS dev_s, m.gbs AS gbs,
           (SELECT p.copy_gbs FROM peak p WHERE p.device_id = d.id ORDER BY p.id DESC LIMIT 1) AS copy
    FROM measurement m JOIN config c ON c.id = m.config_id JOIN run r ON r.id = m.run_id
         JOIN device d ON d.id = r.device_id
    WHERE c.app = 'matvec' AND c.input = '${IN#gen:}' AND m.status = 'ok' AND m.variant != 'final'
    GROUP BY d.spec, m.variant)
  SELECT b.spec AS device, b.variant, b.wg, round(b.s * 1e3, 4) AS ms, round(b.dev_s * 1e3, 4) AS device_ms,
         round(b.gbs, 1) AS gbs, round(100.0 * b.gbs / b.copy, 1) AS pct_copy,
         round((SELECT v.s FROM best v WHERE v.spec = b.spec AND v.variant = 'v1-original') / b.s, 1) AS x_v1
  FROM best b ORDER BY b.spec, b.s"
echo "best per variant and device (median end-to-end ms, device ms, effective GB/s at 560 B per cell update, % of copy, x v1):"
sqlite3 -header -column "$DB" "$Q" 2>&1 | tee "$OUT/best.txt"
{
    echo "# matvec (seed 004) at ${IN#gen:}: the best shape per variant"
    echo
    echo "Device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1);"
    echo "commit $C; copy ceiling from \`harness peak\` in the same call; 560 B and 128 flop per cell update."
    echo
    sqlite3 -markdown "$DB" "$Q"
} >"$OUT/matvec.md" 2>&1
bin/harness export --format csv --db "$DB" --out "$OUT/matvec.csv" >/dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "done at ${SECONDS}s"
