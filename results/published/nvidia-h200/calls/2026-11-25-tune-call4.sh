#!/usr/bin/env bash
# GPU call 4 of issue 18: the wide landscape at 256x256 (replay data) and random search at 1024x1024 on CUDA at
# the forest's budget (tuning.md).
set -u
source .gpu-host/setup.sh >$OUT/setup.log 2>&1
C=$(cat .gpu-host/commit)
make -j16 GIT_COMMIT=$C GIT_DIRTY=0 >$OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
sed 's/^input 128x128/input 256x256/; s/at$/at/' sweeps/landscape-cuda-wide.sweep >/tmp/wide256.sweep
timeout 200 bin/harness sweep /tmp/wide256.sweep --db /tmp/l256.db --seed 1 >$OUT/sweep256.log 2>&1
echo "landscape 256 exit $? at ${SECONDS}s"; grep -c ' ok ' $OUT/sweep256.log
bin/harness export --format csv --db /tmp/l256.db --out $OUT/landscape256.csv
timeout $((440 - SECONDS)) bin/harness tune sweeps/tune-lbm-gpu.sweep --input 1024x1024 --device cuda:0 --strategy random \
    --budget 60 --reps 3 --db /tmp/r1024.db >$OUT/random-1024.log 2>&1
echo "random 1024 exit $? at ${SECONDS}s"
grep -E '^(evaluations|best|runner-up|verdict)' $OUT/random-1024.log | cut -c1-200
tar cJf $OUT/dbs.tar.xz -C /tmp l256.db r1024.db
