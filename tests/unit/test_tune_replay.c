/* Issue 18's replay acceptance on real data: measured landscapes replayed
 * through the strategies. tests/data/wg-h100-final.csv holds exhaustive
 * work-group sweeps of the final LBM variant on an H100 (shapes alone);
 * tests/data/landscape-*.csv hold knobs x shapes spaces measured on an H200
 * and an H100 (every valid point of a sweep file; replay_landscapes.h says
 * which were recorded as held out). On each landscape random and anneal
 * with at most 25 % of the evaluations, and forest (the model-based
 * strategy) with at most 10 %, must reach within 2 % of the exhaustive best
 * in the median of 20 seeds.
 *
 * Only informative landscapes count: the exhaustive best is a distinct
 * winner (it beats the runner-up beyond the noise, the tuner's own rule),
 * and a control that does not search (the first points of the file, as many
 * as the budget) fails. Elsewhere any pick passes, so passing says nothing:
 * such a landscape is reported as not informative and counted as skipped,
 * never as passed. At least one landscape must be informative for each
 * budget, or the test fails: a data file on which nothing can fail is no
 * test. Where a landscape of the same source exists for another input, the
 * forest is also run warm-started from it and the figure printed (stated,
 * not asserted: issue 18 asks how much a warm start helps). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "replay_landscapes.h"
#include "stats.h"

/* The first `budget` points of the file, as a search that does not search. */
static double eval_head(void *ctx, int point, double *noise) { return eval(ctx, point, noise); }

/* How many of 20 seeds reach within 2 % of the best with the budget; the
 * control ("no search") evaluates the first `budget` points. */
static int seeds_reaching(struct landscape *l, const struct tune_prior *prior, double best_s, const char *strategy,
                          int budget, int *in_budget, double *median_gap) {
    l->space.prior = prior;
    double gap[20];
    int reached = 0;
    *in_budget = 1;
    for (unsigned seed = 0; seed < 20; seed++) {
        struct tune_result r;
        if (!strcmp(strategy, "no search")) {
            struct tune_space head = l->space;
            head.n = budget;
            tune_search("exhaustive", &head, 0, 1, eval_head, l, &r);
        } else {
            tune_search(strategy, &l->space, budget, seed + 1, eval, l, &r);
        }
        *in_budget &= r.evaluations <= budget;
        gap[seed] = r.best_s / best_s - 1;
        reached += gap[seed] <= 0.02;
    }
    *median_gap = stats_median(gap, 20);
    l->space.prior = NULL;
    return reached;
}

