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
#endif
