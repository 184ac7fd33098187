/* The LBM schedule on a directive backend (device caps.directives: OpenACC,
 * OpenMP target). A directive program owns its time loop, reductions and
 * data movement (lbm_directive.h), so the host's part is small: build the
 * variant with its knobs and the shape compiled in, put the initial state
 * and the obstacles on the device, launch `lbm_run` once per repetition, and
 * read the averages and the final state back. The time is the whole launch:
 * every step's transfers and waits that the variant makes are inside it. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "core/timed.h"
#include "lbm.h"

struct directive_exec {
    struct dev *d;
    const struct app_input *in;
    struct program *prog;
    struct kernel *run;
    struct buf *cells, *tmp, *obstacles, *av;
    size_t global[2], local[2];
    int soa;        /* layout=soa-3d: nine planes in one buffer */
    float *initial; /* as the device holds it (AoS or planes) */
    float density, accel;
};

/* AoS (the initial state's and verify's layout) to nine planes, or back. */
static void planes(const float *from, float *to, size_t n, int to_planes) {
    for (size_t i = 0; i < n; i++)
        for (int k = 0; k < 9; k++) {
            if (to_planes) to[(size_t)k * n + i] = from[9 * i + (size_t)k];
            else to[9 * i + (size_t)k] = from[(size_t)k * n + i];
        }
}

static int repetition(void *ctx, double *wall, double *device) {
    struct directive_exec *e = ctx;
    struct dev *d = e->d;
    const size_t n = (size_t)e->in->nx * (size_t)e->in->ny;
    if (d->ops->write(d, e->cells, 0, 9 * n * sizeof(float), e->initial) || d->ops->finish(d)) return -1;
    const float omega = (float)e->in->omega;
    struct karg a[] = {ARG_BUF(e->cells),   ARG_BUF(e->tmp),           ARG_BUF(e->obstacles), ARG_BUF(e->av),
                       ARG_INT(e->in->nx),  ARG_INT(e->in->ny),        ARG_FLOAT(omega),      ARG_FLOAT(e->density),
                       ARG_FLOAT(e->accel), ARG_INT((int)e->in->iters)};
    if (d->ops->mark(d, 0)) return -1;
    const double t0 = clock_now();
    if (d->ops->launch(d, e->run, e->global, e->local, (int)(sizeof a / sizeof a[0]), a) || d->ops->finish(d))
        return -1;
    if (d->ops->mark(d, 1)) return -1;
    *wall = clock_now() - t0;
    return d->ops->elapsed(d, device);
}

/* timed_check: the repetition's per-step averages, read back (iters
 * floats) and summed. */
static int repetition_sum(void *ctx, double *sum) {
    struct directive_exec *e = ctx;
    const size_t n = (size_t)e->in->iters;
    float *av = xcalloc(n, sizeof(float));
    const int rc = e->d->ops->read(e->d, e->av, 0, n * sizeof(float), av);
    *sum = 0;
    for (size_t t = 0; t < n; t++) *sum += av[t];
    free(av);
    return rc ? -1 : 0;
}
static const struct timed_check repetition_check = {repetition_sum, LBM_REP_RTOL};

