/* Change-point detection (harness/stats/changepoint.c) on generated nightly
 * histories (tests/unit/nightly_gen.c), the acceptance numbers of the nightly
 * issue:
 *   - a 5 % step at night 20 of 30 is found at night 20 +- 1 in >= 95 of 100 seeds;
 *   - clean histories raise a false alarm in <= 1 % of series (1000 checked);
 *   - a single-night 20 % spike is never reported.
 * "3 % log-normal noise" is taken as the noise of one repetition: each night
 * is the median of 9 repetitions (the nightly suite's reps), each
 * exp(N(0, 0.03)) times the level, as `harness regressions` sees a series.
 * The stricter reading, 3 % noise on the nightly median itself, is measured
 * too and printed: no test at p <= 0.001 can find that step 95 times in 100
 * (an oracle z-test knowing the night and the noise finds it about 82 times),
 * so it is reported, not asserted, except that its false alarms must also
 * stay under 1 %. Parameters are `harness regressions`' defaults: alpha
 * 0.001, minimum step max(3 %, the series' noise), segments >= 3 nights. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "nightly_gen.h"
#include "stats/changepoint.h"
#include "stats/round_stats.h"

#define NIGHTS 30

/* What `harness regressions` does with one series. */
static int detect(const double *x, int n, struct change_point *out, int max) {
    struct cp_params p = CP_DEFAULTS;
    p.min_effect = fmax(p.min_effect, cp_noise(x, n));
    return cp_detect(x, n, &p, out, max);
}

struct rates {
    int found, false_alarm, spike;
};

/* Runs the three acceptance experiments for one noise model. */
static struct rates experiments(int reps, int seeds_step, int seeds_clean, int seeds_spike) {
    struct rates r = {0, 0, 0};
    double x[NIGHTS];
    struct change_point cp[8];
    for (int s = 0; s < seeds_step; s++) {
        struct gen_params g = {NIGHTS, 0.1, 0.03, reps, 20, 0.05, -1, 0};
        gen_history(1000 + (uint64_t)s, &g, x, NULL);
        int k = detect(x, NIGHTS, cp, 8), hit = 0;
        for (int i = 0; i < k; i++) hit |= abs(cp[i].index - 20) <= 1 && cp[i].ratio > 1;
        r.found += hit;
    }
    for (int s = 0; s < seeds_clean; s++) {
        struct gen_params g = {NIGHTS, 0.1, 0.03, reps, -1, 0, -1, 0};
        gen_history(50000 + (uint64_t)s, &g, x, NULL);
        r.false_alarm += detect(x, NIGHTS, cp, 8) > 0;
    }
    for (int s = 0; s < seeds_spike; s++) { /* the spike visits every night in turn */
        struct gen_params g = {NIGHTS, 0.1, 0.03, reps, -1, 0, s % NIGHTS, 0.20};
        gen_history(90000 + (uint64_t)s, &g, x, NULL);
        r.spike += detect(x, NIGHTS, cp, 8) > 0;
    }
    return r;
}

/* Nights as they are measured now (rounds.h): a night effect shared by the
 * night's rounds, a round effect shared by a worker's repetitions, and
 * repetition noise; a night's value is the mean of its rounds' log medians,
 * and the series' noise model is learned from its own nights of each build
 * (the step is a new build), as `harness regressions` does it. */
#define R_ROUNDS 6
#define R_REPS 2
static struct rates round_experiments(double sigma_night, int seeds_step, int seeds_clean, int seeds_spike) {
    struct rates r = {0, 0, 0};
    struct gen_noise g = {sigma_night, 0.01, 0.01, R_ROUNDS, R_REPS};
    struct gen_rng rng;
    double x[NIGHTS], med[R_ROUNDS], lm[R_ROUNDS];
    struct night_value v[NIGHTS];
    int group[NIGHTS];
    struct change_point cp[8];
    for (int kind = 0; kind < 3; kind++) {
        int seeds = kind == 0 ? seeds_step : kind == 1 ? seeds_clean : seeds_spike;
        for (int s = 0; s < seeds; s++) {
            gen_rng_seed(&rng, (uint64_t)(kind * 1000000 + s + 7));
            for (int i = 0; i < NIGHTS; i++) {
                double level = 0.1 * (kind == 0 && i >= 20 ? 1.05 : 1.0) * (kind == 2 && i == s % NIGHTS ? 1.2 : 1.0);
                gen_night(&rng, level, sigma_night * gen_rng_normal(&rng), &g, med, NULL);
                for (int k = 0; k < R_ROUNDS; k++) lm[k] = log(med[k]);
                night_from_rounds(lm, NULL, R_ROUNDS, &v[i]);
                x[i] = exp(v[i].mean);
                group[i] = kind == 0 && i >= 20;
            }
            struct noise_model own;
            noise_learn(v, group, NIGHTS, &own);
            struct cp_params p = CP_DEFAULTS;
            p.min_effect = cp_min_effect(x, NIGHTS, &own, R_ROUNDS, p.min_effect);
            int k = cp_detect(x, NIGHTS, &p, cp, 8), hit = 0;
            if (kind == 0) {
                for (int i = 0; i < k; i++) hit |= abs(cp[i].index - 20) <= 1 && cp[i].ratio > 1;
                r.found += hit;
            } else if (kind == 1) {
                r.false_alarm += k > 0;
            } else {
                r.spike += k > 0;
            }
        }
    }
    return r;
}

