#!/usr/bin/env bash
# The main job (`make run`): measure each device's ceiling, then run both
# ends of the report's ladder (t02-ported and final) on 128x128 at its full
# 40000 steps on every device present, verified, stored in
# results/results.db, and print the table.
# ITERS=N shortens the run; DEVICE=spec limits the devices; REPS=N.
set -eu
cd "$(dirname "$0")/.."
args=(--app lbm --input "${INPUT:-128x128}" --variant t02-ported,final --reps "${REPS:-3}" --warmup 1)
[ -n "${ITERS:-}" ] && args+=(--iters "$ITERS")
[ -n "${DEVICE:-}" ] && args+=(--device "$DEVICE")
bin/harness devices
echo
bin/harness peak ${DEVICE:+--device "$DEVICE"}
echo
status=0
bin/harness run "${args[@]}" || status=$?
echo
echo "stored in ${HARNESS_DB:-results/results.db}; the latest rows:"
bin/harness results --limit 8
exit $status
