#!/usr/bin/env bash
# GPU call 2 of issue 18's acceptance: references (g15-fast on CUDA, g17-counted-ocl on NVIDIA OpenCL, 1024x1024)
# and `harness tune sweeps/tune-lbm-gpu.sweep --strategy forest` at 1024x1024 on each, from empty databases.
set -u
source .gpu-host/setup.sh >$OUT/setup.log 2>&1
C=$(cat .gpu-host/commit)
make -j16 GIT_COMMIT=$C GIT_DIRTY=0 >$OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
R=/tmp/refs2.db
bin/harness devices >$OUT/devices.txt 2>&1
OCL=$(bin/harness devices 2>/dev/null | grep -i 'opencl' | grep -i nvidia | grep -oE 'opencl:[0-9]+\.[0-9]+' | head -1)
echo "NVIDIA OpenCL is $OCL"
bin/harness peak --db $R >$OUT/peak.txt 2>&1
bin/harness run --input 1024x1024 --device cuda:0 --variant g15-fast --wg 32x16 --reps 10 --rounds 5 --db $R >>$OUT/refs.txt 2>&1
bin/harness run --input 1024x1024 --device $OCL --variant g17-counted-ocl --wg 32x8 --reps 10 --rounds 5 --db $R >>$OUT/refs.txt 2>&1
echo "refs at ${SECONDS}s"; grep -E ' ok ' $OUT/refs.txt | cut -c1-160
for dev in cuda:0 $OCL; do
    /usr/bin/time -f "tune $dev wall %e s" timeout 270 bin/harness tune sweeps/tune-lbm-gpu.sweep --input 1024x1024 \
        --device $dev --strategy forest --budget ${BUDGET:-60} --reps 3 --db /tmp/t-${dev/:/-}.db >$OUT/tune-${dev/:/-}.log 2>&1
    echo "tune $dev exit $? at ${SECONDS}s"
    grep -E '^(tune |evaluations|best|runner-up|verdict|decision)' $OUT/tune-${dev/:/-}.log | cut -c1-200
done
tar cJf $OUT/dbs.tar.xz -C /tmp refs2.db t-cuda-0.db t-${OCL/:/-}.db
