/* Sandpile kernels for the OpenMP backend: the same names, arguments and
 * results as sandpile_gpu.h, written as loops over tiles (the work-group
 * shape read as a tile shape, or the knob host_tile's: long rows suit a
 * CPU; tiles are handed out dynamically, so a core shared with a GPU's
 * launching thread in a device set delays only the tiles it takes), plus
 * the asynchronous in-place rule that
 * only a shared-memory CPU can run without atomics. Built at run time with
 * cc -fopenmp and the knob -D flags (harness/backend/omp_kernel.h: the
 * calling convention; args[i] is a buffer's memory or a pointer to an int;
 * local memory arguments arrive as NULL and each tile keeps its own). */
#include <stdlib.h>
#include <string.h>

#include "omp_kernel.h"
#include "sandpile_rule.h"

#ifndef K_STEPS
#define K_STEPS 1
#endif

/* flags[k] = k: grid k has an unstable cell (sandpile_gpu.h). Several tiles
 * may store the same value at once; the atomic write makes that defined. */
static void flag(int *flags, int k) {
#ifndef K_DETECT_NONE
#pragma omp atomic write
    flags[k] = k;
#else
    (void)flags;
    (void)k;
#endif
}

/* One row of the rule: o[x] for x in [x0, x1) from the rows above (n), at
 * (c) and below (s); returns the OR of the new cells' quotients by 4
 * (nonzero: one of them holds 4 or more). restrict lets the compiler
 * vectorise without run-time overlap checks (one AVX2 vector is 8 cells). */
static inline unsigned row_rule(unsigned *restrict o, const unsigned *restrict n, const unsigned *restrict c,
                                const unsigned *restrict s, int x0, int x1) {
    unsigned over = 0;
    for (int x = x0; x < x1; x++) {
        /* tests only: the first column never receives its east neighbour's grains */
#ifdef K_BROKEN_BORDER
        const unsigned east = x == 1 ? 0u : c[x + 1];
#else
        const unsigned east = c[x + 1];
#endif
        const unsigned v = SP_RULE(c[x], n[x], s[x], east, c[x - 1]);
        o[x] = v;
        over |= v >> 2;
    }
    return over;
}

void topple(const struct omp_launch *L, void *const *args) {
    const unsigned *in = args[0];
    unsigned *out = args[1];
    int *flags = args[2];
    const int it = *(int *)args[3], w = *(int *)args[4], row0 = *(int *)args[6], row1 = *(int *)args[7];
    const size_t W = (size_t)w;
#pragma omp parallel for collapse(2) schedule(dynamic)
    for (size_t ty = 0; ty < L->groups[1]; ty++)
        for (size_t tx = 0; tx < L->groups[0]; tx++) {
            int x0 = 1 + (int)(tx * L->local[0]), x1 = x0 + (int)L->local[0];
            int y0 = row0 + (int)(ty * L->local[1]), y1 = y0 + (int)L->local[1];
            if (x1 > w - 1) x1 = w - 1;
            if (y1 > row1) y1 = row1;
            unsigned over = 0;
            for (int y = y0; y < y1; y++) {
                const unsigned *c = in + (size_t)y * W;
                over |= row_rule(out + (size_t)y * W, c - W, c, c + W, x0, x1);
            }
            if (over) flag(flags, it);
        }
}

/* A thread's rows for topple_tiled, kept from launch to launch (the team's
 * threads live as long as the process): no allocation, and no fresh pages
 * to fault in, per launch. Grow-only; freed with the process. */
static _Thread_local unsigned *rows_mem;
static _Thread_local size_t rows_n;

static unsigned *thread_rows(size_t n) {
    if (n > rows_n) {
        free(rows_mem);
        if (!(rows_mem = malloc(n * sizeof *rows_mem))) abort(); /* out of memory: a crash, recorded as one */
        rows_n = n;
    }
    return rows_mem;
}

/* Temporal blocking, as topple_tiled in sandpile_gpu.h: each tile writes
 * its block of local[0] x local[1] cells less a K_STEPS halo on every side
 * after nsteps <= K_STEPS steps, and flags its last unstable step. A CPU
 * has no local memory to fill, so a tile streams instead (a line buffer):
 * step 1 of row y reads rows y-1..y+1 of `in` in place; step s of row
 * y-s+1 follows at once from the three newest rows of step s-1, which each
 * step keeps in a ring of three rows; the last step writes its row to
 * `out`. A tile's working set is 3 (nsteps - 1) rows of its width, in L1 or
 * L2 whatever its height, so a tile may be as tall as the grid; the grid is
 * read once and written once per launch (8 / nsteps bytes a cell update),
 * and nothing is copied. Step s computes the tile's columns and nsteps-1
 * more each side; the two cells past them read as 0, a wrong value that
 * moves one column a step and never reaches the tile's own columns (the
 * halo's purpose, as on the GPU); where those cells are the grid's border
 * columns 0 is their value. Rows past the range of a step are the border
 * (row 0 or h-1, a row of zeros). */
