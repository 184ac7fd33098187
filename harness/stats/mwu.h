/* The two-sided Mann-Whitney U test (Wilcoxon rank-sum), the gate of
 * `harness compare`: it asks whether one sample of timings tends to be
 * larger than the other without assuming a distribution, which timings
 * (skewed, with outliers) do not have. */
#ifndef HARNESS_MWU_H
#define HARNESS_MWU_H
#include <stddef.h>

struct mwu {
    double u_a;   /* U of the first sample: pairs (a_i, b_j) with a_i > b_j, ties counted 1/2 */
    double p;     /* two-sided */
    int exact;    /* 1: exact null distribution (no ties); 0: normal approximation
                   * with tie and continuity corrections (what scipy calls asymptotic) */
    double p_min; /* the smallest p these sample sizes can give at all */
};

/* Exact when there are no ties and na*nb <= MWU_EXACT_MAX, otherwise the
 * normal approximation. Both sizes >= 1; returns -1 otherwise. */
#define MWU_EXACT_MAX 10000
int mwu_test(const double *a, size_t na, const double *b, size_t nb, struct mwu *out);
/* Same, choosing the method: exact = 1 forces the exact distribution (ties
 * are then treated as if broken at random: only for tests), 0 forces the
 * approximation. */
int mwu_test_method(const double *a, size_t na, const double *b, size_t nb, int exact, struct mwu *out);

/* 2 / C(na+nb, na): the two-sided p of complete separation, the smallest
 * any pair of samples of these sizes can reach. With 3 and 3 it is 0.1, so
 * three repetitions can never show a regression at p <= 0.002; 9 and 9 give
 * 4.1e-5. */
double mwu_min_p(size_t na, size_t nb);
#endif
