#!/usr/bin/env bash
# How much does a fresh process move a measurement, and does pinning it to
# one core (the launch thread of a GPU backend; OpenMP's threads with
# OMP_PROC_BIND) take that away? N fresh `harness run` processes per mode,
# the modes interleaved, each the same config; prints each mode's spread.
# Usage: scripts/round_spread.sh OUTDIR N DEVICE [VARIANT]   (env: CORE=5, INPUT=128x128, ITERS=1000)
set -u
out=$1 n=$2 dev=$3 variant=${4:-final}
core=${CORE:-5} input=${INPUT:-128x128} iters=${ITERS:-1000}
cd "$(dirname "$0")/.."
mkdir -p "$out"
for i in $(seq 1 "$n"); do
    bin/harness run --input "$input" --iters "$iters" --device "$dev" --variant "$variant" --reps 3 --warmup 1 \
        --db "$out/free.db" >/dev/null 2>&1
    taskset -c "$core" bin/harness run --input "$input" --iters "$iters" --device "$dev" --variant "$variant" --reps 3 \
        --warmup 1 --db "$out/pin.db" >/dev/null 2>&1
    OMP_PROC_BIND=close OMP_PLACES=cores bin/harness run --input "$input" --iters "$iters" --device "$dev" \
        --variant "$variant" --reps 3 --warmup 1 --db "$out/bind.db" >/dev/null 2>&1
done
for mode in free pin bind; do
    sqlite3 "$out/$mode.db" "SELECT median_s FROM measurement" | sort -g | awk -v m="$mode" -v d="$dev" '
        {v[NR] = $1; s += log($1); ss += log($1) * log($1)}
        END {n = NR; mean = s / n; sd = sqrt((ss - n * mean * mean) / (n - 1));
             printf "%-10s %-5s n %2d  median %.4f ms  min %.4f  max %.4f  sd of log %.1f %%\n", d, m, n,
                    1000 * v[int((n + 1) / 2)], 1000 * v[1], 1000 * v[n], 100 * sd}'
done
