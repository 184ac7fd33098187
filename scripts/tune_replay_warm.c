/* The warm-start figures of results/published/nvidia-h200/tuning.md ("Warm starts"): the forest with 10 % of the
 * evaluations on every informative knobs x shapes landscape of tests/data, cold and warm-started from each other
 * landscape of the same parameters (any input, either file), over seeds 1 to 20 (the test's) and 1 to 100. The test
 * (tests/unit/test_tune_replay.c) prints only the same-file pairs; this shows how the source's distance matters.
 *   make build/tools/tune_replay_warm && build/tools/tune_replay_warm */
#include "../tests/unit/replay_landscapes.h"

/* Seeds reaching within 2 % of best_s: of 1..20 into *r20, of 1..100 returned. */
static int reaching(struct landscape *l, double best_s, int budget, int *r20) {
    int r100 = 0;
    *r20 = 0;
    for (unsigned seed = 1; seed <= 100; seed++) {
        struct tune_result r;
        tune_search("forest", &l->space, budget, seed, eval, l, &r);
        const int ok = r.best_s <= best_s * 1.02;
        r100 += ok, *r20 += ok && seed <= 20;
    }
    return r100;
}

int main(void) {
    static struct landscape ls[MAX_LANDSCAPES];
    int shape_only;
    const int n = load_landscapes(ls, &shape_only);
    printf("| target | prior | seeds of 1..20 | of 1..100 |\n|---|---|---|---|\n");
    for (int k = shape_only; k < n; k++) {
        struct landscape *l = &ls[k];
        struct tune_result ex;
        tune_search("exhaustive", &l->space, 0, 1, eval, l, &ex);
        const int budget = (int)(0.10 * l->n);
        int control = 0; /* the test's rule: a tie, or the first points reach it, is not informative */
        for (int i = 0; i < budget; i++) control |= l->median[i] <= ex.best_s * 1.02;
        if (ex.tie || control || budget < 1) continue;
        int r20;
        int r100 = reaching(l, ex.best_s, budget, &r20);
        printf("| %s | none (cold) | %d | %d %% |\n", l->name, r20, r100);
        for (int j = shape_only; j < n; j++) {
            if (j == k || ls[j].nparams != l->nparams) continue;
            int *point = xcalloc((size_t)ls[j].n + 1, sizeof *point);
            double *s = xcalloc((size_t)ls[j].n + 1, sizeof *s);
            const int m = prior_points(l, &ls[j], point, s);
            if (m >= l->n / 2) { /* else another space */
                const struct tune_prior prior = {m, point, s};
                l->space.prior = &prior;
                r100 = reaching(l, ex.best_s, budget, &r20);
                l->space.prior = NULL;
                printf("| %s | %s | %d | %d %% |\n", l->name, ls[j].name, r20, r100);
            }
            free(point), free(s);
        }
    }
    free_landscapes(ls, n);
    return 0;
}
