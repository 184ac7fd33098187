#!/usr/bin/env bash
# GPU calls (issue 41's acceptance on the GPU host): issue 16's benchmark
# again with the inconclusive verdict and the added rounds, so its figures
# (0 confirmed in 8 clean nights, a 3-5 % slowdown confirmed) can be held
# against the published ones (results/published/nvidia-h200/nightly-noise.md).
# scripts/nightly_noise.sh on every device present, the added rounds' budget
# --max-time 20 a night (NIGHTLY_OPTS; the default, as long as the night's
# suite took, would double a night of 50-80 s), a burn-in of 10 s.
# Three calls on one warm host, all writing under /tmp/n:
#   PART=A: set-up, build, clean nights 1..A_NIGHTS (default 5);
#   PART=B: the clean nights left (up to 8), the calibration;
#   PART=C: the power nights (5 % and 2 % slower CUDA final, a clean night between).
# Everything the report needs is copied to $OUT (summary, pairs, calibration).
set -u
part=${PART:-A}
source .gpu-host/setup.sh >$OUT/setup.log 2>&1
make -j16 GIT_COMMIT=$(cat .gpu-host/commit) GIT_DIRTY=0 >$OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
export NIGHTLY_OPTS="--max-time 20" BURN=10
if [ "$part" = A ]; then
    rm -rf /tmp/n
    PHASES=clean FIRST=1 timeout -k 5 ${CAP:-540} bash scripts/nightly_noise.sh /tmp/n "${A_NIGHTS:-5}"
else
    done_nights=$(sqlite3 /tmp/n/n.db "SELECT count(*) FROM nightly" 2>/dev/null || echo 0)
    if [ "$part" = B ]; then
        PHASES=clean FIRST=$((done_nights + 1)) timeout -k 5 ${CAP_CLEAN:-380} bash scripts/nightly_noise.sh /tmp/n 8
        PHASES=cal timeout -k 5 ${CAP_CAL:-150} bash scripts/nightly_noise.sh /tmp/n 8
    else
        # The published run's entries (N/K: only every K-th work-group slowed),
        # calibrated again here; then the power nights on the picks.
        SLOW_LIST=${SLOW_LIST:-0 300/2 600/4 600/8} PHASES=cal timeout -k 5 ${CAP_CAL:-120} bash scripts/nightly_noise.sh /tmp/n 8
        PHASES=power SKIP_RERUN=1 timeout -k 5 ${CAP_POWER:-440} bash scripts/nightly_noise.sh /tmp/n 8
    fi
fi
tar -C /tmp/n -czf $OUT/logs-$part.tgz summary.txt pairs.txt calibration.txt noise.txt regressions.txt \
    $(cd /tmp/n && ls night-*.log 2>/dev/null) 2>/dev/null
cat /tmp/n/summary.txt
