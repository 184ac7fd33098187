#!/usr/bin/env bash
# Verification can fail: a copy of kernels/, variants/ and omp_kernel.h is run
# through HARNESS_ROOT, first unbroken (it must verify), then with one bug
# injected at a time (each must be reported "wrong", exit 1). Every sed is
# checked to have changed the file as intended, so a stale pattern fails
# loudly instead of testing nothing. Prints "ok - ..." / "not ok - ..." per check.
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
test_dir broken_kernels
root=$T/root
cache=$T/cache # shared by every run below: a bug must never be served a cached good kernel
db=$T/b.db
attempts=0

fresh_copy() {
    rm -rf "$root"
    mkdir -p "$root/harness/backend"
    cp -r kernels variants "$root/"
    cp harness/backend/omp_kernel.h "$root/harness/backend/"
}

# inject LABEL FILE SED_EXPR TEXT_AFTER: applies the sed to the copy's FILE
# and checks the file changed and now contains TEXT_AFTER.
inject() {
    local label=$1 f=$root/$2 expr=$3 after=$4
    cp "$f" "$T/before"
    sed -i "$expr" "$f"
    if cmp -s "$f" "$T/before"; then
        notok "$label: sed '$expr' did not match anything in $2 (the source changed; update this test)"
        return 1
    fi
    if ! grep -qF -- "$after" "$f"; then
        notok "$label: after the sed, $2 lacks '$after'"
        return 1
    fi
    return 0
}

# bug LABEL FILE SED_EXPR TEXT_AFTER DESCRIPTION DEVICE VARIANT [OPTIONS]: a
# fresh copy with one bug injected, which must be reported wrong.
bug() {
    fresh_copy
    inject "$1" "$2" "$3" "$4" && expect_wrong "$5" "$6" "$7" "${8:-}"
}

# run_copy DEVICE VARIANT: one repetition on the copy; sets out and rc.
run_copy() {
    out=$(HARNESS_ROOT=$root HARNESS_CACHE=$cache bin/harness run --input gen:32x32 --iters 400 \
        --device "$1" --variant "$2" "${@:3}" --reps 1 --warmup 0 --db "$db" 2>&1)
    rc=$?
}

# The status column of the result lines: spec app input variant WxH status ...
statuses() { echo "$out" | awk -v d="$1" '$1 == d && $2 == "lbm" {print $6}' | sort | uniq -c | xargs; }

# expect_wrong LABEL DEVICE VARIANT
expect_wrong() {
    local label=$1 dev=$2 variant=$3 extra=${4:-}
    attempts=$((attempts + 1))
    # shellcheck disable=SC2086 # extra: further options, split on purpose
    run_copy "$dev" "$variant" $extra
    local st
    st=$(echo "$out" | awk -v d="$dev" '$1 == d && $2 == "lbm" {print $6}')
    if [ $rc -eq 1 ] && [ "$st" = wrong ]; then
        ok "$label: $variant on $dev reported wrong: $(echo "$out" | grep -o 'max relative error [^)]*' | head -1)"
    else
        notok "$label: $variant on $dev: exit $rc, status '${st:-none}', wanted exit 1 and wrong"
        echo "$out" | tail -3 | sed 's/^/#   /'
    fi
}

