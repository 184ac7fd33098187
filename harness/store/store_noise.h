/* The noise_model table (store_nightly.c creates it): each series' noise model
 * as `harness noise` last learned it (track/noise.h). */
#ifndef HARNESS_STORE_NOISE_H
#define HARNESS_STORE_NOISE_H
#include <stddef.h>

struct store;

/* One series' row: its own estimate and the one used after the priors. */
struct store_noise_row {
    const char *series, *fingerprint, *label;
    int nights, builds;
    double own_sigma_night, own_df_night;
    double sigma_night, df_night, sigma_round, df_round;
};

/* Replaces every row of noise_model with these, in one transaction.
 * 0, or -1 with err (and nothing changed). */
int store_noise_models(struct store *s, const struct store_noise_row *rows, int n, char *err, size_t errn);
#endif
