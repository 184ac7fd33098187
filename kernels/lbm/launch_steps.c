/* The LBM steps where the cost of a launch is the thing to beat (the report
 * stopped at ~4 us per enqueue on small grids):
 *   bind=once        the fused step bound once per lattice pair (two
 *                    instances: a ping-pong pair), so a step sets no
 *                    arguments; the step index lives on the device
 *   launch=graph     `batch` bound steps recorded once (from each lattice),
 *                    replayed chunk by chunk: one graph launch per batch
 *   persistent=grid  one resident launch per chunk of steps, a grid-wide
 *                    barrier between the steps inside
 *   persistent=cluster  one thread-block cluster per chunk of steps, the
 *                    grid in its blocks' shared memory (lbm_cluster.h)
 *   temporal=T       each bound launch runs up to T steps (lbm_temporal.h);
 *                    a launch still swaps the pair once, so the host counts
 *                    launches where it counted steps
 * Graphs and persistent launches run a whole chunk without the host, so
 * each chunk's partials are reduced on the device between chunks, as
 * reduction=chunked|deferred do step by step. */
#include "base/util.h"
#include "lbm_exec.h"

void lbm_lattices_advance(struct lbm_exec *e, long n) {
    if (n % 2 == 0) return;
    for (int b = 0; b < e->nbuf; b++) {
        struct buf *t = e->lat[0][b];
        e->lat[0][b] = e->lat[1][b];
        e->lat[1][b] = t;
    }
    e->phys ^= 1;
}

static void push_alloc_lattice(struct args *a, const struct lbm_exec *e, int p) {
    for (int b = 0; b < e->nbuf; b++) lbm_push(a, ARG_BUF(e->alloc_lat[p][b]));
}

/* One step from allocated lattice p: accelerate_flow first when it is not
 * folded in (kernels=fused), then the fused step. Nothing is set. */
static int bound_step(struct lbm_exec *e, int p) {
    struct dev *d = e->d;
    if (e->accel_bound[p]) {
        const size_t row_g[2] = {(size_t)e->in->nx, 1}, row_l[2] = {e->row_local, 1};
        if (d->ops->launch_bound(d, e->accel_bound[p], row_g, row_l)) return -1;
    }
    return d->ops->launch_bound(d, e->step_bound[p], e->global, e->local);
}

static int bind_pair(struct lbm_exec *e) {
    struct dev *d = e->d;
    if (!d->ops->bind || !d->ops->launch_bound)
        return dev_fail(d, "the %s backend cannot bind arguments once", d->ops->name);
    for (int p = 0; p < 2; p++) {
        struct args a = {.n = 0};
        push_alloc_lattice(&a, e, p);
        push_alloc_lattice(&a, e, 1 - p);
        lbm_push(&a, ARG_BUF(e->obstacles));
        lbm_push(&a, ARG_BUF(e->partials));
        lbm_push_common(&a, e);
        lbm_push(&a, ARG_INT(0));              /* slot: from the clock */
        lbm_push(&a, ARG_INT(e->fused_accel)); /* cleared on the device for the last step */
        lbm_push(&a, ARG_BUF(e->clock));
        lbm_push(&a, ARG_INT(p)); /* its step in clock[p], the next into clock[1-p] */
        lbm_push(&a, ARG_INT((int)e->in->iters));
        lbm_push(&a, ARG_INT((int)e->chunk));
        lbm_push(&a, ARG_LOCAL(e->scratch_bytes));
        if (!(e->step_bound[p] = d->ops->bind(d, e->fused, a.n, a.a))) return -1;
        if (e->fused_accel) continue;
        a.n = 0;
        push_alloc_lattice(&a, e, p);
        lbm_push(&a, ARG_BUF(e->obstacles));
        lbm_push_common(&a, e);
        if (!(e->accel_bound[p] = d->ops->bind(d, e->accel, a.n, a.a))) return -1;
    }
    return 0;
}

/* `batch` steps from allocated lattice p, recorded. */
static int record(struct lbm_exec *e, int p) {
    struct dev *d = e->d;
    if (!d->ops->record_begin) return dev_fail(d, "the %s backend cannot record launches", d->ops->name);
    if (d->ops->record_begin(d)) return -1;
    int rc = 0;
    for (long s = 0; s < e->batch && !rc; s++) rc = bound_step(e, (int)((p + s) & 1));
    char why[sizeof d->err];
    str_copy(why, sizeof why, d->err);
    struct recording *r = d->ops->record_end(d);
    if (rc) {
        d->ops->recording_free(d, r);
        str_copy(d->err, sizeof d->err, why);
        return -1;
    }
    return (e->rec[p] = r) ? 0 : -1;
}

int lbm_launch_setup(struct lbm_exec *e) {
    struct dev *d = e->d;
    if (!e->bind_once && !e->persistent) return 0;
    /* Two ints: the step as each instance of the pair reads it (bind=once),
     * or the arrivals and the generation of the grid barrier (persistent=grid). */
    if (!(e->clock = d->ops->alloc(d, 2 * sizeof(int)))) return -1;
    if (lbm_launch_reset(e)) return -1;
    if (e->cluster)
        return d->ops->launch_cluster ? 0 : dev_fail(d, "the %s backend has no cluster launches", d->ops->name);
    if (e->persistent)
        return d->ops->launch_resident ? 0 : dev_fail(d, "the %s backend has no resident launches", d->ops->name);
    if (bind_pair(e)) return -1;
    if (e->graph && (record(e, 0) || record(e, 1))) return -1;
    return 0;
}

