/* Search strategies over work-group shapes (tune.h).
 *
 * Every strategy goes through search_visit, which evaluates a shape at most
 * once: a re-visit returns the remembered time and costs nothing, and the
 * budget counts distinct shapes only. So the strategies differ only in the
 * order they propose shapes, and a comparison between them (harness tune
 * --replay) is a comparison of how fast each finds the best, not of how
 * lucky the noise was on a second run of the same shape. */
#include "tune.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* The tie rule judges the margin against the measured spread. A spread of 0
 * (one repetition, a coarse clock, a replayed row with q1 = q3) would make
 * any difference at all a "winner", yet two sessions on one device differ by
 * about half a percent from clocks and temperature alone; below that floor a
 * difference is not evidence. */
#define TUNE_NOISE_FLOOR 0.005

/* Random search: the first half of the budget is a stratified sample (see
 * search_stratified), the second half a local polish around the best shape
 * found. Sampling alone, however evenly spread, finds a given shape with a
 * chance of at most budget / n: with a quarter of the evaluations and one or
 * two shapes within 2 % of the best (the H100 replays of OpenCL 128x128 and
 * CUDA 1024x1024), at most 25 % or 49 % of the seeds get there, so the
 * median over seeds misses. The polish spends the rest on the unseen
 * neighbours of the best shape (then of the next best once those run out),
 * which is where the optimum of a smooth landscape is. */
#define RANDOM_EXPLORE 0.5

/* Annealing: a stratified sample of ANNEAL_SAMPLE of the budget finds a place
 * to start; the walk then moves over the 8 neighbours on the (log2 x,
 * log2 y) grid. The temperature is a relative slow-down accepted with
 * probability 1/e; it falls geometrically from T0 to T1 as the budget is
 * spent (the schedule follows evaluations, not steps, since steps over
 * remembered shapes are free). After ANNEAL_PATIENCE new shapes without a new
 * best the walk restarts from the best so far. */
#define ANNEAL_SAMPLE 0.3
#define ANNEAL_T0 0.10
#define ANNEAL_T1 0.002
#define ANNEAL_PATIENCE 4
#define GENETIC_MUTATE 0.3 /* chance a child also takes a neighbour move */

/* splitmix64: small, fast, and the same sequence on every libc (rand() is not). */
struct rng {
    uint64_t s;
};

