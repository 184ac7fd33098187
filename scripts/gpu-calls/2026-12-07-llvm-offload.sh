#!/usr/bin/env bash
# Issue 37 on the GPU host: OpenMP target built by LLVM 19 (cc=clang), from the kit
# scripts/llvm_kit.sh packs (.gpu-host/llvm-kit.tar.xz), beside CUDA on the same card; or, with
# OMPCC=gcc, by GCC 12 (.gpu-host/offload/*.deb). The two do not fit together in the 64 MiB a call
# carries (47 + 42 MB): one call each, the other compiler then refused with its reason; a warm host
# that ran a GCC call first keeps GCC unpacked in /tmp, and then both are there.
#   carry .gpu-host; run from the repository root: [OMPCC=gcc] bash scripts/gpu-calls/2026-12-07-llvm-offload.sh
# PARTS picks parts (default all, in order, while DEADLINE allows). Logs and databases (every
# measurement in $OMPCC.db) are written to a work folder and come back as $OUT/offload-call-$OMPCC.tgz.
#   devices  `harness devices`: omp-target:0 listed through clang's runtime; cc=gcc refused, its reason
#   peak     copy ceiling through CUDA and through the omp-target copy loop (clang), launch cost
#   verify   every mat-vec and LBM directive variant on omp-target:0 with cc=clang (a06-async first)
#   matvec   CUDA's variants at their shapes vs omp-target cc=clang's, 20 products, 3 rounds
#   lbm      1024x1024, 2000 steps: CUDA final vs the omp-target programs with cc=clang
#   dg       issue 38: the DG solver's s4-aligned and s5-flags on omp-target with this compiler (dg-gpu.sh)
#   tune     sweeps/tune-matvec-omptarget.sweep: exhaustive, then forest (budget 16) on the same space
#   report   Table 15 of `report lbm` (its definition cut to the table): a column per compiler
set -u
RESULT=${OUT:-/tmp}
mkdir -p "$RESULT"
OUT=/tmp/llvm-work # the device returns few files: everything goes back as one archive
mkdir -p "$OUT"
trap 'tar -czf "$RESULT/offload-call-${OMPCC:-clang}.tgz" -C "$OUT" . 2>/dev/null' EXIT
PARTS=${PARTS:-devices peak matvec lbm verify dg tune report}
DEADLINE=${DEADLINE:-585}
want() { [[ " $PARTS " == *" $1 "* ]]; }
left() { echo $((DEADLINE - SECONDS - 10)); }
# capped CAP LABEL FILE CMD...: CMD under a timeout of CAP s or the time left, output to FILE.
capped() {
    local cap=$1 label=$2 file=$3 t rc
    shift 3
    t=$(left)
    [ "$t" -gt "$cap" ] && t=$cap
    if [ "$t" -lt 15 ]; then echo "[${SECONDS}s] $label: skipped, out of time"; return 0; fi
    timeout -k 5 "$t" "$@" >>"$file" 2>&1
    rc=$?
    echo "[${SECONDS}s] $label: exit $rc$([ $rc -eq 124 ] && echo " (cut at ${t}s)")"
}
OMPCC=${OMPCC:-clang}
source .gpu-host/setup.sh >"$OUT/setup.log" 2>&1
if [ "$OMPCC" = clang ]; then
    KIT=.gpu-host/llvm-kit.tar.xz source scripts/llvm-kit/env.sh >>"$OUT/setup.log" 2>&1
    # A warm host that ran a GCC call before keeps its unpacked compiler: both then.
    [ -x /tmp/gcc12-offload/usr/bin/gcc-12 ] && source .gpu-host/offload/offload.sh >>"$OUT/setup.log" 2>&1
else
    source .gpu-host/offload/offload.sh >>"$OUT/setup.log" 2>&1
fi
tail -1 "$OUT/setup.log"
C=$(cat .gpu-host/commit 2>/dev/null || echo unknown)
make -j16 GIT_COMMIT="$C" GIT_DIRTY=0 >"$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
echo "[${SECONDS}s] built $C; $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
unset LD_LIBRARY_PATH # nothing asked of the user: run paths and the preloaded libgomp find each runtime
export HARNESS_CACHE=/tmp/offload-cache-$OMPCC
H=bin/harness
DB=$OUT/$OMPCC.db
T=omp-target:0

if want devices; then
    $H devices >"$OUT/devices.txt" 2>&1
    grep -E '^(cuda|omp-target|openacc)|note: (omp-target|openacc)' "$OUT/devices.txt"
    grep -A1 '^omp-target:0' "$OUT/devices.txt" | tail -1
    other=$([ "$OMPCC" = clang ] && echo gcc || echo clang)
    $H verify matvec --device $T --variant final --knobs cc=$other --db $OUT/refused.db 2>&1 | grep -m1 "cc=$other" | cut -c1-300
