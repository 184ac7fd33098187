/* The DG scheme's order of accuracy (issue 38), on its serial reference
 * (kernels/dg/reference.c): yee:32, 64 and 128 run to t = 2 with viscosity
 * 0, where the exact solution is the vortex carried by the free stream; the
 * L2 error of density against it must fall at 1.8 or more per halving of h
 * (P1 DG is 2nd order), each run conserving mass, momentum and energy to
 * 1e-12. About 10 s of CPU: tests/sanitize.sh leaves it out sanitized (its
 * code runs sanitized in test_dg), counted as skipped. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../kernels/dg/dg.h"
#include "check.h"
#include "dg_run.h"

static void order_of_accuracy(void) {
    const char *specs[] = {"yee:32:t=2", "yee:64:t=2", "yee:128:t=2"};
    double e[3], drift = 0, t = 0;
    for (int i = 0; i < 3; i++) {
        e[i] = dg_run_reference(specs[i], 0, &drift, &t);
        printf("# %s: L2 error of density %.4e at t = %.15g, integrals' drift %.2e\n", specs[i], e[i], t, drift);
        CHECK(fabs(t - 2.0) < 1e-12, "%s ends at t = 2 (%.17g)", specs[i], t);
        CHECK(drift <= 1e-12, "%s conserves mass, momentum and energy to 1e-12 (%.2e)", specs[i], drift);
    }
    for (int i = 1; i < 3; i++) {
        const double order = log2(e[i - 1] / e[i]);
        CHECK(order >= 1.8, "the error falls at order %.2f from %s to %s (at least 1.8 for P1 DG)", order,
              specs[i - 1], specs[i]);
    }
    /* The error must be that of a solution, not of an unchanged start: the
     * projection's own error at t = 0 is below the run's. */
    CHECK(e[2] < 1e-4, "yee:128 at t = 2 is within 1e-4 of the vortex (%.3e)", e[2]);
}

int main(void) {
    order_of_accuracy();
    CHECK_DONE();
}
