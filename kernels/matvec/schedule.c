/* The mat-vec host schedule, written once against the backend interface.
 * One repetition is `iters` products (1 unless --iters), each
 *
 *   colours=launches  for colour in 0..5: launch matvec_colour over its cells
 *   colours=masked    one launch of matvec_masked over 6 x ncp_max slots
 *   colours=none      one launch of matvec_all over every cell, mesh order
 *
 * as the blog's outer loop. Everything but lhs is written to the device once
 * per execution (the matrix transposed first for matrix=k-fastest); lhs is
 * reset to its initial values before each repetition,
 * outside the timed region, so every repetition computes the same thing and
 * the last one is what verify() sees; every one's lhs is read back after it
 * and summed, checked against the first's (timed.h: timed_check).
 *
 * The same schedule drives every backend, the directive ones included
 * (caps.directives: matvec_acc.c / matvec_omptgt.c, one compute region a
 * launch, built with the work-group shape as defines).
 *
 * Timing: the host clock from the first launch until a finish returns (no
 * read-back: the blog's figure is the kernels' time), and device time
 * between two marks around the same launches. lhs is read after the clock
 * stops, for verification. */
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "core/timed.h"
#include "matvec.h"

struct mv_exec {
    struct dev *d;
    const struct app_input *in;
    int masked, uncoloured;
    size_t lanes;    /* work-items per cell before padding */
    size_t local[2]; /* the work-group */
    size_t ncp_pad;  /* ncp_max rounded up to the group height (masked) */
    struct program *prog;
    struct kernel *colour, *masked_k, *all;
    struct buf *matrix, *x, *lhs, *map, *cmap, *ncp, *scratch;
};

static size_t round_up(size_t a, size_t b) { return (a + b - 1) / b * b; }

/* The lanes per cell (matvec_gpu.h): one per layer, per layer and df, or
 * per layer and pair of dfs. */
size_t matvec_lanes(const struct knob_set *k, int nl) {
    if (knob_is(k, "form", "collapsed")) return (size_t)nl * MV_NDF;
    if (knob_is(k, "form", "paired")) return (size_t)nl * (MV_NDF / 2);
    return (size_t)nl;
}

static int product(struct mv_exec *e) {
    struct dev *d = e->d;
    const struct app_input *in = e->in;
    const size_t gx = round_up(e->lanes, e->local[0]);
    if (e->uncoloured) {
        const size_t g[2] = {gx, round_up((size_t)in->ncells, e->local[1])};
        const struct karg a[7] = {ARG_BUF(e->matrix), ARG_BUF(e->x),       ARG_BUF(e->lhs),
                                  ARG_BUF(e->map),    ARG_BUF(e->scratch), ARG_INT((int)in->ncells),
                                  ARG_INT(in->nl)};
        return d->ops->launch(d, e->all, g, e->local, 7, a);
    }
    if (e->masked) {
        const size_t g[2] = {gx, MV_COLOURS * e->ncp_pad};
        const struct karg a[10] = {ARG_BUF(e->matrix),       ARG_BUF(e->x),   ARG_BUF(e->lhs),     ARG_BUF(e->map),
                                   ARG_BUF(e->cmap),         ARG_BUF(e->ncp), ARG_BUF(e->scratch), ARG_INT(in->ncp_max),
                                   ARG_INT((int)e->ncp_pad), ARG_INT(in->nl)};
        return d->ops->launch(d, e->masked_k, g, e->local, 10, a);
    }
    for (int c = 0; c < MV_COLOURS; c++) {
        const size_t g[2] = {gx, round_up((size_t)in->ncp[c], e->local[1])};
        const struct karg a[9] = {ARG_BUF(e->matrix),       ARG_BUF(e->x),       ARG_BUF(e->lhs),
                                  ARG_BUF(e->map),          ARG_BUF(e->cmap),    ARG_BUF(e->scratch),
                                  ARG_INT(c * in->ncp_max), ARG_INT(in->ncp[c]), ARG_INT(in->nl)};
        if (d->ops->launch(d, e->colour, g, e->local, 9, a)) return -1;
    }
    return 0;
}

static int repetition(void *ctx, double *wall, double *device) {
    struct mv_exec *e = ctx;
    struct dev *d = e->d;
    if (d->ops->write(d, e->lhs, 0, (size_t)e->in->ndofs * sizeof(double), e->in->lhs0) || d->ops->finish(d)) return -1;
    if (d->ops->mark(d, 0)) return -1;
    const double t0 = clock_now();
    for (long it = 0; it < e->in->iters; it++)
        if (product(e)) return -1;
    if (d->ops->mark(d, 1) || d->ops->finish(d)) return -1;
    *wall = clock_now() - t0;
    return d->ops->elapsed(d, device);
}

/* timed_check: the repetition's lhs, read back and summed by magnitude.
 * Within 1e-9: update=atomic adds a dof's doubles in whatever order the
 * device runs them (last-bit differences); a repetition that computed
 * another product moves the sum by far more. */
static int repetition_sum(void *ctx, double *sum) {
    struct mv_exec *e = ctx;
    const size_t n = (size_t)e->in->ndofs;
    double *lhs = xcalloc(n, sizeof(double));
    const int rc = e->d->ops->read(e->d, e->lhs, 0, n * sizeof(double), lhs);
    *sum = 0;
    for (size_t i = 0; i < n; i++) *sum += lhs[i] < 0 ? -lhs[i] : lhs[i];
    free(lhs);
    return rc ? -1 : 0;
}
static const struct timed_check repetition_check = {repetition_sum, 1e-9};

