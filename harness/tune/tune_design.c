/* A space-filling design (tune_search.h): m targets whose levels are
 * stratified per parameter (each parameter's levels cut into m runs of equal
 * length, one level drawn in each, the runs shuffled independently per
 * parameter: a Latin hypercube over the levels). Every parameter's levels
 * are covered as evenly as m allows instead of the draws clustering by
 * chance, which is what a small budget needs.
 *
 * A target that is not a point of the space (a constraint left it out),
 * or is one already taken, is drawn again within its strata, DESIGN_TRIES
 * times, and then replaced by a uniform draw among the unseen points. Why
 * not the nearest valid point, as before: moving targets to the nearest
 * point piles the design onto the edges of the valid region (every target
 * in a hole lands on the same few points around it) and starves the middle
 * of a constrained region; on spaces where most of the grid is invalid that
 * made the design worse than drawing uniformly (issue 35: an AMD
 * convolution space, where random ended in a basin 1.5x slower). A redrawn
 * or uniform point is as likely as a uniform draw to be any unseen point, so
 * the design is never less spread than the uniform draw it replaces. It also
 * costs O(m) lookups, where the nearest point was a scan of the space per
 * target. The points are evaluated in random order, so a budget cut short
 * still spreads. */
#include <math.h>
#include <stdlib.h>

#include "base/util.h"
#include "tune/tune_search.h"

#define DESIGN_TRIES 8
#define DESIGN_SCAN 4096   /* up to this many points a missing target's nearest is found by a scan */
#define DESIGN_SAMPLE 256  /* beyond: the nearest of this many unseen points drawn at random */

/* Draws target j's level of parameter k within its run of m. */
static int stratum_level(struct search *s, int k, int run, int m) {
    const int L = s->sp->params[k].levels;
    if (m > L) return (int)((long)run * L / m); /* every level m / L times (rounded down or up) */
    const int lo = (int)((long)run * L / m), hi = (int)((long)(run + 1) * L / m);
    return lo + rng_below(&s->rng, hi - lo);
}

/* The design's picks so far: a flag per point in a small space, else a list
 * checked linearly while it is short (beyond, a repeat is unlikely in a
 * large space and merely costs a design slot: the visit skips it). */
struct picks {
    int *v, n;
    char *taken; /* NULL in a large space */
};

static int picked(const struct picks *p, int j) {
    if (p->taken) return p->taken[j];
    for (int k = 0; k < p->n && p->n <= 4096; k++)
        if (p->v[k] == j) return 1;
    return 0;
}

static void pick_add(struct picks *p, int j) {
    p->v[p->n++] = j;
    if (p->taken) p->taken[j] = 1;
}

/* How far point i is from target levels t: an ordinal parameter costs its
 * level difference over its range, a categorical one 1 when it differs. */
static double distance(const struct search *s, int i, const int *t) {
    const int *c = search_coords(s, i);
    double d = 0;
    for (int k = 0; k < s->sp->nparams; k++) {
        const struct tune_param *p = &s->sp->params[k];
        if (p->ordinal) d += fabs((double)(c[k] - t[k])) / (p->levels > 1 ? p->levels - 1 : 1);
        else d += c[k] != t[k];
    }
    return d;
}

/* The unseen point nearest to target t not picked yet (ties at random): a
 * scan of a small space, else of DESIGN_SAMPLE random points (bounded). */
static int nearest_unseen(struct search *s, const int *t, const struct picks *pk) {
    const int n = s->sp->n, scan = n <= DESIGN_SCAN;
    double best = INFINITY;
    int b = -1, ties = 0;
    for (int q = 0; q < (scan ? n : DESIGN_SAMPLE); q++) {
        const int i = scan ? q : rng_below(&s->rng, n);
        if (!isnan(s->time[i]) || picked(pk, i)) continue;
        const double dist = distance(s, i, t);
        if (dist < best - 1e-12) best = dist, b = i, ties = 1;
        else if (dist < best + 1e-12 && rng_below(&s->rng, ++ties) == 0) b = i;
    }
    return b;
}

void search_design(struct search *s, int m) { search_design_for(s, m, 0); }

void search_design_for(struct search *s, int m, int leverage) {
    const int n = s->sp->n, d = s->sp->nparams, left = n - s->evaluations;
    if (m > left) m = left;
    if (m > s->budget - s->evaluations) m = s->budget - s->evaluations;
    if (m <= 0) return;
    int *run = xcalloc((size_t)m * (size_t)d, sizeof *run);
    struct picks pk = {xcalloc((size_t)m, sizeof *pk.v), 0, n <= DESIGN_SCAN ? xcalloc((size_t)n, 1) : NULL};
    for (int k = 0; k < d; k++) {
        for (int j = 0; j < m; j++) run[j * d + k] = j;
        for (int j = m - 1; j > 0; j--) { /* shuffle this parameter's column of runs */
            const int r = rng_below(&s->rng, j + 1), t = run[j * d + k];
            run[j * d + k] = run[r * d + k], run[r * d + k] = t;
        }
    }
    int c[TUNE_MAX_PARAMS];
    for (int j = 0; j < m; j++) {
        int b = -1;
        for (int t = 0; t < (leverage ? 1 : DESIGN_TRIES) && b < 0; t++) {
            for (int k = 0; k < d; k++) c[k] = stratum_level(s, k, run[j * d + k], m);
            const int i = tune_space_find(s->sp, c);
            if (i >= 0 && isnan(s->time[i]) && !picked(&pk, i)) b = i;
        }
        if (b < 0 && leverage) b = nearest_unseen(s, c, &pk);
        for (int t = 0; b < 0 && t < DESIGN_TRIES; t++) {
            const int i = search_unvisited(s);
            if (i < 0) break;
            if (!picked(&pk, i)) b = i;
        }
        if (b >= 0) pick_add(&pk, b);
    }
    int *pick = pk.v;
    const int got = pk.n;
    for (int j = got - 1; j > 0; j--) {
        const int r = rng_below(&s->rng, j + 1), t = pick[j];
        pick[j] = pick[r], pick[r] = t;
    }
    for (int j = 0; j < got && search_more(s); j++) search_visit(s, pick[j]);
    free(run);
    free(pick);
    free(pk.taken);
}
