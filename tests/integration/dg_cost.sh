#!/usr/bin/env bash
# The DG app's flops per cell update are counted from its code
# (tests/cost/dg_flops.cc runs one cell's kernels with a counting number
# type) and kernels/dg/app.c's cost model must quote exactly those counts,
# so the model cannot drift from the kernels. Skipped without a C++ compiler.
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
test_dir dg_cost
cxx=""
for c in ${CXX:-} clang++ g++; do command -v "$c" >/dev/null 2>&1 && { cxx=$c; break; }; done
if [ -z "$cxx" ]; then
    echo "ok - dg flops counted from the code # skip no C++ compiler (clang++ or g++)"
    exit 0
fi
check "dg_flops.cc builds with $cxx against kernels/dg/dg_cell.h" \
    "$cxx" -std=c++17 -O1 -Ikernels/dg -o "$T/flops" tests/cost/dg_flops.cc
"$T/flops" >"$T/flops.out"
cat "$T/flops.out" | sed 's/^/# /'
euler=$(awk '/^euler/ {print $3, $5, $7, $9}' "$T/flops.out")
read -r split merged fused tiled <<<"$euler"
model_merged=$(sed -n 's/^#define DG_FLOPS_MERGED \([0-9]*\).*/\1/p' kernels/dg/app.c)
model_fused=$(sed -n 's/^#define DG_FLOPS_FUSED \([0-9]*\).*/\1/p' kernels/dg/app.c)
check "split and merged do the same arithmetic on Euler ($split, $merged)" [ "${split:-x}" = "${merged:-y}" ]
model_tiled=$(sed -n 's/^#define DG_FLOPS_TILED \([0-9]*\).*/\1/p' kernels/dg/app.c)
check "app.c's DG_FLOPS_TILED ($model_tiled) is the count ($tiled)" [ "${model_tiled:-x}" = "${tiled:-y}" ]
# Tiled computes each face once, as merged does; merged's flux kernels also
# multiply each stored value by a sign of 1 (dg_face_pair: 16 a stage, 48 a
# step), which the counter counts and tiled has not.
check "tiled computes each face once: merged's count less its 48 stores times a sign ($tiled, $merged)" \
    [ "$((${merged:-0} - 48))" = "${tiled:-x}" ]
check "app.c's DG_FLOPS_MERGED ($model_merged) is the count ($merged)" [ "${model_merged:-x}" = "${merged:-y}" ]
check "app.c's DG_FLOPS_FUSED ($model_fused) is the count ($fused)" [ "${model_fused:-x}" = "${fused:-y}" ]
check "fused computes each face twice: more flops than merged" [ "${fused:-0}" -gt "${merged:-0}" ]
exit $((fails > 0))
