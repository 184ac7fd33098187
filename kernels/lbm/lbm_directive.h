/* The LBM D2Q9 program for the directive backends, written once with each
 * directive spelled for OpenACC (LBM_ACC, lbm_acc.c) or OpenMP target
 * (LBM_OMP, lbm_omptgt.c). Unlike the other backends' sources, this is a
 * whole program's time loop, as a directive code is written: the host
 * schedule (directive_steps.c) launches `lbm_run` once per repetition and it
 * runs every step, with its data movement and reductions as the knobs say.
 * Buffers are device addresses (harness/backend/offload/offload_rt.c), taken
 * through deviceptr / is_device_ptr.
 *
 * strips=S (fused steps, avvels=device): each row in S strips of columns, a
 * gang / team each, with a partial sum each. A row a gang gives a 1024x1024
 * grid 1024 gangs: at vector_length 32 that is 8 warps an H100 SM, too few
 * to keep its memory busy (a06 at 470 GB/s, call L).
 *
 * The work-group shape WxH (L->local): W is vector_length / thread_limit;
 * collapse=2 runs ncells / (W*H) gangs / teams over the flattened cells (H
 * cells a lane), collapse=1 runs ny / H gangs / teams over rows (H rows a
 * gang; OpenACC: a row's cells across the W vector lanes; OpenMP: the
 * team's threads over its rows, a row's cells in simd lanes).
 *
 * Knobs read here: layout (aos | soa-3d), kernels (split: the report's five
 * loops; fused: one loop after accelerate_flow; fused-accel: the next step's
 * acceleration folded in), obstacles, neighbours, constants (as every
 * backend), data (region: the lattices stay on the device for the whole
 * run; per-step: copied out and in every step, as a data region inside the
 * time loop does), avvels (each-step: the step's sum a host scalar, so the
 * host waits for every step; device: row partials kept on the device and
 * reduced there once per chunk, read once), async (steps queued without
 * waiting: OpenACC async(1), OpenMP nowait with a dependence chain). */
#include <math.h>
#include <stdlib.h>

#include "omp_kernel.h"

#if defined(K_STRIPS)
#define STRIPS K_STRIPS
#else
#define STRIPS 1
#endif

#define P(x) P_(x)
#define P_(x) _Pragma(#x)

