/* The DG kernels as loop nests, in the OpenMP kernel ABI
 * (harness/backend/omp_kernel.h), for the backends that run loops: OpenMP
 * on the CPU (dg_omp.c) and the directive compilers (dg_directive.h:
 * OpenACC, OpenMP target). The includer defines the loop hooks:
 *   DG_CELLS_LOOP(name)  the loop nest over every cell (i, j) calling
 *                        dg_cell_<name>(DG_ARGS, i, j), with nx, ny and the
 *                        launch L in scope
 *   DG_RATES_LOOP, DG_FOLD_LOOP, DG_STEP_REGION   the time step's reduction
 * and the dialect of dg_cell.h (GLOBAL, DG_FN, DG_RESTRICT_KW, DG_UNROLL_*).
 * Each entry point unpacks the arguments schedule.c passes to every cell
 * kernel (buffers: device addresses; integers: pointers to them). */
#ifndef DG_LOOPS_H
#define DG_LOOPS_H
#include <math.h>
#include <stddef.h>

#include "omp_kernel.h"

#ifndef DG_DEVICE_BEGIN
#define DG_DEVICE_BEGIN
#define DG_DEVICE_END
#endif
DG_DEVICE_BEGIN
#include "dg_cell.h"
DG_DEVICE_END

#define DG_UNPACK(args)                                                                                                \
    double *DG_RESTRICT q = (double *)(args)[0], *DG_RESTRICT q0 = (double *)(args)[1];                                \
    double *DG_RESTRICT r = (double *)(args)[2], *DG_RESTRICT fx = (double *)(args)[3];                                \
    double *DG_RESTRICT fy = (double *)(args)[4], *DG_RESTRICT s = (double *)(args)[5];                                \
    double *DG_RESTRICT vx = (double *)(args)[6], *DG_RESTRICT vy = (double *)(args)[7];                               \
    double *DG_RESTRICT qn = (double *)(args)[8];                                                                      \
    const double *DG_RESTRICT P = (const double *)(args)[9];                                                           \
    const int nx = *(const int *)(args)[10], ny = *(const int *)(args)[11], pitch = *(const int *)(args)[12];          \
    const int stage = *(const int *)(args)[13], visc = *(const int *)(args)[14];                                       \
    (void)L

#define DG_ENTRY(name)                                                                                                 \
    void dg_##name(const struct omp_launch *L, void *const *args) {                                                    \
        DG_UNPACK(args);                                                                                               \
        DG_CELLS_LOOP(name)                                                                                            \
    }
DG_ENTRY(grad)
#if DG_FORM_SPLIT
DG_ENTRY(conv_x)
DG_ENTRY(conv_y)
DG_ENTRY(conv_int)
DG_ENTRY(visc_x)
DG_ENTRY(visc_y)
DG_ENTRY(visc_int)
DG_ENTRY(rk)
#endif
#if DG_FORM_MERGED
DG_ENTRY(flux_x)
DG_ENTRY(flux_y)
DG_ENTRY(int_rk)
#endif
#if DG_FORM_FUSED
DG_ENTRY(fused)
#endif

/* args: q, part, P, nx, ny, pitch, rows */
void dg_rates(const struct omp_launch *L, void *const *args) {
    const double *q = (const double *)args[0], *P = (const double *)args[2];
    double *part = (double *)args[1];
    const int nx = *(const int *)args[3], ny = *(const int *)args[4], pitch = *(const int *)args[5];
    const int rows = *(const int *)args[6], blocks = (ny + rows - 1) / rows;
    (void)L;
    DG_RATES_LOOP
}
/* args: in, out, n */
void dg_fold(const struct omp_launch *L, void *const *args) {
    const double *in = (const double *)args[0];
    double *out = (double *)args[1];
    const long n = *(const int *)args[2], folds = (n + DG_FOLD - 1) / DG_FOLD;
    (void)L;
    DG_FOLD_LOOP
}
/* args: in, P, n */
void dg_step(const struct omp_launch *L, void *const *args) {
    const double *in = (const double *)args[0];
    double *P = (double *)args[1];
    const long n = *(const int *)args[2];
    (void)L;
    DG_STEP_REGION
}
#endif