# CUDA-only kernels, where a CUDA device is present (the GPU host; skipped
# here): the unbroken copy verifies, then each bug is reported wrong.
# `broken_kernels.sh cuda` runs these alone.
cuda_cases() {
    if ! bin/harness devices 2>/dev/null | grep -q '^cuda:0 '; then
        ok "# skip: no CUDA device for the CUDA-only kernels (halo=cluster)"
        return
    fi
    # halo=cluster on a 32x32 grid in 8x8 tiles: clusters of four blocks.
    fresh_copy
    run_copy cuda:0 g14-halo-cluster --wg 8x8
    if [ $rc -eq 0 ] && [ "$(statuses cuda:0)" = "1 ok" ]; then ok "unbroken copy: g14-halo-cluster verifies on cuda:0"
    else notok "unbroken copy on cuda:0: exit $rc, statuses '$(statuses cuda:0)'"; echo "$out" | tail -3 | sed 's/^/#   /'; fi
    # (r) halo=cluster maps the west neighbour's lattice as the east one: the
    # pulls across a tile's east edge read the wrong block's column.
    if inject "(r) cluster east" kernels/lbm/lbm_temporal.h \
        's|\*east = cluster_map(f, (crank + 1) % csize);|*east = cluster_map(f, (crank + csize - 1) % csize); /* bug (r) */|' \
        "/* bug (r) */"; then
        expect_wrong "(r) halo=cluster with the east neighbour's columns from the west" cuda:0 g14-halo-cluster "--wg 8x8"
    fi
    fresh_copy
    run_copy cuda:0 g16-pull --knobs sums=end --wg 24x16
    if [ $rc -eq 0 ] && [ "$(statuses cuda:0)" = "1 ok" ]; then ok "unbroken copy: g16-pull with sums=end verifies on cuda:0"
    else notok "unbroken copy on cuda:0: exit $rc, statuses '$(statuses cuda:0)'"; echo "$out" | tail -3 | sed 's/^/#   /'; fi
    # (v) sums=end puts every step's warp sums in the launch's first step.
    bug "(v) sums end" kernels/lbm/lbm_temporal.h \
        's|if (s < count) tb_warp_slot(slots, s, lid, usums\[s\]);|if (s < count) tb_warp_slot(slots, 0, lid, usums[s]); /* bug (v) */|' \
        "/* bug (v) */" \
        "(v) sums=end with every step's sums in the first slot" cuda:0 g16-pull "--knobs sums=end --wg 24x16"
}
if [ "${1:-}" = cuda ]; then
    cuda_cases
    exit $((fails > 0))
fi

# 0. The unbroken copy verifies on both CPU devices (and fills the cache).
fresh_copy
run_copy openmp final,t09-deferred
if [ $rc -eq 0 ] && [ "$(statuses openmp)" = "2 ok" ]; then ok "unbroken copy: final, t09-deferred verify on openmp"
else notok "unbroken copy on openmp: exit $rc, statuses '$(statuses openmp)'"; echo "$out" | tail -3 | sed 's/^/#   /'; fi
run_copy opencl:0.0 final,t08-binary
if [ $rc -eq 0 ] && [ "$(statuses opencl:0.0)" = "2 ok" ]; then ok "unbroken copy: final, t08-binary verify on opencl:0.0"
else notok "unbroken copy on opencl:0.0: exit $rc, statuses '$(statuses opencl:0.0)'"; echo "$out" | tail -3 | sed 's/^/#   /'; fi

# (a) rebound forgets to swap north and south.
fresh_copy
if inject "(a) rebound" kernels/lbm/lbm_physics.h \
    's|t = s\[2\]; s\[2\] = s\[4\]; s\[4\] = t;|/* bug (a): N and S not swapped */|' "bug (a)"; then
    expect_wrong "(a) rebound without the N/S swap" openmp final
    # lbm.cl includes lbm_gpu.h, which includes lbm_physics.h: the kernel
    # cache key must see an edit two includes down.
    expect_wrong "(a) rebound without the N/S swap, OpenCL kernel cached before the edit" opencl:0.0 final
fi

# (b) the bit-mask east neighbour is the cell itself.
bug "(b) neighbours" kernels/lbm/lbm_omp.c \
    's|int x_e = (ii + 1) \& (c.nx - 1)|int x_e = ii \& (c.nx - 1)|' "int x_e = ii & (c.nx - 1)" \
    "(b) bit-mask x_e = ii" openmp final

# (c) accelerate_flow adds to the east speed without taking from the west.
bug "(c) accelerate" kernels/lbm/lbm_physics.h \
    's|s\[3\] -= ok \* w1;|s[3] -= 0.0f * w1;|' "s[3] -= 0.0f * w1;" \
    "(c) accelerate_flow without s[3] -= w1" openmp final

# (d) the binary tree overwrites instead of adding.
bug "(d) tree reduction" kernels/lbm/lbm_gpu.h \
    's|scratch\[lid\] += scratch\[lid + stride\]|scratch[lid] = scratch[lid + stride]|' \
    "scratch[lid] = scratch[lid + stride]" \
    "(d) binary tree with = for +=" opencl:0.0 t08-binary

