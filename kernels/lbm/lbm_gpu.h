/* The LBM kernels for the GPU programming models. lbm.cl (OpenCL) and lbm.cu
 * (CUDA) each define the few words that differ between the two languages
 * (KERNEL, GLOBAL, LOCAL, LOCAL_PARAM, LOCAL_DECL, the index macros, BARRIER,
 * LBM_FN, LBM_SQRT) and include this file, so both run the same algorithm.
 *
 * Knobs arrive as -D flags (harness/core/knobs.c):
 *   K_LAYOUT_AOS | K_LAYOUT_SOA (nine buffers) | K_LAYOUT_SOA_3D (one buffer)
 *   K_OBSTACLES_BRANCH | K_OBSTACLES_MASK
 *   K_NEIGHBOURS_WRAP | K_NEIGHBOURS_BITMASK (power-of-two grids)
 *   K_REDUCTION_HOST_EACH_STEP | _LOCAL | _BINARY | _CHUNKED | _DEFERRED
 *   K_CONSTANTS_HOISTED | K_CONSTANTS_INLINE
 *   K_WORK_FULL | K_WORK_EMPTY (launches kept, computation removed)
 *   K_ARGS_BUFFERS | K_ARGS_PACKED (the 3D buffer) | K_ARGS_STRUCT (the nine
 *     buffers of each lattice reached through a struct of pointers: in device
 *     memory for OpenCL, bound once by bind_lattices and swapped by
 *     swap_lattices every step; by value for CUDA, from the host)
 *   K_BIND_ONCE: the fused step's arguments are bound once per lattice pair,
 *     so the step index comes from a device counter (see CLOCK_READ)
 *   K_PERSISTENT_GRID: fused_persistent, many steps per launch (CUDA only:
 *     it needs the GRID_SYNC of a co-resident, cooperative launch)
 *   K_PERSISTENT_CLUSTER: fused_cluster (lbm_cluster.h, CUDA sm_90 only)
 *   K_TREE_WARP: the group reduction's tree by warp shuffles (WARP_SUM: CUDA, NVIDIA OpenCL)
 *   K_LOADS_LDG: the fused step's loads through the read-only cache (LDG, CUDA)
 *   K_SPEED_MOMENTS: the fused steps' |u| from the collision's own moments
 *   K_OVERLAP_PDL (_EARLY): the fused step waits for its predecessor itself
 *     (DEPENDENCY_WAIT) and lets its successor start early (DEPENDENTS_LAUNCH):
 *     CUDA's programmatic dependent launch; empty elsewhere
 * The kernel split (split, fused, fused-accel), the synchronisation and
 * launch=graph are host decisions: every kernel is always compiled, the
 * host picks. */
#include "lbm_physics.h"

#if (defined(K_OVERLAP_PDL) || defined(K_OVERLAP_PDL_EARLY)) && !defined(DEPENDENCY_WAIT)
#error "overlap=pdl needs the prelude's DEPENDENCY_WAIT (CUDA); the validity rules refuse it elsewhere"
#endif
#ifndef DEPENDENCY_WAIT
#define DEPENDENCY_WAIT
#define DEPENDENTS_LAUNCH
#endif

#if defined(K_TREE_WARP) && !defined(WARP_SUM)
#error "tree=warp needs the prelude's WARP_SUM (CUDA, or NVIDIA's OpenCL by inline PTX); the validity rules refuse it elsewhere"
#endif

/* ---- grid layout: how speed k of cell i is addressed ---- */
#if defined(K_LAYOUT_SOA)
#define GRID_PARAM(n)                                                                        \
    GLOBAL float *n##0, GLOBAL float *n##1, GLOBAL float *n##2, GLOBAL float *n##3,          \
        GLOBAL float *n##4, GLOBAL float *n##5, GLOBAL float *n##6, GLOBAL float *n##7,      \
        GLOBAL float *n##8
