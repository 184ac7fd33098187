#!/usr/bin/env bash
# Issue 19, items 1-3: the openacc and omp-target backends on the GPU host, through Debian 12's
# GCC 12 nvptx offloading compiler (.gpu-host/offload). Run from the repository root with
# .gpu-host carried (offload/*.deb included), as `bash scripts/gpu-calls/offload-gpu.sh`. One
# device call has 600 s: the parts run in order while time is left (DEADLINE, default 570 s from
# the start); a part without time says so, and PARTS="report" (say) runs only the named parts in
# a second call. Writes to $OUT:
#   devices.txt      `harness devices` (openacc:N and omp-target:N listed, kind gpu), and the same
#                    with the image's libgomp (no accelerator; the note names the compiler's runtime)
#   peak.txt, launch-cost.txt   copy bandwidth and launch cost through each backend's own loops
#   verify.txt       `verify lbm` of a01-a06 on both backends (128x128, 1000 steps, every one verified)
#   shapes.txt       a06-async over vector_length / thread_limit x rows a gang, 1024x1024
#   cuda-final.txt   CUDA `final` on Table 15's inputs (the goal: OpenACC's best within 2x of it)
#   report/, report-t15.def   `report lbm` with Table 15 alone: its inputs, also in offload.db
#   offload.db       every measurement above
# DEVS=openacc:0,omp-target:0 overrides the directive devices found by `harness devices`.
set -u
OUT=${OUT:-/tmp/offload-out}
mkdir -p "$OUT"
PARTS=${PARTS:-devices peak launch verify shapes cuda report}
DEADLINE=${DEADLINE:-570}
want() { [[ " $PARTS " == *" $1 "* ]]; }
# budget NAME MAX: the seconds part NAME may take (at most MAX), or 0 with a note when none are left.
budget() {
    local left=$((DEADLINE - SECONDS - 10))
    if [ "$left" -lt 30 ]; then
        echo "$1: skipped, ${left}s left of the call (run PARTS=\"$1\" in another call)" >&2
        echo 0
    elif [ "$2" -lt "$left" ]; then echo "$2"
    else echo "$left"; fi
}

source .gpu-host/setup.sh >"$OUT/setup.log" 2>&1
source .gpu-host/offload/offload.sh >>"$OUT/setup.log" 2>&1 || { echo "offload.sh failed"; tail -5 "$OUT/setup.log"; exit 1; }
tail -1 "$OUT/setup.log"
C=$(cat .gpu-host/commit 2>/dev/null || git rev-parse HEAD 2>/dev/null || echo unknown)
make -j16 GIT_COMMIT="$C" GIT_DIRTY=0 >"$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
echo "built in ${SECONDS}s"

# The harness is built by the image's GCC 13; the process that runs offloaded code must load GCC
# 12's libgomp (with its nvptx plugin), or every region silently runs on the host (offload.sh's
# header). The backends refuse that case; this makes it the right one.
base_ld=${LD_LIBRARY_PATH:-}
export LD_LIBRARY_PATH="$OFFLOAD_LIBDIR${base_ld:+:$base_ld}"
export HARNESS_CACHE=/tmp/offload-cache
DB=$OUT/offload.db
H=bin/harness

if want devices; then
    {
        echo "== with LD_LIBRARY_PATH=$OFFLOAD_LIBDIR"
        $H devices 2>&1
        echo "== with the image's libgomp (expected: no accelerator, the note names the compiler's runtime)"
        LD_LIBRARY_PATH="$base_ld" $H devices 2>&1 | grep -E '^(openacc|omp-target)|note: (openacc|omp-target)'
    } >"$OUT/devices.txt"
    grep -E '^(openacc|omp-target|cuda)|note: (openacc|omp-target)' "$OUT/devices.txt"
    grep -qE '^openacc:[0-9]' "$OUT/devices.txt" || echo "no openacc GPU device: see devices.txt and setup.log"
fi

# The directive devices present (a spec that matches nothing would stop a whole command).
DEVS=${DEVS:-$($H devices 2>/dev/null | awk '/^(openacc|omp-target):[0-9]/{print $1}' | paste -sd, -)}
[ -n "$DEVS" ] || echo "no directive GPU device: the directive parts below have nothing to run"
if want peak && t=$(budget peak 90) && [ "$t" -gt 0 ]; then
    for d in ${DEVS//,/ } cuda:0; do
        timeout "$((t / 3))" $H peak --device "$d" --db "$DB" 2>&1
    done >"$OUT/peak.txt"
    grep -E 'copy' "$OUT/peak.txt" | cut -c1-160
fi
if want launch && [ -n "$DEVS" ] && t=$(budget launch 90) && [ "$t" -gt 0 ]; then
    timeout "$t" $H launch-cost --device "$DEVS" --launches 5000 --reps 3 --args 0,4,16 --db "$DB" \
        >"$OUT/launch-cost.txt" 2>&1
    echo "launch-cost exit $?"; grep -E '^ +(0|16) ' "$OUT/launch-cost.txt" | head -8
fi
if want verify && [ -n "$DEVS" ] && t=$(budget verify 150) && [ "$t" -gt 0 ]; then
    timeout "$t" $H verify lbm --device "$DEVS" \
        --variant a01-given,a02-per-step,a03-fused,a04-device-av,a05-soa,a06-async --db "$DB" >"$OUT/verify.txt" 2>&1
    echo "verify exit $?"; tail -12 "$OUT/verify.txt" | cut -c1-200
fi
if want shapes && [ -n "$DEVS" ] && t=$(budget shapes 120) && [ "$t" -gt 0 ]; then
    timeout "$t" $H run --device "$DEVS" --input 1024x1024 --variant a06-async --iters 1000 --reps 3 \
        --wg 32x1,64x1,128x1,256x1,128x2,128x4,1024x1 --db "$DB" >"$OUT/shapes.txt" 2>&1
    echo "shapes exit $?"; grep -E ' ok | wrong | invalid ' "$OUT/shapes.txt" | cut -c1-170
fi
if want cuda && t=$(budget cuda 60) && [ "$t" -gt 0 ]; then
    for in in 128x128 256x256 1024x1024; do
        timeout "$((t / 3))" $H run --device cuda:0 --input $in --variant final --reps 3 --db "$DB" 2>&1
    done >"$OUT/cuda-final.txt"
    grep -E ' ok | wrong ' "$OUT/cuda-final.txt" | cut -c1-170
fi
if want report && [ -n "$DEVS" ] && t=$(budget report 240) && [ "$t" -gt 0 ]; then
    # Table 15 alone: the header of kernels/lbm/report.def and its openacc table.
    awk '/^(app|reference|inputs|quick|wg) /{print} /^table 15 /{t=1} /^table 16 /{exit} t&&/^(table|run|published)/{print}' \
        kernels/lbm/report.def >"$OUT/report-t15.def"
    timeout "$t" $H report lbm --def "$OUT/report-t15.def" --device "$DEVS" --rounds 2 --db "$DB" \
        --out "$OUT/report" >"$OUT/report.log" 2>&1
    echo "report exit $?"; tail -3 "$OUT/report.log" | cut -c1-200
    sed -n '/^## Table 15/,/^## Figures/p' "$OUT"/report/report-*.md 2>/dev/null | head -20
fi
echo "done in ${SECONDS}s"
