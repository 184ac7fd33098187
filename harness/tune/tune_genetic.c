/* A genetic search (tune_search.h): a small population of the best points
 * found, children by uniform crossover of two tournament winners (a hash
 * lookup finds the child's point), a one-parameter mutation now and then
 * (a categorical parameter to any other level, an ordinal one to the next),
 * immigrants drawn uniformly when breeding yields nothing new. */
#include <math.h>
#include <stdlib.h>

#include "base/util.h"
#include "tune/tune_search.h"

#define GENETIC_MUTATE 0.3 /* chance a child also takes a one-parameter move */

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
    const int *ca = search_coords(s, a), *cb = search_coords(s, b);
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

void strategy_genetic(struct search *s) {
    const int n = s->sp->n;
    int size = s->budget / 5;
    size = size < 4 ? 4 : size > 12 ? 12 : size;
    int *pop = xcalloc((size_t)size, sizeof *pop), np = 0, idle = 0;
    /* Breeding only known points this many times in a row calls an immigrant
     * (bounded: the old bound, twice the space, spun on a large one). */
    const int idle_max = 2 * n < 64 ? 2 * n : 64;
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
            if (child < 0 || (!isnan(s->time[child]) && ++idle >= idle_max)) child = search_unvisited(s);
        }
        if (child < 0) break;
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
