/* The serial reference: the slides' C program, corrected where the slides'
 * listing has typos (their C update writes out[SIZE*y*x] and reads the wrong
 * neighbours; their OpenCL kernel is the 5-point stencil of apps.md, which
 * is what this computes), in single precision with the shared formula of
 * stencil_point.h:
 *
 *     range = BIG; while (range > 100) { update(in, out);
 *                                         range = find_range(out, W*H);
 *                                         iterations++; swap(in, out); }
 *
 * find_range is the slides': min and max start at 0 and run over the whole
 * grid, border included. Because both start at 0, the border's zeros change
 * nothing: range = max(0, max interior) - min(0, min interior).
 *
 * It is cheap (34 iterations at 4096x4096: about a second on one core), so
 * it is not cached on disk; the result is kept with the input for the
 * process's lifetime (the input's own step count is this count). */
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "stencil.h"
#include "stencil_point.h"

#define SERIAL_SAFETY 1000000L /* never reached: the averaging contracts the range */

float stencil_find_range(const float *data, size_t n) {
    float lo = 0.0f, hi = 0.0f;
    for (size_t i = 0; i < n; i++) {
        lo = ST_LO(lo, data[i]);
        hi = ST_HI(hi, data[i]);
    }
    return hi - lo;
}

void stencil_update(const float *in, float *out, int w, int h) {
    const size_t W = (size_t)w;
    for (int y = 1; y < h - 1; y++)
        for (int x = 1; x < w - 1; x++) {
            const size_t i = (size_t)y * W + (size_t)x;
            out[i] = stencil_point(in[i - W], in[i - 1], in[i + W], in[i + 1], in[i]);
        }
}

long stencil_serial_run(const float *initial, int w, int h, long limit, long snapshot, float *snap_grid,
                        float *snap_range, long *snap_iters) {
    const size_t n = (size_t)w * (size_t)h;
    float *grids[2] = {xcalloc(n, sizeof(float)), xcalloc(n, sizeof(float))};
    memcpy(grids[0], initial, n * sizeof(float));
    memcpy(grids[1], initial, n * sizeof(float)); /* the border: zeros, never written */
    float range = 1e30f;                          /* the slides' BIG_RANGE: the loop runs at least once */
    long it = 0;
    int cur = 0, snapped = 0; /* grids[cur] is the current state */
    while (range > ST_LIMIT && (limit <= 0 || it < limit)) {
        stencil_update(grids[cur], grids[1 - cur], w, h);
        range = stencil_find_range(grids[1 - cur], n);
        it++;
        cur = 1 - cur; /* the slides' swap(&in, &out) */
        if (it == snapshot) {
            if (snap_grid) memcpy(snap_grid, grids[cur], n * sizeof(float));
            if (snap_range) *snap_range = range;
            if (snap_iters) *snap_iters = it;
            snapped = 1;
        }
    }
    if (!snapped) {
        if (snap_grid) memcpy(snap_grid, grids[cur], n * sizeof(float));
        if (snap_range) *snap_range = range;
        if (snap_iters) *snap_iters = it;
    }
    free(grids[0]);
    free(grids[1]);
    return it;
}

/* The input's serial run, computed once: to convergence (the input's own
 * count), keeping the state after min(cap, count) iterations. */
const struct stencil_serial *stencil_serial(const struct app_input *in) {
    struct stencil_serial *s = in->serial;
    if (s->iters_full >= 0) return s;
    s->grid = xcalloc((size_t)in->w * (size_t)in->h, sizeof(float));
    s->iters_full = stencil_serial_run(in->initial, in->w, in->h, SERIAL_SAFETY, in->cap > 0 ? in->cap : -1, s->grid,
                                       &s->range, &s->iters);
    return s;
}

long stencil_run_limit(const struct app_input *in) {
    const long safety = 2 * stencil_serial(in)->iters_full + 16;
    return in->cap > 0 && in->cap < safety ? in->cap : safety;
}

struct app_ref *stencil_reference(const struct app_input *in, char *err, size_t errn) {
    (void)err;
    (void)errn;
    const struct stencil_serial *s = stencil_serial(in);
    const size_t n = (size_t)in->w * (size_t)in->h;
    struct app_ref *r = xcalloc(1, sizeof *r);
    r->iters = s->iters;
    r->iters_full = s->iters_full;
    r->range = s->range;
    r->w = in->w;
    r->h = in->h;
    r->grid = xcalloc(n, sizeof(float));
    memcpy(r->grid, s->grid, n * sizeof(float));
    return r;
}

void stencil_ref_free(struct app_ref *r) {
    if (!r) return;
    free(r->grid);
    free(r);
}
