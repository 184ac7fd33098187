/* Search strategies over work-group shapes (Kernel Tuner's, CLTune's and
 * KTT's vocabulary): exhaustive, random, anneal, genetic. A strategy only
 * sees an evaluation function, so the same code searches a live device or
 * replays measurements already in the database. */
#ifndef HARNESS_TUNE_H
#define HARNESS_TUNE_H
#include <stddef.h>

/* Returns the median seconds of a shape, or a negative number when the
 * shape failed (invalid, wrong, crashed); *noise gets its relative spread
 * (IQR / median) when known. */
typedef double (*tune_eval_fn)(void *ctx, const unsigned wg[2], double *noise);

struct tune_space {
    int n;
    const unsigned (*shapes)[2]; /* the valid candidates, in a fixed order */
};

struct tune_result {
    unsigned best[2], runner_up[2];
    double best_s, runner_up_s;
    double margin;   /* runner_up_s / best_s - 1 */
    double noise;    /* the larger relative spread of the two */
    int tie;         /* the margin is within the noise: not a winner */
    int evaluations; /* distinct shapes evaluated */
};

/* strategy: "exhaustive", "random", "anneal" or "genetic". budget: the most
 * distinct shapes to evaluate (exhaustive ignores it). seed makes runs
 * repeatable. Returns 0, or -1 when no shape succeeded or the strategy is
 * unknown. */
/* The tie rule: `other` is tied with `best` when it is slower by no more
 * than the larger relative spread (IQR / median) of the two, and never less
 * than half a percent. Tuning results, `best` and the replay tests use it. */
int tune_tied(double best_s, double best_noise, double other_s, double other_noise);

int tune_search(const char *strategy, const struct tune_space *space, int budget, unsigned seed, tune_eval_fn eval,
                void *ctx, struct tune_result *out);
#endif
