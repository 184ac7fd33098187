/* The DG host schedule, written once against the backend interface. One
 * repetition is `iters` time steps from the input's initial state:
 *
 *   step:   (CFL steps) dg_rates over column blocks of DG_RATE_ROWS rows,
 *           dg_fold until at most DG_FOLD values are left, dg_step: dt and t
 *           in P[6], P[7] on the device (no read-back);
 *           (t= inputs) dt = end_time / iters, written once
 *   stage:  three SSP-RK3 stages, each
 *     kernels=split   grad, visc_x, visc_y (with viscosity), conv_x, conv_y,
 *                     conv_int, visc_int (with viscosity), rk: the seed's 8
 *     kernels=merged  grad (with viscosity), flux_x, flux_y, int_rk: its 4
 *     kernels=fused   grad (with viscosity), fused (q -> qn, then swapped)
 *     kernels=tiled   grad (with viscosity), tiled (q -> qn, then swapped),
 *                     with dg_tile_bytes of work-group memory
 *
 * The state is written to the device before each repetition, outside the
 * timed region; the host clock runs from the first launch until a finish
 * returns, device time between two marks around the same launches. The last
 * repetition's state and time are read back for verify(); every
 * repetition's state is summed and checked against the first's (timed.h). */
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "core/timed.h"
#include "dg.h"

#define DG_RATE_ROWS 32
#define DG_FOLD_N 64 /* dg_cell.h's DG_FOLD */
#define DG_NP 8      /* P: dx, dy, 1/dx, 1/dy, mu, cfl, dt, t */

enum { B_Q, B_Q0, B_R, B_FX, B_FY, B_S, B_VX, B_VY, B_QN, B_P, B_PART, B_FOLD_A, B_FOLD_B, B_N };
enum { K_CONV_X, K_CONV_Y, K_CONV_INT, K_GRAD, K_VISC_X, K_VISC_Y, K_VISC_INT, K_RK, K_FLUX_X, K_FLUX_Y,
       K_INT_RK, K_FUSED, K_TILED, K_RATES, K_FOLD, K_STEP, K_N };
static const char *const KERNEL_NAMES[K_N] = {"dg_conv_x", "dg_conv_y", "dg_conv_int", "dg_grad",   "dg_visc_x",
                                              "dg_visc_y", "dg_visc_int", "dg_rk",     "dg_flux_x", "dg_flux_y",
                                              "dg_int_rk", "dg_fused",    "dg_tiled",  "dg_rates",  "dg_fold",
                                              "dg_step"};

enum form { SPLIT, MERGED, FUSED, TILED };

struct dg_exec {
    struct dev *d;
    const struct app_input *in;
    enum form form;
    int visc;
    int pitch;
    long plane;
    size_t local[2], grid[2];
    size_t tile_bytes; /* tiled: the work-group memory a launch of dg_tiled takes */
    struct program *prog;
    struct kernel *k[K_N];
    struct buf *b[B_N];
    int swapped; /* fused, tiled: the state is in qn (an odd number of stages) */
    double *packed; /* the state in the device's layout, for writes and reads */
};

static size_t round_up(size_t a, size_t b) { return (a + b - 1) / b * b; }

size_t dg_pitch(const struct knob_set *k, int nx) {
    return knob_is(k, "align", "warp") ? round_up((size_t)nx, 32) : (size_t)nx;
}

int dg_kernels_per_stage(const struct knob_set *k, int viscous) {
    if (knob_is(k, "kernels", "split")) return viscous ? 8 : 4;
    if (knob_is(k, "kernels", "merged")) return viscous ? 4 : 3;
    return viscous ? 2 : 1; /* fused, tiled */
}

/* dg_gpu.h's dg_tiled for a W x H work-group: the tile of q with its halo
 * (12 planes of (W + 2) x (H + 2)) and the x and y faces' fluxes (8 planes
 * of (W + 1) x H and of W x (H + 1)), in doubles: 38 272 bytes at 32x4. */
size_t dg_tile_bytes(const unsigned wg[2]) {
    const size_t w = wg[0], h = wg[1];
    return sizeof(double) * (DG_NC * (w + 2) * (h + 2) + 8 * ((w + 1) * h + w * (h + 1)));
}

