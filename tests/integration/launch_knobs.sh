#!/usr/bin/env bash
# The launch-cost knobs (bind, launch, batch, persistent, temporal) and speed verify on OpenMP
# and PoCL wherever valid, across the cases their host logic branches on:
# an odd step count over several repetitions (the lattices end swapped, and
# the next repetition starts from the other one), an odd batch (replays
# alternate the starting lattice), chunks that are not a whole number of
# batches, split-off accelerate_flow, and the nine-buffer and AoS layouts.
# Prints "ok - ..." / "not ok - ..." per check.
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
test_dir launch_knobs
db=$T/launch_knobs.db

# verifies DEVICES KNOBS [WG]: every device line must say ok.
verifies() {
    local devs=$1 knobs=$2 wg=${3:-8x2} out rc
    out=$(bin/harness run --device "$devs" --input gen:32x32 --iters 203 --reps 2 --warmup 1 --wg "$wg" \
          --knobs "$knobs" --db "$db" 2>&1); rc=$?
    local n_ok n_dev
    n_ok=$(echo "$out" | awk '$2 == "lbm" && $6 == "ok"' | wc -l)
    n_dev=$(echo "$devs" | tr ',' '\n' | wc -l)
    if [ $rc -eq 0 ] && [ "$n_ok" = "$n_dev" ]; then ok "$knobs verifies on $devs (203 steps, 2 repetitions)"
    else notok "$knobs on $devs: exit $rc, $n_ok of $n_dev ok"; echo "$out" | tail -3 | sed 's/^/#   /'; fi
}

both=openmp,opencl:0.0
verifies $both bind=once
verifies $both bind=once,kernels=fused,reduction=chunked,chunk=50
verifies $both bind=once,layout=soa,args=buffers,reduction=binary
verifies $both bind=once,layout=aos,args=buffers,reduction=host-each-step,sync=finish-each
verifies openmp bind=once,launch=graph
verifies openmp bind=once,launch=graph,batch=7,reduction=chunked,chunk=50
verifies openmp bind=once,launch=graph,batch=6,kernels=fused,layout=soa,args=buffers
verifies openmp bind=once,launch=graph,batch=500
verifies openmp persistent=grid
verifies openmp persistent=grid,reduction=chunked,chunk=33,layout=aos,args=buffers
verifies openmp persistent=grid,layout=soa,args=buffers,obstacles=branch,neighbours=wrap,threads=1

# temporal=T (several steps per enqueue, lbm_temporal.h) on PoCL: a chunk
# that T does not divide (a launch is cut short at each chunk's end), tiles
# narrower than the halo, every layout, both obstacle forms, speed=moments.
verifies opencl:0.0 bind=once,temporal=2
verifies opencl:0.0 bind=once,temporal=3,reduction=chunked,chunk=50 8x8
verifies opencl:0.0 bind=once,temporal=4,layout=soa,args=buffers,obstacles=branch,neighbours=wrap 4x4
verifies opencl:0.0 bind=once,temporal=4,layout=aos,args=buffers,speed=moments,tree=local 16x1
# tile=inner: the group is the tile plus all but the outer ring of its halo.
verifies opencl:0.0 bind=once,temporal=3,tile=inner 12x8
verifies opencl:0.0 bind=once,temporal=5,tile=inner,reduction=chunked,chunk=50,layout=soa,args=buffers 12x10
# geometry=compiled: the shape compiled in; the same cases (a chunk T does
# not divide cuts launches short, whose last region is wider than the tile).
verifies opencl:0.0 bind=once,temporal=3,reduction=chunked,chunk=50,geometry=compiled 8x8
verifies opencl:0.0 bind=once,temporal=4,layout=soa,args=buffers,obstacles=branch,neighbours=wrap,geometry=compiled 4x4
verifies opencl:0.0 bind=once,temporal=2,layout=aos,args=buffers,speed=moments,geometry=compiled 16x1
verifies opencl:0.0 bind=once,temporal=5,tile=inner,reduction=chunked,chunk=50,geometry=compiled 12x10
# lattices=one: one local lattice updated in place (tile=inner), runtime
# and compiled, a chunk T does not divide, the local tree and nine buffers.
verifies opencl:0.0 bind=once,temporal=3,tile=inner,lattices=one 12x8
verifies opencl:0.0 bind=once,temporal=5,tile=inner,lattices=one,reduction=chunked,chunk=50,layout=soa,args=buffers,geometry=compiled 12x10
verifies opencl:0.0 bind=once,temporal=4,tile=inner,lattices=one,obstacles=branch,speed=moments,geometry=compiled 14x10
# ilp=2: two cells an item a pass; regions that take an odd number of
# passes (the second cell absent), runtime and compiled, mask and branch.
verifies opencl:0.0 bind=once,temporal=3,ilp=2,reduction=chunked,chunk=50 8x8
verifies opencl:0.0 bind=once,temporal=4,ilp=2,obstacles=branch,layout=soa,args=buffers,geometry=compiled 4x4
verifies opencl:0.0 bind=once,temporal=5,tile=inner,ilp=2,geometry=compiled 12x10
verifies $both speed=moments
# collide=paired: the collision by opposite pairs, on both CPU devices and
# in the temporal kernel.
verifies $both collide=paired
verifies opencl:0.0 collide=paired,bind=once,temporal=3,geometry=compiled,obstacles=branch 8x8
# fma=on: the backend's contraction option reaches the compiler: the same
# knobs but fma build a second product in a fresh cache, per backend.
verifies $both fma=on
verifies $both fma=on,bind=once,temporal=1,obstacles=branch,divide=reciprocal
fcache=$(mktemp -d)
# Counted as what fma=on adds to a cache fma=default filled: other products
# (the directive backends' runtime, built where an offload compiler is
# installed) land in a fresh cache too.
nprod=()
for f in default on; do
    HARNESS_CACHE=$fcache bin/harness run --device "$both" --input gen:32x32 --iters 20 --reps 1 --warmup 0 \
        --knobs fma=$f --db "$db" > /dev/null 2>&1
    nprod+=("$(find "$fcache" -type f ! -name '*.ref' ! -name '*.sum' ! -name '*.lock' | wc -l)")
