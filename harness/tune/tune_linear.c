/* The additive part of the model-based search (tune_linear.h): Bayesian
 * linear regression of the log-time on each knob's levels (one indicator
 * per level but the first), the work-group's size and aspect (log2, each
 * with its square: time has an optimum in both), and each indicator times
 * the size (a knob's best group size is its own: a temporally blocked
 * kernel wants larger groups than a plain one).
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
 * fit or, for a search that starts cold, the shape belief below (zero for
 * every other weight): the features are indicators and numbers on [-1, 1],
 * so one scale suits them all. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tune_linear.h"
#include "util.h"

#define LINEAR_RIDGE 0.3
#define LINEAR_NOISE_FLOOR 1e-4 /* the least residual variance believed: 1 % in time */
#define LINEAR_MAX_FEATURES 400 /* above this the size interactions are left out */

/* The shape belief: a cold search's prior mean of the size and aspect
 * weights, a bowl in log-time rather than a flat zero. A work-group too
 * small leaves a multiprocessor short of threads (it holds a bounded number
 * of groups) and spends more of its cells on halos; one too large runs out
 * of registers or local memory, or leaves multiprocessors idle on a small
 * grid; a thin one loses coalescing in x or halo cells in y. So the mean
 * puts the optimum at SHAPE_BELIEF_AT of the log-size range (on [-1, 1]:
 * three quarters of the way up, where temporally blocked kernels were
 * fastest on every GPU measured) and at the middle of the aspects, rising by
 * SHAPE_BELIEF_RISE in log-time (x1.35) at the range's edges, where the
 * measured landscapes are 1.5x to 3x slower: a mild belief, which a few
 * evaluations override.
 *
 * Why: with a zero mean every shape may be the best, and the model is least
 * certain where its squares are largest, at the space's corners (8x4, 64x4,
 * 64x16), so expected improvement spent two or three of 8 evaluations
 * there and seldom came back to the middle of the range, where the
 * 1024x1024 winners are (32x16). Replayed over tests/data (100 seeds, 10 %
 * of the evaluations; results/published/nvidia-h200/tuning.md, "Replay",
 * has the table): the five informative landscapes it was chosen on went
 * from 65, 66, 93, 16, 15 % of the seeds reaching within 2 % of the best to
 * 66, 75, 81, 65, 73 %, and two recorded after it was committed (H100,
 * 2048x512 and 512x2048) from 12 and 16 % to 73 and 75 %; the knobs x
 * shapes ties at 128x128 from 1 % to 45-47 %, and the shapes-only ties at
 * 128x128 from 11 and 52 % to 11 and 12 % (their best groups are small or
 * elongated: 64x4, 4x8, 128x8), which the belief misjudges. With 25 % of
 * the evaluations all stay at 98-100 %. Rises of 0.25 to 0.35 with the
 * optimum at 0.4 to 0.6 did within a few points of these. A warm start's
 * prior replaces the belief: it is measured. */
#define SHAPE_BELIEF_RISE 0.3
#define SHAPE_BELIEF_AT 0.5

/* The log2 of each point's size and aspect, scaled to [-1, 1] over the
 * space (the midrange at 0). Why not standardised (mean 0, spread 1): the
 * weights share one prior scale, and an indicator is 0 or 1, while a
 * standardised column reaches 2 to 3 at the edges of the space and its
 * square 5 to 9, so the shape terms' prior outweighed the knobs' several
 * times at the smallest and most elongated groups. On [-1, 1] no feature's
 * prior weighs more than an indicator's. Replayed (tests/data, 100 seeds,
 * forest at 10 %): 512x512 reached within 2 % of the best in 65 % of the
 * seeds before, 93 % now; the other informative landscapes within a few
 * points of before. It does not stop expected improvement from measuring
 * the extreme shapes (about as many of them as before in the traced
 * seeds); tuning.md, "Replay", has the figures. */
static void side_columns(const struct tune_space *sp, double *size, double *aspect) {
    const int n = sp->n, d = sp->nparams, px = sp->side_param[0], py = sp->side_param[1];
    for (int i = 0; i < n; i++) {
        const double x = sp->side_len[0][sp->coord[(size_t)i * d + px]];
        const double y = sp->side_len[1][sp->coord[(size_t)i * d + py]];
        size[i] = log2(x * y > 0 ? x * y : 1);
        aspect[i] = log2(x > 0 && y > 0 ? x / y : 1);
    }
    double *v[2] = {size, aspect};
    for (int k = 0; k < 2; k++) {
        double lo = INFINITY, hi = -INFINITY;
        for (int i = 0; i < n; i++) lo = fmin(lo, v[k][i]), hi = fmax(hi, v[k][i]);
        const double mid = 0.5 * (lo + hi), half = 0.5 * (hi - lo) + 1e-9; /* one value only: all 0 */
        for (int i = 0; i < n; i++) v[k][i] = (v[k][i] - mid) / half;
    }
}