#if defined(LBM_ACC)
#include <openacc.h>
#define DEVICE_BEGIN
#define DEVICE_END
#define ROUTINE P(acc routine seq)
#define ASYNC_ON async(1)
#define WAIT() acc_wait_all()
#define CELLS_LOOP(G, W, more) P(acc parallel loop gang vector collapse(2) num_gangs(G) vector_length(W) deviceptr(a, b, obst, part, av) more)
#define ROWS_LOOP(G, W, more) P(acc parallel loop gang num_gangs(G) vector_length(W) deviceptr(a, b, obst, part, av) more)
#define COLS_LOOP(more) P(acc loop vector more)
#define LINE_LOOP(more) P(acc parallel loop gang vector deviceptr(a, b, obst, part, av) more)
#define RED(v) reduction(+ : v)
#define RED2(v, w) reduction(+ : v, w)
#define INNER_RED(v) reduction(+ : v)
#define INNER_RED2(v, w) reduction(+ : v, w)
static void to_dev(void *d, const void *h, size_t n) { acc_memcpy_to_device(d, (void *)h, n); }
static void from_dev(void *h, const void *d, size_t n) { acc_memcpy_from_device(h, (void *)d, n); }
static void *dev_alloc(size_t n) { return acc_malloc(n); }
static void dev_free(void *p) { acc_free(p); }
#elif defined(LBM_OMP)
#include <omp.h>
/* Lanes, warps and OMP_PAR_FOR: omp_kernel.h. */
#define DEVICE_BEGIN P(omp declare target)
#define DEVICE_END P(omp end declare target)
#define ROUTINE
#define ASYNC_ON nowait depend(inout : dep)
#define WAIT() P(omp taskwait)
#if K_WG_X <= 32 /* a team of one warp for the line loops too */
#define OMP_LINE_LIMIT thread_limit(1)
#else
#define OMP_LINE_LIMIT
#endif
#define CELLS_LOOP(G, W, more) P(omp target teams distribute OMP_PAR_FOR simd collapse(2) num_teams(G) thread_limit(OMP_WARPS(W)) is_device_ptr(a, b, obst, part, av) more)
#define ROWS_LOOP(G, W, more) P(omp target teams distribute OMP_PAR_FOR num_teams(G) thread_limit(OMP_WARPS(W)) is_device_ptr(a, b, obst, part, av) more)
#define LINE_LOOP(more) P(omp target teams distribute OMP_PAR_FOR simd OMP_LINE_LIMIT is_device_ptr(a, b, obst, part, av) more)
#define COLS_LOOP(more) P(omp simd more)
#define RED(v) reduction(+ : v) map(tofrom : v)
#define RED2(v, w) reduction(+ : v, w) map(tofrom : v, w)
#define INNER_RED(v) reduction(+ : v)
#define INNER_RED2(v, w) reduction(+ : v, w)
static void to_dev(void *d, const void *h, size_t n) {
    omp_target_memcpy(d, h, n, 0, 0, omp_get_default_device(), omp_get_initial_device());
}
static void from_dev(void *h, const void *d, size_t n) {
    omp_target_memcpy(h, d, n, 0, 0, omp_get_initial_device(), omp_get_default_device());
}
static void *dev_alloc(size_t n) { return omp_target_alloc(n, omp_get_default_device()); }
static void dev_free(void *p) { omp_target_free(p, omp_get_default_device()); }
#else
#error "define LBM_ACC or LBM_OMP"
#endif

/* GCC takes vector_length only as a constant (a run-time value is ignored
 * for 32, with a warning), so the shape is compiled in: the schedule passes
 * -DK_WG_X=W -DK_WG_Y=H, one program per shape. */
#if !defined(K_WG_X) || !defined(K_WG_Y)
#error "build with -DK_WG_X=W -DK_WG_Y=H (the work-group shape)"
#endif
#define W K_WG_X
#define H K_WG_Y

/* collapse=2: one loop over all cells; collapse=1: rows over gangs / teams,
 * a row's cells inside (the inner pragma sits between the two loops). */
#if defined(K_COLLAPSE_2)
#define OUTER(more) CELLS_LOOP(cell_gangs, W, more)
#define INNER(more)
#else
#define OUTER(more) ROWS_LOOP(row_gangs, W, more)
#define INNER(more) COLS_LOOP(more)
#endif

#if defined(K_ASYNC_ON)
#define ASYNC ASYNC_ON
#else
#define ASYNC
#endif

DEVICE_BEGIN
#define LBM_FN ROUTINE static inline
#define LBM_SQRT sqrtf
#include "lbm_physics.h"

/* K_INDEX32 (directive_steps.c sets it when 9 x cells fit in 32 bits): the
 * index in 32-bit arithmetic, as the CUDA and OpenCL kernels compute it. In
 * 64 bits, GCC kept a 64-bit pointer per plane, for the nine it reads and
 * the nine it writes, live across a row's loop: a09's step used 113
 * registers (ptxas -v, sm_90), 95 with this. */
#if defined(K_INDEX32)
#define IDX(x) ((unsigned)(x))
#else
#define IDX(x) ((size_t)(x))
#endif
#if defined(K_LAYOUT_SOA_3D)
#define AT(g, k, i) (g)[IDX(k) * IDX(ncells) + IDX(i)]
#else
#define AT(g, k, i) (g)[IDX(i) * 9 + IDX(k)]
#endif