void lbm_launch_release(struct lbm_exec *e) {
    struct dev *d = e->d;
    for (int p = 0; p < 2; p++) {
        if (e->rec[p]) d->ops->recording_free(d, e->rec[p]);
        if (e->step_bound[p]) d->ops->bound_free(d, e->step_bound[p]);
        if (e->accel_bound[p]) d->ops->bound_free(d, e->accel_bound[p]);
        e->rec[p] = NULL;
        e->step_bound[p] = e->accel_bound[p] = NULL;
    }
    if (e->clock) d->ops->buf_free(d, e->clock);
    e->clock = NULL;
}

int lbm_launch_reset(struct lbm_exec *e) {
    const int zero[2] = {0, 0};
    return e->clock ? e->d->ops->write(e->d, e->clock, 0, sizeof zero, zero) : 0;
}

/* The steps of the bound launch that starts at step t: the same count the
 * kernel takes (fused_temporal): at most T, never past the last step or
 * the end of the reduction chunk. */
static long launch_steps(const struct lbm_exec *e, long t) {
    long n = e->temporal > 1 ? e->temporal : 1;
    if (n > e->in->iters - t) n = e->in->iters - t;
    if (n > e->chunk - t % e->chunk) n = e->chunk - t % e->chunk;
    return n;
}

/* The n steps of a chunk (from a chunk's first step) by replaying the
 * recordings, the rest one launch at a time. Counted in launches: each
 * one swaps the pair, however many steps it runs. An odd batch ends on the
 * other lattice, so each replay starts from where the last one left off. */
static int graph_chunk(struct lbm_exec *e, long n) {
    struct dev *d = e->d;
    const long per = e->temporal > 1 ? e->temporal : 1;
    n = (n + per - 1) / per; /* launches: all of `per` steps but the chunk's last */
    const long whole = n / e->batch;
    if (e->batch % 2 == 0) {
        if (whole && d->ops->replay(d, e->rec[e->phys], whole)) return -1;
    } else {
        for (long r = 0; r < whole; r++) {
            if (d->ops->replay(d, e->rec[e->phys], 1)) return -1;
            lbm_lattices_advance(e, e->batch);
        }
    }
    for (long s = 0; s < n % e->batch; s++) {
        if (bound_step(e, e->phys)) return -1;
        lbm_lattices_advance(e, 1);
    }
    return 0;
}

/* Steps [first, first+n) in one resident launch over the current pair. */
static int persistent_chunk(struct lbm_exec *e, long first, long n) {
    struct dev *d = e->d;
    struct args a = {.n = 0};
    lbm_push_lattice(&a, e, 0);
    lbm_push_lattice(&a, e, 1);
    lbm_push(&a, ARG_BUF(e->obstacles));
    lbm_push(&a, ARG_BUF(e->partials));
    lbm_push_common(&a, e);
    lbm_push(&a, ARG_INT((int)first));
    lbm_push(&a, ARG_INT((int)n));
    lbm_push(&a, ARG_INT((int)e->in->iters));
    lbm_push(&a, ARG_INT((int)e->chunk));
    if (e->cluster) {
        /* Both lattices' bands, the warp sums and the obstacles, per block. */
        lbm_push(&a, ARG_LOCAL((size_t)lbm_cluster_smem(e->in, (int)e->cluster)));
        if (d->ops->launch_cluster(d, e->persist, e->cluster, e->local, a.n, a.a)) return -1;
        lbm_lattices_advance(e, n);
        return 0;
    }
    lbm_push(&a, ARG_BUF(e->clock));
    lbm_push(&a, ARG_LOCAL(e->scratch_bytes));
    size_t groups = e->ngroups; /* more than one per tile would idle */
    if (d->ops->launch_resident(d, e->persist, &groups, e->local, a.n, a.a)) return -1;
    lbm_lattices_advance(e, n);
    return 0;
}

int lbm_launch_run(struct lbm_exec *e) {
    struct dev *d = e->d;
    const long iters = e->in->iters;
    if (!e->graph && !e->persistent) {
        for (long t = 0; t < iters;) {
            const long n = launch_steps(e, t);
            if (bound_step(e, e->phys)) return -1;
            if (e->finish_each && d->ops->finish(d)) return -1;
            lbm_lattices_advance(e, 1);
            for (long end = t + n; t < end; t++)
                if (lbm_after_step(e, t)) return -1;
        }
        return 0;
    }
    for (long first = 0; first < iters; first += e->chunk) {
        const long n = iters - first < e->chunk ? iters - first : e->chunk;
        if (e->persistent ? persistent_chunk(e, first, n) : graph_chunk(e, n)) return -1;
        if (lbm_after_step(e, first + n - 1)) return -1; /* the chunk's reduction */
    }
    return 0;
}
