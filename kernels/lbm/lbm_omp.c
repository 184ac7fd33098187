/* LBM D2Q9 kernels for the OpenMP backend: the same kernel names, arguments
 * and knobs as lbm_gpu.h, written as loops over tiles (the work-group shape
 * read as a tile shape). Built at run time with cc -fopenmp and the knob -D
 * flags; see harness/backend/omp_kernel.h for the calling convention. */
#include <math.h>
#include <stdlib.h>

#include "omp_kernel.h"

#define LBM_FN static inline
#define LBM_SQRT sqrtf
#include "lbm_physics.h"

typedef unsigned char uchar;

/* ---- grid layout ---- */
#if defined(K_LAYOUT_SOA)
typedef struct { float *s[9]; } grid_t;
#define AT(g, k, i) (g).s[k][i]
static grid_t take_grid(void *const *args, int *at) {
    grid_t g;
    for (int k = 0; k < 9; k++) g.s[k] = args[(*at)++];
    return g;
}
#else
typedef struct { float *s; } grid_t;
#if defined(K_LAYOUT_SOA_3D)
#define AT(g, k, i) (g).s[(size_t)(k) * ncells + (i)]
#else
#define AT(g, k, i) (g).s[(size_t)(i) * 9 + (k)]
#endif
static grid_t take_grid(void *const *args, int *at) {
    grid_t g = {args[(*at)++]};
    return g;
}
#endif

/* The fused step's two lattices and accelerate_flow's one: separate
 * arguments, or with args=struct one struct of pointers passed by value. */
#if defined(K_ARGS_STRUCT)
struct lattices { float *src[9]; float *dst[9]; };
static void take_pair(void *const *args, int *at, grid_t *src, grid_t *dst) {
    const struct lattices *l = args[(*at)++];
    for (int k = 0; k < 9; k++) { src->s[k] = l->src[k]; dst->s[k] = l->dst[k]; }
}
static grid_t take_accel_grid(void *const *args, int *at) {
    grid_t src, dst;
    take_pair(args, at, &src, &dst);
    return src;
}
#else
static void take_pair(void *const *args, int *at, grid_t *src, grid_t *dst) {
    *src = take_grid(args, at);
    *dst = take_grid(args, at);
}
static grid_t take_accel_grid(void *const *args, int *at) { return take_grid(args, at); }
#endif

/* The scalar arguments every kernel takes, in lbm_gpu.h's order. */
struct common { int nx, ny; float omega, w1, w2; };
static struct common take_common(void *const *args, int *at) {
    struct common c;
    c.nx = *(int *)args[(*at)++];
    c.ny = *(int *)args[(*at)++];
    c.omega = *(float *)args[(*at)++];
    float a = *(float *)args[(*at)++], b = *(float *)args[(*at)++];
#if defined(K_CONSTANTS_HOISTED)
    c.w1 = a;
    c.w2 = b;
#else
    c.w1 = a * b / 9.0f;
    c.w2 = a * b / 36.0f;
#endif
    return c;
}

#if defined(K_WORK_EMPTY)
#define EMPTY_RETURN return
#else
#define EMPTY_RETURN (void)0
#endif

#if defined(K_NEIGHBOURS_BITMASK)
#define NEIGHBOURS                                                                           \
    int y_n = (jj + 1) & (c.ny - 1), y_s = (jj - 1) & (c.ny - 1);                            \
    int x_e = (ii + 1) & (c.nx - 1), x_w = (ii - 1) & (c.nx - 1)
#else
#define NEIGHBOURS                                                                           \
    int y_n = (jj + 1) % c.ny, y_s = (jj == 0) ? (jj + c.ny - 1) : (jj - 1);                 \
    int x_e = (ii + 1) % c.nx, x_w = (ii == 0) ? (ii + c.nx - 1) : (ii - 1)
#endif

#define PULL(src, s)                                                                         \
    s[0] = AT(src, 0, ii + jj * nx);  s[1] = AT(src, 1, x_w + jj * nx);                      \
    s[2] = AT(src, 2, ii + y_s * nx); s[3] = AT(src, 3, x_e + jj * nx);                      \
    s[4] = AT(src, 4, ii + y_n * nx); s[5] = AT(src, 5, x_w + y_s * nx);                     \
    s[6] = AT(src, 6, x_e + y_s * nx); s[7] = AT(src, 7, x_e + y_n * nx);                    \
    s[8] = AT(src, 8, x_w + y_n * nx)
