#!/usr/bin/env bash
# The stencil app end to end on both CPU devices: `verify stencil` at a small
# size (every variant verified on openmp and opencl:0.0, the database rows),
# a capped run (--iters), a run over work-group shapes that stores its rows
# with the iteration count as the result, --out, and refusals (a shape that
# does not divide the grid, rebuild with a device range, a bad input: exit 2,
# nothing stored). Prints "ok - ..." / "not ok - ..." per check.
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
test_dir stencil
H=bin/harness
q() { sqlite3 "$1" "$2" 2>&1; }

# Variant names in file order.
names=()
while IFS= read -r line; do
    line=${line%%#*}
    [[ "$line" =~ ^[[:space:]]*$ ]] && continue
    names+=("$(echo "${line%%:*}" | tr -d '[:space:]')")
done < variants/stencil.variants
for v in rebuild hoisted range-chunked range-coalesced fused atomic atomic-lean warp rows-8 check-8 warp-check-8 blocked-4 \
    warp-blocked-4; do
    check "variants/stencil.variants names $v" bash -c "printf '%s\n' ${names[*]} | grep -qx '$v'"
done

# The warp* lines (reduce=warp), refused on PoCL, and the rest.
warps=$(printf '%s\n' "${names[@]}" | grep '^warp' | paste -sd, -)
others=$(printf '%s\n' "${names[@]}" | grep -v '^warp' | paste -sd, -)
nwarp=$(printf '%s\n' "${names[@]}" | grep -c '^warp')

# check_matrix FILE: every variant verified on openmp and opencl:0.0, but
# for reduce=warp (the warp* lines) on PoCL, which has no warp shuffles: the
# rules refuse it there, with that reason (the footnote); its tiles verify
# on openmp, and the same variants with reduce=atomic verify on PoCL (7.).
check_matrix() {
    local label=$1 file=$2 header j
    header=$(grep -m1 '^variant ' "$file")
    IFS='|' read -r -a cols <<<"$header"
    local ndev=$((${#cols[@]} - 1)) seen=0
    for v in "${names[@]}"; do
        IFS='|' read -r -a cells <<<"$(grep -E "^${v}[[:space:]]+\|" "$file" | head -1)"
        for ((j = 1; j <= ndev; j++)); do
            local dev cell
            dev=$(echo "${cols[$j]}" | xargs)
            [ "$dev" = openmp ] || [ "$dev" = opencl:0.0 ] || continue
            seen=$((seen + 1))
            cell=$(echo "${cells[$j]:-}" | xargs)
            if [ "$cell" = verified ]; then ok "$label: $v on $dev: verified"
            elif [[ "$v" == warp* && "$dev" = opencl:0.0 && "$cell" == invalid* ]] &&
                grep -q "$v on opencl:0.0: reduce=warp needs 32-wide warp shuffles" "$file"; then
                ok "$label: $v on $dev: invalid (no warp shuffles)"
            else notok "$label: $v on $dev: '$cell', wanted 'verified'"; fi
        done
    done
    check "$label: the matrix has every variant on openmp and opencl:0.0 ($seen cells)" [ "$seen" -eq $((2 * ${#names[@]})) ]
}

# 1. verify at 128x128 (18 iterations): every variant, both CPU devices.
db=$T/v.db
$H verify stencil --device openmp,opencl:0.0 --input 128x128 --db "$db" >"$T/v.out" 2>"$T/v.err"
rc=$?
check "verify stencil --input 128x128 exits 0 (got $rc)" [ $rc -eq 0 ]
[ $rc -eq 0 ] || sed 's/^/#   /' "$T/v.err" | tail -5
check "verify: the header says 128x128, 18 steps, tolerance 0" grep -q 'input 128x128, 18 steps, .*tolerance 0e+00' "$T/v.out"
check_matrix "128x128" "$T/v.out"
got=$(q "$db" "SELECT count(*) FROM measurement WHERE status = 'ok' AND iters = 18 AND result = 18 AND max_abs_err = 0")
check "db: $got ok rows with 18 iterations, result 18 and error 0 (want $((2 * ${#names[@]} - nwarp)))" \
    [ "$got" = $((2 * ${#names[@]} - nwarp)) ]

# 2. A capped run: --iters 5 stops every variant after 5 iterations and
# compares with the serial program's state after 5.
# A rectangle (96 wide, 64 high: 13 iterations uncapped), so that a swapped
# x and y would show.
$H verify stencil --device openmp,opencl:0.0 --input gen:96x64 --iters 5 --wg 16x4 --db "$T/cap.db" >"$T/cap.out" 2>"$T/cap.err"
rc=$?
check "verify --input gen:96x64 --iters 5 --wg 16x4 exits 0 (got $rc)" [ $rc -eq 0 ]
check "verify --iters 5: the header says 96x64, 5 steps" grep -q 'input 96x64, 5 steps, work-group 16x4' "$T/cap.out"
check_matrix "96x64 capped" "$T/cap.out"
got=$(q "$T/cap.db" "SELECT count(*) FROM measurement WHERE status = 'ok' AND iters = 5 AND iters_full = 13 AND scaled = 1")
check "db: the capped rows record 5 of 13 iterations, scaled ($got rows)" [ "$got" = $((2 * ${#names[@]} - nwarp)) ]

# 3. run over shapes: rows stored, iterations as the result, GB/s present.
db=$T/run.db
$H run --app stencil --input 128x128 --variant fused,range-coalesced --device openmp --wg 16x16,32x2,128x1 \
    --reps 2 --warmup 0 --db "$db" >"$T/run.out" 2>"$T/run.err"
rc=$?
check "run fused,range-coalesced over 3 shapes exits 0 (got $rc)" [ $rc -eq 0 ]
n=$(grep -c ' ok .*GB/s  iterations 18  err 0' "$T/run.out")
check "run prints 6 ok lines with GB/s and 'iterations 18' ($n)" [ "$n" -eq 6 ]
got=$(q "$db" "SELECT count(*) FROM measurement m JOIN config c ON c.id = m.config_id
               WHERE c.app = 'stencil' AND m.status = 'ok' AND m.result = 18 AND m.gbs > 0")
check "db: 6 ok stencil rows with result 18 and GB/s ($got)" [ "$got" = 6 ]
got=$(q "$db" "SELECT count(DISTINCT c.wg_x || 'x' || c.wg_y) FROM config c WHERE c.app = 'stencil'")
check "db: the three shapes are three configs per variant ($got distinct shapes)" [ "$got" = 3 ]
got=$(q "$db" "SELECT count(*) FROM sample s JOIN measurement m ON m.id = s.measurement_id" 2>/dev/null)
[[ "$got" =~ ^[0-9]+$ ]] && check "db: 2 samples per row ($got)" [ "$got" = 12 ]

# 4. --out: the count, the range and the final grid.
out=$T/out
$H run --app stencil --input 64x64 --variant hoisted --device opencl:0.0 --wg 8x8 --reps 1 --warmup 0 \
    --db "$T/out.db" --out "$out" >"$T/o.out" 2>&1
rc=$?
check "run --out exits 0 (got $rc)" [ $rc -eq 0 ]
check "--out: stencil.dat says 12 iterations" grep -qx 'iterations 12' "$out/stencil.dat"
r=$(awk '$1 == "range" {print $2}' "$out/stencil.dat")
check "--out: the range $r is <= 100" awk -v r="$r" 'BEGIN{exit !(r > 0 && r <= 100)}'
sz=$(stat -c %s "$out/final_grid.f32" 2>/dev/null || echo 0)
check "--out: final_grid.f32 holds 64*64 floats ($sz bytes)" [ "$sz" -eq 16384 ]

# 5. Refusals: exit 2, the reason named, nothing stored.
refuse() { # LABEL PATTERN ARGS...
    local label=$1 pat=$2; shift 2
    local before after rc
    before=$(q "$db" "SELECT count(*) FROM measurement")
    $H run --app stencil --device openmp --reps 1 --warmup 0 --db "$db" "$@" >"$T/r.out" 2>&1
    rc=$?
    after=$(q "$db" "SELECT count(*) FROM measurement")
    if [ $rc -eq 2 ] && grep -q "$pat" "$T/r.out" && [ "$before" = "$after" ]; then ok "$label: exit 2, '$pat', nothing stored"
    else notok "$label: exit $rc, rows $before -> $after: $(tail -1 "$T/r.out")"; fi
}
refuse "a 24x1 work-group on 128x128" 'does not divide the 128x128 grid' --input 128x128 --variant fused --wg 24x1
refuse "rebuild with range=fused" 'range=host' --input 128x128 --variant rebuild --knobs range=fused
refuse "partials=1000 in groups of 32" 'does not divide 1000' --input 128x128 --variant range-chunked --knobs partials=1000 --wg 32x1
refuse "input 2x64" 'at least 3x3' --input 2x64
refuse "input 64" 'expected WxH' --input 64

# 7. rows (points per work-item) on every variant, both CPU devices.
# (A run refuses a set with an invalid config: warp* go to openmp alone.)
$H run --app stencil --input 128x128 --variant "$others" --knobs rows=4 --wg 32x4 --device openmp,opencl:0.0 \
    --reps 1 --warmup 0 --db "$T/rows.db" >"$T/rows.out" 2>&1
rc=$?
$H run --app stencil --input 128x128 --variant "$warps" --knobs rows=4 --wg 32x4 --device openmp \
    --reps 1 --warmup 0 --db "$T/rows.db" >>"$T/rows.out" 2>&1
rc=$((rc + $?))
n=$(grep -c ' ok .*iterations 18  err 0' "$T/rows.out")
check "rows=4: every variant verifies on openmp and opencl:0.0, warp* on openmp (exit $rc, $n ok lines)" \
    [ $rc -eq 0 -a "$n" -eq $((2 * ${#names[@]} - nwarp)) ]

# 7b. range=atomic's host loop: launches of `steps` iterations read every
# `check`, the count falling inside a launch (a relaunch with fewer steps)
# or on its end, a cap that cuts the last launch short, and the warp
# variants' other knobs with reduce=atomic on PoCL. 128x128 converges after
# 18: steps=4 ends inside the fifth launch, steps=3 and 6 on a launch's end,
# steps=5 with check=1 inside the fourth; --iters 7 with steps=4 cuts the
# second launch to 3 steps.
for kn in steps=4,check=1 steps=3,check=9 steps=6,check=6 steps=5,check=1 steps=2,check=40 steps=1,check=3; do
    $H run --app stencil --input 128x128 --variant blocked-4 --knobs "$kn" --wg 16x4,32x2 --device openmp,opencl:0.0 \
        --reps 2 --warmup 0 --db "$T/steps.db" >"$T/steps.out" 2>&1
    rc=$?
    n=$(grep -c ' ok .*iterations 18  err 0' "$T/steps.out")
    check "blocked-4 --knobs $kn, two shapes: 4 verified rows at 18 iterations (exit $rc, $n)" [ $rc -eq 0 -a "$n" -eq 4 ]
done
$H verify stencil --device openmp,opencl:0.0 --input gen:96x64 --iters 7 --wg 16x4 --variant blocked-4,check-8 \
    --db "$T/steps.db" >"$T/steps-cap.out" 2>&1
rc=$?
n=$(grep -cE '^(blocked-4|check-8) +\| verified +\| verified' "$T/steps-cap.out")
check "--iters 7: blocked-4 and check-8 verified on both devices (exit $rc, $n rows)" [ $rc -eq 0 -a "$n" -eq 2 ]
$H run --app stencil --input 128x128 --variant warp,warp-check-8,warp-blocked-4 --knobs reduce=atomic --wg 32x4 \
    --device opencl:0.0 --reps 1 --warmup 0 --db "$T/steps.db" >"$T/warp-atomic.out" 2>&1
n=$(grep -c ' ok .*iterations 18  err 0' "$T/warp-atomic.out")
check "warp* with reduce=atomic verify on PoCL ($n of 3)" [ "$n" -eq 3 ]

# 8. The sweeps machinery: a sweep file over variants, a knob pattern and
# shapes (one that does not divide the grid is stored invalid with its
# reason), and harness tune storing a shape that run then uses.
cat >"$T/s.sweep" <<'SWEEP'
app stencil
input 64x64
variant fused range-chunked
knobs fused: rows=1|2
device openmp
wg 16x2 32x4 24x1
reps 2
warmup 0
SWEEP
$H sweep "$T/s.sweep" --db "$T/sweep.db" >"$T/sweep.out" 2>&1
rc=$?
check "sweep exits 0 (got $rc)" [ $rc -eq 0 ]
got=$(q "$T/sweep.db" "SELECT group_concat(status || ':' || n) FROM (SELECT status, count(*) AS n FROM measurement GROUP BY status ORDER BY status)")
check "sweep stores 6 ok and 3 invalid rows (the 24x1 shape): $got" [ "$got" = "invalid:3,ok:6" ]
$H tune --app stencil --input 64x64 --device openmp --strategy exhaustive --wg-max 64 --variant fused \
    --reps 2 --warmup 0 --db "$T/sweep.db" >"$T/tune.out" 2>&1
rc=$?
check "tune --strategy exhaustive exits 0 and stores a shape (exit $rc)" bash -c "[ $rc -eq 0 ] && grep -q '^stored' '$T/tune.out'"
$H run --app stencil --input 64x64 --device openmp --variant fused --reps 1 --warmup 0 --db "$T/sweep.db" >"$T/tuned.out" 2>&1
check "run without --wg uses the tuned shape" grep -q 'using tuned work-group' "$T/tuned.out"

# 9. Exactness catches bugs: a copy of the kernels (through HARNESS_ROOT)
# with N and S swapped in the GPU update, then with the coalesced range
# kernel skipping every other stride. Each must be reported wrong on
# opencl:0.0 (exit 1) while openmp, untouched, still verifies.
root=$T/root cache=$T/cache
broken() { # LABEL VARIANT FILE SED TEXT_AFTER
    local label=$1 variant=$2 f=$3 expr=$4 after=$5
    rm -rf "$root"
    mkdir -p "$root/harness/backend"
    cp -r kernels variants "$root/"
    cp harness/backend/omp_kernel.h "$root/harness/backend/"
    sed -i "$expr" "$root/$f"
    if ! grep -qF -- "$after" "$root/$f"; then notok "$label: the sed did not change $f (update this test)"; return; fi
    HARNESS_ROOT=$root HARNESS_CACHE=$cache $H verify stencil --device openmp,opencl:0.0 --input 128x128 \
        --variant "$variant" --db "$T/broken.db" >"$T/b.out" 2>&1
    local rc=$? row header j ocl="" omp=""
    header=$(grep -m1 '^variant ' "$T/b.out")
    row=$(grep -E "^$variant[[:space:]]+\|" "$T/b.out" | head -1)
    IFS='|' read -r -a cols <<<"$header"
    IFS='|' read -r -a cells <<<"$row"
    for ((j = 1; j < ${#cols[@]}; j++)); do
        [ "$(echo "${cols[$j]}" | xargs)" = opencl:0.0 ] && ocl=$(echo "${cells[$j]:-}" | xargs)
        [ "$(echo "${cols[$j]}" | xargs)" = openmp ] && omp=$(echo "${cells[$j]:-}" | xargs)
    done
    if [ $rc -eq 1 ] && [[ "$ocl" == WRONG* ]] && [ "$omp" = verified ]; then
        ok "$label: opencl:0.0 '$ocl', openmp '$omp', exit 1"
    else
        notok "$label: exit $rc, opencl:0.0 '$ocl', openmp '$omp'"
    fi
}
broken "N and S swapped in stencil_gpu.h" fused kernels/stencil/stencil_gpu.h \
    's/stencil_point(in\[i - w\], in\[i - 1\], in\[i + w\]/stencil_point(in[i + w], in[i - 1], in[i - w]/' \
    'stencil_point(in[i + w], in[i - 1], in[i - w]'
broken "coalesced range reading every other stride" range-coalesced kernels/stencil/stencil_gpu.h \
    's/i < stop; i += lsize)/i < stop; i += 2 * lsize)/' 'i += 2 * lsize)'
# range=atomic: launches past convergence no longer skip (check-8 reads
# after 24 iterations, so 6 more steps change the grid), and a blocked step
# that leaves the last column of its region stale.
broken "atomic launches not skipping past convergence" check-8 kernels/stencil/stencil_atomic.h \
    's/if (converged_before(slots, it, 1)) return;/if (converged_before(slots, it, 0)) return;/' \
    'converged_before(slots, it, 0)'
broken "blocked step region one column short" blocked-4 kernels/stencil/stencil_atomic.h \
    's/lx < ex - s; lx += sx)/lx < ex - s - 1; lx += sx)/' 'lx < ex - s - 1;'

exit $((fails > 0))
