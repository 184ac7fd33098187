#!/usr/bin/env bash
# GPU call A: build; issue 16 clean nights 1..N on the fresh host; issue 17: the
# published winners on the tree before the split (lbm_temporal.h of OLD) and
# after, interleaved, beside the copy ceiling, and g15-fast's DRAM traffic by ncu;
# the fixture's calibration.
set -u
source .gpu-host/setup.sh >$OUT/setup.log 2>&1
make -j16 GIT_COMMIT=$(git rev-parse HEAD) GIT_DIRTY=0 >$OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
echo "built at ${SECONDS}s"
{ nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,clocks.max.sm --format=csv; bin/harness devices; git log --oneline -1; } >$OUT/devices.txt 2>&1
mkdir -p /tmp/n
k=1
while [ $k -le ${NIGHTS:-5} ] && [ $SECONDS -lt ${STOP_AT:-330} ]; do
  FIRST=$k PHASES=clean BURN=10 scripts/nightly_noise.sh /tmp/n $k >>$OUT/nights.log 2>&1
  k=$((k + 1))
done
echo "nights to $((k - 1)) at ${SECONDS}s"
# issue 17: the old tree = this tree with lbm_temporal.h as it was at OLD
old=/tmp/oldtree; rm -rf $old; mkdir -p $old/harness/backend
cp -r kernels variants sweeps $old/; cp harness/backend/omp_kernel.h $old/harness/backend/; cp -r harness/backend/peak $old/harness/backend/
git show ${OLD:-90f45bc}:kernels/lbm/lbm_temporal.h >$old/kernels/lbm/lbm_temporal.h
cmp -s $old/kernels/lbm/lbm_temporal.h kernels/lbm/lbm_temporal.h && echo "WARNING: old and new lbm_temporal.h are the same"
bin/harness peak --db $OUT/w.db >$OUT/winners.txt 2>&1
for r in 1 2 3; do
  for c in "cuda:0 1024x1024 g15-fast 32x16" "cuda:0 128x128 g16-pull 24x16" "cuda:0 256x256 g16-pull 40x24" "opencl:1.0 1024x1024 g17-counted-ocl 32x8"; do
    set -- $c
    for tree in new old; do
      db=$OUT/w.db; [ $tree = old ] && db=/tmp/w-old.db
      if [ $tree = old ]; then HARNESS_ROOT=$old bin/harness run --db $db --device $1 --input $2 --variant $3 --wg $4 --reps 5 --rounds 1 >>$OUT/winners-$tree.txt 2>&1
      else bin/harness run --db $db --device $1 --input $2 --variant $3 --wg $4 --reps 5 --rounds 1 >>$OUT/winners-$tree.txt 2>&1; fi
    done
  done
done
bin/harness peak --db $OUT/w.db >>$OUT/winners.txt 2>&1
echo "winners at ${SECONDS}s"
timeout 90 ncu --clock-control none --target-processes all -k regex:fused_temporal --launch-skip 200 --launch-count 1 \
  --metrics dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum,lts__t_bytes.sum,l1tex__t_bytes.sum \
  bin/harness run --db /tmp/ncu.db --device cuda:0 --input 1024x1024 --variant g15-fast --wg 32x16 --reps 1 --warmup 0 --rounds 1 >$OUT/ncu.txt 2>&1
echo "ncu at ${SECONDS}s"
PHASES=cal SLOW_LIST="${SLOW_LIST:-0 100 102 300/2 600/4 600/8}" timeout 80 scripts/nightly_noise.sh /tmp/n 0 >>$OUT/nights.log 2>&1
echo "calibrated at ${SECONDS}s"
cp /tmp/n/summary.txt /tmp/n/calibration.txt $OUT/ 2>/dev/null
grep -h 'median' $OUT/winners-new.txt $OUT/winners-old.txt | cut -c1-160
cat /tmp/n/summary.txt | grep -v '^#'; grep -E 'dram__|gpu__time|lts__t|l1tex' $OUT/ncu.txt
