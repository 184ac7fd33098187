/* E-divisive means with a t-test, on log values (so a step is a ratio, and
 * noise proportional to the time is even).
 *
 * 1. Within a segment, the split maximising the energy statistic
 *      Q(tau) = m n / (m + n) * (2/(m n) sum|x_i - y_j|
 *               - 1/C(m,2) sum_{i<k}|x_i - x_k| - 1/C(n,2) sum_{j<k}|y_j - y_k|)
 *    (alpha = 1; X the m nights before tau, Y the n from tau on) is the
 *    candidate; both sides must hold min_segment nights. E-divisive places a
 *    step a night or two off more often than least squares, so the split is
 *    then moved within +-2 nights to the best single-step least-squares fit.
 * 2. The candidate is kept when the two sides pass a pooled two-sample
 *    t-test at p <= alpha and their medians differ by at least min_effect;
 *    then each side is searched again (binary segmentation).
 *    The p-value is multiplied by the number of splits the search could have
 *    chosen in that segment (Bonferroni): the search picks the most extreme
 *    split, and an uncorrected t-test of it calls a clean 30-night series a
 *    change 1.5-2.5 % of the time instead of 0.1 % (measured with
 *    tests/unit/nightly_gen.c; test_changepoint.c).
 *    The pooled test (not Welch's) fits the step model, where the level moves
 *    and the noise does not; Welch's test on a 3-night edge segment has about
 *    2 degrees of freedom and alarms on chance-quiet edges.
 * 3. Every kept split is re-tested the same way against its final neighbours
 *    (the segments between it and the adjacent splits) and dropped when it no
 *    longer passes, until nothing changes, so the reported p and ratio are
 *    those of the levels actually on either side.
 * A single bad night cannot be a change: a segment holds >= 3 nights and the
 * step is measured between segment medians, which one night does not move.
 * Block sums of the distance matrix come from a 2-D prefix sum, so a segment
 * of n nights costs O(n) per candidate split. */
#include "stats/changepoint.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "stats/pvalue.h"
#include "stats/round_stats.h"
#include "stats/stats.h"

#define CP_REFINE 2

struct cp_ctx {
    const double *y; /* log values */
    int n;
    double *pre; /* (n+1) x (n+1): pre[i][j] = sum of |y_a - y_b| over a < i, b < j */
    int ms;      /* minimum segment, at least 2 */
    const struct cp_params *p;
};

static double block(const struct cp_ctx *c, int a0, int a1, int b0, int b1) {
    int w = c->n + 1;
    return c->pre[a1 * w + b1] - c->pre[a0 * w + b1] - c->pre[a1 * w + b0] + c->pre[a0 * w + b0];
}

/* The energy statistic of splitting [lo, hi) at tau. A block over one
 * segment counts each pair twice, hence m (m - 1) for the mean over C(m,2). */
static double energy(const struct cp_ctx *c, int lo, int tau, int hi) {
    double m = tau - lo, n = hi - tau;
    double between = block(c, lo, tau, tau, hi) / (m * n);
    double within_x = block(c, lo, tau, lo, tau) / (m * (m - 1));
    double within_y = block(c, tau, hi, tau, hi) / (n * (n - 1));
    return m * n / (m + n) * (2.0 * between - within_x - within_y);
}

/* The split within +-CP_REFINE of tau with the largest between-segment sum
 * of squares m n / (m + n) (mean_x - mean_y)^2. */
static int refine(const struct cp_ctx *c, int lo, int tau, int hi) {
    int best = tau;
    double best_s = -1;
    for (int t = tau - CP_REFINE; t <= tau + CP_REFINE; t++) {
        if (t < lo + c->ms || t > hi - c->ms) continue;
        double sx = 0, sy = 0;
        for (int i = lo; i < t; i++) sx += c->y[i];
        for (int i = t; i < hi; i++) sy += c->y[i];
        double m = t - lo, n = hi - t, d = sx / m - sy / n;
        double s = m * n / (m + n) * d * d;
        if (s > best_s) {
            best_s = s;
            best = t;
        }
    }
    return best;
}

