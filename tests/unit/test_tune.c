/* The search strategies on synthetic landscapes over the 121 power-of-two
 * shapes 1..1024 x 1..1024: exhaustive finds the optimum, every strategy
 * keeps its budget, repeats itself for a seed and never pays twice for a
 * shape, the first draws cover each side's levels, and ties are called
 * ties. forest (the model-based strategy) is held to the same rules. How
 * close they get over many seeds is test_tune_quality.c's. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tune_fixtures.h"

/* Two fixed shapes at given times, every other shape much slower. */
struct pair {
    double a, b, noise;
};
static double two_shapes(void *ctx, const unsigned wg[2], double *noise) {
    const struct pair *p = ctx;
    *noise = p->noise;
    if (wg[0] == 32 && wg[1] == 1) return p->a;
    if (wg[0] == 64 && wg[1] == 1) return p->b;
    return 2.0;
}

static double all_fail(void *ctx, const unsigned wg[2], double *noise) {
    (void)ctx, (void)wg, (void)noise;
    return -1;
}


/* The wide space (tune_fixtures.h): its shape is set (and refused when it is
 * not one), and every strategy spends exactly its budget on distinct points.
 * Whether they find its fast level is test_tune_quality's. */
static void wide_spaces(void) {
    struct tune_space sp;
    wide_space_build(&sp);
    const int param[3] = {0, 1, 2}, bad[3] = {0, 0, 2};
    const unsigned *const len[3] = {side_x, side_y, side_z};
    CHECK(tune_space_set_shape(&sp, 3, bad, len) == -1 && sp.sides == 0,
          "one parameter cannot be two sides of the shape");
    CHECK(tune_space_set_shape(&sp, 4, param, len) == -1, "a shape has at most 3 sides");
    CHECK(tune_space_set_shape(&sp, 3, param, len) == 0 && sp.sides == 3 && sp.side_len[2][2] == 4,
          "three parameters map to x, y and z");
    for (size_t s = 1; s < NSTRAT; s++) {
        struct tune_result r;
        wide_calls = 0;
        tune_search(strategies[s], &sp, sp.n / 20, 1, wide_eval, &sp, &r);
        CHECK(wide_calls == sp.n / 20 && r.evaluations == sp.n / 20 && r.best >= 0,
              "%s spends exactly its budget on a 3-D shape x 200-level space of %d points", strategies[s], sp.n);
    }
    tune_space_free(&sp);
}

