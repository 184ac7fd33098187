#!/usr/bin/env bash
# cells=fixed (each work-item keeps one cell for every sub-step of a
# tile=inner launch), moments=tree (density and momentum by a balanced tree
# over opposite pairs) and math=fast (the compiler's relaxed math: one
# instruction for the reciprocal of rho and for |u|'s square root) against
# g11-paired as it is, same call, full step counts: each alone and together
# at each size's best shape, then the three together over other shapes.
# Usage: HARNESS_DB=f.db scripts/fixed_cells.sh [REPS]
RUN_TIMEOUT=200
. "$(dirname "$0")/gpu_bench.sh"
peak "$cuda"
v=g11-paired all=cells=fixed,moments=tree,math=fast
i5=temporal=5,tile=inner
runs "$cuda" $v 128x128 $i5:24x16 $i5,cells=fixed:24x16 $i5,moments=tree:24x16 $i5,math=fast:24x16 \
    $i5,$all:24x16 $i5,$all:40x12 $i5,$all:16x24 $i5,$all:24x24 \
    temporal=7,tile=inner,$all:28x20 temporal=3,tile=inner,$all:36x8
runs "$cuda" $v 256x256 temporal=5:32x16 temporal=5,moments=tree,math=fast:32x16 \
    $i5,$all:40x24 $i5,$all:24x24 $i5,$all:40x16 temporal=3,tile=inner,$all:36x20 \
    temporal=3,tile=inner,$all:68x12 temporal=7,tile=inner,$all:28x28
exit $status