/* The periodic neighbours of (ii, jj): bit masks need power-of-two sides. */
#if defined(K_NEIGHBOURS_BITMASK)
#define NEIGHBOURS                                                                          \
    const int y_n = (jj + 1) & (ny - 1), x_e = (ii + 1) & (nx - 1);                         \
    const int y_s = (jj - 1) & (ny - 1), x_w = (ii - 1) & (nx - 1)
#else
#define NEIGHBOURS                                                                          \
    const int y_n = (jj + 1) % ny, x_e = (ii + 1) % nx;                                     \
    const int y_s = (jj == 0) ? jj + ny - 1 : jj - 1, x_w = (ii == 0) ? ii + nx - 1 : ii - 1
#endif

/* propagate's pull of cell (ii, jj) from lattice g into s. */
#define PULL(g, s)                                                                          \
    do {                                                                                    \
        (s)[0] = AT(g, 0, ii + jj * nx);                                                    \
        (s)[1] = AT(g, 1, x_w + jj * nx);                                                   \
        (s)[2] = AT(g, 2, ii + y_s * nx);                                                   \
        (s)[3] = AT(g, 3, x_e + jj * nx);                                                   \
        (s)[4] = AT(g, 4, ii + y_n * nx);                                                   \
        (s)[5] = AT(g, 5, x_w + y_s * nx);                                                  \
        (s)[6] = AT(g, 6, x_e + y_s * nx);                                                  \
        (s)[7] = AT(g, 7, x_e + y_n * nx);                                                  \
        (s)[8] = AT(g, 8, x_w + y_n * nx);                                                  \
    } while (0)

/* The fused update of one cell: pull from a, rebound or collide, the next
 * step's acceleration on row ny-2 (fused-accel), store to b; |u| (0 for
 * obstacles). */
/* Always inlined: where a program has several calls of it (params=globals
 * spells its step three times) GCC 12 kept it a function and called it
 * for every cell; a07-globals's step kernel then took 260 us at 1024x1024 on
 * an H100 (ncu, call AD) where a06-async's, with it inlined, took 65. */
ROUTINE static inline __attribute__((always_inline)) float fused_cell(const float *restrict a, float *restrict b, const unsigned char *restrict obst,
                                       int ii, int jj, int nx, int ny, size_t ncells, float omega, float w1, float w2,
                                       float fold) {
    NEIGHBOURS;
    float s[9];
    PULL(a, s);
    const int i = ii + jj * nx, o = obst[i];
    float u = 0.0f;
#if defined(K_OBSTACLES_MASK)
    float r[9];
    for (int k = 0; k < 9; k++) r[k] = s[k];
    lbm_rebound(r);
    const float usq = lbm_collide_usq(s, omega);
    for (int k = 0; k < 9; k++) s[k] = o ? r[k] : s[k];
    u = o ? 0.0f : sqrtf(usq);
#else
    if (o) lbm_rebound(s);
    else u = sqrtf(lbm_collide_usq(s, omega));
#endif
#if defined(K_KERNELS_FUSED_ACCEL)
    lbm_accelerate(s, w1, w2, (jj == ny - 2 && !o) ? fold : 0.0f);
#else
    (void)w1;
    (void)w2;
    (void)fold;
#endif
    for (int k = 0; k < 9; k++) AT(b, k, i) = s[k];
    return u;
}
DEVICE_END

/* accelerate_flow: row ny-2 of lattice a, one region (queued under ASYNC);
 * names a, obst, nx, ny, w1, w2 of the caller. */
#define ACCELERATE_ROW()                                                                                   \
    do {                                                                                                   \
        const int jj = ny - 2;                                                                             \
        LINE_LOOP(ASYNC)                                                                                   \
        for (int ii = 0; ii < nx; ii++) {                                                                  \
            const int i = ii + jj * nx;                                                                    \
            float s[9];                                                                                    \
            for (int k = 0; k < 9; k++) s[k] = AT(a, k, i);                                                \
            lbm_accelerate(s, w1, w2, obst[i] ? 0.0f : 1.0f);                                              \
            for (int k = 0; k < 9; k++) AT(a, k, i) = s[k];                                                \
        }                                                                                                  \
    } while (0)

