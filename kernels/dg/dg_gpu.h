/* The DG kernels for the work-item backends (OpenCL, CUDA): a work-item per
 * cell (x along i, y along j), or per column block for the time step's
 * reduction. dg.cl and dg.cu define the dialect (KERNEL, GLOBAL, GID_X,
 * GID_Y, DG_FN, DG_RESTRICT_KW, DG_UNROLL_ON/OFF; for the tiled form's
 * work-group memory LOCAL, LOCAL_PARAM, LOCAL_DECL, LID_X/Y, LSIZE_X/Y,
 * GROUP_X/Y, BARRIER) and include this file; the arithmetic is dg_cell.h's.
 * The work-group is a block of cells. */
#include "dg_cell.h"

#define DG_CELL_KERNEL(name)                                                                                           \
    KERNEL dg_##name(DG_PARAMS) {                                                                                      \
        const int i = (int)GID_X, j = (int)GID_Y;                                                                      \
        if (i < nx && j < ny) dg_cell_##name(DG_ARGS, i, j);                                                           \
    }
DG_CELL_KERNEL(grad)
#if DG_FORM_SPLIT
DG_CELL_KERNEL(conv_x)
DG_CELL_KERNEL(conv_y)
DG_CELL_KERNEL(conv_int)
DG_CELL_KERNEL(visc_x)
DG_CELL_KERNEL(visc_y)
DG_CELL_KERNEL(visc_int)
DG_CELL_KERNEL(rk)
#endif
#if DG_FORM_MERGED
DG_CELL_KERNEL(flux_x)
DG_CELL_KERNEL(flux_y)
DG_CELL_KERNEL(int_rk)
#endif
#if DG_FORM_FUSED
DG_CELL_KERNEL(fused)
#endif

#if DG_FORM_TILED
/* The cell (i, j) of the periodic mesh for i in [-1, nx], j in [-1, ny]. */
DG_FN long dg_wrap(int i, int j, int nx, int ny, int pitch) {
    i = i < 0 ? i + nx : i >= nx ? i - nx : i;
    j = j < 0 ? j + ny : j >= ny ? j - ny : j;
    return (long)j * pitch + i;
}

/* kernels=tiled (ours): the work-group's W x H block of cells, of which the
 * bw x bh inside the mesh count (the last blocks of a row or column are
 * cut by its edge), works in local memory (dg_tile_bytes, schedule.c):
 *   T   the block's q and a one-cell halo (left, right, below, above; no
 *       corners), 12 planes of (W + 2) x (H + 2) doubles, coefficient k of
 *       tile cell (x, y) at k TA + y (W + 2) + x: block cell (lx, ly) is
 *       tile cell (lx + 1, ly + 1)
 *   FX  the flux through each x face at both Gauss points, plane v*2+g of
 *       (W + 1) x H: face x of row y lies left of block cell (x, y), so the
 *       block's cells have faces 0 .. bw in a row
 *   FY  the y faces', plane v*2+g of W x (H + 1): face y of column x lies
 *       below block cell (x, y)
 * 1. The group copies T from q (a work-item a tile cell, strided; the halo
 *    wraps round the periodic mesh). Barrier.
 * 2. The (bw + 1) bh x faces and bw (bh + 1) y faces, 2 points each, are
 *    dealt out one point a work-item at a time (a face's two sides are the
 *    same code: only the points and the normal differ), each computed once
 *    in the group; the block's edge faces are also computed by the next
 *    block (1/W + 1/H of a face a cell more). Each work-item of a cell in
 *    the mesh then takes its volume integral (its own coefficients from T).
 *    Barrier.
 * 3. Each such work-item adds its four faces from FX and FY and updates
 *    q -> qn as the fused form does (dg_tile_update).
 * A work-item's values live within one phase, so the kernel needs far
 * fewer registers than the fused one (tests/unit/test_dg_cuda_compile.c). */
