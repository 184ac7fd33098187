/* The mat-vec as plain C loop nests, for the directive-based backends: the
 * OpenMP CPU kernels (matvec_omp.c) include it, and an OpenACC or OpenMP
 * target source can include it too, defining the directive macros below its
 * own way; the loops, the per-cell work and the row arithmetic
 * (matvec_cell.h) stay one text.
 *
 * The loop structure is the blog's: colours outside (the host launches one
 * colour at a time), cells of the colour in parallel (gangs), then the
 * layer loop (vector lanes), or the layer and df loops collapsed into the
 * lanes; or colour and cell collapsed into one parallel loop with a mask.
 *
 * Directive macros (each expands to a _Pragma or to nothing):
 *   MV_PAR_CELLS   the parallel loop over a colour's cells (gang level)
 *   MV_PAR_SLOTS   the masked form's parallel loop over colour x slot
 *                  (collapse(2))
 *   MV_PAR_ALL     colours=none's parallel loop over every cell (ncells of
 *                  them), mesh order
 *   MV_LANES       the layer loop (vector level) of forms temp and scalar
 *   MV_LANES2      the collapsed layer x df loops (collapse(2))
 *   MV_ATOMIC(dst) an lhs update's target, after the atomic directive when
 *                  update=atomic: `_Pragma("omp atomic update") dst`
 *   MV_ATOMIC_ADD(p, v)  (optional) the atomic update as a call instead,
 *                  *p += v: OpenACC's atomics=ptx (matvec_directive.h)
 *   MV_CELL_FN     (optional) how mv_cell is declared: `static inline` unless
 *                  defined; OpenACC adds `acc routine vector`, as
 *                  matvec_cell.h's MV_FN takes `acc routine seq`
 *   MV_DEVICE_BEGIN, MV_DEVICE_END  (optional) around the functions a device
 *                  runs (matvec_cell.h's and mv_cell), not the loops that
 *                  launch them: OpenMP target's `declare target` pair
 * The pointers are named matrix, x, lhs, map, cmap, ncp and scratch in every
 * nest, so a macro may name them (OpenACC deviceptr(...), present(...)).
 * Knob defines: K_FORM_TEMP / K_FORM_SCALAR / K_FORM_COLLAPSED / K_FORM_PAIRED,
 * K_UPDATE_ATOMIC, K_MATRIX_K_FASTEST (mv_at). load=stream is a GPU kernel's
 * load hint (matvec_gpu.h) and changes nothing here. */
#ifndef MATVEC_LOOPS_H
#define MATVEC_LOOPS_H
#include <stddef.h>

#ifndef MV_DEVICE_BEGIN
#define MV_DEVICE_BEGIN
#define MV_DEVICE_END
#endif

MV_DEVICE_BEGIN
#include "matvec_cell.h"

#ifndef MV_CELL_FN
#define MV_CELL_FN static inline
#endif

#if defined(K_UPDATE_ATOMIC) && defined(MV_ATOMIC_ADD)
#define MV_UPDATE(dst, v) MV_ATOMIC_ADD(&(dst), (v))
#elif defined(K_UPDATE_ATOMIC)
#define MV_UPDATE(dst, v) MV_ATOMIC(dst) += (v)
#else
#define MV_UPDATE(dst, v) (dst) += (v)
#endif

/* All of one cell's layers: lhs(map(df) + k) += row df at layer k. lhs_e is
 * the temp form's per-cell scratch (8 x nl doubles, Fortran's lhs_e(df, k)). */
