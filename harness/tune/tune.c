/* Search strategies over a space of points (tune.h).
 *
 * Every strategy goes through search_visit, which evaluates a point at most
 * once: a re-visit returns the remembered time and costs nothing, and the
 * budget counts distinct points only. So the strategies differ only in the
 * order they propose points, and a comparison between them (harness tune
 * --replay) is a comparison of how fast each finds the best, not of how
 * lucky the noise was on a second run of the same point. */
#include "tune.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tune_search.h"
#include "util.h"

/* The tie rule judges the margin against the measured spread. A spread of 0
 * (one repetition, a coarse clock, a replayed row with q1 = q3) would make
 * any difference at all a "winner", yet two sessions on one device differ by
 * about half a percent from clocks and temperature alone; below that floor a
 * difference is not evidence. */
#define TUNE_NOISE_FLOOR 0.005

/* Random search: the first 40 % of the budget is a spread-out design (see
 * search_design), the rest a local polish around the best point found. Sampling alone, however evenly spread, finds a given point with a
 * chance of at most budget / n: with a quarter of the evaluations and one or
 * two shapes within 2 % of the best (the H100 replays of OpenCL 128x128 and
 * CUDA 1024x1024), at most 25 % or 49 % of the seeds get there, so the
 * median over seeds misses. The polish spends the rest on the unseen
 * neighbours of the best point (then of the next best once those run out),
 * which is where the optimum of a smooth landscape is. The shares (40 % here
 * and for anneal's start) are from the replays (tests/data): on the H200's
 * 87-point 256x256 knobs x shapes landscape, shares of 0.35 to 0.45 reach
 * the winner in 12 to 16 of 20 seeds, 0.3 and 0.5 in 7 to 10. */
#define RANDOM_EXPLORE 0.4

/* Annealing: a design of ANNEAL_SAMPLE of the budget finds a place to start;
 * the walk then moves over the neighbours (one parameter to another level,
 * or two ordinal ones at once). The temperature is a relative slow-down
 * accepted with probability 1/e; it falls geometrically from T0 to T1 as the
 * budget is spent (the schedule follows evaluations, not steps, since steps
 * over remembered points are free). After ANNEAL_PATIENCE new points
 * without a new best the walk restarts from the best so far. */
#define ANNEAL_SAMPLE 0.4
#define ANNEAL_T0 0.10
#define ANNEAL_T1 0.002
#define ANNEAL_PATIENCE 4
#define GENETIC_MUTATE 0.3 /* chance a child also takes a one-parameter move */

uint64_t rng_next(struct rng *r) { return splitmix64(&r->s); }

/* The modulo bias is below 1e-12 for spaces of a million points. */
int rng_below(struct rng *r, int n) { return (int)(rng_next(r) % (uint64_t)n); }
double rng_unit(struct rng *r) { return (double)(rng_next(r) >> 11) * 0x1.0p-53; }

int search_more(const struct search *s) { return s->evaluations < s->budget; }

static const int *coords(const struct search *s, int i) { return s->sp->coord + (size_t)i * s->sp->nparams; }

/* A time of zero is a failure too: it would read as infinitely fast. */
double search_visit(struct search *s, int i) {
    if (!isnan(s->time[i])) return s->time[i];
    if (!search_more(s)) return NAN;
    double noise = NAN;
    double t = s->eval(s->ctx, i, &noise);
    s->evaluations++;
    s->time[i] = t > 0 ? t : INFINITY;
    s->noise[i] = noise >= 0 ? noise : 0; /* NaN (unknown) and nonsense read as 0: the floor applies */
    return s->time[i];
}

int search_unvisited(struct search *s) {
    int left = 0;
    for (int i = 0; i < s->sp->n; i++) left += isnan(s->time[i]);
    if (!left) return -1;
    int k = rng_below(&s->rng, left);
    for (int i = 0; i < s->sp->n; i++)
        if (isnan(s->time[i]) && k-- == 0) return i;
    return -1;
}

int search_best(const struct search *s) {
    int b = -1;
    for (int i = 0; i < s->sp->n; i++)
        if (isfinite(s->time[i]) && (b < 0 || s->time[i] < s->time[b])) b = i;
    return b;
}

/* Whether i has a neighbour not evaluated yet. */
static int search_has_fresh(const struct search *s, int i) {
    for (int k = s->nb_at[i]; k < s->nb_at[i + 1]; k++)
        if (isnan(s->time[s->nb[k]])) return 1;
    return 0;
}

