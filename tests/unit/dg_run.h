/* What the DG tests share: the serial reference (kernels/dg/reference.c)
 * run on an input to its end, with what it must keep and reach. */
#ifndef TESTS_DG_RUN_H
#define TESTS_DG_RUN_H
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../kernels/dg/dg.h"
#include "check.h"

/* The L2 error of density against the exact vortex at the end, the four
 * integrals' largest relative drift (*drift) and the time reached (*t_end,
 * may be NULL); NAN after a failed check when the input does not load.
 * iters: --iters (0: the input's own). */
static double dg_run_reference(const char *spec, long iters, double *drift, double *t_end) {
    char err[512];
    struct app_opts o = {.input = spec, .iters = iters};
    struct app_input *in = dg_input_load(&o, err, sizeof err);
    *drift = 0;
    if (t_end) *t_end = 0;
    if (!in) {
        CHECK(0, "%s loads: %s", spec, err);
        return NAN;
    }
    const size_t n = (size_t)in->nx * in->ny * DG_NC;
    double *q = malloc(n * sizeof(double)), tot[DG_NV];
    memcpy(q, in->q0, n * sizeof(double));
    const double t = dg_reference_run(in, q);
    dg_totals(in, q, tot);
    for (int v = 0; v < DG_NV; v++) *drift = fmax(*drift, fabs(tot[v] - in->totals0[v]) / fabs(in->totals0[v]));
    const double e = dg_density_l2(in, q, t);
    if (t_end) *t_end = t;
    free(q);
    dg_input_free(in);
    return e;
}
#endif