# (e) the deferred per-step reduction doubles the sum.
bug "(e) reduce_steps" kernels/lbm/lbm_omp.c \
    's|av\[first + step\] = sum \* inv_cells;|av[first + step] = 2.0f * sum * inv_cells;|' \
    "av[first + step] = 2.0f * sum * inv_cells;" \
    "(e) reduce_steps sum doubled" openmp t09-deferred

# (f) the masked fused step keeps the collided value for obstacle cells.
bug "(f) obstacle mask" kernels/lbm/lbm_gpu.h \
    's|s\[k\] = obst ? r\[k\] : s\[k\];|s[k] = s[k]; (void)r;|' "s[k] = s[k]; (void)r;" \
    "(f) obstacles collide like fluid (mask ignored)" opencl:0.0 final

# (g) bind=once: the OpenMP step clock never advances, so every step's
# partials land in slot 0 and the last-step test never fires.
fresh_copy
if inject "(g) step clock (OpenMP)" kernels/lbm/lbm_omp.c \
    's|    clock\[1 - which\] = t + 1;|    clock[1 - which] = t; /* bug (g) */|' "clock[1 - which] = t; /* bug (g) */"; then
    expect_wrong "(g) bind=once, clock not advanced" openmp g01-pingpong
    expect_wrong "(g) launch=graph replays, clock not advanced" openmp g02-graph
fi

# (h) bind=once on the GPU path: group (0,0) hands on the same step.
bug "(h) step clock (GPU)" kernels/lbm/lbm_gpu.h \
    's|clock\[1 - which\] = t_ + 1|clock[1 - which] = t_ /* bug (h) */|' "clock[1 - which] = t_ /* bug (h) */" \
    "(h) bind=once, device clock not advanced" opencl:0.0 g01-pingpong

# (i) persistent=grid reads the same lattice every step (no ping-pong).
# (Removing its barrier instead races, wrong most runs but not every run,
# so it cannot be a test that must fail.)
bug "(i) persistent parity" kernels/lbm/lbm_omp.c \
    's|const grid_t src = (step \& 1) ? b : a, dst = (step \& 1) ? a : b;|const grid_t src = a, dst = b; /* bug (i) */|' \
    "const grid_t src = a, dst = b; /* bug (i) */" \
    "(i) persistent grid without the lattice swap" openmp g03-persistent

# (j) the vectorised OpenMP row loop pulls the west-moving speed from the
# cell itself instead of its east neighbour.
bug "(j) row loop" kernels/lbm/lbm_omp.c \
    's|p2\[ii\],     p3\[ii + 1\], p4\[ii\],|p2[ii],     p3[ii], p4[ii], /* bug (j) */|' "p3[ii], p4[ii], /* bug (j) */" \
    "(j) row loop without the east neighbour" openmp final

# (k) divide=reciprocal multiplies by the wrong reciprocal of rho (g04
# runs on OpenMP: its tree and loads knobs are the same program there).
bug "(k) reciprocal of rho" kernels/lbm/lbm_physics.h \
    's|#define LBM_RECIP(x) (1.0f / (x))|#define LBM_RECIP(x) (2.0f / (x)) /* bug (k) */|' \
    "(2.0f / (x)) /* bug (k) */" \
    "(k) divide=reciprocal with 2/rho" openmp g04-warp-tree

# (l) temporal blocking: each sub-step updates one ring too few, so the
# last one pulls a halo ring that is a step behind.
bug "(l) temporal halo" kernels/lbm/lbm_temporal.h \
    's|const int m = sub + 1, mx|const int m = last ? sub + 1 : sub + 2 /* bug (l) */, mx|' \
    "sub + 2 /* bug (l) */" \
    "(l) temporal=4 with a halo one ring short" opencl:0.0 g08-temporal-ocl

# (m) temporal blocking counts the halo's cells in the step's |u| sum too.
bug "(m) temporal sum" kernels/lbm/lbm_temporal.h \
    's|usum += own ? u\[h\] : 0.0f;|usum += u[h]; (void)own; /* bug (m) */|' "usum += u[h]; (void)own; /* bug (m) */" \
    "(m) temporal=4 summing the halo's |u|" opencl:0.0 g08-temporal-ocl