int search_neighbour(struct search *s, int i, int one_param, int fresh) {
    const int lo = s->nb_at[i], hi = one_param ? lo + s->nb_single[i] : s->nb_at[i + 1];
    int n = 0;
    for (int k = lo; k < hi; k++) n += !fresh || isnan(s->time[s->nb[k]]);
    if (!n) return -1;
    int pick = rng_below(&s->rng, n);
    for (int k = lo; k < hi; k++)
        if ((!fresh || isnan(s->time[s->nb[k]])) && pick-- == 0) return s->nb[k];
    return -1;
}

/* How far point i is from a target: an ordinal parameter costs its level
 * difference over its range, a categorical one 1 when it differs. */
static double distance(const struct search *s, int i, const int *target) {
    const int *c = coords(s, i);
    double d = 0;
    for (int k = 0; k < s->sp->nparams; k++) {
        const struct tune_param *p = &s->sp->params[k];
        if (p->ordinal) d += fabs((double)(c[k] - target[k])) / (p->levels > 1 ? p->levels - 1 : 1);
        else d += c[k] != target[k];
    }
    return d;
}

/* m targets whose levels are stratified per parameter (each parameter's
 * levels cut into m runs of equal length, one level drawn in each, the
 * runs shuffled independently per parameter), each moved to the nearest unseen point not
 * picked yet (ties broken at random). Every parameter's levels are covered
 * as evenly as m allows, whatever the constraints left out, instead of the
 * draws clustering by chance, which is what a small budget needs. The points
 * are evaluated in random order, so a budget cut short still spreads. */
void search_design(struct search *s, int m) {
    const int n = s->sp->n, d = s->sp->nparams;
    int left = 0;
    for (int i = 0; i < n; i++) left += isnan(s->time[i]);
    if (m > left) m = left;
    if (m <= 0) return;
    int *level = xcalloc((size_t)m * (size_t)d, sizeof *level), *pick = xcalloc((size_t)m, sizeof *pick);
    char *taken = xcalloc((size_t)n, 1);
    for (int k = 0; k < d; k++) {
        const int L = s->sp->params[k].levels;
        /* m <= L: disjoint runs of levels, one drawn in each; m > L: every
         * level m / L times (rounded down or up). */
        for (int j = 0; j < m; j++) {
            const int lo = (int)((long)j * L / m), hi = (int)((long)(j + 1) * L / m);
            level[j * d + k] = m <= L ? lo + rng_below(&s->rng, hi - lo) : lo;
        }
        for (int j = m - 1; j > 0; j--) { /* shuffle this parameter's column */
            const int r = rng_below(&s->rng, j + 1), t = level[j * d + k];
            level[j * d + k] = level[r * d + k], level[r * d + k] = t;
        }
    }
    int got = 0;
    for (int j = 0; j < m; j++) {
        double best = INFINITY;
        int b = -1, ties = 0;
        for (int i = 0; i < n; i++) {
            if (!isnan(s->time[i]) || taken[i]) continue;
            const double dist = distance(s, i, level + (size_t)j * d);
            if (dist < best - 1e-12) best = dist, b = i, ties = 1;
            else if (dist < best + 1e-12 && rng_below(&s->rng, ++ties) == 0) b = i;
        }
        if (b < 0) break;
        taken[b] = 1, pick[got++] = b;
    }
    for (int j = got - 1; j > 0; j--) {
        const int r = rng_below(&s->rng, j + 1), t = pick[j];
        pick[j] = pick[r], pick[r] = t;
    }
    for (int j = 0; j < got && search_more(s); j++) search_visit(s, pick[j]);
    free(level);
    free(pick);
    free(taken);
}

static void strategy_exhaustive(struct search *s) {
    for (int i = 0; i < s->sp->n; i++) search_visit(s, i);
}

/* A design of RANDOM_EXPLORE of the budget, then a polish: a random unseen neighbour of
 * the best point that still has one, so the polish moves on to the next best
 * once a neighbourhood is used up; one more design point when no evaluated
 * point has an unseen neighbour (or all failed). */
static void strategy_random(struct search *s) {
    const int n = s->sp->n;
    search_design(s, (int)ceil(RANDOM_EXPLORE * s->budget));
    while (search_more(s) && s->evaluations < n) {
        int b = -1;
        for (int i = 0; i < n; i++)
            if (isfinite(s->time[i]) && (b < 0 || s->time[i] < s->time[b]) && search_has_fresh(s, i)) b = i;
        if (b < 0) search_design(s, 1);
        else search_visit(s, search_neighbour(s, b, 0, 1));
    }
}

