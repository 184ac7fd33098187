#!/usr/bin/env bash
# Runs every named LBM variant on the given inputs at their full step
# counts, except t01-given (the report's host-bound starting program), which
# runs 1/SCALE of the steps and is reported scaled to the full count.
# Usage: scripts/ladder_table.sh DEVICES "128x128 256x256 1024x1024" [REPS]
# Prints the table as markdown at the end (scripts/ladder_markdown.sh).
set -u
cd "$(dirname "$0")/.."
devices=$1 inputs=$2 reps=${3:-3}
variants=$(grep -oE '^[a-z0-9-]+:' variants/lbm.variants | tr -d : | grep -v '^t01-given$' | paste -sd, -)
status=0
for input in $inputs; do
    full=$(sed -n 3p kernels/lbm/data/input_$input.params)
    nx=$(sed -n 1p kernels/lbm/data/input_$input.params)
    # t01-given copies the grid both ways every step: run ~1/10 at 128x128,
    # ~1/40 at 1024x1024, then scale (marked as scaled everywhere).
    t01_iters=$(( full * 128 / nx / 10 ))
    [ $t01_iters -lt 200 ] && t01_iters=200
    bin/harness run --input $input --device "$devices" --variant t01-given --iters $t01_iters --reps $reps || status=1
    bin/harness run --input $input --device "$devices" --variant "$variants" --reps $reps || status=1
done
bash scripts/ladder_markdown.sh "${HARNESS_DB:-results/results.db}"
exit $status