#if defined(K_PARAMS_GLOBALS)
#if !defined(LBM_ACC)
#error "params=globals is OpenACC's declare create"
#endif
/* params=globals: what a step's loops read lives in device globals, set once
 * (acc update device), so that a queued launch names no variable. Otherwise
 * GCC's asynchronous launch allocates an argument block, copies it and frees
 * it from a stream callback (libgomp's nvptx plugin), and the stream waits
 * for the host at every launch: 72 us a step at 128x128 on an H100 (a06,
 * call 2026-11-26c), where CUDA's whole step takes 3.4 us. The pointers hold
 * device addresses; g_step counts the steps on the device. */
struct lbm_params {
    float *a, *b, *part, *av;
    const unsigned char *obst;
    size_t ncells;
    int nx, ny, fluid;
    float omega, w1, w2, fold;
};
static struct lbm_params g_params;
static int g_step;
P(acc declare create(g_params, g_step))
/* Read through routines: a global named inside a compute region is mapped
 * there (as present) like any variable, which is the argument block again;
 * a routine's body reads the device's copy by its symbol. */
ROUTINE static inline struct lbm_params lbm_params(void) { return g_params; }
ROUTINE static inline int lbm_next_step(void) { return g_step++; }

/* The rows' (strips') sums of |u| of one step reduced into the next
 * av[step] by the vector lanes of one gang (which gang calls it is the
 * caller's choice). */
#define GLOBAL_AVVELS(p, rows)                                                                             \
    do {                                                                                                   \
        float sum = 0.0f;                                                                                  \
        P(acc loop vector reduction(+ : sum))                                                              \
        for (int g = 0; g < (p).ny * STRIPS; g++) sum += (rows)[g];                                        \
        (p).av[lbm_next_step()] = sum / (float)(p).fluid;                                                  \
    } while (0)

/* One queued step from lattice a to b (FLIP 0) or b to a (FLIP 1), one
 * launch: each row's sum of |u| into half FLIP of part, while gang 0 first
 * reduces the step before's half (PREV: there is one) into av. A launch of
 * its own for that reduction cost a second stream callback a step (GCC
 * queues one after every asynchronous region to release its mapping). */
#define GLOBAL_STEP(FLIP, PREV)                                                                            \
    P(acc parallel num_gangs(gangs) vector_length(W) ASYNC)                                             \
    {                                                                                                      \
        const struct lbm_params p = lbm_params();                                                          \
        if ((PREV) && __builtin_goacc_parlevel_id(0) == 0)                                                 \
            GLOBAL_AVVELS(p, p.part + (1 - (FLIP)) * p.ny * STRIPS);                                       \
        /* scalars and restrict pointers: what the lanes share is registers */                            \
        const float *restrict src = (FLIP) ? p.b : p.a;                                                    \
        float *restrict dst = (FLIP) ? p.a : p.b;                                                          \
        const unsigned char *restrict obs = p.obst;                                                        \
        float *restrict rows = p.part + (FLIP) * p.ny * STRIPS;                                            \
        const int nx = p.nx, ny = p.ny;                                                                    \
        const size_t ncells = p.ncells;                                                                    \
        const float omega = p.omega, w1 = p.w1, w2 = p.w2, fold = p.fold;                                  \
        P(acc loop gang)                                                                                   \
        for (int g = 0; g < ny * STRIPS; g++) { /* strip g % STRIPS of row g / STRIPS */                   \
            const int jj = g / STRIPS, i0 = (int)((long)nx * (g % STRIPS) / STRIPS),                       \
                      i1 = (int)((long)nx * (g % STRIPS + 1) / STRIPS);                                    \
            float row = 0.0f;                                                                              \
            P(acc loop vector reduction(+ : row))                                                          \
            for (int ii = i0; ii < i1; ii++)                                                               \
                row += fused_cell(src, dst, obs, ii, jj, nx, ny, ncells, omega, w1, w2, fold);             \
            rows[g] = row;                                                                                 \
        }                                                                                                  \
    }

