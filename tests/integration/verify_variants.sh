#!/usr/bin/env bash
# `harness verify lbm`: every variant of variants/lbm.variants on every device
# verifies against the reference (work=empty variants say "not verified"),
# and the database gets one measurement per (variant, device).
# Prints "ok - ..." / "not ok - ..." per check.
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
test_dir verify_variants

# Variant names in file order, and which of them are empty (work=empty,
# directly or through their base).
declare -a names=()
declare -A empty=()
# Variants PoCL cannot run (launch=graph, persistent=grid, tree=warp, directly
# or through their base): verify shows them invalid there, with a reason.
declare -A noocl=()
declare -A cudaonly=()
declare -A noomp=() # temporal=2|3|4: work-groups only, invalid on OpenMP
# Directive programs (data=, avvels=, collapse=, async=, directly or through their base): run on
# the openacc and omp-target backends only, invalid on every device of this matrix.
declare -A directive=() dknobs=()
# host=python: OpenCL devices only, and only with a Python that has pyopencl
# (without one the OpenCL cells are invalid with that reason: a skip).
declare -A pyhost=()
nalias=0 # variants that only rename their base (final: t-bitmask)
while IFS= read -r line; do
    line=${line%%#*}
    [[ "$line" =~ ^[[:space:]]*$ ]] && continue
    name=$(echo "${line%%:*}" | tr -d '[:space:]')
    rest=${line#*:}
    first=$(echo "$rest" | awk '{print $1}')
    e=0
    if [ -n "$first" ] && [[ "$first" != *=* ]] && [ "${empty[$first]:-0}" = 1 ]; then e=1; fi
    [[ " $rest " == *" work=empty "* ]] && e=1
    [[ " $rest " == *" work=full "* ]] && e=0
    [[ "$rest" != *=* ]] && nalias=$((nalias + 1))
    g=0
    if [ -n "$first" ] && [[ "$first" != *=* ]] && [ "${noocl[$first]:-0}" = 1 ]; then g=1; fi
    [[ " $rest " == *" launch=graph "* || " $rest " == *" persistent=grid "* ]] && g=1
    # tree=warp runs on OpenCL only as NVIDIA's inline PTX: invalid on PoCL.
    [[ " $rest " == *" tree=warp "* ]] && g=1
    # persistent=cluster, halo=cluster and overlap=pdl run on CUDA sm_90 only: invalid on every CPU device.
    c=0
    if [ -n "$first" ] && [[ "$first" != *=* ]] && [ "${cudaonly[$first]:-0}" = 1 ]; then c=1; fi
    [[ " $rest " == *" persistent=cluster "* || " $rest " == *" overlap=pdl "* || " $rest " == *" halo=cluster "* ]] && c=1
    [ $c = 1 ] && g=0
    o=0
    if [ -n "$first" ] && [[ "$first" != *=* ]] && [ "${noomp[$first]:-0}" = 1 ]; then o=1; fi
    [[ " $rest " =~ \ temporal=[234]\  ]] && o=1
    [ $c = 1 ] && o=0
    noomp[$name]=$o
    # The directive knobs as set (from the base, then this line); directive when one is away
    # from its default (data=region avvels=device collapse=1 async=off params=clauses strips=1).
    dk=""
    if [ -n "$first" ] && [[ "$first" != *=* ]]; then dk=${dknobs[$first]:-}; fi
    for kv in $rest; do
        case "$kv" in data=* | avvels=* | collapse=* | async=* | params=* | strips=*) dk="$(echo " $dk " | sed "s/ ${kv%%=*}=[^ ]*//g") $kv" ;; esac
    done
    dknobs[$name]=$dk
    dv=0
    for kv in $dk; do
        case "$kv" in data=region | avvels=device | collapse=1 | async=off | params=clauses | strips=1) ;; *) dv=1 ;; esac
    done
    directive[$name]=$dv
    py=0
    if [ -n "$first" ] && [[ "$first" != *=* ]] && [ "${pyhost[$first]:-0}" = 1 ]; then py=1; fi
    [[ " $rest " == *" host=python "* ]] && py=1
    pyhost[$name]=$py
    names+=("$name")
    empty[$name]=$e
    noocl[$name]=$g
    cudaonly[$name]=$c
done < variants/lbm.variants
nempty=0 nnoocl=0 ncuda=0 nnoomp=0 ndir=0 npy=0
for n in "${names[@]}"; do
    ndir=$((ndir + ${directive[$n]}))
    npy=$((npy + ${pyhost[$n]}))
    nempty=$((nempty + ${empty[$n]})); nnoocl=$((nnoocl + ${noocl[$n]})); ncuda=$((ncuda + ${cudaonly[$n]}))
    nnoomp=$((nnoomp + ${noomp[$n]}))
done
if [ "$nnoomp" -ge 1 ]; then ok "variants/lbm.variants: $nnoomp variant(s) with temporal blocking (work-groups only)"
else notok "variants/lbm.variants: no variant with temporal=2|3|4"; fi
if [ "${#names[@]}" -ge 10 ] && [ "$nempty" -ge 1 ]; then
    ok "variants/lbm.variants: ${#names[@]} variants, $nempty empty"
