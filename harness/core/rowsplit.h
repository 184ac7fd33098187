/* A grid's rows split between the two devices of a set (devset.h), for an
 * app whose step updates each row from its neighbours within `reach` rows
 * (a 5-point update, a cellular automaton, a lattice's streaming: reach 1).
 *
 * Member 0 owns the rows [lo, cut), member 1 [cut, hi). Each member holds
 * the whole grid but keeps only some of it current. Exchanging every step
 * would cost a transfer per step (the seed's hybrid: 9264 ms at 512x512
 * against 380 ms on the GPU alone), so the halo is k = `exchange` steps deep:
 * right after an exchange each member has k*reach rows of its neighbour
 * current, and each step it recomputes one reach less of them (redundant
 * work), so after k steps it still has its own rows right:
 *
 *   member 0, j steps after an exchange: current [lo, cut + (k-j)*reach);
 *   a launch of n steps from there writes [lo, cut + (k-j-n)*reach).
 *   member 1 mirrors it: [cut - (k-j)*reach, hi).
 *
 * After k steps the members exchange the rows the other will read (k*reach
 * rows each way, through the host) and may move the cut: with split=auto
 * the balancer (rowsplit_balance) moves it so both members take as long,
 * from each member's measured time per row (devset_parallel's busy times).
 * A member's own rows are current after every step, so an app may check
 * termination or read its result from them at any step. */
#ifndef HARNESS_ROWSPLIT_H
#define HARNESS_ROWSPLIT_H
#include <stddef.h>

#include "backend/backend.h"
#include "core/devset.h"
#include "core/knobs.h"

/* The knobs an app adds to its table to run on device sets (host knobs: no
 * rebuild, and left out of the identity at their defaults, which are what a
 * single device runs). */
/* clang-format off */
#define ROWSPLIT_KNOBS \
    {.name = "split", .values = "auto|share|first|second", .def = "auto", \
     .help = "a device set (--device A+B): the first device's share of the grid's rows, as 0.6; auto starts at 0.5 and " \
     "moves the cut at each exchange so both devices take as long, from their measured times per row, then " \
     "probes either side for a faster step, down to one device alone where the other only slows the run; first " \
     "or second runs every row on that device alone, with no exchange (the set's single-device ends)"}, \
    {.name = "exchange", .values = "int", .def = "1", \
     .help = "a device set: steps between halo exchanges (k); each exchange moves k rows each way and each device " \
     "recomputes up to k-1 rows of its neighbour's (redundant work that saves exchanges)"}
/* clang-format on */

struct rowsplit {
    int lo, hi;   /* the rows a step updates, [lo, hi) */
    int reach;    /* rows a step reads beyond the one it writes */
    int halo;     /* steps between exchanges (k, the knob exchange) */
    int cut;      /* member 0 owns [lo, cut), member 1 [cut, hi) */
    int balance;  /* split=auto */
    int compete;  /* the members share the host's cores (rowsplit_compete; from rowsplit_init's set) */
    int solo;     /* split=first (0) or second (1): that member runs every row, never exchanging; else -1 */
    int since;    /* steps since the last exchange (j), 0..halo */
    double share; /* member 0's share: fixed, or the balancer's centre (auto) */
    /* The balancer (rowsplit.c). First it equalises: each window asks for
     * the share at which both members would take as long, and the centre
     * follows the median of the last ROWSPLIT_WINDOWS asks. Then it probes:
     * windows in turn at the centre and a factor f above and below it,
     * each scored by its seconds per step (the slower member's time, what a
     * step really costs), and the centre moves to a probe that is faster;
     * f shrinks when neither is. Equal times (counting the halo rows each
     * member recomputes) are the optimum when the members share nothing;
     * when they share cores (PoCL and OpenMP on one CPU) the fastest split
     * lies elsewhere: then equalising gives way to a window at each end
     * (compete), and the probes start from the faster. A probe past one
     * row a member is that member idle (an idle end: it owns no rows, the
     * other runs alone, no rows are exchanged), so a member that only
     * slows the run is dropped, and woken for a probe now and then. */
#define ROWSPLIT_WINDOWS 5
    double wanted[ROWSPLIT_WINDOWS];
    int windows;
    int probing;    /* 0: equalising; 1: probing */
    int fruitless;  /* probe cycles in a row that moved nothing (two narrow the probes) */
    int idle_cycle; /* at an idle end: the probe cycle's windows (rowsplit.c: PROBE_SHARE); 0: the usual */
    int probe;      /* what the open window measures: 0 the centre, 1 above, 2 below */
    double f;       /* the probes' factor */
    double t[3];    /* seconds per step at the centre, above and below (smoothed) */
    double n[3];    /* the steps of their last windows */
    int seen[3];
    double busy[DEVSET_MAX], work[DEVSET_MAX];
    double span, steps; /* the open window: the slower member's seconds summed over batches, and its steps */
};

