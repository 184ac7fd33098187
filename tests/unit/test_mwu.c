/* The statistics behind `harness compare` and `harness regressions`:
 * Mann-Whitney U (exact and asymptotic), Student's t tail, the normal tail,
 * against values scipy 1.17 gave (scipy.stats.mannwhitneyu with
 * alternative='two-sided' and method='exact' / 'asymptotic';
 * 2 * scipy.stats.t.sf; scipy.stats.norm.sf), computed offline. */
#include <math.h>
#include <stdio.h>

#include "check.h"
#include "stats/mwu.h"
#include "stats/pvalue.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static int close_rel(double x, double want, double rel) { return fabs(x - want) <= rel * fabs(want) + 1e-15; }

struct mwu_case {
    const char *name;
    const double *a, *b;
    size_t na, nb;
    double u, p_exact, p_asym;
};

int main(void) {
    static const double a1[] = {1.1, 2.2, 3.3}, b1[] = {4.4, 5.5, 6.6};
    static const double a2[] = {1, 2, 3, 4, 5}, b2[] = {3.5, 6, 7, 8, 9, 10};
    static const double a3[] = {0.110, 0.112, 0.108, 0.111, 0.109, 0.113, 0.107, 0.110, 0.114};
    static const double b3[] = {0.118, 0.121, 0.117, 0.119, 0.122, 0.116, 0.120, 0.123, 0.1185};
    static const double a4[] = {5.1, 4.9, 5.3, 5.0, 5.2, 4.8, 5.05, 5.15};
    static const double b4[] = {5.12, 4.95, 5.25, 5.02, 5.18, 4.85, 5.08, 5.22};
    static const double a5[] = {1, 2, 2, 3, 3, 3, 4}, b5[] = {2, 3, 3, 4, 4, 5, 5, 6};
    static const double a6[] = {10, 10, 10}, b6[] = {10, 10, 10};
    const struct mwu_case cases[] = {
        {"3 vs 3, separated", a1, b1, N(a1), N(b1), 0, 0.1, 0.08085559837005224},
        {"5 vs 6, one overlap", a2, b2, N(a2), N(b2), 2, 0.017316017316017316, 0.022478873366125265},
        {"9 vs 9, separated", a3, b3, N(a3), N(b3), 0, 4.113533525298231e-05, 0.0004094601088531576},
        {"8 vs 8, interleaved", a4, b4, N(a4), N(b4), 29, 0.7984459984459983, 0.7928955031789606},
        {"7 vs 8 with ties", a5, b5, N(a5), N(b5), 11, 0.054079254079254076, 0.04988443697992588},
        {"all equal", a6, b6, N(a6), N(b6), 4.5, 1.0, 1.0},
    };
    for (size_t i = 0; i < N(cases); i++) {
        const struct mwu_case *c = &cases[i];
        struct mwu e, s;
        mwu_test_method(c->a, c->na, c->b, c->nb, 1, &e);
        mwu_test_method(c->a, c->na, c->b, c->nb, 0, &s);
        CHECK(e.u_a == c->u, "mwu %s: U = %g (scipy %g)", c->name, e.u_a, c->u);
        CHECK(close_rel(e.p, c->p_exact, 1e-9), "mwu %s: exact p = %.12g (scipy %.12g)", c->name, e.p, c->p_exact);
        CHECK(close_rel(s.p, c->p_asym, 1e-9), "mwu %s: asymptotic p = %.12g (scipy %.12g)", c->name, s.p, c->p_asym);
    }
    /* The default picks exact without ties, the approximation with them. */
    struct mwu d;
    mwu_test(a4, N(a4), b4, N(b4), &d);
    CHECK(d.exact && close_rel(d.p, 0.7984459984459983, 1e-9), "mwu default: exact for 8 vs 8 without ties");
    mwu_test(a5, N(a5), b5, N(b5), &d);
    CHECK(!d.exact && close_rel(d.p, 0.04988443697992588, 1e-9), "mwu default: asymptotic with ties");
    /* Symmetry: swapping the samples keeps the two-sided p. */
    struct mwu x, y;
    mwu_test(a2, N(a2), b2, N(b2), &x);
    mwu_test(b2, N(b2), a2, N(a2), &y);
    CHECK(close_rel(x.p, y.p, 1e-12) && x.u_a + y.u_a == 30, "mwu: swapping A and B keeps p, U_a + U_b = na nb");
    /* The smallest p a size can reach decides "too few samples". */
    CHECK(close_rel(mwu_min_p(3, 3), 0.1, 1e-12), "mwu_min_p(3,3) = 0.1: 3 vs 3 can never reach 0.002");
    CHECK(close_rel(mwu_min_p(9, 9), 2.0 / 48620, 1e-9) && mwu_min_p(9, 9) <= 0.002,
          "mwu_min_p(9,9) = 2/C(18,9) = %.3g <= 0.002", mwu_min_p(9, 9));
    CHECK(mwu_min_p(6, 6) > 0.002 && mwu_min_p(7, 7) <= 0.002,
          "mwu_min_p: 6 vs 6 cannot reach 0.002 (%.3g), 7 vs 7 can (%.3g)", mwu_min_p(6, 6), mwu_min_p(7, 7));
    /* A larger exact case (the counts pass 2^53): 30 vs 30, shifted by about half the range. */
    double big_a[30], big_b[30];
    for (int i = 0; i < 30; i++) {
        big_a[i] = 1.0 + 0.01 * i;
        big_b[i] = 1.155 + 0.01 * i;
    }
    mwu_test(big_a, 30, big_b, 30, &d);
    CHECK(d.exact && close_rel(d.p, 3.835434409846774e-08, 1e-6), "mwu 30 vs 30 exact: p = %.12g (scipy %.12g)", d.p,
          3.835434409846774e-08);

    static const struct {
        double t, df, p;
    } tc[] = {{2.0, 5, 0.10193947882985835},
              {4.2, 28, 0.0002452570165493724},
              {1.0, 1, 0.5000000000000001},
              {10.0, 3.5, 0.0010714758956126634},
              {3.3, 100, 0.0013406195219600942}};
    for (size_t i = 0; i < N(tc); i++) {
        double p = student_t_two_sided(tc[i].t, tc[i].df);
        CHECK(close_rel(p, tc[i].p, 1e-9), "student t: P(|T| >= %g), df %g = %.12g (scipy %.12g)", tc[i].t, tc[i].df, p,
              tc[i].p);
    }
    CHECK(close_rel(normal_sf(3.0), 0.0013498980316300933, 1e-12), "normal_sf(3) = %.12g", normal_sf(3.0));
    /* The exact tail far out: 100 against 100, completely separated, is
     * 2 / C(200, 100); summed from the cancelling side it came out about
     * -4e-15. And 3.3 standard deviations out it is what exact integers give. */
    {
        static double a[100], b[100];
        for (int i = 0; i < 100; i++) a[i] = i, b[i] = 1000 + i;
        struct mwu m;
        mwu_test_method(a, 100, b, 100, 1, &m);
        CHECK(m.p > 0 && fabs(m.p / mwu_min_p(100, 100) - 1) < 1e-6,
              "exact, 100 vs 100 completely separated: p %.3g = 2 / C(200, 100) = %.3g", m.p, mwu_min_p(100, 100));
        for (int i = 0; i < 100; i++) b[i] = i + 14.5; /* U about 3.3 sd from its mean, no ties */
        struct mwu e, z;
        mwu_test_method(a, 100, b, 100, 1, &e);
        mwu_test_method(a, 100, b, 100, 0, &z);
        /* 2 P(U >= 6345) with exact integers (Python's, the same q-binomial
         * counts summed as big integers over C(200, 100)), computed offline. */
        CHECK(fabs(e.p / 0.000949823644473653 - 1) < 1e-9,
              "exact, 100 vs 100 at U = 6345: p %.12g (exact integers: 0.000949823644473653)", e.p);
        CHECK(fabs(e.p / z.p - 1) < 0.1, "and the normal approximation is near it: %.4g against %.4g", z.p, e.p);
    }
    CHECK_DONE();
}
