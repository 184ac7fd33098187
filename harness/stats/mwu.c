/* Mann-Whitney U: ranks with midranks for ties; the exact null distribution
 * of U from the coefficients of the Gaussian binomial [na+nb choose na]_q
 * (the number of arrangements with each U value); otherwise the normal
 * approximation with the tie-corrected variance and a continuity correction.
 * Both match scipy.stats.mannwhitneyu (method='exact' / 'asymptotic',
 * alternative='two-sided'); tests/unit/test_mwu.c checks values it gave. */
#include "stats/mwu.h"

#include <math.h>
#include <stdlib.h>

#include "base/util.h"
#include "stats/pvalue.h"

struct ranked {
    double v;
    int from_a;
};

static int cmp_ranked(const void *x, const void *y) {
    double a = ((const struct ranked *)x)->v, b = ((const struct ranked *)y)->v;
    return (a > b) - (a < b);
}

/* Sum of ranks of sample a (midranks for ties) and the tie term sum(t^3 - t). */
static void rank_sum(const double *a, size_t na, const double *b, size_t nb, double *ra, double *ties) {
    size_t n = na + nb;
    struct ranked *r = xcalloc(n, sizeof *r);
    for (size_t i = 0; i < na; i++) r[i] = (struct ranked){a[i], 1};
    for (size_t j = 0; j < nb; j++) r[na + j] = (struct ranked){b[j], 0};
    qsort(r, n, sizeof *r, cmp_ranked);
    *ra = 0;
    *ties = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && r[j].v == r[i].v) j++;
        double t = (double)(j - i), mid = ((double)i + 1 + (double)j) / 2.0; /* ranks i+1..j */
        for (size_t k = i; k < j; k++)
            if (r[k].from_a) *ra += mid;
        *ties += t * t * t - t;
        i = j;
    }
    free(r);
}

/* Counts of arrangements with U = 0..na*nb: the coefficients of
 * prod_{i=1..m} (1 - q^(n+i)) / (1 - q^i), m = min(na, nb). Each partial
 * product is itself a Gaussian binomial, so every division is exact. Doubles
 * hold the counts (exact to 2^53, a relative 1e-16 beyond). */
static double *u_counts(size_t na, size_t nb) {
    size_t m = na < nb ? na : nb, n = na < nb ? nb : na, deg = na * nb;
    double *c = xcalloc(deg + 1, sizeof *c);
    c[0] = 1;
    for (size_t i = 1; i <= m; i++) {
        size_t s = n + i;
        for (size_t k = deg; k >= s; k--) c[k] -= c[k - s]; /* times (1 - q^s) */
        for (size_t k = i; k <= deg; k++) c[k] += c[k - i]; /* divided by (1 - q^i) */
    }
    return c;
}

double mwu_min_p(size_t na, size_t nb) {
    if (!na || !nb) return 1.0;
    /* C(na+nb, na) in logs: no overflow for any size */
    double lc = lgamma((double)(na + nb + 1)) - lgamma((double)(na + 1)) - lgamma((double)(nb + 1));
    double p = 2.0 * exp(-lc);
    return p > 1.0 ? 1.0 : p;
}

/* The tail is summed from the low end, P(U <= deg - u_big), which the
 * symmetric distribution makes equal to P(U >= u_big): the low coefficients
 * are small integers that the products' subtractions leave exact, while the
 * high ones are differences of huge numbers, so a sum of the far upper tail
 * came out wrong, even negative (about -4e-15 at 100 against 100, complete
 * separation, where the answer is 2 / C(200, 100) = 2.2e-59). The total is
 * C(na + nb, na) itself. */
static double exact_p(double u_big, size_t na, size_t nb) {
    double *c = u_counts(na, nb);
    size_t deg = na * nb;
    double low = (double)deg - u_big, tail = 0;
    for (size_t k = 0; k <= deg && (double)k <= low + 1e-9; k++) tail += c[k];
    free(c);
    double lc = lgamma((double)(na + nb + 1)) - lgamma((double)(na + 1)) - lgamma((double)(nb + 1));
    double p = 2.0 * tail * exp(-lc);
    return p > 1.0 ? 1.0 : p;
}

int mwu_test_method(const double *a, size_t na, const double *b, size_t nb, int exact, struct mwu *out) {
    if (!na || !nb) return -1;
    double ra, ties;
    rank_sum(a, na, b, nb, &ra, &ties);
    double n1 = (double)na, n2 = (double)nb, n = n1 + n2;
    out->u_a = ra - n1 * (n1 + 1) / 2.0;
    double u_big = fmax(out->u_a, n1 * n2 - out->u_a); /* scipy's two-sided statistic */
    out->exact = exact;
    out->p_min = mwu_min_p(na, nb);
    if (exact) {
        out->p = exact_p(u_big, na, nb);
        return 0;
    }
    double mu = n1 * n2 / 2.0;
    double var = n1 * n2 / 12.0 * ((n + 1) - ties / (n * (n - 1)));
    if (var <= 0) { /* every value equal: no evidence either way */
        out->p = 1.0;
        return 0;
    }
    double z = (u_big - mu - 0.5) / sqrt(var);
    double p = 2.0 * normal_sf(z);
    out->p = p > 1.0 ? 1.0 : p;
    return 0;
}

int mwu_test(const double *a, size_t na, const double *b, size_t nb, struct mwu *out) {
    double ra, ties;
    if (!na || !nb) return -1;
    rank_sum(a, na, b, nb, &ra, &ties);
    int exact = ties == 0 && na * nb <= MWU_EXACT_MAX;
    return mwu_test_method(a, na, b, nb, exact, out);
}