static int setup(struct directive_exec *e, const struct knob_set *k, const unsigned wg[2]) {
    struct dev *d = e->d;
    char src[PATH_MAX], rel[128], dir[PATH_MAX];
    snprintf(rel, sizeof rel, "kernels/lbm/lbm%s", d->ops->source_suffix);
    repo_path(src, sizeof src, rel);
    repo_path(dir, sizeof dir, "kernels/lbm");
    struct strbuf opts = {0};
    sb_printf(&opts, "-I%s", dir);
    lbm_build_options(k, d->ops, e->local, &opts);
    /* GCC takes vector_length only as a constant: one program per shape. */
    if (!knob_is(k, "geometry", "compiled")) sb_printf(&opts, " -DK_WG_X=%u -DK_WG_Y=%u", wg[0], wg[1]);
    if (9 * (size_t)e->in->nx * (size_t)e->in->ny <= UINT_MAX) sb_printf(&opts, " -DK_INDEX32=1");
    e->prog = d->ops->build(d, src, opts.s);
    sb_free(&opts);
    if (!e->prog || !(e->run = d->ops->kernel(d, e->prog, "lbm_run"))) return 1; /* a compile error */
    const size_t n = (size_t)e->in->nx * (size_t)e->in->ny;
    e->cells = d->ops->alloc(d, 9 * n * sizeof(float));
    e->tmp = e->cells ? d->ops->alloc(d, 9 * n * sizeof(float)) : NULL;
    e->obstacles = e->tmp ? d->ops->alloc(d, n) : NULL;
    e->av = e->obstacles ? d->ops->alloc(d, (size_t)e->in->iters * sizeof(float)) : NULL;
    if (!e->av || d->ops->write(d, e->obstacles, 0, n, e->in->obstacles)) return 2;
    return 0;
}

static void release(struct directive_exec *e) {
    struct dev *d = e->d;
    struct buf *bufs[] = {e->cells, e->tmp, e->obstacles, e->av};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        if (bufs[i]) d->ops->buf_free(d, bufs[i]);
    if (e->prog) d->ops->program_free(d, e->prog);
    free(e->initial);
}

struct app_result *lbm_execute_directive(struct dev *d, const struct app_input *in, const struct knob_set *k,
                                         const unsigned wg[2], int warmup, int reps, struct measurement *m) {
    struct directive_exec e = {.d = d, .in = in};
    e.global[0] = (size_t)in->nx;
    e.global[1] = (size_t)in->ny;
    e.local[0] = wg[0];
    e.local[1] = wg[1];
    e.soa = knob_is(k, "layout", "soa-3d");
    e.density = (float)in->density;
    e.accel = (float)in->accel;
    m->iters = in->iters;
    m->iters_full = in->iters_full;
    m->warmup = warmup;
    m->cell_updates = (double)in->nx * (double)in->ny * (double)in->iters;
    const size_t n = (size_t)in->nx * (size_t)in->ny;
    const int rc = setup(&e, k, wg);
    if (rc) {
        m->status = rc == 1 ? ST_COMPILE_ERROR : ST_RUNTIME_ERROR;
        str_copy(m->reason, sizeof m->reason, d->err);
        release(&e);
        return NULL;
    }
    float *aos = xcalloc(9 * n, sizeof(float));
    lbm_initial_cells(in, aos);
    e.initial = aos;
    if (e.soa) {
        e.initial = xcalloc(9 * n, sizeof(float));
        planes(aos, e.initial, n, 1);
    }
    struct app_result *res = NULL;
    if (timed_reps(d, warmup, reps, m, repetition, &e, &repetition_check)) {
        m->status = ST_RUNTIME_ERROR;
        str_copy(m->reason, sizeof m->reason, d->err);
    } else {
        res = xcalloc(1, sizeof *res);
        res->iters = in->iters;
        res->nx = in->nx;
        res->ny = in->ny;
        res->av_vels = xcalloc((size_t)in->iters, sizeof(double));
        res->cells = xcalloc(9 * n, sizeof(float));
        float *av = xcalloc((size_t)in->iters, sizeof(float));
        float *state = e.soa ? xcalloc(9 * n, sizeof(float)) : res->cells;
        if (d->ops->read(d, e.av, 0, (size_t)in->iters * sizeof(float), av) ||
            d->ops->read(d, e.cells, 0, 9 * n * sizeof(float), state)) {
            m->status = ST_RUNTIME_ERROR;
            str_copy(m->reason, sizeof m->reason, d->err);
            lbm_result_free(res);
            res = NULL;
        } else {
            if (e.soa) planes(state, res->cells, n, 0);
            for (long t = 0; t < in->iters; t++) res->av_vels[t] = av[t];
            m->status = ST_OK; /* verify() decides ok or wrong */
        }
        if (e.soa) free(state);
        free(av);
    }
    if (e.soa) free(aos);
    release(&e);
    return res;
}
