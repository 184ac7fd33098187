#!/usr/bin/env bash
# entry=pull (the first sub-step pulls from the global lattice: no load
# pass) and sums=end (every sub-step's warp sums shuffled together at the
# launch's end) on top of the best settings of fast_sweep.sh, same call,
# full step counts; then the fast-math settings at 1024x1024 and on
# NVIDIA's OpenCL, against the published bests.
# Usage: HARNESS_DB=e.db scripts/entry_pull.sh [REPS]
RUN_TIMEOUT=200
. "$(dirname "$0")/gpu_bench.sh"
peak "$cuda,$ocl"
v=g11-paired
b1=temporal=5,tile=inner,cells=fixed,moments=tree,math=fast,obstacles=mask
runs "$cuda" $v 128x128 $b1:24x16 $b1,entry=pull:24x16 $b1,sums=end:24x16 $b1,entry=pull,sums=end:24x16 \
    $b1,entry=pull,sums=end:16x24 $b1,entry=pull,sums=end:40x12 $b1,entry=pull,sums=end:24x24
b2=moments=tree,math=fast,obstacles=mask
runs "$cuda" $v 256x256 temporal=5,$b2:32x16 temporal=5,$b2,sums=end:32x16 temporal=6,$b2,sums=end:32x16 \
    temporal=5,tile=inner,cells=fixed,entry=pull,sums=end,$b2:40x24 temporal=5,tile=inner,cells=fixed,entry=pull,sums=end,$b2:24x24 \
    temporal=5,tile=inner,cells=fixed,entry=pull,sums=end,$b2:40x16 temporal=5,tile=inner,cells=fixed,entry=pull,sums=end,$b2:24x40
runs "$cuda" $v 1024x1024 :32x16 $b2:32x16 $b2,sums=end:32x16
runs "$ocl" g13-warp-ocl 1024x1024 :32x8 moments=tree,math=fast,fma=default,obstacles=mask:32x8
runs "$ocl" g12-paired-ocl 128x128 temporal=7,tile=inner,lattices=one:28x20 \
    temporal=7,tile=inner,lattices=one,cells=fixed,moments=tree,math=fast,fma=default,obstacles=mask:28x20 \
    temporal=7,tile=inner,lattices=one,cells=fixed,entry=pull,moments=tree,math=fast,fma=default,obstacles=mask:28x20
exit $status
