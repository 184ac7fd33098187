#!/usr/bin/env bash
# The DG app (seed 003) end to end: every variant verified on openmp and
# PoCL and on the offload backends' host paths (skipped without GCC's
# offloading compiler; o7-tiled, the work-group form, refused on each but
# PoCL, and verified there at block shapes cut by the mesh's edge), a
# broken device (an x-face flux of the wrong sign; a state turned NaN)
# reported wrong on every form, --out's cells.dat
# checked against the exact vortex from outside the harness, bad input
# refused (exit 2, a message naming it, nothing stored), and harness/ free
# of the app's name. The physics (order of accuracy, conservation) is
# tests/unit/test_dg.c's, on the reference these runs are verified against.
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
test_dir dg
H=bin/harness
IN=yee:13x11:re=50 # odd and unequal sides: blocks of unequal rows in the reference, a 32x4 block past the edge
q() { sqlite3 "$1" "$2" 2>&1; }
variants=$(sed -n 's/^\([a-z0-9-]*\):.*/\1/p' variants/dg.variants)
nvar=$(echo "$variants" | wc -l)

# verified_all FILE DEVICE [EXCEPT]: every variant's cell for DEVICE in
# verify's table says verified (EXCEPT: the variants, space-separated, that
# must be invalid).
verified_all() {
    local file=$1 dev=$2 except=" ${3:-} " col good=0
    col=$(grep -m1 '^variant ' "$file" | tr '|' '\n' | awk -v d="$dev" '{gsub(/ /, "")} $0 == d {print NR}')
    [ -n "$col" ] || return 1
    for v in $variants; do
        cell=$(grep -E "^$v +\|" "$file" | awk -F'|' -v c="$col" '{print $c}' | xargs)
        if [[ "$except" == *" $v "* ]]; then [[ "$cell" == invalid* ]] && good=$((good + 1))
        else [ "$cell" = verified ] && good=$((good + 1)); fi
    done
    [ "$good" -eq "$nvar" ]
}

$H verify dg --device openmp,opencl --input $IN --iters 4 --db "$T/v.db" >"$T/v.out" 2>"$T/v.err"
rc=$?
check "verify dg on openmp and opencl exits 0 (got $rc)" [ $rc -eq 0 ]
check "every variant verified on openmp but o7-tiled (a work-group's local memory: invalid, with the reason)" \
    verified_all "$T/v.out" openmp o7-tiled
check "o7-tiled on openmp says why" grep -q "o7-tiled on openmp: kernels=tiled keeps a work-group's cells" "$T/v.out"
check "every variant verified on opencl:0.0 but s5-flags (the directive compilers' level: invalid, with the reason)" \
    verified_all "$T/v.out" opencl:0.0 s5-flags
check "s5-flags on opencl says why" grep -q "s5-flags on opencl:0.0: cc and opt choose" "$T/v.out"
n=$(q "$T/v.db" "SELECT count(*) FROM measurement WHERE status = 'ok' AND max_rel_err <= 1e-10")
check "the database holds the verified rows, each within 1e-10 ($n)" [ "$n" -ge $((2 * nvar - 2)) ]

# The tiled form's blocks cut by the mesh's edge (13 = 2 x 5 + 3 = 16 - 3
# cells, 11 = 3 x 3 + 2 rows), with viscosity: each verified on PoCL.
$H run --app dg --device opencl --input $IN --iters 4 --variant o7-tiled --wg 5x3,16x1 --reps 1 --db "$T/t.db" \
    >"$T/t.out" 2>&1
rc=$?
n=$(q "$T/t.db" "SELECT count(*) FROM measurement WHERE status = 'ok' AND max_rel_err <= 1e-10")
check "o7-tiled on PoCL at 5x3 and 16x1 (ragged edges): both ok within 1e-10 (rc $rc, $n of 2)" \
    bash -c "[ $rc -eq 0 ] && [ '$n' = 2 ]"

