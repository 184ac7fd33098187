#!/usr/bin/env bash
# sums=deferred (each sub-step's warp sums after its barrier, overlapping
# the next sub-step) and collide=paired (the collision by opposite pairs)
# against the compiled-shape variants as they are, same call, full step
# counts, at each size's best shape.
# Usage: HARNESS_DB=s.db scripts/sums.sh [REPS]
RUN_TIMEOUT=200
. "$(dirname "$0")/gpu_bench.sh"
peak "$cuda,$ocl"
# four INPUT KNOBS WG: g09-compiled as is, paired, deferred, both.
four() { for o in "" collide=paired sums=deferred collide=paired,sums=deferred; do
    local k=$2${2:+${o:+,}}$o
    if [ -n "$k" ]; then run --device "$cuda" --input "$1" --variant g09-compiled --knobs "$k" --wg "$3"
    else run --device "$cuda" --input "$1" --variant g09-compiled --wg "$3"; fi; done; }
four 1024x1024 "" 32x16
four 256x256 temporal=5 32x16
four 128x128 temporal=5,tile=inner 24x16
for o in "" ,collide=paired; do
    run --device "$ocl" --input 1024x1024 --variant g10-compiled-ocl --knobs "temporal=4$o" --wg 32x8
    run --device "$ocl" --input 128x128 --variant g10-compiled-ocl --knobs "temporal=7,tile=inner,lattices=one$o" --wg 28x20
done
exit $status