int main(void) {
    shapes_init();

    /* Exhaustive: every shape once, the optimum found. */
    struct landscape l = {0};
    struct shape_result r;
    int rc = shape_search("exhaustive", &space, 5, 1, smooth, &l, &r);
    CHECK(rc == 0 && r.best[0] == 64 && r.best[1] == 4 && fabs(r.best_s - 1.0) < 1e-12,
          "exhaustive finds the optimum 64x4 (got %ux%u)", r.best[0], r.best[1]);
    CHECK(r.evaluations == N && l.ncalls == N, "exhaustive evaluates all %d shapes, ignoring the budget (%d, %d calls)",
          N, r.evaluations, l.ncalls);
    CHECK(!(r.runner_up[0] == 64 && r.runner_up[1] == 4) && r.runner_up_s > r.best_s,
          "the runner-up is a different, slower shape (%ux%u)", r.runner_up[0], r.runner_up[1]);

    /* Budgets, determinism and memoisation, for every strategy and a few seeds. */
    for (size_t s = 1; s < NSTRAT; s++)
        for (int budget = 1; budget <= 100; budget = budget * 3 + 1) {
            int over = 0, repeats = 0, differs = 0, mismatch = 0;
            for (unsigned seed = 0; seed < 10; seed++) {
                struct landscape a = {0}, b = {0};
                struct shape_result ra, rb;
                shape_search(strategies[s], &space, budget, seed, smooth, &a, &ra);
                shape_search(strategies[s], &space, budget, seed, smooth, &b, &rb);
                over |= ra.evaluations > budget || a.ncalls > budget;
                mismatch |= ra.evaluations != a.ncalls;
                for (int i = 0; i < N; i++) repeats |= a.calls[i] > 1;
                differs |= a.trace != b.trace || memcmp(&ra, &rb, sizeof ra) != 0;
            }
            CHECK(!over, "%s keeps a budget of %d", strategies[s], budget);
            CHECK(!repeats && !mismatch, "%s with budget %d evaluates each shape at most once and counts every call",
                  strategies[s], budget);
            CHECK(!differs, "%s with budget %d repeats itself for a seed", strategies[s], budget);
        }
    {
        struct landscape a = {0}, b = {0};
        struct shape_result ra, rb;
        shape_search("random", &space, 20, 1, smooth, &a, &ra);
        shape_search("random", &space, 20, 2, smooth, &b, &rb);
        CHECK(a.trace != b.trace, "random: another seed visits other shapes");
    }

    /* Random and anneal begin with a design (40 % of the budget each):
     * each side's 11 levels (1..1024) cut into as many runs of equal length
     * as draws, one draw in each run, so the first draws cover the narrow,
     * middle and wide sides alike rather than clustering. */
    for (size_t s = 1; s < 3; s++)
        for (int budget = 6; budget <= 18; budget += 12) { /* at most 11 draws: one per level */
            const int m = (int)ceil(0.4 * budget);
            int uneven = 0;
            for (unsigned seed = 0; seed < 10; seed++) {
                struct landscape a = {0};
                shape_search(strategies[s], &space, budget, seed, smooth, &a, &r);
                for (int side = 0; side < 2; side++) {
                    int per_run[N] = {0};
                    for (int k = 0; k < m; k++) {
                        const int level = side ? a.order[k] % 11 : a.order[k] / 11;
                        for (int j = 0; j < m; j++) per_run[j] += j * 11 / m <= level && level < (j + 1) * 11 / m;
                    }
                    for (int j = 0; j < m; j++) uneven |= per_run[j] != 1;
                }
            }
            CHECK(!uneven, "%s with budget %d: the first %d draws are one from each of %d runs of either side's levels",
                  strategies[s], budget, m, m);
        }

    /* A sparse space (as a replay of a few measured shapes is): most shapes
     * have no neighbour and most crosses are absent, yet every strategy
     * still spends its budget on distinct shapes. */
    {
        const unsigned few[6][2] = {{2, 2}, {4, 1}, {4, 64}, {16, 4}, {16, 32}, {64, 1}};
        const struct shape_list sparse = {6, few};
        for (size_t s = 1; s < NSTRAT; s++) {
            int short_of = 0;
            for (unsigned seed = 0; seed < 10; seed++)
                for (int budget = 1; budget <= 8; budget++) {
                    struct landscape a = {0};
                    shape_search(strategies[s], &sparse, budget, seed, smooth, &a, &r);
                    short_of |= r.evaluations != (budget < 6 ? budget : 6);
                }
            CHECK(!short_of, "%s spends its whole budget on a sparse space of 6 shapes", strategies[s]);
        }
    }

    /* Ties. */
    struct pair p = {1.000, 1.003, 0.01};
    shape_search("exhaustive", &space, 0, 1, two_shapes, &p, &r);
    CHECK(r.tie == 1 && r.best[0] == 32 && r.runner_up[0] == 64,
          "0.3%% apart with 1%% noise is a tie (tie %d, margin %.4f, noise %.4f)", r.tie, r.margin, r.noise);
    p = (struct pair){1.0, 1.2, 0.01};
    shape_search("exhaustive", &space, 0, 1, two_shapes, &p, &r);
    CHECK(r.tie == 0 && fabs(r.margin - 0.2) < 1e-9 && fabs(r.noise - 0.01) < 1e-12,
          "20%% apart with 1%% noise is a winner (tie %d, margin %.4f)", r.tie, r.margin);
    p = (struct pair){1.0, 1.003, 0};
    shape_search("exhaustive", &space, 0, 1, two_shapes, &p, &r);
    CHECK(r.tie == 1 && r.noise >= 0.005, "no measured noise: the 0.5%% floor still calls 0.3%% a tie (noise %.4f)",
          r.noise);
    p = (struct pair){1.003, 1.0, NAN};
    shape_search("exhaustive", &space, 0, 1, two_shapes, &p, &r);
    CHECK(r.tie == 1 && r.best[0] == 64, "unknown (NaN) noise is floored too, and the faster shape is best");

    /* Failures and bad arguments. */
    shape_search("exhaustive", &space, 0, 1, smooth, &l, &r);
    int failed_best = r.best[0] * r.best[1] > (1u << 14) || r.runner_up[0] * r.runner_up[1] > (1u << 14);
    CHECK(!failed_best, "failing shapes are never best or runner-up");
    CHECK(shape_search("random", &space, 10, 1, all_fail, NULL, &r) == -1 && r.evaluations == 10,
          "nothing succeeding returns -1 (after %d evaluations)", r.evaluations);
    struct landscape u = {0};
    CHECK(shape_search("bayesian", &space, 10, 1, smooth, &u, &r) == -1 && u.ncalls == 0,
          "an unknown strategy returns -1 and evaluates nothing");
    const unsigned one[1][2] = {{8, 8}};
    const struct shape_list single = {1, one};
    struct landscape sl = {0};
    CHECK(shape_search("genetic", &single, 10, 1, smooth, &sl, &r) == 0 && r.evaluations == 1 && !r.tie &&
              isnan(r.margin),
          "a space of one shape: one evaluation, no runner-up, no tie");
    wide_spaces();
    CHECK_DONE();
}
