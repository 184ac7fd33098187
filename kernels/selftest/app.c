/* The selftest app: a tiny iterated map, x <- 0.5 x + 1, on a vector, whose
 * knob `behaviour` makes a config crash, hang or compute a wrong answer on
 * purpose. It exists to prove the harness's own guarantees with real
 * kernels on every backend (a crash or a hang costs one row; a wrong result
 * is recorded as wrong), and it shows how small an app can be. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "core/app.h"
#include "core/timed.h"

struct app_input {
    char name[64];
    long n, iters, iters_full;
};
struct app_ref {
    double value;
};
struct app_result {
    float *y;
    long n;
};

static const struct knob_def selftest_knobs[] = {
    {.name = "behaviour",
     .values = "ok|wrong|crash|hang",
     .def = "ok",
     .help = "what the kernel does: the right thing, or a failure on purpose"},
    {0},
};

static struct app_input *st_input_load(const struct app_opts *o, char *err, size_t errn) {
    long n = 4096;
    const char *name = o->input ? o->input : "gen:4096";
    if (o->params || o->obstacles) return err_set(err, errn, "selftest takes no input files"), NULL;
    char extra;
    if (sscanf(strncmp(name, "gen:", 4) ? name : name + 4, "%ld%c", &n, &extra) != 1 || n < 1 || n > (1L << 28))
        return err_set(err, errn, "selftest input '%s': expected gen:N (a vector length)", name), NULL;
    struct app_input *in = xcalloc(1, sizeof *in);
    in->n = n;
    in->iters_full = 100;
    in->iters = o->iters > 0 ? o->iters : in->iters_full;
    snprintf(in->name, sizeof in->name, "gen-%ld", n);
    return in;
}

static void st_input_free(struct app_input *in) { free(in); }
static const char *st_input_name(const struct app_input *in) { return in->name; }
static long st_iters(const struct app_input *in) { return in->iters; }
static long st_iters_full(const struct app_input *in) { return in->iters_full; }
static double st_cell_updates(const struct app_input *in) { return (double)in->n * (double)in->iters; }
static void st_grid(const struct app_input *in, size_t g[2]) {
    g[0] = (size_t)in->n;
    g[1] = 1;
}

static const char *st_invalid(const struct knob_set *k, const struct app_input *in, const struct device_info *dev,
                              const unsigned wg[2], char *why, size_t n) {
    (void)k;
    (void)why;
    (void)n;
    if (wg[1] != 1) return "selftest is one-dimensional: the shape must be Nx1";
    if (in->n % wg[0]) return "the work-group does not divide the vector";
    if (wg[0] > dev->max_wg || wg[0] > dev->max_item[0]) return "the work-group exceeds the device's limits";
    return NULL;
}

static double st_bytes(const struct knob_set *k) {
    (void)k;
    return 8;
}
static double st_flops(const struct knob_set *k) {
    (void)k;
    return 2;
}

/* Every element starts at 0; after t steps it is 2 - 2^(1-t). */
static struct app_ref *st_reference(const struct app_input *in, char *err, size_t errn) {
    (void)err;
    (void)errn;
    struct app_ref *r = xcalloc(1, sizeof *r);
    double x = 0;
    for (long t = 0; t < in->iters; t++) x = 0.5 * x + 1.0;
    r->value = x;
    return r;
}

static void st_ref_free(struct app_ref *r) { free(r); }

/* One repetition: the vector zeroed, then every step of the map. */
struct st_rep {
    struct dev *d;
    const struct app_input *in;
    struct kernel *kern;
    struct buf *b[2];
    float *host;
    unsigned wg0;
};
static int st_repetition(void *ctx, double *wall, double *device) {
    struct st_rep *c = ctx;
    struct dev *d = c->d;
    const size_t bytes = (size_t)c->in->n * sizeof(float), g[2] = {(size_t)c->in->n, 1}, l[2] = {c->wg0, 1};
    memset(c->host, 0, bytes);
    int rc = d->ops->write(d, c->b[0], 0, bytes, c->host) || d->ops->finish(d) || d->ops->mark(d, 0);
    double t0 = clock_now();
    for (long t = 0; t < c->in->iters && !rc; t++) {
        const struct karg a[3] = {ARG_BUF(c->b[t % 2]), ARG_BUF(c->b[(t + 1) % 2]), ARG_INT((int)c->in->n)};
        rc = d->ops->launch(d, c->kern, g, l, 3, a);
    }
    rc = rc || d->ops->mark(d, 1) || d->ops->finish(d);
    *wall = clock_now() - t0;
    return rc || d->ops->elapsed(d, device) ? -1 : 0;
}

/* timed_check: the repetition's vector, read back and summed, exactly (the
 * same arithmetic on every element every time). */
