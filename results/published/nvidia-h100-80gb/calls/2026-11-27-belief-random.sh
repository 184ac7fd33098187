#!/usr/bin/env bash
# Issue 18, after the forest's shape belief (commit in .gpu-host/commit): random search at the
# forest's budgets (the forest's own runs: results/published/nvidia-h200/calls/2026-11-25-forest2-call1.sh
# and -call2.sh, rerun on the same commit), from empty databases, so tuning.md compares the two strategies on one card; and the
# named variant g18-deep (g15-fast temporal=5, the forest's 1024x1024 pick on an H100) against
# g15-fast, verified, in the same call. PART=1: the references and 1024x1024 (CUDA, NVIDIA OpenCL);
# PART=2: 128x128 and 256x256 (CUDA).
set -u
source .gpu-host/setup.sh >$OUT/setup.log 2>&1
C=$(cat .gpu-host/commit)
make -j16 GIT_COMMIT=$C GIT_DIRTY=0 >$OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
OCL=$(bin/harness devices 2>/dev/null | grep -i 'opencl' | grep -i nvidia | grep -oE 'opencl:[0-9]+\.[0-9]+' | head -1)
tune() { # input device budget reps-flag...
    local in=$1 dev=$2 budget=$3 tag=random-$1-${2/:/-}; shift 3
    /usr/bin/time -f "tune $tag wall %e s" timeout 250 bin/harness tune sweeps/tune-lbm-gpu.sweep --input $in \
        --device $dev --strategy random --budget $budget "$@" --db /tmp/$tag.db >$OUT/$tag.log 2>&1
    echo "$tag exit $? at ${SECONDS}s"
    grep -E '^(evaluations|best|runner-up|verdict)' $OUT/$tag.log | cut -c1-200
    bin/harness export --format csv --db /tmp/$tag.db --out $OUT/$tag.csv
}
if [ "${PART:-1}" = 1 ]; then
    R=/tmp/refs5.db
    bin/harness peak --db $R >$OUT/peak.txt 2>&1
    for v in g15-fast g18-deep; do
        bin/harness run --input 1024x1024 --device cuda:0 --variant $v --wg 32x16 --reps 10 --rounds 5 --db $R >>$OUT/refs.txt 2>&1
    done
    echo "refs at ${SECONDS}s"; grep -E ' (ok|WRONG|wrong) ' $OUT/refs.txt | cut -c1-160
    bin/harness export --format csv --db $R --out $OUT/refs.csv
    tune 1024x1024 cuda:0 60 --reps 3
    tune 1024x1024 $OCL 60 --reps 3
else
    tune 128x128 cuda:0 80
    tune 256x256 cuda:0 80
fi
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "done at ${SECONDS}s"
