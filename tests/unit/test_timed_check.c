/* Every repetition's result checked (timed.h: timed_check): each
 * repetition's sum against the first's, the first that differs noted with
 * both sums, and a config whose last repetition verified made wrong all the
 * same (measurement_check_repetitions). No device: a repetition here is a
 * step through a table of sums.
 * Prints "ok - name" / "not ok - name"; exits nonzero on any failure. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "core/measurement.h"
#include "core/timed.h"

/* Repetition i "produces" sums[i]; taken[i] 0 says there is nothing to
 * compare that time. */
struct table {
    const double *sums;
    const int *taken;
    int done;
};

static int table_rep(void *ctx, double *wall, double *device) {
    struct table *t = ctx;
    t->done++;
    *wall = *device = 1e-3;
    return 0;
}

static int table_sum(void *ctx, double *sum) {
    const struct table *t = ctx;
    const int i = t->done - 1;
    *sum = t->sums[i];
    return !t->taken || t->taken[i] ? 0 : -1;
}

/* 1 warm-up and 5 timed repetitions over the table; the measurement as
 * timed_reps leaves it. */
static struct measurement run(const double *sums, const int *taken, double rtol) {
    struct dev d = {0};
    struct measurement m = {0};
    measurement_unknown(&m);
    struct table t = {sums, taken, 0};
    const struct timed_check check = {table_sum, rtol};
    m.warmup = 1;
    if (timed_reps(&d, 1, 5, &m, table_rep, &t, &check) != 0) m.status = ST_RUNTIME_ERROR;
    return m;
}

int main(void) {
    const double same[6] = {2, 2, 2, 2, 2, 2};
    struct measurement m = run(same, NULL, 0);
    CHECK(m.nsamples == 5 && m.rep_differs == 0, "six repetitions with one sum: none differs (%d)", m.rep_differs);
    measurement_free(&m);

    const double fourth[6] = {2, 2, 2, 2.5, 2, 2};
    m = run(fourth, NULL, 1e-5);
    CHECK(m.rep_differs == 4 && m.rep_sums[0] == 2 && m.rep_sums[1] == 2.5,
          "the fourth differs: noted as repetition 4 with both sums (%d, %g, %g)", m.rep_differs, m.rep_sums[0],
          m.rep_sums[1]);
    measurement_free(&m);

    const double close[6] = {2, 2 + 1e-6, 2 - 1e-6, 2, 2, 2 + 2e-6};
    m = run(close, NULL, 1e-5);
    CHECK(m.rep_differs == 0, "sums within rtol (a float reduction's reordering) agree");
    measurement_free(&m);
    m = run(close, NULL, 0);
    CHECK(m.rep_differs == 2, "with rtol 0 the same sums differ at repetition 2 (%d)", m.rep_differs);
    measurement_free(&m);

    const double later_nan[6] = {2, 2, NAN, 2, 2, 2};
    m = run(later_nan, NULL, 1e-5);
    CHECK(m.rep_differs == 3 && isnan(m.rep_sums[1]), "a NAN after a number differs (%d)", m.rep_differs);
    measurement_free(&m);

    const double first_nan[6] = {NAN, 2, 2, 2, 2, 2};
    m = run(first_nan, NULL, 1e-5);
    CHECK(m.rep_differs == 2, "a number after a NAN first differs (%d)", m.rep_differs);
    measurement_free(&m);

    const int none_first[6] = {0, 1, 1, 1, 1, 1};
    const double other[6] = {5, 2, 3, 2, 2, 2};
    m = run(other, none_first, 0);
    CHECK(m.rep_differs == 0, "no sum from the first repetition: nothing to compare with (%d)", m.rep_differs);
    measurement_free(&m);

    /* The runner's step after verify(): wrong only when the last verified. */
    m = run(fourth, NULL, 1e-5);
    m.status = ST_OK;
    measurement_check_repetitions(&m);
    CHECK(m.status == ST_WRONG && strstr(m.reason, "repetition 4 of 6") && strstr(m.reason, "checksum 2.5") &&
              strstr(m.reason, "the first's 2"),
          "a verified config whose fourth repetition differed is wrong (%s)", m.reason);
    measurement_free(&m);
    m = run(fourth, NULL, 1e-5);
    m.status = ST_TIMEOUT;
    measurement_check_repetitions(&m);
    CHECK(m.status == ST_TIMEOUT && !m.reason[0], "another status is left as it is");
    measurement_free(&m);
    m = run(same, NULL, 0);
    m.status = ST_OK;
    measurement_check_repetitions(&m);
    CHECK(m.status == ST_OK && !m.reason[0], "repetitions that agree leave ok");
    measurement_free(&m);
    CHECK_DONE();
}
