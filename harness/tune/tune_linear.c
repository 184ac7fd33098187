/* The additive part of the model-based search (tune_linear.h): Bayesian
 * linear regression of the log-time on every parameter alike: each
 * parameter's levels (one indicator per level but the first: no order, so a
 * categorical knob or a boolean switch is a set of alternatives), and for an
 * ordered one also its position and the square of it (so a level never
 * measured is predicted from its neighbours' trend); where the space has a
 * work-group shape, the group's size and aspects (log2, each with its
 * square: time has an optimum in both), and each knob's indicators times the
 * size (a knob's best group size is its own: a temporally blocked kernel
 * wants larger groups than a plain one).
 *
 * Why a linear model first: a search with 8 evaluations of 87 points sees
 * too little for a forest to split on anything, while an additive model
 * learns "temporal=5 is faster, so is pull, so are larger groups" from a
 * handful of points and combines them, the way a person reads a sweep. The
 * replays of tests/data (tests/unit/test_tune_replay.c) measured it: on the
 * H200's 256x256 knobs x shapes landscape the forest alone reached the
 * winner in 3 to 4 of 20 seeds with 10 % of the evaluations; with this
 * model under it, in 15.
 *
 * The prior on the weights is N(w0, s2 / LINEAR_RIDGE), w0 a warm start's
 * fit, or for a search that starts cold either zero or the shape belief
 * below, whichever the evaluations favour (linear_fit_cold): the features
 * are indicators and numbers on [-1, 1], so one scale suits them all.
 *
 * Features are computed per point when asked for, never stored per point:
 * a space of 10^6 points would need gigabytes for them. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tune/tune_linear.h"
#include "base/util.h"

#define LINEAR_RIDGE 0.3
#define LINEAR_NOISE_FLOOR 1e-4 /* the least residual variance believed: 1 % in time */
#define LINEAR_MAX_FEATURES 400 /* above this the size interactions are left out, then the widest indicators */
#define LINEAR_MAX_LEVELS 256 /* a parameter with more levels gets no indicators (the trees still split it) */
/* Where the space has a shape, its sides enter the model through the
 * group's size and aspects only, not each side's levels as well: replayed
 * over tests/data (20 seeds, 10 %), the sides' indicators and trends on top
 * lowered the forest on every informative LBM landscape (13, 12, 17, 13, 14,
 * 13, 13 of 20 seeds without them; 12, 12, 8, 9, 5, 6, 6 with): with a
 * handful of evaluations, a dozen more weights only widen the uncertainty
 * that expected improvement chases. A space without a shape (or with the
 * sides declared as plain knobs) gets them like any parameter. */
#define SIDE_LEVELS 0
#define ORD_TREND 1

/* The shape belief: a proposed prior mean of the size and aspect weights, a
 * bowl in log-time rather than a flat zero. A work-group too small leaves a
 * multiprocessor short of threads (it holds a bounded number of groups) and
 * spends more of its cells on halos; one too large runs out of registers or
 * local memory, or leaves multiprocessors idle on a small grid; a thin one
 * loses coalescing in x or halo cells in y. So the mean puts the optimum at
 * SHAPE_BELIEF_AT of the log-size range (on [-1, 1]: three quarters of the
 * way up) and at the middle of the aspects, rising by SHAPE_BELIEF_RISE in
 * log-time (x1.35) at the range's edges: a mild belief, which a few
 * evaluations override.
 *
 * It is a guess fitted on the LBM (issue 35: on a convolution whose best
 * group is a small 32x4 it misled the search into doing worse than random),
 * so it is not imposed: every fit of a cold search weighs it against a zero
 * prior mean by the evidence of the evaluations so far (the marginal
 * likelihood of the two Bayesian models, which differ only in the prior
 * mean; linear_fit_cold) and keeps the belief only while the data favour
 * it. On the LBM landscapes the data agree and it stays (with a zero mean
 * every shape may be the best, and the model is least certain at the
 * space's corners, so expected improvement spent two or three of 8
 * evaluations there: tuning.md, "Replay", has the figures of the belief);
 * where small or thin groups measure fast, the evidence drops it within the
 * design's evaluations. */
