#!/usr/bin/env bash
# After fixed_cells.sh: the best settings so far (g11-paired with
# cells=fixed, moments=tree, math=fast at 128x128; moments=tree, math=fast
# at 256x256) with one more knob changed at a time, and the other temporal
# depths and shapes at 256x256, same call, full step counts.
# Usage: HARNESS_DB=s.db scripts/fast_sweep.sh [REPS]
RUN_TIMEOUT=200
. "$(dirname "$0")/gpu_bench.sh"
peak "$cuda"
v=g11-paired
b1=temporal=5,tile=inner,cells=fixed,moments=tree,math=fast
runs "$cuda" $v 128x128 $b1:24x16 $b1,overlap=pdl-early:24x16 $b1,sums=each:24x16 $b1,obstacles=mask:24x16 \
    $b1,loads=plain:24x16 $b1,batch=1024:24x16 $b1,divide=ieee:24x16 $b1,collide=plain:24x16 $b1:16x24
b2=moments=tree,math=fast
runs "$cuda" $v 256x256 temporal=5,$b2:32x16 temporal=4,$b2:32x16 temporal=6,$b2:32x16 \
    temporal=4,$b2:16x16 temporal=5,$b2:16x16 temporal=6,$b2:16x16 temporal=5,$b2:32x8 temporal=5,$b2:64x8 \
    temporal=5,$b2,overlap=pdl-early:32x16 temporal=5,$b2,sums=each:32x16 temporal=5,$b2,obstacles=mask:32x16 \
    temporal=5,$b2,loads=plain:32x16 temporal=5,$b2,ilp=2:32x16 temporal=5,$b2,batch=1024:32x16
exit $status
