#!/usr/bin/env bash
# The DG solver (seed 003, kernels/dg/) on the GPU host: run from the
# repository root with ../shared/gpu-host copied there as .gpu-host, as
#     OUT=/some/dir [PARTS="..."] bash scripts/gpu-calls/dg-gpu.sh
# (the device tool sets OUT). One call on a host with one H100 / H200, within
# DEADLINE seconds (570 by default, for a 600 s limit); every step runs under
# `timeout` capped by the time left, and steps that no longer fit are listed
# as skipped. PARTS picks the parts, in this order (default: all but tune):
#  peak     `harness peak` on cuda:0 and opencl:1.0: the copy ceiling, the roof
#           that binds by the cost model (1.34 flop/byte for merged: README);
#  verify   `verify dg` on both: every variant at yee:20:re=50, 10 steps;
#  ladder   the seed's case (INPUT, default yee:2001, 100 steps): the whole
#           ladder at 32x4 on both (HARNESS_KERNEL_RESOURCES=1: every CUDA
#           kernel's registers and local memory in the log);
#  directive the directive backends where GCC's offloading is set up
#           (.gpu-host/offload/offload.sh) or LLVM's kit is
#           (.gpu-host/llvm-kit.tar.xz): s4-aligned, o6-fused and s5-flags
#           (opt=O0) at 128x1 with each compiler (CCS, default "gcc clang"; an
#           absent one is refused with its reason; clang on omp-target only),
#           at DSTEPS steps (10, scaled and marked: GCC's OpenMP target took
#           9.7 s a repetition of the seed's 100 on an H100);
#  cpu      OpenMP on the host's cores: the ladder at 10 steps (scaled);
#  blocks   final and o6-fused at four more blocks, on both GPU devices;
#  tiled    o7-tiled (the tile in local memory) beside o6-fused and s4-aligned
#           at six blocks on both GPU devices (TILED_BLOCKS: tiles within
#           OpenCL's 48 KiB of local memory), then o7-tiled at four larger
#           blocks on cuda:0 (BIG_BLOCKS: CUDA opts in to 227 KiB; a run
#           with one config its device refuses stores nothing at all);
#  regcap   o6-fused and s4-aligned on cuda:0 at 32x4 and 64x2 with each register
#           cap (regcap=none|168|128|96|64: NVRTC --maxrregcount), the
#           registers and spills of each in the log;
#  ns       Navier-Stokes (NS_INPUT, yee:2001:re=100) at 20 steps, scaled: the
#           ladder on cuda:0, s4-aligned on opencl:1.0;
#  tune     `harness tune sweeps/tune-dg.sweep --strategy forest --budget
#           TUNE_BUDGET (24)` on cuda:0;
# then a table of every verified row: variant, knobs, device, block, steps,
# median ms, P (cell updates a second), GFLOP/s, effective GB/s, % of copy,
# time over CUDA's best at the same input.
# A dry run elsewhere: DEV=openmp,opencl:0.0 INPUT=yee:32 REPS=2 PARTS="verify ladder cpu".
set -u
: "${OUT:?set OUT to a folder for the results}"
mkdir -p "$OUT"
DEADLINE=${DEADLINE:-570}
RESERVE=15
PARTS=${PARTS:-peak verify ladder directive cpu blocks ns}
want() { [[ " $PARTS " == *" $1 "* ]]; }
. scripts/gpu-calls/capped.sh

if [ -f .gpu-host/setup.sh ]; then source .gpu-host/setup.sh >"$OUT/setup.log" 2>&1; fi
C=$(cat .gpu-host/commit 2>/dev/null || git rev-parse HEAD 2>/dev/null || echo unknown)
make -j16 GIT_COMMIT=$C GIT_DIRTY=0 >"$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
echo "built $C at ${SECONDS}s; $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null)"
DB=$OUT/dg.db
DEV=${DEV:-cuda:0,opencl:1.0}
GPU=${DEV%%,*}
IN=${INPUT:-yee:2001}
REPS=${REPS:-5}
export HARNESS_KERNEL_RESOURCES=1
H=bin/harness
$H devices >"$OUT/devices.txt" 2>&1
rows() { grep -hE ' (ok|wrong|invalid|runtime-error|compile-error|crashed|timeout) ' "$@" | cut -c1-230; }

if want peak; then
    capped 60 "peak $DEV" "$OUT/peak.txt" $H peak --device "$DEV" --db "$DB"
    grep -i copy "$OUT/peak.txt" | cut -c1-160
