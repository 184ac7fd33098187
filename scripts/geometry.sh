#!/usr/bin/env bash
# geometry=compiled (the work-group's shape compiled into the temporal
# kernel) against geometry=runtime on the same shapes, at the three sizes,
# CUDA (g07-temporal) and NVIDIA OpenCL (g08-temporal-ocl), with the
# one-step baselines and the device's ceilings in the same call. Full step
# counts. Usage: HARNESS_DB=g.db scripts/geometry.sh [REPS]
set -u
reps=${1:-3}
RUN_TIMEOUT=200
. "$(dirname "$0")/gpu_bench.sh"
peak "$cuda,$ocl"
c=geometry=compiled
# 1024x1024: the one-step kernels, then T and shape with the shape compiled in.
run --device "$cuda" --input 1024x1024 --variant g06-pdl --wg 128x1
run --device "$cuda" --input 1024x1024 --variant g07-temporal --wg 32x16
for tw in 4:32x16 4:16x16 4:32x8 4:64x8 4:64x16 2:32x16 3:32x16 5:32x16 3:64x16; do
    run --device "$cuda" --input 1024x1024 --variant g07-temporal --knobs temporal=${tw%%:*},$c --wg ${tw#*:}
done
run --device "$ocl" --input 1024x1024 --variant final --knobs obstacles=branch,divide=reciprocal,speed=moments --wg 128x1
for tw in 4:32x8 3:32x8 2:32x8 3:16x16 2:32x4; do
    run --device "$ocl" --input 1024x1024 --variant g08-temporal-ocl --knobs temporal=${tw%%:*},$c --wg ${tw#*:}
done
# 256x256 and 128x128: the best shapes of earlier calls, compiled.
run --device "$cuda" --input 256x256 --variant g07-temporal --wg 32x16
for tw in 4:32x16 4:64x8 3:32x16 5:32x16 6:32x16; do
    run --device "$cuda" --input 256x256 --variant g07-temporal --knobs temporal=${tw%%:*},$c --wg ${tw#*:}
done
run --device "$cuda" --input 256x256 --variant g07-temporal --knobs temporal=5,tile=inner,$c --wg 24x16
run --device "$ocl" --input 256x256 --variant g08-temporal-ocl --knobs $c --wg 32x8
run --device "$cuda" --input 128x128 --variant g07-temporal --knobs temporal=5,tile=inner --wg 24x16
for tw in 5:24x16 3:36x8 7:44x16 4:22x14; do
    run --device "$cuda" --input 128x128 --variant g07-temporal --knobs temporal=${tw%%:*},tile=inner,$c --wg ${tw#*:}
done
run --device "$cuda" --input 128x128 --variant g07-temporal --knobs $c --wg 16x8
run --device "$ocl" --input 128x128 --variant g08-temporal-ocl --knobs $c --wg 16x8
run --device "$ocl" --input 128x128 --variant g08-temporal-ocl --knobs temporal=5,tile=inner,$c --wg 24x16
exit $status