#define GRID_BIND(n) GLOBAL float *n[9] = {n##0, n##1, n##2, n##3, n##4, n##5, n##6, n##7, n##8}
#define AT(n, k, i) n[k][i]
#elif defined(K_LAYOUT_SOA_3D)
#define GRID_PARAM(n) GLOBAL float *n
#define GRID_BIND(n)
#define AT(n, k, i) n[(k) * ncells + (i)]
#else
#define GRID_PARAM(n) GLOBAL float *n
#define GRID_BIND(n)
#define AT(n, k, i) n[(i) * 9 + (k)]
#endif

/* The lattices the fused step and accelerate_flow read and write. With
 * args=struct they arrive in one struct (the prelude defines LATTICE_PARAM
 * and LAT(field): a pointer in OpenCL, a by-value struct in CUDA). */
#if defined(K_ARGS_STRUCT)
struct lattices { GLOBAL float *src[9]; GLOBAL float *dst[9]; };
#define STEP_GRIDS LATTICE_PARAM
#define BIND_STEP_GRIDS                                                                      \
    GLOBAL float *src[9], *dst[9];                                                           \
    for (int k_ = 0; k_ < 9; k_++) { src[k_] = LAT(src)[k_]; dst[k_] = LAT(dst)[k_]; }
#define ACCEL_GRID LATTICE_PARAM
#define BIND_ACCEL_GRID                                                                      \
    GLOBAL float *cells[9];                                                                  \
    for (int k_ = 0; k_ < 9; k_++) cells[k_] = LAT(src)[k_]
#else
#define STEP_GRIDS GRID_PARAM(src), GRID_PARAM(dst)
#define BIND_STEP_GRIDS GRID_BIND(src); GRID_BIND(dst)
#define ACCEL_GRID GRID_PARAM(cells)
#define BIND_ACCEL_GRID GRID_BIND(cells)
#endif

/* The scalars every kernel takes. With hoisted constants the host passes
 * the accelerate_flow weights ready-made; otherwise density and accel. */
#define COMMON_PARAMS int nx, int ny, float omega, float acc_a, float acc_b
#if defined(K_CONSTANTS_HOISTED)
#define ACCEL_WEIGHTS float w1 = acc_a, w2 = acc_b
#else
#define ACCEL_WEIGHTS float w1 = acc_a * acc_b / 9.0f, w2 = acc_a * acc_b / 36.0f
#endif

#if defined(K_WORK_EMPTY)
#define EMPTY_RETURN return
#else
#define EMPTY_RETURN (void)0
#endif

/* ---- neighbours, periodic in x and y (y grows north) ---- */
#if defined(K_NEIGHBOURS_BITMASK)
#define NEIGHBOURS                                                                           \
    int y_n = (jj + 1) & (ny - 1), y_s = (jj - 1) & (ny - 1);                                \
    int x_e = (ii + 1) & (nx - 1), x_w = (ii - 1) & (nx - 1)
#else
#define NEIGHBOURS                                                                           \
    int y_n = (jj + 1) % ny, y_s = (jj == 0) ? (jj + ny - 1) : (jj - 1);                     \
    int x_e = (ii + 1) % nx, x_w = (ii == 0) ? (ii + nx - 1) : (ii - 1)
#endif

/* loads=ldg: the fused step's reads through CUDA's read-only data cache
 * (the prelude's LDG); the source lattice and the obstacles are not
 * written during the launch, which that cache requires. */
#if defined(K_LOADS_LDG) && defined(LDG)
#define RD(x) LDG(&(x))
#else
#define RD(x) (x)
#endif

/* Pull the nine speeds that stream into (ii, jj). */
#define PULL(src, s)                                                                         \
    s[0] = RD(AT(src, 0, ii + jj * nx));  s[1] = RD(AT(src, 1, x_w + jj * nx));              \
    s[2] = RD(AT(src, 2, ii + y_s * nx)); s[3] = RD(AT(src, 3, x_e + jj * nx));              \
    s[4] = RD(AT(src, 4, ii + y_n * nx)); s[5] = RD(AT(src, 5, x_w + y_s * nx));             \
    s[6] = RD(AT(src, 6, x_e + y_s * nx)); s[7] = RD(AT(src, 7, x_e + y_n * nx));            \
    s[8] = RD(AT(src, 8, x_w + y_n * nx))
