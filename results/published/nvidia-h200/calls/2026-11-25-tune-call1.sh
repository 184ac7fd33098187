#!/usr/bin/env bash
# GPU call 1 of issue 18's acceptance: the copy ceiling and the hand-found
# references (g16-pull at 128x128 and 256x256, g15-fast at 1024x1024, CUDA)
# in refs.db; then `harness tune sweeps/tune-lbm-gpu.sweep --strategy forest`
# at 128x128 and 256x256 on CUDA, each from an empty database.
set -u
source .gpu-host/setup.sh >$OUT/setup.log 2>&1
C=$(cat .gpu-host/commit)
make -j16 GIT_COMMIT=$C GIT_DIRTY=0 >$OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
echo "built at ${SECONDS}s"
R=/tmp/refs.db
bin/harness peak --db $R >$OUT/peak.txt 2>&1
for ref in "128x128 g16-pull 24x16" "256x256 g16-pull 40x24" "1024x1024 g15-fast 32x16"; do
    set -- $ref
    bin/harness run --input $1 --device cuda:0 --variant $2 --wg $3 --reps 10 --rounds 5 --db $R >>$OUT/refs.txt 2>&1
done
echo "refs at ${SECONDS}s"; grep -E ' ok ' $OUT/refs.txt | cut -c1-160
for in in 128x128 256x256; do
    /usr/bin/time -f "tune $in wall %e s" timeout 280 bin/harness tune sweeps/tune-lbm-gpu.sweep --input $in \
        --device cuda:0 --strategy forest --budget ${BUDGET:-80} --db /tmp/t$in.db >$OUT/tune-$in.log 2>&1
    echo "tune $in exit $? at ${SECONDS}s"
    grep -E '^(evaluations|best|runner-up|verdict|decision)' $OUT/tune-$in.log | cut -c1-200
done
bin/harness export --format csv --db $R --out $OUT/refs.csv
for in in 128x128 256x256; do bin/harness export --format csv --db /tmp/t$in.db --out $OUT/tune-$in.csv; done
tar cJf $OUT/dbs.tar.xz -C /tmp refs.db t128x128.db t256x256.db
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