int main(void) {
    static struct landscape ls[MAX_LANDSCAPES]; /* value pointers start NULL: freed whether loaded or not */
    int shape_only;
    const int n = load_landscapes(ls, &shape_only);
    CHECK(shape_only == 4, "the H100 sweep data has 4 landscapes (2 backends x 2 inputs): %d", shape_only);
    CHECK(n >= shape_only + 13, "the knobs x shapes data has at least 13 landscapes: %d", n - shape_only);
    const struct {
        const char *strategy;
        double share;
    } goals[] = {{"random", 0.25}, {"anneal", 0.25}, {"forest", 0.10}};
    int informative[3] = {0};
    const int ngoals = 3;
    for (int k = 0; k < n; k++) {
        struct landscape *l = &ls[k];
        struct tune_result ex;
        CHECK(tune_search("exhaustive", &l->space, 0, 1, eval, l, &ex) == 0 && ex.evaluations == l->n,
              "%s: exhaustive evaluates all %d points", l->name, l->n);
        double truth = INFINITY;
        int worst = 0;
        for (int i = 0; i < l->n; i++) {
            truth = fmin(truth, l->median[i]);
            if (l->median[i] > l->median[worst]) worst = i;
        }
        CHECK(fabs(ex.best_s - truth) < 1e-12, "%s: the exhaustive best is the true minimum", l->name);
        CHECK(l->median[worst] / ex.best_s - 1 > 0.02, "%s: the slowest point does not count as reaching the best",
              l->name);
        printf("# %s: %d points over %d parameters, best %.4g s, %s (margin %.2f %%, noise %.2f %%)\n", l->name, l->n,
               l->nparams, ex.best_s, ex.tie ? "a tie" : "a distinct winner", 100 * ex.margin, 100 * ex.noise);
        for (int g = 0; g < ngoals; g++) {
            const int budget = (int)(goals[g].share * l->n);
            int in_budget;
            double gap;
            const int control = seeds_reaching(l, NULL, ex.best_s, "no search", budget, &in_budget, &gap);
            if (ex.tie || control >= 10 || budget < 1) {
                printf("ok - %s: %s with %d evaluations: not informative (%s) # skip\n", l->name, goals[g].strategy,
                       budget,
                       ex.tie       ? "the best is tied with the runner-up"
                       : budget < 1 ? "too few points"
                                    : "not searching reaches the best");
                continue;
            }
            informative[g]++;
            const int reached = seeds_reaching(l, NULL, ex.best_s, goals[g].strategy, budget, &in_budget, &gap);
            printf("# %s: %s reaches within 2 %% of the best in %d of 20 seeds with %d of %d evaluations (median gap "
                   "%.2f %%)\n",
                   l->name, goals[g].strategy, reached, budget, l->n, 100 * gap);
            CHECK(in_budget, "%s: %s never evaluates more than %d of %d points", l->name, goals[g].strategy, budget,
                  l->n);
            CHECK(reached >= 10,
                  "%s: %s reaches within 2 %% of the best in the median of 20 seeds with %.0f %% of the evaluations "
                  "(%d of 20)",
                  l->name, goals[g].strategy, 100 * goals[g].share, reached);
            if (strcmp(goals[g].strategy, "forest") || !l->prior_n) continue;
            /* How much a warm start helps (stated, not asserted): the other
             * input's landscape as the prior, against the control of
             * measuring only the prior's `budget` best points: where that
             * control reaches the best, the source carried the answer and a
             * warm search that merely trusted it would pass too. */
            const struct tune_prior prior = {l->prior_n, l->prior_point, l->prior_s};
            const int warm = seeds_reaching(l, &prior, ex.best_s, "forest", budget, &in_budget, &gap);
            CHECK(in_budget, "%s: a warm-started forest never evaluates more than %d points", l->name, budget);
            double trusted = INFINITY; /* the prior's best `budget` points, measured here */
            for (int t = 0; t < budget && t < l->prior_n; t++) {
                int b = -1;
                for (int q = 0; q < l->prior_n; q++)
                    if (l->prior_s[q] > 0 && (b < 0 || l->prior_s[q] < l->prior_s[b])) b = q;
                trusted = fmin(trusted, l->median[l->prior_point[b]]);
                l->prior_s[b] = -l->prior_s[b]; /* taken; restored below */
            }
            for (int q = 0; q < l->prior_n; q++) l->prior_s[q] = fabs(l->prior_s[q]);
            printf("# %s: forest warm-started from %s reaches within 2 %% of the best in %d of 20 seeds (cold: %d); "
                   "the prior's %d best points alone: %s (%.2f %% off)%s\n",
                   l->name, l->prior_from, warm, reached, budget,
                   trusted / ex.best_s - 1 <= 0.02 ? "reach it" : "miss it", 100 * (trusted / ex.best_s - 1),
                   trusted / ex.best_s - 1 <= 0.02 ? ", so the warm figure is not informative" : "");
        }
    }
    for (int g = 0; g < ngoals; g++)
        CHECK(informative[g] >= 1, "%s: at least one landscape is informative at %.0f %% of the evaluations: %d",
              goals[g].strategy, 100 * goals[g].share, informative[g]);
    free_landscapes(ls, n);
    CHECK_DONE();
}