#define LOAD(src, s, i)                                                                      \
    for (int k_ = 0; k_ < 9; k_++) s[k_] = AT(src, k_, i)
#define STORE(dst, s, i)                                                                     \
    for (int k_ = 0; k_ < 9; k_++) AT(dst, k_, i) = s[k_]

#define CELL_INDEX                                                                           \
    const int ii = (int)GID_X, jj = (int)GID_Y, ncells = nx * ny;                            \
    (void)ncells

/* ---- work-group reduction of |u| (and, per step, the fluid-cell count) ----
 * Every work-item calls it with its cell's |u| (0 for obstacles) and 1 or 0.
 * host-each-step: one work-item sums both for its group (the report's port);
 * local: one work-item sums |u| (cells counted once on the host);
 * binary: a tree in local memory; chunked/deferred: the tree, each step's
 * group sums kept at partials[slot * ngroups + group]. */
LBM_FN void group_reduce_at(LOCAL float *scratch, float u, float fluid, GLOBAL float *partials,
                            int slot, int group, int ngroups) {
    const int lid = (int)(LID_X + LID_Y * LSIZE_X), lsize = (int)(LSIZE_X * LSIZE_Y);
#if defined(K_REDUCTION_HOST_EACH_STEP)
    scratch[lid] = u;
    scratch[lsize + lid] = fluid;
    BARRIER;
    if (lid == 0) {
        float su = 0.0f, sc = 0.0f;
        for (int i = 0; i < lsize; i++) { su += scratch[i]; sc += scratch[lsize + i]; }
        partials[2 * group] = su;
        partials[2 * group + 1] = sc;
    }
    (void)slot;
#elif defined(K_REDUCTION_LOCAL)
    (void)fluid;
    scratch[lid] = u;
    BARRIER;
    if (lid == 0) {
        float su = 0.0f;
        for (int i = 0; i < lsize; i++) su += scratch[i];
        partials[group] = su;
    }
    (void)slot;
#elif defined(K_TREE_WARP)
    /* tree=warp: each warp sums itself by shuffles (no memory, no barrier),
     * one shared slot per warp, one barrier, then warp 0 sums the slots.
     * The local-memory tree below pays a barrier per level, every step. */
    (void)fluid;
    const int nwarps = lsize / 32;
    const float w = WARP_SUM(u);
    if ((lid & 31) == 0) scratch[lid / 32] = w;
    BARRIER;
    if (lid < 32) {
        const float t = WARP_SUM(lid < nwarps ? scratch[lid] : 0.0f);
#if defined(K_REDUCTION_BINARY)
        if (lid == 0) partials[group] = t;
        (void)slot;
#else
        if (lid == 0) partials[(size_t)slot * (size_t)ngroups + (size_t)group] = t;
#endif
    }
#else
    (void)fluid;
    scratch[lid] = u;
    BARRIER;
    int stride = 1;
    while (stride < lsize) stride <<= 1;
    for (stride >>= 1; stride > 0; stride >>= 1) {
        if (lid < stride && lid + stride < lsize) scratch[lid] += scratch[lid + stride];
        BARRIER;
    }
#if defined(K_REDUCTION_BINARY)
    if (lid == 0) partials[group] = scratch[0];
    (void)slot;
#else
    /* size_t: steps x groups passes 2^31 on large grids with small groups. */
    if (lid == 0) partials[(size_t)slot * (size_t)ngroups + (size_t)group] = scratch[0];
#endif
#endif
    (void)ngroups;
}

/* The launch's own group: the usual case. A persistent grid passes the
 * tile it is working on instead, so partials keep one layout. */