#define SHAPE_BELIEF_RISE 0.3
#define SHAPE_BELIEF_AT 0.5

static int is_side(const struct tune_space *sp, int k) {
    for (int j = 0; j < sp->sides; j++)
        if (sp->side_param[j] == k) return 1;
    return 0;
}

/* The log2 size (v[0]) and aspects (v[1..]) of point i's group, raw. */
static void shape_raw(const struct tune_space *sp, int i, double *v) {
    const int *c = sp->coord + (size_t)i * sp->nparams;
    double len[TUNE_MAX_SIDES];
    for (int k = 0; k < sp->sides; k++) {
        const double x = sp->side_len[k][c[sp->side_param[k]]];
        len[k] = log2(x > 0 ? x : 1);
    }
    v[0] = 0;
    for (int k = 0; k < sp->sides; k++) v[0] += len[k];
    for (int k = 0; k + 1 < sp->sides; k++) v[1 + k] = len[k] - len[k + 1];
}

void linear_init(struct linear_model *lm, const struct tune_space *sp) {
    memset(lm, 0, sizeof *lm);
    lm->sp = sp;
    lm->inter = lm->shape = -1;
    const int d = sp->nparams, shaped = sp->sides >= 1 && sp->n > 0;
    for (int k = 0; k < d; k++) lm->ind[k] = lm->trend[k] = -1;
    /* Widest parameters lose their indicators first when there are too many. */
    int limit = LINEAR_MAX_LEVELS;
    for (;;) {
        int c = 1, nind = 0;
        for (int k = 0; k < d; k++) {
            const int L = sp->params[k].levels;
            if (!SIDE_LEVELS && shaped && is_side(sp, k)) continue;
            if (L >= 2 && L - 1 <= limit) c += L - 1, nind += is_side(sp, k) ? 0 : L - 1;
            if (ORD_TREND && sp->params[k].ordinal && L >= 3) c += 2;
        }
        if (shaped) c += 2 + 2 * (sp->sides - 1);
        if (c <= LINEAR_MAX_FEATURES || limit <= 1) break;
        limit /= 2;
    }
    int c = 1;
    for (int k = 0; k < d; k++) {
        const int L = sp->params[k].levels;
        if (!SIDE_LEVELS && shaped && is_side(sp, k)) continue;
        if (L >= 2 && L - 1 <= limit) {
            lm->ind[k] = c, c += L - 1;
            if (!is_side(sp, k)) lm->nind += L - 1;
        }
        if (ORD_TREND && sp->params[k].ordinal && L >= 3) lm->trend[k] = c, c += 2;
    }
    if (shaped) {
        lm->shape = c, lm->naspect = sp->sides - 1;
        c += 2 + 2 * lm->naspect;
        if (lm->nind && c + lm->nind <= LINEAR_MAX_FEATURES) lm->inter = c, c += lm->nind;
        /* The ranges over the points (once: the constraints decide which
         * sizes occur, e.g. x*y <= 1024), so the belief's optimum sits at the
         * same share of the sizes a search can meet. */
        for (int k = 0; k <= lm->naspect; k++) lm->lo[k] = INFINITY, lm->hi[k] = -INFINITY;
        for (int i = 0; i < sp->n; i++) {
            double v[TUNE_MAX_SIDES];
            shape_raw(sp, i, v);
            for (int k = 0; k <= lm->naspect; k++) lm->lo[k] = fmin(lm->lo[k], v[k]), lm->hi[k] = fmax(lm->hi[k], v[k]);
        }
    }
    if (c > LINEAR_MAX_FEATURES || !sp->n) {
        lm->p = 0; /* no linear model */
        return;
    }
    lm->p = c;
    lm->w = xcalloc((size_t)c, sizeof *lm->w);
    lm->ainv = xcalloc((size_t)c * (size_t)c, sizeof *lm->ainv);
    if (shaped) { /* rise * (s - at)^2 over the size, rise * a^2 over each aspect */
        lm->belief = xcalloc((size_t)c, sizeof *lm->belief);
        lm->belief[lm->shape] = -2 * SHAPE_BELIEF_RISE * SHAPE_BELIEF_AT;
        lm->belief[lm->shape + 1] = SHAPE_BELIEF_RISE;
        for (int k = 0; k < lm->naspect; k++) lm->belief[lm->shape + 3 + 2 * k] = SHAPE_BELIEF_RISE;
    }
}

