/* The DG kernels for the directive backends: dg_loops.h's entry points with
 * the loops spelled for OpenACC (DG_ACC, dg_acc.c) or OpenMP target (DG_OMP,
 * dg_omptgt.c): each launch one compute region over every cell, the
 * buffers device addresses (deviceptr / is_device_ptr: no launch moves
 * data), the cell functions of dg_cell.h compiled for the device (`acc
 * routine seq` / `declare target`). The work-group shape W x H is compiled
 * in (-DK_WG_X=W -DK_WG_Y=H, schedule.c): W x H cells a gang's vector /
 * a team's threads (vector_length / thread_limit), as the block of cells
 * of the kernel backends. */
#include <math.h>
#include <stddef.h>

#include "omp_kernel.h"

#if !defined(K_WG_X) || !defined(K_WG_Y)
#error "build with -DK_WG_X=W -DK_WG_Y=H (the work-group shape; schedule.c does on a directive device)"
#endif
#define DG_VLEN (K_WG_X * K_WG_Y)
#define DG_PRAGMA(x) DG_PRAGMA_(x)
#define DG_PRAGMA_(x) _Pragma(#x)

#define GLOBAL
#define DG_RESTRICT_KW restrict
#define DG_UNROLL_ON _Pragma("GCC unroll 16")
#define DG_UNROLL_OFF _Pragma("GCC unroll 1")

/* clang-format off */
#if defined(DG_ACC)
#define DG_FN DG_PRAGMA(acc routine seq) static inline
#define DG_CELLS_LOOP(name)                                                                                            \
    DG_PRAGMA(acc parallel loop gang vector collapse(2) vector_length(DG_VLEN)                                         \
              deviceptr(q, q0, r, fx, fy, s, vx, vy, qn, P))                                                           \
    for (int j = 0; j < ny; j++)                                                                                       \
        for (int i = 0; i < nx; i++) dg_cell_##name(DG_ARGS, i, j);
#define DG_RATES_LOOP                                                                                                  \
    DG_PRAGMA(acc parallel loop gang vector collapse(2) vector_length(DG_VLEN) deviceptr(q, part, P))                  \
    for (int blk = 0; blk < blocks; blk++)                                                                             \
        for (int i = 0; i < nx; i++) dg_rate_block(q, part, P, nx, ny, pitch, rows, i, blk);
#define DG_FOLD_LOOP                                                                                                   \
    DG_PRAGMA(acc parallel loop gang vector vector_length(DG_VLEN) deviceptr(in, out))                                 \
    for (long m = 0; m < folds; m++) dg_max_fold(in, out, n, m);
#define DG_STEP_REGION                                                                                                 \
    DG_PRAGMA(acc serial deviceptr(in, P))                                                                             \
    { dg_step_from(in, P, n); }
#elif defined(DG_OMP)
#define DG_FN static inline
#define DG_DEVICE_BEGIN DG_PRAGMA(omp declare target)
#define DG_DEVICE_END DG_PRAGMA(omp end declare target)
#define DG_CELLS_LOOP(name)                                                                                            \
    DG_PRAGMA(omp target teams distribute OMP_PAR_FOR simd collapse(2) thread_limit(OMP_WARPS(DG_VLEN))                \
              is_device_ptr(q, q0, r, fx, fy, s, vx, vy, qn, P))                                                       \
    for (int j = 0; j < ny; j++)                                                                                       \
        for (int i = 0; i < nx; i++) dg_cell_##name(DG_ARGS, i, j);
#define DG_RATES_LOOP                                                                                                  \
    DG_PRAGMA(omp target teams distribute OMP_PAR_FOR simd collapse(2) thread_limit(OMP_WARPS(DG_VLEN))                \
              is_device_ptr(q, part, P))                                                                               \
    for (int blk = 0; blk < blocks; blk++)                                                                             \
        for (int i = 0; i < nx; i++) dg_rate_block(q, part, P, nx, ny, pitch, rows, i, blk);
#define DG_FOLD_LOOP                                                                                                   \
    DG_PRAGMA(omp target teams distribute OMP_PAR_FOR simd thread_limit(OMP_WARPS(DG_VLEN)) is_device_ptr(in, out))    \
    for (long m = 0; m < folds; m++) dg_max_fold(in, out, n, m);
#define DG_STEP_REGION                                                                                                 \
    DG_PRAGMA(omp target is_device_ptr(in, P))                                                                         \
    { dg_step_from(in, P, n); }
#else
#error "define DG_ACC or DG_OMP"
#endif
/* clang-format on */

#include "dg_loops.h"
