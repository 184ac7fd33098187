#!/usr/bin/env bash
# ilp=2 (two cells a work-item per pass over a sub-step's region) against
# ilp=1 on the compiled-shape variants (g09-compiled, g10-compiled-ocl), at
# the three sizes, full step counts, the ceilings in the same call.
# Usage: HARNESS_DB=i.db scripts/ilp.sh [REPS]
RUN_TIMEOUT=200
. "$(dirname "$0")/gpu_bench.sh"
peak "$cuda,$ocl"
runs "$cuda" g09-compiled 256x256 temporal=5:32x16 temporal=5,ilp=2:32x16 temporal=6,ilp=2:32x16 \
    temporal=4,ilp=2:32x16 temporal=5,ilp=2:64x8 temporal=5,ilp=2,obstacles=mask:32x16 temporal=5,tile=inner:40x24 \
    temporal=8,ilp=2:32x16
runs "$ocl" g10-compiled-ocl 256x256 temporal=4:32x8 temporal=4,ilp=2:32x8
runs "$cuda" g09-compiled 1024x1024 temporal=3:32x16 temporal=3,ilp=2:32x16 temporal=4,ilp=2:32x8
runs "$ocl" g10-compiled-ocl 1024x1024 temporal=4:32x8 temporal=4,ilp=2:32x8 temporal=4,ilp=2:16x16
runs "$cuda" g09-compiled 128x128 temporal=5,tile=inner:24x16 temporal=5,ilp=2:16x8 temporal=6,ilp=2:16x16 \
    temporal=8,ilp=2:16x16 temporal=5,tile=inner,ilp=2:24x16
runs "$ocl" g10-compiled-ocl 128x128 temporal=7,tile=inner,lattices=one:28x20 temporal=4,ilp=2:16x8 temporal=6,ilp=2:16x16
exit $status
