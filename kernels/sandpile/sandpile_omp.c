/* Sandpile kernels for the OpenMP backend: the same names, arguments and
 * results as sandpile_gpu.h, written as loops over tiles (the work-group
 * shape read as a tile shape), plus the asynchronous in-place rule that
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

void topple(const struct omp_launch *L, void *const *args) {
    const unsigned *in = args[0];
    unsigned *out = args[1];
    int *flags = args[2];
    const int it = *(int *)args[3], w = *(int *)args[4], row0 = *(int *)args[6], row1 = *(int *)args[7];
    const size_t W = (size_t)w;
#pragma omp parallel for collapse(2) schedule(static)
    for (size_t ty = 0; ty < L->groups[1]; ty++)
        for (size_t tx = 0; tx < L->groups[0]; tx++) {
            int x0 = 1 + (int)(tx * L->local[0]), x1 = x0 + (int)L->local[0];
            int y0 = row0 + (int)(ty * L->local[1]), y1 = y0 + (int)L->local[1];
            if (x1 > w - 1) x1 = w - 1;
            if (y1 > row1) y1 = row1;
            unsigned over = 0;
            for (int y = y0; y < y1; y++) {
                const unsigned *c = in + (size_t)y * W, *n = c - W, *s = c + W;
                unsigned *o = out + (size_t)y * W;
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
            }
            if (over) flag(flags, it);
        }
}

/* Temporal blocking, as topple_tiled in sandpile_gpu.h: a tile of
 * local[0] x local[1] cells copied into the thread's own two buffers,
 * nsteps <= K_STEPS steps there, the inner cells written back. */
void topple_tiled(const struct omp_launch *L, void *const *args) {
    const unsigned *in = args[0];
    unsigned *out = args[1];
    int *flags = args[2];
    const int it = *(int *)args[3], nsteps = *(int *)args[4], w = *(int *)args[5], h = *(int *)args[6];
    const int row0 = *(int *)args[7], row1 = *(int *)args[8];
    const int bw = (int)L->local[0], bh = (int)L->local[1], iw = bw - 2 * K_STEPS, ih = bh - 2 * K_STEPS;
    const size_t W = (size_t)w, cells = (size_t)bw * (size_t)bh;
#pragma omp parallel
    {
        unsigned *a = malloc(2 * cells * sizeof *a), *b = a ? a + cells : NULL;
        if (!a) abort(); /* out of memory: a crash, recorded as one */
#pragma omp for collapse(2) schedule(static)
        for (size_t ty = 0; ty < L->groups[1]; ty++)
            for (size_t tx = 0; tx < L->groups[0]; tx++) {
                const int gx = 1 + (int)tx * iw - K_STEPS, gy = row0 + (int)ty * ih - K_STEPS;
                for (int ly = 0; ly < bh; ly++)
                    for (int lx = 0; lx < bw; lx++) {
                        const int x = gx + lx, y = gy + ly;
                        const int cell = x >= 1 && x < w - 1 && y >= 1 && y < h - 1;
                        a[ly * bw + lx] = cell ? in[(size_t)y * W + (size_t)x] : 0u;
                    }
                memcpy(b, a, cells * sizeof *a); /* the edge cells keep their values in both */
                /* The inner cells' rows and columns within the tile, cut to
                 * the grid's interior and the rows this launch owns. */
                int ix0 = K_STEPS, ix1 = K_STEPS + iw, iy0 = K_STEPS, iy1 = K_STEPS + ih;
                if (gx + ix0 < 1) ix0 = 1 - gx;
                if (gx + ix1 > w - 1) ix1 = w - 1 - gx;
                if (gy + iy1 > row1) iy1 = row1 - gy;
                if (gy + iy1 > h - 1) iy1 = h - 1 - gy;
                /* The cells that can be updated: inside the tile's edge and the grid's interior. */
                int ux0 = 1, ux1 = bw - 1, uy0 = 1, uy1 = bh - 1;
                if (gx + ux0 < 1) ux0 = 1 - gx;
                if (gx + ux1 > w - 1) ux1 = w - 1 - gx;
                if (gy + uy0 < 1) uy0 = 1 - gy;
                if (gy + uy1 > h - 1) uy1 = h - 1 - gy;
                int last = -1; /* the tile's last unstable step (sandpile_gpu.h: one flag a launch) */
                for (int s = 0; s < nsteps; s++) {
                    unsigned over = 0;
                    for (int ly = uy0; ly < uy1; ly++) {
                        const unsigned *c = a + ly * bw, *n = c - bw, *so = c + bw;
                        unsigned *o = b + ly * bw;
                        for (int lx = ux0; lx < ux1; lx++) o[lx] = SP_RULE(c[lx], n[lx], so[lx], c[lx + 1], c[lx - 1]);
                    }
                    for (int ly = iy0; ly < iy1; ly++)
                        for (int lx = ix0; lx < ix1; lx++) over |= b[ly * bw + lx] >> 2;
                    if (over) last = s;
                    unsigned *t = a;
                    a = b;
                    b = t;
                }
                if (last >= 0) flag(flags, it + last);
                for (int ly = iy0; ly < iy1; ly++)
                    memcpy(out + (size_t)(gy + ly) * W + (size_t)(gx + ix0), a + ly * bw + ix0,
                           (size_t)(ix1 - ix0) * sizeof *a);
            }
        free(a < b ? a : b);
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
