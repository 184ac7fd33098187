#!/usr/bin/env bash
# Issue 8's OpenCL goal: NVIDIA OpenCL's best (g13-warp-ocl, tree=warp by
# inline PTX) against CUDA's best (g11-paired) at 1024x1024, interleaved in
# three rounds so drift shows, the ceilings in the same call; then
# `harness verify lbm` on both devices.
# Usage: HARNESS_DB=w.db scripts/opencl_warp.sh [REPS] [VERIFY_OUT]
RUN_TIMEOUT=200
. "$(dirname "$0")/gpu_bench.sh"
peak "$cuda,$ocl"
for round in 1 2 3; do
    echo "# round $round"
    run --device "$cuda" --input 1024x1024 --variant g11-paired --wg 32x16
    run --device "$ocl" --input 1024x1024 --variant g13-warp-ocl --wg 32x8
    run --device "$ocl" --input 1024x1024 --variant g13-warp-ocl --knobs sums=deferred --wg 32x8
done
run --device "$ocl" --input 256x256 --variant g13-warp-ocl --wg 32x8
$H verify lbm --device "$cuda,$ocl" > "${2:-/dev/stdout}" 2>&1 || status=1
exit $status
