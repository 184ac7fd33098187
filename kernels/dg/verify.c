/* Verification, three ways, and the output file.
 *
 * (a) Against the serial reference, coefficient by coefficient:
 *     |device - reference| <= DG_TOL x scale, scale the reference's largest
 *     |value| of that variable and coefficient over the mesh. The device
 *     runs the same scheme in another order (each cell gathers its faces
 *     where the reference scatters each face to both cells; fused
 *     multiply-adds where a compiler contracts; 1/dx and 1/rho multiplied
 *     under divide=inverse), so each stage's result differs by a few
 *     roundings, about 1e-16 of the scale, and the smooth flow carries such
 *     differences on without amplifying them much: measured up to 3e-15
 *     (README.md). DG_TOL = 1e-10 leaves five orders of room. A sign flipped
 *     in a flux, a missed face or term, or a wrong neighbour moves the
 *     state by 1e-3 or more of the scale after one step.
 * (b) Conservation: on the periodic mesh the integrals of rho, rho u, rho v
 *     and E are constant; each within DG_CONSERVE (1e-12) relative of the
 *     input's. Each step adds roundings of about 6e-17 relative (measured:
 *     4e-14 after 690 steps at 128x128), so 1e-12 holds for some 15 000
 *     steps; a face flux that enters its two cells differently breaks it at
 *     once.
 * (c) Accuracy: m->result is the L2 error of density against the exact
 *     vortex at the time reached (the vortex carried by the free stream;
 *     with viscosity it is the distance to the inviscid solution).
 * The time reached (device's dt, from its own reduction) must match the
 * reference's within 1e-12 relative. NaN anywhere is wrong. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "dg.h"

#define DG_TOL 1e-10
#define DG_CONSERVE 1e-12

static const char *const VAR[DG_NV] = {"rho", "rho u", "rho v", "E"};
static const char *const COEF[DG_NB] = {"mean", "x slope", "y slope"};

/* (a): the number of coefficients out of tolerance; the worst's place. */
static long compare(const struct app_ref *ref, const struct app_result *res, struct measurement *m, long *where) {
    long bad = 0;
    double worst = -1, worst_abs = 0;
    for (long c = 0; c < ref->ncells; c++)
        for (int k = 0; k < DG_NC; k++) {
            const double diff = fabs(res->q[c * DG_NC + k] - ref->q[c * DG_NC + k]);
            const double rel = ref->scale[k] > 0 ? diff / ref->scale[k] : diff;
            const double judged = isnan(rel) ? INFINITY : rel;
            if (!(rel <= DG_TOL)) bad++;
            worst_abs = isnan(diff) ? INFINITY : fmax(worst_abs, diff);
            if (judged > worst) {
                worst = judged;
                *where = c * DG_NC + k;
            }
        }
    m->max_abs_err = worst_abs;
    m->max_rel_err = worst;
    m->tolerance = DG_TOL;
    return bad;
}

void dg_verify(const struct app_input *in, const struct app_ref *ref, const struct app_result *res,
               struct measurement *m) {
    long where = 0;
    const long bad = compare(ref, res, m, &where);
    m->result = dg_density_l2(in, res->q, res->time);
    if (bad) {
        const long c = where / DG_NC;
        const int k = (int)(where % DG_NC);
        m->status = ST_WRONG;
        snprintf(m->reason, sizeof m->reason,
                 "%ld of %ld coefficients beyond %.0e of their scale from the reference (worst: cell (%ld, %ld) %s "
                 "%s: %.17g, the reference %.17g)",
                 bad, ref->ncells * DG_NC, DG_TOL, c % in->nx, c / in->nx, VAR[k / DG_NB], COEF[k % DG_NB],
                 res->q[where], ref->q[where]);
        return;
    }
    double tot[DG_NV];
    dg_totals(in, res->q, tot);
    for (int v = 0; v < DG_NV; v++) {
        const double drift = fabs(tot[v] - in->totals0[v]) / fabs(in->totals0[v]);
        if (!(drift <= DG_CONSERVE)) {
            m->status = ST_WRONG;
            snprintf(m->reason, sizeof m->reason, "the integral of %s moved by %.3g relative (at most %.0e): %.17g, was %.17g",
                     VAR[v], drift, DG_CONSERVE, tot[v], in->totals0[v]);
            return;
        }
    }
    if (!(fabs(res->time - ref->time) <= 1e-12 * ref->time)) {
        m->status = ST_WRONG;
        snprintf(m->reason, sizeof m->reason, "the time reached %.17g, the reference's %.17g (the step's reduction)",
                 res->time, ref->time);
        return;
    }
    m->status = ST_OK;
}

int dg_write_output(const struct app_input *in, const struct app_result *res, const char *dir, char *err,
                    size_t errn) {
    if (dir_make_p(dir) != 0) return err_set(err, errn, "%s: cannot create: %s", dir, strerror(errno));
    char path[PATH_MAX];
    str_fmt(path, sizeof path, "%s/cells.dat", dir);
    FILE *f = fopen(path, "w");
    if (!f) return err_set(err, errn, "%s: %s", path, strerror(errno));
    fprintf(f, "# t=%.17g\n", res->time);
    for (long c = 0; c < res->ncells; c++) {
        const double *q = res->q + c * DG_NC;
        fprintf(f, "%.17g %.17g %.17g %.17g %.17g %.17g\n", (c % in->nx + 0.5) * in->dx, (c / in->nx + 0.5) * in->dy,
                q[0], q[DG_NB], q[2 * DG_NB], q[3 * DG_NB]);
    }
    if (fclose(f) != 0) return err_set(err, errn, "%s: cannot write: %s", path, strerror(errno));
    return 0;
}

void dg_result_free(struct app_result *r) {
    if (!r) return;
    free(r->q);
    free(r);
}