LBM_FN void group_reduce(LOCAL float *scratch, float u, float fluid, GLOBAL float *partials, int slot) {
    group_reduce_at(scratch, u, fluid, partials, slot, (int)(GROUP_X + GROUP_Y * NGROUPS_X),
                    (int)(NGROUPS_X * NGROUPS_Y));
}

/* ---- bind=once: the step index on the device ----
 * A launch whose arguments are bound once (or replayed from a graph) cannot
 * be told which step it is. The two instances of the pair (`which` = the
 * lattice they read) keep the step in clock[which]: every group reads it,
 * and group (0,0) writes the next step into clock[1 - which], which only
 * the other instance reads, in the next launch, after the queue has
 * finished this one. So nothing races and no atomics are needed. From the
 * step come the partials' slot (t % chunk) and the last-step test of the
 * folded acceleration, exactly as the host would pass them. */
#if defined(K_BIND_ONCE)
#define CLOCK_PARAMS , volatile GLOBAL int *clock, int which, int nsteps, int chunk
#define CLOCK_READ                                                                           \
    const int t_ = clock[which];                                                             \
    slot = t_ % chunk;                                                                       \
    accelerate = accelerate && t_ != nsteps - 1
#define CLOCK_ADVANCE                                                                        \
    if (GID_X == 0 && GID_Y == 0) clock[1 - which] = t_ + 1
#else
#define CLOCK_PARAMS
#define CLOCK_READ (void)0
#define CLOCK_ADVANCE
#endif

/* ---- the split kernels (the report's port) ---- */
KERNEL accelerate_flow(ACCEL_GRID, GLOBAL const uchar *obstacles, COMMON_PARAMS) {
    EMPTY_RETURN;
    BIND_ACCEL_GRID;
    const int ii = (int)GID_X, jj = ny - 2, ncells = nx * ny, i = ii + jj * nx;
    (void)ncells;
    (void)omega;
    ACCEL_WEIGHTS;
    if (obstacles[i]) return;
    float s[9];
    LOAD(cells, s, i);
    lbm_accelerate(s, w1, w2, 1.0f);
    STORE(cells, s, i);
}

/* Only the kernels the schedule launches are compiled (kernels=split: the
 * five; partial: accelerate_flow and propagate; fused, fused-accel:
 * accelerate_flow and fused_step): PoCL compiles every kernel of a program,
 * and the unused split kernels more than doubled a fused program's build
 * (issue 40: 2.3 s -> 1.0 s of PoCL codegen). schedule.c asks for the same. */
#if defined(K_KERNELS_SPLIT) || defined(K_KERNELS_PARTIAL)
KERNEL propagate(GRID_PARAM(cells), GRID_PARAM(tmp), COMMON_PARAMS) {
    EMPTY_RETURN;
    GRID_BIND(cells);
    GRID_BIND(tmp);
    CELL_INDEX;
    NEIGHBOURS;
    (void)omega; (void)acc_a; (void)acc_b;
    float s[9];
    PULL(cells, s);
    STORE(tmp, s, ii + jj * nx);
}

#endif

#if defined(K_KERNELS_SPLIT)
KERNEL rebound(GRID_PARAM(cells), GRID_PARAM(tmp), GLOBAL const uchar *obstacles, COMMON_PARAMS) {
    EMPTY_RETURN;
    GRID_BIND(cells);
    GRID_BIND(tmp);
    CELL_INDEX;
    (void)omega; (void)acc_a; (void)acc_b;
    const int i = ii + jj * nx;
    if (!obstacles[i]) return;
    float s[9];
    LOAD(tmp, s, i);
    lbm_rebound(s);
    STORE(cells, s, i);
}

