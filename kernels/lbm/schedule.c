/* The LBM host schedule, written once against the backend interface: which
 * kernels run in which order, when the host waits, and when partial sums
 * come back. Every knob the host decides is read here:
 *   kernels   partial (the given program: accelerate_flow and propagate on
 *             the device, the rest on the host, the grid copied both ways
 *             every step) | split (five kernels) | fused (accelerate_flow +
 *             fused_step) | fused-accel (the next step's acceleration folded in)
 *   sync      finish-each (wait after every launch) | in-order (the queue orders)
 *   reduction host-each-step | local | binary (partials read every step) |
 *             chunked (reduced on the device every `chunk` steps, then read) |
 *             deferred (reduced on the device, read once after the last step)
 *   layout    aos | soa (nine buffers per lattice) | soa-3d (one buffer)
 *   constants hoisted (weights computed once on the host) | inline
 *   args      buffers | packed (the 3D buffer) | struct (a struct of the
 *             lattices' pointers: by value where the backend tells buffer
 *             addresses (CUDA, OpenMP), else in device memory (OpenCL))
 *   bind      each | once (the step bound once per lattice pair; the step
 *             index lives on the device: see CLOCK_READ in lbm_gpu.h)
 *   launch    stream | graph (`batch` bound steps recorded once per
 *             starting lattice, replayed; the host reduces between chunks)
 *   persistent off | grid (one resident launch per chunk of steps) | cluster
 *             (one thread-block cluster per chunk, the grid in its shared memory)
 *   temporal  1..8 steps per launch of the bound step; tile group|inner (lbm_temporal.h)
 * The launch-cost knobs (bind, launch, persistent, temporal) live in launch_steps.c. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "core/timed.h"
#include "lbm.h"
#include "lbm_exec.h"

void lbm_push(struct args *a, struct karg k) { a->a[a->n++] = k; }

void lbm_push_lattice(struct args *a, const struct lbm_exec *e, int which) {
    for (int b = 0; b < e->nbuf; b++) lbm_push(a, ARG_BUF(e->lat[which][b]));
}

/* The fused step's source and destination lattices, however they travel. */
static int push_step_lattices(struct args *a, struct lbm_exec *e) {
    if (!e->args_struct) {
        lbm_push_lattice(a, e, 0);
        lbm_push_lattice(a, e, 1);
        return 0;
    }
    if (!e->by_value) {
        lbm_push(a, ARG_BUF(e->lat_struct));
        return 0;
    }
    for (int k = 0; k < 9; k++)
        if (e->d->ops->address(e->d, e->lat[0][k], &e->lat_value.src[k]) ||
            e->d->ops->address(e->d, e->lat[1][k], &e->lat_value.dst[k]))
            return -1;
    lbm_push(a, ARG_BYTES(&e->lat_value, sizeof e->lat_value));
    return 0;
}

/* accelerate_flow's lattice: the struct's source when args=struct. */
static int push_accel_lattice(struct args *a, struct lbm_exec *e) {
    if (e->args_struct) return push_step_lattices(a, e);
    lbm_push_lattice(a, e, 0);
    return 0;
}

void lbm_push_common(struct args *a, const struct lbm_exec *e) {
    const struct app_input *in = e->in;
    lbm_push(a, ARG_INT(in->nx));
    lbm_push(a, ARG_INT(in->ny));
    lbm_push(a, ARG_FLOAT((float)in->omega));
    if (knob_is(e->k, "constants", "hoisted")) {
        lbm_push(a, ARG_FLOAT((float)(in->density * in->accel / 9.0)));
        lbm_push(a, ARG_FLOAT((float)(in->density * in->accel / 36.0)));
    } else {
        lbm_push(a, ARG_FLOAT((float)in->density));
        lbm_push(a, ARG_FLOAT((float)in->accel));
    }
}

int lbm_launch(struct lbm_exec *e, struct kernel *k, const size_t g[2], const size_t l[2], const struct args *a) {
    if (e->d->ops->launch(e->d, k, g, l, a->n, a->a) != 0) return -1;
    return e->finish_each ? e->d->ops->finish(e->d) : 0;
}