#define LOAD(src, s, i) for (int k_ = 0; k_ < 9; k_++) s[k_] = AT(src, k_, i)
#define STORE(dst, s, i) for (int k_ = 0; k_ < 9; k_++) AT(dst, k_, i) = s[k_]

/* The OpenMP-only knobs: threads (all, or a count) and schedule. */
#if defined(K_THREADS)
#define OMP_THREADS num_threads(K_THREADS)
#else
#define OMP_THREADS
#endif
#if defined(K_SCHEDULE_DYNAMIC)
#define OMP_SCHEDULE schedule(dynamic)
#elif defined(K_SCHEDULE_GUIDED)
#define OMP_SCHEDULE schedule(guided)
#else
#define OMP_SCHEDULE schedule(static)
#endif
#define PRAGMA_(x) _Pragma(#x)
#define PRAGMA(x) PRAGMA_(x)

/* Every tile of the launch in parallel; inside, the tile's cells in row order. */
#define FOR_EACH_TILE(L)                                                                     \
    PRAGMA(omp parallel for collapse(2) OMP_SCHEDULE OMP_THREADS)                            \
    for (size_t ty = 0; ty < (L)->groups[1]; ty++)                                           \
        for (size_t tx = 0; tx < (L)->groups[0]; tx++)
#define FOR_EACH_CELL_OF_TILE(L)                                                             \
    for (int jj = (int)(ty * (L)->local[1]); jj < (int)((ty + 1) * (L)->local[1]); jj++)     \
        for (int ii = (int)(tx * (L)->local[0]); ii < (int)((tx + 1) * (L)->local[0]); ii++)

/* ---- per-tile reduction, the OpenMP reading of the reduction knob ----
 * host-each-step / local: one thread sums its tile in order; binary /
 * chunked / deferred: pairwise (tree) summation of the tile's values. */
static _Thread_local float *tile_u;
static _Thread_local size_t tile_cap;

static float *tile_scratch(size_t n) {
    if (n > tile_cap) {
        free(tile_u);
        tile_u = malloc(n * sizeof *tile_u);
        tile_cap = tile_u ? n : 0;
    }
    return tile_u;
}

static float tile_sum(float *v, size_t n) {
#if defined(K_REDUCTION_HOST_EACH_STEP) || defined(K_REDUCTION_LOCAL)
    float s = 0.0f;
    for (size_t i = 0; i < n; i++) s += v[i];
    return s;
#else
    size_t stride = 1;
    while (stride < n) stride <<= 1;
    for (stride >>= 1; stride > 0; stride >>= 1)
        for (size_t i = 0; i < stride && i + stride < n; i++) v[i] += v[i + stride];
    return v[0];
#endif
}

static void tile_store(float *partials, size_t group, size_t ngroups, int slot, float su, float sc) {
#if defined(K_REDUCTION_HOST_EACH_STEP)
    partials[2 * group] = su;
    partials[2 * group + 1] = sc;
    (void)ngroups; (void)slot;
#elif defined(K_REDUCTION_LOCAL) || defined(K_REDUCTION_BINARY)
    partials[group] = su;
    (void)ngroups; (void)slot; (void)sc;
#else
    partials[(size_t)slot * ngroups + group] = su;
    (void)sc;
#endif
}

void accelerate_flow(const struct omp_launch *L, void *const *args) {
    EMPTY_RETURN;
    int at = 0;
    grid_t cells = take_accel_grid(args, &at);
    const uchar *obstacles = args[at++];
    struct common c = take_common(args, &at);
    const int nx = c.nx, jj = c.ny - 2;
    const size_t ncells = (size_t)c.nx * (size_t)c.ny;
    (void)ncells;
PRAGMA(omp parallel for OMP_SCHEDULE OMP_THREADS)
    for (int ii = 0; ii < (int)L->global[0]; ii++) {
        const int i = ii + jj * nx;
        if (obstacles[i]) continue;
        float s[9];
        LOAD(cells, s, i);
        lbm_accelerate(s, c.w1, c.w2, 1.0f);
        STORE(cells, s, i);
    }
}