fi
if want verify; then
    capped 120 "verify dg on $DEV" "$OUT/verify.txt" $H verify dg --device "$DEV" --wg 32x4 --db "$DB"
    sed -n '/^dg verification/,/^devices:/p' "$OUT/verify.txt"
fi
# The ladder without s5-flags (a directive compiler's level: `run` refuses it on CUDA and OpenCL).
LADDER=$(grep -oE '^[a-z0-9-]+:' variants/dg.variants | tr -d : | grep -vx -e final -e s5-flags | paste -sd, -)
if want ladder; then
    capped 240 "the ladder at $IN (32x4)" "$OUT/ladder.txt" $H run --app dg --input "$IN" --device "$DEV" \
        --variant "$LADDER" --wg 32x4 --reps "$REPS" --warmup 2 --rounds 2 --db "$DB"
    rows "$OUT/ladder.txt"
    grep -h "note: cuda: kernel" "$OUT/ladder.txt" | sort -u | head -40
fi
if want directive; then
    if [ -f .gpu-host/offload/offload.sh ] && ls .gpu-host/offload/*.deb >/dev/null 2>&1; then
        source .gpu-host/offload/offload.sh >>"$OUT/setup.log" 2>&1 || echo "offload.sh failed: see setup.log"
    fi
    if [ -f .gpu-host/llvm-kit.tar.xz ]; then
        KIT=.gpu-host/llvm-kit.tar.xz source scripts/llvm-kit/env.sh >>"$OUT/setup.log" 2>&1
    fi
    $H devices >"$OUT/devices-directive.txt" 2>&1
    DDEV=$(awk '/^(openacc|omp-target):[0-9]/{print $1}' "$OUT/devices-directive.txt" | paste -sd, -)
    grep -E '^(openacc|omp-target)|note: (openacc|omp-target)' "$OUT/devices-directive.txt" | cut -c1-300
    if [ -n "$DDEV" ]; then
        for cc in ${CCS:-gcc clang}; do
            # clang has no OpenACC: a run naming a device a knob is refused on stores nothing at all.
            ddev=$([ "$cc" = gcc ] && echo "$DDEV" || echo "$DDEV" | tr , '\n' | grep -v '^openacc' | paste -sd, -)
            [ -n "$ddev" ] || continue
            for steps in ${DSTEPS:-10}; do
                capped 150 "s4/s5/o6 cc=$cc on $ddev, $steps steps" "$OUT/directive.txt" $H run --app dg \
                    --input "$IN" --iters $steps --device "$ddev" --variant s4-aligned,o6-fused,s5-flags --knobs cc=$cc \
                    --wg 128x1 --reps 3 --warmup 1 --db "$DB"
            done
        done
        rows "$OUT/directive.txt"
        grep -hE "note: (openacc|omp-target).*(registers|spill|stack)" "$OUT/directive.txt" | sort -u | head -12
    else
        echo "directive devices: none listed"
    fi
fi
if want cpu; then
    # 10 steps, scaled (marked): one repetition of the seed's 100 took 34 s on the H100 host's 16 cores.
    # Without o7-tiled (a work-group's local memory: OpenMP has none, and a run naming a config its
    # device refuses stores nothing at all).
    capped 120 "openmp ladder, 10 steps" "$OUT/cpu.txt" $H run --app dg --input "$IN" --iters 10 --device openmp \
        --variant "s4-aligned,$(echo "$LADDER" | tr , '\n' | grep -vx o7-tiled | paste -sd, -),s5-flags" --wg 32x4 \
        --reps 3 --warmup 1 --db "$DB"
    rows "$OUT/cpu.txt"
fi
if want blocks; then
    capped 120 "final at $IN, four blocks" "$OUT/blocks.txt" $H run --app dg --input "$IN" --device "$DEV" \
        --variant final,o6-fused --wg 32x2,64x2,128x1,32x8 --reps "$REPS" --warmup 2 --db "$DB"
    rows "$OUT/blocks.txt"
fi
if want tiled; then
    capped 150 "o7-tiled, o6-fused, s4-aligned at $IN, six blocks" "$OUT/tiled.txt" $H run --app dg --input "$IN" \
        --device "$DEV" --variant o7-tiled,o6-fused,s4-aligned --wg "${TILED_BLOCKS:-32x4,64x2,16x8,32x2,64x1,16x4}" \
        --reps "$REPS" --warmup 2 --db "$DB"
    capped 90 "o7-tiled at $IN, larger blocks on $GPU" "$OUT/tiled.txt" $H run --app dg --input "$IN" \
        --device "$GPU" --variant o7-tiled --wg "${BIG_BLOCKS:-32x8,64x4,128x1,128x2}" --reps "$REPS" --warmup 2 --db "$DB"
    rows "$OUT/tiled.txt"
    grep -h "note: cuda: kernel" "$OUT/tiled.txt" | sort -u | head -20
fi
if want regcap; then
    for cap in none 168 128 96 64; do
        capped 90 "o6-fused and s4-aligned at regcap=$cap" "$OUT/regcap.txt" env HARNESS_KERNEL_RESOURCES=1 \
            $H run --app dg --input "$IN" --device "$GPU" --variant o6-fused,s4-aligned --knobs "regcap=$cap" \
            --wg 32x4,64x2 --reps "$REPS" --warmup 2 --db "$DB"
    done
    rows "$OUT/regcap.txt"
    grep -h "note: cuda: kernel" "$OUT/regcap.txt" | sort -u | head -30
fi
NS=${NS_INPUT:-$IN:re=100}
if want ns; then
    capped 150 "Navier-Stokes ladder $NS, 20 steps" "$OUT/ns.txt" $H run --app dg --input "$NS" --iters 20 \
        --device "$GPU" --variant "$LADDER" --wg 32x4 --reps 3 --warmup 1 --db "$DB"
    capped 60 "Navier-Stokes s4 on $DEV" "$OUT/ns.txt" $H run --app dg --input "$NS" --iters 20 \
        --device "$DEV" --variant s4-aligned --wg 32x4 --reps 3 --warmup 1 --db "$DB"
    rows "$OUT/ns.txt"
    grep -h "note: cuda: kernel" "$OUT/ns.txt" | sort -u | head -20
fi
if want tune; then
    sed "s/^device gpu/device $GPU/; s/^input .*/input $IN/" sweeps/tune-dg.sweep >"$OUT/tune-dg.sweep"
    capped 400 "tune" "$OUT/tune.txt" $H tune "$OUT/tune-dg.sweep" --strategy forest --budget "${TUNE_BUDGET:-24}" --db "$DB"
    tail -8 "$OUT/tune.txt"
