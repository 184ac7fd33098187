#!/usr/bin/env bash
# overlap=pdl-early (the next launch scheduled as soon as each block's wait
# returns) against overlap=pdl (when each block ends), same call, full step
# counts, on the best compiled-shape variants and the one-step g06-pdl.
# Usage: HARNESS_DB=e.db scripts/pdl_early.sh [REPS]
RUN_TIMEOUT=200
. "$(dirname "$0")/gpu_bench.sh"
peak "$cuda"
# pair INPUT VARIANT KNOBS WG: the variant with pdl, then with pdl-early.
pair() { for o in pdl pdl-early; do
    run --device "$cuda" --input "$1" --variant "$2" --knobs "${3:+$3,}overlap=$o" --wg "$4"; done; }
pair 128x128 g06-pdl "" 128x1
pair 128x128 g09-compiled temporal=5,tile=inner 24x16
pair 128x128 g09-compiled temporal=3,tile=inner 36x8
pair 128x128 g09-compiled temporal=4 16x8
pair 256x256 g06-pdl "" 128x1
pair 256x256 g09-compiled temporal=5 32x16
pair 256x256 g09-compiled temporal=3 32x16
pair 256x256 g09-compiled temporal=4 32x16
pair 1024x1024 g09-compiled "" 32x16
pair 1024x1024 g06-pdl "" 128x1
exit $status
