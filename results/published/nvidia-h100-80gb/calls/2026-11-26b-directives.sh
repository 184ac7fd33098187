#!/usr/bin/env bash
# GPU host call (issue 19): the OpenMP-target kernels with `simd` lanes and
# thread_limit in warps (GCC's nvptx mapping: a thread is a warp, simd its
# lanes; before, each warp ran one lane), the omp-target LBM crash fix
# (a04-a06: a host pointer named in no clause), and GCC's copy loops. Run
# from the repository root with .gpu-host carried (offload/*.deb included):
#     bash results/published/nvidia-h100-80gb/calls/2026-11-26b-directives.sh
# Parts, in order, while time is left (DEADLINE, default 560 s):
#   probe    scripts/probes/directive_copy_probe.c built for OpenMP target
#            and OpenACC: GB/s of 1 GiB copies through several spellings
#   peak     copy ceiling through each backend's own loop, cuda:0 beside
#   launch   launch cost of an empty region on the directive devices
#   verify   `verify lbm` a01-a06 and `verify matvec` on both directive
#            devices (LBM 128x128 x 1000 steps; mat-vec 30x20x40)
#   matvec   mat-vec 162x81x40 on omp-target:0 (v6-paired, v5-mesh over
#            shapes), openacc:0 and cuda:0 baselines, 10 reps x 2 rounds
#   lbm      LBM 1024x1024 x 1000 steps: a06-async on both directive
#            devices over shapes, CUDA final at 1024x1024 and 128x128
#   report   Table 15 by `report lbm` (its definition alone)
# MV_RUNS="variant:shapes ..." and LBM_SHAPES=WxH,... change the omp-target runs;
# PROBES="directive_copy_probe omp_target_stacks_probe" the probes built.
# Everything verified and stored in $OUT/d.db; logs in $OUT, packed in
# $OUT/all.tgz at the end.
set -u
: "${OUT:?set OUT}"
DEADLINE=${DEADLINE:-560}
PARTS=${PARTS:-probe peak launch verify matvec lbm report}
want() { [[ " $PARTS " == *" $1 "* ]]; }
source scripts/gpu-calls/directive_call.sh # capped, set-up, build
DB=$OUT/d.db
export HARNESS_CACHE=/tmp/d-cache
dld=$OFFLOAD_LIBDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
DH=(env LD_LIBRARY_PATH="$dld" bin/harness) # directive processes load GCC 12's libgomp
H=bin/harness
CUDA=${CUDA:-cuda:0}
DDEV=${DDEV:-$("${DH[@]}" devices 2>/dev/null | awk '/^(openacc|omp-target):[0-9]/{print $1}' | paste -sd, -)}
echo "directive devices: ${DDEV:-none}"
ACC=$(echo "$DDEV" | tr , '\n' | grep '^openacc' | head -1)
OMT=$(echo "$DDEV" | tr , '\n' | grep '^omp-target' | head -1)

if want probe; then
    for p in ${PROBES:-directive_copy_probe}; do
        for m in openmp openacc; do # the stacks probe is OpenMP's alone
            [ "$p" = omp_target_stacks_probe ] && [ $m = openacc ] && continue
            $OFFLOAD_CC -O3 -f$m $OFFLOAD_FLAGS -o /tmp/$p-$m scripts/probes/$p.c >"$OUT/probe-build-$p-$m.log" 2>&1 &&
                capped 60 "probe $p $m" "$OUT/probe.txt" env LD_LIBRARY_PATH="$dld" /tmp/$p-$m
        done
    done
    cat "$OUT/probe.txt"
