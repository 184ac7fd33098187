/* Simulated annealing (tune_search.h): a design of ANNEAL_SAMPLE of the
 * budget finds a place to start; the walk then moves over the neighbours
 * (one parameter to another level, or two ordinal ones at once). The
 * temperature is a relative slow-down accepted with probability 1/e; it
 * falls geometrically from T0 to T1 as the budget is spent (the schedule
 * follows evaluations, not steps, since steps over remembered points are
 * free). After ANNEAL_PATIENCE new points without a new best the walk
 * restarts from the best so far; after ANNEAL_PATIENCE restarts without one
 * it restarts from a uniformly drawn point instead, since the best's basin
 * is spent (issue 35: a walk that only ever returned to the best ended in a
 * basin 1.5x slower than the optimum on an AMD convolution space). */
#include <math.h>

#include "tune/tune_search.h"

#define ANNEAL_SAMPLE 0.4
#define ANNEAL_T0 0.10
#define ANNEAL_T1 0.002
#define ANNEAL_PATIENCE 4

void strategy_anneal(struct search *s) {
    const int n = s->sp->n;
    search_design(s, (int)ceil(ANNEAL_SAMPLE * s->budget));
    int cur = search_best(s), best = cur, idle = 0, stale = 0, restarts = 0;
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
        /* A walk that found nothing better for a while restarts from the
         * best; one that has done so often without a new best, elsewhere. */
        if (stale >= ANNEAL_PATIENCE) {
            stale = 0;
            if (++restarts <= ANNEAL_PATIENCE) cur = best;
            else {
                const int j = search_unvisited(s);
                if (j < 0) break;
                restarts = 0;
                if (isfinite(search_visit(s, j))) cur = j;
                if (search_best(s) != best) best = search_best(s);
                continue;
            }
        }
        double temp = ANNEAL_T0 * pow(ANNEAL_T1 / ANNEAL_T0, (double)s->evaluations / s->budget);
        int j = search_neighbour(s, cur, 0, 0);
        /* Free steps over remembered points cannot spend the budget, so a walk
         * boxed in by them (or a point without neighbours) is sent to an unseen
         * point after a while, and stands there if it is a new best. */
        if (j < 0 || idle >= idle_max) {
            search_design(s, 1);
            const int after = search_best(s);
            if (after != best) cur = best = after, stale = restarts = 0;
            idle = 0;
            continue;
        }
        const int fresh = isnan(s->time[j]);
        const double best_t = s->time[best];
        double t = search_visit(s, j), tc = s->time[cur];
        if (t < best_t) best = j, restarts = 0;
        idle = fresh ? 0 : idle + 1;
        if (fresh) stale = t < best_t ? 0 : stale + 1;
        if (!isfinite(t)) continue;
        if (t <= tc || rng_unit(&s->rng) < exp(-(t / tc - 1) / temp)) cur = j;
    }
}
