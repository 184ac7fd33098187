/* A development figure for the model-based search on generated landscapes
 * (tune_synth.c): over seeds FIRST..LAST at a size target of POINTS, the
 * informative landscapes only (judged as tests/unit/test_tune_replay.c's
 * judge() does: the best a distinct winner, and at each budget the file's
 * first points miss it), how many seed-runs (search seeds 1 to 20) reach
 * within 2 % of the best with 5, 10 and 25 % of the evaluations, per
 * strategy. Design on development seeds only (301 to 700); the held-out
 * seeds (101 to 300) are for judging once.
 *   make build/tools/dev_small_budget && build/tools/dev_small_budget 301 500 80 [-v] [strategy...] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tune/tune_synth.h"

static unsigned SEEDS = 20; /* DEV_SEEDS in the environment: more search seeds, less noise (sums scaled to 20) */
#define MAX_STRATEGIES 8

static int reach(const struct tune_synth *g, const char *strategy, int budget, double best_s) {
    int hit = 0;
    for (unsigned seed = 1; seed <= SEEDS; seed++) {
        struct tune_result r;
        tune_search(strategy, &g->space, budget, seed, tune_synth_eval, (void *)g, &r);
        hit += r.best >= 0 && r.best_s <= best_s * 1.02 && r.evaluations <= budget;
    }
    return hit;
}

static long scaled(long v) { return (v * 20 + SEEDS / 2) / SEEDS; }

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: %s FIRST LAST POINTS [-v] [strategy...]\n", argv[0]);
        return 2;
    }
    const unsigned first = (unsigned)atoi(argv[1]), last = (unsigned)atoi(argv[2]);
    const long points = atol(argv[3]);
    if (getenv("DEV_SEEDS")) SEEDS = (unsigned)atoi(getenv("DEV_SEEDS"));
    int verbose = 0, ns = 0;
    const char *strategy[MAX_STRATEGIES];
    for (int a = 4; a < argc; a++) {
        if (!strcmp(argv[a], "-v")) verbose = 1;
        else if (ns < MAX_STRATEGIES) strategy[ns++] = argv[a];
    }
    if (!ns) strategy[ns++] = "forest", strategy[ns++] = "random";
    const double shares[3] = {0.05, 0.10, 0.25};
    long sum[MAX_STRATEGIES][3] = {{0}}, cells[3] = {0};
    int landscapes = 0;
    for (unsigned seed = first; seed <= last; seed++) {
        struct tune_synth g;
        if (tune_synth_make(&g, seed, points)) continue;
        struct tune_result ex;
        tune_search("exhaustive", &g.space, 0, 1, tune_synth_eval, &g, &ex);
        const int n = g.space.n;
        int any = 0;
        for (int b = 0; b < 3 && !ex.tie; b++) {
            const int budget = (int)(shares[b] * n);
            int control = 0;
            for (int i = 0; i < budget; i++) control |= g.seconds[i] > 0 && g.seconds[i] <= ex.best_s * 1.02;
            if (budget < 1 || control) continue;
            any = 1, cells[b]++;
            if (verbose) printf("%-48s n %4d b %3d:", g.name, n, budget);
            for (int s = 0; s < ns; s++) {
                const int h = reach(&g, strategy[s], budget, ex.best_s);
                sum[s][b] += h;
                if (verbose) printf(" %s %2d", strategy[s], h);
            }
            if (verbose) printf("\n");
        }
        landscapes += any;
        tune_synth_free(&g);
    }
    printf("seeds %u-%u, points %ld: %d informative landscapes (cells %ld, %ld, %ld)\n", first, last, points,
           landscapes, cells[0], cells[1], cells[2]);
    for (int s = 0; s < ns; s++)
        printf("  %-8s 5 %%: %4ld  10 %%: %4ld  25 %%: %4ld\n", strategy[s], scaled(sum[s][0]), scaled(sum[s][1]),
               scaled(sum[s][2]));
    return 0;
}
