#!/usr/bin/env bash
# The coloured mat-vec app (seed 004) end to end on both CPU devices:
# `verify matvec` at small sizes (every variant verified on openmp and
# opencl:0.0, with errors inside the stated tolerance and the database rows;
# OpenACC's own, v8-globals and v8-async, invalid there and refused by run),
# a rectangle with unequal colours and other layers, --iters, the knob rules,
# a broken kernel reported wrong on both devices (a copy of kernels/ through
# HARNESS_ROOT), and bad input (exit 2, a clear message, nothing stored).
# Prints "ok - ..." / "not ok - ..." per check.
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
test_dir matvec
H=bin/harness
q() { sqlite3 "$1" "$2" 2>&1; }

# The variants and which are OpenACC's own (tests/lib.sh),
# which the CPU devices refuse.
matvec_variants
for v in v1-original v2-scalar v3-collapsed v4-masked final; do
    check "variants/matvec.variants names $v" bash -c "printf '%s\n' ${names[*]} | grep -qx '$v'"
done
nv=${#names[@]}
nacc=0
for v in "${names[@]}"; do nacc=$((nacc + ${acc[$v]})); done
nrun=$((nv - nacc)) # the variants a CPU device runs

# check_matrix LABEL FILE: every variant verified on openmp and opencl:0.0,
# OpenACC's own invalid there.
check_matrix() {
    local label=$1 file=$2 header j seen=0
    header=$(grep -m1 '^variant ' "$file")
    IFS='|' read -r -a cols <<<"$header"
    local ndev=$((${#cols[@]} - 1))
    for v in "${names[@]}"; do
        IFS='|' read -r -a cells <<<"$(grep -E "^${v}[[:space:]]+\|" "$file" | head -1)"
        for ((j = 1; j <= ndev; j++)); do
            local dev cell
            dev=$(echo "${cols[$j]}" | xargs)
            [ "$dev" = openmp ] || [ "$dev" = opencl:0.0 ] || continue
            seen=$((seen + 1))
            cell=$(echo "${cells[$j]:-}" | xargs)
            local want=verified
            [ "${acc[$v]}" = 1 ] && want=invalid cell=${cell%% *} # "invalid [3]": the word
            if [ "$cell" = $want ]; then ok "$label: $v on $dev: $want"
            else notok "$label: $v on $dev: '$cell', wanted '$want'"; fi
        done
    done
    check "$label: the matrix has every variant on openmp and opencl:0.0 ($seen cells)" [ "$seen" -eq $((2 * nv)) ]
}

# 1. verify at the app's verify input (30x20x40): every variant, both devices.
db=$T/v.db
$H verify matvec --device openmp,opencl:0.0 --db "$db" >"$T/v.out" 2>"$T/v.err"
rc=$?
check "verify matvec exits 0 (got $rc)" [ $rc -eq 0 ]
[ $rc -eq 0 ] || sed 's/^/#   /' "$T/v.err" | tail -5
check "verify: the header says 30x20x40, tolerance 7e-15" grep -q 'input 30x20x40, 1 steps, .*tolerance 7e-15' "$T/v.out"
check_matrix "30x20x40" "$T/v.out"
got=$(q "$db" "SELECT count(*) FROM measurement WHERE status = 'ok' AND max_rel_err <= tolerance AND tolerance > 0
               AND tolerance < 1e-14 AND cell_updates = 600 * 40 AND gbs > 0")
check "db: $got ok rows within a tolerance under 1e-14, 24000 cell updates, GB/s (want $((2 * nrun)))" [ "$got" = $((2 * nrun)) ]
# The atomic variants reorder sums on a multi-threaded device: some error
# must show somewhere, or the comparison is not looking at the device's lhs.
got=$(q "$db" "SELECT count(*) FROM measurement WHERE max_abs_err > 0")
check "db: some rows carry a nonzero rounding difference ($got), all far below the tolerance" [ "$got" -gt 0 ]

# 2. A rectangle whose colours differ in size (31 = 3*10+1 columns, 7 rows:
# colours of 44, 40, 40, 33, 30, 30 cells), 13 layers, 3 products a repetition,
# a 16x2 work-group.
$H verify matvec --device openmp,opencl:0.0 --input gen:31x7x13 --iters 3 --wg 16x2 --db "$T/r.db" >"$T/r.out" 2>"$T/r.err"
rc=$?
check "verify --input gen:31x7x13 --iters 3 --wg 16x2 exits 0 (got $rc)" [ $rc -eq 0 ]
check "verify: the header says 31x7x13, 3 steps, work-group 16x2" grep -q 'input 31x7x13, 3 steps, work-group 16x2' "$T/r.out"
check_matrix "31x7x13 x3" "$T/r.out"

# 3. run: rows with GB/s and the result label; gen:NXxNY means 40 layers.
$H run --app matvec --input gen:12x8 --variant v1-original,final --device openmp --wg 32x2,64x1 --reps 2 \
    --warmup 0 --db "$T/run.db" >"$T/run.out" 2>&1
rc=$?
n=$(grep -c ' ok .*GB/s' "$T/run.out")
check "run v1-original,final over 2 shapes exits 0 with 4 ok lines ($rc, $n)" [ $rc -eq 0 -a "$n" -eq 4 ]
got=$(q "$T/run.db" "SELECT count(*) FROM measurement m JOIN config c ON c.id = m.config_id
                     WHERE c.app = 'matvec' AND c.input = '12x8x40' AND m.status = 'ok'")
check "db: the input is stored as 12x8x40 ($got rows)" [ "$got" = 4 ]

# 4. --out: lhs as raw doubles.
$H run --app matvec --input gen:6x4x5 --variant final --device opencl:0.0 --reps 1 --warmup 0 --wg 8x1 \
    --db "$T/o.db" --out "$T/out" >"$T/o.out" 2>&1
sz=$(stat -c %s "$T/out/lhs.f64" 2>/dev/null || echo 0)
check "--out: lhs.f64 holds 2*7*5*5 doubles ($sz bytes)" [ "$sz" -eq $((2 * 7 * 5 * 5 * 8)) ]

# 5. Refusals: exit 2, the reason named, nothing stored.
refuse() { # LABEL PATTERN ARGS...
    local label=$1 pat=$2; shift 2
    local before after rc
    before=$(q "$db" "SELECT count(*) FROM measurement")
    $H run --app matvec --device "${RDEV:-openmp}" --reps 1 --warmup 0 --db "$db" "$@" >"$T/x.out" 2>&1
    rc=$?
    after=$(q "$db" "SELECT count(*) FROM measurement")
    if [ $rc -eq 2 ] && grep -q -- "$pat" "$T/x.out" && [ "$before" = "$after" ]; then ok "$label: exit 2, '$pat', nothing stored"
    else notok "$label: exit $rc, rows $before -> $after: $(tail -1 "$T/x.out")"; fi
}
refuse "masked without atomics" 'needs update=atomic' --input gen:12x8 --variant final --knobs update=plain
refuse "colours=none without atomics" 'neighbouring cells together' --input gen:12x8 --variant v6-paired --knobs update=plain
refuse "input 12x8 (no layers, no gen:)" "expected NXxNYxLAYERS" --input 12x8
refuse "input gen:12x8x" "expected NXxNYxLAYERS" --input gen:12x8x
refuse "input gen:12x-8" "expected NXxNYxLAYERS" --input gen:12x-8
refuse "input gen:2x8" "at least 3x2 cells" --input gen:2x8
refuse "input gen:12x8x0" "not a whole number" --input gen:12x8x0
refuse "input gen:99999999999x8" "not a whole number" --input gen:99999999999x8
refuse "input gen:8192x8192x40" "at most 33554432 cells x layers" --input gen:8192x8192x40
refuse "params=globals on openmp" 'params=globals shapes the OpenACC program' --input gen:12x8 --variant v8-globals
RDEV=opencl:0.0 refuse "async=on on PoCL" 'async=on shapes the OpenACC program' --input gen:12x8 --variant v6-paired \
    --knobs async=on
RDEV=opencl:0.0 refuse "a work-group far wider than a cell (PoCL)" "leaves most idle" --input gen:12x8 --variant v2-scalar --wg 512x1
refuse "more than 65535 groups along y" "over the limit of 65535" --input gen:600x300x1 --variant final --wg 8x2

# 6. Verification can fail: a copy of kernels/ with one bug (the last df2 term
# of every row dropped, in the row arithmetic every backend shares) must be
# reported wrong on both devices, every variant; the unbroken copy verifies.
root=$T/root
rm -rf "$root"
mkdir -p "$root/harness/backend"
cp -r kernels variants "$root/"
cp harness/backend/omp_kernel.h "$root/harness/backend/"
out=$(HARNESS_ROOT=$root HARNESS_CACHE=$T/cache $H verify matvec --device openmp,opencl:0.0 --input gen:9x4x6 \
    --db "$T/b.db" 2>&1)
check "the unbroken copy verifies (exit $?)" bash -c "! echo \"\$1\" | grep -qi wrong" _ "$out"
f=$root/kernels/matvec/matvec_cell.h
sed -i 's/df2 < MV_NDF; df2++) s +=/df2 < MV_NDF - 1; df2++) s +=/' "$f"
if grep -q 'df2 < MV_NDF - 1; df2++) s +=' "$f"; then
    # The temp form has its own sum (matvec_gpu.h, matvec_loops.h), and the
    # paired form on a GPU its own (matvec_gpu.h): break them the same way.
    sed -i 's/df2 < MV_NDF; df2++) lhs_e\[df\] +=/df2 < MV_NDF - 1; df2++) lhs_e[df] +=/' "$root/kernels/matvec/matvec_gpu.h"
    sed -i 's/df2 < MV_NDF; df2++) { \/\* the pair/df2 < MV_NDF - 1; df2++) { \/* the pair/' "$root/kernels/matvec/matvec_gpu.h"
    sed -i 's/df2 < MV_NDF; df2++) le\[df\] +=/df2 < MV_NDF - 1; df2++) le[df] +=/' "$root/kernels/matvec/matvec_loops.h"
    n1=$(grep -c 'MV_NDF - 1' "$root/kernels/matvec/matvec_gpu.h") n2=$(grep -c 'MV_NDF - 1' "$root/kernels/matvec/matvec_loops.h")
    check "the bug is in all four sums (gpu $n1, loops $n2)" [ "$n1" = 2 -a "$n2" = 1 ]
    out=$(HARNESS_ROOT=$root HARNESS_CACHE=$T/cache $H verify matvec --device openmp,opencl:0.0 --input gen:9x4x6 \
        --db "$T/b.db" 2>&1)
    rc=$?
    nw=$(echo "$out" | grep -E '^[a-z0-9-]+ +\|' | grep -oi 'wrong' | wc -l)
    check "a dropped df2 term: verify exits 1 (got $rc)" [ $rc -eq 1 ]
    check "a dropped df2 term: every variant a CPU runs wrong on both devices ($nw of $((2 * nrun)))" [ "$nw" -eq $((2 * nrun)) ]
    got=$(q "$T/b.db" "SELECT count(*) FROM measurement WHERE status = 'wrong' AND max_rel_err > 1e-3 AND reason LIKE '%beyond the tolerance%'")
    check "db: the wrong rows store errors of the size of a term and say why ($got)" [ "$got" = $((2 * nrun)) ]
else
    notok "the sed did not change matvec_cell.h (the source changed; update this test)"
fi
# 7. The layer-fastest layout is what the knob builds and uploads: with df
# and df2 swapped in its index only, b3-transposed is wrong and v3-collapsed
# (Fortran's layout) still verifies, on both devices.
rm -rf "$root/kernels"
cp -r kernels "$root/"
f=$root/kernels/matvec/matvec_cell.h
sed -i 's/return ((cell \* MV_NDF + df2) \* MV_NDF + df) \* nl + k;/return ((cell * MV_NDF + df) * MV_NDF + df2) * nl + k;/' "$f"
if grep -q 'return ((cell \* MV_NDF + df) \* MV_NDF + df2) \* nl + k;' "$f"; then
    out=$(HARNESS_ROOT=$root HARNESS_CACHE=$T/cache $H run --app matvec --device openmp,opencl:0.0 --input gen:9x4x6 \
        --variant b3-transposed,v3-collapsed --reps 1 --warmup 0 --wg 16x1 --db "$T/b.db" 2>&1)
    rc=$?
    nb=$(echo "$out" | grep -cE ' b3-transposed +16x1 +wrong ')
    nv3=$(echo "$out" | grep -cE ' v3-collapsed +16x1 +ok ')
    check "a wrong layer-fastest index: exit 1 ($rc), b3-transposed wrong on both devices ($nb), v3-collapsed ok ($nv3)" \
        [ $rc -eq 1 -a "$nb" -eq 2 -a "$nv3" -eq 2 ]
else
    notok "the sed did not change mv_at's layer-fastest index (the source changed; update this test)"
fi
exit $((fails > 0))
