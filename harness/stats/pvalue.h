/* Tail probabilities for the tests the tracking commands run (Student's t,
 * the standard normal) and the pooled two-sample t-test. Written out here
 * rather than linked from a maths library so the harness needs nothing
 * beyond libm. */
#ifndef HARNESS_PVALUE_H
#define HARNESS_PVALUE_H
#include <stddef.h>

/* P(Z > z) for a standard normal Z. */
double normal_sf(double z);
/* P(|T| >= |t|) for Student's t with df degrees of freedom (df > 0, may be
 * fractional, as Welch's test gives). */
double student_t_two_sided(double t, double df);
/* The t >= 0 with P(|T| >= t) = p for Student's t with df degrees of
 * freedom (0 < p <= 1): the two-sided critical value. NAN on bad input. */
double student_t_critical(double p, double df);

struct t_test {
    double mean_a, mean_b;
    double t, df;
    double p; /* two-sided */
};
/* Student's two-sample t-test with the pooled variance (the step model of
 * change-point detection: the level moves, the noise does not), df = na+nb-2.
 * Both samples constant: p is 0 when the means differ and 1 when not.
 * Returns -1 when na + nb < 3 or a sample is empty. */
int t_test_pooled(const double *a, size_t na, const double *b, size_t nb, struct t_test *out);
#endif
