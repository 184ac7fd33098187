/* round_stats.h: nights from rounds, the noise model and the tests. */
#include "stats/round_stats.h"

#include <math.h>
#include <stdlib.h>

#include "base/util.h"
#include "stats/pvalue.h"
#include "stats/stats.h"

#define IQR_PER_SD 1.349 /* the IQR of a normal distribution, in standard deviations */

static double sq(double x) { return x * x; }

int night_from_rounds(const double *log_med, const int *disturbed, int n, struct night_value *out) {
    int clean = 0;
    for (int i = 0; i < n; i++) clean += !(disturbed && disturbed[i]);
    int drop = clean >= 2 && clean < n; /* keep all when too few would be left */
    double *kept = xcalloc((size_t)n + 1, sizeof *kept), *dev = xcalloc((size_t)n + 1, sizeof *dev);
    int k = 0;
    for (int i = 0; i < n; i++)
        if (!(drop && disturbed[i])) kept[k++] = log_med[i];
    if (!k) {
        free(kept);
        free(dev);
        return -1;
    }
    int outliers = 0;
    if (k >= 4) {
        double med = stats_median(kept, (size_t)k);
        for (int i = 0; i < k; i++) dev[i] = fabs(kept[i] - med);
        double limit = fmax(ROUND_OUTLIER_SDS * 1.4826 * stats_median(dev, (size_t)k), log1p(ROUND_OUTLIER_MIN));
        int m = 0;
        for (int i = 0; i < k; i++) m += fabs(kept[i] - med) <= limit;
        if (m >= 3 && m < k) {
            int w = 0;
            for (int i = 0; i < k; i++)
                if (fabs(kept[i] - med) <= limit) kept[w++] = kept[i];
            outliers = k - m;
            k = m;
        }
    }
    double sum = 0, ss = 0;
    for (int i = 0; i < k; i++) sum += kept[i];
    out->rounds = k;
    out->mean = sum / k;
    for (int i = 0; i < k; i++) ss += sq(kept[i] - out->mean);
    out->var = k >= 2 ? ss / (k - 1) : NAN;
    out->dropped = drop ? n - clean : 0;
    out->outliers = outliers;
    free(kept);
    free(dev);
    return 0;
}

/* Sums of squares within nights (round part) and between the nights of each
 * group (night part), with their degrees of freedom and the mean of 1/R. */
struct sums {
    double ss_round, df_round, ss_night, df_night, inv_r, nights;
};

static void sums_add_rounds(struct sums *s, const struct night_value *v, int n) {
    for (int i = 0; i < n; i++) {
        if (v[i].rounds >= 2 && !isnan(v[i].var)) {
            s->ss_round += (v[i].rounds - 1) * v[i].var;
            s->df_round += v[i].rounds - 1;
        }
        s->inv_r += 1.0 / (v[i].rounds > 0 ? v[i].rounds : 1);
        s->nights += 1;
    }
}

/* The nights of one build: their spread about their own mean. */
static void sums_add_group(struct sums *s, const struct night_value *v, const int *idx, int k) {
    if (k < 2) return;
    double m = 0;
    for (int i = 0; i < k; i++) m += v[idx[i]].mean;
    m /= k;
    for (int i = 0; i < k; i++) s->ss_night += sq(v[idx[i]].mean - m);
    s->df_night += k - 1;
}

/* sigma_night^2 from the between-night mean square, less what the rounds
 * contribute to a night's value; never below zero. */
static double night_excess(const struct sums *s, double round_var) {
    if (s->df_night <= 0) return NAN;
    double mean_inv_r = s->nights > 0 ? s->inv_r / s->nights : 1;
    double v = s->ss_night / s->df_night - (isnan(round_var) ? 0 : round_var) * mean_inv_r;
    return v > 0 ? v : 0;
}

/* A side of a comparison: its nights spread about their own mean. */
static void sums_add_side(struct sums *s, const struct night_value *v, int k) {
    int *idx = xcalloc((size_t)k + 1, sizeof *idx);
    for (int i = 0; i < k; i++) idx[i] = i;
    sums_add_group(s, v, idx, k);
    free(idx);
}

