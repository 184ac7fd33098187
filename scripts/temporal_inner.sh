#!/usr/bin/env bash
# temporal=T with tile=inner (the work-group covers its tile and all but the
# outer ring of the halo: one cell an item per sub-step) on the small grids,
# where a four-step launch was held by each item looping over the halo.
# CUDA: g07-temporal (tree=warp: whole warps only) with tile=inner at T and
# shapes whose item count is a multiple of 32; NVIDIA OpenCL: g08-temporal-ocl
# with tile=inner. Full step counts; the device's ceilings in the same call.
# Usage: HARNESS_DB=i.db scripts/temporal_inner.sh [REPS]
RUN_TIMEOUT=200
. "$(dirname "$0")/gpu_bench.sh"
peak "$cuda,$ocl"
for I in 128x128 256x256; do
    run --device "$cuda" --input $I --variant g06-pdl --knobs speed=moments --wg 128x1
    # T:work-group pairs (tile = work-group - 2(T-1), dividing 128).
    for tw in 3:20x8 3:36x8 3:68x8 5:24x12 5:24x16 5:40x16 7:44x16 8:30x16 8:46x16; do
        run --device "$cuda" --input $I --variant g07-temporal --knobs temporal=${tw%%:*},tile=inner --wg ${tw#*:}
    done
    for tw in 3:20x8 4:22x14 4:38x10 5:24x16 8:30x16; do
        run --device "$ocl" --input $I --variant g08-temporal-ocl --knobs temporal=${tw%%:*},tile=inner --wg ${tw#*:}
    done
done
exit $status