/* lbm_run for params=globals (app.c allows it with kernels=fused-accel,
 * avvels=device, data=region, collapse=1; async=on queues the launches,
 * off waits for each). */
static void lbm_run_globals(float *a, float *b, const unsigned char *obst, float *av, int nx, int ny, float omega,
                            float w1, float w2, long iters) {
    const size_t ncells = (size_t)nx * (size_t)ny;
    const int gangs = ny / H * STRIPS;
    float *part = dev_alloc(2 * (size_t)ny * STRIPS * sizeof(float)); /* two steps' row (strip) sums */
    int fluid = 0;
    LINE_LOOP(RED(fluid))
    for (size_t i = 0; i < ncells; i++) fluid += obst[i] ? 0 : 1;
    g_params = (struct lbm_params){.a = a, .b = b, .part = part, .av = av, .obst = obst, .ncells = ncells, .nx = nx,
                                   .ny = ny, .fluid = fluid, .omega = omega, .w1 = w1, .w2 = w2,
                                   .fold = iters > 1 ? 1.0f : 0.0f};
    g_step = 0;
    /* The runtime's update, not the directive: GCC 12 lowers `acc update
     * device(g)` of a declare-create global to an update of nothing. */
    acc_update_device(&g_params, sizeof g_params);
    acc_update_device(&g_step, sizeof g_step);
    ACCELERATE_ROW(); /* step 0's; each step folds in the next one's */
    for (long t = 0; t < iters; t++) {
        if (t == iters - 1 && t > 0) { /* the last step folds in no acceleration */
            g_params.fold = 0.0f;
#if defined(K_ASYNC_ON)
            acc_update_device_async(&g_params, sizeof g_params, 1);
#else
            acc_update_device(&g_params, sizeof g_params);
#endif
        }
        /* FLIP and PREV as constants: t named inside a region would be
         * mapped, and the launch would carry an argument block again. */
        if (t == 0) {
            GLOBAL_STEP(0, 0)
        } else if (t % 2 == 0) {
            GLOBAL_STEP(0, 1)
        } else {
            GLOBAL_STEP(1, 1)
        }
    }
    P(acc parallel num_gangs(1) vector_length(32) ASYNC) /* the last step's sums */
    {
        const struct lbm_params p = lbm_params();
        GLOBAL_AVVELS(p, p.part + ((iters - 1) % 2) * p.ny * STRIPS);
    }
    WAIT();
    if (iters % 2) { /* an odd number of steps left the state in tmp */
        LINE_LOOP()
        for (size_t i = 0; i < 9 * ncells; i++) a[i] = b[i];
    }
    dev_free(part);
}
#endif

/* Steps whose row partials are kept before the device reduces them. */
#define CHUNK_BYTES ((size_t)64 << 20)

/* The dependence every queued OpenMP step names: one object for all of
 * them, so each waits for the one before. */
static char dep __attribute__((unused));

/* What lbm_run's steps share: the lattices (a the current state), the
 * obstacles, the row partials and the averages, all device addresses, and
 * the grid and its constants. Each step's function takes its names back
 * (a, b, obst, part, av, nx, ...): the directives' clauses name them. */
struct lbm_run_state {
    float *a, *b, *part, *av;
    const unsigned char *obst;
    int nx, ny, cell_gangs, row_gangs, nparts, fluid;
    size_t ncells;
    float omega, w1, w2;
    long iters, chunk;
};

#if defined(K_KERNELS_SPLIT)
/* One step of the report's OpenACC program: propagate, rebound, collision
 * and av_velocity each a loop over the grid; the result back in a. Its row
 * sums at part + prow (avvels=device), or its sum of |u| and of fluid
 * cells into *tot_u and *tot_cells (each-step). */
