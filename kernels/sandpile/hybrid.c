/* The sandpile on a device set (--device A+B): the grid's rows split
 * between the two members by the core's row split (harness/core/rowsplit.h:
 * the knobs split and halo, the exchange, the balancer), each member
 * running the same kernels as alone (schedule.c) on its rows of the moment.
 *
 * The loop is the single device's (schedule.c): run to the next check,
 * check, stop at the first stable step. Between checks the steps go in
 * batches that end at the next exchange; in each batch both members run
 * at once (devset_parallel), and a batch that ends at a check has each
 * member read its own part of the answer in the same breath:
 *   flag, predict  its flags: the last unstable step it saw. A member's
 *                  flags cover its own rows every step (and, correctly, the
 *                  neighbour rows it recomputed), so the grid's last
 *                  unstable step is the larger of the two: the count is
 *                  exactly the single device's.
 *   grid           its own rows read back and scanned; when both halves
 *                  are stable, the exact step from the flags as above.
 *   none           nothing: the serial count.
 * The asynchronous rule has no rows to split (it sweeps in place, in an
 * order of its own) and is refused on sets (app.c).
 *
 * Timing: the host clock from the first batch until the count is known, as
 * alone; no device clock spans two devices, so the device time is unknown
 * (NAN). split=auto: each repetition starts from the share the previous one
 * ended at (the first from 0.5), so the warm-up repetitions teach the
 * balancer and the timed ones start near balance; the share it ended at is
 * in the row's reason. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/devset.h"
#include "core/rowsplit.h"
#include "core/timed.h"
#include "schedule.h"

struct sp_set {
    struct dev *set;
    struct devset *ds;
    struct sp_exec e[DEVSET_MAX];
    struct rowsplit split;
    const struct knob_set *k;
    double share; /* where the last repetition's balancer ended (0: none yet) */
    struct rowsplit_layout layout;
    void *scratch;
    /* The batch in progress, read by both members' threads. */
    long it;   /* steps done before it */
    int n;     /* steps in it */
    int check; /* it ends at a check: each member reads its answer */
    long from; /* the check covers steps from+1 .. it+n */
    long found[DEVSET_MAX];
    int stable[DEVSET_MAX]; /* detect=grid: the member's own rows are stable */
    long iters;
};

/* Whether rows [r0, r1) of g hold no cell with 4 grains or more. */
static int rows_stable(const unsigned *g, int w, int r0, int r1) {
    for (size_t i = (size_t)r0 * (size_t)w; i < (size_t)r1 * (size_t)w; i++)
        if (g[i] >= 4) return 0;
    return 1;
}

/* Member i's answer at a check (its thread). */
static int member_check(struct sp_set *s, int i) {
    struct sp_exec *e = &s->e[i];
    const long to = s->it + s->n;
    s->found[i] = -1;
    s->stable[i] = 1;
    if (e->detect == DETECT_GRID) {
        int r0, r1;
        rowsplit_owned(&s->split, i, &r0, &r1);
        if (r1 <= r0) return s->found[i] = 0, 0; /* the idle member: nothing of its own, nothing unstable */
        const size_t row = (size_t)e->in->w * sizeof(unsigned);
        if (e->d->ops->read(e->d, e->grid[0], (size_t)r0 * row, (size_t)(r1 - r0) * row,
                            e->host_grid + (size_t)r0 * (size_t)e->in->w))
            return -1;
        if (!(s->stable[i] = rows_stable(e->host_grid, e->in->w, r0, r1))) return 0;
        if (to - s->from == 1) return s->found[i] = to, 0; /* checked every step: this is the first stable one */
    }
    return sp_first_stable(e, s->from, to, &s->found[i]);
}

/* Member i's part of a batch: launches of up to `steps` steps, each over
 * the rows the split gives it for that launch; then its check. */
static int member_batch(void *ctx, int i) {
    struct sp_set *s = ctx;
    struct sp_exec *e = &s->e[i];
    for (int t = 0; t < s->n;) {
        const int n = s->n - t < e->steps ? s->n - t : e->steps;
        rowsplit_rows(&s->split, i, t, n, &e->row0, &e->row1);
        if (e->row1 <= e->row0) break; /* split=first|second: the idle member */
        sp_geometry(e, e->wg);
        if (sp_advance(e, s->it + t, s->it + t + n)) return -1;
        t += n;
    }
    return s->check ? member_check(s, i) : 0;
}

/* Steps it+1 .. to on both members; with check, each reads its answer for
 * steps from+1 .. to at the end. */
static int advance(struct sp_set *s, long it, long to, int check, long from) {
    while (it < to) {
        struct buf *const grids[DEVSET_MAX] = {s->e[0].grid[0], s->e[1].grid[0]};
        if (rowsplit_room(&s->split) == 0 && rowsplit_exchange(&s->split, s->set, grids, &s->layout, s->scratch))
            return -1;
        const long room = rowsplit_room(&s->split);
        s->it = it;
        s->n = (int)(to - it < room ? to - it : room);
        s->check = check && it + s->n == to;
        s->from = from;
        double busy[DEVSET_MAX];
        if (devset_parallel(s->set, member_batch, s, busy)) return -1;
        rowsplit_stepped(&s->split, s->n, busy);
        it += s->n;
    }
    return 0;
}

/* The check's answer from both members: the first stable step, or -1. */
static long combined(const struct sp_set *s) {
    long found = 0;
    for (int i = 0; i < DEVSET_MAX; i++) {
        if (!s->stable[i] || s->found[i] < 0) return -1;
        if (s->found[i] > found) found = s->found[i];
    }
    return found;
}