/* Cell-major (the input's, the reference's) to planes and back. */
static void to_planes(const struct dg_exec *e, const double *cells, double *planes) {
    const struct app_input *in = e->in;
    for (int j = 0; j < in->ny; j++)
        for (int i = 0; i < in->nx; i++)
            for (int k = 0; k < DG_NC; k++)
                planes[k * e->plane + (long)j * e->pitch + i] = cells[((long)j * in->nx + i) * DG_NC + k];
}
static void from_planes(const struct dg_exec *e, const double *planes, double *cells) {
    const struct app_input *in = e->in;
    for (int j = 0; j < in->ny; j++)
        for (int i = 0; i < in->nx; i++)
            for (int k = 0; k < DG_NC; k++)
                cells[((long)j * in->nx + i) * DG_NC + k] = planes[k * e->plane + (long)j * e->pitch + i];
}

static int cell_launch(struct dg_exec *e, int which, int stage) {
    struct dev *d = e->d;
    struct buf *q = e->b[e->swapped ? B_QN : B_Q], *qn = e->b[e->swapped ? B_Q : B_QN];
    const struct karg a[16] = {ARG_BUF(q),           ARG_BUF(e->b[B_Q0]),  ARG_BUF(e->b[B_R]),  ARG_BUF(e->b[B_FX]),
                               ARG_BUF(e->b[B_FY]),  ARG_BUF(e->b[B_S]),   ARG_BUF(e->b[B_VX]), ARG_BUF(e->b[B_VY]),
                               ARG_BUF(qn),          ARG_BUF(e->b[B_P]),   ARG_INT(e->in->nx),  ARG_INT(e->in->ny),
                               ARG_INT(e->pitch),    ARG_INT(stage),       ARG_INT(e->visc),
                               ARG_LOCAL(e->tile_bytes)};
    /* The tiled kernel alone takes work-group memory (the last argument). */
    return d->ops->launch(d, e->k[which], e->grid, e->local, which == K_TILED ? 16 : 15, a);
}

/* dt = cfl / (largest rate) on the device: column blocks, folds, the step. */
static int cfl_step(struct dg_exec *e) {
    struct dev *d = e->d;
    const struct app_input *in = e->in;
    struct buf *q = e->b[e->swapped ? B_QN : B_Q];
    const int blocks = (in->ny + DG_RATE_ROWS - 1) / DG_RATE_ROWS;
    const size_t width = e->local[0] * e->local[1];
    const size_t l1[2] = {width, 1}, g1[2] = {round_up((size_t)in->nx, width), (size_t)blocks};
    const struct karg ra[7] = {ARG_BUF(q),        ARG_BUF(e->b[B_PART]), ARG_BUF(e->b[B_P]),   ARG_INT(in->nx),
                               ARG_INT(in->ny),   ARG_INT(e->pitch),     ARG_INT(DG_RATE_ROWS)};
    if (d->ops->launch(d, e->k[K_RATES], g1, l1, 7, ra)) return -1;
    long n = (long)in->nx * blocks;
    struct buf *from = e->b[B_PART], *to = e->b[B_FOLD_A];
    while (n > DG_FOLD_N) {
        const long folds = (n + DG_FOLD_N - 1) / DG_FOLD_N;
        const size_t gf[2] = {round_up((size_t)folds, width), 1};
        const struct karg fa[3] = {ARG_BUF(from), ARG_BUF(to), ARG_INT((int)n)};
        if (d->ops->launch(d, e->k[K_FOLD], gf, l1, 3, fa)) return -1;
        n = folds;
        from = to;
        to = to == e->b[B_FOLD_A] ? e->b[B_FOLD_B] : e->b[B_FOLD_A];
    }
    const size_t one[2] = {1, 1};
    const struct karg sa[3] = {ARG_BUF(from), ARG_BUF(e->b[B_P]), ARG_INT((int)n)};
    return d->ops->launch(d, e->k[K_STEP], one, one, 3, sa);
}

