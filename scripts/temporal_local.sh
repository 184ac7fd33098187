#!/usr/bin/env bash
# Temporal blocking with the shape compiled in (geometry=compiled), now that
# a launch's steps are summed once (so tree=local no longer pays a tree per
# sub-step and tile=inner shapes of partial warps open up on CUDA) and with
# lattices=one (half the local memory: tiles that NVIDIA OpenCL's 48 KiB
# refused). The references of each goal in the same call, with the ceilings.
# Usage: HARNESS_DB=l.db scripts/temporal_local.sh [REPS]
RUN_TIMEOUT=200
. "$(dirname "$0")/gpu_bench.sh"
peak "$cuda,$ocl"
c=geometry=compiled
# gpu_runs DEVICE VARIANT INPUT KNOBS:WG...: runs with the shape compiled in.
gpu_runs() { local dev=$1 var=$2 in=$3; shift 3; runs "$dev" "$var" "$in" "${@/:/,$c:}"; }
i=tile=inner one=tile=inner,lattices=one loc=tree=local

run --device "$cuda" --input 1024x1024 --variant g06-pdl --wg 128x1
gpu_runs "$cuda" g07-temporal 1024x1024 temporal=3:32x16 temporal=3,$one,$loc:36x20 temporal=4,$one,$loc:38x22
run --device "$ocl" --input 1024x1024 --variant final --knobs obstacles=branch,divide=reciprocal,speed=moments --wg 128x1
gpu_runs "$ocl" g08-temporal-ocl 1024x1024 temporal=4:32x8 temporal=3,$one:36x20 temporal=4,$one:38x22 \
    temporal=2,$one:34x18 temporal=3,$one:68x12 temporal=4,$one:22x22 temporal=3,$i:36x20

run --device "$cuda" --input 256x256 --variant g06-pdl --wg 128x1
gpu_runs "$cuda" g07-temporal 256x256 temporal=5:32x16 temporal=5,$i:24x24 temporal=4,$i,$loc:38x22 \
    temporal=5,$i,$loc:40x24 temporal=8,$i,$loc:30x30 temporal=5,$one:24x24 temporal=4,$one,$loc:38x22
gpu_runs "$ocl" g08-temporal-ocl 256x256 temporal=4:32x8 temporal=4,$one:38x22 temporal=5,$one:24x24

run --device "$cuda" --input 128x128 --variant g06-pdl --wg 128x1
gpu_runs "$cuda" g07-temporal 128x128 temporal=5,$i:24x16 temporal=4,$i,$loc:22x14 temporal=6,$i,$loc:26x18 \
    temporal=7,$i,$loc:28x20 temporal=8,$i,$loc:30x22 temporal=6,$i,$loc:42x18 temporal=5,$one:24x16 \
    temporal=6,$one,$loc:26x18
gpu_runs "$ocl" g08-temporal-ocl 128x128 temporal=5,$i:24x16 temporal=5,$one:24x16 temporal=7,$one:28x20 \
    temporal=6,$one:26x18
exit $status