done
added=$((nprod[1] - nprod[0]))
if [ "$added" = 2 ] && [ "${nprod[0]}" -ge 2 ]; then
    ok "fma=on builds its own product on openmp and opencl:0.0 (2 more kernel products in the cache)"
else notok "fma=on added $added products to a cache fma=default left with ${nprod[0]}, wanted 2 (one per backend)"; fi
rm -rf "$fcache"
verifies $both speed=moments,obstacles=branch,persistent=off,bind=once
# cells=fixed (one cell an item for every sub-step), entry=pull (the first
# sub-step from the global lattice), unroll=counted (the sub-steps' loop
# without an early exit: 203 steps leave launches short of T), runtime and
# compiled, both lattice counts, a chunk T does not divide.
verifies opencl:0.0 bind=once,temporal=4,tile=inner,cells=fixed 14x10
verifies opencl:0.0 bind=once,temporal=5,tile=inner,cells=fixed,entry=pull,reduction=chunked,chunk=50,geometry=compiled 12x10
verifies opencl:0.0 bind=once,temporal=3,tile=inner,cells=fixed,entry=pull,lattices=one,layout=soa,args=buffers,neighbours=wrap 12x8
verifies opencl:0.0 bind=once,temporal=3,geometry=compiled,unroll=counted,reduction=chunked,chunk=50 8x8
verifies opencl:0.0 bind=once,temporal=5,tile=inner,cells=fixed,entry=pull,geometry=compiled,unroll=counted 12x10
# moments=tree and math=fast on both CPU devices and in the temporal kernel.
verifies $both moments=tree
verifies $both math=fast
verifies opencl:0.0 math=fast,moments=tree,obstacles=branch,bind=once,temporal=4,geometry=compiled 8x8
# math=fast reaches the kernel: the same run's largest error against the
# reference changes (PoCL: the native reciprocal and square root).
mdb=$T/math.db
for m in ieee fast; do
    bin/harness run --device opencl:0.0 --input gen:32x32 --iters 203 --reps 1 --warmup 0 --knobs math=$m \
        --db "$mdb" > /dev/null 2>&1
done
errs=$(sqlite3 "$mdb" "SELECT count(*) || ' ' || count(DISTINCT max_rel_err) FROM measurement WHERE status = 'ok'")
if [ "$errs" = "2 2" ]; then ok "math=fast changes the arithmetic on opencl:0.0 (two verified runs, two largest errors)"
else notok "math=ieee and math=fast on opencl:0.0: '$errs' (verified runs, distinct largest errors), wanted '2 2'"; fi

# The OpenMP row loop of the plane layouts (vectorised) and its periodic
# edges (the first and last column take the generic path): a grid that is
# not a power of two, tiles that do and do not touch the edges.
out=$(bin/harness run --device openmp --input gen:48x40 --iters 300 --reps 1 --warmup 0 \
      --wg 16x4,1x1,48x1,3x2 --knobs neighbours=wrap --db "$db" 2>&1); rc=$?
n=$(echo "$out" | awk '$2 == "lbm" && $6 == "ok"' | wc -l)
if [ $rc -eq 0 ] && [ "$n" = 4 ]; then ok "openmp row loop: gen:48x40, wrap, tiles 16x4 1x1 48x1 3x2 verify"
else notok "openmp row loop on gen:48x40: exit $rc, $n of 4 ok"; echo "$out" | tail -3 | sed 's/^/#   /'; fi

# Refused with the reason, nothing stored.
before=$(sqlite3 "$db" "select count(*) from measurement")
for pair in "launch=graph,bind=once|CUDA graphs" "persistent=grid|co-residency" \
            "temporal=2|needs bind=once" "temporal=2,bind=once,reduction=binary|reduction=chunked|deferred" \
            "speed=moments,kernels=split,layout=soa-3d|has no collision" "tile=inner|only means something with temporal" "geometry=compiled|needs temporal>1" \
            "temporal=3,bind=once,lattices=one|so tile=inner" \
            "ilp=2|needs temporal>1" \
            "halo=cluster|needs temporal>1" "temporal=3,bind=once,halo=cluster|thread-block clusters" \
            "cells=fixed|needs temporal>1" "temporal=3,bind=once,cells=fixed|tile=inner and ilp=1" \
            "temporal=3,bind=once,entry=pull|cells=fixed" "temporal=3,bind=once,unroll=counted|geometry=compiled" \
            "math=fast,fma=on|adds nothing" "temporal=3,bind=once,sums=end|local tree" \
            "temporal=3,tile=inner,bind=once|leaves a 28x0 tile"; do
    knobs=${pair%%|*} reason=${pair#*|}
    out=$(bin/harness run --device opencl:0.0 --input gen:32x32 --iters 20 --reps 1 --knobs "$knobs" --db "$db" 2>&1); rc=$?
    if [ $rc -eq 2 ] && echo "$out" | grep -q "$reason"; then ok "$knobs on opencl:0.0 is invalid: $reason"
    else notok "$knobs on opencl:0.0: exit $rc: $(echo "$out" | tail -1)"; fi
done
after=$(sqlite3 "$db" "select count(*) from measurement")
check "nothing stored for the refused knobs (rows $before -> $after)" [ "$before" = "$after" ]
exit $((fails > 0))
