#!/usr/bin/env bash
# Issue 8's goals after geometry=compiled (g09-compiled on CUDA,
# g10-compiled-ocl on NVIDIA OpenCL) against the variants before them, at
# every size's full step count, with the device's ceilings (`harness peak`)
# in the same call. Every run verified; everything stored in $HARNESS_DB.
# Usage: HARNESS_DB=p.db scripts/performance_geometry.sh [REPS]
RUN_TIMEOUT=200
. "$(dirname "$0")/gpu_bench.sh"
peak "$cuda,$ocl"
ob=obstacles=branch,divide=reciprocal,speed=moments
i=tile=inner

run --device "$cuda" --input 1024x1024 --variant g06-pdl --wg 128x1
run --device "$cuda" --input 1024x1024 --variant g07-temporal --wg 32x16
run --device "$cuda" --input 1024x1024 --variant g09-compiled --wg 32x16
run --device "$cuda" --input 1024x1024 --variant g09-compiled --knobs temporal=4 --wg 32x8
run --device "$ocl" --input 1024x1024 --variant final --knobs $ob --wg 128x1
run --device "$ocl" --input 1024x1024 --variant final --knobs $ob,fma=on --wg 128x1
run --device "$ocl" --input 1024x1024 --variant g08-temporal-ocl --wg 32x8
run --device "$ocl" --input 1024x1024 --variant g08-temporal-ocl --knobs geometry=compiled --wg 32x8
for wg in 32x8 16x16; do run --device "$ocl" --input 1024x1024 --variant g10-compiled-ocl --wg $wg; done
run --device "$ocl" --input 1024x1024 --variant g10-compiled-ocl --knobs temporal=2 --wg 32x8

run --device "$cuda" --input 256x256 --variant g06-pdl --wg 128x1
run --device "$cuda" --input 256x256 --variant g07-temporal --wg 32x16
for t in 3 5 6; do run --device "$cuda" --input 256x256 --variant g09-compiled --knobs temporal=$t --wg 32x16; done
run --device "$ocl" --input 256x256 --variant g08-temporal-ocl --wg 32x8
run --device "$ocl" --input 256x256 --variant g10-compiled-ocl --wg 32x8

run --device "$cuda" --input 128x128 --variant g06-pdl --wg 128x1
run --device "$cuda" --input 128x128 --variant g07-temporal --wg 16x8
run --device "$cuda" --input 128x128 --variant g09-compiled --knobs temporal=5,$i --wg 24x16
run --device "$cuda" --input 128x128 --variant g09-compiled --knobs temporal=5,$i --wg 40x12
run --device "$ocl" --input 128x128 --variant final --knobs $ob --wg 128x1
run --device "$ocl" --input 128x128 --variant g08-temporal-ocl --wg 16x8
run --device "$ocl" --input 128x128 --variant g10-compiled-ocl --knobs temporal=7,$i,lattices=one --wg 28x20
run --device "$ocl" --input 128x128 --variant g10-compiled-ocl --knobs temporal=5,$i --wg 24x16
exit $status