static enum reduction reduction_of(const struct knob_set *k) {
    const char *r = knob_get(k, "reduction");
    if (!strcmp(r, "local")) return RED_LOCAL;
    if (!strcmp(r, "binary")) return RED_BINARY;
    if (!strcmp(r, "chunked")) return RED_CHUNKED;
    if (!strcmp(r, "deferred")) return RED_DEFERRED;
    return RED_HOST_EACH_STEP;
}

long lbm_partials_capacity(const struct app_input *in, const struct device_info *dev, const unsigned wg[2]) {
    const size_t ngroups = ((size_t)in->nx / wg[0]) * ((size_t)in->ny / wg[1]);
    /* The report hit the per-allocation limit here (4 GB on the P100). We
     * keep at most 1 GiB of partials (and never more than the device allows
     * in one buffer or a quarter of its memory): beyond that the device
     * reduces a chunk of steps and reuses the space, still reading the
     * averages back once, after the last step. */
    uint64_t budget = (uint64_t)1 << 30;
    if (dev->max_alloc && dev->max_alloc < budget) budget = dev->max_alloc;
    if (dev->global_mem && dev->global_mem / 4 < budget) budget = dev->global_mem / 4;
    long steps = (long)(budget / (ngroups * sizeof(float)));
    return steps < 1 ? 0 : steps < in->iters ? steps : in->iters;
}

/* ---- setup ---- */

void lbm_build_options(const struct knob_set *k, const struct backend_ops *ops, const size_t wg[2],
                       struct strbuf *opts) {
    knobs_defines(k, opts);
    /* fma=on: the backend's option for contraction (the rules refuse it where there is none). */
    if (knob_is(k, "fma", "on") && ops->fma_option) sb_printf(opts, " %s", ops->fma_option);
    /* math=fast: the backend's relaxed-math option (the rules refuse it where there is none). */
    if (knob_is(k, "math", "fast") && ops->fast_math_option) sb_printf(opts, " %s", ops->fast_math_option);
    /* geometry=compiled: one program per work-group shape (lbm_temporal.h). */
    if (knob_is(k, "geometry", "compiled")) sb_printf(opts, " -DK_WG_X=%zu -DK_WG_Y=%zu", wg[0], wg[1]);
}

