/* What the strategies share (tune.c, tune_forest.c): one search's state, the
 * only door to the evaluation function (search_visit: a point is evaluated at
 * most once, the budget counts distinct points), neighbours, designs, and a
 * repeatable random stream. Private to the tuner. */
#ifndef HARNESS_TUNE_SEARCH_H
#define HARNESS_TUNE_SEARCH_H
#include <stdint.h>

#include "tune.h"

/* splitmix64: small, fast, and the same sequence on every libc (rand() is not). */
struct rng {
    uint64_t s;
};
uint64_t rng_next(struct rng *r);
int rng_below(struct rng *r, int n);
double rng_unit(struct rng *r);

struct search {
    const struct tune_space *sp;
    tune_eval_fn eval;
    void *ctx;
    int budget, evaluations;
    double *time; /* NAN: not evaluated; INFINITY: failed */
    double *noise;
    /* Neighbours of point i: nb[nb_at[i] .. nb_at[i + 1]); the first
     * nb_single[i] of them change one parameter, the rest two ordinal ones
     * at once (a shape of the same size and another aspect, and the like). */
    int *nb_at, *nb, *nb_single;
    struct rng rng;
};

int search_more(const struct search *s);
/* The time of point i, evaluating it once; NAN when never evaluated and the
 * budget is spent; INFINITY when it failed. */
double search_visit(struct search *s, int i);
/* The best point evaluated so far that did not fail, or -1. */
int search_best(const struct search *s);
/* Evaluates up to m unseen points spread over every parameter's levels (a
 * Latin-hypercube-like design, each target moved to the nearest valid point). */
void search_design(struct search *s, int m);
/* A random neighbour of i among the first `single` ones only when one_param,
 * only unseen ones when fresh; -1 when there is none. */
int search_neighbour(struct search *s, int i, int one_param, int fresh);
/* A uniformly chosen point not yet evaluated, or -1. */
int search_unvisited(struct search *s);

void strategy_forest(struct search *s);
#endif
