#!/usr/bin/env bash
# GPU host call (issue 19's last LBM figure: OpenACC's best within 2x of
# CUDA `final` at 1024x1024; call AE: a09-globals-strips 2.33x on an H200,
# its step 176-183 registers at 12 % occupancy, CUDA final's 44). Found
# here with `ptxas -v` on the PTX GCC embeds in the shared object (sm_90):
# a kernel's sqrtf was a call into the target libm (errno), 183 -> 113
# registers with -fno-math-errno; the lattice index in 32 bits, 113 -> 95.
# This call measures that against the tree before it, in the same call:
#   1. build this tree, and each tree named in TREES: a copy of this one
#      with the files under .ab/<tree>/ laid over it (carry .ab);
#   2. the copy ceilings (cuda:0, openacc:0);
#   3. per input (SIZES), CUDA final over CUDA_SHAPES, then on openacc:0
#      each tree's ACC_VARIANTS at ACC_SHAPES, and this tree's ACC_KNOBS
#      (one run of ACC_VARIANTS each); 3 repetitions x 2 rounds, verified;
#   4. NCU=1: ncu's launch statistics and occupancy of this tree's a09 step;
#   PROBE=1 first runs scripts/probes/directive_copy_probe.c for OpenACC
#   (its 16-byte form: what the mat-vec's loads could reach).
# Run from the repository root with .gpu-host (offload/ included) and .ab
# carried:   OUT=DIR bash results/published/nvidia-h100-80gb/calls/2026-11-26g-acc-regs.sh
set -u
: "${OUT:?set OUT}"
DEADLINE=${DEADLINE:-560}
SIZES=${SIZES-1024x1024 256x256 128x128}
TREES=${TREES-base}
CUDA_SHAPES=${CUDA_SHAPES:-32x1,64x1,128x1,256x1}
ACC_SHAPES=${ACC_SHAPES:-32x1}
ACC_VARIANTS=${ACC_VARIANTS:-a09-globals-strips}
ACC_KNOBS=${ACC_KNOBS-}
ITERS_BIG=${ITERS_BIG:-1000}
ITERS_SMALL=${ITERS_SMALL:-4000}
NCU=${NCU:-0}
PROBE=${PROBE:-0}
source scripts/gpu-calls/directive_call.sh # capped, set-up, build
export HARNESS_CACHE=/tmp/acc-cache
dld=$OFFLOAD_LIBDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
if [ "$PROBE" = 1 ]; then
    $OFFLOAD_CC -O3 -fopenacc $OFFLOAD_FLAGS -o /tmp/acc_probe scripts/probes/directive_copy_probe.c >"$OUT/probe-build.log" 2>&1 &&
        capped 90 "copy probe openacc" "$OUT/probe.txt" env LD_LIBRARY_PATH="$dld" /tmp/acc_probe
    cat "$OUT/probe.txt"
fi
# fits WxH,... NX NY: the shapes whose W divides nx and H divides ny (a run
# naming one that does not is refused whole).
fits() { echo "$1" | tr , '\n' | awk -F x -v nx="$2" -v ny="$3" '$1 <= nx && nx % $1 == 0 && ny % $2 == 0' | paste -sd, -; }
for t in $TREES; do
    rm -rf "/tmp/tree-$t" && mkdir -p "/tmp/tree-$t"
    tar -cf - --exclude=./.gpu-host --exclude=./build --exclude=./bin . | tar -xf - -C "/tmp/tree-$t"
    cp -r ".ab/$t/." "/tmp/tree-$t/"
    (cd "/tmp/tree-$t" && make -j16 >"$OUT/build-$t.log" 2>&1) || { echo "tree $t: build failed"; tail -5 "$OUT/build-$t.log"; }
    echo "[${SECONDS}s] built tree $t"
