#include "stats/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double stats_quantile(const double *x, size_t n, double q) {
    if (n == 0) return NAN;
    double *s = malloc(n * sizeof *s);
    if (!s) abort();
    memcpy(s, x, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_double);
    double pos = q * (double)(n - 1);
    size_t lo = (size_t)floor(pos);
    size_t hi = lo + 1 < n ? lo + 1 : lo;
    double v = s[lo] + (pos - (double)lo) * (s[hi] - s[lo]);
    free(s);
    return v;
}

double stats_median(const double *x, size_t n) { return stats_quantile(x, n, 0.5); }

double stats_cv(const double *x, size_t n) {
    if (n < 2) return NAN;
    double mean = 0, ss = 0;
    for (size_t i = 0; i < n; i++) mean += x[i];
    mean /= (double)n;
    if (!(mean > 0)) return NAN;
    for (size_t i = 0; i < n; i++) ss += (x[i] - mean) * (x[i] - mean);
    return sqrt(ss / (double)(n - 1)) / mean;
}
