#!/usr/bin/env bash
# GPU call (issue 35, item 5): exhaustive knobs x shapes landscapes of three
# apps other than LBM on CUDA, for the replay tests: the stencil at 4096x4096
# (sweeps/landscape-stencil.sweep), the mat-vec at 162x81x40
# (landscape-matvec.sweep) and the sandpile at 256x256
# (landscape-sandpile.sweep), each sweep under its own time cap (a sweep cut
# short leaves the points it measured, in a shuffled order: the log says so).
# The copy ceiling in the same call. Everything lands in $OUT.
set -u
source .gpu-host/setup.sh >$OUT/setup.log 2>&1
make -j16 GIT_COMMIT=$(cat .gpu-host/commit) GIT_DIRTY=0 >$OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >$OUT/gpu.txt
cat $OUT/gpu.txt
timeout 60 bin/harness peak --device cuda:0 --db $OUT/landscapes.db >$OUT/peak.txt 2>&1
tail -2 $OUT/peak.txt
for app in ${APPS:-stencil matvec sandpile}; do
    cap=${CAP:-150}; [ $app = sandpile ] && cap=${SANDPILE_CAP:-220}
    timeout -k 5 $cap bin/harness sweep sweeps/landscape-$app.sweep --db $OUT/landscapes.db --seed 1 \
        >$OUT/sweep-$app.log 2>&1
    echo "$app: sweep exit $? at ${SECONDS}s, $(grep -c ' ok ' $OUT/sweep-$app.log) ok," \
        "$(grep -cE ' (wrong|crashed|timeout|failed) ' $OUT/sweep-$app.log) failed"
done
for app in stencil matvec sandpile; do
    bin/harness export --format csv --app $app --db $OUT/landscapes.db --out $OUT/landscape-$app.csv 2>&1 | tail -1
    bin/harness export --format t4 --app $app --db $OUT/landscapes.db --out $OUT/landscape-$app.t4.json 2>&1 | tail -1
done
wc -l $OUT/*.csv
