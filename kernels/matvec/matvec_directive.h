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
 * knob settings a directive device cannot honour, with the reason.
 *
 * OpenACC's launch (app.c's knobs params and async; refused on OpenMP target):
 *   async=on        every region async(1): the launch returns at once and the
 *                   schedule's finish waits (offload_rt.c's ort_wait,
 *                   acc_wait_all), so a repetition's products queue back to back;
 *   params=globals  the regions name no variable (K_PARAMS_GLOBALS below), so
 *                   GCC's runtime makes no argument block for them;
 *   atomics=ptx     update=atomic's add as PTX's red.global.add.f64 (below). */
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
#if defined(MV_ACC) && defined(K_ASYNC_ON)
#define MV_ASYNC async(1)
#else
#define MV_ASYNC
#endif

#if defined(MV_ACC)
#define MV_DEVICE_BEGIN
#define MV_DEVICE_END
/* mv_row and mv_at run in one lane each; mv_cell spreads its own loop over
 * the vector lanes, so it is a vector routine called from the gang loop. */
#define MV_FN P(acc routine seq) static inline
#define MV_CELL_FN P(acc routine vector) static inline
#define MV_PAR_CELLS                                                                                                   \
    P(acc parallel loop gang num_gangs(MV_GANGS(ncp)) vector_length(K_WG_X)                                            \
          deviceptr(matrix, x, lhs, map, cmap, scratch) MV_ASYNC)
#define MV_PAR_SLOTS                                                                                                   \
    P(acc parallel loop gang collapse(2) num_gangs(MV_GANGS(ncolours * ncp_max)) vector_length(K_WG_X)                 \
          deviceptr(matrix, x, lhs, map, cmap, ncp, scratch) MV_ASYNC)
#define MV_PAR_ALL                                                                                                     \
    P(acc parallel loop gang num_gangs(MV_GANGS(ncells)) vector_length(K_WG_X) deviceptr(matrix, x, lhs, map, scratch) \
          MV_ASYNC)
#define MV_LANES P(acc loop vector)
#define MV_LANES2 P(acc loop vector collapse(2))
#define MV_ATOMIC(dst) P(acc atomic update) dst
#if defined(K_ATOMICS_PTX)
/* atomics=ptx: GCC 12 has no nvptx pattern for a double's atomic add, so
 * `acc atomic update` of lhs is a compare-and-swap loop (a load, an add, a
 * CAS, again on a lost race: ATOM.E.CAS.64 in the SASS), where CUDA's
 * atomicAdd is one REDG.E.ADD.F64. This is that instruction, PTX's
 * red.global.add.f64, in one line of inline assembly. The host compiler sees the
 * same source: acc_on_device(acc_device_not_host) folds to 0 there and the
 * line is dropped before it reaches the host assembler (the host fallback
 * keeps the pragma); the offload compiler folds it to 1. Spelled as the
 * builtin: under -std=c11 GCC does not take the plain name for one, and
 * the host assembler met the PTX. */
#include <openacc.h>
P(acc routine seq)
static inline void mv_red_add(double *p, double v) {
    if (__builtin_acc_on_device(acc_device_not_host)) {
        /* lhs is device memory (acc_malloc): its global address, so that
         * ptxas need not also handle a shared one (a CAS loop behind a
         * branch on the generic address's space). */
        __asm__ volatile("{ .reg .u64 g; cvta.to.global.u64 g, %0; red.global.add.f64 [g], %1; }"
                         :
                         : "r"(p), "r"(v)
                         : "memory");
    } else {
        P(acc atomic update)
        *p += v;
    }
}
#define MV_ATOMIC_ADD(p, v) mv_red_add((p), (v))
#endif
#elif defined(MV_OMP)
#if defined(K_PARAMS_GLOBALS) || defined(K_ASYNC_ON) || defined(K_ATOMICS_PTX)
#error "params=globals, async=on and atomics=ptx are OpenACC's (app.c refuses them on OpenMP target)"
#endif
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

