#!/usr/bin/env bash
# GPU call: a knobs x shapes landscape (sweeps/landscape-cuda.sweep), for issue 18's replay tests.
set -u
source .gpu-host/setup.sh >$OUT/setup.log 2>&1
make -j16 GIT_COMMIT=$(git rev-parse HEAD) GIT_DIRTY=0 >$OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
bin/harness peak --db /tmp/l.db >$OUT/peak.txt 2>&1
timeout 480 bin/harness sweep sweeps/landscape-cuda.sweep --db /tmp/l.db --seed 1 >$OUT/sweep.log 2>&1; echo "sweep exit $? at ${SECONDS}s"
bin/harness export --format csv --db /tmp/l.db --out $OUT/landscape-cuda.csv
xz -T4 -c /tmp/l.db >$OUT/l.db.xz
grep -c ' ok ' $OUT/sweep.log; grep -c 'invalid' $OUT/sweep.log; grep -ci 'wrong\|error\|timeout' $OUT/sweep.log
wc -l $OUT/landscape-cuda.csv; tail -3 $OUT/sweep.log | cut -c1-200
