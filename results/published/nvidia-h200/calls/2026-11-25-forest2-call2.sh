#!/usr/bin/env bash
# Issue 18, the forest with its additive model, 1024x1024: references (g15-fast on CUDA,
# g17-counted-ocl on NVIDIA OpenCL) and `harness tune sweeps/tune-lbm-gpu.sweep --strategy forest
# --budget 60 --reps 3` on each from an empty database. Runs after call 1 on the same host.
set -u
source .gpu-host/setup.sh >$OUT/setup.log 2>&1
C=$(cat .gpu-host/commit)
[ -x bin/harness ] || make -j16 GIT_COMMIT=$C GIT_DIRTY=0 >$OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
OCL=$(bin/harness devices 2>/dev/null | grep -i 'opencl' | grep -i nvidia | grep -oE 'opencl:[0-9]+\.[0-9]+' | head -1)
echo "NVIDIA OpenCL is $OCL"
R=/tmp/refs2.db
bin/harness peak --db $R >$OUT/peak2.txt 2>&1
bin/harness run --input 1024x1024 --device cuda:0 --variant g15-fast --wg 32x16 --reps 10 --rounds 5 --db $R >>$OUT/refs2.txt 2>&1
bin/harness run --input 1024x1024 --device $OCL --variant g17-counted-ocl --wg 32x8 --reps 10 --rounds 5 --db $R >>$OUT/refs2.txt 2>&1
echo "refs at ${SECONDS}s"; grep -E ' ok ' $OUT/refs2.txt | cut -c1-160
for dev in cuda:0 $OCL; do
    /usr/bin/time -f "tune $dev wall %e s" timeout 250 bin/harness tune sweeps/tune-lbm-gpu.sweep --input 1024x1024 \
        --device $dev --strategy forest --budget 60 --reps 3 --db /tmp/t-${dev/:/-}.db >$OUT/tune-${dev/:/-}.log 2>&1
    echo "tune $dev exit $? at ${SECONDS}s"
    grep -E '^(tune |evaluations|best|runner-up|verdict|decision)' $OUT/tune-${dev/:/-}.log | cut -c1-220
done
bin/harness export --format csv --db $R --out /tmp/refs2.csv
for dev in cuda:0 $OCL; do bin/harness export --format csv --db /tmp/t-${dev/:/-}.db --out /tmp/tune-${dev/:/-}.csv; done
tar cJf $OUT/call2.tar.xz -C /tmp refs2.db refs2.csv t-cuda-0.db t-${OCL/:/-}.db tune-cuda-0.csv tune-${OCL/:/-}.csv
echo "done at ${SECONDS}s"