static void strategy_anneal(struct search *s) {
    const int n = s->sp->n;
    search_design(s, (int)ceil(ANNEAL_SAMPLE * s->budget));
    int cur = search_best(s), best = cur, idle = 0, stale = 0;
    /* Free steps over remembered points are bounded: a few times the
     * neighbourhood, not the space (a space of 10^5 points would spin). */
    const int idle_max = 2 * n < 64 ? 2 * n : 64;
    while (search_more(s) && s->evaluations < n) {
        /* No place to stand yet (every try so far failed): a fresh point. */
        if (cur < 0) {
            search_design(s, 1);
            cur = best = search_best(s);
            continue;
        }
        /* A walk that found nothing better for a while restarts from the best. */
        if (stale >= ANNEAL_PATIENCE) cur = best, stale = 0;
        double temp = ANNEAL_T0 * pow(ANNEAL_T1 / ANNEAL_T0, (double)s->evaluations / s->budget);
        int j = search_neighbour(s, cur, 0, 0);
        /* Free steps over remembered points cannot spend the budget, so a walk
         * boxed in by them (or a point without neighbours) is sent to an unseen
         * point after a while, and stands there if it is a new best. */
        if (j < 0 || idle >= idle_max) {
            search_design(s, 1);
            const int after = search_best(s);
            if (after != best) cur = best = after, stale = 0;
            idle = 0;
            continue;
        }
        const int fresh = isnan(s->time[j]);
        const double best_t = s->time[best];
        double t = search_visit(s, j), tc = s->time[cur];
        if (t < best_t) best = j;
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

/* Uniform crossover: each parameter from one parent or the other, at least
 * one from each where they differ (else the child is a parent again); the
 * child's point, or -1 when that combination is not in the space. */
static int genetic_cross(struct search *s, int a, int b) {
    const int d = s->sp->nparams;
    const int *ca = coords(s, a), *cb = coords(s, b);
    int child[TUNE_MAX_PARAMS], diff[TUNE_MAX_PARAMS], nd = 0, from_b = 0;
    for (int k = 0; k < d; k++) {
        child[k] = ca[k];
        if (ca[k] == cb[k]) continue;
        diff[nd++] = k;
        if (rng_below(&s->rng, 2)) child[k] = cb[k], from_b++;
    }
    if (nd >= 2 && (from_b == 0 || from_b == nd)) {
        const int k = diff[rng_below(&s->rng, nd)];
        child[k] = child[k] == ca[k] ? cb[k] : ca[k];
    }
    return tune_space_find(s->sp, child);
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
            /* A pair whose cross is not in the space (invalid there) mutates a parent. */
            int a = genetic_pick(s, pop, np), b = genetic_pick(s, pop, np);
            child = genetic_cross(s, a, b);
            if (child < 0 || rng_unit(&s->rng) < GENETIC_MUTATE) {
                int m = search_neighbour(s, child >= 0 ? child : a, 1, 0);
                if (m >= 0) child = m;
            }
            /* No child at all (a sparse space: neither the cross nor a
             * neighbour exists), or a population that only breeds known
             * points: an immigrant. */
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
    out->best = b, out->runner_up = r;
    out->evaluations = s->evaluations;
    if (b < 0) return -1;
    out->best_s = s->time[b];
    double noise = s->noise[b];
    if (r >= 0) {
        out->runner_up_s = s->time[r];
        out->margin = out->runner_up_s / out->best_s - 1;
        if (s->noise[r] > noise) noise = s->noise[r];
    } else {
        /* One point succeeded: nothing to be tied with, and no margin. */
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

/* The point that differs from c only in the listed ordinal parameters, each
 * moved in its direction (+1 or -1) to the nearest level that gives a point
 * of the space, nearest in the sum of the level steps (up to NB_REACH each):
 * a space pruned by constraints has holes (a tile=inner kernel takes 16, 24
 * or 40 wide but not 32), and a move across a hole must still be a move. */
#define NB_REACH 4
static int nearest_move(const struct tune_space *sp, int *c, int p, int dp, int q, int dq) {
    const int cp = c[p], cq = q >= 0 ? c[q] : 0, reach = q >= 0 ? 2 * NB_REACH : NB_REACH;
    int found = -1;
    for (int total = q >= 0 ? 2 : 1; total <= reach && found < 0; total++)
        for (int a = 1; a <= NB_REACH && a <= total && found < 0; a++) {
            const int b = total - a;
            if ((q >= 0) != (b > 0) || b > NB_REACH) continue;
            c[p] = cp + dp * a;
            if (q >= 0) c[q] = cq + dq * b;
            found = tune_space_find(sp, c);
        }
    c[p] = cp;
    if (q >= 0) c[q] = cq;
    return found;
}

/* Points grouped by their categorical levels (a "setting": the knobs that
 * are not numbers), so a move to another setting can land on the nearest
 * valid shape of it when the same shape is not valid there. */
struct settings {
    const struct tune_space *sp;
    int *order; /* point indices sorted by their categorical levels */
};

static const struct tune_space *cmp_space; /* qsort has no context argument */

static int cmp_categorical(const int *a, const int *b, const struct tune_space *sp) {
    for (int k = 0; k < sp->nparams; k++)
        if (!sp->params[k].ordinal && a[k] != b[k]) return a[k] < b[k] ? -1 : 1;
    return 0;
}

static int cmp_points(const void *x, const void *y) {
    const int i = *(const int *)x, j = *(const int *)y;
    const int c = cmp_categorical(cmp_space->coord + (size_t)i * cmp_space->nparams,
                                  cmp_space->coord + (size_t)j * cmp_space->nparams, cmp_space);
    return c ? c : (i > j) - (i < j);
}

static void settings_build(struct settings *st, const struct tune_space *sp) {
    st->sp = sp;
    st->order = xcalloc((size_t)sp->n, sizeof *st->order);
    for (int i = 0; i < sp->n; i++) st->order[i] = i;
    cmp_space = sp;
    qsort(st->order, (size_t)sp->n, sizeof *st->order, cmp_points);
}

/* The range [*lo, *hi) of order holding the setting of levels c. */
static void settings_range(const struct settings *st, const int *c, int *lo, int *hi) {
    const struct tune_space *sp = st->sp;
    int a = 0, b = sp->n;
    while (a < b) { /* the first not below c */
        const int m = (a + b) / 2;
        if (cmp_categorical(sp->coord + (size_t)st->order[m] * sp->nparams, c, sp) < 0) a = m + 1;
        else b = m;
    }
    *lo = a;
    b = sp->n;
    while (a < b) { /* the first above c */
        const int m = (a + b) / 2;
        if (cmp_categorical(sp->coord + (size_t)st->order[m] * sp->nparams, c, sp) <= 0) a = m + 1;
        else b = m;
    }
    *hi = a;
}

/* A move that has no exact point: the point of the target setting (c's
 * categorical levels) nearest to c in the ordinal parameters, among those
 * whose ordinal parameter `k` (when k >= 0) lies on the side `dir` of own
 * (the next level up or down that the setting has). -1 when none. */
static int settings_nearest(const struct settings *st, const int *c, int k, int own, int dir) {
    const struct tune_space *sp = st->sp;
    int lo, hi, best = -1;
    settings_range(st, c, &lo, &hi);
    int want = -1; /* for an ordinal move: the nearest level beyond own that the setting has */
    if (k >= 0)
        for (int q = lo; q < hi; q++) {
            const int v = sp->coord[(size_t)st->order[q] * sp->nparams + k];
            if ((v - own) * dir > 0 && (want < 0 || abs(v - own) < abs(want - own))) want = v;
        }
    if (k >= 0 && want < 0) return -1;
    double bd = INFINITY;
    for (int q = lo; q < hi; q++) {
        const int j = st->order[q];
        const int *cj = sp->coord + (size_t)j * sp->nparams;
        if (k >= 0 && cj[k] != want) continue;
        double d = 0;
        for (int m = 0; m < sp->nparams; m++)
            if (sp->params[m].ordinal && m != k)
                d += fabs((double)(cj[m] - c[m])) / (sp->params[m].levels > 1 ? sp->params[m].levels - 1 : 1);
        if (d < bd) bd = d, best = j;
    }
    return best;
}

/* The neighbour lists: for every point, the points one parameter away (an
 * ordinal one to the nearest level up or down, a categorical one to any
 * other level), then those two ordinal parameters away (both up, both
 * down, or one up and one down: a shape of another aspect). Where the exact
 * point is not in the space (a constraint or a validity rule left it out)
 * a one-parameter move lands on the nearest point of the target setting:
 * tile=inner is valid at 40x24 but not at 32x16, and a walk at 32x16 must
 * still be able to try it. */
static void search_neighbours(struct search *s) {
    const struct tune_space *sp = s->sp;
    const int n = sp->n, d = sp->nparams;
    int cap = 64, used = 0, c[TUNE_MAX_PARAMS];
    struct settings st;
    settings_build(&st, sp);
    s->nb_at = xcalloc((size_t)n + 1, sizeof *s->nb_at);
    s->nb_single = xcalloc((size_t)n, sizeof *s->nb_single);
    s->nb = xcalloc((size_t)cap, sizeof *s->nb);
#define NB_PUSH(j)                                                                                                     \
    do {                                                                                                               \
        const int nb_j = (j);                                                                                          \
        int nb_dup = nb_j == i;                                                                                        \
        for (int q = s->nb_at[i]; q < used && !nb_dup; q++) nb_dup = s->nb[q] == nb_j;                                 \
        if (nb_dup) break;                                                                                             \
        if (used == cap) s->nb = realloc(s->nb, sizeof *s->nb * (size_t)(cap *= 2));                                   \
        if (!s->nb) abort();                                                                                           \
        s->nb[used++] = nb_j;                                                                                          \
    } while (0)
    for (int i = 0; i < n; i++) {
        s->nb_at[i] = used;
        memcpy(c, coords(s, i), sizeof *c * (size_t)d);
        for (int k = 0; k < d; k++) {
            const int own = c[k];
            if (sp->params[k].ordinal) {
                for (int dir = -1; dir <= 1; dir += 2) {
                    int j = nearest_move(sp, c, k, dir, -1, 0);
                    if (j < 0) j = settings_nearest(&st, c, k, own, dir);
                    if (j >= 0) NB_PUSH(j);
                }
                continue;
            }
            for (int v = 0; v < sp->params[k].levels; v++) {
                if (v == own) continue;
                c[k] = v;
                int j = tune_space_find(sp, c);
                if (j < 0) j = settings_nearest(&st, c, -1, 0, 0);
                if (j >= 0) NB_PUSH(j);
            }
            c[k] = own;
        }
        s->nb_single[i] = used - s->nb_at[i];
        static const int step[4][2] = {{1, -1}, {-1, 1}, {1, 1}, {-1, -1}}; /* same size first, then another size */
        for (int p = 0; p < d; p++)
            for (int q = p + 1; q < d; q++) {
                if (!sp->params[p].ordinal || !sp->params[q].ordinal) continue;
                for (int m = 0; m < 4; m++) {
                    const int j = nearest_move(sp, c, p, step[m][0], q, step[m][1]);
                    if (j >= 0) NB_PUSH(j);
                }
            }
    }
#undef NB_PUSH
    s->nb_at[n] = used;
    free(st.order);
}

static const struct {
    const char *name;
    void (*run)(struct search *);
} strategies[] = {{"exhaustive", strategy_exhaustive},
                  {"random", strategy_random},
                  {"anneal", strategy_anneal},
                  {"genetic", strategy_genetic},
                  {"forest", strategy_forest}};
#define NSTRATEGIES ((int)(sizeof strategies / sizeof strategies[0]))

int tune_strategy_known(const char *strategy) {
    for (int i = 0; strategy && i < NSTRATEGIES; i++)
        if (!strcmp(strategy, strategies[i].name)) return 1;
    return 0;
}

int tune_search(const char *strategy, const struct tune_space *space, int budget, unsigned seed, tune_eval_fn eval,
                void *ctx, struct tune_result *out) {
    void (*run)(struct search *) = NULL;
    for (int i = 0; i < NSTRATEGIES; i++)
        if (strategy && !strcmp(strategy, strategies[i].name)) run = strategies[i].run;
    memset(out, 0, sizeof *out);
    out->best = out->runner_up = -1;
    if (!run || !space || space->n <= 0 || !eval) return -1;
    const int n = space->n;
    struct search s = {.sp = space,
                       .eval = eval,
                       .ctx = ctx,
                       .budget = budget <= 0 || budget > n || run == strategy_exhaustive ? n : budget,
                       .rng = {seed * 0x2545f4914f6cdd1dull + 1}};
    s.time = xcalloc((size_t)n, sizeof *s.time);
    s.noise = xcalloc((size_t)n, sizeof *s.noise);
    for (int i = 0; i < n; i++) s.time[i] = NAN;
    search_neighbours(&s);
    run(&s);
    int rc = search_result(&s, out);
    free(s.time);
    free(s.noise);
    free(s.nb_at);
    free(s.nb);
    free(s.nb_single);
    return rc;
}
