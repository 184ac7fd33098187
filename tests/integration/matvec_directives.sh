#!/usr/bin/env bash
# The coloured mat-vec (seed 004) on the directive backends, through their
# named host fallbacks (HARNESS_OFFLOAD_HOST=1: openacc:host, omp-target:host;
# this machine has no GPU): every variant of variants/matvec.variants built
# from matvec_acc.c / matvec_omptgt.c (matvec_directive.h over
# matvec_loops.h) and verified at the verify input and at a rectangle with
# unequal colours, several cells a gang and 3 products (on a copy of the
# sources, the unbroken copy of the broken ones below); the shapes a
# directive device cannot honour refused with the reason (exit 2, nothing
# stored); OpenACC's launch knobs (params=globals, async=on: v8-globals,
# v8-async) verified on openacc:host over 1 and 3 products and refused on
# omp-target; atomics=ptx (v9-red) adding by PTX's red in the kernels' PTX,
# refused off OpenACC and without atomics; and verification that can fail, on a copy of kernels/ through
# HARNESS_ROOT: a dropped df2 term wrong on every variant, a wrong
# layer-fastest index wrong on exactly the k-fastest variants, a directive
# source that does not compile a compile-error while openmp still verifies.
# Skipped (not passed) where GCC's nvptx offloading compiler is not installed.
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
test_dir matvec_directives
export HARNESS_CACHE=$T/cache # a broken source must never be served a cached good build
export HARNESS_OFFLOAD_HOST=1
H=bin/harness
DEVS=openacc:host,omp-target:host
q() { sqlite3 "$1" "$2" 2>&1; }

devs=$($H devices 2>&1)
if echo "$devs" | grep -q "cannot build OpenACC offload code"; then
    why=$(echo "$devs" | grep -m1 'openacc:' | cut -c1-160)
    echo "ok - matvec on the directive backends # skip no offloading compiler here ($why)"
    echo "ok - matvec directive refusals and broken sources # skip no offloading compiler here"
    exit 0
fi