#if defined(K_PARAMS_GLOBALS)
/* params=globals: what a region reads lives in a device global, so that a
 * region names no variable. Otherwise GCC's runtime (libgomp's nvptx plugin)
 * allocates an argument block for every region that names one (deviceptr
 * pointers and scalars count), copies it, launches, and frees it: about
 * 80 us a waited region on an H100 (a v6-paired product at 30x20x40, whose
 * kernel takes ~5 us, took 88 us), and with async(1) it still waits for the
 * host at each region. As LBM's a07-globals (kernels/lbm/lbm_directive.h):
 *  - the pointers and integers in an `acc declare create` struct, sent with
 *    the runtime's acc_update_device only when they differ from what was sent
 *    last (GCC 12 lowers `acc update device(g)` of a declare-create global to
 *    an update of nothing); the schedule launches with the same buffers every
 *    product, so that is once an execution;
 *  - read inside a region only through an `acc routine seq` function (a
 *    global named inside a compute region is mapped there like any variable);
 *  - the gang count in num_gangs, which is the launch's dimension, evaluated
 *    on the host, not a mapping.
 * Checked with GCC 12.2, -fdump-tree-ompexp (`gcc-12 -O3 -std=c11 -fopenacc
 * -foffload=nvptx-none -DK_FORM_PAIRED=1 -DK_UPDATE_ATOMIC=1 -DK_COLOURS_NONE=1
 * -DK_WG_X=64 -DK_WG_Y=2 [-DK_PARAMS_GLOBALS=1] [-DK_ASYNC_ON=1] -c`, v6-paired
 * at 64x2; the third argument is the variables mapped): with clauses
 *   GOACC_parallel_keyed (-1, mv_all._omp_fn.0, 7, &.omp_data_arr.81, ...)
 *   GOACC_parallel_keyed (-1, mv_masked._omp_fn.0, 10, &.omp_data_arr.53, ...)
 * (mv_all's 7: the five pointers, ncells and nl), with params=globals
 *   GOACC_parallel_keyed (-1, mv_all_globals._omp_fn.0, 0, 0B, 0B, 0B, 268435457, iftmp.3_3, 0)
 *   GOACC_parallel_keyed (-1, mv_masked_globals._omp_fn.0, 0, 0B, 0B, 0B, 268435457, iftmp.28_5, 0)
 * (268435457: GOMP_LAUNCH_DIM, the gang count after it); async=on adds
 * 536870913 (GOMP_LAUNCH_ASYNC, queue 1) before the final 0, to either.
 * colours=launches is refused with it (app.c): base and count change every
 * launch. */
#include <openacc.h>
#include <stdio.h>
#include <stdlib.h>

struct mv_params {
    const double *matrix, *x;
    double *lhs, *scratch;
    const int *map, *cmap, *ncp;
    int ncells, ncp_max, nl;
};
static struct mv_params mv_g; /* the host's copy: what was sent last */
static int mv_g_sent;
P(acc declare create(mv_g))

MV_FN struct mv_params mv_params(void) { return mv_g; }

static int mv_params_same(const struct mv_params *a, const struct mv_params *b) {
    return a->matrix == b->matrix && a->x == b->x && a->lhs == b->lhs && a->scratch == b->scratch && a->map == b->map &&
           a->cmap == b->cmap && a->ncp == b->ncp && a->ncells == b->ncells && a->ncp_max == b->ncp_max &&
           a->nl == b->nl;
}

/* Sends p unless it is what the device has. A queued region may still read
 * the old values (a new execution's buffers: the schedule has waited by then,
 * but this does not rely on it), so the update waits for every queue first. */
static void mv_params_send(const struct mv_params *p) {
    if (mv_g_sent && mv_params_same(p, &mv_g)) return;
    acc_wait_all();
    mv_g = *p;
    acc_update_device(&mv_g, sizeof mv_g);
    mv_g_sent = 1;
}

