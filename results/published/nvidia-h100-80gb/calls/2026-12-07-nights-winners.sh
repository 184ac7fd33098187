#!/usr/bin/env bash
# Issues 34 and 36 on one warm GPU host, in two device calls (a call stops at
# 10 minutes), the second right after the first:
#   PART=1: build; the published winners again (scripts/gpu-calls/winners-check.sh,
#           issue 36); the slowing fixture calibrated on CUDA `final` 128x128 by
#           device events (issue 34's 5 % on the 128x128 series); clean nights
#           1.. until STOP_AT seconds.
#   PART=2: the clean nights left up to 8, then the power nights (the ~5 % and
#           ~2 % builds, a clean night between), the noise models (wall and
#           device), `regressions`.
# State lives in /tmp/n on the host (kept between calls on a warm host); each
# part copies it, builds and trees left out, to $OUT.
set -u
part=${PART:-1}
source .gpu-host/setup.sh >"$OUT/setup-$part.log" 2>&1
C=$(cat .gpu-host/commit 2>/dev/null || git rev-parse HEAD)  # the device copy's .git may name an older commit
make -j16 GIT_COMMIT="$C" GIT_DIRTY=0 >"$OUT/build-$part.log" 2>&1 || { tail -30 "$OUT/build-$part.log"; exit 1; }
echo "part $part built at ${SECONDS}s"
{ nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,clocks.max.sm --format=csv; bin/harness devices; echo "tree: $C"; } >"$OUT/devices-$part.txt" 2>&1
n=/tmp/n
mkdir -p $n
export BURN=10 SKIP_RERUN=1 BACKEND=cuda CAL=128x128:1000 CAL_BY=device
export SLOW_LIST=${SLOW_LIST:-0 32 64 96 128 160 200 256}
nights_until() { # LAST STOP_AT: clean nights from the next one to LAST while time is left
    local k=$(( $(sqlite3 $n/n.db "SELECT count(*) FROM nightly" 2>/dev/null || echo 0) + 1 ))
    while [ "$k" -le "$1" ] && [ $SECONDS -lt "$2" ]; do
        FIRST=$k PHASES=clean scripts/nightly_noise.sh $n "$k" >>"$OUT/nights.log" 2>&1
        k=$((k + 1))
    done
    echo "clean nights to $((k - 1)) at ${SECONDS}s"
}
if [ "$part" = 1 ]; then
    OUT=$OUT/winners timeout 200 bash scripts/gpu-calls/winners-check.sh >"$OUT/winners.txt" 2>&1
    echo "winners (exit $?) at ${SECONDS}s"
    PHASES=cal timeout 150 scripts/nightly_noise.sh $n 0 >>"$OUT/nights.log" 2>&1
    echo "calibrated (exit $?) at ${SECONDS}s"
    nights_until 8 "${STOP_AT:-470}"
else
    nights_until 8 "${STOP_AT:-300}"
    if [ "$(sqlite3 $n/n.db "SELECT count(*) FROM nightly")" -ge 8 ]; then
        PHASES=power scripts/nightly_noise.sh $n 8 >>"$OUT/nights.log" 2>&1
        echo "power (exit $?) at ${SECONDS}s"
    fi
    bin/harness noise --db $n/n.db >$n/noise-all.txt 2>&1
    bin/harness noise --db $n/n.db --measure device >$n/noise-all-device.txt 2>&1
    bin/harness regressions --db $n/n.db --no-confirm >$n/regressions.txt 2>&1
fi
mkdir -p "$OUT/n"
(cd $n && cp -- *.txt *.log n.db "$OUT/n/" 2>/dev/null)
cat $n/summary.txt $n/calibration.txt 2>/dev/null | grep -v '^#' | cut -c1-400
cat "$OUT/winners.txt" 2>/dev/null | tail -8
grep -E 'final 32x1|t09|t02' $n/noise-device.txt 2>/dev/null | head -20
