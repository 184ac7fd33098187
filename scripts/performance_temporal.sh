#!/usr/bin/env bash
# Issue 8's second benchmark on a GPU host: the temporal-blocking variants
# (g07-temporal on CUDA, g08-temporal-ocl on OpenCL) and speed=moments at
# the tile shapes scripts/temporal.sh's sweep found best, against the best
# variants before them (g06-pdl; final with the obstacle branch and one
# reciprocal on OpenCL), at every size's full step count, with the device's
# ceilings (`harness peak`) measured in the same call. Every run verified;
# everything stored in $HARNESS_DB (performance_table.sh reads it).
# Usage: HARNESS_DB=p.db scripts/performance_temporal.sh [REPS]
. "$(dirname "$0")/gpu_bench.sh"
peak "$cuda,$ocl"
ob=obstacles=branch,divide=reciprocal
for I in 1024x1024 256x256 128x128; do
    run --device "$cuda" --input $I --variant g06-pdl --wg 128x1
    run --device "$cuda" --input $I --variant g06-pdl --knobs speed=moments --wg 128x1
    for wg in 16x8 32x8 16x16 32x16 64x8; do
        run --device "$cuda" --input $I --variant g07-temporal --wg $wg
    done
    run --device "$ocl" --input $I --variant final --knobs $ob --wg 128x1
    run --device "$ocl" --input $I --variant final --knobs $ob,speed=moments --wg 128x1
    for wg in 32x4 16x8 32x8; do
        run --device "$ocl" --input $I --variant g08-temporal-ocl --wg $wg
    done
done
exit $status
