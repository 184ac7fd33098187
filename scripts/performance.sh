#!/usr/bin/env bash
# Issue 8's benchmark on a GPU host: the device's ceilings (`harness peak`)
# and, in the same call, the report's `final` against the variants beyond it
# (g01-pingpong, g02-graph, g03-persistent, g04-warp-tree, persistent=cluster,
# g05-cluster) at every
# size's full step count on CUDA and NVIDIA OpenCL, and the OpenMP variants
# on the host's CPU. Every run verified; everything stored in $HARNESS_DB.
# scripts/performance_table.sh turns the database into performance.md's tables.
# Usage: HARNESS_DB=perf.db scripts/performance.sh [REPS]
. "$(dirname "$0")/gpu_bench.sh"
peak cuda,opencl:1.0,openmp
for input in 128x128 256x256 1024x1024; do
    wide=128x1; [ $input != 128x128 ] && wide=256x1 # a shape must divide the grid
    # The report's shape (32x1) and the swept best (128x1) for the step-per-launch variants.
    run --device cuda:0 --input $input --variant final,g01-pingpong,g02-graph --wg 32x1,128x1
    run --device cuda:0 --input $input --variant g02-graph --knobs batch=256 --wg 128x1
    run --device cuda:0 --input $input --variant g03-persistent --wg 128x1,64x2
    run --device cuda:0 --input $input --variant g04-warp-tree --wg 64x1,128x1,$wide
    run --device opencl:1.0 --input $input --variant final,g01-pingpong --wg 32x1,128x1
    run --device opencl:1.0 --input $input --variant final --knobs obstacles=branch,divide=reciprocal --wg 64x1,$wide
done
# One thread-block cluster holding the grid (where it fits: 128x128 on sm_90).
run --device cuda:0 --input 128x128 --knobs persistent=cluster --wg 128x8
run --device cuda:0 --input 128x128 --variant g05-cluster --wg 128x8,128x4
# The host CPU: 1024x1024 on 2000 of its 20000 steps (scaled in the tables).
run --device openmp --input 1024x1024 --iters 2000 --variant final,g03-persistent --wg 32x1,1024x1,1024x4
exit $status
