#!/usr/bin/env bash
# sums=deferred (each sub-step's warp sums after its barrier, overlapping
# the next sub-step) against sums=each, same call, full step counts, on the
# compiled-shape CUDA variant at its best shapes.
# Usage: HARNESS_DB=s.db scripts/sums.sh [REPS]
set -u
reps=${1:-3}
RUN_TIMEOUT=200
. "$(dirname "$0")/gpu_bench.sh"
peak "$cuda"
pair() { for o in each deferred; do
    run --device "$cuda" --input "$1" --variant g09-compiled --knobs "${2:+$2,}sums=$o" --wg "$3"; done; }
pair 128x128 temporal=5,tile=inner 24x16
pair 128x128 temporal=3,tile=inner 36x8
pair 128x128 temporal=7,tile=inner 44x16
pair 256x256 temporal=5 32x16
pair 256x256 temporal=4 32x16
pair 1024x1024 "" 32x16
exit $status
