#!/usr/bin/env bash
# Issue 8's second benchmark on a GPU host: the candidates that
# scripts/temporal.sh's sweep found (temporal=T tiles, speed=moments) against
# the best variants before them, at every size's full step count, with the
# device's ceilings (`harness peak`) measured in the same call. Every run
# verified; everything stored in $HARNESS_DB (performance_table.sh reads it).
# Usage: HARNESS_DB=p.db scripts/performance_temporal.sh [REPS]
set -u
cd "$(dirname "$0")/.."
H=bin/harness
reps=${1:-3}
cuda=${CUDA_DEVICE:-cuda:0} ocl=${OPENCL_DEVICE:-opencl:1.0}
status=0
run() { echo "+ harness run $*"; timeout 300 $H run --reps "$reps" "$@" || status=1; }
$H peak --device "$cuda,$ocl" || status=1
ob=obstacles=branch,divide=reciprocal
# 1024x1024, 20000 steps: the bandwidth goal.
I=1024x1024
run --device "$cuda" --input $I --variant g06-pdl --wg 128x1
run --device "$cuda" --input $I --variant g06-pdl --knobs speed=moments --wg 128x1
for wg in 32x16 32x32 64x16; do
    run --device "$cuda" --input $I --variant g06-pdl --knobs temporal=3 --wg $wg
    run --device "$cuda" --input $I --variant g06-pdl --knobs temporal=3,speed=moments --wg $wg
done
run --device "$cuda" --input $I --variant g06-pdl --knobs temporal=2,speed=moments --wg 32x32
run --device "$cuda" --input $I --variant g06-pdl --knobs temporal=4,speed=moments --wg 32x16
run --device "$ocl" --input $I --variant final --knobs $ob --wg 128x1
run --device "$ocl" --input $I --variant final --knobs $ob,speed=moments --wg 128x1
run --device "$ocl" --input $I --variant g01-pingpong --knobs $ob,temporal=3,speed=moments --wg 32x8
# 256x256, 80000 steps.
I=256x256
run --device "$cuda" --input $I --variant g06-pdl --wg 128x1
run --device "$cuda" --input $I --variant g06-pdl --knobs speed=moments --wg 128x1
for wg in 32x16 32x32 64x16; do
    run --device "$cuda" --input $I --variant g06-pdl --knobs temporal=4,speed=moments --wg $wg
done
run --device "$ocl" --input $I --variant g01-pingpong --knobs $ob,temporal=4,speed=moments --wg 32x8
# 128x128, 40000 steps: the launch-bound goals.
I=128x128
run --device "$cuda" --input $I --variant g06-pdl --wg 128x1
run --device "$cuda" --input $I --variant g06-pdl --knobs speed=moments --wg 128x1
run --device "$cuda" --input $I --variant g06-pdl --knobs temporal=4,speed=moments --wg 32x8
for wg in 32x4 32x8; do
    run --device "$ocl" --input $I --variant g01-pingpong --knobs $ob,temporal=4 --wg $wg
    run --device "$ocl" --input $I --variant g01-pingpong --knobs $ob,temporal=4,speed=moments --wg $wg
done
exit $status