# The directive backends' host paths (HARNESS_OFFLOAD_HOST=1): the same
# sources GCC builds for nvptx, run on the CPU.
if HARNESS_OFFLOAD_HOST=1 $H devices 2>&1 | grep -q "cannot build OpenACC offload code"; then
    echo "ok - dg on openacc:host and omp-target:host # skip no offloading compiler here"
else
    HARNESS_OFFLOAD_HOST=1 $H verify dg --device openacc:host,omp-target:host --wg 32x1 --input $IN --iters 3 \
        --db "$T/o.db" >"$T/o.out" 2>"$T/o.err"
    check "every variant verified on openacc:host but o7-tiled" verified_all "$T/o.out" openacc:host o7-tiled
    check "every variant verified on omp-target:host but o7-tiled" verified_all "$T/o.out" omp-target:host o7-tiled
fi

# A broken device: the x faces' flux with its sign flipped (dg_cell.h's
# DG_TEST_FLIP_FLUX), in the split, merged, fused and tiled forms; then a
# NaN. (Each is a build: the split and fused forms on openmp, merged and
# tiled on PoCL.)
DG_TEST_DEFINES=-DDG_TEST_FLIP_FLUX $H run --app dg --input $IN --iters 4 --variant s0-adapted,o6-fused \
    --device openmp --reps 1 --db "$T/b.db" >"$T/b.out" 2>&1
DG_TEST_DEFINES=-DDG_TEST_FLIP_FLUX $H run --app dg --input $IN --iters 4 --variant final,o7-tiled \
    --device opencl --reps 1 --db "$T/b.db" >>"$T/b.out" 2>&1
nw=$(q "$T/b.db" "SELECT count(*) FROM measurement WHERE status = 'wrong'")
check "a flux of the wrong sign is wrong in the split, merged, fused and tiled forms on openmp and PoCL ($nw of 4)" \
    [ "$nw" -eq 4 ]
check "the reason names the coefficient and the reference" grep -q "from the reference (worst: cell" "$T/b.out"
DG_TEST_DEFINES=-DDG_TEST_NAN $H run --app dg --input $IN --iters 2 --variant final --device openmp --reps 1 \
    --db "$T/nan.db" >"$T/nan.out" 2>&1
DG_TEST_DEFINES=-DDG_TEST_NAN $H run --app dg --input $IN --iters 2 --variant o7-tiled --device opencl --reps 1 \
    --db "$T/nan.db" >>"$T/nan.out" 2>&1
check "a state turned NaN is wrong, never ok (merged on openmp, tiled on PoCL)" \
    [ "$(q "$T/nan.db" "SELECT group_concat(status) FROM measurement")" = wrong,wrong ]

# --out: cells.dat, checked against the exact vortex by a script of its own.
$H run --app dg --input yee:24 --time 0.5 --variant final --device openmp --reps 1 --out "$T/out" --db "$T/r.db" \
    >"$T/r.out" 2>&1
rc=$?
check "a run with --time 0.5 exits 0 and is ok (got $rc)" bash -c "[ $rc -eq 0 ] && grep -q ' ok ' '$T/r.out'"
check "--time 0.5 is stored as the input yee:24:t=0.5" [ "$(q "$T/r.db" "SELECT group_concat(input) FROM config")" = yee:24:t=0.5 ]
check "cells.dat: '# t=0.5' then 576 cells, each x y rho rhou rhov E" python3 - "$T/out/cells.dat" <<'P'
import math, sys
lines = open(sys.argv[1]).read().splitlines()
assert lines[0].startswith("# t="), lines[0]
t = float(lines[0][4:])
assert abs(t - 0.5) < 1e-12, t
rows = [list(map(float, l.split())) for l in lines[1:]]
assert len(rows) == 576 and all(len(r) == 6 for r in rows), len(rows)
# The exact vortex's density at each centre, carried to (5 + t, 5 + t):
# the cell means must follow it (not the start, not a still vortex).
g, b = 1.4, 5.0
def rho(x, y, t):
    rx = (x - 5 - t + 5) % 10 - 5
    ry = (y - 5 - t + 5) % 10 - 5
    T = 1 - (g - 1) * b * b / (8 * g * math.pi ** 2) * math.exp(1 - rx * rx - ry * ry)
    return T ** (1 / (g - 1))