void propagate(const struct omp_launch *L, void *const *args) {
    EMPTY_RETURN;
    int at = 0;
    grid_t cells = take_grid(args, &at), tmp = take_grid(args, &at);
    struct common c = take_common(args, &at);
    const int nx = c.nx;
    const size_t ncells = (size_t)c.nx * (size_t)c.ny;
    (void)ncells;
    FOR_EACH_TILE(L) FOR_EACH_CELL_OF_TILE(L) {
        NEIGHBOURS;
        float s[9];
        PULL(cells, s);
        STORE(tmp, s, ii + jj * nx);
    }
}

void rebound(const struct omp_launch *L, void *const *args) {
    EMPTY_RETURN;
    int at = 0;
    grid_t cells = take_grid(args, &at), tmp = take_grid(args, &at);
    const uchar *obstacles = args[at++];
    struct common c = take_common(args, &at);
    const int nx = c.nx;
    const size_t ncells = (size_t)c.nx * (size_t)c.ny;
    (void)ncells;
    FOR_EACH_TILE(L) FOR_EACH_CELL_OF_TILE(L) {
        const int i = ii + jj * nx;
        if (!obstacles[i]) continue;
        float s[9];
        LOAD(tmp, s, i);
        lbm_rebound(s);
        STORE(cells, s, i);
    }
}

void collision(const struct omp_launch *L, void *const *args) {
    EMPTY_RETURN;
    int at = 0;
    grid_t cells = take_grid(args, &at), tmp = take_grid(args, &at);
    const uchar *obstacles = args[at++];
    struct common c = take_common(args, &at);
    const int nx = c.nx;
    const size_t ncells = (size_t)c.nx * (size_t)c.ny;
    (void)ncells;
    FOR_EACH_TILE(L) FOR_EACH_CELL_OF_TILE(L) {
        const int i = ii + jj * nx;
        if (obstacles[i]) continue;
        float s[9];
        LOAD(tmp, s, i);
        lbm_collide(s, c.omega);
        STORE(cells, s, i);
    }
}

void av_velocity(const struct omp_launch *L, void *const *args) {
    EMPTY_RETURN;
    int at = 0;
    grid_t cells = take_grid(args, &at);
    const uchar *obstacles = args[at++];
    float *partials = args[at++];
    struct common c = take_common(args, &at);
    const int slot = *(int *)args[at++];
    const int nx = c.nx;
    const size_t ncells = (size_t)c.nx * (size_t)c.ny, ngroups = L->groups[0] * L->groups[1];
    (void)ncells;
    FOR_EACH_TILE(L) {
        float *u = tile_scratch(L->local[0] * L->local[1]);
        size_t n = 0;
        float fluid = 0.0f;
        FOR_EACH_CELL_OF_TILE(L) {
            const int i = ii + jj * nx;
            float s[9];
            LOAD(cells, s, i);
            u[n++] = obstacles[i] ? 0.0f : lbm_speed(s);
            fluid += obstacles[i] ? 0.0f : 1.0f;
        }
        tile_store(partials, tx + ty * L->groups[0], ngroups, slot, tile_sum(u, n), fluid);
    }
}

/* One cell's update in place (rebound or collision, then the folded
 * acceleration when `accel` is 1); returns |u|^2 (0 for obstacles). The
 * square root waits for the reduction: under errno rules it would stop the
 * row loop below from vectorising. */
static inline float fused_cell(float *s, int obst, float accel, struct common c) {
#if defined(K_OBSTACLES_MASK)
    float r[9];
    for (int k = 0; k < 9; k++) r[k] = s[k];
    lbm_rebound(r);
    float usq = lbm_collide_usq(s, c.omega);
    usq = obst ? 0.0f : usq;
    for (int k = 0; k < 9; k++) s[k] = obst ? r[k] : s[k];
#else
    float usq = 0.0f;
    if (obst) {
        lbm_rebound(s);
    } else {
        usq = lbm_collide_usq(s, c.omega);
    }
#endif
    lbm_accelerate(s, c.w1, c.w2, obst ? 0.0f : accel);
    return usq;
}

/* Cell (ii, jj) through the layout's own addressing, neighbours wrapping. */
static inline float fused_one(grid_t src, grid_t dst, const uchar *obstacles, struct common c,
                              float accel, int ii, int jj) {
    const int nx = c.nx;
    const size_t ncells = (size_t)c.nx * (size_t)c.ny;
    (void)ncells;
    NEIGHBOURS;
    const int i = ii + jj * nx;
    float s[9];
    PULL(src, s);
    const float usq = fused_cell(s, obstacles[i], accel, c);
    STORE(dst, s, i);
    return usq;
}