void linear_features(const struct linear_model *lm, int point, double *f) {
    const struct tune_space *sp = lm->sp;
    const int *c = sp->coord + (size_t)point * sp->nparams;
    memset(f, 0, sizeof *f * (size_t)lm->p);
    f[0] = 1;
    double size = 0;
    if (lm->shape >= 0) {
        double v[TUNE_MAX_SIDES];
        shape_raw(sp, point, v);
        for (int k = 0; k <= lm->naspect; k++) {
            const double mid = 0.5 * (lm->lo[k] + lm->hi[k]), half = 0.5 * (lm->hi[k] - lm->lo[k]) + 1e-9;
            const double x = (v[k] - mid) / half; /* one value only: all 0 */
            f[lm->shape + 2 * k] = x, f[lm->shape + 2 * k + 1] = x * x;
        }
        size = f[lm->shape];
    }
    int knob = 0;
    for (int k = 0; k < sp->nparams; k++) {
        const int L = sp->params[k].levels;
        if (lm->trend[k] >= 0) {
            const double x = 2.0 * c[k] / (L - 1) - 1;
            f[lm->trend[k]] = x, f[lm->trend[k] + 1] = x * x;
        }
        if (lm->ind[k] < 0) continue;
        if (c[k] >= 1) f[lm->ind[k] + c[k] - 1] = 1;
        if (is_side(sp, k)) continue;
        if (lm->inter >= 0 && c[k] >= 1) f[lm->inter + knob + c[k] - 1] = size;
        knob += L - 1;
    }
}

void linear_free(struct linear_model *lm) {
    free(lm->w);
    free(lm->ainv);
    free(lm->belief);
    memset(lm, 0, sizeof *lm);
}

/* In-place inverse of the symmetric positive definite p x p matrix a by
 * Cholesky (a = L L^T, then L^-1, then L^-T L^-1); 0 when it is not. */
static int spd_inverse(double *a, int p) {
    for (int j = 0; j < p; j++) {
        double s = a[j * p + j];
        for (int k = 0; k < j; k++) s -= a[j * p + k] * a[j * p + k];
        if (!(s > 0)) return 0;
        a[j * p + j] = sqrt(s);
        for (int i = j + 1; i < p; i++) {
            double t = a[i * p + j];
            for (int k = 0; k < j; k++) t -= a[i * p + k] * a[j * p + k];
            a[i * p + j] = t / a[j * p + j];
        }
    }
    for (int j = 0; j < p; j++) { /* L^-1, lower triangle */
        a[j * p + j] = 1 / a[j * p + j];
        for (int i = j + 1; i < p; i++) {
            double t = 0;
            for (int k = j; k < i; k++) t -= a[i * p + k] * a[k * p + j];
            a[i * p + j] = t / a[i * p + i];
        }
    }
    for (int i = 0; i < p; i++) /* (L^-1)^T L^-1, both triangles */
        for (int j = 0; j <= i; j++) {
            double t = 0;
            for (int k = i; k < p; k++) t += a[k * p + i] * a[k * p + j];
            a[j * p + i] = t;
        }
    for (int i = 0; i < p; i++)
        for (int j = 0; j < i; j++) a[i * p + j] = a[j * p + i];
    return 1;
}

/* Phi^T Phi + ridge I into a and Phi^T y into b (b without the prior's
 * share); the features of the rows into phi (m * p). */
static void normal_equations(const struct linear_model *lm, const int *point, const double *y, int m, double *phi,
                             double *a, double *b) {
    const int p = lm->p;
    memset(a, 0, sizeof *a * (size_t)p * (size_t)p);
    memset(b, 0, sizeof *b * (size_t)p);
    for (int j = 0; j < p; j++) a[j * p + j] = LINEAR_RIDGE;
    for (int r = 0; r < m; r++) {
        double *f = phi + (size_t)r * p;
        linear_features(lm, point[r], f);
        for (int i = 0; i < p; i++) {
            if (f[i] == 0) continue;
            b[i] += f[i] * y[r];
            for (int j = 0; j < p; j++) a[i * p + j] += f[i] * f[j];
        }
    }
}

