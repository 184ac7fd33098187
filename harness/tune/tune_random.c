/* Random search (tune_search.h): a space-filling design of RANDOM_EXPLORE of
 * the budget, then a polish that stops when it stops paying.
 *
 * Sampling alone, however evenly spread, finds a given point with a chance
 * of at most budget / n: with a quarter of the evaluations and one or two
 * shapes within 2 % of the best (the H100 replays of OpenCL 128x128 and CUDA
 * 1024x1024), at most 25 % or 49 % of the seeds get there. So after the
 * design the search polishes: an unseen neighbour of the best point (of the
 * next best once those run out, down to RANDOM_TOP), which is where the
 * optimum of a smooth landscape is. But a polish that never stops sits in
 * the first basin the design found: on a landscape of several basins (issue
 * 35: an AMD convolution space) it spent the rest of the budget there and
 * ended 1.5x slower than the optimum, worse than drawing every point
 * uniformly. So the polish runs while it pays: after RANDOM_PATIENCE
 * polished points without a new best the search draws uniformly again, and
 * polishes again as soon as a draw finds a new best (another basin). A
 * search that gives up a spent basin this way keeps what a uniform draw of
 * the same size would find, give or take the polish's few points. The 40 %
 * share is from the replays (tests/data): on the H200's 87-point 256x256
 * knobs x shapes landscape, shares of 0.35 to 0.45 reach the winner in 12
 * to 16 of 20 seeds, 0.3 and 0.5 in 7 to 10. */
#include <math.h>

#include "tune/tune_search.h"

#define RANDOM_EXPLORE 0.4
#define RANDOM_TOP 3 /* the best points whose neighbours the polish tries */

/* Polished points without a new best before the search draws uniformly
 * again: about a point's one-parameter neighbourhood. */
static int patience(const struct search *s) {
    int moves = 0;
    for (int k = 0; k < s->sp->nparams; k++)
        moves += s->sp->params[k].ordinal ? 2 : s->sp->params[k].levels - 1 < 8 ? s->sp->params[k].levels - 1 : 8;
    return moves < 4 ? 4 : moves;
}

void strategy_random(struct search *s) {
    const int n = s->sp->n, wait = patience(s);
    search_design(s, (int)ceil(RANDOM_EXPLORE * s->budget));
    int stale = 0;
    while (search_more(s) && s->evaluations < n) {
        const int before = search_best(s);
        int j = stale < wait ? search_polish(s, RANDOM_TOP) : -1;
        if (j < 0) j = search_unvisited(s);
        if (j < 0) break;
        search_visit(s, j);
        stale = search_best(s) != before ? 0 : stale + 1;
        /* A uniform draw that found a new best opened another basin: polish it. */
    }
}