static int stage(struct dg_exec *e, int st) {
    if (e->visc && cell_launch(e, K_GRAD, st)) return -1;
    if (e->form == SPLIT) {
        if (e->visc && (cell_launch(e, K_VISC_X, st) || cell_launch(e, K_VISC_Y, st))) return -1;
        if (cell_launch(e, K_CONV_X, st) || cell_launch(e, K_CONV_Y, st) || cell_launch(e, K_CONV_INT, st)) return -1;
        if (e->visc && cell_launch(e, K_VISC_INT, st)) return -1;
        return cell_launch(e, K_RK, st);
    }
    if (e->form == MERGED)
        return cell_launch(e, K_FLUX_X, st) || cell_launch(e, K_FLUX_Y, st) || cell_launch(e, K_INT_RK, st) ? -1 : 0;
    if (cell_launch(e, e->form == TILED ? K_TILED : K_FUSED, st)) return -1;
    e->swapped = !e->swapped;
    return 0;
}

static int reset(struct dg_exec *e) {
    struct dev *d = e->d;
    const struct app_input *in = e->in;
    const double p[DG_NP] = {in->dx, in->dy, 1.0 / in->dx, 1.0 / in->dy, in->mu, in->cfl,
                             in->end_time > 0 ? in->end_time / (double)in->iters : 0.0, 0.0};
    e->swapped = 0;
    return d->ops->write(d, e->b[B_Q], 0, (size_t)DG_NC * e->plane * sizeof(double), e->packed) ||
           d->ops->write(d, e->b[B_P], 0, sizeof p, p) || d->ops->finish(d);
}

static int repetition(void *ctx, double *wall, double *device) {
    struct dg_exec *e = ctx;
    struct dev *d = e->d;
    if (reset(e) || d->ops->mark(d, 0)) return -1;
    const double t0 = clock_now();
    for (long step = 0; step < e->in->iters; step++) {
        if (e->in->end_time == 0 && cfl_step(e)) return -1;
        for (int st = 0; st < 3; st++)
            if (stage(e, st)) return -1;
    }
    if (d->ops->mark(d, 1) || d->ops->finish(d)) return -1;
    *wall = clock_now() - t0;
    return d->ops->elapsed(d, device);
}

static int read_state(struct dg_exec *e, double *planes) {
    return e->d->ops->read(e->d, e->b[e->swapped ? B_QN : B_Q], 0, (size_t)DG_NC * e->plane * sizeof(double), planes);
}

/* timed_check: the state's magnitudes summed. Every cell's arithmetic is
 * fixed and the step's maximum exact, so repetitions agree to the bit on a
 * device that runs the same code; 1e-12 leaves room for none else. */
static int repetition_sum(void *ctx, double *sum) {
    struct dg_exec *e = ctx;
    const size_t n = (size_t)DG_NC * e->plane;
    double *p = xcalloc(n, sizeof(double));
    const int rc = read_state(e, p);
    *sum = 0;
    for (size_t i = 0; i < n; i++) *sum += fabs(p[i]);
    free(p);
    return rc ? -1 : 0;
}
static const struct timed_check repetition_check = {repetition_sum, 1e-12};

static int build(struct dg_exec *e, const struct knob_set *k) {
    struct dev *d = e->d;
    /* Tests only: DG_TEST_DEFINES adds defines (-DDG_TEST_FLIP_FLUX) to show
     * that verification catches a broken kernel. */
    if (!(e->prog = app_build_program(d, "dg", k, e->local, getenv("DG_TEST_DEFINES")))) return -1;
    /* The program holds its form's kernels only (dg_cell.h: DG_FORM_*), and
     * every form's gradients and time step; each list ends at -1. */
    static const int split[] = {K_CONV_X, K_CONV_Y, K_CONV_INT, K_VISC_X, K_VISC_Y, K_VISC_INT, K_RK, -1},
                     merged[] = {K_FLUX_X, K_FLUX_Y, K_INT_RK, -1}, fused[] = {K_FUSED, -1}, tiled[] = {K_TILED, -1},
                     every[] = {K_GRAD, K_RATES, K_FOLD, K_STEP, -1};
    const int *const lists[2] = {e->form == SPLIT    ? split
                                 : e->form == MERGED ? merged
                                 : e->form == FUSED  ? fused
                                                     : tiled,
                                 every};
    for (int l = 0; l < 2; l++)
        for (const int *w = lists[l]; *w >= 0; w++)
            if (!(e->k[*w] = d->ops->kernel(d, e->prog, KERNEL_NAMES[*w]))) return -1;
    return 0;
}

/* Allocates what the form needs; a slot the form never touches gets a
 * buffer of one double, so that no two pointer arguments alias. */
