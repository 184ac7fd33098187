/* The mat-vec for the directive backends: matvec_loops.h's loop nests with
 * its directive hooks spelled for OpenACC (MV_ACC, matvec_acc.c) or OpenMP
 * target (MV_OMP, matvec_omptgt.c), and the kernels' entry points
 * (matvec_entry.h, shared with the OpenMP CPU source). The host schedule is
 * the app's own (schedule.c: a launch per colour, one masked launch, or one
 * launch over every cell for colours=none),
 * each launch here one compute region that returns when it is done.
 * Buffers are device addresses (harness/backend/offload/offload_rt.c),
 * taken through deviceptr / is_device_ptr, so a launch moves no data.
 *
 * The work-group shape WxH (harness/backend/README.md, the knob vocabulary),
 * compiled in as -DK_WG_X=W -DK_WG_Y=H by schedule.c because GCC takes
 * vector_length only as a constant:
 *   W  OpenACC vector_length(W): a cell's lanes (layers, or layers x df in
 *      the collapsed form) over the gang's vector lanes;
 *      OpenMP thread_limit(W): a cell's lanes over the team's threads
 *   H  cells a gang / team: num_gangs / num_teams = cells / H (the masked
 *      form: colour x slot pairs / H), the cells of a gang one after another
 *      (the rows-over-gangs row of the README's table, a cell as a row).
 * The forms (temp, scalar, collapsed, paired), update=atomic, colours=masked|none and
 * matrix=k-fastest are all matvec_loops.h's; app.c refuses the shapes and
 * knob settings a directive device cannot honour, with the reason. */
#include <stddef.h>

#include "omp_kernel.h"

#define P(x) P_(x)
#define P_(x) _Pragma(#x)

#if !defined(K_WG_X) || !defined(K_WG_Y)
#error "build with -DK_WG_X=W -DK_WG_Y=H (the work-group shape; schedule.c does on a directive device)"
#endif

/* Gangs / teams for n cells, `chunk` (= H, matvec_entry.h) each; a name of
 * mv_colour's and mv_masked's, where the hooks expand. At least one: a
 * num_gangs / num_teams of 0 is an error, not an empty loop. */
#define MV_GANGS(n) ((n) > 0 ? ((n) + chunk - 1) / chunk : 1)

/* Not formatted: clang-format reads a product in a clause as a pointer declarator. */
/* clang-format off */
#if defined(MV_ACC)
#define MV_DEVICE_BEGIN
#define MV_DEVICE_END
/* mv_row and mv_at run in one lane each; mv_cell spreads its own loop over
 * the vector lanes, so it is a vector routine called from the gang loop. */
#define MV_FN P(acc routine seq) static inline
#define MV_CELL_FN P(acc routine vector) static inline
#define MV_PAR_CELLS                                                                                                   \
    P(acc parallel loop gang num_gangs(MV_GANGS(ncp)) vector_length(K_WG_X)                                            \
          deviceptr(matrix, x, lhs, map, cmap, scratch))
#define MV_PAR_SLOTS                                                                                                   \
    P(acc parallel loop gang collapse(2) num_gangs(MV_GANGS(ncolours * ncp_max)) vector_length(K_WG_X)                 \
          deviceptr(matrix, x, lhs, map, cmap, ncp, scratch))
#define MV_PAR_ALL                                                                                                     \
    P(acc parallel loop gang num_gangs(MV_GANGS(ncells)) vector_length(K_WG_X) deviceptr(matrix, x, lhs, map, scratch))
#define MV_LANES P(acc loop vector)
#define MV_LANES2 P(acc loop vector collapse(2))
#define MV_ATOMIC(dst) P(acc atomic update) dst
#elif defined(MV_OMP)
/* The cell's functions are compiled for the device; mv_colour and
 * mv_masked, which hold the target regions, stay host functions. A cell's
 * lanes are `parallel for simd` over OMP_WARPS(W) threads (omp_kernel.h;
 * without simd each warp ran one lane: 1/32 of the GPU, 111x CUDA's time). */
#define MV_DEVICE_BEGIN P(omp declare target)
#define MV_DEVICE_END P(omp end declare target)
#define MV_PAR_CELLS                                                                                                   \
    P(omp target teams distribute num_teams(MV_GANGS(ncp)) thread_limit(OMP_WARPS(K_WG_X)) dist_schedule(static, chunk)           \
          is_device_ptr(matrix, x, lhs, map, cmap, scratch))
#define MV_PAR_SLOTS                                                                                                   \
    P(omp target teams distribute collapse(2) num_teams(MV_GANGS(ncolours * ncp_max)) thread_limit(OMP_WARPS(K_WG_X))             \
          dist_schedule(static, chunk) is_device_ptr(matrix, x, lhs, map, cmap, ncp, scratch))
#define MV_PAR_ALL                                                                                                     \
    P(omp target teams distribute num_teams(MV_GANGS(ncells)) thread_limit(OMP_WARPS(K_WG_X)) dist_schedule(static, chunk)        \
          is_device_ptr(matrix, x, lhs, map, scratch))
#define MV_LANES P(omp OMP_PAR_FOR simd)
#define MV_LANES2 P(omp OMP_PAR_FOR simd collapse(2))
#define MV_ATOMIC(dst) P(omp atomic update) dst
#else
#error "define MV_ACC or MV_OMP"
#endif
/* clang-format on */

#include "matvec_loops.h"

/* Every gang / team takes H cells. */
#define MV_CHUNK(L) ((void)(L), K_WG_Y)
#include "matvec_entry.h"
