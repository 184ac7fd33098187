/* The mat-vec app's host side: size parsing, the generated mesh (colour
 * sizes, the colouring's promise, the dof map), the serial reference against
 * an independent long-double computation inside the rounding bound the
 * tolerance rests on, and verify() deciding ok and wrong at the tolerance's
 * edge (a perturbation of half the tolerance passes, twice fails, NaN fails). */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../kernels/matvec/matvec.h"
#include "base/util.h"
#include "check.h"

static struct app_input *load(const char *name) {
    struct app_opts o = {.input = name};
    char err[256] = "";
    struct app_input *in = matvec_input_load(&o, err, sizeof err);
    CHECK(in != NULL, "load %s%s%s", name, in ? "" : ": ", err);
    return in;
}

static void test_parse(void) {
    int nx, ny, nl;
    char err[256];
    CHECK(!matvec_parse_size("162x81x40", &nx, &ny, &nl, err, sizeof err) && nx == 162 && ny == 81 && nl == 40,
          "162x81x40 parses");
    CHECK(!matvec_parse_size("gen:30x20", &nx, &ny, &nl, err, sizeof err) && nx == 30 && ny == 20 && nl == 40,
          "gen:30x20 is 40 layers");
    const char *bad[] = {"12x8",   "gen:3x1", "gen:2x5", "gen:5x5x0",    "5x5x5x5",         "gen:x5", "5xx5x5",
                         " 5x5x5", "5x5x5 ",  "+5x5x5",  "gen:5x5x4097", "gen:8192x8192x1", ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK(matvec_parse_size(bad[i], &nx, &ny, &nl, err, sizeof err) != 0 && strstr(err, "matvec input '"),
              "'%s' is refused: %s", bad[i], err);
}

static void test_mesh(void) {
    struct app_input *in = load("gen:162x81x1");
    if (in) {
        const int want[6] = {2214, 2214, 2214, 2160, 2160, 2160};
        CHECK(!memcmp(in->ncp, want, sizeof want) && in->ncp_max == 2214 && in->ncells == 13122,
              "162x81: colours of 2214 x3 and 2160 x3 cells, 13122 in all");
        matvec_input_free(in);
    }
    in = load("gen:31x7x13");
    if (!in) return;
    const int want[6] = {44, 40, 40, 33, 30, 30};
    CHECK(!memcmp(in->ncp, want, sizeof want), "31x7: colours of 44, 40, 40, 33, 30, 30 cells");
    CHECK(in->ndofs == 2L * 32 * 8 * 13, "31x7x13: 2 x 32 x 8 dof columns of 13 (%ld dofs)", in->ndofs);
    /* Every pair of cells sharing a vertex has two colours, and shares the
     * vertex's two dof columns through the map. */
    int clash = 0, shared_ok = 1;
    for (int j = 0; j < 7; j++)
        for (int i = 0; i < 31; i++)
            for (int dj = -1; dj <= 1; dj++)
                for (int di = -1; di <= 1; di++) {
                    const int i2 = i + di, j2 = j + dj;
                    if ((!di && !dj) || i2 < 0 || j2 < 0 || i2 >= 31 || j2 >= 7) continue;
                    clash += matvec_colour_of(i, j) == matvec_colour_of(i2, j2);
                    int common = 0;
                    for (int a = 0; a < MV_NDF; a++)
                        for (int b = 0; b < MV_NDF; b++)
                            common += in->map[(i + 31 * j) * MV_NDF + a] == in->map[(i2 + 31 * j2) * MV_NDF + b];
                    /* a corner neighbour shares 1 vertex (2 dofs), a side neighbour 2 (4) */
                    if (common != (di && dj ? 2 : 4)) shared_ok = 0;
                }
    CHECK(clash == 0, "no two vertex neighbours share a colour (%d clashes)", clash);
    CHECK(shared_ok, "side neighbours share 4 dof columns, corner neighbours 2");
    matvec_input_free(in);
}

/* lhs0 + iters * A x in long double, cells in mesh order, df2 outermost:
 * another order and 64-bit mantissas, against which the reference must stay
 * within gamma_T S (one computation's share of the tolerance). */
static void test_reference(void) {
    struct app_opts o = {.input = "gen:31x7x13", .iters = 2};
    char err[256];
    struct app_input *in = matvec_input_load(&o, err, sizeof err);
    struct app_ref *ref = in ? matvec_reference(in, err, sizeof err) : NULL;
    CHECK(ref != NULL, "reference of 31x7x13, 2 products");
    if (!ref) {
        matvec_input_free(in);
        return;
    }
    CHECK(ref->terms == 1 + 2 * 32, "the longest sum is 65 terms (%d)", ref->terms);
    long double *y = calloc((size_t)in->ndofs, sizeof *y);
    for (long cell = 0; cell < in->ncells; cell++)
        for (int df2 = 0; df2 < MV_NDF; df2++)
            for (int k = 0; k < in->nl; k++)
                for (int df = 0; df < MV_NDF; df++) {
                    const int *map = in->map + cell * MV_NDF;
                    const double a = in->matrix[((cell * in->nl + k) * MV_NDF + df2) * MV_NDF + df];
                    y[map[df] + k] += (long double)a * in->x[map[df2] + k];
                }
    const double u = DBL_EPSILON / 2, gamma = ref->terms * u / (1 - ref->terms * u);
    double worst = 0;
    for (long i = 0; i < in->ndofs; i++) {
        const long double exact = in->lhs0[i] + 2 * y[i];
        worst = fmax(worst, (double)fabsl(ref->lhs[i] - exact) / ref->bound[i]);
    }
    CHECK(worst <= gamma && worst > 0, "reference within gamma_T S of a long-double sum (%.3g, gamma_T %.3g)", worst,
          gamma);
    free(y);

    /* verify(): itself, half the tolerance, twice, NaN. */
    struct app_result res = {.ndofs = ref->ndofs, .lhs = malloc((size_t)ref->ndofs * sizeof(double))};
    struct measurement m;
    memcpy(res.lhs, ref->lhs, (size_t)ref->ndofs * sizeof(double));
    memset(&m, 0, sizeof m);
    matvec_verify(in, ref, &res, &m);
    CHECK(m.status == ST_OK && m.max_abs_err == 0 && fabs(m.tolerance - 2 * gamma) < 1e-30,
          "the reference itself verifies, tolerance 2 gamma_65 = %.3g", m.tolerance);
    const long at = ref->ndofs / 3;
    res.lhs[at] = ref->lhs[at] + 0.5 * m.tolerance * ref->bound[at];
    memset(&m, 0, sizeof m);
    matvec_verify(in, ref, &res, &m);
    CHECK(m.status == ST_OK, "a dof off by half the tolerance verifies (%.3g)", m.max_rel_err);
    res.lhs[at] = ref->lhs[at] + 2 * m.tolerance * ref->bound[at];
    memset(&m, 0, sizeof m);
    matvec_verify(in, ref, &res, &m);
    CHECK(m.status == ST_WRONG && strstr(m.reason, "1 of "), "a dof off by twice the tolerance is wrong: %s", m.reason);
    res.lhs[at] = NAN;
    memset(&m, 0, sizeof m);
    matvec_verify(in, ref, &res, &m);
    CHECK(m.status == ST_WRONG && isinf(m.max_rel_err), "a NaN is wrong (%g)", m.max_rel_err);
    free(res.lhs);
    matvec_ref_free(ref);
    matvec_input_free(in);
}

int main(void) {
    test_parse();
    test_mesh();
    test_reference();
    CHECK_DONE();
}
