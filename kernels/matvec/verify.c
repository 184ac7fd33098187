/* Verification against the serial reference, and the output files.
 *
 * Tolerance. Each lhs dof is a sum of T terms: its initial value and, per
 * product, the 8 products matrix * x of every row that writes it (a vertex
 * dof is written by up to 4 cells, so T <= 1 + 32 iters; reference.c counts
 * the largest T of the input). The variants add the same terms in other
 * orders (the atomics of the collapsed and masked kernels take the cells in
 * whatever order they arrive; the temp form sums in memory) and a compiler
 * may contract a*b + s into one fused multiply-add. For any order of a sum
 * of T terms, with or without contraction, the computed value differs from
 * the exact one by at most gamma_T * S, where S is the sum of the terms'
 * magnitudes and gamma_T = T u / (1 - T u), u = 2^-53 (Higham, Accuracy and
 * Stability of Numerical Algorithms, 2nd ed., section 3.1; a product's own
 * rounding is inside the same bound). The reference obeys it too, so two
 * correct computations differ by at most 2 gamma_T S per dof. The check is
 * exactly that: |device - reference| / S <= 2 gamma_T for every dof, with
 * S from reference.c. At T = 33 (one product) the tolerance is 7.3e-15.
 * No correct variant can fail it; a missed term (a dropped df2, a skipped
 * colour or cell, a lost atomic update) moves a dof by a whole term, about
 * S / T, twelve orders of magnitude more.
 *
 * max_abs_err is the largest |device - reference|, max_rel_err the largest
 * of that over S (what the tolerance bounds). result is the 2-norm of lhs. */
#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "matvec.h"

void matvec_verify(const struct app_input *in, const struct app_ref *ref, const struct app_result *res,
                   struct measurement *m) {
    const double u = DBL_EPSILON / 2, tu = ref->terms * u;
    const double tol = 2 * tu / (1 - tu);
    double worst_abs = 0, worst_rel = 0, norm = 0;
    long where = -1, bad = 0;
    for (long i = 0; i < ref->ndofs; i++) {
        const double diff = fabs(res->lhs[i] - ref->lhs[i]);
        const double rel = isnan(diff) ? INFINITY : ref->bound[i] > 0 ? diff / ref->bound[i] : diff > 0 ? INFINITY : 0;
        norm += res->lhs[i] * res->lhs[i];
        worst_abs = isnan(diff) ? INFINITY : fmax(worst_abs, diff);
        if (rel > tol) bad++;
        if (rel > worst_rel || where < 0) {
            worst_rel = rel;
            where = i;
        }
    }
    m->max_abs_err = worst_abs;
    m->max_rel_err = worst_rel;
    m->tolerance = tol;
    m->result = sqrt(norm);
    if (!bad) {
        m->status = ST_OK;
        return;
    }
    m->status = ST_WRONG;
    const long column = where / in->nl;
    snprintf(m->reason, sizeof m->reason,
             "%ld of %ld lhs dofs beyond the tolerance %.2g (largest error over the terms' magnitudes %.3g: dof "
             "column %ld (vertex %ld, component %ld), layer %ld: %.17g, the reference %.17g)",
             bad, ref->ndofs, tol, worst_rel, column, column / 2, column % 2, where % in->nl, res->lhs[where],
             ref->lhs[where]);
}

int matvec_write_output(const struct app_input *in, const struct app_result *res, const char *dir, char *err,
                        size_t errn) {
    if (dir_make_p(dir) != 0) return err_set(err, errn, "%s: cannot create: %s", dir, strerror(errno));
    char path[PATH_MAX];
    str_fmt(path, sizeof path, "%s/matvec.dat", dir);
    FILE *f = fopen(path, "w");
    if (!f) return err_set(err, errn, "%s: %s", path, strerror(errno));
    fprintf(f, "input %s\ncells %ld\nlayers %d\ndofs %ld\nproducts %ld\nlhs lhs.f64\n", in->name, in->ncells, in->nl,
            res->ndofs, in->iters);
    fclose(f);
    /* lhs after the run, dof column after column, raw float64 in host order. */
    str_fmt(path, sizeof path, "%s/lhs.f64", dir);
    if (file_write_all(path, res->lhs, (size_t)res->ndofs * sizeof(double)) != 0)
        return err_set(err, errn, "%s: cannot write", path);
    return 0;
}

void matvec_result_free(struct app_result *r) {
    if (!r) return;
    free(r->lhs);
    free(r);
}
