/* Mat-vec kernels for the OpenMP (CPU) backend: the same kernel names,
 * arguments and results as matvec_gpu.h, calling the loop nests of
 * matvec_loops.h with OpenMP's directives for a CPU. Built at run time with
 * cc -fopenmp and the knob -D flags (schedule.c); see
 * harness/backend/omp_kernel.h for the calling convention.
 *
 * On a CPU a thread takes whole cells (the gang level); the lane loops run
 * in the thread, as `omp simd` where the updates are plain (an atomic inside
 * a simd loop is not OpenMP 4.5), so collapsed and scalar do the same work
 * in the same order here and differ only in the atomics. The work-group's
 * height is the number of cells a thread takes at a time (schedule(static,
 * chunk)); its width has no meaning on a CPU and is ignored. */
#include <stddef.h>

#include "omp_kernel.h"

#define MV_PAR_CELLS _Pragma("omp parallel for schedule(static, chunk)")
#define MV_PAR_SLOTS _Pragma("omp parallel for collapse(2) schedule(static, chunk)")
#define MV_PAR_ALL MV_PAR_CELLS
#define MV_ATOMIC(dst) _Pragma("omp atomic update") dst
#if defined(K_UPDATE_ATOMIC)
#define MV_LANES
#else
#define MV_LANES _Pragma("omp simd")
#endif
#define MV_LANES2 MV_LANES
#include "matvec_loops.h"

/* The cells a thread takes at a time: the work-group's height. */
#define MV_CHUNK(L) ((L)->local[1] > 0 ? (int)(L)->local[1] : 1)
#include "matvec_entry.h"
