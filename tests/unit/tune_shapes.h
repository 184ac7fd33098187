/* The tests' view of a shape-only search: a list of shapes and an
 * evaluation by shape, as tune searched before spaces of knobs existed,
 * adapted to tune.h's points (one per shape, in list order). */
#ifndef TESTS_TUNE_SHAPES_H
#define TESTS_TUNE_SHAPES_H
#include <string.h>

#include "tune/tune.h"

struct shape_list {
    int n;
    const unsigned (*shapes)[2];
};

typedef double (*shape_eval_fn)(void *ctx, const unsigned wg[2], double *noise);

/* tune_result with the shapes of the best and the runner-up. */
struct shape_result {
    unsigned best[2], runner_up[2];
    double best_s, runner_up_s, margin, noise;
    int tie, evaluations;
};

struct shape_adapter {
    const struct shape_list *list;
    shape_eval_fn fn;
    void *ctx;
};

static double shape_adapt(void *ctx, int point, double *noise) {
    const struct shape_adapter *a = ctx;
    return a->fn(a->ctx, a->list->shapes[point], noise);
}

static inline int shape_search(const char *strategy, const struct shape_list *list, int budget, unsigned seed,
                               shape_eval_fn fn, void *ctx, struct shape_result *out) {
    struct tune_space sp;
    tune_space_of_shapes(&sp, list->n, list->shapes);
    struct shape_adapter a = {list, fn, ctx};
    struct tune_result r;
    const int rc = tune_search(strategy, &sp, budget, seed, shape_adapt, &a, &r);
    memset(out, 0, sizeof *out);
    if (r.best >= 0) memcpy(out->best, list->shapes[r.best], sizeof out->best);
    if (r.runner_up >= 0) memcpy(out->runner_up, list->shapes[r.runner_up], sizeof out->runner_up);
    out->best_s = r.best_s, out->runner_up_s = r.runner_up_s, out->margin = r.margin, out->noise = r.noise;
    out->tie = r.tie, out->evaluations = r.evaluations;
    tune_space_free(&sp);
    return rc;
}
#endif