static int build(struct mv_exec *e, const struct knob_set *k) {
    struct dev *d = e->d;
    /* matvec_directive.h's programs have the shape compiled in. */
    e->prog = app_build_program(d, "matvec", k, e->local, NULL);
    if (!e->prog) return -1;
    e->colour = d->ops->kernel(d, e->prog, "matvec_colour");
    e->masked_k = e->colour ? d->ops->kernel(d, e->prog, "matvec_masked") : NULL;
    e->all = e->masked_k ? d->ops->kernel(d, e->prog, "matvec_all") : NULL;
    return e->all ? 0 : -1;
}

/* The matrix in the layer-fastest layout (matvec_cell.h's mv_at with
 * K_MATRIX_K_FASTEST), from the input's Fortran layout. */
static double *transposed(const struct app_input *in) {
    const int nl = in->nl;
    double *t = xcalloc((size_t)in->ncells * (size_t)nl * MV_NDF * MV_NDF, sizeof(double));
    for (long cell = 0; cell < in->ncells; cell++)
        for (int k = 0; k < nl; k++)
            for (int df2 = 0; df2 < MV_NDF; df2++)
                for (int df = 0; df < MV_NDF; df++)
                    t[((cell * MV_NDF + df2) * MV_NDF + df) * nl + k] =
                        in->matrix[(cell * nl + k) * (MV_NDF * MV_NDF) + MV_NDF * df2 + df];
    return t;
}

/* Allocates and writes everything but lhs (written per repetition). */
static int upload(struct mv_exec *e, int temp, int k_fastest) {
    struct dev *d = e->d;
    const struct app_input *in = e->in;
    const size_t nmat = (size_t)in->ncells * (size_t)in->nl * MV_NDF * MV_NDF;
    const size_t nslots = (size_t)MV_COLOURS * (size_t)in->ncp_max;
    const size_t scratch = temp ? nslots * MV_NDF * (size_t)in->nl * sizeof(double) : sizeof(double);
    double *t = k_fastest ? transposed(in) : NULL;
    struct {
        struct buf **slot;
        size_t bytes;
        const void *data;
    } want[] = {{&e->matrix, nmat * sizeof(double), t ? t : in->matrix},
                {&e->x, (size_t)in->ndofs * sizeof(double), in->x},
                {&e->lhs, (size_t)in->ndofs * sizeof(double), NULL},
                {&e->map, (size_t)in->ncells * MV_NDF * sizeof(int), in->map},
                {&e->cmap, nslots * sizeof(int), in->cmap},
                {&e->ncp, sizeof in->ncp, in->ncp},
                {&e->scratch, scratch, NULL}};
    int rc = 0;
    for (size_t i = 0; i < sizeof want / sizeof want[0] && !rc; i++) {
        if (!(*want[i].slot = d->ops->alloc(d, want[i].bytes))) rc = -1;
        else if (want[i].data && d->ops->write(d, *want[i].slot, 0, want[i].bytes, want[i].data)) rc = -1;
    }
    /* finish before freeing t: a write may still be reading it */
    rc = rc || d->ops->finish(d);
    free(t);
    return rc;
}

static void release(struct mv_exec *e) {
    struct dev *d = e->d;
    struct buf *b[] = {e->matrix, e->x, e->lhs, e->map, e->cmap, e->ncp, e->scratch};
    for (size_t i = 0; i < sizeof b / sizeof b[0]; i++) d->ops->buf_free(d, b[i]);
    if (e->prog) d->ops->program_free(d, e->prog);
}

static void fail(struct measurement *m, enum status st, const struct dev *d) {
    m->status = st;
    str_copy(m->reason, sizeof m->reason, d->err);
}

struct app_result *matvec_execute(struct dev *d, const struct app_input *in, const struct knob_set *k,
                                  const unsigned wg[2], int warmup, int reps, struct measurement *m) {
    struct mv_exec e = {.d = d, .in = in};
    e.masked = knob_is(k, "colours", "masked");
    e.uncoloured = knob_is(k, "colours", "none");
    e.lanes = matvec_lanes(k, in->nl);
    e.local[0] = wg[0];
    e.local[1] = wg[1];
    e.ncp_pad = round_up((size_t)in->ncp_max, e.local[1]);
    m->warmup = warmup;
    m->iters = m->iters_full = in->iters;
    m->cell_updates = (double)in->ncells * in->nl * (double)in->iters;
    if (build(&e, k)) {
        fail(m, ST_COMPILE_ERROR, d);
        release(&e);
        return NULL;
    }
    if (upload(&e, knob_is(k, "form", "temp"), knob_is(k, "matrix", "k-fastest"))) {
        fail(m, ST_RUNTIME_ERROR, d);
        release(&e);
        return NULL;
    }
    struct app_result *res = NULL;
    if (timed_reps(d, warmup, reps, m, repetition, &e, &repetition_check)) {
        fail(m, ST_RUNTIME_ERROR, d);
    } else {
        res = xcalloc(1, sizeof *res);
        res->ndofs = in->ndofs;
        res->lhs = xcalloc((size_t)in->ndofs, sizeof(double));
        if (d->ops->read(d, e.lhs, 0, (size_t)in->ndofs * sizeof(double), res->lhs)) {
            fail(m, ST_RUNTIME_ERROR, d);
            matvec_result_free(res);
            res = NULL;
        } else {
            m->status = ST_OK; /* verify() decides ok or wrong */
        }
    }
    release(&e);
    return res;
}