/* The corrected p and the step between [a, b) and [b, e). */
static void judge(const struct cp_ctx *c, int a, int b, int e, double *p, double *ratio) {
    struct t_test t;
    *p = 1.0;
    *ratio = 1.0;
    if (t_test_pooled(c->y + a, (size_t)(b - a), c->y + b, (size_t)(e - b), &t) != 0) return;
    double splits = (e - a) - 2 * c->ms + 1; /* where the search could have split */
    *p = fmin(1.0, t.p * (splits > 1 ? splits : 1));
    /* Medians, not means: a spike inside a segment does not move its level. */
    *ratio = exp(stats_median(c->y + b, (size_t)(e - b)) - stats_median(c->y + a, (size_t)(b - a)));
}

static int passes(const struct cp_ctx *c, double p, double ratio) {
    return p <= c->p->alpha && fabs(log(ratio)) >= log1p(c->p->min_effect);
}

/* Binary segmentation of [lo, hi); marks accepted splits in is_cp. */
static void segment(const struct cp_ctx *c, int lo, int hi, char *is_cp) {
    int best = -1;
    double best_q = -INFINITY;
    for (int tau = lo + c->ms; tau <= hi - c->ms; tau++) {
        double q = energy(c, lo, tau, hi);
        if (q > best_q) {
            best_q = q;
            best = tau;
        }
    }
    if (best < 0) return;
    best = refine(c, lo, best, hi);
    double p, ratio;
    judge(c, lo, best, hi, &p, &ratio);
    if (!passes(c, p, ratio)) return;
    is_cp[best] = 1;
    segment(c, lo, best, is_cp);
    segment(c, best, hi, is_cp);
}

/* The next split after i, or n. */
static int next_split(const char *is_cp, int i, int n) {
    int j = i + 1;
    while (j < n && !is_cp[j]) j++;
    return j;
}

int cp_detect(const double *x, int n, const struct cp_params *params, struct change_point *out, int max_out) {
    struct cp_params def = CP_DEFAULTS;
    if (!params) params = &def;
    int ms = params->min_segment < 2 ? 2 : params->min_segment; /* a variance needs 2 */
    if (n < 2 * ms) return 0;
    double *y = xcalloc((size_t)n, sizeof *y);
    for (int i = 0; i < n; i++) y[i] = log(x[i]);
    int w = n + 1;
    double *pre = xcalloc((size_t)w * (size_t)w, sizeof *pre);
    for (int i = 1; i <= n; i++)
        for (int j = 1; j <= n; j++)
            pre[i * w + j] =
                fabs(y[i - 1] - y[j - 1]) + pre[(i - 1) * w + j] + pre[i * w + j - 1] - pre[(i - 1) * w + j - 1];
    struct cp_ctx c = {y, n, pre, ms, params};
    char *is_cp = xcalloc((size_t)n + 1, 1);
    segment(&c, 0, n, is_cp);

    for (int changed = 1; changed;) {
        changed = 0;
        for (int i = 1, prev = 0; i < n; i++) {
            if (!is_cp[i]) continue;
            double p, ratio;
            judge(&c, prev, i, next_split(is_cp, i, n), &p, &ratio);
            if (!passes(&c, p, ratio)) {
                is_cp[i] = 0; /* prev stays: its segment now runs on */
                changed = 1;
                continue;
            }
            prev = i;
        }
    }
    int k = 0;
    for (int i = 1, prev = 0; i < n; i++) {
        if (!is_cp[i]) continue;
        if (k < max_out) {
            out[k].index = i;
            judge(&c, prev, i, next_split(is_cp, i, n), &out[k].p, &out[k].ratio);
            k++;
        }
        prev = i;
    }
    free(is_cp);
    free(pre);
    free(y);
    return k;
}