else
    notok "variants/lbm.variants: ${#names[@]} variants, $nempty empty (expected the ladder with t06-empty)"
fi

# check_matrix LABEL FILE: one line per (variant, device) of the matrix in FILE.
check_matrix() {
    local label=$1 file=$2
    local header
    header=$(grep -m1 '^variant ' "$file")
    if [ -z "$header" ]; then
        notok "$label: no matrix header in the output"
        return
    fi
    IFS='|' read -r -a cols <<<"$header"
    local ndev=$((${#cols[@]} - 1))
    local have_omp=0 have_ocl=0 j
    for ((j = 1; j <= ndev; j++)); do
        local c
        c=$(echo "${cols[$j]}" | xargs)
        [ "$c" = openmp ] && have_omp=1
        [ "$c" = opencl:0.0 ] && have_ocl=1
    done
    if [ $have_omp = 1 ] && [ $have_ocl = 1 ]; then
        ok "$label: matrix has columns openmp and opencl:0.0 ($ndev devices)"
    else
        notok "$label: matrix columns lack openmp or opencl:0.0: $header"
    fi
    local rows
    rows=$(awk '/^variant /{on=1; next} on && / \| /{n++} on && !/ \| /{on=0} END{print n+0}' "$file")
    if [ "$rows" = "${#names[@]}" ]; then
        ok "$label: one matrix row per variant ($rows)"
    else
        notok "$label: $rows matrix rows for ${#names[@]} variants"
    fi
    local v
    for v in "${names[@]}"; do
        local row
        row=$(grep -E "^${v}[[:space:]]+\|" "$file" | head -1)
        IFS='|' read -r -a cells <<<"$row"
        for ((j = 1; j <= ndev; j++)); do
            local dev cell
            dev=$(echo "${cols[$j]}" | xargs)
            [ "$dev" = openmp ] || [ "$dev" = opencl:0.0 ] || continue
            cell=$(echo "${cells[$j]:-}" | xargs)
            if [ "${directive[$v]}" = 1 ]; then
                if [[ "$cell" == "invalid"* ]] && grep -qE "^\[[0-9]+\] $v on $dev: .*shapes a directive program" "$file"; then
                    ok "$label: $v on $dev: $cell, with its reason"
                else notok "$label: $v on $dev: '$cell', wanted 'invalid' (a directive program)"; fi
            elif [ "${pyhost[$v]}" = 1 ] && [ "$dev" = openmp ]; then
                if [[ "$cell" == "invalid"* ]] && grep -qE "^\[[0-9]+\] $v on $dev: .*OpenCL ICD loader" "$file"; then
                    ok "$label: $v on $dev: $cell, with its reason"
                else notok "$label: $v on $dev: '$cell', wanted 'invalid' (host=python: OpenCL only)"; fi
            elif [ "${pyhost[$v]}" = 1 ] && [[ "$cell" == "invalid"* ]] &&
                grep -qE "^\[[0-9]+\] $v on $dev: .*needs a Python with pyopencl" "$file"; then
                ok "$label: $v on $dev: $cell # skip no Python with pyopencl here"
            elif [ "${cudaonly[$v]}" = 1 ]; then
                if [[ "$cell" == "invalid"* ]] && grep -qE "^\[[0-9]+\] $v on $dev: .*(thread-block clusters|CUDA's programmatic dependent launch|recorded launch sequences)" "$file"; then
                    ok "$label: $v on $dev: $cell, with its reason"
                else notok "$label: $v on $dev: '$cell', wanted 'invalid' (CUDA sm_90 only)"; fi
            elif [ "$dev" = openmp ] && [ "${noomp[$v]}" = 1 ]; then
                if [[ "$cell" == "invalid"* ]] && grep -qE "^\[[0-9]+\] $v on $dev: .*has no work-groups" "$file"; then
                    ok "$label: $v on $dev: $cell, with its reason"
                else notok "$label: $v on $dev: '$cell', wanted 'invalid' (no work-groups)"; fi
            elif [ "$dev" = opencl:0.0 ] && [ "${noocl[$v]}" = 1 ]; then
                if [[ "$cell" == "invalid"* ]] && grep -qE "^\[[0-9]+\] $v on $dev: .*(co-residency|CUDA graphs|inline PTX on NVIDIA)" "$file"; then
                    ok "$label: $v on $dev: $cell, with its reason"
                else notok "$label: $v on $dev: '$cell', wanted 'invalid' with a reason"; fi
            elif [ "${empty[$v]}" = 1 ]; then
                if [[ "$cell" == "not verified"* ]]; then ok "$label: $v on $dev: $cell"
                else notok "$label: $v on $dev: '$cell', wanted 'not verified'"; fi
            else
                if [ "$cell" = verified ]; then ok "$label: $v on $dev: verified"
                else notok "$label: $v on $dev: '$cell', wanted 'verified'"; fi
            fi
        done
    done
}

# 1. A small box, every device: the matrix and the database.
db=$T/v.db
bin/harness verify lbm --input gen:32x32 --iters 400 --db "$db" >"$T/small.out" 2>"$T/small.err"
rc=$?
if [ $rc -eq 0 ]; then ok "verify lbm --input gen:32x32 --iters 400 exits 0"
else notok "verify lbm --input gen:32x32 --iters 400 exits $rc"; sed 's/^/#   /' "$T/small.err" | tail -5; fi
if grep -q 'input gen-32x32, 400 steps' "$T/small.out"; then ok "verify: header names input gen-32x32 and 400 steps"
else notok "verify: header does not say 'input gen-32x32, 400 steps'"; fi
check_matrix "gen:32x32" "$T/small.out"

ndev=$(($(grep -m1 '^variant ' "$T/small.out" | tr -cd '|' | wc -c)))
nonempty=$((${#names[@]} - nempty))
q() { sqlite3 "$db" "$1" 2>&1; }
# The OpenCL devices of the matrix, which cannot run launch=graph or persistent=grid.
nocl=$(grep -m1 '^variant ' "$T/small.out" | tr '|' '\n' | grep -c 'opencl:')
got=$(q "SELECT count(*) FROM measurement WHERE status = 'ok'")
nomp=$(grep -m1 '^variant ' "$T/small.out" | tr '|' '\n' | grep -c 'openmp')
# host=python runs on the OpenCL devices only, and there only with pyopencl.
havepy=1
grep -q 'needs a Python with pyopencl' "$T/small.out" && havepy=0
pyinvalid=$((npy * (ndev - nocl) + (1 - havepy) * npy * nocl))
want=$(((nonempty - ncuda - ndir) * ndev - nnoocl * nocl - nnoomp * nomp - pyinvalid))
if [ "$got" = "$want" ]; then ok "db: $got measurement rows with status ok = ($nonempty non-empty - $ncuda CUDA-only - $ndir directive variants) x $ndev devices - $nnoocl x $nocl OpenCL-invalid - $nnoomp x $nomp OpenMP-invalid - $pyinvalid host=python-invalid"
else notok "db: $got measurement rows with status ok, wanted $want"; fi
got=$(q "SELECT count(*) FROM measurement WHERE status = 'invalid'")
if [ "$got" = $((nnoocl * nocl + ncuda * ndev + nnoomp * nomp + pyinvalid + ndir * ndev)) ]; then ok "db: $got invalid rows (graph/persistent on OpenCL, clusters anywhere, temporal on OpenMP, host=python off OpenCL, directive programs)"
else notok "db: $got invalid rows, wanted $((nnoocl * nocl + ncuda * ndev + nnoomp * nomp + pyinvalid + ndir * ndev))"; fi
got=$(q "SELECT count(*) FROM measurement WHERE status = 'unverified'")
if [ "$got" = $((nempty * ndev)) ]; then ok "db: $got unverified rows for the empty variants"
else notok "db: $got unverified rows, wanted $((nempty * ndev))"; fi
got=$(q "SELECT count(*) FROM measurement")
if [ "$got" = $((${#names[@]} * ndev)) ]; then ok "db: no other measurement rows ($got)"
else notok "db: $got measurement rows, wanted $((${#names[@]} * ndev))"; fi
got=$(q "SELECT count(*) FROM run WHERE ended_at IS NOT NULL")
if [ "$got" = "$ndev" ]; then ok "db: one finished run per device ($got)"
else notok "db: $got finished runs, wanted $ndev"; fi
got=$(q "SELECT count(*) FROM measurement m JOIN config c ON c.id = m.config_id
         WHERE m.status = 'ok' AND (c.input != 'gen-32x32' OR m.iters != 400 OR m.max_rel_err > m.tolerance
                                    OR m.tolerance IS NULL OR m.max_rel_err IS NULL)")
if [ "$got" = 0 ]; then ok "db: ok rows record input gen-32x32, 400 steps, an error within the tolerance"
else notok "db: $got ok rows with the wrong input, steps or error"; fi
# The knobs are a config's identity: a variant that only renames its base
# (final: t-bitmask) shares its base's config.
got=$(q "SELECT count(*) || ' ' || count(DISTINCT knobs) FROM config")
want=$((${#names[@]} - nalias))
if [ "$got" = "$want $want" ]; then ok "db: $want configs, one per distinct knob setting ($nalias variant(s) alias their base)"
else notok "db: configs / distinct knobs = $got, wanted $want $want"; fi

# 2. The app's own verification run (128x128, 1000 steps) on both CPU devices.
bin/harness verify lbm --device openmp,opencl:0.0 --db "$T/default.db" >"$T/default.out" 2>"$T/default.err"
rc=$?
if [ $rc -eq 0 ]; then ok "verify lbm (default input) exits 0"
else notok "verify lbm (default input) exits $rc"; sed 's/^/#   /' "$T/default.err" | tail -5; fi
if grep -q 'input 128x128, 1000 steps' "$T/default.out"; then ok "verify default: 128x128, 1000 steps"
else notok "verify default: header does not say 'input 128x128, 1000 steps'"; fi
check_matrix "128x128" "$T/default.out"

exit $((fails > 0))
