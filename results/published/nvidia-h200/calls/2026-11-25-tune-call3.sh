#!/usr/bin/env bash
# GPU call 3 of issue 18: random search at the forest's budget (128x128 and 256x256, CUDA, empty databases)
# for results/published/nvidia-h200/tuning.md, then the wide landscape for the replay tests.
set -u
source .gpu-host/setup.sh >$OUT/setup.log 2>&1
C=$(cat .gpu-host/commit)
make -j16 GIT_COMMIT=$C GIT_DIRTY=0 >$OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
for in in 128x128 256x256; do
    timeout 200 bin/harness tune sweeps/tune-lbm-gpu.sweep --input $in --device cuda:0 --strategy random --budget 80 \
        --db /tmp/r$in.db >$OUT/random-$in.log 2>&1
    echo "random $in exit $? at ${SECONDS}s"
    grep -E '^(evaluations|best|runner-up|verdict)' $OUT/random-$in.log | cut -c1-200
done
timeout $((570 - SECONDS)) bin/harness sweep sweeps/landscape-cuda-wide.sweep --db /tmp/l.db --seed 1 >$OUT/sweep.log 2>&1
echo "landscape exit $? at ${SECONDS}s"; grep -c ' ok ' $OUT/sweep.log; grep -c ' invalid' $OUT/sweep.log
bin/harness export --format csv --db /tmp/l.db --out $OUT/landscape.csv
tar cJf $OUT/dbs.tar.xz -C /tmp r128x128.db r256x256.db l.db