# The variants and which are OpenACC's own (tests/lib.sh),
# which omp-target refuses.
matvec_variants
nv=${#names[@]}
nacc=0
for v in "${names[@]}"; do nacc=$((nacc + ${acc[$v]})); done
check "variants/matvec.variants: $nacc OpenACC-only variant(s), v8-globals and v8-async among them" \
    [ "${acc[v8-globals]:-0}" = 1 -a "${acc[v8-async]:-0}" = 1 ]

# cells LABEL FILE WANT: each variant's cell under both directive devices in
# verify's matrix is WANT (verified, wrong, ...), OpenACC's own variants
# invalid on omp-target; one check for the lot.
cells() {
    local label=$1 file=$2 want=$3 header seen=0 bad="" j
    header=$(grep -m1 '^variant ' "$file")
    IFS='|' read -r -a cols <<<"$header"
    for v in "${names[@]}"; do
        IFS='|' read -r -a row <<<"$(grep -E "^${v}[[:space:]]+\|" "$file" | head -1)"
        for ((j = 1; j < ${#cols[@]}; j++)); do
            local dev cell w=$want
            dev=$(echo "${cols[$j]}" | xargs)
            [[ "$dev" == *:host ]] || continue
            [ "${acc[$v]}" = 1 ] && [[ "$dev" == omp-target:* ]] && w=invalid
            seen=$((seen + 1))
            cell=$(echo "${row[$j]:-}" | xargs)
            cell=${cell%% *} # "WRONG 4.1e-01", "invalid [3]": the word
            [ "${cell,,}" = "$w" ] || bad="$bad $v@$dev='$cell'"
        done
    done
    if [ -z "$bad" ] && [ "$seen" -eq $((2 * nv)) ]; then
        ok "$label: $want, every variant on both directive devices (OpenACC's own invalid on omp-target)"
    else notok "$label: $seen of $((2 * nv)) cells, not $want:${bad:- (missing)}"; fi
}

# 1. The verify input (30x20x40), the default shape (32x1): every variant verified.
db=$T/v.db
timeout 900 $H verify matvec --device $DEVS --db "$db" >"$T/v.out" 2>&1
rc=$?
check "verify matvec on $DEVS exits 0 (got $rc)" [ $rc -eq 0 ]
[ $rc -eq 0 ] || grep -E '^\[[0-9]+\]' "$T/v.out" | head -3 | sed 's/^/#   /'
cells "30x20x40" "$T/v.out" verified
got=$(q "$db" "SELECT count(*) FROM measurement m JOIN run r ON r.id = m.run_id JOIN device d ON d.id = r.device_id
               WHERE d.spec LIKE '%:host' AND m.status = 'ok' AND m.max_rel_err <= m.tolerance
               AND m.tolerance > 0 AND m.tolerance < 1e-14 AND m.cell_updates = 600 * 40")
check "db: $got ok rows from the directive devices within a tolerance under 1e-14 (want $((2 * nv - nacc)))" \
    [ "$got" = $((2 * nv - nacc)) ]

# 2. Unequal colours (44, 40, 40, 33, 30, 30 cells), 13 layers, 3 products a
# repetition, 3 cells a gang / team: the gang counts round up and the last
# gang of a colour is short. Run on a copy of the sources through
# HARNESS_ROOT (byte for byte the tree's), which is also step 4's unbroken
# copy: the cache is keyed by the kernel folder's path, so a run in the tree
# and another in the copy would build every directive program twice.
root=$T/root
mkdir -p "$root/harness/backend"
cp -r kernels variants "$root/"
cp -r harness/backend/omp_kernel.h harness/backend/offload "$root/harness/backend/"
small=(--input gen:31x7x13 --iters 3 --wg 32x3)
HARNESS_ROOT=$root timeout 900 $H verify matvec --device $DEVS "${small[@]}" --db "$T/r.db" >"$T/r.out" 2>&1
rc=$?
check "verify --input gen:31x7x13 --iters 3 --wg 32x3 exits 0 (got $rc)" [ $rc -eq 0 ]
cells "31x7x13 x3, 32x3" "$T/r.out" verified
unbroken_rc=$rc

# 2b. OpenACC's launch knobs (params=globals: no region maps a thing; async=on:
# regions queued on async(1)) at the verify input over 3 products (lhs
# accumulates, as the reference's), and the forms beside v8's at the
# rectangle: the masked launch with globals, the temp form's scratch, and
# async=on with clauses over a launch per colour.
timeout 300 $H verify matvec --device openacc:host --variant v8-globals,v8-async --iters 3 --db "$T/g.db" \
    >"$T/g.out" 2>&1
rc=$?
n=$(grep -cE '^v8-(globals|async) +\| verified' "$T/g.out")
check "verify v8-globals,v8-async --iters 3 on openacc:host: exit $rc, $n of 2 verified" [ $rc -eq 0 -a "$n" -eq 2 ]
out=$(for kn in "colours=masked params=globals async=on" "colours=masked form=temp params=globals" \
    "form=scalar update=plain colours=launches async=on"; do
    timeout 120 $H run --app matvec --device openacc:host --input gen:31x7x13 --iters 3 --wg 32x3 --reps 2 \
        --warmup 1 --knobs "$kn" --db "$T/g.db" 2>&1
done)
n=$(grep -cE ' custom +32x3 +ok ' <<<"$out")
check "masked + globals + async, temp + globals, launches + async at 31x7x13 x3, 32x3: $n of 3 ok (verified)" \
    [ "$n" -eq 3 ]

# 2c. atomics=ptx (v9-red): the lhs update GCC 12 makes a compare-and-swap loop (acc atomic update of a
# double) is PTX's red.global.add.f64 in the kernels' own PTX module (the first GCC embeds; libgomp's follow),
# and only there: v8-async's has the CAS loop and no red. The host fallback runs the pragma (verified above).
pc=$T/ptx-cache
HARNESS_CACHE=$pc timeout 300 $H run --app matvec --device openacc:host --variant v8-async,v9-red --input gen:9x4x6 \
    --wg 64x1 --reps 1 --warmup 0 --db "$T/p.db" >"$T/p.out" 2>&1
summary=""
for so in "$pc"/*.so; do
    first_ptx "$so" "$T/k.ptx" 2>/dev/null || continue
    grep -q "mv_all_globals" "$T/k.ptx" || continue
    summary="$summary red=$(grep -c 'red.global.add.f64' "$T/k.ptx"),cas=$(grep -c 'atom.cas.b64' "$T/k.ptx")"
done
summary=$(echo "$summary" | tr ' ' '\n' | sort | xargs)
check "v8-async's kernels add by CAS, v9-red's by red.global.add.f64 (each kernel module: '$summary')" \
    [ "$summary" = "red=0,cas=4 red=4,cas=0" ]

# 3. Refusals: exit 2 from run, the reason, nothing stored.
refuse() { # LABEL DEVICE PATTERN ARGS...
    local label=$1 dev=$2 pat=$3
    shift 3
    local before after rc
    before=$(q "$db" "SELECT count(*) FROM measurement")
    $H run --app matvec --device "$dev" --input gen:9x4x6 --reps 1 --warmup 0 --db "$db" "$@" >"$T/x.out" 2>&1
    rc=$?
    after=$(q "$db" "SELECT count(*) FROM measurement")
    if [ $rc -eq 2 ] && grep -q -- "$pat" "$T/x.out" && [ "$before" = "$after" ]; then
        ok "$label: exit 2, '$pat', nothing stored"
    else notok "$label: exit $rc, rows $before -> $after: $(tail -1 "$T/x.out")"; fi
}
refuse "vector_length(48) on openacc:host" openacc:host 'vector_length(48): GCC' --variant v3-collapsed --wg 48x1
refuse "vector_length(2048) on openacc:host" openacc:host 'vector_length(2048)' --variant v3-collapsed --wg 2048x1
refuse "a 512-lane gang over a 6-lane cell" omp-target:host 'leaves most idle: a cell has 6 lanes' \
    --variant v2-scalar --wg 512x1
refuse "masked without atomics on a directive device" openacc:host 'needs update=atomic' --variant final \
    --knobs update=plain
refuse "params=globals on omp-target:host" omp-target:host "params=globals is OpenACC's \`declare create\`" \
    --variant v8-globals --wg 32x1
refuse "async=on on omp-target:host" omp-target:host 'async=on queues the OpenACC regions on async(1)' \
    --variant v6-paired --knobs async=on --wg 32x1
refuse "atomics=ptx with update=plain" openacc:host 'with update=plain there is none' --variant v2-scalar \
    --knobs atomics=ptx --wg 32x1
refuse "atomics=ptx on omp-target:host" omp-target:host "atomics=ptx replaces OpenACC's" --variant v5-mesh \
    --knobs atomics=ptx --wg 32x1
refuse "atomics=ptx on openmp" openmp "atomics=ptx replaces OpenACC's" --variant v5-mesh --knobs atomics=ptx
refuse "params=globals with a launch per colour" openacc:host 'params=globals keeps one launch.s parameters' \
    --variant v3-collapsed --knobs params=globals --wg 32x1
# thread_limit takes any width: the same 48 runs, verified, on omp-target.
out=$($H run --app matvec --device omp-target:host --input gen:9x4x6 --variant v3-collapsed --wg 48x1 --reps 1 \
    --warmup 0 --db "$db" 2>&1)
check "thread_limit(48) on omp-target:host: ok" grep -qE ' v3-collapsed +48x1 +ok ' <<<"$out"
# A sweep stores the refusal as a row with its reason and goes on.
printf 'app matvec\ninput gen:9x4x6\ndevice openacc:host\nvariant v3-collapsed\nwg 32x1 48x1\nreps 1\n' >"$T/s.sweep"
timeout 300 $H sweep "$T/s.sweep" --db "$T/s.db" >"$T/s.out" 2>&1
rc=$?
st=$(q "$T/s.db" "SELECT group_concat(c.wg_x || ':' || m.status || ':' || substr(coalesce(m.reason, ''), 1, 17), ',')
                  FROM measurement m JOIN config c ON c.id = m.config_id ORDER BY c.wg_x")
check "sweep of 32x1 and 48x1 on openacc:host: exit $rc, rows $st" \
    [ "$st" = "32:ok:,48:invalid:vector_length(48)" -o "$st" = "48:invalid:vector_length(48),32:ok:" ]

# 4. Verification can fail: a copy of the tree with one bug at a time, at
# step 2's input, steps and shape (step 2 is the unbroken copy's run).
check "the unbroken copy verifies on both directive devices (exit $unbroken_rc)" [ $unbroken_rc -eq 0 ]

# 4a. The last df2 term of every row dropped (the shared row arithmetic and the temp form's own sum).
sed -i 's/df2 < MV_NDF; df2++) s +=/df2 < MV_NDF - 1; df2++) s +=/' "$root/kernels/matvec/matvec_cell.h"
sed -i 's/df2 < MV_NDF; df2++) le\[df\] +=/df2 < MV_NDF - 1; df2++) le[df] +=/' "$root/kernels/matvec/matvec_loops.h"
n1=$(grep -c 'MV_NDF - 1' "$root/kernels/matvec/matvec_cell.h")
n2=$(grep -c 'MV_NDF - 1' "$root/kernels/matvec/matvec_loops.h")
if [ "$n1" = 1 ] && [ "$n2" = 1 ]; then
    HARNESS_ROOT=$root timeout 600 $H verify matvec --device $DEVS "${small[@]}" --db "$T/b.db" >"$T/b.out" 2>&1
    rc=$?
    check "a dropped df2 term: verify exits 1 (got $rc)" [ $rc -eq 1 ]
    cells "a dropped df2 term" "$T/b.out" wrong
    got=$(q "$T/b.db" "SELECT count(*) FROM measurement WHERE status = 'wrong' AND max_rel_err > 1e-3
                       AND reason LIKE '%beyond the tolerance%'")
    check "db: the wrong rows store errors of the size of a term and say why ($got of $((2 * nv - nacc)))" \
        [ "$got" = $((2 * nv - nacc)) ]
else
    notok "the sed did not drop the df2 term (cell $n1, loops $n2): the source changed; update this test"
fi

# 4b. A wrong layer-fastest index: the k-fastest variants wrong, Fortran's layout still verified.
rm -rf "$root/kernels" && cp -r kernels "$root/"
f=$root/kernels/matvec/matvec_cell.h
sed -i 's/return ((cell \* MV_NDF + df2) \* MV_NDF + df) \* nl + k;/return ((cell * MV_NDF + df) * MV_NDF + df2) * nl + k;/' "$f"
if grep -q 'return ((cell \* MV_NDF + df) \* MV_NDF + df2) \* nl + k;' "$f"; then
    out=$(HARNESS_ROOT=$root timeout 600 $H run --app matvec --device $DEVS "${small[@]}" --reps 1 --warmup 0 \
        --variant b3-transposed,t2-transposed,v3-collapsed --db "$T/b.db" 2>&1)
    rc=$?
    nw=$(grep -cE ' (b3|t2)-transposed +32x3 +wrong ' <<<"$out")
    nok=$(grep -cE ' v3-collapsed +32x3 +ok ' <<<"$out")
    check "a wrong layer-fastest index: exit 1 ($rc), b3/t2-transposed wrong on both ($nw of 4), v3-collapsed ok ($nok of 2)" \
        [ $rc -eq 1 -a "$nw" -eq 4 -a "$nok" -eq 2 ]
else
    notok "the sed did not change mv_at's layer-fastest index: the source changed; update this test"
fi

# 4c. A directive source that does not compile: compile-error rows with the
# compiler's words, never a crash; openmp (matvec_omp.c) in the same tree verifies.
rm -rf "$root/kernels" && cp -r kernels "$root/"
echo 'this is not C;' >>"$root/kernels/matvec/matvec_directive.h"
HARNESS_ROOT=$root timeout 600 $H verify matvec --device $DEVS,openmp "${small[@]}" --variant v1-original,final \
    --db "$T/c.db" >"$T/c.out" 2>&1
rc=$?
nce=$(q "$T/c.db" "SELECT count(*) FROM measurement WHERE status = 'compile-error' AND reason LIKE '%gcc%'")
nomp=$(grep -cE '^(v1-original|final) +\|.*\| verified +$' "$T/c.out")
check "a directive source that does not compile: exit $rc, 4 compile-error rows naming the compiler ($nce), openmp verified (${nomp} of 2)" \
    [ $rc -ne 0 -a "$nce" = 4 -a "$nomp" = 2 ]
exit $((fails > 0))