/* Why this config cannot split rows [lo, hi) (each member needs a row), or
 * NULL. */
const char *rowsplit_invalid(const struct knob_set *k, int lo, int hi);
/* From the knobs: the cut at split (auto: 0.5, or `start` when in (0, 1):
 * where an earlier repetition's balancer ended). since = 0: the caller
 * writes the whole grid to both members before the first step. `set` (the
 * device set, or NULL where the members are models) tells the balancer
 * whether its members share the host's cores (rowsplit_compete). */
void rowsplit_init(struct rowsplit *s, const struct knob_set *k, int lo, int hi, int reach, double start,
                   struct dev *set);
/* Keeps what the balancer learnt in an earlier run of the same split
 * (another repetition): its last windows' asks and its probes' times and
 * place in their cycle, so that the first window of this one is not the
 * only sample the cut follows. A probing balancer starts this run at the
 * cut its cycle is at (the centre's, or a probe's). */
void rowsplit_carry(struct rowsplit *s, const struct rowsplit *earlier);
/* At the end of a run (a repetition): closes the balancer's open window
 * when it is long enough, so that its last steps count, and a run that
 * never exchanges (exchange >= its steps) still teaches the next one
 * (rowsplit_carry). */
void rowsplit_finish(struct rowsplit *s);
/* Whether members of these kinds (device_info.kind) share the host's cores
 * (both CPU devices, as PoCL and OpenMP): then a row given to one is time
 * taken from the other, equal times are no optimum, and the balancer
 * (split=auto) skips equalising: it tries each end (either member with one
 * row) and probes from the faster. */
int rowsplit_compete(const char *kind0, const char *kind1);
/* Steps the members may take before the next exchange. */
int rowsplit_room(const struct rowsplit *s);
/* The rows member i writes in a launch of n steps that starts `ahead` steps
 * after now (ahead + n <= rowsplit_room): a batch of several launches asks
 * for each before any has run. */
void rowsplit_rows(const struct rowsplit *s, int i, int ahead, int n, int *r0, int *r1);
/* The rows member i owns (current after every step). */
void rowsplit_owned(const struct rowsplit *s, int i, int *r0, int *r1);
/* After a batch of n steps on both members, with their busy seconds. */
void rowsplit_stepped(struct rowsplit *s, int n, const double busy[DEVSET_MAX]);

/* The cut the next period should use: the same for a fixed split; for
 * split=auto the balancer's, from what rowsplit_stepped measured (part of
 * rowsplit_exchange; exposed for tests). */
int rowsplit_next_cut(struct rowsplit *s);

/* Where a grid's rows are in the members' buffers: `planes` planes of rows
 * (one array: 1; nine speeds in separate arrays: 9), row r of
 * plane p at p * plane_bytes + r * row_bytes. */
struct rowsplit_layout {
    size_t row_bytes;
    int planes;
    size_t plane_bytes;
};

/* When rowsplit_room is 0: moves the cut (split=auto) and hands each member
 * the rows of the other's it will read until the next exchange, through
 * host memory (scratch: room for halo*reach + the cut's largest move rows
 * of every plane; rowsplit_scratch_bytes). grid[i] is member i's current
 * buffer. Then since = 0. 0, or -1 with the reason in the set's err. */
int rowsplit_exchange(struct rowsplit *s, struct dev *set, struct buf *const grid[DEVSET_MAX],
                      const struct rowsplit_layout *l, void *scratch);
size_t rowsplit_scratch_bytes(const struct rowsplit *s, const struct rowsplit_layout *l);
#endif
