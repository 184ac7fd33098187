/* The gate between two builds (`harness compare`): per series, a two-sided
 * Mann-Whitney U test and a minimum effect, so that only a change that is
 * both unlikely under noise and large enough to matter is a regression.
 *
 * The unit of replication: repetitions within one run share that run's
 * machine state (clock, load, placement), and on a busy machine runs of one
 * build differ by more than repetitions within a run do. Testing 3 runs of 3
 * repetitions as 9 independent samples is pseudo-replication: measured here,
 * two builds that are the same were "separated" at p = 4e-5. So when either
 * side holds several runs of a series, the test is on the run medians (one
 * value per run); with one run a side, on the repetitions. A B A B
 * interleaving with one repetition per run (compare --rerun) gives both. */
#ifndef HARNESS_COMPARE_H
#define HARNESS_COMPARE_H
#include <stdio.h>

#include "series.h"

enum verdict { V_SAME, V_REGRESSION, V_IMPROVEMENT, V_FEW };

struct compare_params {
    double alpha;      /* default 0.002 */
    double min_effect; /* default 0.03; the series' noise when larger */
};
#define COMPARE_DEFAULTS ((struct compare_params){.alpha = 0.002, .min_effect = 0.03})

struct compare_row {
    const struct series_samples *a, *b;
    int by_run;       /* 1: tested on run medians (a side had several runs) */
    int na, nb;       /* the values tested: samples, or runs when by_run */
    double med_a, med_b, ratio; /* ratio = med_b / med_a: > 1 is slower */
    double p, p_min;
    double noise;     /* the larger relative IQR of the two sides' values */
    double threshold; /* max(min_effect, noise) */
    enum verdict v;
};

/* Judges one series present in both. */
void compare_series(const struct series_samples *a, const struct series_samples *b, const struct compare_params *p,
                    struct compare_row *out);
const char *verdict_name(enum verdict v);

/* Pairs the series of two lists by key (both sorted). Returns the number of
 * rows (malloc'd in *rows); *only_a / *only_b count the unpaired. */
int compare_lists(const struct series_list *a, const struct series_list *b, const struct compare_params *p,
                  struct compare_row **rows, int *only_a, int *only_b);
/* The table, or CSV with a header. */
void compare_print(FILE *out, const struct compare_row *rows, int n, int csv);
#endif