void noise_learn(const struct night_value *nights, const int *group, int n, struct noise_model *out) {
    struct sums s = {0};
    sums_add_rounds(&s, nights, n);
    int *idx = xcalloc((size_t)n + 1, sizeof *idx), *seen = xcalloc((size_t)n + 1, sizeof *seen), builds = 0;
    for (int i = 0; i < n; i++) {
        if (seen[i]) continue;
        int k = 0;
        for (int j = i; j < n; j++)
            if (!seen[j] && group[j] == group[i]) idx[k++] = j, seen[j] = 1;
        sums_add_group(&s, nights, idx, k);
        builds++;
    }
    free(idx);
    free(seen);
    double round_var = s.df_round > 0 ? s.ss_round / s.df_round : NAN;
    double night_var = night_excess(&s, round_var);
    *out = (struct noise_model){.sigma_night = isnan(night_var) ? 0 : sqrt(night_var),
                                .df_night = s.df_night,
                                .sigma_round = isnan(round_var) ? 0 : sqrt(round_var),
                                .df_round = s.df_round,
                                .nights = n,
                                .builds = builds};
}

/* Folds the priors into the history's sums: the round variance first, then
 * the night's, whose prior is scaled by the round spread. */
static void with_priors(double ss_r, double df_r, double ss_n, double df_n, double *var_r, double *dfr, double *var_n,
                        double *dfn) {
    *dfr = NOISE_ROUND_PRIOR_DF + df_r;
    *var_r = (NOISE_ROUND_PRIOR_DF * sq(NOISE_ROUND_PRIOR) + ss_r) / *dfr;
    double prior_n = fmax(sq(NOISE_NIGHT_PER_ROUND) * *var_r, sq(NOISE_NIGHT_FLOOR));
    *dfn = NOISE_NIGHT_PRIOR_DF + df_n;
    *var_n = (NOISE_NIGHT_PRIOR_DF * prior_n + ss_n) / *dfn;
}

void noise_effective(const struct noise_model *own, struct noise_model *out) {
    double var_r, dfr, var_n, dfn;
    with_priors(own->df_round * sq(own->sigma_round), own->df_round, own->df_night * sq(own->sigma_night),
                own->df_night, &var_r, &dfr, &var_n, &dfn);
    *out = *own;
    out->sigma_round = sqrt(var_r);
    out->df_round = dfr;
    out->sigma_night = sqrt(var_n);
    out->df_night = dfn;
}

double noise_night_spread(const struct noise_model *own, int rounds) {
    struct noise_model m;
    noise_effective(own, &m);
    double v = sq(m.sigma_night) + sq(m.sigma_round) / (rounds > 0 ? rounds : 1);
    return expm1(IQR_PER_SD * sqrt(v));
}

static double side_mean(const struct night_value *v, int k, double *inv_r_sum, int *rounds) {
    double m = 0;
    *inv_r_sum = 0;
    *rounds = 0;
    for (int i = 0; i < k; i++) {
        m += v[i].mean;
        *inv_r_sum += 1.0 / (v[i].rounds > 0 ? v[i].rounds : 1);
        *rounds += v[i].rounds;
    }
    return m / k;
}

