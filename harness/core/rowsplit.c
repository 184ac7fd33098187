/* Row splits between a set's members: the rows each writes, the exchange
 * and the run-time balancer (rowsplit.h). */
#include "core/rowsplit.h"

#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/util.h"

static int clamp(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

const char *rowsplit_invalid(const struct knob_set *k, int lo, int hi) {
    (void)k;
    return hi - lo < 2 ? "a device set splits the grid's rows, and this grid has fewer than two to split" : NULL;
}

/* Member 0's rows for a share: rounded, at least one row each. */
static int cut_at(const struct rowsplit *s, double share) {
    return s->lo + clamp((int)lround(share * (double)(s->hi - s->lo)), 1, s->hi - s->lo - 1);
}

/* The balancer's centre as a cut: cut_at's, except that shares of exactly 0
 * and 1 are the idle ends (one member owns every row; rowsplit.h), which
 * only the probes and the two-CPU trial reach. */
static int centre_cut(const struct rowsplit *s) {
    return s->share <= 0 ? s->lo : s->share >= 1 ? s->hi : cut_at(s, s->share);
}

/* Whether member i owns no rows at the cut (split=auto at an idle end). */
static int idle(const struct rowsplit *s, int i) { return i == 0 ? s->cut <= s->lo : s->cut >= s->hi; }

void rowsplit_init(struct rowsplit *s, const struct knob_set *k, int lo, int hi, int reach, double start,
                   struct dev *set) {
    const struct devset *ds = devset_of(set);
    *s = (struct rowsplit){.lo = lo, .hi = hi, .reach = reach, .halo = (int)knob_int(k, "exchange")};
    s->compete = ds && rowsplit_compete(ds->m[0]->info.kind, ds->m[1]->info.kind);
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

int rowsplit_compete(const char *kind0, const char *kind1) { return !strcmp(kind0, "cpu") && !strcmp(kind1, "cpu"); }

/* Steps between exchanges while the balancer's centre is an idle end
 * (split=auto, one member alone): none is needed, but the balancer decides
 * only at exchanges, so there are some; far fewer than every k steps, since
 * each batch ends with both members' threads meeting (devset_parallel): at
 * k = 8 those meetings made OpenMP alone behind the set 1.4 times slower
 * than split=second here (256x256, 3000 steps: 56.5 ms against 41.2, 10
 * rounds). The two-CPU trial keeps k: its windows at the ends are short. */
#define IDLE_ROOM 1024

int rowsplit_room(const struct rowsplit *s) {
    if (s->solo >= 0) return INT_MAX / 2;
    if (s->probing && (idle(s, 0) || idle(s, 1))) return (s->halo > IDLE_ROOM ? s->halo : IDLE_ROOM) - s->since;
    return s->halo - s->since;
}

void rowsplit_rows(const struct rowsplit *s, int i, int ahead, int n, int *r0, int *r1) {
    if (s->solo >= 0) { /* the lone member's rows, and none for the other */
        *r0 = i == s->solo ? s->lo : s->hi;
        *r1 = s->hi;
        return;
    }
    if (idle(s, i) || idle(s, 1 - i)) { /* one member idle: it writes nothing, the other every row */
        *r0 = idle(s, i) ? (i == 0 ? s->lo : s->hi) : s->lo;
        *r1 = idle(s, i) ? *r0 : s->hi;
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
    s->span += busy[0] > busy[1] ? busy[0] : busy[1];
    s->steps += n;
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

/* The balancer (the phases: rowsplit.h). A member's time for a batch is
 * about its rows times its cost per row-step (plus launch and finish
 * overheads, which the cost per row absorbs); both take as long when member
 * 0 has the share c1 / (c0 + c1) of the rows, less the halo rows each also
 * recomputes (equal_time_share). A window lasts at least
 * BALANCE_WINDOW_S (a step of a small grid lasts microseconds, and one
 * step's time is mostly noise); the median of the last asks, not a mean,
 * so that a window in which the host preempted one member's thread moves
 * nothing. Probes compare windows' seconds per step, and a probe must be
 * BALANCE_GAIN faster than the centre to move it. */
#define BALANCE_WINDOW_S 0.008
#define BALANCE_F0 1.5
#define BALANCE_F_MIN 1.2
#define BALANCE_GAIN 0.04
#define BALANCE_SMOOTH 0.5

/* A probe's share: the centre scaled by f on its smaller side (0.02 -> 0.03,
 * 0.98 -> 0.987), so a small share moves by its own size. */
static double probe_share(const struct rowsplit *s, int probe) {
    const double c = s->share, f = probe == 1 ? s->f : probe == 2 ? 1 / s->f : 1;
    return c <= 0.5 ? c * f : 1 - (1 - c) / f;
}

/* A probe's cut: probe_share's, but at least one row from the centre's, so
 * that probes still move a cut of a row or two, where a factor of 1.2 rounds
 * back to the centre (256 rows: 2 rows * 1.2 is 2). Past one row a member
 * is the idle end (that member owns none; the other runs alone), and past
 * an idle end nothing: the probe is the centre. Probe 1 raises member 0's
 * share. */
static int probe_cut(const struct rowsplit *s, int probe) {
    const int centre = centre_cut(s), up = probe == 1;
    if (probe == 0 || centre == (up ? s->hi : s->lo)) return centre;
    const int cut = cut_at(s, probe_share(s, probe));
    if (up ? cut > centre : cut < centre) return cut;
    return centre + (up ? 1 : -1);
}

static double median_ask(const struct rowsplit *s) {
    const int n = s->windows < ROWSPLIT_WINDOWS ? s->windows : ROWSPLIT_WINDOWS;
    double v[ROWSPLIT_WINDOWS] = {0};
    for (int i = 0; i < n; i++) { /* insertion sort: five values */
        int j = i;
        for (; j > 0 && v[j - 1] > s->wanted[i]; j--) v[j] = v[j - 1];
        v[j] = s->wanted[i];
    }
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The probes' order: a cycle of PROBE_CYCLE windows, the centre two in
 * three so that most of the run is at the best split known, above and
 * below in turn (windows 2 and 5). Once settled (two cycles found nothing at
 * the narrowest factor) the cycle doubles, so five windows in six are at the
 * centre: a probe that hands the slower member a fifth more rows makes its
 * window a fifth slower, and on a GPU host with two exchanges a run
 * (16384x16384, 128 steps) the probes cost the balancer 9-14 % against the
 * best fixed split. At an idle end the one probe wakes a member that was
 * dropped because it slows the run (PoCL beside OpenMP here: a window with
 * one row on PoCL costs two to five alone), so a probe every twelve windows
 * would cost a sixth of the run: there, after a cycle that found nothing,
 * the next cycle is long enough that its probe, at the cost the last one
 * measured, takes PROBE_SHARE of the cycle's time. */
#define PROBE_CYCLE 6
#define PROBE_SHARE 0.01
#define PROBE_CYCLE_MAX 4096

static int settled(const struct rowsplit *s) { return s->f <= BALANCE_F_MIN && s->fruitless >= 2; }
static int at_idle_end(const struct rowsplit *s) {
    const int c = centre_cut(s);
    return c <= s->lo || c >= s->hi;
}
static int cycle_length(const struct rowsplit *s) {
    if (at_idle_end(s)) return s->idle_cycle > PROBE_CYCLE ? s->idle_cycle : PROBE_CYCLE;
    return settled(s) ? 2 * PROBE_CYCLE : PROBE_CYCLE;
}
/* The open window's probe; a probe past an idle end is the centre's. */
static int probe_now(const struct rowsplit *s) {
    const int n = cycle_length(s);
    const int p = s->probe == n / 2 - 1 ? 1 : s->probe == n - 1 ? 2 : 0;
    return p && probe_cut(s, p) == centre_cut(s) ? 0 : p;
}

/* The cycle at an idle end after one that found nothing: its probe (the
 * seconds the last one lost against the centre) PROBE_SHARE of the cycle's
 * time (its centre windows at their last length). */
static int idle_cycle(const struct rowsplit *s, int p) {
    const double lost = (s->t[p] - s->t[0]) * s->n[p], centre = s->t[0] * s->n[0];
    if (!(lost > 0) || !(centre > 0)) return PROBE_CYCLE;
    const double n = ceil(lost / (PROBE_SHARE * centre)) + 1;
    return n < PROBE_CYCLE ? PROBE_CYCLE : n > PROBE_CYCLE_MAX ? PROBE_CYCLE_MAX : (int)n;
}

/* After a window of n steps closed with t seconds per step. A full cycle
 * moves the centre to the faster probe it measured when that is
 * BALANCE_GAIN faster, or, after two cycles in a row that found none,
 * narrows the probes (down to BALANCE_F_MIN: they never stop, since a
 * settled cut on a noisy host may have settled on noise). */
static void probed(struct rowsplit *s, double t, double n) {
    const int p = probe_now(s);
    s->t[p] = s->seen[p] ? (1 - BALANCE_SMOOTH) * s->t[p] + BALANCE_SMOOTH * t : t;
    s->n[p] = n;
    s->seen[p] = 1;
    s->probe = (s->probe + 1) % cycle_length(s);
    if (s->probe) return;
    int best = 0;
    for (int q = 1; q <= 2; q++)
        if (s->seen[q] && (!best || s->t[q] < s->t[best])) best = q;
    if (!best) return; /* a cycle carried in after its probes: measure them first */
    if (s->seen[0] && s->t[best] < (1 - BALANCE_GAIN) * s->t[0]) { /* move the centre there; its time is the probe's */
        s->share = (double)(probe_cut(s, best) - s->lo) / (s->hi - s->lo);
        s->t[0] = s->t[best];
        s->fruitless = s->idle_cycle = 0;
    } else {
        s->idle_cycle = at_idle_end(s) ? idle_cycle(s, best) : 0;
        if (++s->fruitless >= 2 && s->f > BALANCE_F_MIN) {
            s->f = sqrt(s->f) < BALANCE_F_MIN ? BALANCE_F_MIN : sqrt(s->f);
            s->fruitless = 0;
        }
    }
    s->seen[1] = s->seen[2] = 0;
}

void rowsplit_carry(struct rowsplit *s, const struct rowsplit *earlier) {
    if (!s->balance || earlier->windows <= 0) return;
    memcpy(s->wanted, earlier->wanted, sizeof s->wanted);
    memcpy(s->t, earlier->t, sizeof s->t);
    memcpy(s->seen, earlier->seen, sizeof s->seen);
    s->windows = earlier->windows;
    s->probing = earlier->probing;
    s->fruitless = earlier->fruitless;
    s->idle_cycle = earlier->idle_cycle;
    memcpy(s->n, earlier->n, sizeof s->n);
    s->probe = earlier->probe;
    s->f = earlier->f;
    /* The centre the earlier run ended at, also an idle end's 0 or 1 (which
     * rowsplit_init's start cannot say); mid-cycle, the window this run
     * opens is a probe's. */
    s->share = earlier->share;
    s->cut = s->probing ? probe_cut(s, probe_now(s)) : s->compete ? centre_cut(s) : cut_at(s, s->share);
}

/* The share at which both members take as long, at c0 and c1 seconds per
 * row-step. Each member also recomputes rows of its neighbour's (the halo:
 * up to k-1 rows, (k-1)/2 a step on average), and those do not follow the
 * share: with e0 and e1 such rows a step (measured: the window's work per
 * step beyond the rows owned), c0 (n0 + e0) = c1 (n - n0 + e1). Leaving them
 * out (c1 / (c0 + c1)) gives the slower member its own rows as if it had no
 * halo to recompute: on an H100 + 16 cores (8192^2, k = 128) that landed
 * at GPU share 0.966-0.970 where the fastest split was 0.976-0.981, as the
 * CPU's 64 halo rows a step are a quarter of its work there. */
static double equal_time_share(const struct rowsplit *s, double c0, double c1) {
    const double n = s->hi - s->lo;
    int a0, a1, b0, b1;
    rowsplit_owned(s, 0, &a0, &a1);
    rowsplit_owned(s, 1, &b0, &b1);
    const double e0 = s->work[0] / s->steps - (a1 - a0), e1 = s->work[1] / s->steps - (b1 - b0);
    const double share = (c1 * (n + (e1 > 0 ? e1 : 0)) - c0 * (e0 > 0 ? e0 : 0)) / ((c0 + c1) * n);
    return share < 0 ? 0 : share > 1 ? 1 : share;
}

/* From equalising (or the two-CPU trial) to probing, at the centre. */
static void start_probing(struct rowsplit *s) {
    s->probing = 1;
    s->probe = 0;
    s->fruitless = 0;
    s->f = BALANCE_F0;
}

/* Members that share the host's cores (rowsplit_compete): instead of
 * equalising, windows at the idle ends, member 1 alone (A) and member 0
 * alone (B), in the order A B B A, each scored by its seconds per step;
 * the probes start from the end whose better window was faster (a side's
 * mean let one window of 8 steps that took 12 ms, a first launch's cost,
 * send a run to PoCL alone, 14 times slower). Two devices on the
 * same cores mostly take turns, so one alone is where the fastest split
 * usually is (PoCL and OpenMP here, 256x256: OpenMP alone 53 ms, with one
 * row of 254 on PoCL 153 ms); busy times cannot say which member is faster
 * alone (each includes the cores the other took); and a step's cost drifts
 * over a run (the sandpile's fall as it settles: the first windows of a
 * PoCL + OpenMP run cost 3-4 times the run's mean step), which the order
 * cancels where one window a side would favour whichever end came later. */
static void compete_window(struct rowsplit *s, double t) {
    const int w = s->windows++;                                       /* the window at 0.5 (w 0), then A B B A */
    const int side = w == 1 || w == 4 ? 1 : w == 2 || w == 3 ? 2 : 0; /* A: member 1 alone (share 0); B: member 0 */
    if (side) s->t[side] = w < 3 ? t : fmin(s->t[side], t);
    if (w < 4) {
        s->share = w == 0 || w == 3 ? 0 : 1;
        return;
    }
    const int second = s->t[1] <= s->t[2]; /* member 1 alone is faster (the better window a side) */
    s->share = second ? 0 : 1;
    s->t[0] = second ? s->t[1] : s->t[2];
    s->t[1] = s->t[2] = 0;
    s->seen[0] = 1;
    s->seen[1] = s->seen[2] = 0;
    start_probing(s);
}

/* Closes the window when it is long enough; 1 when it did. */
static int rebalance(struct rowsplit *s) {
    if (!s->balance || s->busy[0] + s->busy[1] < BALANCE_WINDOW_S || s->steps <= 0) return 0;
    const int equalising = !s->probing && !s->compete; /* it needs both members' cost per row */
    if (equalising && (s->work[0] <= 0 || s->work[1] <= 0)) return 0;
    const double t = s->span / s->steps;
    if (s->probing) probed(s, t, s->steps);
    else if (s->compete) compete_window(s, t);
    else {
        s->wanted[s->windows++ % ROWSPLIT_WINDOWS] =
            equal_time_share(s, s->busy[0] / s->work[0], s->busy[1] / s->work[1]);
        s->share = median_ask(s);
        if (s->windows >= 2 * ROWSPLIT_WINDOWS) start_probing(s); /* settled: from here the step's cost decides */
    }
    s->busy[0] = s->busy[1] = s->work[0] = s->work[1] = s->span = s->steps = 0;
    return 1;
}

void rowsplit_finish(struct rowsplit *s) { rebalance(s); }

/* The cut moves only when the balancer asks for a real change while it
 * equalises: at least BALANCE_MOVE_ROWS rows, and a BALANCE_MOVE_SHARE part
 * of the smaller side's rows. Each move costs a transfer of the rows it
 * hands over and a launch geometry the devices have not seen, and a cut
 * that followed every window's noise would pay them for nothing. */
#define BALANCE_MOVE_ROWS 2
#define BALANCE_MOVE_SHARE 0.05
int rowsplit_next_cut(struct rowsplit *s) {
    if (!s->balance) return s->cut;
    const int closed = rebalance(s);
    if (s->probing) return closed ? probe_cut(s, probe_now(s)) : s->cut;
    if (s->compete) return closed ? centre_cut(s) : s->cut;
    const int want = cut_at(s, s->share), move = abs(want - s->cut);
    const int small = s->cut - s->lo < s->hi - s->cut ? s->cut - s->lo : s->hi - s->cut;
    return move >= BALANCE_MOVE_ROWS && move >= BALANCE_MOVE_SHARE * small ? want : s->cut;
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
    /* A member idle at the new cut reads nothing and is sent nothing; one
     * idle until now has nothing current (old is at its end), so it is sent
     * all it will read. */
    if ((cut > s->lo && move_rows(set, ds->m, grid, 1, 0, old, to0, l, scratch)) ||
        (cut < s->hi && move_rows(set, ds->m, grid, 0, 1, from1, old, l, scratch)))
        return -1;
    s->cut = cut;
    s->since = 0;
    return 0;
}
