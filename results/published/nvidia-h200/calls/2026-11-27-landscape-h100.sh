#!/usr/bin/env bash
# GPU call: the 87-point knobs x shapes landscape (sweeps/landscape-cuda.sweep) at 512x512 and 1024x1024,
# as tests/data/landscape-h200-cuda-heldout.csv was recorded on the H200, now on whatever card the call gets
# (an H100 so far): a landscape recorded after the forest's last change, so a held-out replay of it.
# INPUTS names other grids (powers of two a side: g15-fast's bit-mask neighbours need them), e.g.
# INPUTS="2048x512 512x2048 1024x256" for tests/data/landscape-h100-cuda-rect.csv.
set -u
source .gpu-host/setup.sh >$OUT/setup.log 2>&1
make -j16 GIT_COMMIT=$(cat .gpu-host/commit) GIT_DIRTY=0 >$OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >$OUT/gpu.txt
bin/harness peak --db /tmp/l.db >$OUT/peak.txt 2>&1
for input in ${INPUTS:-1024x1024 512x512}; do
    sed "s/^input .*/input gen:$input/" sweeps/landscape-cuda.sweep >/tmp/l-$input.sweep
    timeout ${PER_INPUT_S:-270} bin/harness sweep /tmp/l-$input.sweep --db /tmp/l.db --seed 1 >$OUT/sweep-$input.log 2>&1
    echo "$input: sweep exit $? at ${SECONDS}s, $(grep -c ' ok ' $OUT/sweep-$input.log) ok"
done
bin/harness export --format csv --db /tmp/l.db --out $OUT/landscape-cuda.csv
grep -ci 'wrong\|error\|timeout' $OUT/sweep-*.log
wc -l $OUT/landscape-cuda.csv