/* The posterior for prior mean w0, given ainv and Phi^T y already. */
static void posterior(struct linear_model *lm, const double *phi, const double *y, int m, const double *phiy,
                      const double *w0) {
    const int p = lm->p;
    double ww = 0, rr = 0;
    for (int i = 0; i < p; i++) {
        double t = 0;
        for (int j = 0; j < p; j++) t += lm->ainv[i * p + j] * (phiy[j] + (w0 ? LINEAR_RIDGE * w0[j] : 0));
        lm->w[i] = t, ww += (t - (w0 ? w0[i] : 0)) * (t - (w0 ? w0[i] : 0));
    }
    for (int r = 0; r < m; r++) {
        const double e = y[r] - linear_mean_f(lm, phi + (size_t)r * p);
        rr += e * e;
    }
    lm->s2 = fmax((rr + LINEAR_RIDGE * ww) / m, LINEAR_NOISE_FLOOR);
}

static int fit(struct linear_model *lm, const int *point, const double *y, int m, const double *w0, double **phi_out,
               double **phiy_out) {
    const int p = lm->p;
    if (!p || m < 1) return 0;
    double *phi = xcalloc((size_t)m * (size_t)p, sizeof *phi), *b = xcalloc((size_t)p, sizeof *b);
    normal_equations(lm, point, y, m, phi, lm->ainv, b);
    if (!spd_inverse(lm->ainv, p)) {
        free(phi), free(b);
        return 0;
    }
    posterior(lm, phi, y, m, b, w0);
    if (phi_out) *phi_out = phi, *phiy_out = b;
    else free(phi), free(b);
    return 1;
}

int linear_fit(struct linear_model *lm, const int *point, const double *y, int m, const double *w0) {
    return fit(lm, point, y, m, w0, NULL, NULL);
}

/* How badly prior mean w0 explains the rows: (y - Phi w0)^T (I + Phi Phi^T
 * / ridge)^-1 (y - Phi w0), the only term of the log marginal likelihood
 * that differs between two prior means (the determinant and the noise scale
 * are the same for both); by Woodbury, r^T r - (Phi^T r)^T ainv (Phi^T r). */
static double misfit(const struct linear_model *lm, const double *phi, const double *y, int m, const double *w0) {
    const int p = lm->p;
    double *pr = xcalloc((size_t)p, sizeof *pr), rr = 0, q = 0;
    for (int r = 0; r < m; r++) {
        const double *f = phi + (size_t)r * p;
        double e = y[r];
        for (int i = 0; w0 && i < p; i++) e -= f[i] * w0[i];
        rr += e * e;
        for (int i = 0; i < p; i++) pr[i] += f[i] * e;
    }
    for (int i = 0; i < p; i++) {
        double t = 0;
        for (int j = 0; j < p; j++) t += lm->ainv[i * p + j] * pr[j];
        q += pr[i] * t;
    }
    free(pr);
    return rr - q;
}

int linear_fit_cold(struct linear_model *lm, const int *point, const double *y, int m) {
    double *phi, *phiy;
    lm->belief_used = 0;
    if (!fit(lm, point, y, m, NULL, &phi, &phiy)) return 0;
    if (lm->belief && misfit(lm, phi, y, m, lm->belief) <= misfit(lm, phi, y, m, NULL)) {
        lm->belief_used = 1;
        posterior(lm, phi, y, m, phiy, lm->belief);
    }
    free(phi), free(phiy);
    return 1;
}

double linear_mean_f(const struct linear_model *lm, const double *f) {
    double t = 0;
    for (int i = 0; i < lm->p; i++) t += f[i] * lm->w[i];
    return t;
}

double linear_var_f(const struct linear_model *lm, const double *f) {
    const int p = lm->p;
    double q = 0;
    for (int i = 0; i < p; i++) {
        if (f[i] == 0) continue;
        double t = 0;
        for (int j = 0; j < p; j++) t += lm->ainv[i * p + j] * f[j];
        q += f[i] * t;
    }
    return lm->s2 * q;
}
