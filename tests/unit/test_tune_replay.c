/* Issue 18's replay acceptance on real data: measured landscapes replayed
 * through the strategies. tests/data/wg-h100-final.csv holds exhaustive
 * work-group sweeps of the final LBM variant on an H100 (shapes alone);
 * tests/data/landscape-*.csv hold knobs x shapes spaces measured on an H200
 * (every valid point of a sweep file). On each landscape random and anneal
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
 * test. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "stats.h"
#include "tune.h"
#include "util.h"

#define MAX_POINTS 4096
#define MAX_LANDSCAPES 16

/* A landscape: its points' parameters as text values (knob values, then
 * wg_x and wg_y) and their measured medians. */
struct landscape {
    char name[160];
    int n, nparams;
    char param[TUNE_MAX_PARAMS][32];
    char (*value)[TUNE_MAX_PARAMS][24]; /* per point */
    double median[MAX_POINTS], noise[MAX_POINTS];
    struct tune_space space;
};

static struct landscape *find_or_add(struct landscape *ls, int *count, const char *name) {
    for (int k = 0; k < *count; k++)
        if (!strcmp(ls[k].name, name)) return &ls[k];
    if (*count == MAX_LANDSCAPES) return NULL;
    struct landscape *l = &ls[(*count)++];
    memset(l, 0, sizeof *l);
    snprintf(l->name, sizeof l->name, "%s", name);
    l->value = calloc(MAX_POINTS, sizeof *l->value);
    return l;
}

static int param_index(struct landscape *l, const char *name) {
    for (int k = 0; k < l->nparams; k++)
        if (!strcmp(l->param[k], name)) return k;
    snprintf(l->param[l->nparams], sizeof l->param[0], "%s", name);
    return l->nparams++;
}

