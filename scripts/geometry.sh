#!/usr/bin/env bash
# geometry=compiled (the work-group's shape compiled into the temporal
# kernel) against geometry=runtime, at the three sizes, CUDA (g07-temporal)
# and NVIDIA OpenCL (g08-temporal-ocl), with the one-step baselines and the
# device's ceilings in the same call. Full step counts.
# Usage: HARNESS_DB=g.db scripts/geometry.sh [REPS]
RUN_TIMEOUT=200
. "$(dirname "$0")/gpu_bench.sh"
peak "$cuda,$ocl"
c=geometry=compiled
# cuda_runs INPUT T:WG... / ocl_runs INPUT T:WG...: the shape compiled in.
compiled() { local a=("${@/#/temporal=}"); printf '%s\n' "${a[@]/:/,$c:}"; }
cuda_runs() { local in=$1; shift; mapfile -t p < <(compiled "$@"); runs "$cuda" g07-temporal "$in" "${p[@]}"; }
ocl_runs() { local in=$1; shift; mapfile -t p < <(compiled "$@"); runs "$ocl" g08-temporal-ocl "$in" "${p[@]}"; }

run --device "$cuda" --input 1024x1024 --variant g06-pdl --wg 128x1
run --device "$cuda" --input 1024x1024 --variant g07-temporal --wg 32x16
cuda_runs 1024x1024 3:32x16 4:32x16 3:32x8 4:32x8 3:64x8
run --device "$ocl" --input 1024x1024 --variant final --knobs obstacles=branch,divide=reciprocal,speed=moments --wg 128x1
run --device "$ocl" --input 1024x1024 --variant g08-temporal-ocl --wg 32x8
ocl_runs 1024x1024 4:32x8 3:32x8 2:32x8 3:16x16 4:16x16

run --device "$cuda" --input 256x256 --variant g07-temporal --wg 32x16
cuda_runs 256x256 4:32x16 5:32x16 6:32x16 8:32x16 6:64x8
ocl_runs 256x256 4:32x8 3:32x8 4:16x16

run --device "$cuda" --input 128x128 --variant g07-temporal --knobs temporal=5,tile=inner --wg 24x16
cuda_runs 128x128 5,tile=inner:24x16 5,tile=inner:24x24 5,tile=inner:40x16 5,tile=inner:40x12 \
    3,tile=inner:36x8 7,tile=inner:44x16 8,tile=inner:46x16 6:16x16 8:16x16
ocl_runs 128x128 4:16x8 5,tile=inner:24x16
exit $status