KERNEL collision(GRID_PARAM(cells), GRID_PARAM(tmp), GLOBAL const uchar *obstacles, COMMON_PARAMS) {
    EMPTY_RETURN;
    GRID_BIND(cells);
    GRID_BIND(tmp);
    CELL_INDEX;
    (void)acc_a; (void)acc_b;
    const int i = ii + jj * nx;
    if (obstacles[i]) return;
    float s[9];
    LOAD(tmp, s, i);
    lbm_collide(s, omega);
    STORE(cells, s, i);
}

KERNEL av_velocity(GRID_PARAM(cells), GLOBAL const uchar *obstacles, GLOBAL float *partials,
                   COMMON_PARAMS, int slot LOCAL_PARAM(scratch)) {
    LOCAL_DECL(scratch)
    EMPTY_RETURN;
    GRID_BIND(cells);
    CELL_INDEX;
    (void)omega; (void)acc_a; (void)acc_b;
    const int i = ii + jj * nx;
    float s[9];
    LOAD(cells, s, i);
    float fluid = obstacles[i] ? 0.0f : 1.0f;
    float u = obstacles[i] ? 0.0f : lbm_speed(s);
    group_reduce(scratch, u, fluid, partials, slot);
}

#endif

/* ---- the fused step: propagate, rebound, collision and av_velocity in one
 * pass from src to dst; with `accelerate` set, also the next step's
 * accelerate_flow on row ny-2 by masking (kernels=fused-accel). ---- */
/* |u| after the collision, by speed=moments|post (lbm_collide_usq). */
#define COLLIDE_SPEED(s) LBM_SQRT(lbm_collide_usq(s, omega))
#if defined(K_OBSTACLES_MASK)
/* Both outcomes computed, one selected: no divergent branch. */
#define REBOUND_OR_COLLIDE                                                                   \
    float r[9];                                                                              \
    for (int k = 0; k < 9; k++) r[k] = s[k];                                                 \
    lbm_rebound(r);                                                                          \
    float u = COLLIDE_SPEED(s);                                                              \
    for (int k = 0; k < 9; k++) s[k] = obst ? r[k] : s[k];                                   \
    u = obst ? 0.0f : u
#else
#define REBOUND_OR_COLLIDE                                                                   \
    float u = 0.0f;                                                                          \
    if (obst) {                                                                              \
        lbm_rebound(s);                                                                      \
    } else {                                                                                 \
        u = COLLIDE_SPEED(s);                                                                \
    }
#endif
/* One cell (ii, jj) from src to dst; leaves |u| in u and the obstacle flag in obst. */
#define FUSED_CELL(src, dst)                                                                 \
    const int i = ii + jj * nx;                                                              \
    const int obst = RD(obstacles[i]);                                                       \
    float s[9];                                                                              \
    PULL(src, s);                                                                            \
    REBOUND_OR_COLLIDE;                                                                      \
    float on = (accelerate && jj == ny - 2 && !obst) ? 1.0f : 0.0f;                          \
    lbm_accelerate(s, w1, w2, on);                                                           \
    STORE(dst, s, i)

#if !defined(K_KERNELS_SPLIT) && !defined(K_KERNELS_PARTIAL)
KERNEL fused_step(STEP_GRIDS, GLOBAL const uchar *obstacles, GLOBAL float *partials,
                  COMMON_PARAMS, int slot, int accelerate CLOCK_PARAMS LOCAL_PARAM(scratch)) {
    LOCAL_DECL(scratch)
    EMPTY_RETURN;
    DEPENDENCY_WAIT; /* before the first read: the step clock and the lattice */
    CLOCK_READ;
    BIND_STEP_GRIDS;
    CELL_INDEX;
    NEIGHBOURS;
    ACCEL_WEIGHTS;
    FUSED_CELL(src, dst);
    group_reduce(scratch, u, obst ? 0.0f : 1.0f, partials, slot);
    CLOCK_ADVANCE;
    DEPENDENTS_LAUNCH; /* this block is done: the next step may be scheduled */
}
#endif

/* The source and destination of step `odd` of a persistent loop that
 * started from lattice a (the result lands in b after odd counts). */
