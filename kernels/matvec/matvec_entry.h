/* The mat-vec kernels' entry points, in omp_kernel.h's ABI: the names and
 * arguments schedule.c launches on every backend, unpacked here once for
 * the sources that run matvec_loops.h (matvec_omp.c on a CPU, and
 * matvec_directive.h for OpenACC and OpenMP target). The includer defines
 * MV_CHUNK(L), the cells a thread (CPU) or gang / team (directives) takes at
 * a time. Buffer arguments are the device's addresses, scalars pointers to
 * their values (harness/backend/omp_kernel.h). */
#ifndef MATVEC_ENTRY_H
#define MATVEC_ENTRY_H
#include "omp_kernel.h"

/* args: matrix, x, lhs, map, cmap, scratch, base, ncp, nl */
void matvec_colour(const struct omp_launch *L, void *const *args) {
    mv_colour(args[0], args[1], args[2], args[3], args[4], args[5], *(int *)args[6], *(int *)args[7], *(int *)args[8],
              MV_CHUNK(L));
}

/* args: matrix, x, lhs, map, cmap, ncp, scratch, ncp_max, ncp_pad, nl */
void matvec_masked(const struct omp_launch *L, void *const *args) {
    mv_masked(args[0], args[1], args[2], args[3], args[4], args[5], args[6], 6 /* MV_COLOURS */, *(int *)args[7],
              *(int *)args[9], MV_CHUNK(L));
}

/* args: matrix, x, lhs, map, scratch, ncells, nl */
void matvec_all(const struct omp_launch *L, void *const *args) {
    mv_all(args[0], args[1], args[2], args[3], args[4], *(int *)args[5], *(int *)args[6], MV_CHUNK(L));
}
#endif
