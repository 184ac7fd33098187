#!/usr/bin/env bash
# 2026-11-26, call A (issue 20): the sandpile's launch=resident and
# 4096x4096 (sandpile-resident.sh), then the stencil at the copy ceiling
# (stencil-gpu.sh), each with the copy ceiling measured in this call.
# Run as `bash results/published/nvidia-h100-80gb/calls/2026-11-26-callA.sh` with .gpu-host carried
# (.gpu-host/commit names the commit); everything is packed into
# $OUT/callA.tgz (the device tool brings back at most 8 files).
set -u
: "${OUT:?}"
W=/tmp/callA
mkdir -p $W/sandpile $W/stencil
source .gpu-host/setup.sh >$W/setup.log 2>&1
C=$(cat .gpu-host/commit 2>/dev/null || echo unknown)
make -j16 GIT_COMMIT=$C GIT_DIRTY=0 >$W/build.log 2>&1 || { tail -30 $W/build.log; exit 1; }
echo "[${SECONDS}s] built $C"
{ nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,clocks.max.sm,power.limit --format=csv
  bin/harness devices; } >$W/devices.txt 2>&1
head -3 $W/devices.txt
bin/harness --quiet peak --device cuda:0,opencl:1.0 --db $W/sandpile/sandpile.db >$W/sandpile/peak.txt 2>&1
cat $W/sandpile/peak.txt
OUT=$W/sandpile DB=$W/sandpile/sandpile.db timeout -k 5 300 bash scripts/gpu-calls/sandpile-resident.sh \
    >$W/sandpile/sandpile.log 2>&1
echo "[${SECONDS}s] sandpile: exit $?"
cat $W/sandpile/sandpile.log
OUT=$W/stencil BUDGET=190 timeout -k 5 230 bash scripts/gpu-calls/stencil-gpu.sh >$W/stencil/stencil.log 2>&1
echo "[${SECONDS}s] stencil: exit $?"
tail -40 $W/stencil/stencil.log
tar czf $OUT/callA.tgz -C $W .
echo "[${SECONDS}s] packed"
