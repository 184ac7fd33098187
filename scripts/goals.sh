#!/usr/bin/env bash
# Issue 8's GPU goals, measured together: the copy ceilings, then three
# interleaved rounds of each size's best on each GPU backend (full step
# counts, REPS timed repetitions each), then `harness verify lbm` on both
# GPU devices (at the default shape, and at 24x16 for the tile=inner
# variant). $2: where the verify tables go (default: standard output).
# Usage: HARNESS_DB=g.db scripts/goals.sh [REPS] [VERIFY_OUT]
RUN_TIMEOUT=200
. "$(dirname "$0")/gpu_bench.sh"
peak "$cuda,$ocl"
ocl128=temporal=5,tile=inner,lattices=one,cells=fixed,entry=pull,moments=tree,math=fast,obstacles=mask,fma=default,sums=end
for round in 1 2 3; do
    echo "# round $round"
    run --device "$cuda" --input 1024x1024 --variant g15-fast --wg 32x16
    run --device "$ocl" --input 1024x1024 --variant g17-counted-ocl --wg 32x8
    run --device "$cuda" --input 128x128 --variant g16-pull --wg 24x16
    run --device "$cuda" --input 256x256 --variant g16-pull --knobs sums=end --wg 40x24
    run --device "$cuda" --input 256x256 --variant g16-pull --wg 40x24
    run --device "$ocl" --input 128x128 --variant g17-counted-ocl --knobs "$ocl128" --wg 24x16
done
out=${2:-/dev/stdout}
{ $H verify lbm --device "$cuda,$ocl" && $H verify lbm --device "$cuda,$ocl" --variant g16-pull --wg 24x16; } > "$out" 2>&1 || status=1
exit $status
