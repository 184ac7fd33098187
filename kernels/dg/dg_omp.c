/* DG kernels for the OpenMP (CPU) backend: dg_loops.h's entry points with
 * OpenMP's loops for a CPU. Built at run time with cc -fopenmp and the knob
 * -D flags (schedule.c). The work-group shape is a tile of cells: a thread
 * takes W x H cells at a time (tiles over the mesh, schedule(static)), the
 * rows of a tile one after another. */
#define GLOBAL
#define DG_FN static inline
#define DG_RESTRICT_KW restrict
#if defined(__clang__)
#define DG_UNROLL_ON _Pragma("unroll")
#define DG_UNROLL_OFF _Pragma("unroll 1")
#else
#define DG_UNROLL_ON _Pragma("GCC unroll 16")
#define DG_UNROLL_OFF _Pragma("GCC unroll 1")
#endif

#define DG_CELLS_LOOP(name)                                                                                            \
    const int tw = L->local[0] > 0 ? (int)L->local[0] : 1, th = L->local[1] > 0 ? (int)L->local[1] : 1;                \
    _Pragma("omp parallel for collapse(2) schedule(static)") for (int tj = 0; tj < ny; tj += th) for (int ti = 0;      \
                                                                                                  ti < nx; ti += tw) { \
        const int je = tj + th < ny ? tj + th : ny, ie = ti + tw < nx ? ti + tw : nx;                                  \
        for (int j = tj; j < je; j++)                                                                                  \
            for (int i = ti; i < ie; i++) dg_cell_##name(DG_ARGS, i, j);                                               \
    }
#define DG_RATES_LOOP                                                                                                  \
    _Pragma("omp parallel for collapse(2) schedule(static)") for (int blk = 0; blk < blocks; blk++) for (int i = 0;    \
                                                                                                  i < nx; i++)         \
        dg_rate_block(q, part, P, nx, ny, pitch, rows, i, blk);
#define DG_FOLD_LOOP                                                                                                   \
    _Pragma("omp parallel for schedule(static)") for (long m = 0; m < folds; m++) dg_max_fold(in, out, n, m);
#define DG_STEP_REGION dg_step_from(in, P, n);
#include "dg_loops.h"