static uint64_t rng_next(struct rng *r) {
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* The modulo bias is below 1e-15 for spaces of a few hundred shapes. */
static int rng_below(struct rng *r, int n) { return (int)(rng_next(r) % (uint64_t)n); }
static double rng_unit(struct rng *r) { return (double)(rng_next(r) >> 11) * 0x1.0p-53; }

enum { NB_AXES = 4, NB_ALL = 8 }; /* the first NB_AXES neighbours change one dimension */

struct search {
    const struct tune_space *sp;
    tune_eval_fn eval;
    void *ctx;
    int budget, evaluations;
    double *time; /* NAN: not evaluated; INFINITY: failed */
    double *noise;
    /* Neighbours on the (log2 x, log2 y) grid, -1 where not in the space:
     * 2x, x/2, 2y, y/2 (one dimension), then (2x, y/2) and (x/2, 2y) (the
     * same size, another aspect), then (2x, 2y) and (x/2, y/2). */
    int (*nb)[NB_ALL];
    int *order; /* the shapes by size (x*y), then x */
    struct rng rng;
};

static int search_more(const struct search *s) { return s->evaluations < s->budget; }

static int space_find(const struct tune_space *sp, unsigned x, unsigned y) {
    for (int i = 0; i < sp->n; i++)
        if (sp->shapes[i][0] == x && sp->shapes[i][1] == y) return i;
    return -1;
}

/* The time of shape i, evaluating it once. NAN when it was never evaluated
 * and the budget is spent; INFINITY when it failed. A time of zero is a
 * failure too: it would read as infinitely fast. */
static double search_visit(struct search *s, int i) {
    if (!isnan(s->time[i])) return s->time[i];
    if (!search_more(s)) return NAN;
    double noise = NAN;
    double t = s->eval(s->ctx, s->sp->shapes[i], &noise);
    s->evaluations++;
    s->time[i] = t > 0 ? t : INFINITY;
    s->noise[i] = noise >= 0 ? noise : 0; /* NaN (unknown) and nonsense read as 0: the floor applies */
    return s->time[i];
}

/* A uniformly chosen shape not yet evaluated, or -1 when there is none. */
static int search_unvisited(struct search *s) {
    int left = 0;
    for (int i = 0; i < s->sp->n; i++) left += isnan(s->time[i]);
    if (!left) return -1;
    int k = rng_below(&s->rng, left);
    for (int i = 0; i < s->sp->n; i++)
        if (isnan(s->time[i]) && k-- == 0) return i;
    return -1;
}

/* The best shape evaluated so far that did not fail, or -1. */
static int search_best(const struct search *s) {
    int b = -1;
    for (int i = 0; i < s->sp->n; i++)
        if (isfinite(s->time[i]) && (b < 0 || s->time[i] < s->time[b])) b = i;
    return b;
}

/* Whether i has a neighbour not evaluated yet. */
static int search_has_fresh(const struct search *s, int i) {
    for (int k = 0; k < NB_ALL; k++)
        if (s->nb[i][k] >= 0 && isnan(s->time[s->nb[i][k]])) return 1;
    return 0;
}

/* A random one of the first nn neighbours of i (only those not evaluated
 * yet when fresh), or -1 when there is none. */
static int search_neighbour(struct search *s, int i, int nn, int fresh) {
    int cand[NB_ALL], n = 0;
    for (int k = 0; k < nn; k++) {
        const int j = s->nb[i][k];
        if (j >= 0 && (!fresh || isnan(s->time[j]))) cand[n++] = j;
    }
    return n ? cand[rng_below(&s->rng, n)] : -1;
}

/* Evaluates m shapes (fewer when the budget or the space runs out) by
 * stratified sampling: the shapes not yet evaluated, in order of work-group
 * size and then x, are cut into m runs of equal length and one shape is
 * drawn uniformly from each run. Every shape keeps the same chance to be
 * drawn as in plain random sampling, but the draws spread over the sizes
 * from the smallest to the largest (and over the aspects within a size)
 * instead of clustering by chance, which is what a small budget needs. The
 * draws are evaluated in random order, so a budget cut short still spreads. */
static void search_stratified(struct search *s, int m) {
    const int n = s->sp->n;
    int *pick = xcalloc((size_t)n, sizeof *pick), left = 0;
    for (int k = 0; k < n; k++)
        if (isnan(s->time[s->order[k]])) pick[left++] = s->order[k];
    if (m > left) m = left;
    for (int j = 0; j < m; j++) {
        const int lo = (int)((long)j * left / m), hi = (int)((long)(j + 1) * left / m);
        pick[j] = pick[lo + rng_below(&s->rng, hi - lo)]; /* lo >= j: pick[lo..] is still intact */
    }
    for (int j = m - 1; j > 0; j--) {
        const int r = rng_below(&s->rng, j + 1), t = pick[j];
        pick[j] = pick[r], pick[r] = t;
    }
    for (int j = 0; j < m && search_more(s); j++) search_visit(s, pick[j]);
    free(pick);
}

static void strategy_exhaustive(struct search *s) {
    for (int i = 0; i < s->sp->n; i++) search_visit(s, i);
}

/* A stratified sample of half the budget, then a polish: a random unseen
 * neighbour (all 8) of the best shape that still has one, so the polish
 * moves on to the next best once a neighbourhood is used up; a stratified
 * draw when no evaluated shape has an unseen neighbour (or all failed). */
static void strategy_random(struct search *s) {
    const int n = s->sp->n;
    search_stratified(s, (int)ceil(RANDOM_EXPLORE * s->budget));
    while (search_more(s) && s->evaluations < n) {
        int b = -1;
        for (int i = 0; i < n; i++)
            if (isfinite(s->time[i]) && (b < 0 || s->time[i] < s->time[b]) && search_has_fresh(s, i)) b = i;
        if (b < 0) search_stratified(s, 1);
        else search_visit(s, search_neighbour(s, b, NB_ALL, 1));
    }
}

static void strategy_anneal(struct search *s) {
    const int n = s->sp->n;
    search_stratified(s, (int)ceil(ANNEAL_SAMPLE * s->budget));
    int cur = search_best(s), idle = 0, stale = 0;
    while (search_more(s) && s->evaluations < n) {
        /* No place to stand yet (every try so far failed): a fresh shape. */
        if (cur < 0) {
            search_stratified(s, 1);
            cur = search_best(s);
            continue;
        }
        /* A walk that found nothing better for a while restarts from the best. */
        if (stale >= ANNEAL_PATIENCE) cur = search_best(s), stale = 0;
        double temp = ANNEAL_T0 * pow(ANNEAL_T1 / ANNEAL_T0, (double)s->evaluations / s->budget);
        int j = search_neighbour(s, cur, NB_ALL, 0);
        /* Free steps over remembered shapes cannot spend the budget, so a walk
         * boxed in by them (or a shape without neighbours) is sent to an unseen
         * shape after a while, and stands there if it is a new best. */
        if (j < 0 || idle >= 2 * n) {
            const int before = search_best(s);
            search_stratified(s, 1);
            const int after = search_best(s);
            if (after != before) cur = after, stale = 0;
            idle = 0;
            continue;
        }
        const int fresh = isnan(s->time[j]);
        const double best_t = s->time[search_best(s)];
        double t = search_visit(s, j), tc = s->time[cur];
        idle = fresh ? 0 : idle + 1;
        if (fresh) stale = t < best_t ? 0 : stale + 1;
        if (!isfinite(t)) continue;
        if (t <= tc || rng_unit(&s->rng) < exp(-(t / tc - 1) / temp)) cur = j;
    }
}

/* The better of two random members (a tournament of two). */
static int genetic_pick(struct search *s, const int *pop, int np) {
    int a = pop[rng_below(&s->rng, np)], b = pop[rng_below(&s->rng, np)];
    return s->time[a] <= s->time[b] ? a : b;
}

static void strategy_genetic(struct search *s) {
    const int n = s->sp->n;
    int size = s->budget / 5;
    size = size < 4 ? 4 : size > 12 ? 12 : size;
    int *pop = xcalloc((size_t)size, sizeof *pop), np = 0, idle = 0;
    while (search_more(s) && s->evaluations < n) {
        int child;
        if (np < 2) {
            child = search_unvisited(s); /* seed the population (failures never join) */
        } else {
            /* Crossover: x from one parent, y from the other. A pair whose
             * shape is not in the space (invalid there) mutates a parent. */
            int a = genetic_pick(s, pop, np), b = genetic_pick(s, pop, np);
            child = space_find(s->sp, s->sp->shapes[a][0], s->sp->shapes[b][1]);
            if (child < 0 || rng_unit(&s->rng) < GENETIC_MUTATE) {
                int m = search_neighbour(s, child >= 0 ? child : a, NB_AXES, 0);
                if (m >= 0) child = m;
            }
            /* No child at all (a sparse space: neither the cross nor a
             * neighbour exists), or a population that only breeds known
             * shapes: an immigrant. */
            if (child < 0 || (!isnan(s->time[child]) && ++idle >= 2 * n)) child = search_unvisited(s);
        }
        if (isnan(s->time[child])) idle = 0;
        double t = search_visit(s, child);
        if (!isfinite(t)) continue;
        int member = 0, worst = 0;
        for (int k = 0; k < np; k++) {
            member |= pop[k] == child;
            if (s->time[pop[k]] > s->time[pop[worst]]) worst = k;
        }
        if (member) continue;
        if (np < size) pop[np++] = child;
        else if (t < s->time[pop[worst]]) pop[worst] = child;
    }
    free(pop);
}

/* Best and runner-up over everything evaluated, whatever the strategy. */
static int search_result(const struct search *s, struct tune_result *out) {
    int b = -1, r = -1;
    for (int i = 0; i < s->sp->n; i++) {
        if (isnan(s->time[i]) || !isfinite(s->time[i])) continue;
        if (b < 0 || s->time[i] < s->time[b]) r = b, b = i;
        else if (r < 0 || s->time[i] < s->time[r]) r = i;
    }
    memset(out, 0, sizeof *out);
    out->evaluations = s->evaluations;
    if (b < 0) return -1;
    memcpy(out->best, s->sp->shapes[b], sizeof out->best);
    out->best_s = s->time[b];
    double noise = s->noise[b];
    if (r >= 0) {
        memcpy(out->runner_up, s->sp->shapes[r], sizeof out->runner_up);
        out->runner_up_s = s->time[r];
        out->margin = out->runner_up_s / out->best_s - 1;
        if (s->noise[r] > noise) noise = s->noise[r];
    } else {
        /* One shape succeeded: nothing to be tied with, and no margin. */
        out->runner_up_s = out->margin = NAN;
    }
    /* noise is the value the tie was judged against, floor included, so a
     * reader of the tuned table can re-derive the verdict from its row. */
    out->noise = noise > TUNE_NOISE_FLOOR ? noise : TUNE_NOISE_FLOOR;
    out->tie = r >= 0 && tune_tied(out->best_s, s->noise[b], out->runner_up_s, s->noise[r]);
    return 0;
}

int tune_tied(double best_s, double best_noise, double other_s, double other_noise) {
    double noise = best_noise > other_noise ? best_noise : other_noise;
    if (!(noise > TUNE_NOISE_FLOOR)) noise = TUNE_NOISE_FLOOR; /* NaN reads as the floor too */
    return other_s / best_s - 1 <= noise;
}

int tune_search(const char *strategy, const struct tune_space *space, int budget, unsigned seed, tune_eval_fn eval,
                void *ctx, struct tune_result *out) {
    static const struct {
        const char *name;
        void (*run)(struct search *);
    } strategies[] = {{"exhaustive", strategy_exhaustive},
                      {"random", strategy_random},
                      {"anneal", strategy_anneal},
                      {"genetic", strategy_genetic}};
    void (*run)(struct search *) = NULL;
    for (size_t i = 0; i < sizeof strategies / sizeof strategies[0]; i++)
        if (strategy && !strcmp(strategy, strategies[i].name)) run = strategies[i].run;
    memset(out, 0, sizeof *out);
    if (!run || !space || space->n <= 0 || !eval) return -1;
    const int n = space->n;
    struct search s = {.sp = space,
                       .eval = eval,
                       .ctx = ctx,
                       .budget = budget <= 0 || budget > n || run == strategy_exhaustive ? n : budget,
                       .rng = {seed * 0x2545f4914f6cdd1dull + 1}};
    s.time = xcalloc((size_t)n, sizeof *s.time);
    s.noise = xcalloc((size_t)n, sizeof *s.noise);
    s.nb = xcalloc((size_t)n, sizeof *s.nb);
    s.order = xcalloc((size_t)n, sizeof *s.order);
    static const int step[NB_ALL][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}, {1, -1}, {-1, 1}, {1, 1}, {-1, -1}};
    for (int i = 0; i < n; i++) {
        const unsigned x = space->shapes[i][0], y = space->shapes[i][1];
        s.time[i] = NAN;
        for (int k = 0; k < NB_ALL; k++) {
            const int dx = step[k][0], dy = step[k][1];
            s.nb[i][k] = (dx < 0 && x % 2) || (dy < 0 && y % 2) ? -1
                                                                : space_find(space,
                                                                             dx > 0   ? x * 2
                                                                             : dx < 0 ? x / 2
                                                                                      : x,
                                                                             dy > 0   ? y * 2
                                                                             : dy < 0 ? y / 2
                                                                                      : y);
        }
        /* Insertion into the order by size, then x (a space is a few hundred shapes). */
        const unsigned long size = (unsigned long)x * y;
        int k = i;
        for (; k > 0; k--) {
            const unsigned *p = space->shapes[s.order[k - 1]];
            const unsigned long ps = (unsigned long)p[0] * p[1];
            if (ps < size || (ps == size && p[0] <= x)) break;
            s.order[k] = s.order[k - 1];
        }
        s.order[k] = i;
    }
    run(&s);
    int rc = search_result(&s, out);
    free(s.time);
    free(s.noise);
    free(s.nb);
    free(s.order);
    return rc;
}