fi
if want peak; then
    for d in ${DDEV//,/ }; do capped 40 "peak $d" "$OUT/peak.txt" "${DH[@]}" peak --device "$d" --db "$DB"; done
    capped 40 "peak $CUDA" "$OUT/peak.txt" $H peak --device "$CUDA" --db "$DB"
    grep -E 'copy' "$OUT/peak.txt" | cut -c1-160
fi
if want launch && [ -n "$DDEV" ]; then
    capped 60 "launch-cost" "$OUT/launch.txt" "${DH[@]}" launch-cost --device "$DDEV" --launches 2000 --reps 3 --args 0,4 --db "$DB"
    grep -E '^ +(0|4) ' "$OUT/launch.txt" | head -6
fi
if want verify && [ -n "$DDEV" ]; then
    capped 150 "verify lbm" "$OUT/verify-lbm.txt" "${DH[@]}" verify lbm --device "$DDEV" \
        --variant a01-given,a02-per-step,a03-fused,a04-device-av,a05-soa,a06-async --db "$DB"
    tail -12 "$OUT/verify-lbm.txt" | cut -c1-200
    capped 90 "verify matvec" "$OUT/verify-matvec.txt" "${DH[@]}" verify matvec --device "$DDEV" \
        --variant v2-scalar,v3-collapsed,v4-masked,v5-mesh,v6-paired --input gen:30x20x40 --db "$DB"
    sed -n '/^matvec verification/,/^devices:/p' "$OUT/verify-matvec.txt"
fi
MVIN=162x81x40
if want matvec; then
    capped 30 "matvec cuda" "$OUT/matvec.txt" $H run --app matvec --input $MVIN --device $CUDA --variant v7-stream,v6-paired \
        --wg 160x4 --reps 10 --warmup 3 --rounds 2 --db "$DB"
    [ -n "$OMT" ] && for r in ${MV_RUNS:-v6-paired:160x1,64x2,128x1,32x4 v5-mesh:320x1,128x2}; do
        capped 70 "matvec $OMT ${r%%:*}" "$OUT/matvec.txt" "${DH[@]}" run --app matvec --input $MVIN --device "$OMT" \
            --variant "${r%%:*}" --wg "${r#*:}" --reps 10 --warmup 3 --rounds 2 --db "$DB"
    done
    [ -n "$ACC" ] && capped 40 "matvec $ACC" "$OUT/matvec.txt" "${DH[@]}" run --app matvec --input $MVIN --device "$ACC" \
        --variant v6-paired --wg 64x2 --reps 10 --warmup 3 --rounds 2 --db "$DB"
    grep -E ' (ok|wrong|invalid|runtime-error|compile-error|crashed|timeout) ' "$OUT/matvec.txt" | cut -c1-190
fi
if want lbm; then
    capped 40 "lbm cuda final" "$OUT/lbm.txt" $H run --device $CUDA --input 1024x1024 --variant final --iters 1000 --reps 3 --db "$DB"
    capped 40 "lbm cuda final 128" "$OUT/lbm.txt" $H run --device $CUDA --input 128x128 --variant final --reps 3 --db "$DB"
    [ -n "$OMT" ] && capped 120 "lbm $OMT" "$OUT/lbm.txt" "${DH[@]}" run --device "$OMT" --input 1024x1024 --variant a06-async \
        --iters 1000 --reps 3 --wg ${LBM_SHAPES:-32x1,64x1,128x1,128x4,256x2} --db "$DB"
    [ -n "$ACC" ] && capped 40 "lbm $ACC" "$OUT/lbm.txt" "${DH[@]}" run --device "$ACC" --input 1024x1024 --variant a06-async \
        --iters 1000 --reps 3 --wg 32x1 --db "$DB"
    grep -E ' (ok|wrong|invalid|runtime-error|compile-error|crashed|timeout) ' "$OUT/lbm.txt" | cut -c1-190
fi
if want report && [ -n "$DDEV" ]; then
    table15 200 "$DDEV" "$DB"
fi
$H export --format csv --db "$DB" --out "$OUT/d.csv" >/dev/null 2>&1
echo "rows not ok: $(sqlite3 "$DB" "SELECT count(*) FROM measurement WHERE status != 'ok'" 2>&1)"
sqlite3 "$DB" "SELECT m.variant, d.spec, c.wg_x || 'x' || c.wg_y, m.status, substr(m.reason, 1, 140)
    FROM measurement m JOIN config c ON c.id = m.config_id JOIN run r ON r.id = m.run_id
    JOIN device d ON d.id = r.device_id WHERE m.status != 'ok'" 2>&1 | head -20
tar -czf "$OUT/all.tgz" -C "$OUT" --exclude=all.tgz . 2>/dev/null
echo "done at ${SECONDS}s"
