/* The serial reference: the seed's synchronous sandpile, plain C, one grid
 * in and one out per step, the interior only (the border is the sink):
 *
 *     iterations = 0;
 *     while (grid has a cell >= 4) { step(in, out); swap; iterations++; }
 *
 * The count is the first k whose grid is stable, which is what the seed's
 * read-back loop returns (it checks after each step) and what it printed for
 * 512x512 from 4 grains everywhere: 69190 (tests/unit/test_sandpile.c holds
 * this to the seed's figure). A stable grid is a fixed point of the rule, so
 * steps past k change nothing; that is what lets a device overshoot and
 * still report k exactly (schedule.c).
 *
 * 512x512 takes 69190 steps of 260100 cells, 1.8e10 cell updates: seconds
 * even vectorised, so results are cached on disk, keyed by the input, the
 * cap, and a hash of this file and sandpile_rule.h (the Makefile's
 * SANDPILE_REFERENCE_SOURCE): an edited reference never reuses what an
 * older one stored. */
#include <stdlib.h>
#include <string.h>

#include "backend/build_cache.h"
#include "base/util.h"
#include "sandpile.h"
#include "sandpile_rule.h"

#ifndef SANDPILE_REFERENCE_SOURCE
#error "build with -DSANDPILE_REFERENCE_SOURCE (the Makefile's hash of reference.c and sandpile_rule.h)"
#endif

int sandpile_step(const unsigned *in, unsigned *out, int w, int h) {
    const size_t W = (size_t)w;
    unsigned over = 0; /* any cell's value >> 2: nonzero when some cell >= 4 */
    for (int y = 1; y < h - 1; y++) {
        const unsigned *c = in + (size_t)y * W, *n = c - W, *s = c + W;
        unsigned *o = out + (size_t)y * W;
        for (int x = 1; x < w - 1; x++) {
            const unsigned v = SP_RULE(c[x], n[x], s[x], c[x + 1], c[x - 1]);
            o[x] = v;
            over |= v >> 2;
        }
    }
    return over != 0;
}

int sandpile_is_stable(const unsigned *g, int w, int h) {
    const size_t W = (size_t)w;
    unsigned over = 0;
    for (int y = 1; y < h - 1; y++)
        for (int x = 1; x < w - 1; x++) over |= g[(size_t)y * W + (size_t)x] >> 2;
    return over == 0;
}

/* Runs from the input's start until stable or `limit` steps (0: no limit). */
static long serial_run(const struct app_input *in, long limit, unsigned *grid, int *stable) {
    const size_t n = (size_t)in->w * (size_t)in->h;
    unsigned *a = grid, *b = xcalloc(n, sizeof *b); /* b's border: 0, and never written */
    memcpy(a, in->initial, n * sizeof *a);
    long it = 0;
    int unstable = !in->initial_stable;
    while (unstable && (limit <= 0 || it < limit)) {
        unstable = sandpile_step(a, b, in->w, in->h);
        unsigned *t = a;
        a = b;
        b = t;
        it++;
    }
    if (a != grid) {
        memcpy(grid, a, n * sizeof *a);
        free(a);
    } else {
        free(b);
    }
    *stable = !unstable;
    return it;
}

static void ref_key(const struct app_input *in, long limit, char key[17]) {
    char text[256];
    snprintf(text, sizeof text, "sandpile-ref-v1|%s|%s|%d|%d|%ld", SANDPILE_REFERENCE_SOURCE, in->name, in->w, in->h,
             limit);
    cache_key(key, text, "", NULL, NULL);
}

/* A cached run: [iterations, stable] as two longs, then the grid. */
static int cache_get(const struct app_input *in, long limit, long *iters, int *stable, unsigned *grid) {
    char key[17];
    ref_key(in, limit, key);
    const size_t n = (size_t)in->w * (size_t)in->h, bytes = 2 * sizeof(long) + n * sizeof(unsigned);
    size_t len = 0;
    unsigned char *blob = cache_load(key, ".ref", &len);
    const int hit = blob && len == bytes;
    if (hit) {
        long head[2];
        memcpy(head, blob, sizeof head);
        *iters = head[0];
        *stable = (int)head[1];
        if (grid) memcpy(grid, blob + sizeof head, n * sizeof(unsigned));
    }
    free(blob);
    return hit;
}

static void cache_put(const struct app_input *in, long limit, long iters, int stable, const unsigned *grid) {
    char key[17];
    ref_key(in, limit, key);
    const size_t n = (size_t)in->w * (size_t)in->h, bytes = 2 * sizeof(long) + n * sizeof(unsigned);
    unsigned char *blob = malloc(bytes);
    if (!blob) return;
    const long head[2] = {iters, stable};
    memcpy(blob, head, sizeof head);
    memcpy(blob + sizeof head, grid, n * sizeof(unsigned));
    cache_store(key, ".ref", blob, bytes);
    free(blob);
}

/* Grids up to this many cells have their stability count computed even for
 * a capped run (512x512: 20 s on one core, once, then cached), so a capped
 * run knows what it is a part of; larger ones (4096x4096 would take millions
 * of serial steps) know it only when an uncapped run cached it. The rule is
 * by size, not by what happens to be cached, except for that cache. */
#define FULL_COUNT_MAX_CELLS (512L * 512L)

/* The serial run this input's runs are compared with: to stability, or to
 * the cap. iters_full is the stability count where known; a capped run of a
 * large grid whose count was never computed takes the cap as its own
 * length, and is not called "scaled". */
const struct sp_serial *sandpile_serial(const struct app_input *in) {
    struct sp_serial *s = in->serial;
    if (s->iters_full >= 0) return s;
    const size_t n = (size_t)in->w * (size_t)in->h;
    s->grid = xcalloc(n, sizeof *s->grid);
    const long limit = in->cap;
    if (!cache_get(in, limit, &s->iters, &s->stable, s->grid)) {
        s->iters = serial_run(in, limit, s->grid, &s->stable);
        cache_put(in, limit, s->iters, s->stable, s->grid);
    }
    long full;
    int full_stable;
    if (s->stable) {
        s->iters_full = s->iters;
    } else if (cache_get(in, 0, &full, &full_stable, NULL)) {
        s->iters_full = full;
    } else if ((long)n <= FULL_COUNT_MAX_CELLS) {
        unsigned *g = xcalloc(n, sizeof *g);
        full = serial_run(in, 0, g, &full_stable);
        cache_put(in, 0, full, full_stable, g);
        free(g);
        s->iters_full = full;
    } else {
        s->iters_full = s->iters;
    }
    return s;
}

long sandpile_run_limit(const struct app_input *in) {
    const struct sp_serial *s = sandpile_serial(in);
    return in->cap > 0 ? in->cap : 2 * s->iters + 64;
}

struct app_ref *sandpile_reference(const struct app_input *in, char *err, size_t errn) {
    (void)err;
    (void)errn;
    const struct sp_serial *s = sandpile_serial(in);
    const size_t n = (size_t)in->w * (size_t)in->h;
    struct app_ref *r = xcalloc(1, sizeof *r);
    r->iters = s->iters;
    r->iters_full = s->iters_full;
    r->stable = s->stable;
    r->grid = xcalloc(n, sizeof *r->grid);
    memcpy(r->grid, s->grid, n * sizeof *r->grid);
    return r;
}

void sandpile_ref_free(struct app_ref *r) {
    if (!r) return;
    free(r->grid);
    free(r);
}