#if defined(K_LAYOUT_SOA) || defined(K_LAYOUT_SOA_3D)
/* The rows of a step's two lattices never overlap: the loop's iterations
 * are independent (compilers do not take restrict on local pointers). */
#if defined(__clang__)
#define LOOP_INDEPENDENT PRAGMA(clang loop vectorize(assume_safety))
#elif defined(__GNUC__)
#define LOOP_INDEPENDENT PRAGMA(GCC ivdep)
#else
#define LOOP_INDEPENDENT
#endif
/* Plane layouts: cells ii in [x0, x1) of row jj, none on the periodic
 * edge, as one loop over restrict-qualified rows of each speed's plane. The
 * generic cell reads through a struct of pointers the compiler must assume
 * alias the stores, so it stays scalar; this loop vectorises. */
static inline void fused_run(grid_t src, grid_t dst, const uchar *obstacles, struct common c,
                             float accel, int jj, int x0, int x1, float *restrict u) {
    const int nx = c.nx;
    const size_t ncells = (size_t)c.nx * (size_t)c.ny;
    (void)ncells;
#if defined(K_NEIGHBOURS_BITMASK)
    const int y_n = (jj + 1) & (c.ny - 1), y_s = (jj - 1) & (c.ny - 1);
#else
    const int y_n = (jj + 1) % c.ny, y_s = (jj == 0) ? (jj + c.ny - 1) : (jj - 1);
#endif
    const size_t r = (size_t)jj * (size_t)nx, rn = (size_t)y_n * (size_t)nx, rs = (size_t)y_s * (size_t)nx;
    const float *restrict p0 = &AT(src, 0, r), *restrict p1 = &AT(src, 1, r);
    const float *restrict p2 = &AT(src, 2, rs), *restrict p3 = &AT(src, 3, r);
    const float *restrict p4 = &AT(src, 4, rn), *restrict p5 = &AT(src, 5, rs);
    const float *restrict p6 = &AT(src, 6, rs), *restrict p7 = &AT(src, 7, rn);
    const float *restrict p8 = &AT(src, 8, rn);
    float *restrict d0 = &AT(dst, 0, r), *restrict d1 = &AT(dst, 1, r), *restrict d2 = &AT(dst, 2, r);
    float *restrict d3 = &AT(dst, 3, r), *restrict d4 = &AT(dst, 4, r), *restrict d5 = &AT(dst, 5, r);
    float *restrict d6 = &AT(dst, 6, r), *restrict d7 = &AT(dst, 7, r), *restrict d8 = &AT(dst, 8, r);
    const uchar *restrict ob = obstacles + r;
    LOOP_INDEPENDENT
    for (int ii = x0; ii < x1; ii++) {
        float s[9] = {p0[ii],     p1[ii - 1], p2[ii],     p3[ii + 1], p4[ii],
                      p5[ii - 1], p6[ii + 1], p7[ii + 1], p8[ii - 1]};
        u[ii - x0] = fused_cell(s, ob[ii], accel, c);
        d0[ii] = s[0]; d1[ii] = s[1]; d2[ii] = s[2]; d3[ii] = s[3]; d4[ii] = s[4];
        d5[ii] = s[5]; d6[ii] = s[6]; d7[ii] = s[7]; d8[ii] = s[8];
    }
}
#define HAVE_FUSED_RUN 1
#endif

/* One tile (tx, ty) of the fused step from src to dst, its partial stored.
 * Shared by fused_step (a parallel loop per launch) and fused_persistent
 * (one parallel region for many steps). */
