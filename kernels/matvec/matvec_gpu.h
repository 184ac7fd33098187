/* The mat-vec kernels for the GPU programming models. matvec.cl (OpenCL)
 * and matvec.cu (CUDA) define the words that differ (KERNEL, GLOBAL, the
 * index macros, ATOMIC_ADD) and include this file, so both run the same
 * algorithm; the row arithmetic is matvec_cell.h, shared with the reference.
 *
 * The launch is two-dimensional, as the blog's OpenACC mapping: y is the
 * cell (gang), x the vector lane within the cell. Per cell there are
 * K_FORM's lanes: nl (temp, scalar: one lane per layer k) or nl * 8
 * (collapsed: one per (k, df), in the matrix's order: df fastest in
 * Fortran's layout, k fastest in the transposed one, so consecutive lanes
 * read consecutive matrix doubles); the host pads x to the work-group width
 * and y to the group height, and padded lanes return.
 *
 *   form=temp       the blog's original: lane k zeroes its lhs_e(:, k) in
 *                   global scratch (one slot of 8 x nl doubles per cell of
 *                   the launch, Fortran's lhs_e(df, k)), accumulates the 64
 *                   products into it in memory, then adds it to lhs.
 *   form=scalar     loops merged: one register accumulator per (k, df).
 *   form=collapsed  the (k, df) loops collapsed into the lanes.
 *   form=paired     collapsed with two rows a lane: lane (k, p) sums rows
 *                   df = 2p and 2p + 1 at layer k (nl * 4 lanes a cell).
 *                   In Fortran's layout A(2p, df2) and A(2p + 1, df2) are
 *                   adjacent, so each df2 is one 16-byte load (LOAD_M2), and
 *                   a warp's load covers 8 layers x 64 bytes: 512 bytes in
 *                   whole 32-byte sectors, against 256 bytes of 8-byte loads
 *                   in the collapsed form; half the load instructions and
 *                   x gathers per byte. The layer-fastest layout keeps the
 *                   rows nl doubles apart: two 8-byte loads, each coalesced
 *                   over k (k fastest across lanes).
 *   update=atomic   lhs updated with an atomic add (the blog's collapsed
 *                   version); plain: a load and a store, race-free only
 *                   where no two lanes running together write one dof
 *                   (one colour at a time: app.c's rule).
 *   colours=masked  one kernel over all colours (matvec_masked): y covers
 *                   6 x ncp_pad slots, colour = y / ncp_pad, and slots past
 *                   the colour's count return (the blog's ncp_color_max
 *                   mask); launches: matvec_colour once per colour.
 *   colours=none    one kernel over every cell in mesh order (matvec_all),
 *                   atomics only. Masked runs colour after colour, so the
 *                   4 cells sharing a vertex run about a sixth of the
 *                   kernel (45 MB or more of matrix) apart, and the x and
 *                   lhs lines they share have left the 50 MB L2 between
 *                   visits; in mesh order they run a row of cells (3 MB)
 *                   apart and hit.
 *
 * The includer defines LOAD_M2(p, a, b) (the paired form's 16-byte matrix
 * load of p[0], p[1] into a and b; evict-first under K_LOAD_STREAM where
 * the model can say so) and LDG(p) (a read-only load of x and map). */
#include "matvec_cell.h"

#if defined(K_UPDATE_ATOMIC)
#define LHS_ADD(p, v) ATOMIC_ADD((p), (v))
#else
#define LHS_ADD(p, v) (*(p) += (v))
#endif

