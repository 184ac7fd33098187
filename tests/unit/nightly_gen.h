/* The tests' own (built into build/tests/libtest.a, never into bin/harness):
 * a deterministic generator of nightly histories, for testing change-point
 * detection against known truth: a seed gives the same history on every
 * machine (xoshiro256** and Box-Muller, no libc rand). */
#ifndef TEST_NIGHTLY_GEN_H
#define TEST_NIGHTLY_GEN_H
#include <stdint.h>

struct gen_params {
    int nights;      /* 30 */
    double base;     /* the level before any step (seconds) */
    double sigma;    /* log-normal noise: log(sample) ~ N(log(level), sigma) */
    int reps;        /* samples per night whose median is the night's value;
                        * 0: the noise is drawn on the night's value itself */
    int step_night;  /* first night of the new level; -1: none */
    double step;     /* relative: 0.05 = 5 % slower from step_night on */
    int spike_night; /* one night whose level is off; -1: none */
    double spike;    /* relative: 0.20 = 20 % slower on that night only */
};

/* Fills median[nights] (and iqr_rel[nights], the relative IQR of each
 * night's samples, when non-NULL; 0 when reps is 0). */
void gen_history(uint64_t seed, const struct gen_params *p, double *median, double *iqr_rel);

/* The noise of rounds (rounds.h) as it is measured, not repetitions alone:
 * log t = log level + night + round + repetition, each normal with its own
 * sd. A night's effect is shared by all its rounds, a round's by all its
 * repetitions; an interleaved A B session shares one night between builds. */
struct gen_noise {
    double night, round, rep; /* sds on the log scale (0.01 is about 1 %) */
    int rounds, reps;         /* per night, per round */
};

struct gen_rng {
    uint64_t s[4];
};
void gen_rng_seed(struct gen_rng *r, uint64_t seed);
double gen_rng_normal(struct gen_rng *r);
/* One night at `level` whose night effect is `night` (log scale; draw it as
 * gen_rng_normal() * g->night, or share one between builds): each round's
 * median of its repetitions into round_med[g->rounds], and every sample into
 * samples[g->rounds * g->reps] when non-NULL. */
void gen_night(struct gen_rng *r, double level, double night, const struct gen_noise *g, double *round_med,
               double *samples);
#endif
