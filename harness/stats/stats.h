/* Order statistics used everywhere a timing is summarised. */
#ifndef HARNESS_STATS_H
#define HARNESS_STATS_H
#include <stddef.h>
/* Quantile q in [0,1] by linear interpolation between order statistics
 * (the common "type 7" definition); x is not modified. */
double stats_quantile(const double *x, size_t n, double q);
double stats_median(const double *x, size_t n);
/* The coefficient of variation: the sample standard deviation (n - 1)
 * over the mean; NAN under two values or a mean that is not positive (a
 * spread of one repetition is unknown, not zero). */
double stats_cv(const double *x, size_t n);
#endif
