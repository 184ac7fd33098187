#!/usr/bin/env bash
# GPU call 5 of issue 18: energy with every GPU measurement (NVML) and `tune --objective energy`, on the merged code.
set -u
source .gpu-host/setup.sh >$OUT/setup.log 2>&1
C=$(cat .gpu-host/commit)
make -j16 GIT_COMMIT=$C GIT_DIRTY=0 >$OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
bin/harness devices 2>&1 | grep -E '^(cuda|opencl)|energy' | head -8
timeout 60 bin/harness run --input 1024x1024 --device cuda:0,opencl:1.0 --variant final --reps 5 --db /tmp/e.db 2>&1 | grep -E ' ok | wrong ' | cut -c1-220
sqlite3 /tmp/e.db "SELECT d.spec, m.median_s, m.energy_j, m.power_w FROM measurement m JOIN run r ON r.id = m.run_id JOIN device d ON d.id = r.device_id"
cat >/tmp/e.sweep <<'S'
app lbm
input 1024x1024
knobs g15-fast: temporal=3|5 math=ieee|fast
device cuda:0
wg 32x16 32x8 64x8
reps 3
S
timeout 150 bin/harness tune /tmp/e.sweep --strategy forest --budget 6 --objective energy --db /tmp/e.db >$OUT/tune-energy.log 2>&1
echo "tune --objective energy exit $?"; grep -E '^(progress|evaluations|best|runner-up|verdict|decision)' $OUT/tune-energy.log | cut -c1-200
sqlite3 /tmp/e.db "SELECT objective, energy_j, config, wg_x || 'x' || wg_y FROM tuned"
