#!/usr/bin/env bash
# The measurement issue's power check on a CPU machine (issue 16, "this
# machine"): three clean nights, then a night on a tree whose OpenMP fused
# tile does more arithmetic (scripts/nightly_noise.sh calibrates it to about
# 5 %): the gate must confirm openmp final and confirm nothing but the fused
# series the fixture slows (final, t09-deferred). Prints ok / not ok; about 8
# minutes on a 2-core machine, so it is a benchmark, not part of make test.
# Measured: results/published/cpu-vm-2core/nightly-noise.md.
set -u
cd "$(dirname "$0")/.."
out=$(mktemp -d)
BURN=10 BACKEND=openmp scripts/nightly_noise.sh "$out" 3 >/dev/null 2>&1
log=$(ls "$out"/night-slow5-*.log 2>/dev/null | head -1)
if [ -z "$log" ]; then
    echo "not ok - no N slowed openmp final by 4 % or more in the calibration: $(tr '\n' ' ' <"$out/calibration.txt")"
    exit 1
fi
line=$(awk '$1 == "openmp" && $4 == "final" && /REGRESSION|improvement|same/' "$log" | head -1)
others=$(grep -E '^[a-z][a-z0-9:.]* +lbm ' "$log" | grep -v '^openmp .* \(final\|t09-deferred\) ' | grep -c '(confirmed')
if echo "$line" | grep -q 'REGRESSION (confirmed' && [ "$others" = 0 ]; then
    echo "ok - a slower openmp final is confirmed, nothing the fixture leaves alone: $line"
else
    echo "not ok - openmp final slowed ($(grep calibrated "$out/summary.txt")): $line; other flags: $others"
    exit 1
fi
