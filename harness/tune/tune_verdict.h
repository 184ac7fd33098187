/* The verdict of `harness tune` on rounds: the best configurations a search
 * found (and the stored one) measured again in R rounds, each a fresh worker
 * process with the configurations shuffled; the best is a winner only when
 * it beats the runner-up round for round (a paired t-test on the rounds'
 * medians, p <= 0.05, by at least 0.5 %), else a tie. */
#ifndef HARNESS_TUNE_VERDICT_H
#define HARNESS_TUNE_VERDICT_H
#include "core/rounds.h"
#include "core/runner.h"

#define VERDICT_MAX 5 /* the best four and the stored configuration */

struct verdict_cand {
    struct config cfg; /* knobs, shape, variant name (the input is the full-length one) */
    int point;         /* in the search's plan, or -1 (the stored configuration, outside the space) */
};

struct verdict_out {
    int best, runner_up; /* indices into the candidates */
    double best_s, runner_up_s, margin, noise, p;
    int tie;
    int stored_judged;              /* the stored candidate was measured and differs from the best */
    double stored_margin, stored_p; /* the stored one over the best, round for round */
};

struct verdict_env {
    struct worker_pool *pool;
    const struct device_info *dev;
    /* After each round of each candidate, before its line is printed: the
     * caller keeps it (the command stores it); NULL: kept nowhere. */
    round_result_fn keep;
    void *keep_ctx;
    double peak;
    int warmup, reps, rounds;
    double timeout_s;
    unsigned seed;
};

/* 1 when p and margin say "beats round for round". */
int verdict_beats(double p, double margin);
/* Measures the n candidates in env->rounds rounds; stored is the index of the
 * stored configuration among them, or -1. 0 with out filled, or -1 when
 * fewer than two ran every round (or an interrupt). */
int verdict_rounds(const struct verdict_env *env, struct verdict_cand *c, int n, int stored, struct verdict_out *out);
#endif