static void step_split(const struct lbm_run_state *r, size_t prow, float *tot_u, int *tot_cells) {
    float *a = r->a, *b = r->b, *part = r->part, *av = r->av;
    const unsigned char *obst = r->obst;
    const int nx = r->nx, ny = r->ny, cell_gangs = r->cell_gangs, row_gangs = r->row_gangs;
    const size_t ncells = r->ncells;
    const float omega = r->omega;
    (void)part, (void)av, (void)prow, (void)ncells, (void)cell_gangs, (void)row_gangs, (void)tot_u, (void)tot_cells;
    OUTER(ASYNC)
    for (int jj = 0; jj < ny; jj++)
        INNER()
        for (int ii = 0; ii < nx; ii++) {
            NEIGHBOURS;
            float s[9];
            PULL(a, s);
            for (int k = 0; k < 9; k++) AT(b, k, ii + jj * nx) = s[k];
        }
    OUTER(ASYNC)
    for (int jj = 0; jj < ny; jj++)
        INNER()
        for (int ii = 0; ii < nx; ii++) {
            const int i = ii + jj * nx;
            float s[9];
            for (int k = 0; k < 9; k++) s[k] = AT(b, k, i);
            if (obst[i]) lbm_rebound(s);
            else lbm_collide(s, omega);
            for (int k = 0; k < 9; k++) AT(a, k, i) = s[k];
        }
#if defined(K_AVVELS_DEVICE)
    ROWS_LOOP(row_gangs, W, ASYNC)
    for (int jj = 0; jj < ny; jj++) {
        float row = 0.0f;
        COLS_LOOP(INNER_RED(row))
        for (int ii = 0; ii < nx; ii++) {
            const int i = ii + jj * nx;
            float s[9];
            for (int k = 0; k < 9; k++) s[k] = AT(a, k, i);
            row += obst[i] ? 0.0f : lbm_speed(s);
        }
        part[prow + (size_t)jj] = row;
    }
#else
    float u = 0.0f;
    int cells = 0;
    OUTER(RED2(u, cells))
    for (int jj = 0; jj < ny; jj++)
        INNER(INNER_RED2(u, cells))
        for (int ii = 0; ii < nx; ii++) {
            const int i = ii + jj * nx;
            float s[9];
            for (int k = 0; k < 9; k++) s[k] = AT(a, k, i);
            u += obst[i] ? 0.0f : lbm_speed(s);
            cells += obst[i] ? 0 : 1;
        }
    *tot_u = u;
    *tot_cells = cells;
#endif
}
#else
/* One fused step from a to b (fused_cell), fold the next step's
 * acceleration (fused-accel). Its strips' sums at part + prow
 * (avvels=device), or its sum of |u| and of fluid cells into *tot_u and
 * *tot_cells (each-step). */
static void step_fused(const struct lbm_run_state *r, float fold, size_t prow, float *tot_u, int *tot_cells) {
    float *a = r->a, *b = r->b, *part = r->part, *av = r->av;
    const unsigned char *obst = r->obst;
    const int nx = r->nx, ny = r->ny, cell_gangs = r->cell_gangs, row_gangs = r->row_gangs, nparts = r->nparts;
    const size_t ncells = r->ncells;
    const float omega = r->omega, w1 = r->w1, w2 = r->w2;
    (void)part, (void)av, (void)prow, (void)nparts, (void)cell_gangs, (void)row_gangs, (void)tot_u, (void)tot_cells;
#if defined(K_AVVELS_DEVICE)
    ROWS_LOOP(row_gangs * STRIPS, W, ASYNC)
    for (int g = 0; g < nparts; g++) { /* strip g % STRIPS of row g / STRIPS */
        const int jj = g / STRIPS, i0 = (int)((long)nx * (g % STRIPS) / STRIPS),
                  i1 = (int)((long)nx * (g % STRIPS + 1) / STRIPS);
        float row = 0.0f;
        COLS_LOOP(INNER_RED(row))
        for (int ii = i0; ii < i1; ii++) row += fused_cell(a, b, obst, ii, jj, nx, ny, ncells, omega, w1, w2, fold);
        part[prow + (size_t)g] = row;
    }
#else
    float u = 0.0f;
    int cells = 0;
    OUTER(RED2(u, cells))
    for (int jj = 0; jj < ny; jj++)
        INNER(INNER_RED2(u, cells))
        for (int ii = 0; ii < nx; ii++) {
            u += fused_cell(a, b, obst, ii, jj, nx, ny, ncells, omega, w1, w2, fold);
            cells += obst[ii + jj * nx] ? 0 : 1;
        }
    *tot_u = u;
    *tot_cells = cells;
#endif
}
#endif