int rc_compare(const struct night_value *a, int ka, const struct night_value *b, int kb,
               const struct noise_model *model, double min_effect, struct rc_result *out) {
    if (ka < 1 || kb < 1) return -1;
    struct noise_model none = {0};
    if (!model) model = &none;
    struct sums s = {0};
    sums_add_rounds(&s, a, ka);
    sums_add_rounds(&s, b, kb);
    sums_add_side(&s, a, ka);
    sums_add_side(&s, b, kb);
    /* History and these nights together, with the priors behind them. */
    double own_r = s.df_round > 0 ? s.ss_round / s.df_round : NAN;
    double own_night = night_excess(&s, isnan(own_r) ? (model->df_round > 0 ? sq(model->sigma_round) : NAN) : own_r);
    double var_r, df_r, var_n, df_n;
    with_priors(model->df_round * sq(model->sigma_round) + s.ss_round, model->df_round + s.df_round,
                model->df_night * sq(model->sigma_night) + (isnan(own_night) ? 0 : s.df_night * own_night),
                model->df_night + (isnan(own_night) ? 0 : s.df_night), &var_r, &df_r, &var_n, &df_n);
    double inv_a, inv_b;
    int ra, rb;
    double ma = side_mean(a, ka, &inv_a, &ra), mb = side_mean(b, kb, &inv_b, &rb);
    double c_n = var_n * (1.0 / ka + 1.0 / kb);
    double c_r = var_r * (inv_a / ((double)ka * ka) + inv_b / ((double)kb * kb));
    double var_d = c_n + c_r, d = mb - ma;
    *out = (struct rc_result){
        .nights_a = ka, .nights_b = kb, .rounds_a = ra, .rounds_b = rb, .ratio = exp(d), .sigma_night = sqrt(var_n),
        .sigma_round = sqrt(var_r)};
    out->se = sqrt(var_d);
    /* Welch-Satterthwaite: each part brings its own degrees of freedom. */
    double den = (c_n > 0 ? sq(c_n) / df_n : 0) + (c_r > 0 ? sq(c_r) / df_r : 0);
    out->df = den > 0 ? sq(var_d) / den : df_n + df_r;
    if (out->se > 0) {
        out->t = d / out->se;
        out->p = student_t_two_sided(out->t, out->df);
    } else {
        out->t = d == 0 ? 0 : copysign(INFINITY, d);
        out->p = d == 0 ? 1 : 0;
    }
    double mean_inv_r = s.nights > 0 ? s.inv_r / s.nights : 1;
    out->noise = expm1(IQR_PER_SD * sqrt(var_n + var_r * mean_inv_r));
    out->threshold = fmax(min_effect, out->noise);
    return 0;
}

double rc_detectable(double se, double df, double alpha, double power) {
    if (!(df > 0) || isnan(se)) return INFINITY;
    if (se <= 0) return 0;
    /* One-sided for the power: P(T > t_power) = 1 - power. */
    double k = student_t_critical(alpha, df) + student_t_critical(2 * (1 - power), df);
    return expm1(k * se);
}

int rc_paired(const double *log_a, const double *log_b, int n, struct paired_result *out) {
    if (n < 2) return -1;
    double m = 0, ss = 0;
    for (int i = 0; i < n; i++) m += log_b[i] - log_a[i];
    m /= n;
    for (int i = 0; i < n; i++) ss += sq(log_b[i] - log_a[i] - m);
    *out = (struct paired_result){.n = n, .ratio = exp(m), .sd = sqrt(ss / (n - 1)), .df = n - 1};
    double se = out->sd / sqrt((double)n);
    if (se > 0) {
        out->t = m / se;
        out->p = student_t_two_sided(out->t, out->df);
    } else {
        out->t = m == 0 ? 0 : copysign(INFINITY, m);
        out->p = m == 0 ? 1 : 0;
    }
    return 0;
}

int rc_welch(const double *log_a, int na, const double *log_b, int nb, struct paired_result *out) {
    if (na < 2 || nb < 2) return -1;
    double ma = 0, mb = 0, va = 0, vb = 0;
    for (int i = 0; i < na; i++) ma += log_a[i] / na;
    for (int i = 0; i < nb; i++) mb += log_b[i] / nb;
    for (int i = 0; i < na; i++) va += sq(log_a[i] - ma) / (na - 1);
    for (int i = 0; i < nb; i++) vb += sq(log_b[i] - mb) / (nb - 1);
    double ca = va / na, cb = vb / nb, se = sqrt(ca + cb);
    *out = (struct paired_result){.n = na + nb, .ratio = exp(mb - ma), .sd = sqrt((va + vb) / 2)};
    double den = (ca > 0 ? sq(ca) / (na - 1) : 0) + (cb > 0 ? sq(cb) / (nb - 1) : 0);
    out->df = den > 0 ? sq(ca + cb) / den : na + nb - 2;
    if (se > 0) {
        out->t = (mb - ma) / se;
        out->p = student_t_two_sided(out->t, out->df);
    } else {
        out->t = mb == ma ? 0 : copysign(INFINITY, mb - ma);
        out->p = mb == ma ? 1 : 0;
    }
    return 0;
}
