/* The arithmetic of the coloured mat-vec, shared word for word by the serial
 * reference (reference.c), the OpenMP loops (matvec_loops.h) and the GPU
 * kernels (matvec_gpu.h through matvec.cl and matvec.cu): one row of one
 * cell's 8x8 block at one layer,
 *
 *     sum over df2 of matrix(df, df2, ik) * x(map2(df2) + k)
 *
 * with Fortran's layout matrix(df, df2, ik), df fastest, ik = cell*nl + k
 * (0-based here), as in the blog, or the layer-fastest one (mv_at). In
 * Fortran's, a row reads matrix entries 8 doubles apart; consecutive df are
 * consecutive doubles, which is why the blog's collapsed loop (df innermost
 * across threads) coalesces.
 *
 * Double precision throughout. Whether a compiler contracts s + a*b into a
 * fused multiply-add is left to it (NVRTC does by default, GCC at -O2 with
 * -std=c11 does not): verify.c's tolerance covers either, and covers the
 * reordered sums of the atomic variants. */
#ifndef MATVEC_CELL_H
#define MATVEC_CELL_H

#define MV_NDF 8 /* ndf1 = ndf2 = 8 */

/* MV_FN may be defined before this header (an OpenACC source: a routine
 * directive, `_Pragma("acc routine seq") static inline`). */
#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define MV_FN static __device__ __forceinline__
#define MV_GLOBAL
#elif defined(__OPENCL_VERSION__)
#define MV_FN static inline
#define MV_GLOBAL __global
#else
#ifndef MV_FN
#define MV_FN static inline
#endif
#define MV_GLOBAL
#endif

/* Where matrix(df, df2) of cell `cell` at layer k lives. Fortran's layout
 * (the blog's, and the host's: the input and the reference always use it)
 * has df fastest: (cell nl + k) 64 + 8 df2 + df. The layer-fastest layout
 * the blog tried ("ik as the fastest moving index", K_MATRIX_K_FASTEST,
 * uploaded transposed by schedule.c) is ((cell 8 + df2) 8 + df) nl + k, so
 * lanes that run over k read consecutive doubles. */
MV_FN long mv_at(long cell, int nl, int df, int df2, int k) {
#if defined(K_MATRIX_K_FASTEST)
    return ((cell * MV_NDF + df2) * MV_NDF + df) * nl + k;
#else
    return (cell * nl + k) * (MV_NDF * MV_NDF) + (long)MV_NDF * df2 + df;
#endif
}

/* Row df of the block of cell `cell` (map2: its MV_NDF first dofs) at layer k. */
MV_FN double mv_row(MV_GLOBAL const double *matrix, MV_GLOBAL const double *x, MV_GLOBAL const int *map2, long cell,
                    int nl, int df, int k) {
    double s = 0.0;
    for (int df2 = 0; df2 < MV_NDF; df2++) s += matrix[mv_at(cell, nl, df, df2, k)] * x[map2[df2] + k];
    return s;
}
#endif