static int build(struct lbm_exec *e) {
    struct dev *d = e->d;
    char src[PATH_MAX], rel[128], dir[PATH_MAX];
    snprintf(rel, sizeof rel, "kernels/lbm/lbm%s", d->ops->source_suffix);
    repo_path(src, sizeof src, rel);
    repo_path(dir, sizeof dir, "kernels/lbm");
    struct strbuf opts = {0};
    sb_printf(&opts, "-I%s", dir);
    lbm_build_options(e->k, d->ops, e->local, &opts);
    e->prog = d->ops->build(d, src, opts.s);
    sb_free(&opts);
    if (!e->prog) return -1;
    /* The kernels this schedule launches, and only those: lbm_gpu.h compiles
     * no others (kernels=partial: accelerate_flow and propagate; split: the
     * five; fused, fused-accel: accelerate_flow and the fused step). */
    const int fused = !e->split && !e->partial;
    struct {
        struct kernel **slot;
        const char *name;
        int used;
    } want[] = {{&e->accel, "accelerate_flow", 1},
                {&e->propagate, "propagate", !fused},
                {&e->rebound, "rebound", e->split},
                {&e->collision, "collision", e->split},
                {&e->av_velocity, "av_velocity", e->split},
                {&e->fused, e->temporal > 1 ? "fused_temporal" : "fused_step", fused},
                {&e->reduce, "reduce_steps", 1}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        if (want[i].used && !(*want[i].slot = d->ops->kernel(d, e->prog, want[i].name))) return -1;
    if ((e->overlap || e->halo_cluster > 1) && !e->fused)
        return dev_fail(d, "overlap and halo=cluster act on the fused step: kernels=fused or fused-accel");
    if (e->persistent && !(e->persist = d->ops->kernel(d, e->prog, e->cluster ? "fused_cluster" : "fused_persistent")))
        return -1;
    if (e->overlap && (!d->ops->overlap || d->ops->overlap(d, e->fused, 1) != 0))
        return d->ops->overlap ? -1 : dev_fail(d, "the %s backend cannot overlap launches", d->ops->name);
    /* halo=cluster: a row of tiles is one cluster (lbm_temporal.h). */
    if (e->halo_cluster > 1 && (!d->ops->cluster || d->ops->cluster(d, e->fused, e->halo_cluster) != 0))
        return d->ops->cluster ? -1 : dev_fail(d, "the %s backend has no clusters", d->ops->name);
    if (e->args_struct && !e->by_value &&
        (!(e->bind = d->ops->kernel(d, e->prog, "bind_lattices")) ||
         !(e->swap = d->ops->kernel(d, e->prog, "swap_lattices"))))
        return -1;
    return 0;
}

static int allocate(struct lbm_exec *e) {
    struct dev *d = e->d;
    const size_t n = (size_t)e->in->nx * (size_t)e->in->ny;
    const size_t per_buf = (e->nbuf == 9 ? 1 : 9) * n * sizeof(float);
    for (int l = 0; l < 2; l++)
        for (int b = 0; b < e->nbuf; b++)
            if (!(e->alloc_lat[l][b] = e->lat[l][b] = d->ops->alloc(d, per_buf))) return -1;
    if (!(e->obstacles = d->ops->alloc(d, n))) return -1;
    if (d->ops->write(d, e->obstacles, 0, n, e->in->obstacles) != 0) return -1;
    size_t partial_floats = e->red == RED_HOST_EACH_STEP ? 2 * e->ngroups
                            : e->red >= RED_CHUNKED      ? e->ngroups * (size_t)e->chunk
                                                         : e->ngroups;
    if (!(e->partials = d->ops->alloc(d, partial_floats * sizeof(float)))) return -1;
    if (!(e->av = d->ops->alloc(d, (size_t)e->in->iters * sizeof(float)))) return -1;
    e->host_partials = xcalloc(2 * e->ngroups, sizeof(float));
    e->av_vels = xcalloc((size_t)e->in->iters, sizeof(double));
    if (e->partial) {
        e->host_cells = xcalloc(9 * n, sizeof(float));
        e->host_tmp = xcalloc(9 * n, sizeof(float));
    }
    if (e->args_struct && !e->by_value) {
        /* Room for 18 pointers of up to 64 bits; bound once, swapped per step. */
        const size_t one[2] = {1, 1};
        struct args a = {.n = 0};
        if (!(e->lat_struct = d->ops->alloc(d, 18 * sizeof(uint64_t)))) return -1;
        lbm_push(&a, ARG_BUF(e->lat_struct));
        lbm_push_lattice(&a, e, 0);
        lbm_push_lattice(&a, e, 1);
        if (d->ops->launch(d, e->bind, one, one, a.n, a.a) || d->ops->finish(d)) return -1;
    }
    return lbm_launch_setup(e);
}

static void release(struct lbm_exec *e) {
    struct dev *d = e->d;
    lbm_launch_release(e);
    for (int l = 0; l < 2; l++)
        for (int b = 0; b < e->nbuf; b++) d->ops->buf_free(d, e->lat[l][b]);
    d->ops->buf_free(d, e->obstacles);
    d->ops->buf_free(d, e->partials);
    d->ops->buf_free(d, e->av);
    d->ops->buf_free(d, e->lat_struct);
    free(e->host_cells);
    free(e->host_tmp);
    if (e->prog) d->ops->program_free(d, e->prog);
    free(e->host_partials);
    free(e->av_vels);
}

/* Converts between the canonical AoS grid and the device layout. */
static int lattice_write(struct lbm_exec *e, int which, const float *aos) {
    struct dev *d = e->d;
    const size_t n = (size_t)e->in->nx * (size_t)e->in->ny;
    if (knob_is(e->k, "layout", "aos")) return d->ops->write(d, e->lat[which][0], 0, 9 * n * sizeof(float), aos);
    float *soa = xcalloc(9 * n, sizeof(float));
    for (size_t i = 0; i < n; i++)
        for (int k = 0; k < 9; k++) soa[(size_t)k * n + i] = aos[9 * i + (size_t)k];
    int rc = 0;
    if (e->nbuf == 1) rc = d->ops->write(d, e->lat[which][0], 0, 9 * n * sizeof(float), soa);
    for (int k = 0; k < 9 && e->nbuf == 9 && !rc; k++)
        rc = d->ops->write(d, e->lat[which][k], 0, n * sizeof(float), soa + (size_t)k * n);
    free(soa);
    return rc;
}

static int lattice_read(struct lbm_exec *e, int which, float *aos) {
    struct dev *d = e->d;
    const size_t n = (size_t)e->in->nx * (size_t)e->in->ny;
    if (knob_is(e->k, "layout", "aos")) return d->ops->read(d, e->lat[which][0], 0, 9 * n * sizeof(float), aos);
    float *soa = xcalloc(9 * n, sizeof(float));
    int rc = 0;
    if (e->nbuf == 1) rc = d->ops->read(d, e->lat[which][0], 0, 9 * n * sizeof(float), soa);
    for (int k = 0; k < 9 && e->nbuf == 9 && !rc; k++)
        rc = d->ops->read(d, e->lat[which][k], 0, n * sizeof(float), soa + (size_t)k * n);
    for (size_t i = 0; i < n && !rc; i++)
        for (int k = 0; k < 9; k++) aos[9 * i + (size_t)k] = soa[(size_t)k * n + i];
    free(soa);
    return rc;
}

/* ---- one time step ---- */

static int step_split(struct lbm_exec *e, int slot) {
    const size_t row_g[2] = {(size_t)e->in->nx, 1}, row_l[2] = {e->row_local, 1};
    struct args a = {.n = 0};
    lbm_push_lattice(&a, e, 0);
    lbm_push(&a, ARG_BUF(e->obstacles));
    lbm_push_common(&a, e);
    if (lbm_launch(e, e->accel, row_g, row_l, &a)) return -1;
    a.n = 0;
    lbm_push_lattice(&a, e, 0);
    lbm_push_lattice(&a, e, 1);
    lbm_push_common(&a, e);
    if (lbm_launch(e, e->propagate, e->global, e->local, &a)) return -1;
    a.n = 0;
    lbm_push_lattice(&a, e, 0);
    lbm_push_lattice(&a, e, 1);
    lbm_push(&a, ARG_BUF(e->obstacles));
    lbm_push_common(&a, e);
    if (lbm_launch(e, e->rebound, e->global, e->local, &a)) return -1;
    if (lbm_launch(e, e->collision, e->global, e->local, &a)) return -1;
    a.n = 0;
    lbm_push_lattice(&a, e, 0);
    lbm_push(&a, ARG_BUF(e->obstacles));
    lbm_push(&a, ARG_BUF(e->partials));
    lbm_push_common(&a, e);
    lbm_push(&a, ARG_INT(slot));
    lbm_push(&a, ARG_LOCAL(e->scratch_bytes));
    return lbm_launch(e, e->av_velocity, e->global, e->local, &a);
}

/* The given program: the grid goes to the device and back every step. */
static int step_partial(struct lbm_exec *e, long t) {
    struct dev *d = e->d;
    const size_t bytes = 9 * (size_t)e->in->nx * (size_t)e->in->ny * sizeof(float);
    const size_t row_g[2] = {(size_t)e->in->nx, 1}, row_l[2] = {e->row_local, 1};
    if (d->ops->write(d, e->lat[0][0], 0, bytes, e->host_cells)) return -1;
    struct args a = {.n = 0};
    lbm_push_lattice(&a, e, 0);
    lbm_push(&a, ARG_BUF(e->obstacles));
    lbm_push_common(&a, e);
    if (lbm_launch(e, e->accel, row_g, row_l, &a)) return -1;
    a.n = 0;
    lbm_push_lattice(&a, e, 0);
    lbm_push_lattice(&a, e, 1);
    lbm_push_common(&a, e);
    if (lbm_launch(e, e->propagate, e->global, e->local, &a)) return -1;
    if (d->ops->read(d, e->lat[1][0], 0, bytes, e->host_tmp)) return -1;
    lbm_host_rebound_collision(e->in, e->host_tmp, e->host_cells);
    e->av_vels[t] = lbm_host_av_velocity(e->in, e->host_cells);
    return 0;
}

/* Lattice 0 is always the current state: the fused step writes lattice 1
 * and the two are swapped. */
static int step_fused(struct lbm_exec *e, int slot, int last) {
    struct args a = {.n = 0};
    if (!e->fused_accel) {
        const size_t row_g[2] = {(size_t)e->in->nx, 1}, row_l[2] = {e->row_local, 1};
        if (push_accel_lattice(&a, e)) return -1;
        lbm_push(&a, ARG_BUF(e->obstacles));
        lbm_push_common(&a, e);
        if (lbm_launch(e, e->accel, row_g, row_l, &a)) return -1;
        a.n = 0;
    }
    if (push_step_lattices(&a, e)) return -1;
    lbm_push(&a, ARG_BUF(e->obstacles));
    lbm_push(&a, ARG_BUF(e->partials));
    lbm_push_common(&a, e);
    lbm_push(&a, ARG_INT(slot));
    /* The next step's acceleration, folded in; never after the last step. */
    lbm_push(&a, ARG_INT(e->fused_accel && !last));
    lbm_push(&a, ARG_LOCAL(e->scratch_bytes));
    if (lbm_launch(e, e->fused, e->global, e->local, &a)) return -1;
    if (e->swap) {
        const size_t one[2] = {1, 1};
        a.n = 0;
        lbm_push(&a, ARG_BUF(e->lat_struct));
        if (lbm_launch(e, e->swap, one, one, &a)) return -1;
    }
    lbm_lattices_advance(e, 1);
    return 0;
}

/* Reduces the partials of steps [first, first+nsteps) into av on the device. */
int lbm_reduce_on_device(struct lbm_exec *e, long first, long nsteps) {
    size_t l = e->d->info.max_wg < 64 ? e->d->info.max_wg : 64;
    const size_t g[2] = {((size_t)nsteps + l - 1) / l * l, 1}, loc[2] = {l, 1};
    struct args a = {.n = 0};
    lbm_push(&a, ARG_BUF(e->partials));
    lbm_push(&a, ARG_BUF(e->av));
    lbm_push(&a, ARG_INT((int)e->ngroups));
    lbm_push(&a, ARG_INT((int)nsteps));
    lbm_push(&a, ARG_INT((int)first));
    lbm_push(&a, ARG_FLOAT((float)(1.0 / (double)e->in->fluid_cells)));
    return lbm_launch(e, e->reduce, g, loc, &a);
}

static int read_av(struct lbm_exec *e, long first, long nsteps) {
    float *tmp = xcalloc((size_t)nsteps, sizeof(float));
    int rc = e->d->ops->read(e->d, e->av, (size_t)first * sizeof(float), (size_t)nsteps * sizeof(float), tmp);
    for (long t = 0; t < nsteps && !rc; t++) e->av_vels[first + t] = tmp[t];
    free(tmp);
    return rc;
}

/* After step t: bring this step's average home, or not yet, per the knob. */
int lbm_after_step(struct lbm_exec *e, long t) {
    struct dev *d = e->d;
    const long slot = e->red >= RED_CHUNKED ? t % e->chunk : 0;
    const int chunk_full = slot == e->chunk - 1 || t == e->in->iters - 1;
    switch (e->red) {
    case RED_HOST_EACH_STEP: {
        if (d->ops->read(d, e->partials, 0, 2 * e->ngroups * sizeof(float), e->host_partials)) return -1;
        double su = 0, sc = 0;
        for (size_t g = 0; g < e->ngroups; g++) {
            su += e->host_partials[2 * g];
            sc += e->host_partials[2 * g + 1];
        }
        e->av_vels[t] = sc > 0 ? su / sc : 0.0;
        return 0;
    }
    case RED_LOCAL:
    case RED_BINARY: {
        if (d->ops->read(d, e->partials, 0, e->ngroups * sizeof(float), e->host_partials)) return -1;
        double su = 0;
        for (size_t g = 0; g < e->ngroups; g++) su += e->host_partials[g];
        e->av_vels[t] = su / (double)e->in->fluid_cells; /* counted once, on the host */
        return 0;
    }
    case RED_CHUNKED:
        if (!chunk_full) return 0;
        if (lbm_reduce_on_device(e, t - slot, slot + 1)) return -1;
        return read_av(e, t - slot, slot + 1);
    case RED_DEFERRED: return chunk_full ? lbm_reduce_on_device(e, t - slot, slot + 1) : 0;
    }
    return 0;
}

/* One repetition: the initial state in, every step, the averages home. */
static int repetition(struct lbm_exec *e, const float *initial, double *wall, double *device) {
    struct dev *d = e->d;
    if (lattice_write(e, 0, initial) || lbm_launch_reset(e) || d->ops->finish(d)) return -1;
    if (e->partial) memcpy(e->host_cells, initial, 9 * (size_t)e->in->nx * (size_t)e->in->ny * sizeof(float));
    if (d->ops->mark(d, 0)) return -1;
    double t0 = clock_now();
    if (!e->split && e->fused_accel) {
        /* The first step's acceleration; fused_step does every later one. */
        const size_t row_g[2] = {(size_t)e->in->nx, 1}, row_l[2] = {e->row_local, 1};
        struct args a = {.n = 0};
        lbm_push_lattice(&a, e, 0);
        lbm_push(&a, ARG_BUF(e->obstacles));
        lbm_push_common(&a, e);
        if (lbm_launch(e, e->accel, row_g, row_l, &a)) return -1;
    }
    if (e->bind_once || e->persistent) {
        if (lbm_launch_run(e)) return -1;
    }
    for (long t = 0; t < e->in->iters && !e->bind_once && !e->persistent; t++) {
        const int slot = e->red >= RED_CHUNKED ? (int)(t % e->chunk) : 0;
        if (e->partial) {
            if (step_partial(e, t)) return -1;
            continue;
        }
        int rc = e->split ? step_split(e, slot) : step_fused(e, slot, t == e->in->iters - 1);
        if (rc || lbm_after_step(e, t)) return -1;
    }
    if (e->red == RED_DEFERRED && read_av(e, 0, e->in->iters)) return -1;
    if (d->ops->mark(d, 1) || d->ops->finish(d)) return -1;
    *wall = clock_now() - t0;
    return d->ops->elapsed(d, device);
}

/* A repetition as timed_reps calls it. */
struct rep_ctx {
    struct lbm_exec *e;
    const float *initial;
};
static int timed_repetition(void *ctx, double *wall, double *device) {
    struct rep_ctx *c = ctx;
    return repetition(c->e, c->initial, wall, device);
}

/* timed_check: the repetition's per-step averages (the host has them),
 * summed; none for work=empty, whose numbers are not results. */
static int repetition_sum(void *ctx, double *sum) {
    const struct rep_ctx *c = ctx;
    if (c->e->empty) return -1;
    *sum = 0;
    for (long t = 0; t < c->e->in->iters; t++) *sum += c->e->av_vels[t];
    return 0;
}
static const struct timed_check repetition_check = {repetition_sum, LBM_REP_RTOL};

static void fail(struct measurement *m, enum status st, const struct dev *d) {
    m->status = st;
    str_copy(m->reason, sizeof m->reason, d->err);
}

struct app_result *lbm_execute(struct dev *d, const struct app_input *in, const struct knob_set *k,
                               const unsigned wg[2], int warmup, int reps, struct measurement *m) {
    if (knob_is(k, "host", "python")) return lbm_python_execute(d, in, k, wg, warmup, reps, m);
    /* A directive program runs its own time loop (directive_steps.c). */
    if (d->info.caps.directives) return lbm_execute_directive(d, in, k, wg, warmup, reps, m);
    struct lbm_exec e = {.d = d, .in = in, .k = k};
    e.nbuf = knob_is(k, "layout", "soa") ? 9 : 1;
    e.temporal = (int)knob_int(k, "temporal");
    /* tile=inner: a group per tile, each group larger than its tile. */
    unsigned tile[2];
    lbm_temporal_tile(k, wg, tile);
    e.global[0] = (size_t)in->nx / tile[0] * wg[0];
    e.global[1] = (size_t)in->ny / tile[1] * wg[1];
    e.local[0] = wg[0];
    e.local[1] = wg[1];
    e.row_local = wg[0];
    while (in->nx % (int)e.row_local) e.row_local--;
    e.ngroups = (e.global[0] / e.local[0]) * (e.global[1] / e.local[1]);
    e.red = reduction_of(k);
    e.split = knob_is(k, "kernels", "split");
    e.fused_accel = knob_is(k, "kernels", "fused-accel");
    e.finish_each = knob_is(k, "sync", "finish-each");
    e.empty = knob_is(k, "work", "empty");
    e.partial = knob_is(k, "kernels", "partial");
    e.args_struct = knob_is(k, "args", "struct");
    e.by_value = d->ops->address != NULL;
    e.bind_once = knob_is(k, "bind", "once");
    e.overlap = !knob_is(k, "overlap", "off");
    e.graph = knob_is(k, "launch", "graph");
    e.batch = knob_int(k, "batch");
    e.persistent = !knob_is(k, "persistent", "off");
    e.cluster = knob_is(k, "persistent", "cluster")
                    ? (unsigned)lbm_cluster_size(in, &d->info, wg, knob_is(k, "cluster", "most"))
                    : 0;
    e.chunk = e.red == RED_CHUNKED    ? knob_int(k, "chunk")
              : e.red == RED_DEFERRED ? lbm_partials_capacity(in, &d->info, tile)
                                      : 1;
    if (e.chunk > in->iters) e.chunk = in->iters;
    /* A cluster sums each step within each block: one partial per block. */
    if (e.cluster) e.ngroups = e.cluster;
    e.scratch_bytes = (e.red == RED_HOST_EACH_STEP ? 2 : 1) * (size_t)wg[0] * wg[1] * sizeof(float);
    if (e.temporal > 1) e.scratch_bytes = (size_t)lbm_temporal_local_bytes(k, tile, wg);
    e.halo_cluster = lbm_halo_cluster(k, in, wg);
    m->iters = in->iters;
    m->iters_full = in->iters_full;
    m->warmup = warmup;
    m->cell_updates = (double)in->nx * (double)in->ny * (double)in->iters;

    struct app_result *res = NULL;
    if (build(&e)) {
        fail(m, ST_COMPILE_ERROR, d);
        release(&e);
        return NULL;
    }
    if (allocate(&e)) {
        fail(m, ST_RUNTIME_ERROR, d);
        release(&e);
        return NULL;
    }
    const size_t n = (size_t)in->nx * (size_t)in->ny;
    float *initial = xcalloc(9 * n, sizeof(float));
    lbm_initial_cells(in, initial);
    struct rep_ctx rctx = {&e, initial};
    if (timed_reps(d, warmup, reps, m, timed_repetition, &rctx, &repetition_check)) fail(m, ST_RUNTIME_ERROR, d);
    if (m->status != ST_RUNTIME_ERROR) {
        res = xcalloc(1, sizeof *res);
        res->iters = in->iters;
        res->nx = in->nx;
        res->ny = in->ny;
        res->av_vels = e.av_vels;
        e.av_vels = NULL;
        res->cells = xcalloc(9 * n, sizeof(float));
        if (e.partial) memcpy(res->cells, e.host_cells, 9 * n * sizeof(float));
        if (!e.partial && lattice_read(&e, 0, res->cells)) {
            fail(m, ST_RUNTIME_ERROR, d);
            lbm_result_free(res);
            res = NULL;
        } else {
            m->status = e.empty ? ST_UNVERIFIED : ST_OK; /* verify() decides ok or wrong */
            if (e.empty) str_copy(m->reason, sizeof m->reason, "work=empty: computation removed, not verified");
        }
    }
    free(initial);
    release(&e);
    return res;
}