static inline void fused_tile(grid_t src, grid_t dst, const uchar *obstacles, float *partials,
                              struct common c, int slot, int accelerate, size_t tx, size_t ty,
                              const size_t local[2], size_t tiles_x, size_t ngroups) {
    const int nx = c.nx;
    float *u = tile_scratch(local[0] * local[1]);
    size_t n = 0;
    float fluid = 0.0f;
    const int x0 = (int)(tx * local[0]), x1 = (int)((tx + 1) * local[0]);
    for (int jj = (int)(ty * local[1]); jj < (int)((ty + 1) * local[1]); jj++) {
        const float accel = (accelerate && jj == c.ny - 2) ? 1.0f : 0.0f;
#if defined(HAVE_FUSED_RUN)
        const int a = x0 > 0 ? x0 : 1, b = x1 < nx ? x1 : nx - 1;
        if (x0 == 0) u[n++] = fused_one(src, dst, obstacles, c, accel, 0, jj);
        if (a < b) fused_run(src, dst, obstacles, c, accel, jj, a, b, u + n);
        n += (size_t)(b > a ? b - a : 0);
        if (x1 == nx && nx > 1) u[n++] = fused_one(src, dst, obstacles, c, accel, nx - 1, jj);
#else
        for (int ii = x0; ii < x1; ii++) u[n++] = fused_one(src, dst, obstacles, c, accel, ii, jj);
#endif
        for (int ii = x0; ii < x1; ii++) fluid += obstacles[ii + jj * nx] ? 0.0f : 1.0f;
    }
    for (size_t i = 0; i < n; i++) u[i] = LBM_SQRT(u[i]); /* |u| per cell, as lbm_speed */
    tile_store(partials, tx + ty * tiles_x, ngroups, slot, tile_sum(u, n), fluid);
}

/* bind=once passes a step clock after `accelerate` (lbm_gpu.h, CLOCK_READ):
 * the instance reading lattice `which` finds its step in clock[which] and
 * leaves the next in clock[1 - which] for the other instance. */
void fused_step(const struct omp_launch *L, void *const *args) {
    EMPTY_RETURN;
    int at = 0;
    grid_t src, dst;
    take_pair(args, &at, &src, &dst);
    const uchar *obstacles = args[at++];
    float *partials = args[at++];
    struct common c = take_common(args, &at);
    int slot = *(int *)args[at++];
    int accelerate = *(int *)args[at++];
#if defined(K_BIND_ONCE)
    int *clock = args[at++];
    const int which = *(int *)args[at++];
    const int nsteps = *(int *)args[at++], chunk = *(int *)args[at++];
    const int t = clock[which];
    slot = t % chunk;
    accelerate = accelerate && t != nsteps - 1;
#endif
    const size_t ngroups = L->groups[0] * L->groups[1];
    FOR_EACH_TILE(L) fused_tile(src, dst, obstacles, partials, c, slot, accelerate, tx, ty, L->local,
                                L->groups[0], ngroups);
#if defined(K_BIND_ONCE)
    clock[1 - which] = t + 1;
#endif
}

/* persistent=grid: `count` steps from step `first` in one parallel region.
 * The static schedule gives every thread the same tiles each step (its
 * data stays in its caches and NUMA node); the implicit barrier of the
 * worksharing loop is the step barrier. No fork/join per step. */
void fused_persistent(const struct omp_launch *L, void *const *args) {
    EMPTY_RETURN;
    int at = 0;
    grid_t a = take_grid(args, &at), b = take_grid(args, &at);
    const uchar *obstacles = args[at++];
    float *partials = args[at++];
    struct common c = take_common(args, &at);
    const int first = *(int *)args[at++], count = *(int *)args[at++];
    const int nsteps = *(int *)args[at++], chunk = *(int *)args[at++];
    const size_t tiles_x = (size_t)c.nx / L->local[0], tiles_y = (size_t)c.ny / L->local[1];
    const size_t ntiles = tiles_x * tiles_y;
PRAGMA(omp parallel OMP_THREADS)
    for (int step = 0; step < count; step++) {
        const int t = first + step;
        const grid_t src = (step & 1) ? b : a, dst = (step & 1) ? a : b;
PRAGMA(omp for schedule(static))
        for (size_t tile = 0; tile < ntiles; tile++)
            fused_tile(src, dst, obstacles, partials, c, t % chunk, t != nsteps - 1, tile % tiles_x,
                       tile / tiles_x, L->local, tiles_x, ntiles);
    }
}

void reduce_steps(const struct omp_launch *L, void *const *args) {
    (void)L;
    const float *partials = args[0];
    float *av = args[1];
    const int ngroups = *(int *)args[2], nsteps = *(int *)args[3], first = *(int *)args[4];
    const float inv_cells = *(float *)args[5];
PRAGMA(omp parallel for OMP_SCHEDULE OMP_THREADS)
    for (int step = 0; step < nsteps; step++) {
        float sum = 0.0f;
        for (int g = 0; g < ngroups; g++) sum += partials[(size_t)step * (size_t)ngroups + (size_t)g];
        av[first + step] = sum * inv_cells;
    }
}
