/* The confirmation tables (store_nightly.c creates them): each verdict of a
 * flagged change measured again (track/confirm.h), with its rounds' samples. */
#ifndef HARNESS_STORE_CONFIRM_H
#define HARNESS_STORE_CONFIRM_H
#include <stdint.h>

#include "core/measurement.h"
#include "store/store.h"

struct store_confirmation {
    const char *series;
    int64_t nightly_id, change_point_id; /* what it judged; 0 stores NULL */
    const char *source, *build_a, *build_b;
    double flagged_ratio;
    int rounds; /* pairs of rounds; with 0, ratio, p and sd are stored NULL */
    double ratio, p, sd;
    const char *verdict, *reason;
    const char *measure; /* what the rounds were compared on (NULL: wall) */
    double detectable;   /* the smallest change the rerun saw (NAN: unknown) */
};

/* Stores a verdict and every sample of both sides (a: build A, b: build B)
 * with its round. The new row's id, or -1 (store_errmsg says why). */
int64_t store_confirmation_put(struct store *s, const struct store_confirmation *c, const struct measurement *a,
                               const struct measurement *b);
#endif