/* accelerate_flow on the current lattice (ACCELERATE_ROW's names). */
static void accelerate(const struct lbm_run_state *r) {
    float *a = r->a, *b = r->b, *part = r->part, *av = r->av;
    const unsigned char *obst = r->obst;
    const int nx = r->nx, ny = r->ny;
    const size_t ncells = r->ncells;
    const float w1 = r->w1, w2 = r->w2;
    (void)b, (void)part, (void)av, (void)ncells;
    ACCELERATE_ROW();
}

#if defined(K_AVVELS_DEVICE)
/* avvels=device, after step t: at a chunk's last step (or the run's), the
 * chunk's row partials summed on the device into av, one lane a step. */
static void reduce_chunk(const struct lbm_run_state *r, long t) {
    float *a = r->a, *b = r->b, *part = r->part, *av = r->av;
    const unsigned char *obst = r->obst;
    const long chunk = r->chunk;
    const int nparts = r->nparts, fluid = r->fluid;
    (void)a, (void)b, (void)obst;
    if (t % chunk != chunk - 1 && t != r->iters - 1) return;
    const long first = t - t % chunk, n = t - first + 1;
    LINE_LOOP(ASYNC)
    for (long s = 0; s < n; s++) {
        float sum = 0.0f;
        for (int g = 0; g < nparts; g++) sum += part[(size_t)s * (size_t)nparts + (size_t)g];
        av[first + s] = sum / (float)fluid;
    }
}

/* avvels=device: room for a chunk of steps' partials (a row's or a
 * strip's each), and the fluid cells, counted once (the obstacles never
 * change). */
static void partials_open(struct lbm_run_state *r) {
    r->nparts = r->ny * STRIPS;
    r->chunk = (long)(CHUNK_BYTES / ((size_t)r->nparts * sizeof(float)));
    if (r->chunk > r->iters) r->chunk = r->iters;
    if (r->chunk < 1) r->chunk = 1;
    r->part = dev_alloc((size_t)r->chunk * (size_t)r->nparts * sizeof(float));
    float *a = r->a, *b = r->b, *part = r->part, *av = r->av;
    const unsigned char *obst = r->obst;
    const size_t ncells = r->ncells; /* a region reads locals, never r */
    (void)a, (void)b, (void)part, (void)av;
    int fluid = 0;
    LINE_LOOP(RED(fluid))
    for (size_t i = 0; i < ncells; i++) fluid += obst[i] ? 0 : 1;
    r->fluid = fluid;
}
#endif

/* After the last step: an odd number of fused steps left the state in
 * tmp (b holds the caller's cells then), so it is copied home. */
static void state_home(const struct lbm_run_state *r, float *cells) {
    float *a = r->a, *b = cells, *part = r->part, *av = r->av;
    const unsigned char *obst = r->obst;
    const size_t ncells = r->ncells;
    (void)part, (void)av, (void)obst;
    if (a == cells) return;
    LINE_LOOP()
    for (size_t i = 0; i < 9 * ncells; i++) b[i] = a[i];
}

/* args: cells, tmp, obstacles, av (iters floats), nx, ny, omega, density,
 * accel, iters. On return cells holds the final state and av each step's
 * average velocity. */
