#!/usr/bin/env bash
# The DG solver (seed 003, kernels/dg/) on the GPU host: run from the
# repository root with ../shared/gpu-host copied there as .gpu-host, as
#     OUT=/some/dir bash scripts/gpu-calls/dg-gpu.sh
# (the device tool sets OUT). One call on a host with one H100 / H200, within
# DEADLINE seconds (570 by default, for a 600 s limit); every step runs under
# `timeout` capped by the time left, and steps that no longer fit are listed
# as skipped. The steps, most wanted first:
#  1. `harness peak` on cuda:0 and opencl:1.0: the copy ceiling, the roof that
#     binds by the cost model (1.34 flop/byte for merged: kernels/dg/README.md);
#  2. `verify dg` on both: every variant at yee:20:re=50, 10 steps;
#  3. the seed's case (INPUT, default yee:2001, 100 steps): the whole ladder at
#     32x4 on both, then `final` at four more blocks (HARNESS_KERNEL_RESOURCES=1:
#     every CUDA kernel's registers and local memory in the log);
#  4. the directive backends where GCC's offloading is set up
#     (.gpu-host/offload/offload.sh) or LLVM's kit is (.gpu-host/llvm-kit.tar.xz,
#     cc=clang): s4-aligned and s5-flags (opt=O0) at 128x1 and 64x2;
#  5. TUNE=1: `harness tune sweeps/tune-dg.sweep --strategy forest --budget 40`
#     on cuda:0;
#  6. a table of every verified row: variant, device, block, median ms, P (cell
#     updates a second), GFLOP/s, effective GB/s, % of copy, time over CUDA's best.
# A dry run elsewhere: DEV=openmp,opencl:0.0 INPUT=yee:32 REPS=2 DIRECTIVES=0.
set -u
: "${OUT:?set OUT to a folder for the results}"
mkdir -p "$OUT"
DEADLINE=${DEADLINE:-570}
RESERVE=15
. scripts/gpu-calls/capped.sh

if [ -f .gpu-host/setup.sh ]; then source .gpu-host/setup.sh >"$OUT/setup.log" 2>&1; fi
C=$(cat .gpu-host/commit 2>/dev/null || git rev-parse HEAD 2>/dev/null || echo unknown)
make -j16 GIT_COMMIT=$C GIT_DIRTY=0 >"$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
echo "built $C at ${SECONDS}s"
DB=$OUT/dg.db
DEV=${DEV:-cuda:0,opencl:1.0}
IN=${INPUT:-yee:2001}
REPS=${REPS:-5}
export HARNESS_KERNEL_RESOURCES=1
bin/harness devices >"$OUT/devices.txt" 2>&1
capped 60 "peak $DEV" "$OUT/peak.txt" bin/harness peak --device "$DEV" --db "$DB"
grep -i copy "$OUT/peak.txt" | cut -c1-160
capped 120 "verify dg on $DEV" "$OUT/verify.txt" bin/harness verify dg --device "$DEV" --wg 32x4 --db "$DB"
sed -n '/^dg verification/,/^devices:/p' "$OUT/verify.txt"
# The ladder without s5-flags (a directive compiler's level: `run` refuses it on CUDA and OpenCL).
LADDER=$(grep -oE '^[a-z0-9-]+:' variants/dg.variants | tr -d : | grep -vx -e final -e s5-flags | paste -sd, -)
capped 240 "the ladder at $IN (32x4)" "$OUT/ladder.txt" bin/harness run --app dg --input "$IN" --device "$DEV" \
    --variant "$LADDER" --wg 32x4 --reps "$REPS" --warmup 2 --rounds 2 --db "$DB"
capped 120 "final at $IN, four blocks" "$OUT/blocks.txt" bin/harness run --app dg --input "$IN" --device "$DEV" \
    --variant final,o6-fused --wg 32x2,64x2,128x1,32x8 --reps "$REPS" --warmup 2 --db "$DB"
grep -E ' (ok|wrong|invalid|runtime-error|compile-error|crashed|timeout) ' "$OUT/ladder.txt" "$OUT/blocks.txt" |
    cut -c1-230
grep -h "note: cuda: kernel" "$OUT/ladder.txt" | sort -u | head -40

if [ "${DIRECTIVES:-1}" = 1 ]; then
    DDEV=
    if [ -f .gpu-host/offload/offload.sh ]; then
        source .gpu-host/offload/offload.sh >>"$OUT/setup.log" 2>&1 || echo "offload.sh failed: see setup.log"
    fi
    if [ -f .gpu-host/llvm-kit.tar.xz ] && [ ! -d /tmp/llvm-kit ]; then
        mkdir -p /tmp/llvm-kit && tar -xJf .gpu-host/llvm-kit.tar.xz -C /tmp/llvm-kit
    fi
    [ -f /tmp/llvm-kit/env.sh ] && source /tmp/llvm-kit/env.sh >>"$OUT/setup.log" 2>&1
    bin/harness devices >"$OUT/devices-directive.txt" 2>&1
    DDEV=$(awk '/^(openacc|omp-target):[0-9]/{print $1}' "$OUT/devices-directive.txt" | paste -sd, -)
    if [ -n "$DDEV" ]; then
        for cc in gcc clang; do
            capped 150 "s4/s5 cc=$cc on $DDEV" "$OUT/directive.txt" bin/harness run --app dg --input "$IN" \
                --device "$DDEV" --variant s4-aligned,s5-flags --knobs cc=$cc --wg 128x1,64x2 --reps "$REPS" \
                --warmup 1 --db "$DB"
        done
        grep -E ' (ok|wrong|invalid|runtime-error|compile-error|crashed|timeout) ' "$OUT/directive.txt" | cut -c1-230
    else
        echo "directive devices: none listed"
    fi
fi
if [ "${TUNE:-0}" = 1 ]; then
    sed "s/^device gpu/device ${DEV%%,*}/; s/^input .*/input $IN/" sweeps/tune-dg.sweep >"$OUT/tune-dg.sweep"
    capped 300 "tune" "$OUT/tune.txt" bin/harness tune "$OUT/tune-dg.sweep" --strategy forest --budget 40 --db "$DB"
    tail -5 "$OUT/tune.txt"
fi

# The table: every verified row at the timed input, against CUDA's best.
sqlite3 -separator ' | ' "$DB" "
WITH rows AS (
  SELECT m.variant, d.spec, c.wg_x || 'x' || c.wg_y AS wg, m.median_s, m.mlups, m.gbs,
         (SELECT max(p.copy_gbs) FROM peak p WHERE p.device_id = d.id) AS copy
  FROM measurement m JOIN config c ON c.id = m.config_id JOIN run r ON r.id = m.run_id JOIN device d ON d.id = r.device_id
  WHERE m.status = 'ok' AND c.input = '$IN'),
best AS (SELECT min(median_s) AS s FROM rows WHERE spec LIKE 'cuda%')
SELECT variant, spec, wg, printf('%.3f', median_s * 1e3), printf('%.3g', mlups * 1e6),
       printf('%.0f', gbs), printf('%.0f %%', 100 * gbs / copy),
       CASE WHEN (SELECT s FROM best) IS NULL THEN '-' ELSE printf('%.2fx', median_s / (SELECT s FROM best)) END
FROM rows ORDER BY spec, median_s;" 2>&1 | sed '1i variant | device | block | ms | P (cell updates/s) | eff. GB/s | of copy | over CUDA best'
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null
[ ${#SKIPPED[@]} -eq 0 ] || echo "skipped for time: ${SKIPPED[*]}"
