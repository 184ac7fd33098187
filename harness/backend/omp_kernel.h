/* The ABI between the OpenMP backend and OpenMP kernel sources
 * (kernels/<app>/<app>_omp.c), which are compiled at run time into shared
 * objects. Each kernel is `void name(const struct omp_launch *L, void *const *args)`.
 * args[i] is the buffer's memory for a buffer argument, a pointer to the value
 * for an int or float, and NULL for work-group scratch (a kernel sizes its
 * own per-tile scratch from L->local). The work-group shape is a tile shape. */
#ifndef HARNESS_OMP_KERNEL_H
#define HARNESS_OMP_KERNEL_H
#include <stddef.h>
struct omp_launch {
    size_t global[2];
    size_t local[2];
    size_t groups[2]; /* global / local */
};

/* For OpenMP-target directive programs (built with -DK_WG_X=W): GCC's nvptx
 * OpenMP (libgomp manual, "nvptx") makes a team a CUDA block, a thread a
 * warp and `simd` the warp's 32 lanes, and thread_limit counts warps. So a
 * loop reaches every lane only as `parallel for simd` (without simd each
 * warp ran one lane: 1/32 of the GPU), W lanes are OMP_WARPS(W) threads, and
 * at W <= 32 no parallel region opens (OMP_PAR_FOR empty): a team is one warp
 * and its simd lanes take the loop (an empty `teams distribute parallel for`
 * region cost about 1 ms a launch on an H100; scripts/probes/
 * directive_copy_probe.c times the forms). */
#define OMP_WARPS(w) (((w) + 31) / 32)
#if defined(K_WG_X) && K_WG_X <= 32
#define OMP_PAR_FOR
#else
#define OMP_PAR_FOR parallel for
#endif
#endif
