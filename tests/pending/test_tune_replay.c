/* NOT RUN BY make test (tests/pending/): it fails on one of four landscapes,
 * see tests/pending/README.md. Issue 4's acceptance on real data: the exhaustive work-group sweeps of the
 * final LBM variant on an H100 (tests/data/wg-h100-final.csv, CUDA and
 * NVIDIA OpenCL, 128x128 and 1024x1024) replayed through the strategies.
 * Random and anneal must come within 2 % of the exhaustive best using at
 * most 25 % of the evaluations, as the median over 20 seeds. */
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
        if (sscanf(line, "%15[^,],%31[^,],%15[^,],%u,%u,%15[^,],%lf,%lf,%lf", backend, fp, input, &x, &y, status,
                   &med, &q1, &q3) != 9)
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

int main(void) {
    struct landscape ls[8];
    int n = load("tests/data/wg-h100-final.csv", ls, 8);
    CHECK(n == 4, "the H100 sweep data has 4 landscapes (2 backends x 2 inputs): %d", n);
    for (int k = 0; k < n; k++) {
        struct landscape *l = &ls[k];
        struct tune_space space = {l->n, (const unsigned(*)[2])l->shapes};
        struct tune_result ex;
        CHECK(tune_search("exhaustive", &space, 0, 1, eval, l, &ex) == 0 && ex.evaluations == l->n,
              "%s %s: exhaustive evaluates all %d shapes", l->backend, l->input, l->n);
        double truth = INFINITY;
        for (int i = 0; i < l->n; i++) truth = fmin(truth, l->median[i]);
        CHECK(fabs(ex.best_s - truth) < 1e-12, "%s %s: exhaustive best %ux%u is the true minimum", l->backend,
              l->input, ex.best[0], ex.best[1]);
        const int budget = l->n / 4; /* 25 % of the evaluations */
        const char *strategies[] = {"random", "anneal"};
        for (int s = 0; s < 2; s++) {
            double gap[20];
            int within_budget = 1;
            for (unsigned seed = 0; seed < 20; seed++) {
                struct tune_result r;
                tune_search(strategies[s], &space, budget, seed + 1, eval, l, &r);
                within_budget &= r.evaluations <= budget;
                gap[seed] = r.best_s / ex.best_s - 1;
            }
            double med = stats_median(gap, 20);
            CHECK(within_budget, "%s %s: %s never evaluates more than %d of %d shapes", l->backend, l->input,
                  strategies[s], budget, l->n);
            CHECK(med <= 0.02, "%s %s: %s within 2%% of the best in 25%% of the evaluations (median gap %.2f%%)",
                  l->backend, l->input, strategies[s], 100 * med);
        }
    }
    CHECK_DONE();
}
