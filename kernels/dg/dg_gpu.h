/* The DG kernels for the work-item backends (OpenCL, CUDA): a work-item per
 * cell (x along i, y along j), or per column block for the time step's
 * reduction. dg.cl and dg.cu define the dialect (KERNEL, GLOBAL, GID_X,
 * GID_Y, DG_FN, DG_RESTRICT_KW, DG_UNROLL_ON/OFF) and include this file;
 * the arithmetic is dg_cell.h's. The work-group is a block of cells. */
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