int main(void) {
    /* The generator is deterministic and its noise is what it says. */
    double a[NIGHTS], b[NIGHTS], iqr[NIGHTS];
    struct gen_params g = {NIGHTS, 0.1, 0.03, 9, -1, 0, -1, 0};
    gen_history(7, &g, a, iqr);
    gen_history(7, &g, b, NULL);
    int same = 1;
    for (int i = 0; i < NIGHTS; i++) same &= a[i] == b[i];
    CHECK(same, "generator: the same seed gives the same history");
    g.reps = 0;
    double big[2000];
    g.nights = 2000;
    gen_history(11, &g, big, NULL);
    double m = 0, v = 0;
    for (int i = 0; i < 2000; i++) m += log(big[i] / 0.1) / 2000;
    for (int i = 0; i < 2000; i++) v += (log(big[i] / 0.1) - m) * (log(big[i] / 0.1) - m) / 1999;
    CHECK(fabs(m) < 0.003 && fabs(sqrt(v) - 0.03) < 0.003, "generator: log-normal, mean %.4f, sd %.4f (want 0, 0.03)",
          m, sqrt(v));
    CHECK(fabs(cp_noise(big, 2000) - 0.03) < 0.004, "cp_noise of that series: %.4f (want about 0.03)",
          cp_noise(big, 2000));

    /* Exact cases. */
    double x[NIGHTS];
    struct change_point cp[8];
    for (int i = 0; i < NIGHTS; i++) x[i] = i < 12 ? 1.0 : 1.1;
    int k = cp_detect(x, NIGHTS, NULL, cp, 8);
    CHECK(k == 1 && cp[0].index == 12 && fabs(cp[0].ratio - 1.1) < 1e-9 && cp[0].p == 0,
          "a noiseless 10 %% step at night 12: found at %d, ratio %.3f", k ? cp[0].index : -1, k ? cp[0].ratio : 0);
    for (int i = 0; i < NIGHTS; i++) x[i] = 1.0 + 0.001 * ((i * 7) % 5) + (i == NIGHTS - 1 ? 0.5 : 0);
    k = cp_detect(x, NIGHTS, NULL, cp, 8);
    CHECK(k == 0, "a 50 %% jump on the last night alone is no change yet (segments >= 3, medians): %d found", k);
    for (int i = 0; i < NIGHTS; i++) x[i] = 1.0 + 0.001 * ((i * 7) % 5) + (i == 0 ? 0.5 : 0);
    k = cp_detect(x, NIGHTS, NULL, cp, 8);
    CHECK(k == 0, "nor on the first night alone: %d found", k);
    for (int i = 0; i < NIGHTS; i++) x[i] = 1.0 + 0.001 * ((i * 7) % 5) + (i >= 27 ? 0.5 : 0);
    k = cp_detect(x, NIGHTS, NULL, cp, 8);
    CHECK(k == 1 && cp[0].index == 27, "a step 3 nights before the end is: found at %d", k ? cp[0].index : -1);
    g = (struct gen_params){NIGHTS, 0.1, 0.03, 9, -1, 0, -1, 0};
    gen_history(3, &g, x, NULL);
    for (int i = 10; i < 20; i++) x[i] *= 1.10;
    for (int i = 20; i < NIGHTS; i++) x[i] *= 0.85;
    k = detect(x, NIGHTS, cp, 8);
    CHECK(k == 2 && cp[0].index == 10 && cp[0].ratio > 1 && cp[1].index == 20 &&
                  cp[1].ratio<1, "two steps (+10 %% at 10, -15 %% at 20): %d found, at %d and %d", k, k> 0
              ? cp[0].index
              : -1,
          k > 1 ? cp[1].index : -1);

    /* The acceptance numbers. */
    struct rates r = experiments(9, 100, 1000, 100);
    printf("# 3 %% noise per repetition, nights = median of 9: step found %d/100, false alarms %d/1000, spike reported "
           "%d/100\n",
           r.found, r.false_alarm, r.spike);
    CHECK(r.found >= 95, "5 %% step at night 20 found at 20 +- 1 in %d of 100 seeds (want >= 95)", r.found);
    CHECK(r.false_alarm <= 10, "clean histories: false alarms in %d of 1000 series (want <= 1 %%)", r.false_alarm);
    CHECK(r.spike == 0, "a single-night 20 %% spike (on each night in turn): reported in %d of 100 series (want 0)",
          r.spike);

    struct rates h = experiments(0, 100, 1000, 100);
    printf("# 3 %% noise on the nightly median itself: step found %d/100 (no test at p <= 0.001 can reach 95),"
           " false alarms %d/1000, spike reported %d/100\n",
           h.found, h.false_alarm, h.spike);
    CHECK(h.false_alarm <= 10, "3 %% noise on the medians: false alarms in %d of 1000 series (want <= 1 %%)",
          h.false_alarm);

    /* The measurement issue's numbers, on nights with night and round effects. */
    const double sigmas[3] = {0.005, 0.010, 0.015};
    for (int i = 0; i < 3; i++) {
        struct rates q = round_experiments(sigmas[i], 100, 1000, 100);
        printf("# night effect %.1f %%, rounds of 2 repetitions, 6 a night: step found %d/100, false alarms %d/1000,"
               " spike reported %d/100\n",
               100 * sigmas[i], q.found, q.false_alarm, q.spike);
        CHECK(q.found >= 95, "night effect %.1f %%: a 5 %% step at night 20 found (+- 1) in %d of 100 (want >= 95)",
              100 * sigmas[i], q.found);
        CHECK(q.false_alarm <= 1, "night effect %.1f %%: clean series with a false alarm: %d of 1000 (want <= 1)",
              100 * sigmas[i], q.false_alarm);
        CHECK(q.spike == 0, "night effect %.1f %%: a one-night 20 %% spike reported in %d of 100 (want 0)",
              100 * sigmas[i], q.spike);
    }
    CHECK_DONE();
}