# (n) temporal blocking's sums of a launch's steps all land in its first
# step's slot (tb_reduce_steps, the local-memory tree).
bug "(n) temporal slots" kernels/lbm/lbm_temporal.h \
    's|if (lid < count) out\[(size_t)lid \* (size_t)ngroups\]|if (lid < count) out[(size_t)(0 * lid) * (size_t)ngroups]|' \
    "out[(size_t)(0 * lid)" \
    "(n) temporal=4 with every step's sum in the launch's first slot" opencl:0.0 g08-temporal-ocl

# (o) lattices=one without the barrier between the sub-step's pulls and
# its in-place writes: an item overwrites cells its neighbours still pull.
bug "(o) in-place barrier" kernels/lbm/lbm_temporal.h \
    '/One lattice, updated in place/{n;s|BARRIER;|/* bug (o) */|}' \
    "/* bug (o) */" \
    "(o) lattices=one writing before every pull is done" opencl:0.0 g08-temporal-ocl "--knobs temporal=3,tile=inner,lattices=one --wg 12x8"

# (p) ilp=2 treats an absent second cell (past the region) as present: the
# first cell is counted twice in the step's sum.
bug "(p) ilp live" kernels/lbm/lbm_temporal.h \
    's|#define TB_LIVE(c0, h, lsize, rcells) ((c0) + (h) \* (lsize) < (rcells))|#define TB_LIVE(c0, h, lsize, rcells) 1 /* bug (p) */|' \
    "TB_LIVE(c0, h, lsize, rcells) 1 /* bug (p) */" \
    "(p) ilp=2 counting an absent cell" opencl:0.0 g08-temporal-ocl "--knobs ilp=2 --wg 8x8"

# (q) collide=paired gives the opposite speed of each pair the same sign.
bug "(q) paired sign" kernels/lbm/lbm_physics.h \
    's|s\[kk\] = keep \* s\[kk\] + (c_ - l_);|s[kk] = keep * s[kk] + (c_ + l_); /* bug (q) */|' "/* bug (q) */" \
    "(q) collide=paired with a pair's signs equal" openmp final "--knobs collide=paired"

# (s) entry=pull: the first sub-step pulls the east-moving speed from the
# east neighbour instead of the west.
bug "(s) entry pull" kernels/lbm/lbm_temporal.h \
    's|s\[1\] = RD(AT(src, 1, xw + yc));|s[1] = RD(AT(src, 1, xe + yc)); /* bug (s) */|' "/* bug (s) */" \
    "(s) entry=pull with s[1] from the east" opencl:0.0 g08-temporal-ocl "--knobs tile=inner,cells=fixed,entry=pull --wg 14x14"

# (t) cells=fixed: each item keeps the cell one row south of its own.
bug "(t) fixed cell" kernels/lbm/lbm_temporal.h \
    's|#define TB_FIXED_Y ((int)LID_Y + 1)|#define TB_FIXED_Y ((int)LID_Y) /* bug (t) */|' "/* bug (t) */" \
    "(t) cells=fixed one row off" opencl:0.0 g08-temporal-ocl "--knobs tile=inner,cells=fixed --wg 14x14"

# (u) moments=tree: the NW-SE pair's x momentum added instead of taken.
bug "(u) moments tree" kernels/lbm/lbm_physics.h \
    's|float ux = LBM_PER_RHO(d13_ + (d57_ - d68_), rho);|float ux = LBM_PER_RHO(d13_ + (d57_ + d68_), rho); /* bug (u) */|' \
    "/* bug (u) */" \
    "(u) moments=tree with a momentum sign flipped" openmp final "--knobs moments=tree"

cuda_cases

# Restored: the copy verifies again from the same cache.
fresh_copy
run_copy openmp final
if [ $rc -eq 0 ] && [ "$(statuses openmp)" = "1 ok" ]; then ok "restored copy verifies again on openmp"
else notok "restored copy on openmp: exit $rc, statuses '$(statuses openmp)'"; fi

n=$(sqlite3 "$db" "SELECT count(*) FROM measurement WHERE status = 'wrong' AND reason LIKE 'max relative error%'" 2>&1)
want=$attempts
if [ "$n" = "$want" ]; then ok "db: $n wrong measurements stored with their error"
else notok "db: $n wrong measurements with a reason, wanted $want"; fi
rm -rf "$root" "$cache"
exit $((fails > 0))
