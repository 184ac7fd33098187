/* Stencil kernels for the OpenMP backend: the same kernel names, arguments
 * and results as stencil_gpu.h, written as loops over tiles (the work-group
 * shape read as a tile shape) or over work-items. Built at run time with
 * cc -fopenmp, the knob -D flags and -ffp-contract=off (schedule.c); see
 * harness/backend/omp_kernel.h for the calling convention. The arithmetic is
 * stencil_point.h, shared with the serial reference.
 *
 * The min/max loops are `omp simd` reductions, which GCC vectorises where it
 * will not vectorise the plain selections (they differ from min/max for NaN
 * and for the sign of zero). Neither matters here: there are no NaNs, and a
 * -0 where the selections would keep +0 (or the reverse) is the same value,
 * so the range, its comparison with 100 and the iteration count are the
 * same (range = hi - lo gives hi either way). */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "omp_kernel.h"
#include "stencil_point.h"

#ifndef K_ROWS
#define K_ROWS 1
#endif

/* The interior rows and columns of tile (tx, ty): local[0] columns and
 * local[1] * K_ROWS rows (each work-item of the GPU kernels updates K_ROWS
 * points down its column, so the launch's y extent is h / K_ROWS). */
#define TILE_BOUNDS(L, w, h)                                                                     \
    int y0 = (int)(ty * (L)->local[1] * K_ROWS), y1 = (int)((ty + 1) * (L)->local[1] * K_ROWS);  \
    int x0 = (int)(tx * (L)->local[0]), x1 = (int)((tx + 1) * (L)->local[0]);                    \
    if (y0 < 1) y0 = 1;                                                                          \
    if (x0 < 1) x0 = 1;                                                                          \
    if (y1 > (h) - 1) y1 = (h) - 1;                                                              \
    if (x1 > (w) - 1) x1 = (w) - 1

void update(const struct omp_launch *L, void *const *args) {
    const float *in = args[0];
    float *out = args[1];
    const int w = *(int *)args[2], h = *(int *)args[3];
    const size_t W = (size_t)w;
#pragma omp parallel for collapse(2) schedule(static)
    for (size_t ty = 0; ty < L->groups[1]; ty++)
        for (size_t tx = 0; tx < L->groups[0]; tx++) {
            TILE_BOUNDS(L, w, h);
            for (int y = y0; y < y1; y++)
                for (int x = x0; x < x1; x++) {
                    const size_t i = (size_t)y * W + (size_t)x;
                    out[i] = stencil_point(in[i - W], in[i - 1], in[i + W], in[i + 1], in[i]);
                }
        }
}

/* The update and each tile's (min, max), started at 0, at partials[2*tile]. */
void update_range(const struct omp_launch *L, void *const *args) {
    const float *in = args[0];
    float *out = args[1], *partials = args[2];
    const int w = *(int *)args[3], h = *(int *)args[4];
    const size_t W = (size_t)w;
#pragma omp parallel for collapse(2) schedule(static)
    for (size_t ty = 0; ty < L->groups[1]; ty++)
        for (size_t tx = 0; tx < L->groups[0]; tx++) {
            TILE_BOUNDS(L, w, h);
            float lo = 0.0f, hi = 0.0f;
            for (int y = y0; y < y1; y++)
#pragma omp simd reduction(min : lo) reduction(max : hi)
                for (int x = x0; x < x1; x++) {
                    const size_t i = (size_t)y * W + (size_t)x;
                    const float v = stencil_point(in[i - W], in[i - 1], in[i + W], in[i + 1], in[i]);
                    out[i] = v;
                    lo = ST_LO(lo, v);
                    hi = ST_HI(hi, v);
                }
            const size_t group = ty * L->groups[0] + tx;
            partials[2 * group] = lo;
            partials[2 * group + 1] = hi;
        }
}

/* The npairs pairs reduced to one per group (a contiguous share each), at
 * result[2*group]. */
void range_finish(const struct omp_launch *L, void *const *args) {
    const float *partials = args[0];
    float *result = args[1];
    const long npairs = *(int *)args[2], ngroups = (long)L->groups[0];
    const long per = (npairs + ngroups - 1) / ngroups;
    for (long group = 0; group < ngroups; group++) {
        const long start = per * group, stop = start + per < npairs ? start + per : npairs;
        float lo = 0.0f, hi = 0.0f;
#pragma omp simd reduction(min : lo) reduction(max : hi)
        for (long g = start; g < stop; g++) {
            lo = ST_LO(lo, partials[2 * g]);
            hi = ST_HI(hi, partials[2 * g + 1]);
        }
        result[2 * group] = lo;
        result[2 * group + 1] = hi;
    }
}

/* Each of the global[0] work-items reduces a contiguous chunk. */
void range_chunked(const struct omp_launch *L, void *const *args) {
    const float *data = args[0];
    const long total = *(int *)args[1];
    float *range = args[2];
    const long nitems = (long)L->global[0], per = (total + nitems - 1) / nitems;
#pragma omp parallel for schedule(static)
    for (long gid = 0; gid < nitems; gid++) {
        const long start = per * gid, stop = start + per < total ? start + per : total;
        float lo = 0.0f, hi = 0.0f;
#pragma omp simd reduction(min : lo) reduction(max : hi)
        for (long i = start; i < stop; i++) {
            lo = ST_LO(lo, data[i]);
            hi = ST_HI(hi, data[i]);
        }
        range[2 * gid] = lo;
        range[2 * gid + 1] = hi;
    }
}