/* Lane `lane` of the cell in slot `slot` (scratch: the temp form's slot). */
MV_FN void mv_lane(GLOBAL const double *matrix, GLOBAL const double *x, GLOBAL double *lhs, GLOBAL const int *map,
                   long cell, long slot, GLOBAL double *scratch, int lane, int nl) {
    GLOBAL const int *map2 = map + cell * MV_NDF;
#if defined(K_FORM_COLLAPSED) && defined(K_MATRIX_K_FASTEST)
    const int df = lane / nl, k = lane % nl; /* k fastest across lanes, as the matrix */
    if (df >= MV_NDF) return;
    const double s = mv_row(matrix, x, map2, cell, nl, df, k);
    LHS_ADD(&lhs[map2[df] + k], s);
#elif defined(K_FORM_PAIRED) && defined(K_MATRIX_K_FASTEST)
    const int p = lane / nl, k = lane % nl; /* k fastest across lanes, as the matrix */
    if (p >= MV_NDF / 2) return;
    const double s0 = mv_row(matrix, x, map2, cell, nl, 2 * p, k), s1 = mv_row(matrix, x, map2, cell, nl, 2 * p + 1, k);
    LHS_ADD(&lhs[map2[2 * p] + k], s0);
    LHS_ADD(&lhs[map2[2 * p + 1] + k], s1);
#elif defined(K_FORM_PAIRED)
    const int k = lane / (MV_NDF / 2), p = lane % (MV_NDF / 2);
    if (k >= nl) return;
    /* A(2p, df2) and A(2p + 1, df2): 16-byte aligned (a block is 512 bytes) */
    GLOBAL const double *a = matrix + (cell * nl + k) * (MV_NDF * MV_NDF) + 2 * p;
    /* All 8 loads (128 bytes a lane) issued before the first is used, then
     * the gathers (on CUDA with matvec.cu's launch bound, which leaves ptxas
     * the registers to keep them in flight). */
    double a0[MV_NDF], a1[MV_NDF], xv[MV_NDF];
    for (int df2 = 0; df2 < MV_NDF; df2++) LOAD_M2(a + MV_NDF * df2, a0[df2], a1[df2]);
    for (int df2 = 0; df2 < MV_NDF; df2++) xv[df2] = LDG(&x[LDG(&map2[df2]) + k]);
    double s0 = 0.0, s1 = 0.0;
    for (int df2 = 0; df2 < MV_NDF; df2++) { /* the pair's sum */
        s0 += a0[df2] * xv[df2];
        s1 += a1[df2] * xv[df2];
    }
    LHS_ADD(&lhs[map2[2 * p] + k], s0);
    LHS_ADD(&lhs[map2[2 * p + 1] + k], s1);
#elif defined(K_FORM_COLLAPSED)
    const int k = lane / MV_NDF, df = lane % MV_NDF;
    if (k >= nl) return;
    const double s = mv_row(matrix, x, map2, cell, nl, df, k);
    LHS_ADD(&lhs[map2[df] + k], s);
#elif defined(K_FORM_TEMP)
    const int k = lane;
    if (k >= nl) return;
    GLOBAL double *lhs_e = scratch + slot * (long)(MV_NDF * nl) + (long)MV_NDF * k;
    for (int df = 0; df < MV_NDF; df++) lhs_e[df] = 0.0;
    for (int df = 0; df < MV_NDF; df++)
        for (int df2 = 0; df2 < MV_NDF; df2++) lhs_e[df] += matrix[mv_at(cell, nl, df, df2, k)] * x[map2[df2] + k];
    for (int df = 0; df < MV_NDF; df++) LHS_ADD(&lhs[map2[df] + k], lhs_e[df]);
#else /* scalar */
    const int k = lane;
    if (k >= nl) return;
    for (int df = 0; df < MV_NDF; df++) {
        const double s = mv_row(matrix, x, map2, cell, nl, df, k);
        LHS_ADD(&lhs[map2[df] + k], s);
    }
#endif
}

/* One colour: cells cmap[base .. base + ncp). */
KERNEL matvec_colour(GLOBAL const double *matrix, GLOBAL const double *x, GLOBAL double *lhs, GLOBAL const int *map,
                     GLOBAL const int *cmap, GLOBAL double *scratch, int base, int ncp, int nl) {
    const int n = (int)GID_Y;
    if (n >= ncp) return;
    mv_lane(matrix, x, lhs, map, cmap[base + n], n, scratch, (int)GID_X, nl);
}

/* Every colour in one launch: slot y is cell y % ncp_pad of colour
 * y / ncp_pad, masked beyond that colour's count. */
KERNEL matvec_masked(GLOBAL const double *matrix, GLOBAL const double *x, GLOBAL double *lhs, GLOBAL const int *map,
                     GLOBAL const int *cmap, GLOBAL const int *ncp, GLOBAL double *scratch, int ncp_max, int ncp_pad,
                     int nl) {
    const int y = (int)GID_Y, colour = y / ncp_pad, n = y % ncp_pad;
    if (colour >= 6 || n >= ncp[colour]) return;
    const long slot = (long)colour * ncp_max + n;
    mv_lane(matrix, x, lhs, map, cmap[slot], slot, scratch, (int)GID_X, nl);
}

/* Every cell in mesh order, no colouring (update=atomic: app.c): cell y. */
KERNEL matvec_all(GLOBAL const double *matrix, GLOBAL const double *x, GLOBAL double *lhs, GLOBAL const int *map,
                  GLOBAL double *scratch, int ncells, int nl) {
    const int cell = (int)GID_Y;
    if (cell >= ncells) return;
    mv_lane(matrix, x, lhs, map, cell, cell, scratch, (int)GID_X, nl);
}
