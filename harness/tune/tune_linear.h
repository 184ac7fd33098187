/* An additive Bayesian model of log-time over a tune space (tune_linear.c):
 * the base of the forest strategy's surrogate. Private to the tuner. */
#ifndef HARNESS_TUNE_LINEAR_H
#define HARNESS_TUNE_LINEAR_H
#include "tune/tune.h"

struct linear_model {
    const struct tune_space *sp;
    int p;                           /* features (0: no model) */
    int ind[TUNE_MAX_PARAMS];        /* the first of parameter k's level indicators (levels 1..L-1); -1: none */
    int trend[TUNE_MAX_PARAMS];      /* an ordinal parameter's position and its square; -1: none */
    int inter;                       /* the first indicator x size column (-1: none); nind of them */
    int nind;                        /* indicator columns of the knobs (the parameters that are not sides) */
    int shape;                       /* the first shape column (-1: none): size, size^2, then per aspect a, a^2 */
    int naspect;                     /* aspects: one per pair of consecutive sides */
    double lo[TUNE_MAX_SIDES], hi[TUNE_MAX_SIDES]; /* log2 size, then each aspect: the range over the levels */
    double *w;                       /* the posterior mean of the weights */
    double *ainv;                    /* p * p: (Phi^T Phi + ridge I)^-1 */
    double s2;                       /* the residual variance */
    /* p: the weights' prior mean that the shape belief proposes (tune_linear.c
     * says why and how the data switch it off); NULL without a shape. */
    double *belief;
    int belief_used; /* the last linear_fit_cold kept the belief: the data did not contradict it */
};

/* The model's columns over sp (nothing per point: features are computed on
 * demand, so a space of a million points costs nothing here). */
void linear_init(struct linear_model *lm, const struct tune_space *sp);
void linear_free(struct linear_model *lm);
/* The features of a point into f (p of them). */
void linear_features(const struct linear_model *lm, int point, double *f);
/* Fits y[r] (log-times, centred by the caller) of points point[0..m), the
 * weights' prior mean w0 (p of them; NULL: zero); 0 when there is no model. */
int linear_fit(struct linear_model *lm, const int *point, const double *y, int m, const double *w0);
/* A search that starts cold: fits with the shape belief as the prior mean
 * and with a zero one, and keeps the one the evaluations favour (the larger
 * marginal likelihood); 0 when there is no model. */
int linear_fit_cold(struct linear_model *lm, const int *point, const double *y, int m);
/* The posterior mean and the variance of the mean (not of a new
 * measurement) at a point, from its features f (linear_features). */
double linear_mean_f(const struct linear_model *lm, const double *f);
double linear_var_f(const struct linear_model *lm, const double *f);
#endif
