#!/usr/bin/env bash
# temporal=2|3|4 (several steps per launch, lbm_temporal.h) on a GPU host,
# against the best one-step-per-launch variants, with the device's ceilings
# (`harness peak`) measured in the same call. CUDA: g06-pdl plus temporal=T;
# NVIDIA OpenCL: g01-pingpong with the obstacle branch and one reciprocal
# (the best OpenCL settings) plus temporal=T. Each shape is its own run, so
# a shape that one T refuses costs only its own line. Every run verified;
# everything stored in $HARNESS_DB.
# Usage: HARNESS_DB=t.db scripts/temporal.sh [REPS] [ITERS_1024]
. "$(dirname "$0")/gpu_bench.sh"
iters_big=${2:-4000}
peak "$cuda,$ocl"
ocl_knobs=obstacles=branch,divide=reciprocal
for input in 128x128 256x256 1024x1024; do
    iters=(); [ $input = 1024x1024 ] && iters=(--iters "$iters_big")
    run --device "$cuda" --input $input "${iters[@]}" --variant g06-pdl --wg 128x1
    run --device "$ocl" --input $input "${iters[@]}" --variant g01-pingpong --knobs $ocl_knobs --wg 128x1
    for t in 2 3 4; do
        for wg in 128x1 64x2 128x2 32x4 64x4 32x8 64x8 32x16 128x4; do
            run --device "$cuda" --input $input "${iters[@]}" --variant g06-pdl --knobs temporal=$t --wg $wg
            run --device "$ocl" --input $input "${iters[@]}" --variant g01-pingpong --knobs $ocl_knobs,temporal=$t --wg $wg
        done
    done
done
exit $status
