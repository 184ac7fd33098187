#!/usr/bin/env bash
# unroll=counted on NVIDIA's OpenCL (the sub-step loop with its count spelled
# out and no early exit, which its compiler unrolls) with and without the
# fast settings, against CUDA's best at 1024x1024, same call, full step
# counts; then at 128x128 with cells=fixed and entry=pull.
# Usage: HARNESS_DB=u.db scripts/opencl_unroll.sh [REPS]
RUN_TIMEOUT=200
. "$(dirname "$0")/gpu_bench.sh"
peak "$cuda,$ocl"
b=moments=tree,math=fast,obstacles=mask
o=$b,fma=default
runs "$cuda" g11-paired 1024x1024 $b:32x16
runs "$ocl" g13-warp-ocl 1024x1024 :32x8 unroll=counted:32x8 unroll=counted,$o:32x8 \
    temporal=3,unroll=counted,$o:32x8 unroll=counted,$o:16x16 unroll=counted,$o:64x4
i=tile=inner,lattices=one,cells=fixed,entry=pull
runs "$ocl" g12-paired-ocl 128x128 temporal=7,tile=inner,lattices=one:28x20 \
    temporal=7,unroll=counted,$i,$o:28x20 temporal=5,unroll=counted,$i,$o:24x16 \
    temporal=5,unroll=counted,$i,$o,tree=warp,sums=end:24x16
exit $status