/* The regions as LBM's GLOBAL_STEP: the struct read once a gang, its fields
 * copied into scalars and restrict pointers, which the gang's vector lanes
 * share as registers when it calls mv_cell; the pragma on a line of its own. */
#define MV_GLOBALS_UNPACK()                                                                                            \
    const struct mv_params p = mv_params();                                                                            \
    const double *restrict matrix = p.matrix, *restrict x = p.x;                                                       \
    double *lhs = p.lhs, *scratch = p.scratch;                                                                         \
    const int *map = p.map, *cmap = p.cmap, *ncp = p.ncp;                                                              \
    const int nl = p.nl;                                                                                               \
    (void)cmap, (void)ncp

/* clang-format off */
/* Every cell in mesh order (mv_all's loop), H cells a gang. */
static void mv_all_globals(int ncells, int chunk) {
    P(acc parallel num_gangs(MV_GANGS(ncells)) vector_length(K_WG_X) MV_ASYNC)
    {
        MV_GLOBALS_UNPACK();
        const int cells = p.ncells;
        P(acc loop gang)
        for (int cell = 0; cell < cells; cell++)
            mv_cell(matrix, x, lhs, map, cell, scratch + (long)cell * MV_NDF * nl, nl);
    }
}

/* Every colour at once, slots past a colour's count masked (mv_masked's loop). */
static void mv_masked_globals(int ncolours, int ncp_max, int chunk) {
    P(acc parallel num_gangs(MV_GANGS(ncolours * ncp_max)) vector_length(K_WG_X) MV_ASYNC)
    {
        MV_GLOBALS_UNPACK();
        const int slots = p.ncp_max;
        P(acc loop gang collapse(2))
        for (int colour = 0; colour < 6 /* MV_COLOURS */; colour++)
            for (int n = 0; n < slots; n++)
                if (n < ncp[colour]) {
                    const long slot = (long)colour * slots + n;
                    mv_cell(matrix, x, lhs, map, cmap[slot], scratch + slot * MV_NDF * nl, nl);
                }
    }
}
/* clang-format on */

/* The entry points of matvec_entry.h, with its arguments. */
/* args: matrix, x, lhs, map, scratch, ncells, nl */
void matvec_all(const struct omp_launch *L, void *const *args) {
    (void)L;
    const struct mv_params p = {.matrix = args[0],
                                .x = args[1],
                                .lhs = args[2],
                                .map = args[3],
                                .scratch = args[4],
                                .ncells = *(int *)args[5],
                                .nl = *(int *)args[6]};
    mv_params_send(&p);
    mv_all_globals(p.ncells, K_WG_Y);
}

/* args: matrix, x, lhs, map, cmap, ncp, scratch, ncp_max, ncp_pad, nl */
void matvec_masked(const struct omp_launch *L, void *const *args) {
    (void)L;
    const struct mv_params p = {.matrix = args[0],
                                .x = args[1],
                                .lhs = args[2],
                                .map = args[3],
                                .cmap = args[4],
                                .ncp = args[5],
                                .scratch = args[6],
                                .ncp_max = *(int *)args[7],
                                .nl = *(int *)args[9]};
    mv_params_send(&p);
    mv_masked_globals(6 /* MV_COLOURS */, p.ncp_max, K_WG_Y);
}

/* Looked up with the others by schedule.c, never launched: app.c refuses
 * colours=launches with params=globals. */
void matvec_colour(const struct omp_launch *L, void *const *args) {
    (void)L, (void)args;
    fprintf(stderr, "matvec_colour: params=globals runs colours=none or masked only (app.c refuses launches)\n");
    abort();
}
#else
/* Every gang / team takes H cells. */
#define MV_CHUNK(L) ((void)(L), K_WG_Y)
#include "matvec_entry.h"
#endif