void topple_tiled(const struct omp_launch *L, void *const *args) {
    const unsigned *in = args[0];
    unsigned *out = args[1];
    int *flags = args[2];
    const int it = *(int *)args[3], n = *(int *)args[4], w = *(int *)args[5], h = *(int *)args[6];
    const int row0 = *(int *)args[7], row1 = *(int *)args[8];
    const int iw = (int)L->local[0] - 2 * K_STEPS, ih = (int)L->local[1] - 2 * K_STEPS;
    const size_t W = (size_t)w;
    /* A ring row spans the tile's columns, n-1 more each side and the two cells past them. */
    const size_t span = (size_t)(iw < w - 2 ? iw : w - 2) + 2 * (size_t)n;
#pragma omp parallel for collapse(2) schedule(dynamic)
    for (size_t ty = 0; ty < L->groups[1]; ty++)
        for (size_t tx = 0; tx < L->groups[0]; tx++) {
            unsigned *const zero = thread_rows(span * (1 + 3 * (size_t)(n - 1)));
            unsigned *const ring = zero + span; /* step s's row y: ring + ((s-1) * 3 + y % 3) * span */
            /* The tile's own cells [xi0, xi1) x [yi0, yi1), and the columns each step computes. */
            const int xi0 = 1 + (int)tx * iw, yi0 = row0 + (int)ty * ih;
            const int xi1 = xi0 + iw < w - 1 ? xi0 + iw : w - 1, yi1 = yi0 + ih < row1 ? yi0 + ih : row1;
#ifndef K_BROKEN_HALO
            const int halo = n - 1;
#else /* tests only: one column of halo too few, wrong at the edges of tiles narrower than the grid */
            const int halo = n - 2;
#endif
            const int xa = xi0 - halo > 1 ? xi0 - halo : 1, xb = xi1 + halo < w - 1 ? xi1 + halo : w - 1;
            const int b = xa - 1, nx = xb - b; /* row pointers start at column b: local column 1..nx-1 is computed */
            memset(zero, 0, (size_t)(nx + 1) * sizeof *zero);
            for (int r = 0; r < 3 * (n - 1); r++) ring[(size_t)r * span] = ring[(size_t)r * span + (size_t)nx] = 0;
            unsigned over[K_STEPS] = {0};
            /* Step s's rows [lo(s), hi(s)): the tile's rows and n-s more each side, within the interior. */
#define LO(s) (yi0 - (n - (s)) > 1 ? yi0 - (n - (s)) : 1)
#define HI(s) (yi1 + (n - (s)) < h - 1 ? yi1 + (n - (s)) : h - 1)
#define RING(s, y) (ring + ((size_t)((s) - 1) * 3 + (size_t)(y) % 3) * span)
#define ROW(s, y) ((s) == 0 ? in + (size_t)(y) * W + b : (y) == 0 || (y) == h - 1 ? zero : RING(s, y))
            for (int t = LO(1); t < HI(n) + n - 1; t++)
                for (int s = 1; s <= n; s++) {
                    const int y = t - (s - 1);
                    if (y < LO(s) || y >= HI(s)) continue;
                    const unsigned *up = ROW(s - 1, y - 1), *c = ROW(s - 1, y), *dn = ROW(s - 1, y + 1);
                    if (s == n) { /* the tile's own cells, to the grid */
                        over[s - 1] |= row_rule(out + (size_t)y * W + b, up, c, dn, xi0 - b, xi1 - b);
                        continue;
                    }
                    unsigned *o = RING(s, y);
                    if (y < yi0 || y >= yi1) {
                        row_rule(o, up, c, dn, 1, nx);
                    } else { /* only the tile's own cells count for the flag */
                        row_rule(o, up, c, dn, 1, xi0 - b);
                        over[s - 1] |= row_rule(o, up, c, dn, xi0 - b, xi1 - b);
                        row_rule(o, up, c, dn, xi1 - b, nx);
                    }
                }
#undef LO
#undef HI
#undef ROW
#undef RING
            int last = -1; /* the tile's last unstable step (sandpile_gpu.h: one flag a launch) */
            for (int s = 0; s < n; s++)
                if (over[s]) last = s;
            if (last >= 0) flag(flags, it + last);
        }
}

/* The asynchronous rule (rule=async): each tile of colour `colour` (the
 * tiles' 2x2 pattern: (tx & 1) + 2 (ty & 1)) topples its cells in place,
 * in row order, each cell sending all its multiples of 4 at once. A tile
 * writes its own cells and the ring one cell around it; tiles of one colour
 * are a tile apart, so their rings never meet and the colour's tiles run in
 * parallel without atomics. Grains sent onto the border are lost (the sink).
 * Any topple in sweep k stores k in flags[k]: sweep k changed the grid. */
void topple_async(const struct omp_launch *L, void *const *args) {
    unsigned *g = args[0];
    int *flags = args[1];
    const int sweep = *(int *)args[2], w = *(int *)args[3], h = *(int *)args[4], colour = *(int *)args[5];
    const size_t W = (size_t)w;
#pragma omp parallel for collapse(2) schedule(dynamic)
    for (size_t ty = 0; ty < L->groups[1]; ty++)
        for (size_t tx = 0; tx < L->groups[0]; tx++) {
            if ((int)((tx & 1) + 2 * (ty & 1)) != colour) continue;
            const int x0 = 1 + (int)(tx * L->local[0]), y0 = 1 + (int)(ty * L->local[1]);
            const int x1 = x0 + (int)L->local[0] < w - 1 ? x0 + (int)L->local[0] : w - 1;
            const int y1 = y0 + (int)L->local[1] < h - 1 ? y0 + (int)L->local[1] : h - 1;
            int changed = 0;
            for (int y = y0; y < y1; y++)
                for (int x = x0; x < x1; x++) {
                    unsigned *c = g + (size_t)y * W + (size_t)x;
                    const unsigned q = *c >> 2;
                    if (!q) continue;
                    changed = 1;
                    *c &= 3u;
                    if (y > 1) c[-(long)W] += q;
                    if (y < h - 2) c[W] += q;
                    if (x > 1) c[-1] += q;
                    if (x < w - 2) c[1] += q;
                }
            if (changed) flag(flags, sweep);
        }
}