/* Each group owns a contiguous chunk; item j of the group takes elements
 * start+j, start+j+lsize, ... The group's items are run together here: the
 * chunk is scanned in order, element start+m going to item m % lsize, so
 * each item ends with exactly the values the GPU kernel gives it. */
static _Thread_local float *acc;
static _Thread_local size_t acc_cap;

void range_coalesced(const struct omp_launch *L, void *const *args) {
    const float *data = args[0];
    const long total = *(int *)args[1];
    float *range = args[2];
    const long ngroups = (long)L->groups[0], lsize = (long)L->local[0];
    const long per = (total + ngroups - 1) / ngroups;
#pragma omp parallel for schedule(static)
    for (long group = 0; group < ngroups; group++) {
        if ((size_t)(2 * lsize) > acc_cap) {
            free(acc);
            acc = malloc((size_t)(2 * lsize) * sizeof *acc);
            acc_cap = acc ? (size_t)(2 * lsize) : 0;
        }
        if (!acc) abort(); /* out of memory: a crash, recorded as one */
        float *lo = acc, *hi = acc + lsize;
        for (long j = 0; j < lsize; j++) lo[j] = hi[j] = 0.0f;
        const long start = per * group, stop = start + per < total ? start + per : total;
        for (long base = start; base < stop; base += lsize) {
            const long n = stop - base < lsize ? stop - base : lsize;
            for (long j = 0; j < n; j++) {
                lo[j] = ST_LO(lo[j], data[base + j]);
                hi[j] = ST_HI(hi[j], data[base + j]);
            }
        }
        for (long j = 0; j < lsize; j++) {
            range[2 * (group * lsize + j)] = lo[j];
            range[2 * (group * lsize + j) + 1] = hi[j];
        }
    }
}

/* ---- range=atomic: the same words and skip rule as stencil_atomic.h ---- */

#ifndef K_STEPS
#define K_STEPS 1
#endif

static int converged_before(const unsigned *slots, int it, int back) {
    for (int j = it - back; j < it; j++)
        if (j >= 0 && st_slot_range(slots[2 * j], slots[2 * j + 1]) <= ST_LIMIT) return 1;
    return 0;
}

/* One step in -> out over the tiles, the grid's (min, max) folded into
 * iteration j's words. A tile's pair is its own loop's (the knob reduce is
 * how a work-group combines its items; a tile is one thread's loop, so it
 * changes nothing here); the tiles' pairs meet in OpenMP's reduction, and
 * the one launch folds the grid's pair in as the GPU's groups do. */
static void step_fold(const struct omp_launch *L, const float *in, float *out, unsigned *slots, int w, int h, int j) {
    const size_t W = (size_t)w;
    float lo = 0.0f, hi = 0.0f;
#pragma omp parallel for collapse(2) schedule(static) reduction(min : lo) reduction(max : hi)
    for (size_t ty = 0; ty < L->groups[1]; ty++)
        for (size_t tx = 0; tx < L->groups[0]; tx++) {
            TILE_BOUNDS(L, w, h);
            for (int y = y0; y < y1; y++)
#pragma omp simd reduction(min : lo) reduction(max : hi)
                for (int x = x0; x < x1; x++) {
                    const size_t i = (size_t)y * W + (size_t)x;
                    const float v = stencil_point(in[i - W], in[i - 1], in[i + W], in[i + 1], in[i]);
                    out[i] = v;
                    lo = ST_LO(lo, v);
                    hi = ST_HI(hi, v);
                }
        }
    const unsigned klo = st_key(lo), khi = st_key(hi);
    if (klo < slots[2 * j]) slots[2 * j] = klo;
    if (khi > slots[2 * j + 1]) slots[2 * j + 1] = khi;
}

void update_atomic(const struct omp_launch *L, void *const *args) {
    unsigned *slots = args[2];
    const int w = *(int *)args[3], h = *(int *)args[4], it = *(int *)args[5];
    if (converged_before(slots, it, 1)) return;
    step_fold(L, args[0], args[1], slots, w, h, it);
}

/* steps=T on the CPU: nsteps whole-grid steps in one launch, through a
 * scratch grid, leaving `in` untouched as the GPU kernel does (the host
 * relaunches from it with fewer steps when the range falls mid-launch).
 * The tiles are not blocked in time here; this form is for the host's
 * launch, skip and relaunch logic, which it shares with the GPUs. */
void update_blocked(const struct omp_launch *L, void *const *args) {
    const float *in = args[0];
    float *out = args[1];
    unsigned *slots = args[2];
    const int w = *(int *)args[3], h = *(int *)args[4], it = *(int *)args[5], nsteps = *(int *)args[6];
    if (converged_before(slots, it, K_STEPS)) return;
    const size_t n = (size_t)w * (size_t)h;
    float *tmp = nsteps > 1 ? malloc(n * sizeof *tmp) : NULL;
    if (nsteps > 1 && !tmp) abort(); /* out of memory: a crash, recorded as one */
    if (tmp) memcpy(tmp, in, n * sizeof *tmp); /* the border */
    /* The last step writes out: odd steps from the end go to out, the others to tmp. */
    const float *src = in;
    for (int s = 0; s < nsteps; s++) {
        float *dst = (nsteps - 1 - s) % 2 == 0 ? out : tmp;
        step_fold(L, src, dst, slots, w, h, it + s);
        src = dst;
    }
    free(tmp);
}
