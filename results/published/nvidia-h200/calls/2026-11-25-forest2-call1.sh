#!/usr/bin/env bash
# Issue 18, the forest with its additive model (commit in .gpu-host/commit): the copy ceiling, the
# hand-found references at 128x128 and 256x256 (g16-pull, CUDA), then `harness tune
# sweeps/tune-lbm-gpu.sweep --strategy forest --budget 80` at each from an empty database.
set -u
source .gpu-host/setup.sh >$OUT/setup.log 2>&1
C=$(cat .gpu-host/commit)
make -j16 GIT_COMMIT=$C GIT_DIRTY=0 >$OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
echo "built at ${SECONDS}s"
R=/tmp/refs1.db
bin/harness peak --db $R >$OUT/peak1.txt 2>&1
for ref in "128x128 g16-pull 24x16" "256x256 g16-pull 40x24"; do
    set -- $ref
    bin/harness run --input $1 --device cuda:0 --variant $2 --wg $3 --reps 10 --rounds 5 --db $R >>$OUT/refs1.txt 2>&1
done
echo "refs at ${SECONDS}s"; grep -E ' ok ' $OUT/refs1.txt | cut -c1-160
for in in 128x128 256x256; do
    /usr/bin/time -f "tune $in wall %e s" timeout 220 bin/harness tune sweeps/tune-lbm-gpu.sweep --input $in \
        --device cuda:0 --strategy forest --budget 80 --db /tmp/t$in.db >$OUT/tune-$in.log 2>&1
    echo "tune $in exit $? at ${SECONDS}s"
    grep -E '^(tune |evaluations|best|runner-up|verdict|decision)' $OUT/tune-$in.log | cut -c1-220
done
bin/harness export --format csv --db $R --out /tmp/refs1.csv
for in in 128x128 256x256; do bin/harness export --format csv --db /tmp/t$in.db --out /tmp/tune-$in.csv; done
tar cJf $OUT/call1.tar.xz -C /tmp refs1.db t128x128.db t256x256.db refs1.csv tune-128x128.csv tune-256x256.csv
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "done at ${SECONDS}s"
