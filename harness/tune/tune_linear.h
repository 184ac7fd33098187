/* An additive Bayesian model of log-time over a tune space (tune_linear.c):
 * the base of the forest strategy's surrogate. Private to the tuner. */
#ifndef HARNESS_TUNE_LINEAR_H
#define HARNESS_TUNE_LINEAR_H
#include "tune.h"

struct linear_model {
    int p, n;     /* features (0: no model, the space has too many levels), points */
    double *phi;  /* n * p: each point's features */
    double *w;    /* the posterior mean of the weights */
    double *ainv; /* p * p: (Phi^T Phi + ridge I)^-1 */
    double s2;    /* the residual variance */
    /* p: the weights' prior mean for a search that starts cold, a belief
     * about the work-group's shape (tune_linear.c); NULL without sides. */
    double *belief;
};

/* The features of every point of sp. */
void linear_init(struct linear_model *lm, const struct tune_space *sp);
void linear_free(struct linear_model *lm);
/* Fits y[r] (log-times, centred by the caller) of points point[0..m), the
 * weights' prior mean w0 (p of them; NULL: zero); 0 when there is no model. */
int linear_fit(struct linear_model *lm, const int *point, const double *y, int m, const double *w0);
/* The posterior mean and the variance of the mean (not of a new
 * measurement) at a point. */
double linear_mean(const struct linear_model *lm, int point);
double linear_var(const struct linear_model *lm, int point);
#endif
