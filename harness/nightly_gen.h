/* A deterministic generator of nightly histories, for testing change-point
 * detection against known truth: a seed gives the same history on every
 * machine (xoshiro256** and Box-Muller, no libc rand). */
#ifndef HARNESS_NIGHTLY_GEN_H
#define HARNESS_NIGHTLY_GEN_H
#include <stdint.h>

struct gen_params {
    int nights;        /* 30 */
    double base;       /* the level before any step (seconds) */
    double sigma;      /* log-normal noise: log(sample) ~ N(log(level), sigma) */
    int reps;          /* samples per night whose median is the night's value;
                        * 0: the noise is drawn on the night's value itself */
    int step_night;    /* first night of the new level; -1: none */
    double step;       /* relative: 0.05 = 5 % slower from step_night on */
    int spike_night;   /* one night whose level is off; -1: none */
    double spike;      /* relative: 0.20 = 20 % slower on that night only */
};

/* Fills median[nights] (and iqr_rel[nights], the relative IQR of each
 * night's samples, when non-NULL; 0 when reps is 0). */
void gen_history(uint64_t seed, const struct gen_params *p, double *median, double *iqr_rel);
#endif
