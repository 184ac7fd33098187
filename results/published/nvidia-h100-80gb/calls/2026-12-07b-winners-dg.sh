#!/usr/bin/env bash
# One call for what a short device budget can still settle (stop 49): the
# published winners again (issue 36: within 1 % of their published times,
# scripts/gpu-calls/winners-check.sh, the copy ceiling in the same call),
# then the DG solver's o7-tiled beside o6-fused and s4-aligned at the seed's
# case on both GPU devices with the copy ceiling (issue 38: the best CUDA
# variant at >= 50 % of the binding roof), then `tune` over tune-dg.sweep
# with what time is left (issue 38's tune). Everything lands in $OUT.
#   [END=575] [WINNERS_CAP=220] [DG_PARTS="peak tiled tune"] bash results/published/nvidia-h100-80gb/calls/2026-12-07b-winners-dg.sh
set -u
: "${OUT:?set OUT}"
source .gpu-host/setup.sh >"$OUT/setup.log" 2>&1
C=$(git rev-parse HEAD 2>/dev/null || echo unknown)
make -j16 GIT_COMMIT="$C" GIT_DIRTY=0 >"$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
echo "built $C at ${SECONDS}s"
{ nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,clocks.max.sm --format=csv; bin/harness devices; } \
    >"$OUT/devices.txt" 2>&1
head -2 "$OUT/devices.txt"
OUT=$OUT/winners timeout ${WINNERS_CAP:-220} bash scripts/gpu-calls/winners-check.sh >"$OUT/winners.txt" 2>&1
echo "winners: exit $? at ${SECONDS}s"
tail -8 "$OUT/winners.txt"
# dg-gpu.sh counts its DEADLINE from its own start: what is left of ours.
left=$((${END:-575} - SECONDS))
mkdir -p "$OUT/dg"
OUT=$OUT/dg DEADLINE=$left REPS=3 TUNE_BUDGET=${TUNE_BUDGET:-16} PARTS="${DG_PARTS:-peak tiled tune}" \
    bash scripts/gpu-calls/dg-gpu.sh 2>&1 | grep -v '^built' | cut -c1-240
echo "done at ${SECONDS}s"