static int st_sum(void *ctx, double *sum) {
    struct st_rep *c = ctx;
    const size_t n = (size_t)c->in->n;
    if (c->d->ops->read(c->d, c->b[c->in->iters % 2], 0, n * sizeof(float), c->host)) return -1;
    *sum = 0;
    for (size_t i = 0; i < n; i++) *sum += c->host[i];
    return 0;
}
static const struct timed_check st_check = {st_sum, 0};

static struct app_result *st_execute(struct dev *d, const struct app_input *in, const struct knob_set *k,
                                     const unsigned wg[2], int warmup, int reps, struct measurement *m) {
    char src[4096], rel[128], dir[4096];
    snprintf(rel, sizeof rel, "kernels/selftest/selftest%s", d->ops->source_suffix);
    repo_path(src, sizeof src, rel);
    repo_path(dir, sizeof dir, "kernels/selftest");
    struct strbuf opts = {0};
    sb_printf(&opts, "-I%s", dir);
    knobs_defines(k, &opts);
    struct program *p = d->ops->build(d, src, opts.s);
    sb_free(&opts);
    struct kernel *kern = p ? d->ops->kernel(d, p, "map_step") : NULL;
    if (!kern) {
        m->status = p ? ST_RUNTIME_ERROR : ST_COMPILE_ERROR;
        str_copy(m->reason, sizeof m->reason, d->err);
        if (p) d->ops->program_free(d, p);
        return NULL;
    }
    const size_t bytes = (size_t)in->n * sizeof(float);
    struct buf *b[2] = {d->ops->alloc(d, bytes), d->ops->alloc(d, bytes)};
    float *host = xcalloc((size_t)in->n, sizeof(float));
    struct app_result *res = NULL;
    struct st_rep ctx = {d, in, kern, {b[0], b[1]}, host, wg[0]};
    int rc = !b[0] || !b[1] || timed_reps(d, warmup, reps, m, st_repetition, &ctx, &st_check);
    if (!rc) {
        res = xcalloc(1, sizeof *res);
        res->n = in->n;
        res->y = xcalloc((size_t)in->n, sizeof(float));
        rc = d->ops->read(d, b[in->iters % 2], 0, bytes, res->y);
        m->status = ST_OK;
    }
    if (rc) {
        m->status = ST_RUNTIME_ERROR;
        str_copy(m->reason, sizeof m->reason, d->err);
        if (res) free(res->y);
        free(res);
        res = NULL;
    }
    m->iters = in->iters;
    m->iters_full = in->iters_full;
    m->cell_updates = st_cell_updates(in);
    free(host);
    d->ops->buf_free(d, b[0]);
    d->ops->buf_free(d, b[1]);
    d->ops->program_free(d, p);
    return res;
}

/* 1e-5: the map contracts, so float rounding stays within a few ulps of 2. */
static void st_verify(const struct app_input *in, const struct app_ref *ref, const struct app_result *res,
                      struct measurement *m) {
    double worst = 0;
    for (long i = 0; i < in->n; i++) worst = fmax(worst, fabs(res->y[i] - ref->value) / fabs(ref->value));
    if (isnan(worst) || worst != worst) worst = INFINITY;
    m->max_rel_err = worst;
    m->max_abs_err = worst * fabs(ref->value);
    m->tolerance = 1e-5;
    m->result = res->y[0];
    m->status = worst <= 1e-5 ? ST_OK : ST_WRONG;
    if (m->status == ST_WRONG) snprintf(m->reason, sizeof m->reason, "max relative error %.3g > 1e-05", worst);
}

static int st_write_output(const struct app_input *in, const struct app_result *res, const char *dir, char *err,
                           size_t errn) {
    char path[4200];
    if (dir_make_p(dir) != 0) return err_set(err, errn, "%s: cannot create", dir);
    snprintf(path, sizeof path, "%s/y.dat", dir);
    FILE *f = fopen(path, "w");
    if (!f) return err_set(err, errn, "%s: cannot write", path);
    for (long i = 0; i < in->n; i++) fprintf(f, "%.9g\n", res->y[i]);
    fclose(f);
    return 0;
}

static void st_result_free(struct app_result *r) {
    if (!r) return;
    free(r->y);
    free(r);
}

const struct app app_selftest = {
    .name = "selftest",
    .description = "the harness's own failure drills (crash, hang, wrong) on a tiny map",
    .knobs = selftest_knobs,
    .verify_input = "gen:4096",
    .verify_iters = 100,
    .verify_timeout_s = 10,
    .result_label = "y[0]",
    .input_load = st_input_load,
    .input_free = st_input_free,
    .input_name = st_input_name,
    .input_iters = st_iters,
    .input_iters_full = st_iters_full,
    .cell_updates = st_cell_updates,
    .grid = st_grid,
    .invalid = st_invalid,
    .bytes_per_cell = st_bytes,
    .flops_per_cell = st_flops,
    .reference = st_reference,
    .ref_free = st_ref_free,
    .execute = st_execute,
    .verify = st_verify,
    .write_output = st_write_output,
    .result_free = st_result_free,
};