fi

# The table: every verified row, against CUDA's best at the same input.
sqlite3 -separator ' | ' "$DB" "
WITH rows AS (
  SELECT m.variant, c.knobs, d.spec, c.input, c.wg_x || 'x' || c.wg_y AS wg, m.iters, m.scaled, m.median_s, m.mlups, m.gbs,
         (SELECT max(p.copy_gbs) FROM peak p WHERE p.device_id = d.id) AS copy
  FROM measurement m JOIN config c ON c.id = m.config_id JOIN run r ON r.id = m.run_id JOIN device d ON d.id = r.device_id
  WHERE m.status = 'ok'),
best AS (SELECT input, min(median_s / iters) AS s FROM rows WHERE spec LIKE 'cuda%' GROUP BY input)
SELECT r.variant, CASE WHEN r.knobs LIKE '%cc=%' THEN substr(r.knobs, instr(r.knobs, 'cc=')) ELSE '' END, r.spec, r.input, r.wg,
       r.iters || CASE WHEN r.scaled THEN ' (scaled)' ELSE '' END, printf('%.3f', r.median_s * 1e3),
       printf('%.3g', r.mlups * 1e6), printf('%.0f', r.gbs), printf('%.0f %%', 100 * r.gbs / r.copy),
       CASE WHEN b.s IS NULL THEN '-' ELSE printf('%.2fx', r.median_s / r.iters / b.s) END
FROM rows r LEFT JOIN best b ON b.input = r.input ORDER BY r.input, r.spec, r.median_s / r.iters;" 2>&1 |
    sed '1i variant | compiler | device | input | block | steps | median ms | P (cell updates/s) | eff. GB/s | of copy | over CUDA best'
[ ${#SKIPPED[@]} -eq 0 ] || echo "skipped for time: ${SKIPPED[*]}"
# Registers and local memory a thread per kernel, as the CUDA driver reports them (stored per measurement).
echo "registers (kernel:registers:local bytes), per variant on each device that reports them:"
sqlite3 -separator ' | ' "$DB" "
SELECT DISTINCT m.variant, d.spec, m.resources FROM measurement m JOIN run r ON r.id = m.run_id
JOIN device d ON d.id = r.device_id WHERE m.resources IS NOT NULL AND m.resources != '' ORDER BY d.spec, m.variant;" 2>&1 | head -40