/* One point: "k=v,k=v" knobs (may be empty), the shape, the figures. */
static void add_point(struct landscape *l, const char *knobs, unsigned x, unsigned y, double med, double q1,
                      double q3) {
    if (l->n == MAX_POINTS || !(med > 0)) return;
    const int i = l->n++;
    char copy[512];
    snprintf(copy, sizeof copy, "%s", knobs);
    for (char *save = NULL, *kv = strtok_r(copy, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(kv, '=');
        if (!eq) continue;
        *eq = 0;
        snprintf(l->value[i][param_index(l, kv)], sizeof l->value[0][0], "%s", eq + 1);
    }
    snprintf(l->value[i][param_index(l, "wg_x")], sizeof l->value[0][0], "%u", x);
    snprintf(l->value[i][param_index(l, "wg_y")], sizeof l->value[0][0], "%u", y);
    l->median[i] = med;
    l->noise[i] = (q3 - q1) / med;
}

/* wg-h100-final.csv: backend,fingerprint,input,wg_x,wg_y,status,median,q1,q3. */
static void load_shapes(const char *path, struct landscape *ls, int *count) {
    FILE *f = fopen(path, "r");
    char line[1024];
    while (f && fgets(line, sizeof line, f)) {
        char backend[16], fp[32], input[16], status[16], name[160];
        unsigned x, y;
        double med, q1, q3;
        if (line[0] == '#' || sscanf(line, "%15[^,],%31[^,],%15[^,],%u,%u,%15[^,],%lf,%lf,%lf", backend, fp, input, &x,
                                     &y, status, &med, &q1, &q3) != 9)
            continue;
        snprintf(name, sizeof name, "H100 %s final %s (shapes)", backend, input);
        struct landscape *l = find_or_add(ls, count, name);
        if (l) add_point(l, "", x, y, med, q1, q3);
    }
    if (f) fclose(f);
}

/* landscape-*.csv: input,"variant{k=v,...}",wg_x,wg_y,iters,median,q1,q3. */
static void load_knobs(const char *path, const char *device, struct landscape *ls, int *count) {
    FILE *f = fopen(path, "r");
    char line[1024];
    while (f && fgets(line, sizeof line, f)) {
        char input[16], base[64], knobs[1024], name[160];
        unsigned x, y;
        long iters;
        double med, q1, q3;
        if (line[0] == '#' || line[0] == '"' ||
            sscanf(line, "%15[^,],\"%63[^{]{%511[^}]}\",%u,%u,%ld,%lf,%lf,%lf", input, base, knobs, &x, &y, &iters,
                   &med, &q1, &q3) != 9)
            continue;
        str_fmt(name, sizeof name, "%s %s %s (knobs x shapes)", device, base, input);
        struct landscape *l = find_or_add(ls, count, name);
        if (l) add_point(l, knobs, x, y, med, q1, q3);
    }
    if (f) fclose(f);
}

static int cmp_value(const void *a, const void *b) {
    const char *x = a, *y = b;
    char *ex, *ey;
    const double u = strtod(x, &ex), v = strtod(y, &ey);
    if (!*ex && !*ey) return (u > v) - (u < v); /* numbers in order */
    return strcmp(x, y);
}

/* The space: each parameter's distinct values as levels (ordinal when every
 * value is a number, in numeric order), the points in file order. */
static void build_space(struct landscape *l) {
    struct tune_space *sp = &l->space;
    tune_space_init(sp, l->nparams);
    static char vals[TUNE_MAX_PARAMS][TUNE_MAX_LEVELS][24];
    int nv[TUNE_MAX_PARAMS] = {0};
    for (int k = 0; k < l->nparams; k++) {
        int numeric = 1;
        for (int i = 0; i < l->n; i++) {
            int seen = 0;
            for (int v = 0; v < nv[k]; v++) seen |= !strcmp(vals[k][v], l->value[i][k]);
            if (!seen && nv[k] < TUNE_MAX_LEVELS) snprintf(vals[k][nv[k]++], 24, "%s", l->value[i][k]);
            char *end;
            strtod(l->value[i][k], &end);
            numeric &= *l->value[i][k] && !*end;
        }
        qsort(vals[k], (size_t)nv[k], sizeof vals[k][0], cmp_value);
        snprintf(sp->params[k].name, sizeof sp->params[k].name, "%s", l->param[k]);
        sp->params[k].levels = nv[k];
        sp->params[k].ordinal = numeric;
    }
    for (int i = 0; i < l->n; i++) {
        int c[TUNE_MAX_PARAMS];
        for (int k = 0; k < l->nparams; k++)
            for (c[k] = 0; c[k] < nv[k] && strcmp(vals[k][c[k]], l->value[i][k]); c[k]++) {
            }
        tune_space_add(sp, c);
    }
}

static double eval(void *ctx, int point, double *noise) {
    const struct landscape *l = ctx;
    *noise = l->noise[point];
    return l->median[point];
}

/* The first `budget` points of the file, as a search that does not search. */
static double eval_head(void *ctx, int point, double *noise) { return eval(ctx, point, noise); }

/* How many of 20 seeds reach within 2 % of the best with the budget; the
 * control ("no search") evaluates the first `budget` points. */
static int seeds_reaching(struct landscape *l, double best_s, const char *strategy, int budget, int *in_budget,
                          double *median_gap) {
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
    return reached;
}

int main(void) {
    static struct landscape ls[MAX_LANDSCAPES]; /* value pointers start NULL: freed whether loaded or not */
    int n = 0;
    load_shapes("tests/data/wg-h100-final.csv", ls, &n);
    CHECK(n == 4, "the H100 sweep data has 4 landscapes (2 backends x 2 inputs): %d", n);
    const int shape_only = n;
    load_knobs("tests/data/landscape-h200-cuda.csv", "H200 cuda", ls, &n);
    load_knobs("tests/data/landscape-h200-cuda-wide.csv", "H200 cuda (wide)", ls, &n);
    CHECK(n >= shape_only + 4, "the knobs x shapes data has at least 4 landscapes: %d", n - shape_only);
    const struct {
        const char *strategy;
        double share;
    } goals[] = {{"random", 0.25}, {"anneal", 0.25}, {"forest", 0.10}};
    int informative[3] = {0};
#ifdef REPLAY_ISSUE18
    const int ngoals = 3;
#else
    /* make test: issue 4's criterion on the H100's shape landscapes (random
     * and anneal at 25 %); issue 18's (the knobs x shapes landscapes, forest
     * at 10 %) is tests/pending/tune_replay.sh until it is met. */
    const int ngoals = 2;
    n = shape_only;
#endif
    for (int k = 0; k < n; k++) {
        struct landscape *l = &ls[k];
        build_space(l);
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
            const int control = seeds_reaching(l, ex.best_s, "no search", budget, &in_budget, &gap);
            if (ex.tie || control >= 10 || budget < 1) {
                printf("ok - %s: %s with %d evaluations: not informative (%s) # skip\n", l->name, goals[g].strategy,
                       budget,
                       ex.tie       ? "the best is tied with the runner-up"
                       : budget < 1 ? "too few points"
                                    : "not searching reaches the best");
                continue;
            }
            informative[g]++;
            const int reached = seeds_reaching(l, ex.best_s, goals[g].strategy, budget, &in_budget, &gap);
            printf("# %s: %s reaches within 2 %% of the best in %d of 20 seeds with %d of %d evaluations (median gap "
                   "%.2f %%)\n",
                   l->name, goals[g].strategy, reached, budget, l->n, 100 * gap);
            CHECK(in_budget, "%s: %s never evaluates more than %d of %d points", l->name, goals[g].strategy, budget,
                  l->n);
            CHECK(reached >= 10,
                  "%s: %s reaches within 2 %% of the best in the median of 20 seeds with %.0f %% of the evaluations "
                  "(%d of 20)",
                  l->name, goals[g].strategy, 100 * goals[g].share, reached);
        }
    }
    for (int g = 0; g < ngoals; g++)
        CHECK(informative[g] >= 1, "%s: at least one landscape is informative at %.0f %% of the evaluations: %d",
              goals[g].strategy, 100 * goals[g].share, informative[g]);
    for (int k = 0; k < n; k++) tune_space_free(&ls[k].space);
    for (int k = 0; k < MAX_LANDSCAPES; k++) free(ls[k].value);
    CHECK_DONE();
}
