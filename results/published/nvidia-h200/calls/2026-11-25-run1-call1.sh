#!/usr/bin/env bash
# GPU call 1 (issue 16): build, devices, clean nights 1..N on a fresh host, the fixture's calibration.
set -u
source .gpu-host/setup.sh >$OUT/setup.log 2>&1
make -j16 GIT_COMMIT=$(git rev-parse HEAD) GIT_DIRTY=0 >$OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
echo "built at ${SECONDS}s"
{ nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,clocks.max.sm --format=csv; bin/harness devices; uname -r; lscpu | head -20; } >$OUT/devices.txt 2>&1
mkdir -p /tmp/n
k=1
while [ $k -le ${NIGHTS:-6} ] && [ $SECONDS -lt ${STOP_AT:-420} ]; do
  FIRST=$k PHASES=clean BURN=10 scripts/nightly_noise.sh /tmp/n $k >>$OUT/nights.log 2>&1
  k=$((k + 1))
done
echo "nights to $((k - 1)) at ${SECONDS}s"
PHASES=cal SLOW_LIST="${SLOW_LIST:-0 100 102 104 150/2 300/2 150/4 300/4 600/4 300/8 600/8 1200/8}" timeout 120 scripts/nightly_noise.sh /tmp/n 0 >>$OUT/nights.log 2>&1
echo "calibrated at ${SECONDS}s"
cp /tmp/n/summary.txt /tmp/n/pairs.txt /tmp/n/pairs-pooled.txt /tmp/n/noise.txt /tmp/n/calibration.txt /tmp/n/picks.txt $OUT/ 2>/dev/null
tar czf $OUT/n.tgz -C /tmp n
cat /tmp/n/summary.txt /tmp/n/calibration.txt
