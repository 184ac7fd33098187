/* What the strategies share (tune_search.c, tune_neighbours.c, tune_design.c):
 * one search's state, the only door to the evaluation function (search_visit:
 * a point is evaluated at most once, the budget counts distinct points),
 * neighbours, designs, and a repeatable random stream. Private to the tuner.
 *
 * Every helper here costs a bounded amount per call, whatever the size of
 * the space (hash lookups, the evaluated points, a lazily shuffled order):
 * nothing scans every point after the search has started, so a space of a
 * million points costs its setup (an array per point, once) and then per
 * choice about what a space of a thousand does. */
#ifndef HARNESS_TUNE_SEARCH_H
#define HARNESS_TUNE_SEARCH_H
#include <stdint.h>

#include "tune/tune.h"

/* splitmix64: small, fast, and the same sequence on every libc (rand() is not). */
struct rng {
    uint64_t s;
};
uint64_t rng_next(struct rng *r);
int rng_below(struct rng *r, int n);
double rng_unit(struct rng *r);

/* Neighbour lists, computed the first time a point's are asked for and kept
 * (a hash from point to its list in one pool): a walk comes back to the same
 * points, and the lists of a million points would not fit in the time. */
struct nb_cache {
    int *key, *at, *count, *single; /* per slot: point + 1 (0: empty), its list, its length, its one-parameter moves */
    int slots, used;
    int *pool, pool_n, pool_cap;
};

struct search {
    const struct tune_space *sp;
    tune_eval_fn eval;
    void *ctx;
    int budget, evaluations;
    double *time; /* NAN: not evaluated; INFINITY: failed */
    double *noise;
    int *seen; /* the points evaluated, in order: seen[0 .. evaluations) */
    int best;  /* the fastest evaluated point that did not fail, or -1 */
    int *perm; /* a shuffled order of every point, drawn from lazily (search_unvisited) */
    int perm_at;
    struct nb_cache nbc;
    struct rng rng;
};

int search_more(const struct search *s);
/* The time of point i, evaluating it once; NAN when never evaluated and the
 * budget is spent; INFINITY when it failed. */
double search_visit(struct search *s, int i);
/* The best point evaluated so far that did not fail, or -1. */
int search_best(const struct search *s);
/* Evaluates up to m unseen points spread over every parameter's levels (a
 * Latin-hypercube design; a target that is not a point of the space is drawn
 * again within its strata, then replaced by a uniform draw: see tune_design.c). */
void search_design(struct search *s, int m);
/* The same, but for a model to learn from (leverage 1): a missing target
 * goes to the nearest unseen point instead (tune_design.c says why). */
void search_design_for(struct search *s, int m, int leverage);
/* The neighbours of point i (tune_neighbours.c says which): *count of them,
 * the first *single changing one parameter. Valid until the next call. */
const int *search_neighbours(struct search *s, int i, int *count, int *single);
/* A random neighbour of i among the one-parameter moves only when one_param,
 * only unseen ones when fresh; -1 when there is none. */
int search_neighbour(struct search *s, int i, int one_param, int fresh);
/* An unseen neighbour of one of the `top` best points evaluated (the best
 * first; any of its moves alike), or -1. */
int search_polish(struct search *s, int top);
/* The `top` fastest evaluated points, fastest first, into out; how many. */
int search_top(const struct search *s, int top, int *out);
/* A uniformly chosen point not yet evaluated, or -1 (amortised O(1)). */
int search_unvisited(struct search *s);
/* The coordinates of point i. */
const int *search_coords(const struct search *s, int i);

void strategy_exhaustive(struct search *s);
void strategy_random(struct search *s);
void strategy_anneal(struct search *s);
void strategy_genetic(struct search *s);
void strategy_forest(struct search *s);
#endif
