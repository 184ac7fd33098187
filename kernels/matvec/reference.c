/* The serial reference: the blog's loop nest as written, colour by colour,
 * cell by cell, layer by layer, one row (mv_row, matvec_cell.h) at a time,
 * `iters` times over; and, per dof, the bound verify.c's tolerance scales:
 * the sum of the magnitudes of every term that dof's value adds up. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "matvec.h"

void matvec_serial_once(const struct app_input *in, double *lhs) {
    const int nl = in->nl;
    for (int c = 0; c < MV_COLOURS; c++)
        for (int n = 0; n < in->ncp[c]; n++) {
            const long cell = in->cmap[(size_t)c * (size_t)in->ncp_max + (size_t)n];
            const int *map = in->map + cell * MV_NDF;
            for (int k = 0; k < nl; k++)
                for (int df = 0; df < MV_NDF; df++) lhs[map[df] + k] += mv_row(in->matrix, in->x, map, cell, nl, df, k);
        }
}

/* sum |matrix * x| over one product's terms into bound (the same terms in
 * any order: no rounding question worth a tolerance of its own). */
static void abs_terms(const struct app_input *in, double *bound, int *count) {
    const int nl = in->nl;
    for (long cell = 0; cell < in->ncells; cell++) {
        const int *map = in->map + cell * MV_NDF;
        for (int k = 0; k < nl; k++)
            for (int df = 0; df < MV_NDF; df++) {
                const double *a = in->matrix + (cell * nl + k) * (MV_NDF * MV_NDF) + df;
                double s = 0;
                for (int df2 = 0; df2 < MV_NDF; df2++) s += fabs(a[MV_NDF * df2] * in->x[map[df2] + k]);
                bound[map[df] + k] += s;
                count[map[df] + k] += MV_NDF;
            }
    }
}

struct app_ref *matvec_reference(const struct app_input *in, char *err, size_t errn) {
    (void)err;
    (void)errn;
    const size_t n = (size_t)in->ndofs;
    struct app_ref *r = xcalloc(1, sizeof *r);
    r->ndofs = in->ndofs;
    r->lhs = xcalloc(n, sizeof(double));
    r->bound = xcalloc(n, sizeof(double));
    memcpy(r->lhs, in->lhs0, n * sizeof(double));
    for (long it = 0; it < in->iters; it++) matvec_serial_once(in, r->lhs);
    int *count = xcalloc(n, sizeof(int));
    abs_terms(in, r->bound, count);
    int most = 0;
    for (size_t i = 0; i < n; i++) {
        r->bound[i] = fabs(in->lhs0[i]) + (double)in->iters * r->bound[i];
        if (count[i] > most) most = count[i];
    }
    free(count);
    r->terms = 1 + (int)(in->iters * most);
    return r;
}

void matvec_ref_free(struct app_ref *r) {
    if (!r) return;
    free(r->lhs);
    free(r->bound);
    free(r);
}
