/* The DG app's physics, on its serial reference (kernels/dg/reference.c),
 * with no device: conservation to 1e-12 with and without viscosity, the
 * same bits on any number of threads, the exact vortex's translation, and
 * the input's parsing (bad input refused with a message naming it). The
 * order of accuracy is test_dg_order.c's; the devices are checked against
 * this reference by tests/integration/dg.sh. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../kernels/dg/dg.h"
#include "check.h"
#include "dg_run.h"

static struct app_input *load(const char *spec, long iters, char *err, size_t n) {
    struct app_opts o = {.input = spec, .iters = iters};
    return dg_input_load(&o, err, n);
}

static void conservation_viscous(void) {
    double drift, t;
    const double e = dg_run_reference("yee:24:re=100", 40, &drift, &t);
    CHECK(drift <= 1e-12, "Navier-Stokes (re=100, 40 CFL steps) conserves to 1e-12 (%.2e)", drift);
    CHECK(isfinite(e) && t > 0, "it runs to t = %.4f, finite (L2 %.3e)", t, e);
    double drift_e, te;
    const double euler = dg_run_reference("yee:24", 40, &drift_e, &te);
    CHECK(fabs(e - euler) > 1e-6, "viscosity changes the solution (L2 %.4e with re=100, %.4e without)", e, euler);
}

static void exact_translates(void) {
    double a[DG_NV], b[DG_NV];
    dg_exact(0.0, 4.3, 5.6, a);
    dg_exact(2.5, 6.8, 8.1, b);
    int same = 1;
    for (int v = 0; v < DG_NV; v++) same &= fabs(a[v] - b[v]) < 1e-14;
    CHECK(same, "the exact vortex at t = 2.5 is the t = 0 vortex moved by (2.5, 2.5)");
    dg_exact(0.0, 5.0, 5.0, a);
    CHECK(a[0] > 0.4937 && a[0] < 0.4939, "density at the centre is the vortex's minimum, (1 - 0.4 x 25 e / (11.2 pi^2))^2.5 = 0.4938 (%.6f)", a[0]);
}

static void bad_input(void) {
    const char *bad[][2] = {{"yee:0", "0 cells along a side"},     {"yee:3", "3 cells along a side"},
                            {"yee:64:re=-1", "re=-1"},             {"yee:64:cfl=5", "cfl=5 diverges"},
                            {"yee:64:mach=2", "'mach' is unknown"}, {"yee:64:re=10:re=20", "'re' is unknown or given twice"},
                            {"vortex:64", "expected yee:N"},       {"yee:64x", "expected yee:N"},
                            {"yee:64:t=0", "t=0"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char err[512] = "";
        struct app_input *in = load(bad[i][0], 0, err, sizeof err);
        CHECK(!in && strstr(err, bad[i][1]), "%s is refused naming it ('%s' in: %s)", bad[i][0], bad[i][1], err);
        dg_input_free(in);
    }
    char err[512] = "";
    struct app_input *in = load("yee:16:t=1", 5, err, sizeof err);
    CHECK(!in && strstr(err, "--iters"), "t= with --iters is refused (%s)", err);
    dg_input_free(in);
    in = load("yee:48x32:cfl=0.3:re=200", 0, err, sizeof err);
    CHECK(in && strcmp(in->name, "yee:48x32:re=200:cfl=0.3") == 0 && in->iters == DG_STEPS,
          "yee:48x32:cfl=0.3:re=200 is named canonically (%s), %d steps", in ? in->name : err, DG_STEPS);
    dg_input_free(in);
}

/* The reference splits rows among threads; its bits must not depend on how
 * many (each cell's sums in one fixed order; the step's maximum over every
 * block). 13 rows: blocks of unequal height (6 + 7, 4 + 4 + 5). */
static void threads_same_bits(void) {
    char err[512];
    struct app_input *in = load("yee:20x13:re=50", 12, err, sizeof err);
    if (!in) {
        CHECK(0, "yee:20x13:re=50 loads: %s", err);
        return;
    }
    const size_t n = (size_t)in->nx * in->ny * DG_NC;
    double *q[3], t[3];
    const char *threads[3] = {"1", "2", "3"};
    for (int i = 0; i < 3; i++) {
        q[i] = malloc(n * sizeof(double));
        memcpy(q[i], in->q0, n * sizeof(double));
        setenv("DG_REFERENCE_THREADS", threads[i], 1);
        t[i] = dg_reference_run(in, q[i]);
    }
    unsetenv("DG_REFERENCE_THREADS");
    for (int i = 1; i < 3; i++)
        CHECK(t[i] == t[0] && memcmp(q[i], q[0], n * sizeof(double)) == 0,
              "the reference on %s threads and on 1 gives the same bits (12 viscous CFL steps, 20x13)", threads[i]);
    for (int i = 0; i < 3; i++) free(q[i]);
    dg_input_free(in);
}

int main(void) {
    exact_translates();
    threads_same_bits();
    bad_input();
    conservation_viscous();
    CHECK_DONE();
}