err = max(abs(r[2] - rho(r[0], r[1], t)) for r in rows)
still = max(abs(r[2] - rho(r[0], r[1], 0)) for r in rows)
print("# cells.dat: largest |rho - exact| %.4f at t = %g (against the unmoved vortex %.4f)" % (err, t, still))
sys.exit(0 if err < 0.02 and still > 5 * err else 1)
P

# A long serial reference says it is still being made (issue 34: progress
# within a long config), every HARNESS_HEARTBEAT_S (30 s by default), and
# --quiet silences it. (A cache of its own: a reference made before is
# loaded from the cache, with nothing to say.)
HARNESS_CACHE=$T/hb-cache HARNESS_HEARTBEAT_S=0.2 $H run --app dg --input yee:200 --iters 40 --device openmp --reps 1 --warmup 0 \
    --db "$T/hb.db" >"$T/hb.out" 2>&1
check "a reference of about half a second says so while it is made (0.2 s heartbeat)" \
    grep -q '^  \.\.\. dg yee:200: making the serial reference, .* so far (its watchdog: 10m00s)' "$T/hb.out"
HARNESS_CACHE=$T/hb-cache HARNESS_HEARTBEAT_S=0.2 $H run --app dg --input yee:200 --iters 41 --device openmp --reps 1 --warmup 0 --quiet \
    --db "$T/hb.db" >"$T/hbq.out" 2>&1
check "--quiet: no heartbeat" bash -c "! grep -q 'making the serial reference' '$T/hbq.out'"

# Bad input: a clear message naming it, exit 2, nothing stored.
bad() { # LABEL WANT ARGS...
    local label=$1 want=$2
    shift 2
    rm -f "$T/bad.db"
    $H run --app dg --device openmp --reps 1 --db "$T/bad.db" "$@" >"$T/bad.out" 2>&1
    local rc=$?
    local rows=0
    [ -f "$T/bad.db" ] && rows=$(q "$T/bad.db" "SELECT count(*) FROM measurement" 2>/dev/null || echo 0)
    check "$label: exit 2, '$want', nothing stored (rc $rc, $rows rows)" \
        bash -c "[ $rc -eq 2 ] && grep -q -- '$want' '$T/bad.out' && [ '${rows:-0}' = 0 ]"
}
bad "yee:0" "0 cells along a side" --input yee:0
bad "yee:3" "3 cells along a side" --input yee:3
bad "re=-1" "re=-1: the Reynolds number" --input yee:16:re=-1
bad "cfl=5" "cfl=5 diverges" --input yee:16:cfl=5
bad "an unknown knob value" "kernels" --input yee:16 --knobs kernels=bogus
bad "regcap on openmp (no register cap to pass)" "regcap=128: openmp.s compiler takes no register cap" --input yee:16 --knobs regcap=128
bad "o7-tiled on openmp (no work-groups)" "kernels=tiled keeps a work-group.s cells and faces in its local memory" \
    --input yee:16 --variant o7-tiled
bad "t= with --iters" "t= fixes the steps" --input yee:16:t=1 --iters 3
bad "--time with --iters" "give one" --input yee:16 --time 1 --iters 3
$H run --app lbm --time 1 --device openmp --db "$T/lbm.db" >"$T/lbm.out" 2>&1
rc=$?
check "--time on an app that runs steps (lbm): exit 2, said why (rc $rc)" \
    bash -c "[ $rc -eq 2 ] && grep -q 'runs a count of steps' '$T/lbm.out' && [ ! -s '$T/lbm.db' ]"

hits=$(grep -rlw -e dg -e 'dg_[a-z_]*' harness/ | wc -l)
check "harness/ names no DG app ($hits files)" [ "$hits" -eq 0 ]
exit $((fails > 0))
