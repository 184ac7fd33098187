/* Issue 4's acceptance on real data: the exhaustive work-group sweeps of the
 * final LBM variant on an H100 (tests/data/wg-h100-final.csv, CUDA and NVIDIA
 * OpenCL, 128x128 and 1024x1024) replayed through the strategies. Random and
 * anneal, with at most 25 % of the evaluations, must reach within 2 % of the
 * exhaustive best in the median of 20 seeds.
 *
 * Only informative landscapes count: the exhaustive best is a distinct
 * winner (it beats the runner-up beyond the noise, the tuner's own rule),
 * and a control that does not search (the first 25 % of the shapes in
 * order) fails. Elsewhere any pick passes, so passing says nothing: such a
 * landscape is reported as not informative and counted as skipped, never as
 * passed (an earlier version counted a shape "tied" with the best as
 * reaching it, under which not searching passed too). At least one
 * landscape must be informative, or the test fails: a data file on which
 * nothing can fail is no test. On NVIDIA OpenCL 128x128 every step is one
 * enqueue and the time is host-bound and flat across shapes (the top shapes'
 * fastest repetitions within 0.220-0.237 s, IQR/median up to 24 %): which
 * shape has the lowest median is decided by the noise there. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "stats.h"
#include "tune.h"

#define MAX_SHAPES 256

struct landscape {
    char backend[16], input[16];
    int n;
    unsigned shapes[MAX_SHAPES][2];
    double median[MAX_SHAPES], noise[MAX_SHAPES];
};

static double eval(void *ctx, const unsigned wg[2], double *noise) {
    const struct landscape *l = ctx;
    for (int i = 0; i < l->n; i++)
        if (l->shapes[i][0] == wg[0] && l->shapes[i][1] == wg[1]) {
            *noise = l->noise[i];
            return l->median[i];
        }
    return -1;
}

/* Reads the CSV into one landscape per (backend, input). */
static int load(const char *path, struct landscape *ls, int max) {
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    char line[512];
    int count = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || !strncmp(line, "backend,", 8)) continue;
        char backend[16], fp[32], input[16], status[16];
        unsigned x, y;
        double med, q1, q3;
        if (sscanf(line, "%15[^,],%31[^,],%15[^,],%u,%u,%15[^,],%lf,%lf,%lf", backend, fp, input, &x, &y, status, &med,
                   &q1, &q3) != 9)
            continue;
        int k = 0;
        while (k < count && (strcmp(ls[k].backend, backend) || strcmp(ls[k].input, input))) k++;
        if (k == count) {
            if (count == max) continue;
            memset(&ls[k], 0, sizeof ls[k]);
            strcpy(ls[k].backend, backend);
            strcpy(ls[k].input, input);
            count++;
        }
        struct landscape *l = &ls[k];
        if (l->n == MAX_SHAPES) continue;
        l->shapes[l->n][0] = x;
        l->shapes[l->n][1] = y;
        l->median[l->n] = med;
        l->noise[l->n++] = (q3 - q1) / med;
    }
    fclose(f);
    return count;
}

static int best_index(const struct landscape *l, const struct tune_result *ex) {
    for (int i = 0; i < l->n; i++)
        if (l->shapes[i][0] == ex->best[0] && l->shapes[i][1] == ex->best[1]) return i;
    return -1;
}

/* A found shape reaches the exhaustive best when it is within 2 % of it. */
static int reaches(const struct landscape *l, const struct tune_result *ex, const unsigned wg[2]) {
    const int b = best_index(l, ex);
    for (int i = 0; i < l->n; i++)
        if (l->shapes[i][0] == wg[0] && l->shapes[i][1] == wg[1]) return l->median[i] / l->median[b] - 1 <= 0.02;
    return 0;
}

/* How many of 20 seeds of a strategy reach the best within the budget
 * ("first-quarter": no search, the first `budget` shapes in order). */