#if defined(K_LAYOUT_SOA)
#define PICK_GRIDS(odd)                                                                      \
    GLOBAL float *src[9], *dst[9];                                                           \
    for (int k_ = 0; k_ < 9; k_++) { src[k_] = (odd) ? b[k_] : a[k_]; dst[k_] = (odd) ? a[k_] : b[k_]; }
#else
#define PICK_GRIDS(odd)                                                                      \
    GLOBAL float *src = (odd) ? b : a, *dst = (odd) ? a : b
#endif

/* ---- persistent=grid: `count` steps from step `first` in one launch ----
 * A resident grid of groups (as many as fit at once) strides over the
 * work-group-shaped tiles of the grid; a grid-wide barrier separates the
 * steps. Step s reads a and writes b when even, the reverse when odd. The
 * acceleration of the next step is always folded in (kernels=fused-accel),
 * never after step nsteps-1. Only where GRID_SYNC exists (CUDA). */
#if defined(K_PERSISTENT_GRID) && defined(GRID_SYNC)
KERNEL fused_persistent(GRID_PARAM(a), GRID_PARAM(b), GLOBAL const uchar *obstacles,
                        GLOBAL float *partials, COMMON_PARAMS, int first, int count, int nsteps,
                        int chunk, volatile GLOBAL unsigned *bar LOCAL_PARAM(scratch)) {
    LOCAL_DECL(scratch)
    EMPTY_RETURN;
    GRID_BIND(a);
    GRID_BIND(b);
    ACCEL_WEIGHTS;
    const int ncells = nx * ny;
    (void)ncells;
    const int tiles_x = nx / (int)LSIZE_X, ntiles = tiles_x * (ny / (int)LSIZE_Y);
    for (int step = 0; step < count; step++) {
        const int t = first + step, slot = t % chunk, accelerate = t != nsteps - 1;
        PICK_GRIDS(step & 1);
        for (int tile = (int)GROUP_X; tile < ntiles; tile += (int)NGROUPS_X) {
            const int ii = (tile % tiles_x) * (int)LSIZE_X + (int)LID_X;
            const int jj = (tile / tiles_x) * (int)LSIZE_Y + (int)LID_Y;
            NEIGHBOURS;
            FUSED_CELL(src, dst);
            group_reduce_at(scratch, u, obst ? 0.0f : 1.0f, partials, slot, tile, ntiles);
        }
        if (step + 1 < count) GRID_SYNC(bar);
    }
}
#endif

/* ---- chunked/deferred: one work-item per step sums that step's group
 * partials into av[first + step], on the device. ---- */
KERNEL reduce_steps(GLOBAL const float *partials, GLOBAL float *av, int ngroups, int nsteps,
                    int first, float inv_cells) {
    const int step = (int)GID_X;
    if (step >= nsteps) return;
    float sum = 0.0f;
    for (int g = 0; g < ngroups; g++) sum += partials[(size_t)step * (size_t)ngroups + (size_t)g];
    av[first + step] = sum * inv_cells;
}

#if defined(K_ARGS_STRUCT)
/* args=struct in device memory (OpenCL): one work-item stores the buffers'
 * addresses once; another swaps source and destination after every step.
 * These are the two extra kernels the report's Table 7 describes. */
KERNEL bind_lattices(GLOBAL struct lattices *out, GRID_PARAM(a), GRID_PARAM(b)) {
    GRID_BIND(a);
    GRID_BIND(b);
    if (GID_X != 0 || GID_Y != 0) return;
    for (int k = 0; k < 9; k++) { out->src[k] = a[k]; out->dst[k] = b[k]; }
}

KERNEL swap_lattices(GLOBAL struct lattices *lat) {
    if (GID_X != 0 || GID_Y != 0) return;
    for (int k = 0; k < 9; k++) {
        GLOBAL float *t = lat->src[k];
        lat->src[k] = lat->dst[k];
        lat->dst[k] = t;
    }
}
#endif
