#!/usr/bin/env bash
# The main job (`make run`): measure each device's ceiling, then run both
# ends of the report's ladder (t02-ported and final) on 128x128 at its full
# 40000 steps on every device present, verified, stored in
# results/results.db, print the table, and draw it (a bar chart of the
# variants per device, PNG and SVG) where gnuplot is present.
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
echo
# The picture of what just ran: its input, its step count (the latest).
if command -v gnuplot >/dev/null 2>&1; then
    png=$(bin/harness plot variants --input "${INPUT:-128x128}" ${HARNESS_DB:+--db "$HARNESS_DB"} \
        ${OUT_PNG:+--out "$OUT_PNG"} | head -1) && echo "picture: $png"
else
    echo "no picture: gnuplot is not installed (apt-get install gnuplot-nox, or make deps)"
fi
exit $status