done
H=bin/harness
ACC=${ACC:-$(env LD_LIBRARY_PATH="$dld" $H devices 2>/dev/null | awk '/^openacc:[0-9]/{print $1; exit}')}
echo "openacc device: ${ACC:-none}"
capped 40 "peak cuda:0" "$OUT/peak.txt" $H peak --device cuda:0 --db "$OUT/new.db"
[ -n "$ACC" ] && capped 40 "peak $ACC" "$OUT/peak.txt" env LD_LIBRARY_PATH="$dld" $H peak --device "$ACC" --db "$OUT/new.db"
grep -E 'copy' "$OUT/peak.txt" | cut -c1-160
for in in $SIZES; do
    it=$ITERS_SMALL
    [ "$in" = 1024x1024 ] && it=$ITERS_BIG
    capped 60 "cuda final $in" "$OUT/lbm.txt" $H run --device cuda:0 --input "$in" --variant final --iters "$it" \
        --wg "$(fits "$CUDA_SHAPES" "${in%x*}" "${in#*x}")" --reps 3 --rounds 2 --db "$OUT/new.db"
    [ -z "$ACC" ] && continue
    for t in new $TREES; do
        h=$H db=$OUT/new.db
        [ "$t" != new ] && h=/tmp/tree-$t/bin/harness db=$OUT/$t.db
        capped 120 "$t $ACC_VARIANTS $in" "$OUT/lbm.txt" env LD_LIBRARY_PATH="$dld" "$h" run --device "$ACC" --input "$in" \
            --variant "$ACC_VARIANTS" --iters "$it" --wg "$ACC_SHAPES" --reps 3 --rounds 2 --db "$db"
    done
    for kn in $ACC_KNOBS; do
        capped 120 "new $ACC_VARIANTS $kn $in" "$OUT/lbm.txt" env LD_LIBRARY_PATH="$dld" $H run --device "$ACC" \
            --input "$in" --variant "$ACC_VARIANTS" --knobs "$kn" --iters "$it" --wg "$ACC_SHAPES" --reps 3 --rounds 2 \
            --db "$OUT/new.db"
    done
done
grep -E ' (ok|wrong|invalid|runtime-error|compile-error|crashed|timeout) ' "$OUT/lbm.txt" | cut -c1-190
echo "every row (tree, input, device, variant, knobs beyond the variant's, shape, status, median ms):"
for t in new $TREES; do
    sqlite3 "$OUT/$t.db" "SELECT '$t', c.input, d.spec, m.variant, c.knobs, c.wg_x || 'x' || c.wg_y, m.status,
        printf('%.3f', 1000 * m.median_s) FROM measurement m JOIN config c ON c.id = m.config_id JOIN run r ON r.id = m.run_id
        JOIN device d ON d.id = r.device_id ORDER BY c.input, d.spec, m.median_s" 2>&1 |
        sed -E 's/layout=[^|]*strips=([0-9]+)[^|]*/strips=\1/'
done | tee "$OUT/rows.txt"
if [ "$NCU" = 1 ] && [ -n "$ACC" ] && [ -x /usr/local/cuda/bin/ncu ]; then
    capped 150 "ncu a09" "$OUT/ncu.txt" env LD_LIBRARY_PATH="$dld" /usr/local/cuda/bin/ncu --kernel-name regex:omp_fn \
        --launch-skip 20 --launch-count 3 --section LaunchStats --section Occupancy --section SpeedOfLight \
        $H run --device "$ACC" --input 1024x1024 --variant "${ACC_VARIANTS%%,*}" --iters 30 --wg 32x1 --reps 1 --warmup 0 \
        --db /tmp/ncu.db --timeout 140
    grep -E 'omp_fn|Registers Per|Achieved Occupancy|Theoretical Occupancy|Duration|DRAM Throughput|Block Limit Reg' \
        "$OUT/ncu.txt" | head -40
fi
tar -czf "$OUT/all.tgz" -C "$OUT" --exclude=all.tgz . 2>/dev/null
echo "done at ${SECONDS}s"