double cp_noise(const double *x, int n) {
    if (n < 3) return 0;
    double *d = xcalloc((size_t)n - 1, sizeof *d);
    for (int i = 0; i + 1 < n; i++) d[i] = fabs(log(x[i + 1]) - log(x[i]));
    /* MAD of successive differences: a step moves one difference, a spike
     * two, so neither inflates it. 1.4826 makes a MAD a standard deviation,
     * and a difference of two nights has sqrt(2) times a night's. */
    double s = 1.4826 * stats_median(d, (size_t)n - 1) / sqrt(2.0);
    free(d);
    return expm1(s);
}

double cp_min_effect(const double *x, int n, const struct noise_model *m, int rounds, double floor) {
    double e = fmax(floor, cp_noise(x, n));
    return m ? fmax(e, noise_night_spread(m, rounds)) : e;
}

/* The corrected p of a step between n1 nights and n2 with these means and
 * pooled sd (log scale), in a segment that could split in `splits` places. */
static double step_p(double d, double sd, int n1, int n2, int splits) {
    double df = n1 + n2 - 2;
    if (df < 1) return 1.0;
    double se = sd * sqrt(1.0 / n1 + 1.0 / n2);
    double p = se > 0 ? student_t_two_sided(d / se, df) : (d != 0 ? 0.0 : 1.0);
    return fmin(1.0, p * (splits > 1 ? splits : 1));
}

int cp_candidate(const double *x, int n, const struct change_point *found, int nfound, const struct cp_params *params,
                 struct cp_candidate *out) {
    struct cp_params def = CP_DEFAULTS;
    if (!params) params = &def;
    int ms = params->min_segment < 2 ? 2 : params->min_segment;
    int lo = nfound ? found[nfound - 1].index : 0, best = -1;
    double best_p = 2;
    if (n - lo < ms + 1) return 0;
    double *y = xcalloc((size_t)n, sizeof *y);
    for (int i = 0; i < n; i++) y[i] = log(x[i]);
    struct cp_candidate c = {0};
    for (int tau = lo + ms; tau < n; tau++) {
        double ratio = exp(stats_median(y + tau, (size_t)(n - tau)) - stats_median(y + lo, (size_t)(tau - lo)));
        if (fabs(log(ratio)) < log1p(params->min_effect)) continue;
        struct t_test t;
        double p = 1;
        if (t_test_pooled(y + lo, (size_t)(tau - lo), y + tau, (size_t)(n - tau), &t) == 0) {
            double splits = (n - lo) - 2 * ms + 1;
            p = fmin(1.0, t.p * (splits > 1 ? splits : 1));
        }
        if (p < best_p) {
            best_p = p;
            best = tau;
            c = (struct cp_candidate){tau, n - tau, ratio, p, -1};
        }
    }
    if (best < 0) {
        free(y);
        return 0;
    }
    /* Nights more at this level: the same means and pooled sd, more nights. */
    int n1 = best - lo, n2 = n - best;
    double m1 = 0, m2 = 0, ss = 0;
    for (int i = lo; i < best; i++) m1 += y[i] / n1;
    for (int i = best; i < n; i++) m2 += y[i] / n2;
    for (int i = lo; i < best; i++) ss += (y[i] - m1) * (y[i] - m1);
    for (int i = best; i < n; i++) ss += (y[i] - m2) * (y[i] - m2);
    double sd = n1 + n2 > 2 ? sqrt(ss / (n1 + n2 - 2)) : 0;
    for (int k = 0; k <= 60; k++) {
        int splits = (n - lo + k) - 2 * ms + 1;
        if (n2 + k >= ms && step_p(m2 - m1, sd, n1, n2 + k, splits) <= params->alpha) {
            c.more = k;
            break;
        }
    }
    free(y);
    *out = c;
    return 1;
}