static int repetition(void *ctx, double *wall, double *device) {
    struct sp_set *s = ctx;
    const struct sp_exec *e = &s->e[0];
    for (int i = 0; i < DEVSET_MAX; i++)
        if (sp_start(&s->e[i])) return dev_fail(s->set, "%s: %s", s->e[i].d->info.spec, s->e[i].d->err);
    const struct rowsplit last = s->split;
    rowsplit_init(&s->split, s->k, 1, e->in->h - 1, 1, s->share, s->set);
    rowsplit_carry(&s->split, &last); /* the balancer's history: a repetition's first window is one sample */
    const double t0 = clock_now();
    long it = 0, count = 0;
    if (!e->in->initial_stable) {
        long next = e->detect == DETECT_NONE ? e->target : e->detect == DETECT_PREDICT ? e->predict_at : e->every;
        for (;;) {
            if (next > e->limit) next = e->limit;
            const int check = e->detect != DETECT_NONE;
            if (advance(s, it, next, check, it)) return -1;
            it = next;
            const long found = check ? combined(s) : it;
            if (found >= 0 || it >= e->limit) {
                count = found >= 0 ? found : it;
                break;
            }
            next = it + e->every;
        }
    }
    *wall = clock_now() - t0;
    *device = NAN;
    s->iters = count;
    rowsplit_finish(&s->split); /* the last window, and the only one when no exchange came */
    s->share = s->split.share;
    return 0;
}

static struct app_result *result(struct sp_set *s);

/* timed_check: the repetition's final grid, gathered from both members
 * and hashed, exactly (schedule.c's check, over the set). */
static int repetition_sum(void *ctx, double *sum) {
    struct sp_set *s = ctx;
    struct app_result *res = result(s);
    if (!res) return -1;
    const struct app_input *in = s->e[0].in;
    *sum = (double)hash_fnv1a(res->grid, (size_t)in->w * (size_t)in->h * sizeof(unsigned), 0);
    sandpile_result_free(res);
    return 0;
}
static const struct timed_check repetition_check = {repetition_sum, 0};

/* The final grid: each member's own rows (the border is never written: 0). */
static struct app_result *result(struct sp_set *s) {
    const struct app_input *in = s->e[0].in;
    struct app_result *res = xcalloc(1, sizeof *res);
    res->iters = s->iters;
    res->count_comparable = 1;
    res->grid = xcalloc((size_t)in->w * (size_t)in->h, sizeof(unsigned));
    const size_t row = (size_t)in->w * sizeof(unsigned);
    for (int i = 0; i < DEVSET_MAX; i++) {
        struct dev *d = s->e[i].d;
        int r0, r1;
        rowsplit_owned(&s->split, i, &r0, &r1);
        if (r1 > r0 && d->ops->read(d, s->e[i].grid[0], (size_t)r0 * row, (size_t)(r1 - r0) * row,
                                    res->grid + (size_t)r0 * (size_t)in->w)) {
            dev_fail(s->set, "%s: %s", d->info.spec, d->err);
            sandpile_result_free(res);
            return NULL;
        }
    }
    return res;
}

struct app_result *sandpile_execute_set(struct dev *set, const struct app_input *in, const struct knob_set *k,
                                        const unsigned wg[2], int warmup, int reps, struct measurement *m) {
    struct sp_set s = {.set = set, .ds = devset_of(set), .k = k};
    const struct sp_serial *serial = sandpile_serial(in);
    m->warmup = warmup;
    m->iters_full = serial->iters_full;
    int ok = 1;
    for (int i = 0; i < DEVSET_MAX && ok; i++) {
        ok = sp_setup(&s.e[i], s.ds->m[i], in, k, wg, m) == 0;
        if (!ok) { /* the member's reason, named */
            char why[sizeof m->reason];
            str_copy(why, sizeof why, m->reason);
            str_fmt(m->reason, sizeof m->reason, "%s: %s", s.ds->m[i]->info.spec, why);
        }
    }
    struct app_result *res = NULL;
    if (ok) {
        s.layout = (struct rowsplit_layout){.row_bytes = (size_t)in->w * sizeof(unsigned), .planes = 1};
        rowsplit_init(&s.split, k, 1, in->h - 1, 1, 0, set);
        s.scratch = xcalloc(1, rowsplit_scratch_bytes(&s.split, &s.layout));
        if (timed_reps(set, warmup, reps, m, repetition, &s, &repetition_check) || !(res = result(&s))) {
            m->status = ST_RUNTIME_ERROR;
            str_copy(m->reason, sizeof m->reason, set->err);
        } else {
            m->status = ST_OK;                                                      /* verify() decides ok or wrong */
            const int alone = s.split.share <= 0 ? 1 : s.split.share >= 1 ? 0 : -1; /* an idle end */
            if (s.split.balance && alone >= 0)
                str_fmt(m->reason, sizeof m->reason, "split auto ended at %d: every row on %s, none on %s", 1 - alone,
                        s.ds->m[alone]->info.spec, s.ds->m[1 - alone]->info.spec);
            else if (s.split.balance)
                str_fmt(m->reason, sizeof m->reason, "split auto ended at %.3f: rows 1..%d on %s, %d..%d on %s",
                        s.split.share, s.split.cut - 1, s.ds->m[0]->info.spec, s.split.cut, in->h - 2,
                        s.ds->m[1]->info.spec);
        }
    }
    m->iters = res ? s.iters : serial->iters;
    m->cell_updates = sandpile_interior(in) * (double)m->iters;
    for (int i = 0; i < DEVSET_MAX; i++)
        if (s.e[i].d) sp_release(&s.e[i]);
    free(s.scratch);
    return res;
}
