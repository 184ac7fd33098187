/* tune_verdict.h. */
#include "tune_verdict.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "round_stats.h"
#include "rounds.h"
#include "stats.h"
#include "worker.h"

#define VERDICT_ALPHA 0.05
#define VERDICT_FLOOR 0.005

int verdict_beats(double p, double margin) { return p <= VERDICT_ALPHA && margin >= VERDICT_FLOOR; }

struct result_ctx {
    const struct verdict_env *env;
};

static void on_result(void *ctx, struct round_job *j, int round, int first_sample) {
    const struct verdict_env *e = ((struct result_ctx *)ctx)->env;
    (void)round;
    char err[ERR_MAX];
    int rc = j->mid > 0       ? store_measurement_more(e->store, j->mid, &j->m, first_sample, err, sizeof err)
             : e->run_id >= 0 ? store_measurement_id(e->store, e->run_id, &j->m, &j->mid, err, sizeof err)
                              : 0;
    if (rc != 0) fprintf(stderr, "harness: %s\n", err);
    if (j->done) runner_print(stdout, e->dev, &j->m, e->peak);
}

/* The log median of each round of a job, by round; NaN where it has none. */
static void round_logs(const struct measurement *m, double *out, int rounds) {
    double med[1024];
    for (int r = 0; r < rounds; r++) out[r] = NAN;
    int k = measurement_round_medians(m, med);
    /* rounds are numbered from 0 and a job runs every round, so the k-th
     * median is round k's unless the job failed early */
    for (int r = 0; r < k && r < rounds; r++) out[r] = log(med[r]);
}

int verdict_rounds(const struct verdict_env *env, struct verdict_cand *c, int n, int stored, struct verdict_out *out) {
    memset(out, 0, sizeof *out);
    const int R = env->rounds;
    if (R < 2 || n < 2 || n > VERDICT_MAX || R > 1000) return -1;
    struct round_job jobs[VERDICT_MAX];
    memset(jobs, 0, sizeof jobs);
    for (int k = 0; k < n; k++) {
        struct round_job *j = &jobs[k];
        runner_describe(&c[k].cfg, &j->m);
        j->m.warmup = env->warmup;
        j->m.rounds = R;
        runner_job(&c[k].cfg, env->dev, env->warmup, rounds_reps_each(env->reps, R), &j->job);
        j->group = -1;
        j->timeout_s = env->timeout_s;
        j->bytes_per_cell = c[k].cfg.app->bytes_per_cell(&c[k].cfg.knobs);
    }
    printf("\nverdict: the %d best configurations again%s, %d rounds (a fresh worker each, shuffled)\n", n,
           stored >= 0 ? " (the stored one among them)" : "", R);
    fflush(stdout);
    struct result_ctx rc_ctx = {env};
    struct rounds_opts ro = {.seed = env->seed, .on_result = on_result, .ctx = &rc_ctx, .what = "tune verdict"};
    const int ran = rounds_run(jobs, n, &ro);
    static double logs[VERDICT_MAX][1000];
    double mean[VERDICT_MAX];
    int order[VERDICT_MAX], ok = 0;
    for (int k = 0; k < n; k++) {
        round_logs(&jobs[k].m, logs[k], R);
        int cnt = 0;
        mean[k] = 0;
        for (int q = 0; q < R; q++)
            if (!isnan(logs[k][q])) mean[k] += logs[k][q], cnt++;
        mean[k] = jobs[k].m.status == ST_OK && cnt == R ? mean[k] / cnt : INFINITY;
        if (isfinite(mean[k])) order[ok++] = k;
    }
    for (int a = 1; a < ok; a++) /* fastest first by the rounds */
        for (int b = a; b > 0 && mean[order[b]] < mean[order[b - 1]]; b--) {
            const int t = order[b];
            order[b] = order[b - 1], order[b - 1] = t;
        }
    int rc = -1;
    if (ran >= 0 && ok >= 2) {
        const int b = order[0], u = order[1];
        struct paired_result p;
        rc_paired(logs[b], logs[u], R, &p); /* ratio: runner-up over best */
        out->best = b, out->runner_up = u;
        /* Ordered and tested on the rounds' mean log (the paired test's
         * scale); the figure stored is the median round, as robust to one
         * disturbed round as a measurement's median. */
        out->best_s = exp(stats_median(logs[b], (size_t)R));
        out->runner_up_s = exp(stats_median(logs[u], (size_t)R));
        out->margin = p.ratio - 1;
        out->noise = expm1(p.sd);
        out->p = p.p;
        out->tie = !verdict_beats(p.p, out->margin);
        printf("rounds       %s %ux%u against %s %ux%u round for round: %+.2f %%, sd of the differences %.2f %%, "
               "p %.2g\n",
               c[b].cfg.variant, c[b].cfg.wg[0], c[b].cfg.wg[1], c[u].cfg.variant, c[u].cfg.wg[0], c[u].cfg.wg[1],
               100 * out->margin, 100 * out->noise, p.p);
        if (stored >= 0 && stored != b) {
            struct paired_result q;
            if (isfinite(mean[stored])) {
                rc_paired(logs[b], logs[stored], R, &q);
                out->stored_margin = q.ratio - 1, out->stored_p = q.p;
            } else { /* the stored configuration failed here: anything that ran beats it */
                out->stored_margin = INFINITY, out->stored_p = 0;
            }
            out->stored_judged = 1;
        }
        rc = 0;
    }
    for (int k = 0; k < n; k++) measurement_free(&jobs[k].m);
    return rc;
}
