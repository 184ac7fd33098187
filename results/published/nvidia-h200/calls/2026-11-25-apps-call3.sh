#!/usr/bin/env bash
# Issues 19 and 20 on the GPU host, one device call after the forest calls (the build is kept): the
# coloured mat-vec (matvec-gpu.sh: peak, verify on cuda:0 and NVIDIA OpenCL, the ladder at
# 162x81x40, 10 repetitions in 3 rounds) and the sandpile (sandpile-gpu.sh's build, verify and
# 512x512-to-stability phases). Each part under its own time limit; logs tarred into $OUT.
set -u
source .gpu-host/setup.sh >$OUT/setup.log 2>&1
C=$(cat .gpu-host/commit)
make -j16 GIT_COMMIT=$C GIT_DIRTY=0 >$OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
echo "built at ${SECONDS}s"
mkdir -p /tmp/apps/matvec /tmp/apps/sandpile
OUT=/tmp/apps/matvec REPS=10 timeout 250 bash scripts/gpu-calls/matvec-gpu.sh >/tmp/apps/matvec.log 2>&1
echo "matvec exit $? at ${SECONDS}s"; tail -22 /tmp/apps/matvec.log | cut -c1-200
OUT=/tmp/apps/sandpile PHASES="build verify time" timeout $((560 - SECONDS)) bash scripts/gpu-calls/sandpile-gpu.sh \
    >/tmp/apps/sandpile.log 2>&1
echo "sandpile exit $? at ${SECONDS}s"; tail -30 /tmp/apps/sandpile.log | cut -c1-200
cp /tmp/sandpile-gpu/sandpile.db /tmp/apps/sandpile/ 2>/dev/null
tar cJf $OUT/apps.tar.xz -C /tmp apps
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "done at ${SECONDS}s"