void lbm_run(const struct omp_launch *L, void *const *args) {
    float *const cells = args[0];
    struct lbm_run_state r = {.a = args[0], .b = args[1], .obst = args[2], .av = args[3]};
    r.nx = *(const int *)args[4], r.ny = *(const int *)args[5];
    const float density = *(const float *)args[7], accel = *(const float *)args[8];
    r.omega = *(const float *)args[6];
    r.iters = *(const int *)args[9];
    r.ncells = (size_t)r.nx * (size_t)r.ny;
    (void)L; /* the shape is compiled in (K_WG_X, K_WG_Y) */
    r.w1 = density * accel / 9.0f, r.w2 = density * accel / 36.0f;
#if defined(K_PARAMS_GLOBALS)
    lbm_run_globals(r.a, r.b, r.obst, r.av, r.nx, r.ny, r.omega, r.w1, r.w2, r.iters);
    return;
#endif
    r.cell_gangs = (int)(r.ncells / ((size_t)W * (size_t)H)), r.row_gangs = r.ny / H;
#if defined(LBM_OMP)
    /* The named host fallback (omp-target:host): GCC runs host teams one
     * after another, each opening its own parallel region, so one team of
     * all the threads is the same loop without a region per team. */
    if (omp_get_default_device() == omp_get_initial_device()) r.cell_gangs = r.row_gangs = 1;
#endif
#if defined(K_DATA_PER_STEP)
    /* The host's copy of the lattice a data region inside the time loop
     * would copy in at each step's start and out at its end. */
    float *stage = malloc(9 * r.ncells * sizeof(float));
    from_dev(stage, r.a, 9 * r.ncells * sizeof(float));
#endif
#if defined(K_AVVELS_DEVICE)
    partials_open(&r);
#else
    float *av_host = malloc((size_t)r.iters * sizeof(float));
#endif
    for (long t = 0; t < r.iters; t++) {
#if defined(K_DATA_PER_STEP)
        WAIT();
        to_dev(r.a, stage, 9 * r.ncells * sizeof(float));
#endif
#if defined(K_KERNELS_FUSED_ACCEL)
        const int accel_here = t == 0; /* later steps fold it into the previous one */
#else
        const int accel_here = 1;
#endif
        if (accel_here) accelerate(&r);
#if defined(K_AVVELS_DEVICE)
        /* This step's row sums: an offset into part, not a pointer of its
         * own. A pointer computed on the host and named in no clause is
         * mapped implicitly in an OpenMP target region, as a zero-length
         * array section of memory the runtime does not know: GCC passes
         * NULL, and the stores faulted (a04-a06 crashed on omp-target). */
        const size_t prow = (size_t)(t % r.chunk) * (size_t)r.nparts;
#else
        const size_t prow = 0;
#endif
        float tot_u = 0.0f;
        int tot_cells = 0;
#if defined(K_KERNELS_SPLIT)
        step_split(&r, prow, &tot_u, &tot_cells);
#else
        /* fused-accel: the next step's acceleration, none after the last. */
        step_fused(&r, t < r.iters - 1 ? 1.0f : 0.0f, prow, &tot_u, &tot_cells);
        float *swap = r.a;
        r.a = r.b;
        r.b = swap;
#endif
#if defined(K_AVVELS_DEVICE)
        reduce_chunk(&r, t);
#else
        av_host[t] = tot_cells ? tot_u / (float)tot_cells : 0.0f;
#endif
#if defined(K_DATA_PER_STEP)
        WAIT();
        from_dev(stage, r.a, 9 * r.ncells * sizeof(float));
#endif
    }
    WAIT();
    state_home(&r, cells);
#if defined(K_AVVELS_DEVICE)
    dev_free(r.part);
#else
    to_dev(r.av, av_host, (size_t)r.iters * sizeof(float));
    free(av_host);
#endif
#if defined(K_DATA_PER_STEP)
    free(stage);
#endif
}