static int upload(struct dg_exec *e) {
    struct dev *d = e->d;
    const struct app_input *in = e->in;
    const size_t pl = (size_t)e->plane * sizeof(double);
    const int blocks = (in->ny + DG_RATE_ROWS - 1) / DG_RATE_ROWS;
    const size_t parts = (size_t)in->nx * blocks, folded = (parts + DG_FOLD_N - 1) / DG_FOLD_N + 1;
    size_t bytes[B_N] = {0};
    bytes[B_Q] = bytes[B_Q0] = DG_NC * pl;
    bytes[B_R] = e->form == SPLIT ? DG_NC * pl : 0;
    bytes[B_FX] = bytes[B_FY] = e->form == SPLIT || e->form == MERGED ? 8 * pl : 0;
    bytes[B_S] = e->visc ? DG_NS * pl : 0;
    bytes[B_VX] = bytes[B_VY] = e->form == SPLIT && e->visc ? 8 * pl : 0;
    bytes[B_QN] = e->form == FUSED || e->form == TILED ? DG_NC * pl : 0;
    bytes[B_P] = DG_NP * sizeof(double);
    bytes[B_PART] = parts * sizeof(double);
    bytes[B_FOLD_A] = bytes[B_FOLD_B] = folded * sizeof(double);
    for (int i = 0; i < B_N; i++)
        if (!(e->b[i] = d->ops->alloc(d, bytes[i] ? bytes[i] : sizeof(double)))) return -1;
    /* The padding between rows is never read; zeros keep it finite. */
    e->packed = xcalloc((size_t)DG_NC * e->plane, sizeof(double));
    to_planes(e, in->q0, e->packed);
    return 0;
}

static void release(struct dg_exec *e) {
    for (int i = 0; i < B_N; i++) e->d->ops->buf_free(e->d, e->b[i]);
    if (e->prog) e->d->ops->program_free(e->d, e->prog);
    free(e->packed);
}

static void fail(struct measurement *m, enum status st, const struct dev *d) {
    m->status = st;
    str_copy(m->reason, sizeof m->reason, d->err);
}

static struct app_result *collect(struct dg_exec *e, struct measurement *m) {
    struct app_result *res = xcalloc(1, sizeof *res);
    res->ncells = (long)e->in->nx * e->in->ny;
    res->q = xcalloc((size_t)res->ncells * DG_NC, sizeof(double));
    double p[DG_NP];
    if (read_state(e, e->packed) || e->d->ops->read(e->d, e->b[B_P], 0, sizeof p, p)) {
        fail(m, ST_RUNTIME_ERROR, e->d);
        dg_result_free(res);
        return NULL;
    }
    from_planes(e, e->packed, res->q);
    res->time = e->in->end_time > 0 ? p[6] * (double)e->in->iters : p[7];
    m->status = ST_OK; /* verify() decides ok or wrong */
    return res;
}

struct app_result *dg_execute(struct dev *d, const struct app_input *in, const struct knob_set *k,
                              const unsigned wg[2], int warmup, int reps, struct measurement *m) {
    struct dg_exec e = {.d = d, .in = in};
    e.form = knob_is(k, "kernels", "split")    ? SPLIT
             : knob_is(k, "kernels", "merged") ? MERGED
             : knob_is(k, "kernels", "fused")  ? FUSED
                                               : TILED;
    e.visc = in->mu > 0;
    e.pitch = (int)dg_pitch(k, in->nx);
    e.plane = (long)e.pitch * in->ny;
    e.local[0] = wg[0];
    e.local[1] = wg[1];
    e.grid[0] = round_up((size_t)in->nx, wg[0]);
    e.grid[1] = round_up((size_t)in->ny, wg[1]);
    e.tile_bytes = dg_tile_bytes(wg);
    m->warmup = warmup;
    m->iters = in->iters;
    m->iters_full = in->steps_full;
    m->cell_updates = (double)in->nx * in->ny * (double)in->iters;
    struct app_result *res = NULL;
    if (build(&e, k)) fail(m, ST_COMPILE_ERROR, d);
    else if (upload(&e)) fail(m, ST_RUNTIME_ERROR, d);
    else if (timed_reps(d, warmup, reps, m, repetition, &e, &repetition_check)) fail(m, ST_RUNTIME_ERROR, d);
    else res = collect(&e, m);
    release(&e);
    return res;
}
