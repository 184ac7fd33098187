/* One search's state and tune_search itself (tune.h): the strategies live in
 * a file each (tune_exhaustive.c, tune_random.c, tune_anneal.c,
 * tune_genetic.c, tune_forest.c) and share what is here.
 *
 * Every strategy goes through search_visit, which evaluates a point at most
 * once: a re-visit returns the remembered time and costs nothing, and the
 * budget counts distinct points only. So the strategies differ only in the
 * order they propose points, and a comparison between them (harness tune
 * --replay) is a comparison of how fast each finds the best, not of how
 * lucky the noise was on a second run of the same point. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "tune/tune.h"
#include "tune/tune_search.h"

/* The tie rule judges the margin against the measured spread. A spread of 0
 * (one repetition, a coarse clock, a replayed row with q1 = q3) would make
 * any difference at all a "winner", yet two sessions on one device differ by
 * about half a percent from clocks and temperature alone; below that floor a
 * difference is not evidence. */
#define TUNE_NOISE_FLOOR 0.005

uint64_t rng_next(struct rng *r) { return splitmix64(&r->s); }

/* The modulo bias is below 1e-12 for spaces of a million points. */
int rng_below(struct rng *r, int n) { return (int)(rng_next(r) % (uint64_t)n); }
double rng_unit(struct rng *r) { return (double)(rng_next(r) >> 11) * 0x1.0p-53; }

int search_more(const struct search *s) { return s->evaluations < s->budget; }

const int *search_coords(const struct search *s, int i) { return s->sp->coord + (size_t)i * s->sp->nparams; }

/* A time of zero is a failure too: it would read as infinitely fast. */
double search_visit(struct search *s, int i) {
    if (!isnan(s->time[i])) return s->time[i];
    if (!search_more(s)) return NAN;
    double noise = NAN;
    double t = s->eval(s->ctx, i, &noise);
    s->seen[s->evaluations++] = i;
    s->time[i] = t > 0 ? t : INFINITY;
    s->noise[i] = noise >= 0 ? noise : 0; /* NaN (unknown) and nonsense read as 0: the floor applies */
    if (isfinite(s->time[i]) && (s->best < 0 || s->time[i] < s->time[s->best])) s->best = i;
    return s->time[i];
}

int search_best(const struct search *s) { return s->best; }

/* The next point of a shuffled order of all of them, skipping the evaluated
 * ones: the shuffle is drawn as it goes (Fisher-Yates, one swap a draw), so
 * each draw is uniform over the points not evaluated yet and costs O(1)
 * amortised (each point is skipped at most once), where counting the unseen
 * points first cost a scan of the space per draw. */
int search_unvisited(struct search *s) {
    const int n = s->sp->n;
    if (s->evaluations >= n) return -1;
    if (!s->perm) {
        s->perm = xcalloc((size_t)n, sizeof *s->perm);
        for (int i = 0; i < n; i++) s->perm[i] = i;
    }
    while (s->perm_at < n) {
        const int r = s->perm_at + rng_below(&s->rng, n - s->perm_at), j = s->perm[r];
        s->perm[r] = s->perm[s->perm_at], s->perm[s->perm_at++] = j;
        if (isnan(s->time[j])) return j;
    }
    return -1;
}

int search_top(const struct search *s, int top, int *out) {
    int m = 0;
    for (int e = 0; e < s->evaluations; e++) {
        const int i = s->seen[e];
        if (!isfinite(s->time[i])) continue;
        int at = m < top ? m++ : top;
        if (at == top && s->time[i] >= s->time[out[top - 1]]) continue;
        if (at == top) at = top - 1;
        while (at > 0 && s->time[out[at - 1]] > s->time[i]) out[at] = out[at - 1], at--;
        out[at] = i;
    }
    return m;
}

int search_polish(struct search *s, int top) {
    int best[16];
    const int m = search_top(s, top < 16 ? top : 16, best);
    for (int k = 0; k < m; k++) {
        const int j = search_neighbour(s, best[k], 0, 1);
        if (j >= 0) return j;
    }
    return -1;
}

/* Best and runner-up over everything evaluated, whatever the strategy. */
static int search_result(const struct search *s, struct tune_result *out) {
    int b = -1, r = -1;
    for (int e = 0; e < s->evaluations; e++) {
        const int i = s->seen[e];
        if (!isfinite(s->time[i])) continue;
        if (b < 0 || s->time[i] < s->time[b] || (s->time[i] == s->time[b] && i < b)) r = b, b = i;
        else if (r < 0 || s->time[i] < s->time[r] || (s->time[i] == s->time[r] && i < r)) r = i;
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
                       .best = -1,
                       .rng = {seed * 0x2545f4914f6cdd1dull + 1}};
    s.time = xcalloc((size_t)n, sizeof *s.time);
    s.noise = xcalloc((size_t)n, sizeof *s.noise);
    s.seen = xcalloc((size_t)s.budget, sizeof *s.seen);
    for (int i = 0; i < n; i++) s.time[i] = NAN;
    run(&s);
    int rc = search_result(&s, out);
    free(s.time);
    free(s.noise);
    free(s.seen);
    free(s.perm);
    free(s.nbc.key);
    free(s.nbc.at);
    free(s.nbc.count);
    free(s.nbc.single);
    free(s.nbc.pool);
    return rc;
}
