#!/usr/bin/env bash
# The sandpile app end to end on both CPU devices (OpenMP and PoCL's
# opencl:0.0): every variant verified bit for bit (the stable grid and the
# exact iteration count) on three starts and sizes, a prediction that comes
# early and one that comes late, capped runs, --out, deliberately broken
# kernels reported wrong (a border one cell too wide; a missed topple), and
# refusals: bad inputs, knobs that mean nothing, and bad sweep files
# (file:line:) exit 2 with nothing stored.
# Prints "ok - ..." / "not ok - ..." per check.
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
test_dir sandpile
H=bin/harness
q() { sqlite3 "$1" "$2" 2>&1; }

names=()
while IFS= read -r line; do
    line=${line%%#*}
    [[ "$line" =~ ^[[:space:]]*$ ]] && continue
    names+=("$(echo "${line%%:*}" | tr -d '[:space:]')")
done <variants/sandpile.variants
for v in plain grid grid-200 flag flag-item cell-1000 flag-1000 predict blocked-4 blocked-4-double blocked-4-strip blocked-8 \
    predict-blocked resident-8 async; do
    check "variants/sandpile.variants names $v" bash -c "printf '%s\n' ${names[*]} | grep -qx '$v'"
done

# cell FILE VARIANT DEVICE: the verify matrix's cell.
cell() {
    local header row j
    header=$(grep -m1 '^variant ' "$1")
    row=$(grep -E "^$2[[:space:]]+\|" "$1" | head -1)
    IFS='|' read -r -a cols <<<"$header"
    IFS='|' read -r -a cells <<<"$row"
    for ((j = 1; j < ${#cols[@]}; j++)); do
        [ "$(echo "${cols[$j]}" | xargs)" = "$3" ] && echo "${cells[$j]:-}" | xargs
    done
}

# matrix LABEL FILE EXPECT_INVALID...: every variant verified on both
# devices, but for the VARIANT@DEVICE pairs named, which must be invalid.
matrix() {
    local label=$1 file=$2; shift 2
    local want got dev v n=0
    for v in "${names[@]}"; do
        for dev in openmp opencl:0.0; do
            want=verified
            for x in "$@"; do [ "$x" = "$v@$dev" ] && want=invalid; done
            got=$(cell "$file" "$v" "$dev")
            n=$((n + 1))
            if [[ "$got" == "$want"* ]]; then ok "$label: $v on $dev: $got"
            else notok "$label: $v on $dev: '$got', wanted '$want'"; fi
        done
    done
}

# 1. Three starts, three shapes; the serial count checked in the database.
# 64x64 from 4 grains everywhere (1024 iterations: the seed's fit predicts
# it), a pile of 5000 grains on a 65x49 grid (1076), a random start on
# 61x77 (1522). Shapes that do not divide the interior (62, 63, 75 cells)
# leave partial groups at the edges.
run_verify() { # LABEL INPUT WG COUNT EXPECT_INVALID...
    local label=$1 input=$2 wg=$3 count=$4; shift 4
    local db=$T/$label.db
    $H verify sandpile --device openmp,opencl:0.0 --input "$input" --wg "$wg" --db "$db" >"$T/$label.out" 2>"$T/$label.err"
    local rc=$?
    check "$label: verify sandpile --input $input --wg $wg exits 0 (got $rc)" [ $rc -eq 0 ]
    [ $rc -eq 0 ] || tail -5 "$T/$label.err" | sed 's/^/#   /'
    matrix "$label" "$T/$label.out" "$@"
    local bad
    bad=$(q "$db" "SELECT count(*) FROM measurement m JOIN config c ON c.id = m.config_id
                   WHERE m.status = 'ok' AND c.variant != 'async' AND (m.result != $count OR m.iters != $count)")
    local good
    good=$(q "$db" "SELECT count(*) FROM measurement m JOIN config c ON c.id = m.config_id
                    WHERE m.status = 'ok' AND c.variant != 'async' AND m.result = $count AND m.max_abs_err = 0")
    check "$label: every ok row counted exactly $count iterations ($good rows; $bad otherwise)" \
        bash -c "[ '$bad' = 0 ] && [ '$good' -gt 0 ]"
}
# launch=resident needs a co-resident grid (CUDA): refused on both CPU devices;
# tile=double and cells=R are the work-group kernels': refused on OpenMP.
resident_invalid="resident-8@openmp resident-8@opencl:0.0 blocked-4-double@openmp blocked-4-strip@openmp"
run_verify four 64x64 16x16 1024 async@opencl:0.0 flag-item@openmp cell-1000@openmp $resident_invalid
run_verify pile pile:65x49:5000 8x8 1076 async@opencl:0.0 predict@openmp predict@opencl:0.0 \
    predict-blocked@openmp predict-blocked@opencl:0.0 flag-item@openmp cell-1000@openmp $resident_invalid
run_verify random random:61x77:3 32x4 1522 async@opencl:0.0 predict@openmp predict@opencl:0.0 \
    predict-blocked@openmp predict-blocked@opencl:0.0 flag-item@openmp cell-1000@openmp $resident_invalid

# 2. A prediction: early (then checked every 100) and late (300 steps past
# stability: the flags give the count), on the pile start.
db=$T/predict.db
for p in 500 1376; do
    $H run --app sandpile --input pile:65x49:5000 --variant predict --knobs predict=$p --device openmp,opencl:0.0 \
        --wg 16x8 --reps 1 --warmup 0 --db "$db" >"$T/p.out" 2>&1
    rc=$?
    n=$(grep -c ' ok .*iterations 1076  err 0' "$T/p.out")
    check "predict=$p: exactly 1076 iterations on both devices (exit $rc, $n ok lines)" [ $rc -eq 0 -a "$n" -eq 2 ]
done

# 2b. vote=item and vote=cell in the tiled kernel too (each unstable item
# stores its last unstable step; each cell its own), on PoCL; several
# repetitions, so each must start from cleared flags.
$H run --app sandpile --input random:61x77:3 --variant blocked-4 --knobs vote=item \
    --device opencl:0.0 --wg 16x8 --reps 1 --warmup 0 --db "$T/vote.db" >"$T/vote.out" 2>&1
rc=$?
$H run --app sandpile --input random:61x77:3 --variant predict-blocked --knobs vote=item,predict=1400 \
    --device opencl:0.0 --wg 16x8 --reps 1 --warmup 0 --db "$T/vote.db" >>"$T/vote.out" 2>&1
rc=$((rc + $?))
$H run --app sandpile --input random:61x77:3 --variant blocked-8 --knobs vote=cell,every=300 \
    --device opencl:0.0 --wg 16x8 --reps 2 --warmup 1 --db "$T/vote.db" >>"$T/vote.out" 2>&1
rc=$((rc + $?))
n=$(grep -c ' ok .*iterations 1522  err 0' "$T/vote.out")
check "vote=item with steps=4 and 8, vote=cell with steps=8 (3 repetitions): exactly 1522 iterations on opencl:0.0 (exit $rc, $n ok lines)" [ $rc -eq 0 -a "$n" -eq 3 ]

# 2c. cells=R (topple_strip: a column strip of R cells per work-item) at
# other R, T, tile copies, votes and shapes than blocked-4-strip's, on the
# three starts, some shapes leaving partial groups at the grid's edges and
# R = 6 and 8 (strips across a tile's inner rows); a capped run whose last
# launch is cut short (300 = 37 x 8 + 4); every one the exact count.
# (The rows of a split: tests/unit/test_sandpile_strip_rows.c.)
strip() { # INPUT KNOBS WG
    $H run --app sandpile --input "$1" --variant flag-1000 --knobs "$2" --device opencl:0.0 --wg "$3" --reps 1 \
        --warmup 0 --db "$T/strip.db" >>"$T/strip.out" 2>&1 || echo "exit $? for $*" >>"$T/strip.out"
}
: >"$T/strip.out"
strip 64x64 steps=2,cells=2 16x6
strip 64x64 steps=8,tile=double,cells=8 16x16
strip pile:65x49:5000 steps=3,tile=double,cells=6 26x12
strip pile:65x49:5000 steps=4,cells=4,vote=item 24x8
strip random:61x77:3 steps=5,tile=double,cells=2,vote=cell 22x8
strip random:61x77:3 steps=4,tile=double,cells=8 56x24
n=$(grep -cE ' ok .*iterations (1024|1076|1522)  err 0' "$T/strip.out")
check "cells=2..8 with steps=2..8, single and double tiles, three votes, three starts: 6 runs exact on opencl:0.0 ($n)" \
    [ "$n" -eq 6 ]
grep -E 'exit|wrong|error' "$T/strip.out" | head -3 | sed 's/^/#   /'
$H run --app sandpile --input 64x64 --iters 300 --variant flag-1000 --knobs steps=8,tile=double,cells=4 \
    --device opencl:0.0 --wg 16x8 --reps 2 --warmup 1 --db "$T/strip.db" >"$T/strip-cap.out" 2>&1
rc=$?
check "cells=4 with steps=8, --iters 300 (a launch of 4 at the end), 3 repetitions: 300 and verified (exit $rc)" \
    grep -q ' ok .*iterations 300  err 0' "$T/strip-cap.out"

# 3. A capped run: 300 of 1024 iterations, compared with the serial grid
# after 300; every synchronous variant, a launch of 8 steps cut at the cap.
$H run --app sandpile --input 64x64 --iters 300 --variant plain,grid-200,flag-1000,blocked-4,blocked-8 \
    --device openmp,opencl:0.0 --wg 16x16 --reps 1 --warmup 0 --db "$T/cap.db" >"$T/cap.out" 2>&1
rc=$?
n=$(grep -c ' ok .*iterations 300  err 0' "$T/cap.out")
check "--iters 300: 5 variants x 2 devices stop at 300 and verify (exit $rc, $n ok lines)" [ $rc -eq 0 -a "$n" -eq 10 ]
got=$(q "$T/cap.db" "SELECT count(*) FROM measurement WHERE status = 'ok' AND iters = 300 AND iters_full = 1024 AND scaled = 1")
check "db: the capped rows record 300 of 1024 iterations, scaled ($got rows)" [ "$got" = 10 ]

# 4. --out: the count and the final grid.
out=$T/out
$H run --app sandpile --input 64x64 --variant blocked-4 --device opencl:0.0 --wg 8x8 --reps 1 --warmup 0 \
    --db "$T/out.db" --out "$out" >"$T/o.out" 2>&1
check "--out exits 0 ($?)" [ -f "$out/sandpile.dat" ]
check "--out: sandpile.dat says 1024 iterations" grep -qx 'iterations 1024' "$out/sandpile.dat"
sz=$(stat -c %s "$out/final_grid.u32" 2>/dev/null || echo 0)
check "--out: final_grid.u32 holds 64*64 cells ($sz bytes)" [ "$sz" -eq 16384 ]
max=$(od -An -v -tu4 -w4 "$out/final_grid.u32" | sort -n | tail -1 | xargs)
check "--out: the final grid is stable (largest cell $max < 4)" [ "${max:-9}" -lt 4 ]

# 5. Broken kernels are reported wrong. (a) A test-only define: the left
# column never receives its west neighbour's grains (the sink one cell too
# wide), on both backends. (b) A copy of the kernels (HARNESS_ROOT) where
# the tiled kernel misses the centre cell's topple at each launch's second
# step: opencl:0.0 wrong, openmp (untouched) verified.
SANDPILE_TEST_DEFINES=-DK_BROKEN_BORDER HARNESS_CACHE=$T/cache-broken $H run --app sandpile --input 64x64 \
    --variant flag --device openmp,opencl:0.0 --wg 16x16 --reps 1 --warmup 0 --db "$T/broken.db" >"$T/b.out" 2>&1
rc=$?
n=$(grep -c ' wrong ' "$T/b.out")
check "a border one cell too wide: wrong on both devices, exit 1 (exit $rc, $n wrong)" [ $rc -eq 1 -a "$n" -eq 2 ]
grep -q 'cells differ' "$T/b.out" && ok "the reason names the cells that differ" || notok "no reason: $(head -2 "$T/b.out")"
got=$(q "$T/broken.db" "SELECT count(*) FROM measurement WHERE status = 'wrong' AND max_abs_err > 0")
check "db: 2 wrong rows with their error ($got)" [ "$got" = 2 ]
root=$T/root
mkdir -p "$root/harness/backend"
cp -r kernels variants "$root/"
cp harness/backend/omp_kernel.h "$root/harness/backend/"
f=$root/kernels/sandpile/sandpile_gpu.h
sed -i 's/if (cell \&\& !edge) nv = /if (cell \&\& !edge \&\& !(s == 1 \&\& x == w \/ 2 \&\& y == h \/ 2)) nv = /' "$f"
if grep -q 's == 1 && x == w / 2' "$f"; then
    HARNESS_ROOT=$root HARNESS_CACHE=$T/cache-broken $H run --app sandpile --input 64x64 --variant blocked-4 \
        --device openmp,opencl:0.0 --wg 16x16 --reps 1 --warmup 0 --db "$T/broken2.db" >"$T/b2.out" 2>&1
    rc=$?
    ocl=$(grep -c '^opencl:0.0 .* wrong ' "$T/b2.out")
    omp=$(grep -c '^openmp .* ok ' "$T/b2.out")
    check "a missed topple in the tiled kernel: opencl:0.0 wrong, openmp ok, exit 1 (exit $rc)" \
        [ $rc -eq 1 -a "$ocl" -eq 1 -a "$omp" -eq 1 ]
else
    notok "the sed did not change sandpile_gpu.h (update this test)"
fi
# (c) The strip kernel reading the south neighbour of its last cell one row
# short (its own last cell again): wrong, and the same copy's one-cell-per-
# item kernel (blocked-4-double) still verified.
cp kernels/sandpile/sandpile_gpu.h "$f"
sed -i 's/cur\[l + K_CELLS \* bw\]/cur[l + (K_CELLS - 1) * bw]/' "$f"
if grep -q 'cur\[l + (K_CELLS - 1) \* bw\]' "$f"; then
    HARNESS_ROOT=$root HARNESS_CACHE=$T/cache-broken $H run --app sandpile --input random:61x77:3 \
        --variant blocked-4-strip,blocked-4-double --device opencl:0.0 --wg 16x8 --reps 1 --warmup 0 \
        --db "$T/broken3.db" >"$T/b3.out" 2>&1
    rc=$?
    bad=$(grep -c '^opencl:0.0 .*blocked-4-strip .* wrong ' "$T/b3.out")
    good=$(grep -c '^opencl:0.0 .*blocked-4-double .* ok .*err 0' "$T/b3.out")
    check "a strip end read one row short: blocked-4-strip wrong, blocked-4-double ok, exit 1 (exit $rc)" \
        [ $rc -eq 1 -a "$bad" -eq 1 -a "$good" -eq 1 ]
else
    notok "the sed did not change topple_strip's south read (update this test)"
fi

# 6. Refusals: exit 2, the reason named, nothing stored.
db=$T/refuse.db
$H run --app sandpile --input 16x16 --variant flag --device openmp --reps 1 --warmup 0 --db "$db" >/dev/null 2>&1
refuse() { # LABEL PATTERN ARGS...
    local label=$1 pat=$2; shift 2
    local before after rc
    before=$(q "$db" "SELECT count(*) FROM measurement")
    $H run --app sandpile --reps 1 --warmup 0 --db "$db" "$@" >"$T/r.out" 2>&1
    rc=$?
    after=$(q "$db" "SELECT count(*) FROM measurement")
    if [ $rc -eq 2 ] && grep -q "$pat" "$T/r.out" && [ "$before" = "$after" ]; then ok "$label: exit 2, '$pat', nothing stored"
    else notok "$label: exit $rc, rows $before -> $after: $(tail -1 "$T/r.out")"; fi
}
refuse "input 2x64" 'at least 3x3' --input 2x64 --device openmp
refuse "input 64" 'expected WxH' --input 64 --device openmp
refuse "input heap:9x9" "unknown start 'heap'" --input heap:9x9 --device openmp
refuse "input pile:9x9:many" 'not a whole number' --input pile:9x9:many --device openmp
refuse "async on OpenCL" 'CPU (OpenMP) only' --input 16x16 --variant async --device opencl:0.0
refuse "launch=resident on OpenCL" 'only CUDA' --input 16x16 --variant resident-8 --device opencl:0.0
refuse "launch=resident on OpenMP" 'only CUDA' --input 16x16 --variant resident-8 --device openmp
refuse "async capped" 'capped asynchronous run' --input 16x16 --variant async --iters 10 --device openmp
refuse "async with detect=predict" 'use detect=flag or grid' --input 16x16 --variant async --knobs detect=predict --device openmp
refuse "every with detect=none" 'never checks' --input 16x16 --variant plain --knobs every=5 --device openmp
refuse "predict without detect=predict" 'predict is the first iteration' --input 16x16 --variant flag --knobs predict=9 --device openmp
refuse "the seed's fit on a rectangle" 'give predict=N' --input 32x16 --variant predict --device openmp
refuse "steps=0" "knob steps: '0'" --input 16x16 --knobs steps=0 --device openmp
refuse "vote=item on OpenMP" 'no barrier to save' --input 16x16 --variant flag-item --device openmp
refuse "vote=cell on OpenMP" 'no barrier to save' --input 16x16 --variant cell-1000 --device openmp
refuse "vote=item with detect=none" 'stores no flags' --input 16x16 --variant plain --knobs vote=item --device opencl:0.0
refuse "cells=4 on OpenMP" 'strip of R cells per work-item' --input 16x16 --variant blocked-4 --knobs cells=4 --device openmp
refuse "cells=4 with steps=1" 'steps=T >= 2' --input 16x16 --variant flag --knobs cells=4 --device opencl:0.0
refuse "cells=4 on 16x10 blocks with steps=4 (18 rows)" '18 rows tall, not a multiple of 4' --input 64x64 \
    --variant blocked-4-strip --wg 16x10 --device opencl:0.0
refuse "cells=4 with launch=resident" 'launch=each' --input 16x16 --variant resident-8 --knobs cells=4 --device opencl:0.0
refuse "cells=0" "knob cells: '0'" --input 16x16 --variant blocked-4-strip --knobs cells=0 --device opencl:0.0
refuse "steps=16 on 48x32 blocks (an 80x64 group)" 'over the device' --input 64x64 --variant blocked-8 --knobs steps=16 --wg 48x32 --device opencl:0.0

# 7. A sweep file with a bad knob value or a bad input: file:line:, exit 2,
# no database written.
sweep_refuse() { # LABEL LINE PATTERN TEXT
    local label=$1 line=$2 pat=$3 text=$4 rc
    printf '%s\n' "$text" >"$T/bad.sweep"
    rm -f "$T/bad.db"
    $H sweep "$T/bad.sweep" --db "$T/bad.db" >"$T/s.out" 2>&1
    rc=$?
    if [ $rc -eq 2 ] && grep -q "bad.sweep:$line: .*$pat" "$T/s.out" && [ ! -s "$T/bad.db" ]; then
        ok "$label: exit 2, bad.sweep:$line:, nothing stored"
    else notok "$label: exit $rc: $(tail -1 "$T/s.out")"; fi
}
sweep_refuse "a sweep with steps=0" 4 "knob steps: '0'" $'app sandpile\ninput 32x32\nvariant flag\nknobs flag: steps=0|2\ndevice openmp\nwg 8x8'
sweep_refuse "a sweep with input heap:32x32" 2 "unknown start 'heap'" $'app sandpile\ninput heap:32x32\nvariant flag\ndevice openmp\nwg 8x8'

# 8. The report: kernels/sandpile/report.def at 48x48 (the shipped one is
# 512x512, minutes on a CPU), --quick on both CPU devices: the seed's
# numbers beside ours, every row measured and verified but the hybrid,
# which says why it is not measured (and vote=item, vote=cell on OpenMP:
# refused there, invalid in the table).
sed 's/^inputs 512x512/inputs 48x48/; s/^wg 16x16/wg 8x8/' kernels/sandpile/report.def >"$T/small.def"
$H report sandpile --quick --def "$T/small.def" --device openmp,opencl:0.0 --db "$T/report.db" --out "$T/report" \
    >"$T/report.log" 2>&1
rc=$?
md=$(ls "$T"/report/report-*.md 2>/dev/null | head -1)
check "report sandpile --quick exits 0 and writes its markdown (exit $rc)" [ $rc -eq 0 -a -n "$md" ]
if [ -n "$md" ]; then
    check "report: Table 1 has the seed's figures (0.380, 13.757, 1.135, 0.951)" \
        bash -c "grep -q '| plain | .*| 0.380 |' '$md' && grep -q '| grid | .*| 13.757 |' '$md' &&
                 grep -q '| grid-200 | .*| 1.135 |' '$md' && grep -q '| predict | .*| 0.951 |' '$md'"
    check "report: the hybrid row is not measured, with the seed's 9.264 and the reason" \
        bash -c "grep -q '| hybrid .*| not measured | - | not measured | - | 9.264 |' '$md' &&
                 grep -q 'not measured: a run over two devices needs the multi-device core' '$md'"
    bad=$(grep -E '^\| 48x48 \|' "$md" | grep -vE 'hybrid|(flag-item|cell-1000) \| invalid' | grep -cE 'wrong|crashed|timeout|error|invalid')
    check "report: every other row measured and verified on both devices ($bad rows not)" [ "$bad" -eq 0 ]
fi

exit $((fails > 0))
