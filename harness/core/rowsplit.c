/* Row splits between a set's members: the rows each writes, the exchange
 * and the run-time balancer (rowsplit.h). */
#include "rowsplit.h"

#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

static int clamp(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

const char *rowsplit_invalid(const struct knob_set *k, int lo, int hi) {
    (void)k;
    return hi - lo < 2 ? "a device set splits the grid's rows, and this grid has fewer than two to split" : NULL;
}

/* Member 0's rows for a share: rounded, at least one row each. */
static int cut_at(const struct rowsplit *s, double share) {
    return s->lo + clamp((int)lround(share * (double)(s->hi - s->lo)), 1, s->hi - s->lo - 1);
}

void rowsplit_init(struct rowsplit *s, const struct knob_set *k, int lo, int hi, int reach, double start) {
    *s = (struct rowsplit){.lo = lo, .hi = hi, .reach = reach, .halo = (int)knob_int(k, "exchange")};
    if (s->halo < 1) s->halo = 1;
    const double fixed = knob_share(k, "split");
    s->solo = knob_is(k, "split", "first") ? 0 : knob_is(k, "split", "second") ? 1 : -1;
    s->balance = fixed < 0 && s->solo < 0;
    s->share = fixed > 0 ? fixed : start > 0 && start < 1 ? start : 0.5;
    s->cut = cut_at(s, s->share);
    if (s->solo >= 0) { /* every row on one member: the other owns none, and no halo is ever due */
        s->cut = s->solo == 0 ? hi : lo;
        s->share = s->solo == 0 ? 1 : 0;
    }
    /* The whole grid is current on both members at the start: as after an
     * exchange. */
    s->since = 0;
}

int rowsplit_room(const struct rowsplit *s) { return s->solo >= 0 ? INT_MAX / 2 : s->halo - s->since; }

void rowsplit_rows(const struct rowsplit *s, int i, int ahead, int n, int *r0, int *r1) {
    if (s->solo >= 0) { /* the lone member's rows, and none for the other */
        *r0 = i == s->solo ? s->lo : s->hi;
        *r1 = s->hi;
        return;
    }
    const int extra = (s->halo - s->since - ahead - n) * s->reach;
    *r0 = i == 0 ? s->lo : clamp(s->cut - extra, s->lo, s->hi);
    *r1 = i == 0 ? clamp(s->cut + extra, s->lo, s->hi) : s->hi;
}

void rowsplit_owned(const struct rowsplit *s, int i, int *r0, int *r1) {
    *r0 = i == 0 ? s->lo : s->cut;
    *r1 = i == 0 ? s->cut : s->hi;
}

void rowsplit_stepped(struct rowsplit *s, int n, const double busy[DEVSET_MAX]) {
    for (int i = 0; i < DEVSET_MAX; i++) {
        s->busy[i] += busy[i];
        for (int t = 0; t < n; t++) { /* the rows of each step, one fewer reach each */
            int r0, r1;
            rowsplit_rows(s, i, t, 1, &r0, &r1);
            s->work[i] += r1 - r0;
        }
    }
    s->since += n;
}

/* The balancer. A member's time for a batch is about its rows times its
 * cost per row-step (plus launch and finish overheads, which the cost per
 * row absorbs); both take as long when member 0 has the share c1 / (c0 +
 * c1) of the rows. Each window of at least BALANCE_WINDOW_S (a step of a
 * small grid lasts microseconds, and one step's time is mostly noise) asks
 * for a share; the cut follows the median of the last ROWSPLIT_WINDOWS
 * asks, so a window in which the host preempted one member's thread (on a
 * loaded machine, tens of milliseconds) moves nothing, where a mean would
 * follow it. */
#define BALANCE_WINDOW_S 0.004
static void rebalance(struct rowsplit *s) {
    if (!s->balance || s->busy[0] + s->busy[1] < BALANCE_WINDOW_S || s->work[0] <= 0 || s->work[1] <= 0) return;
    const double c0 = s->busy[0] / s->work[0], c1 = s->busy[1] / s->work[1];
    s->wanted[s->windows++ % ROWSPLIT_WINDOWS] = c1 / (c0 + c1);
    s->busy[0] = s->busy[1] = s->work[0] = s->work[1] = 0;
    const int n = s->windows < ROWSPLIT_WINDOWS ? s->windows : ROWSPLIT_WINDOWS;
    double v[ROWSPLIT_WINDOWS];
    for (int i = 0; i < n; i++) { /* insertion sort: five values */
        int j = i;
        for (; j > 0 && v[j - 1] > s->wanted[i]; j--) v[j] = v[j - 1];
        v[j] = s->wanted[i];
    }
    s->share = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int rowsplit_next_cut(struct rowsplit *s) {
    if (!s->balance) return s->cut;
    rebalance(s);
    return cut_at(s, s->share);
}

/* Copies rows [r0, r1) of every plane from member `from` to member `to`. */
static int move_rows(struct dev *set, struct dev *const m[DEVSET_MAX], struct buf *const grid[DEVSET_MAX], int from,
                     int to, int r0, int r1, const struct rowsplit_layout *l, void *scratch) {
    if (r1 <= r0) return 0;
    const size_t bytes = (size_t)(r1 - r0) * l->row_bytes;
    for (int p = 0; p < l->planes; p++) {
        const size_t off = (size_t)p * l->plane_bytes + (size_t)r0 * l->row_bytes;
        if (m[from]->ops->read(m[from], grid[from], off, bytes, scratch))
            return dev_fail(set, "%s: %s", m[from]->info.spec, m[from]->err);
        if (m[to]->ops->write(m[to], grid[to], off, bytes, scratch))
            return dev_fail(set, "%s: %s", m[to]->info.spec, m[to]->err);
    }
    return 0;
}

size_t rowsplit_scratch_bytes(const struct rowsplit *s, const struct rowsplit_layout *l) {
    (void)s;
    return l->row_bytes * (size_t)(s->hi - s->lo + 1); /* a move never exceeds the rows a step updates */
}

/* Tests only (tests/integration/hybrid.sh): HARNESS_TEST_SPLIT_FAULT=
 * "crash:K" or "hang:K" makes a run with exchange=K die of SIGSEGV or hang
 * at its first exchange, inside the worker, to show that a set's config
 * costs its row and nothing more. */
static void test_fault(const struct rowsplit *s) {
    const char *f = getenv("HARNESS_TEST_SPLIT_FAULT");
    const char *colon = f ? strchr(f, ':') : NULL;
    if (!colon || atoi(colon + 1) != s->halo) return;
    if (!strncmp(f, "crash:", 6)) raise(SIGSEGV);
    if (!strncmp(f, "hang:", 5))
        for (;;) pause();
}

int rowsplit_exchange(struct rowsplit *s, struct dev *set, struct buf *const grid[DEVSET_MAX],
                      const struct rowsplit_layout *l, void *scratch) {
    test_fault(s);
    struct devset *ds = devset_of(set);
    const int old = s->cut, deep = s->halo * s->reach;
    const int cut = rowsplit_next_cut(s);
    /* Member 0 has [lo, old) current and will read [lo, cut + deep) until the
     * next exchange; member 1 has [old, hi) and will read [cut - deep, hi). */
    const int to0 = clamp(cut + deep, s->lo, s->hi), from1 = clamp(cut - deep, s->lo, s->hi);
    if (move_rows(set, ds->m, grid, 1, 0, old, to0, l, scratch) ||
        move_rows(set, ds->m, grid, 0, 1, from1, old, l, scratch))
        return -1;
    s->cut = cut;
    s->since = 0;
    return 0;
}