MV_CELL_FN void mv_cell(const double *restrict matrix, const double *restrict x, double *lhs, const int *map, long cell,
                        double *lhs_e, int nl) {
    const int *map2 = map + cell * MV_NDF;
#if defined(K_FORM_TEMP)
    MV_LANES
    for (int k = 0; k < nl; k++) {
        double *le = lhs_e + (long)MV_NDF * k;
        for (int df = 0; df < MV_NDF; df++) le[df] = 0.0;
        for (int df = 0; df < MV_NDF; df++)
            for (int df2 = 0; df2 < MV_NDF; df2++) le[df] += matrix[mv_at(cell, nl, df, df2, k)] * x[map2[df2] + k];
        for (int df = 0; df < MV_NDF; df++) MV_UPDATE(lhs[map2[df] + k], le[df]);
    }
#elif defined(K_FORM_COLLAPSED) && defined(K_MATRIX_K_FASTEST)
    MV_LANES2
    for (int df = 0; df < MV_NDF; df++) /* k innermost, as the matrix */
        for (int k = 0; k < nl; k++) {
            const double s = mv_row(matrix, x, map2, cell, nl, df, k);
            MV_UPDATE(lhs[map2[df] + k], s);
        }
#elif defined(K_FORM_PAIRED) && defined(K_MATRIX_K_FASTEST)
    MV_LANES2
    for (int p = 0; p < MV_NDF / 2; p++) /* k innermost, as the matrix */
        for (int k = 0; k < nl; k++) {
            const double s0 = mv_row(matrix, x, map2, cell, nl, 2 * p, k);
            const double s1 = mv_row(matrix, x, map2, cell, nl, 2 * p + 1, k);
            MV_UPDATE(lhs[map2[2 * p] + k], s0);
            MV_UPDATE(lhs[map2[2 * p + 1] + k], s1);
        }
#elif defined(K_FORM_PAIRED)
    /* the GPU kernel's lanes (k, pair p): rows 2p and 2p + 1 at layer k */
    MV_LANES2
    for (int k = 0; k < nl; k++)
        for (int p = 0; p < MV_NDF / 2; p++) {
            const double s0 = mv_row(matrix, x, map2, cell, nl, 2 * p, k);
            const double s1 = mv_row(matrix, x, map2, cell, nl, 2 * p + 1, k);
            MV_UPDATE(lhs[map2[2 * p] + k], s0);
            MV_UPDATE(lhs[map2[2 * p + 1] + k], s1);
        }
#elif defined(K_FORM_COLLAPSED)
    MV_LANES2
    for (int k = 0; k < nl; k++)
        for (int df = 0; df < MV_NDF; df++) {
            const double s = mv_row(matrix, x, map2, cell, nl, df, k);
            MV_UPDATE(lhs[map2[df] + k], s);
        }
#else /* scalar */
    MV_LANES
    for (int k = 0; k < nl; k++)
        for (int df = 0; df < MV_NDF; df++) {
            const double s = mv_row(matrix, x, map2, cell, nl, df, k);
            MV_UPDATE(lhs[map2[df] + k], s);
        }
#endif
    (void)lhs_e;
}
MV_DEVICE_END

/* One colour: cells cmap[base .. base + ncp); `chunk` cells at a time per
 * thread where the directive asks for it. */
static inline void mv_colour(const double *restrict matrix, const double *restrict x, double *lhs, const int *map,
                             const int *cmap, double *scratch, int base, int ncp, int nl, int chunk) {
    (void)chunk;
    MV_PAR_CELLS
    for (int n = 0; n < ncp; n++) mv_cell(matrix, x, lhs, map, cmap[base + n], scratch + (long)n * MV_NDF * nl, nl);
}

/* Every colour at once, the blog's last step: colour x slot collapsed, slots
 * past a colour's count masked. Needs update=atomic (app.c). */
static inline void mv_masked(const double *restrict matrix, const double *restrict x, double *lhs, const int *map,
                             const int *cmap, const int *ncp, double *scratch, int ncolours, int ncp_max, int nl,
                             int chunk) {
    (void)chunk;
    MV_PAR_SLOTS
    for (int colour = 0; colour < ncolours; colour++)
        for (int n = 0; n < ncp_max; n++)
            if (n < ncp[colour]) {
                const long slot = (long)colour * ncp_max + n;
                mv_cell(matrix, x, lhs, map, cmap[slot], scratch + slot * MV_NDF * nl, nl);
            }
}

/* Every cell in mesh order, no colouring: neighbours run close together, so
 * the x and lhs they share are still in cache. Needs update=atomic (app.c). */
static inline void mv_all(const double *restrict matrix, const double *restrict x, double *lhs, const int *map,
                          double *scratch, int ncells, int nl, int chunk) {
    (void)chunk;
    MV_PAR_ALL
    for (int cell = 0; cell < ncells; cell++)
        mv_cell(matrix, x, lhs, map, cell, scratch + (long)cell * MV_NDF * nl, nl);
}
#endif
