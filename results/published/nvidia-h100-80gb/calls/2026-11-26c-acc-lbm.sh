#!/usr/bin/env bash
# GPU host call (issue 19's missed LBM figure: OpenACC's best within 2x of
# CUDA `final`; call G/H measured a06-async only at 32x1: 4.4-4.6x at
# 1024x1024). With collapse=1 a gang is H rows and its W vector lanes
# stride along a row, so 32x1 at 1024x1024 is 1024 gangs of 32 lanes:
# 32768 threads on an H100 that holds 270336, each lane 32 cells in turn;
# too few loads in flight for a kernel bound by memory. This call sweeps
# the width: vector_length 32 .. 1024 and a few taller gangs, against CUDA
# `final` in the same call, at the three inputs of Table 15.
#   1. build; `harness peak` on cuda:0 and openacc:0 (the copy ceilings);
#   2. per input: CUDA final (its 32x1 and the ACC_SHAPES widths), then
#      openacc:0 a06-async over ACC_SHAPES; 1024x1024 for ITERS_BIG steps,
#      128x128 and 256x256 for ITERS_SMALL (both scaled from the inputs'
#      own counts, marked so); 3 repetitions x 2 rounds, every run verified;
#   3. the table: per input the best of each, and OpenACC / CUDA.
# ACC_VARIANTS (default a06-async; a comma list) are the OpenACC programs run;
# ACC_KNOBS (space-separated knob settings, as "strips=4 strips=16") adds a
# run of ACC_VARIANTS with each of them (call AC: strips at 1024x1024);
# REPORT=1 then fills Table 15 with `report lbm` on the OpenACC device.
# Run from the repository root with .gpu-host carried (offload/ included):
#     OUT=DIR bash results/published/nvidia-h100-80gb/calls/2026-11-26c-acc-lbm.sh
# Dry run without a GPU: ACC=openacc:host CUDA=openmp HARNESS_OFFLOAD_HOST=1 with
# OFFLOAD_CC/OFFLOAD_FLAGS/OFFLOAD_LIBDIR set, SIZES=128x128 ITERS_SMALL=20.
set -u
: "${OUT:?set OUT}"
DEADLINE=${DEADLINE:-540}
SIZES=${SIZES-1024x1024 128x128 256x256}
ACC_SHAPES=${ACC_SHAPES:-32x1,64x1,128x1,256x1,512x1,1024x1,128x2,256x2,128x4}
ITERS_BIG=${ITERS_BIG:-1000}
ITERS_SMALL=${ITERS_SMALL:-4000}
ACC_VARIANTS=${ACC_VARIANTS:-a06-async}
REPORT=${REPORT:-0}
source scripts/gpu-calls/directive_call.sh # capped, set-up, build
DB=$OUT/acc.db
export HARNESS_CACHE=/tmp/acc-cache
dld=$OFFLOAD_LIBDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
DH=(env LD_LIBRARY_PATH="$dld" bin/harness)
H=bin/harness
CUDA=${CUDA:-cuda:0}
ACC=${ACC:-$("${DH[@]}" devices 2>/dev/null | awk '/^openacc:[0-9]/{print $1; exit}')}
echo "openacc device: ${ACC:-none}"
capped 40 "peak $CUDA" "$OUT/peak.txt" $H peak --device "$CUDA" --db "$DB"
[ -n "$ACC" ] && capped 40 "peak $ACC" "$OUT/peak.txt" "${DH[@]}" peak --device "$ACC" --db "$DB"
grep -E 'copy' "$OUT/peak.txt" | cut -c1-160
# fits WxH,... NX NY: the shapes whose W divides nx and H divides ny (a run
# naming one that does not is refused whole).
fits() { echo "$1" | tr , '\n' | awk -F x -v nx="$2" -v ny="$3" '$1 <= nx && nx % $1 == 0 && ny % $2 == 0' | paste -sd, -; }
for in in $SIZES; do
    it=$ITERS_SMALL
    [ "$in" = 1024x1024 ] && it=$ITERS_BIG
    shapes=$(fits "$ACC_SHAPES" "${in%x*}" "${in#*x}")
    capped 60 "cuda final $in" "$OUT/lbm.txt" $H run --device "$CUDA" --input "$in" --variant final --iters "$it" \
        --wg "$(fits "32x1,$ACC_SHAPES" "${in%x*}" "${in#*x}" | tr , '\n' | sort -u | paste -sd, -)" --reps 3 --rounds 2 --db "$DB"
    [ -n "$ACC" ] && capped 150 "$ACC $ACC_VARIANTS $in" "$OUT/lbm.txt" "${DH[@]}" run --device "$ACC" --input "$in" \
        --variant "$ACC_VARIANTS" --iters "$it" --wg "$shapes" --reps 3 --rounds 2 --db "$DB"
    for kn in ${ACC_KNOBS:-}; do
        [ -n "$ACC" ] && capped 150 "$ACC $ACC_VARIANTS $kn $in" "$OUT/lbm.txt" "${DH[@]}" run --device "$ACC" \
            --input "$in" --variant "$ACC_VARIANTS" --knobs "$kn" --iters "$it" --wg "$shapes" --reps 3 --rounds 2 --db "$DB"
    done
done
grep -E ' (ok|wrong|invalid|runtime-error|compile-error|crashed|timeout) ' "$OUT/lbm.txt" | cut -c1-190
echo "every row (median ms):"
sqlite3 "$DB" "SELECT c.input, d.spec, m.variant, CASE WHEN instr(c.knobs, 'strips=') THEN substr(substr(c.knobs, instr(c.knobs, 'strips=')), 1, instr(substr(c.knobs, instr(c.knobs, 'strips=')) || ',', ',') - 1) ELSE '-' END, c.wg_x || 'x' || c.wg_y, m.status, printf('%.3f', 1000 * m.median_s) FROM measurement m JOIN config c ON c.id = m.config_id JOIN run r ON r.id = m.run_id
    JOIN device d ON d.id = r.device_id ORDER BY c.input, d.spec, m.median_s" 2>&1 | tee "$OUT/rows.txt"
echo "best per input: OpenACC / CUDA final"
sqlite3 "$DB" "WITH b AS (SELECT c.input i, d.backend be, min(m.median_s) t FROM measurement m JOIN config c ON c.id = m.config_id
    JOIN run r ON r.id = m.run_id JOIN device d ON d.id = r.device_id WHERE m.status = 'ok' GROUP BY c.input, d.backend)
    SELECT a.i, printf('openacc %.3f ms', 1000 * a.t), printf('cuda %.3f ms', 1000 * g.t), printf('%.2fx', a.t / g.t)
    FROM b a JOIN b g ON g.i = a.i AND g.be = 'cuda' WHERE a.be = 'openacc'" 2>&1 | tee "$OUT/best.txt"
if [ "$REPORT" = 1 ] && [ -n "$ACC" ]; then # Table 15 by `report lbm` (its definition alone)
    table15 240 "$ACC" "$DB"
fi
$H export --format csv --db "$DB" --out "$OUT/acc.csv" >/dev/null 2>&1
tar -czf "$OUT/all.tgz" -C "$OUT" --exclude=all.tgz . 2>/dev/null
echo "done at ${SECONDS}s"