void linear_init(struct linear_model *lm, const struct tune_space *sp) {
    memset(lm, 0, sizeof *lm);
    const int n = sp->n, d = sp->nparams;
    const int sides = sp->side_param[0] >= 0 && sp->side_param[1] >= 0 && sp->side_len[0] && sp->side_len[1];
    int ind = 0; /* indicator columns: the knobs' levels but the first */
    for (int k = 0; k < d; k++)
        if (!sides || (k != sp->side_param[0] && k != sp->side_param[1])) ind += sp->params[k].levels - 1;
    int inter = sides;
    int p = 1 + ind + 4 * sides + ind * inter;
    if (p > LINEAR_MAX_FEATURES) inter = 0, p = 1 + ind + 4 * sides;
    if (p > LINEAR_MAX_FEATURES || !n) return; /* lm->p stays 0: no linear model */
    lm->p = p;
    lm->n = n;
    lm->phi = xcalloc((size_t)(n ? n : 1) * (size_t)p, sizeof *lm->phi);
    double *size = xcalloc((size_t)n + 1, sizeof *size), *aspect = xcalloc((size_t)n + 1, sizeof *aspect);
    if (sides) side_columns(sp, size, aspect);
    for (int i = 0; i < n; i++) {
        double *f = lm->phi + (size_t)i * p;
        int c = 0;
        f[c++] = 1;
        for (int k = 0; k < d; k++) {
            if (sides && (k == sp->side_param[0] || k == sp->side_param[1])) continue;
            const int level = sp->coord[(size_t)i * d + k];
            for (int l = 1; l < sp->params[k].levels; l++, c++) {
                f[c] = level == l;
                if (inter) f[c + ind] = (level == l) * size[i];
            }
        }
        if (inter) c += ind;
        if (sides) {
            f[c++] = size[i], f[c++] = size[i] * size[i];
            f[c++] = aspect[i], f[c++] = aspect[i] * aspect[i];
        }
    }
    free(size);
    free(aspect);
    lm->w = xcalloc((size_t)p, sizeof *lm->w);
    lm->ainv = xcalloc((size_t)p * (size_t)p, sizeof *lm->ainv);
    if (sides) { /* the last four columns: size, its square, aspect, its square */
        lm->belief = xcalloc((size_t)p, sizeof *lm->belief);
        lm->belief[p - 4] = -2 * SHAPE_BELIEF_RISE * SHAPE_BELIEF_AT; /* the vertex of rise * (s - at)^2 */
        lm->belief[p - 3] = SHAPE_BELIEF_RISE;
        lm->belief[p - 1] = SHAPE_BELIEF_RISE;
    }
}

void linear_free(struct linear_model *lm) {
    free(lm->phi);
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

int linear_fit(struct linear_model *lm, const int *point, const double *y, int m, const double *w0) {
    const int p = lm->p;
    if (!p || m < 1) return 0;
    double *a = lm->ainv, *b = xcalloc((size_t)p, sizeof *b);
    memset(a, 0, sizeof *a * (size_t)p * (size_t)p);
    for (int j = 0; j < p; j++) a[j * p + j] = LINEAR_RIDGE, b[j] = w0 ? LINEAR_RIDGE * w0[j] : 0;
    for (int r = 0; r < m; r++) {
        const double *f = lm->phi + (size_t)point[r] * p;
        for (int i = 0; i < p; i++) {
            if (f[i] == 0) continue;
            b[i] += f[i] * y[r];
            for (int j = 0; j < p; j++) a[i * p + j] += f[i] * f[j];
        }
    }
    if (!spd_inverse(a, p)) {
        free(b);
        return 0;
    }
    double ww = 0, rr = 0;
    for (int i = 0; i < p; i++) {
        double t = 0;
        for (int j = 0; j < p; j++) t += a[i * p + j] * b[j];
        lm->w[i] = t, ww += (t - (w0 ? w0[i] : 0)) * (t - (w0 ? w0[i] : 0));
    }
    for (int r = 0; r < m; r++) {
        const double e = y[r] - linear_mean(lm, point[r]);
        rr += e * e;
    }
    lm->s2 = fmax((rr + LINEAR_RIDGE * ww) / m, LINEAR_NOISE_FLOOR);
    free(b);
    return 1;
}

double linear_mean(const struct linear_model *lm, int point) {
    const double *f = lm->phi + (size_t)point * lm->p;
    double t = 0;
    for (int i = 0; i < lm->p; i++) t += f[i] * lm->w[i];
    return t;
}

double linear_var(const struct linear_model *lm, int point) {
    const int p = lm->p;
    const double *f = lm->phi + (size_t)point * p;
    double q = 0;
    for (int i = 0; i < p; i++) {
        if (f[i] == 0) continue;
        double t = 0;
        for (int j = 0; j < p; j++) t += lm->ainv[i * p + j] * f[j];
        q += f[i] * t;
    }
    return lm->s2 * q;
}
