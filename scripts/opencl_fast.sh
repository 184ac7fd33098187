#!/usr/bin/env bash
# The fast settings at 1024x1024 on both GPU backends, same call, full step
# counts: CUDA's g11-paired with moments=tree, math=fast, obstacles=mask
# (tile=group, and tile=inner with cells=fixed, entry=pull), and NVIDIA's
# OpenCL g13-warp-ocl with the same (math=fast there also takes the native
# reciprocal and square root; lattices=one where a tile=inner group's local
# lattices would pass OpenCL's 48 KiB).
# Usage: HARNESS_DB=o.db scripts/opencl_fast.sh [REPS]
RUN_TIMEOUT=200
. "$(dirname "$0")/gpu_bench.sh"
peak "$cuda,$ocl"
b=moments=tree,math=fast,obstacles=mask
i=tile=inner,cells=fixed,entry=pull
runs "$cuda" g11-paired 1024x1024 $b:32x16 temporal=5,$i,sums=end,$b:40x24 temporal=5,$i,sums=end,$b:24x40 \
    temporal=4,$b,sums=end:32x16
o=$b,fma=default
runs "$ocl" g13-warp-ocl 1024x1024 :32x8 $o:32x8 temporal=3,$o:32x8 $o:16x16 \
    temporal=5,$i,lattices=one,$o:40x24 temporal=5,$i,lattices=one,$o:24x40 temporal=5,$i,lattices=one,$o:40x16 \
    temporal=5,$i,lattices=one,sums=end,$o:40x24 temporal=3,$i,lattices=one,$o:36x8
exit $status