fi
if want peak; then
    capped 90 peak "$OUT/peak.txt" $H peak --device cuda:0,$T --db $DB
    grep -iE 'GB/s' "$OUT/peak.txt" | head -4
    capped 60 launch-cost "$OUT/launch.txt" $H launch-cost --device $T --db $DB
    tail -4 "$OUT/launch.txt"
fi
if want matvec; then
    capped 90 "matvec cuda" "$OUT/matvec.txt" $H run --app matvec --device cuda:0 \
        --variant v7-stream,v6-paired,v4-masked --wg 64x1,128x1,320x1,64x2 --iters 20 --reps 10 --rounds 3 --db $DB
    capped 150 "matvec omp-target $OMPCC" "$OUT/matvec.txt" $H run --app matvec --device $T --knobs cc=$OMPCC \
        --variant v4-masked,v6-paired,v7-stream,m6-paired --wg 64x1,128x1,256x1 \
        --iters 20 --reps 10 --rounds 3 --db $DB
    grep -E ' ok ' "$OUT/matvec.txt" | sort -t' ' -k1,1 | awk '{print $1, $4, $5, $7, $8}' | sort -k4 -g | head -12
fi
if want lbm; then
    capped 60 "lbm cuda final" "$OUT/lbm.txt" $H run --device cuda:0 --variant final --input 1024x1024 --iters ${LBM_ITERS:-2000} \
        --reps 5 --rounds 3 --db $DB
    capped 200 "lbm omp-target $OMPCC" "$OUT/lbm.txt" $H run --device $T --knobs cc=$OMPCC \
        --variant a04-device-av,a06-async,a08-strips --wg 128x1,256x1 --input 1024x1024 --iters ${LBM_ITERS:-2000} \
        --reps 3 --rounds 2 --db $DB
    grep -E ' ok |crash|wrong' "$OUT/lbm.txt" | awk '{print $1, $4, $5, $6, $7, $8}'
fi
if want verify; then
    capped 150 "verify matvec" "$OUT/verify.txt" $H verify matvec --device $T --knobs cc=$OMPCC --db $DB
    capped 150 "verify lbm" "$OUT/verify.txt" $H verify lbm --device $T --knobs cc=$OMPCC \
        --variant a06-async,a01-given,a02-per-step,a03-fused,a04-device-av,a05-soa,a08-strips --db $DB
    grep -E '^(v[0-9]|c3|b3|t2|m6|final|a0)' "$OUT/verify.txt" | tr -s ' ' | paste -sd';' | cut -c1-900
    grep -m8 "note: omp-target cc=$OMPCC: kernel" "$OUT/verify.txt"
fi
if want dg; then # issue 38: the DG solver's directive programs with this compiler, at the seed's case
    ( unset HARNESS_CACHE; DEADLINE=$(( $(left) < 200 ? $(left) : 200 )) CCS=$OMPCC PARTS=directive OUT=$OUT/dg \
        bash scripts/gpu-calls/dg-gpu.sh >"$OUT/dg.log" 2>&1 )
    echo "[${SECONDS}s] dg directive cc=$OMPCC"; grep -E ' ok |wrong|exit' "$OUT/dg.log" | cut -c1-200 | head -20
fi
if want tune; then
    capped 200 "tune exhaustive" "$OUT/tune.txt" $H tune sweeps/tune-matvec-omptarget.sweep --strategy exhaustive \
        --rounds 3 --db $OUT/tune-exhaustive-$OMPCC.db
    capped 120 "tune forest" "$OUT/tune.txt" $H tune sweeps/tune-matvec-omptarget.sweep --strategy forest \
        --budget 16 --rounds 3 --db $OUT/tune-forest-$OMPCC.db
    grep -iE 'best|stored|winner|tie|invalid|refused' "$OUT/tune.txt" | head -12
fi
if want report; then
    awk '/^(app|reference|inputs|quick|wg) /{print} /^table 15 /{t=1} /^table 16 /{exit} t&&/^(table|run|published)/{print}' \
        kernels/lbm/report.def >"$OUT/report-t15.def"
    capped 200 "report t15" "$OUT/report.log" $H report lbm --def "$OUT/report-t15.def" --device $T --rounds 2 \
        --db $DB --out "$OUT/report"
    sed -n '/^## Table 15/,/^## Figures/p' "$OUT"/report/report-*.md 2>/dev/null | head -12
fi
mkdir -p "$OUT/ptxas" && cp "$HARNESS_CACHE"/*.ptxas "$OUT/ptxas/" 2>/dev/null
echo "[${SECONDS}s] done"