static int seeds_reaching(const struct landscape *l, const struct tune_space *space, const struct tune_result *ex,
                          const char *strategy, int budget, int *within_budget, double *median_gap) {
    double gap[20];
    int reached = 0;
    *within_budget = 1;
    for (unsigned seed = 0; seed < 20; seed++) {
        struct tune_result r;
        if (!strcmp(strategy, "first-quarter")) {
            struct tune_space head = {budget, space->shapes};
            tune_search("exhaustive", &head, 0, 1, eval, (void *)l, &r);
        } else {
            tune_search(strategy, space, budget, seed + 1, eval, (void *)l, &r);
        }
        *within_budget &= r.evaluations <= budget;
        gap[seed] = r.best_s / ex->best_s - 1;
        reached += reaches(l, ex, r.best);
    }
    *median_gap = stats_median(gap, 20);
    return reached;
}

int main(void) {
    struct landscape ls[8];
    int n = load("tests/data/wg-h100-final.csv", ls, 8), informative = 0;
    CHECK(n == 4, "the H100 sweep data has 4 landscapes (2 backends x 2 inputs): %d", n);
    for (int k = 0; k < n; k++) {
        struct landscape *l = &ls[k];
        struct tune_space space = {l->n, (const unsigned(*)[2])l->shapes};
        struct tune_result ex;
        CHECK(tune_search("exhaustive", &space, 0, 1, eval, l, &ex) == 0 && ex.evaluations == l->n,
              "%s %s: exhaustive evaluates all %d shapes", l->backend, l->input, l->n);
        double truth = INFINITY;
        for (int i = 0; i < l->n; i++) truth = fmin(truth, l->median[i]);
        CHECK(fabs(ex.best_s - truth) < 1e-12, "%s %s: exhaustive best %ux%u is the true minimum", l->backend, l->input,
              ex.best[0], ex.best[1]);
        const int budget = l->n / 4; /* 25 % of the evaluations */
        int worst = 0;
        for (int i = 0; i < l->n; i++)
            if (l->median[i] > l->median[worst]) worst = i;
        CHECK(!reaches(l, &ex, l->shapes[worst]), "%s %s: the slowest shape %ux%u does not count as reaching the best",
              l->backend, l->input, l->shapes[worst][0], l->shapes[worst][1]);
        int in_budget;
        double gap;
        const int control = seeds_reaching(l, &space, &ex, "first-quarter", budget, &in_budget, &gap);
        printf("# %s %s: best %ux%u %.4f s, %s; not searching reaches it in %d of 20\n", l->backend, l->input,
               ex.best[0], ex.best[1], ex.best_s, ex.tie ? "a tie" : "a distinct winner", control);
        if (ex.tie || control >= 10) {
            printf("ok - %s %s: not informative (%s) # skip\n", l->backend, l->input,
                   ex.tie ? "the best is tied with the runner-up" : "not searching reaches the best");
            continue;
        }
        informative++;
        const char *strategies[] = {"random", "anneal"};
        for (int s = 0; s < 2; s++) {
            const int reached = seeds_reaching(l, &space, &ex, strategies[s], budget, &in_budget, &gap);
            printf("# %s %s: %s reaches within 2 %% of the best in %d of 20 seeds (median gap %.2f %%)\n", l->backend,
                   l->input, strategies[s], reached, 100 * gap);
            CHECK(in_budget, "%s %s: %s never evaluates more than %d of %d shapes", l->backend, l->input, strategies[s],
                  budget, l->n);
            CHECK(reached >= 10,
                  "%s %s: %s reaches within 2 %% of the best in the median of 20 seeds with 25 %% of the "
                  "evaluations (%d of 20)",
                  l->backend, l->input, strategies[s], reached);
        }
    }
    CHECK(informative >= 1, "at least one landscape is informative (a distinct winner that not searching misses): %d",
          informative);
    CHECK_DONE();
}