KERNEL dg_tiled(DG_PARAMS LOCAL_PARAM(tile)) {
    LOCAL_DECL(tile)
    const int W = (int)LSIZE_X, H = (int)LSIZE_Y, lx = (int)LID_X, ly = (int)LID_Y, me = ly * W + lx, items = W * H;
    const int i0 = (int)GROUP_X * W, j0 = (int)GROUP_Y * H;
    const int bw = nx - i0 < W ? nx - i0 : W, bh = ny - j0 < H ? ny - j0 : H;
    const long plane = (long)pitch * ny;
    const int TW = W + 2, TA = TW * (H + 2), XS = (W + 1) * H, YS = W * (H + 1), OX = DG_NC * TA, OY = OX + 8 * XS;
    LOCAL double *T = tile, *FX = tile + OX, *FY = tile + OY;

    /* 1: the tile */
    const int tw = bw + 2, tn = tw * (bh + 2);
    for (int t = me; t < tn; t += items) {
        const int ty = t / tw, tx = t - ty * tw;
        if ((tx == 0 || tx == tw - 1) && (ty == 0 || ty == bh + 1)) continue; /* a corner: no face of the block's */
        const long g = dg_wrap(i0 - 1 + tx, j0 - 1 + ty, nx, ny, pitch);
        const int o = ty * TW + tx;
        DG_UNROLL
        for (int k = 0; k < DG_NC; k++) T[k * TA + o] = q[k * plane + g];
    }
    BARRIER;

    /* 2: each face point once; x points first, t = (g bh + row)(bw + 1) + x,
     * then y points, t - nxp = (g (bh + 1) + y) bw + col */
    const int nxp = 2 * (bw + 1) * bh, np = nxp + 2 * bw * (bh + 1);
    for (int t = me; t < np; t += items) {
        int ax, ay, bx, by, o, stride;
        double xa, ya, xb, yb, nrx, nry;
        if (t < nxp) {
            const int x = t % (bw + 1), rest = t / (bw + 1), row = rest % bh, g = rest / bh;
            ax = x, ay = row + 1, bx = x + 1, by = row + 1; /* tile cells left and right of the face */
            xa = 1.0, xb = -1.0, ya = yb = g ? DG_GAUSS : -DG_GAUSS;
            nrx = DG_XSIGN, nry = 0.0;
            o = OX + g * XS + row * (W + 1) + x, stride = 2 * XS;
        } else {
            const int u = t - nxp, col = u % bw, rest = u / bw, y = rest % (bh + 1), g = rest / (bh + 1);
            ax = col + 1, ay = y, bx = col + 1, by = y + 1; /* below and above the face */
            xa = xb = g ? DG_GAUSS : -DG_GAUSS, ya = 1.0, yb = -1.0;
            nrx = 0.0, nry = 1.0;
            o = OY + g * YS + y * W + col, stride = 2 * YS;
        }
        const int a = ay * TW + ax, b = by * TW + bx;
        double ca[DG_NC], cb[DG_NC], f[DG_NV];
        DG_UNROLL
        for (int k = 0; k < DG_NC; k++) ca[k] = T[k * TA + a], cb[k] = T[k * TA + b];
        long sa = 0, sb = 0;
        if (visc) {
            sa = dg_wrap(i0 - 1 + ax, j0 - 1 + ay, nx, ny, pitch);
            sb = dg_wrap(i0 - 1 + bx, j0 - 1 + by, nx, ny, pitch);
        }
        dg_tile_point(s, P, plane, visc, ca, cb, sa, sb, xa, ya, xb, yb, nrx, nry, f);
        DG_UNROLL
        for (int v = 0; v < DG_NV; v++) tile[o + v * stride] = f[v];
    }
    const int inside = lx < bw && ly < bh, mine = (ly + 1) * TW + lx + 1;
    const long c = (long)(j0 + ly) * pitch + i0 + lx;
    double acc[DG_NC] = {0};
    if (inside) {
        double C[DG_NC];
        DG_UNROLL
        for (int k = 0; k < DG_NC; k++) C[k] = T[k * TA + mine];
        dg_tile_volume(s, P, plane, visc, c, C, acc);
    }
    BARRIER;

    /* 3: the faces, the update */
    if (inside) {
        double now[DG_NC], fr[8], fl[8], ft[8], fb[8];
        DG_UNROLL
        for (int k = 0; k < DG_NC; k++) now[k] = T[k * TA + mine];
        DG_UNROLL
        for (int k = 0; k < 8; k++) {
            fr[k] = FX[k * XS + ly * (W + 1) + lx + 1];
            fl[k] = FX[k * XS + ly * (W + 1) + lx];
            ft[k] = FY[k * YS + (ly + 1) * W + lx];
            fb[k] = FY[k * YS + ly * W + lx];
        }
        dg_tile_update(qn, q0, P, c, plane, stage, now, fr, fl, ft, fb, acc);
    }
}
#endif

KERNEL dg_rates(GLOBAL const double *q, GLOBAL double *part, GLOBAL const double *P, int nx, int ny, int pitch,
                int rows) {
    const int i = (int)GID_X, blk = (int)GID_Y;
    if (i < nx && blk * rows < ny) dg_rate_block(q, part, P, nx, ny, pitch, rows, i, blk);
}
KERNEL dg_fold(GLOBAL const double *in, GLOBAL double *out, int n) {
    const long m = (long)GID_X;
    if (m * DG_FOLD < n) dg_max_fold(in, out, n, m);
}
KERNEL dg_step(GLOBAL const double *in, GLOBAL double *P, int n) {
    if (GID_X == 0 && GID_Y == 0) dg_step_from(in, P, n);
}
