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

/* Annealing: the temperature is a relative slow-down accepted with
 * probability 1/e; it falls geometrically from T0 to T1 as the budget is
 * spent (the schedule follows evaluations, not steps, since steps over
 * remembered shapes are free). */
#define ANNEAL_T0 0.10
#define ANNEAL_T1 0.002
#define ANNEAL_JUMP 0.05   /* chance of a random jump instead of a neighbour */
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

struct search {
    const struct tune_space *sp;
    tune_eval_fn eval;
    void *ctx;
    int budget, evaluations;
    double *time;          /* NAN: not evaluated; INFINITY: failed */
    double *noise;
    int (*nb)[4];          /* neighbours: 2x, x/2, 2y, y/2 (-1: not in the space) */
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

/* A random neighbour of i (double or halve x or y), or -1 when it has none. */
static int search_neighbour(struct search *s, int i) {
    int cand[4], n = 0;
    for (int k = 0; k < 4; k++)
        if (s->nb[i][k] >= 0) cand[n++] = s->nb[i][k];
    return n ? cand[rng_below(&s->rng, n)] : -1;
}

static void strategy_exhaustive(struct search *s) {
    for (int i = 0; i < s->sp->n; i++) search_visit(s, i);
}

static void strategy_random(struct search *s) {
    while (search_more(s)) {
        int i = search_unvisited(s);
        if (i < 0) break;
        search_visit(s, i);
    }
}

static void strategy_anneal(struct search *s) {
    const int n = s->sp->n;
    int cur = -1, idle = 0;
    while (search_more(s) && s->evaluations < n) {
        /* No place to stand yet (or every try so far failed): a fresh shape. */
        if (cur < 0) {
            int j = search_unvisited(s);
            if (isfinite(search_visit(s, j))) cur = j;
            continue;
        }
        double temp = ANNEAL_T0 * pow(ANNEAL_T1 / ANNEAL_T0, (double)s->evaluations / s->budget);
        int j;
        /* Free steps over remembered shapes cannot spend the budget, so a walk
         * boxed in by them is sent to an unseen shape after a while. */
        if (idle >= 2 * n) j = search_unvisited(s);
        else if (rng_unit(&s->rng) < ANNEAL_JUMP) j = rng_below(&s->rng, n);
        else j = search_neighbour(s, cur);
        if (j < 0) j = search_unvisited(s);
        const int fresh = isnan(s->time[j]);
        double t = search_visit(s, j), tc = s->time[cur];
        idle = fresh ? 0 : idle + 1;
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
                int m = search_neighbour(s, child >= 0 ? child : a);
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
    out->tie = r >= 0 && out->margin <= out->noise;
    return 0;
}

int tune_search(const char *strategy, const struct tune_space *space, int budget, unsigned seed,
                tune_eval_fn eval, void *ctx, struct tune_result *out) {
    static const struct {
        const char *name;
        void (*run)(struct search *);
    } strategies[] = {{"exhaustive", strategy_exhaustive}, {"random", strategy_random},
                      {"anneal", strategy_anneal},         {"genetic", strategy_genetic}};
    void (*run)(struct search *) = NULL;
    for (size_t i = 0; i < sizeof strategies / sizeof strategies[0]; i++)
        if (strategy && !strcmp(strategy, strategies[i].name)) run = strategies[i].run;
    memset(out, 0, sizeof *out);
    if (!run || !space || space->n <= 0 || !eval) return -1;
    const int n = space->n;
    struct search s = {.sp = space, .eval = eval, .ctx = ctx,
                       .budget = budget <= 0 || budget > n || run == strategy_exhaustive ? n : budget,
                       .rng = {seed * 0x2545f4914f6cdd1dull + 1}};
    s.time = xcalloc((size_t)n, sizeof *s.time);
    s.noise = xcalloc((size_t)n, sizeof *s.noise);
    s.nb = xcalloc((size_t)n, sizeof *s.nb);
    for (int i = 0; i < n; i++) {
        const unsigned x = space->shapes[i][0], y = space->shapes[i][1];
        s.time[i] = NAN;
        s.nb[i][0] = space_find(space, x * 2, y);
        s.nb[i][1] = x % 2 ? -1 : space_find(space, x / 2, y);
        s.nb[i][2] = space_find(space, x, y * 2);
        s.nb[i][3] = y % 2 ? -1 : space_find(space, x, y / 2);
    }
    run(&s);
    int rc = search_result(&s, out);
    free(s.time);
    free(s.noise);
    free(s.nb);
    return rc;
}
