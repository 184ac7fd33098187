#!/usr/bin/env bash
# Issue 19, items 1-3: the openacc and omp-target backends on the GPU host, through Debian 12's
# GCC 12 nvptx offloading compiler (.gpu-host/offload). Run from the repository root with
# .gpu-host carried (offload/*.deb included), as `bash scripts/gpu-calls/offload-gpu.sh`; writes
# the logs and offload.db to $OUT:
#   devices.txt          `harness devices` (openacc:N and omp-target:N must be listed, kind gpu),
#                        and the same without the offload libgomp (the note must name the pitfall)
#   peak.txt, launch-cost.txt   copy bandwidth and launch cost through each backend's own loops
#   verify.txt           `verify lbm` of every directive variant on both backends (1000 steps)
#   shapes.txt           a06-async over vector_length / thread_limit x rows a gang, 1024x1024
#   cuda-final.txt       CUDA `final` on the same inputs (the goal: OpenACC's best within 2x)
#   report/              `report lbm` with Table 15 alone (report-t15.def): its inputs, stored in
#                        offload.db, so the full report's Table 15 can be written from it
set -u
OUT=${OUT:-/tmp/offload-out}
mkdir -p "$OUT"
source .gpu-host/setup.sh >"$OUT/setup.log" 2>&1
source .gpu-host/offload/offload.sh >>"$OUT/setup.log" 2>&1 || { echo "offload.sh failed"; tail -5 "$OUT/setup.log"; exit 1; }
tail -1 "$OUT/setup.log"
C=$(cat .gpu-host/commit 2>/dev/null || git rev-parse HEAD 2>/dev/null || echo unknown)
make -j16 GIT_COMMIT="$C" GIT_DIRTY=0 >"$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }

# The harness is built by the image's GCC 13; the process that runs offloaded code must load GCC
# 12's libgomp (with its nvptx plugin), or every region silently runs on the host
# (offload.sh's header). The backends refuse that case; this makes it the right one.
base_ld=${LD_LIBRARY_PATH:-}
export LD_LIBRARY_PATH="$OFFLOAD_LIBDIR${base_ld:+:$base_ld}"
export HARNESS_CACHE=/tmp/offload-cache
DB=$OUT/offload.db
H=bin/harness

{
    echo "== with LD_LIBRARY_PATH=$OFFLOAD_LIBDIR"
    $H devices 2>&1
    echo "== with the image's libgomp (expected: no accelerator, the note names the compiler's runtime)"
    LD_LIBRARY_PATH="$base_ld" $H devices 2>&1 | grep -E '^(openacc|omp-target)|note: (openacc|omp-target)'
} >"$OUT/devices.txt"
grep -E '^(openacc|omp-target|cuda)|note: (openacc|omp-target)' "$OUT/devices.txt"
if ! grep -qE '^openacc:[0-9]' "$OUT/devices.txt"; then
    echo "no openacc GPU device: see devices.txt and setup.log"
fi

timeout 300 $H peak --device openacc,omp-target,cuda:0 --db "$DB" >"$OUT/peak.txt" 2>&1
echo "peak exit $?"; grep -E 'copy' "$OUT/peak.txt" | cut -c1-160
timeout 300 $H launch-cost --device openacc,omp-target --launches 5000 --reps 3 --args 0,4,16 --db "$DB" \
    >"$OUT/launch-cost.txt" 2>&1
echo "launch-cost exit $?"

V=a01-given,a02-per-step,a03-fused,a04-device-av,a05-soa,a06-async
timeout 590 $H verify lbm --device openacc,omp-target --variant $V --db "$DB" >"$OUT/verify.txt" 2>&1
echo "verify exit $?"; tail -12 "$OUT/verify.txt" | cut -c1-200

timeout 400 $H run --device openacc,omp-target --input 1024x1024 --variant a06-async --iters 2000 --reps 3 \
    --wg 32x1,64x1,128x1,256x1,128x2,128x4,1024x1 --db "$DB" >"$OUT/shapes.txt" 2>&1
echo "shapes exit $?"; grep -E ' ok | wrong | invalid ' "$OUT/shapes.txt" | cut -c1-170

for in in 128x128 256x256 1024x1024; do
    timeout 120 $H run --device cuda:0 --input $in --variant final --reps 3 --db "$DB" 2>&1
done >"$OUT/cuda-final.txt"
grep -E ' ok | wrong ' "$OUT/cuda-final.txt" | cut -c1-170

# Table 15 alone: the header of kernels/lbm/report.def and its openacc table.
awk '/^(app|reference|inputs|quick|wg) /{print} /^table 15 /{t=1} t&&/^(table|run|published)/{print} /^table 16 /{exit}' \
    kernels/lbm/report.def | grep -v '^table 16' >"$OUT/report-t15.def"
timeout 590 $H report lbm --def "$OUT/report-t15.def" --device openacc,omp-target --db "$DB" --out "$OUT/report" \
    >"$OUT/report.log" 2>&1
echo "report exit $?"; tail -3 "$OUT/report.log" | cut -c1-200
sed -n '/^## Table 15/,/^## Figures/p' "$OUT"/report/report-*.md 2>/dev/null | head -20
