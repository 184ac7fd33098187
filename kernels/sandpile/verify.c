/* Verification against the serial program, bit for bit, and the output files.
 *
 * Tolerance 0, and no argument about rounding is needed: cells are unsigned
 * integers and the rule is shifts, masks and additions (sandpile_rule.h),
 * so every backend's grid after k steps is the serial grid after k steps,
 * exactly. A run is verified when its iteration count equals the serial
 * count and every cell of its final grid equals the serial final grid.
 *
 * The asynchronous rule (rule=async, OpenMP) topples in place, tile by tile:
 * its sweeps are not the synchronous steps, so its count is not compared
 * (it is stored as the result, as the number of sweeps). Its stable grid is:
 * the abelian property says any order of topplings that ends stable ends in
 * the same grid, so it must equal the serial one cell for cell. A capped
 * asynchronous run (--iters) stops mid-way in an order of its own and has
 * nothing to compare: the app refuses it (app.c).
 *
 * max_abs_err is the largest difference of any cell (0 when verified), and
 * max_rel_err that over the largest reference cell. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "sandpile.h"

void sandpile_verify(const struct app_input *in, const struct app_ref *ref, const struct app_result *res,
                     struct measurement *m) {
    const size_t n = (size_t)in->w * (size_t)in->h;
    double worst = 0, scale = 0;
    long where = -1, differ = 0;
    for (size_t i = 0; i < n; i++) {
        const double diff = fabs((double)res->grid[i] - (double)ref->grid[i]);
        if ((double)ref->grid[i] > scale) scale = (double)ref->grid[i];
        if (res->grid[i] != ref->grid[i]) differ++;
        if (diff > worst) {
            worst = diff;
            where = (long)i;
        }
    }
    m->max_abs_err = worst;
    m->max_rel_err = scale > 0 ? worst / scale : worst;
    m->tolerance = 0;
    m->result = (double)res->iters;
    const int count_ok = !res->count_comparable || res->iters == ref->iters;
    if (count_ok && !differ) {
        m->status = ST_OK;
        return;
    }
    m->status = ST_WRONG;
    if (m->max_rel_err == 0) m->max_rel_err = INFINITY; /* a wrong count with an equal grid is wrong too */
    if (!differ) {
        snprintf(m->reason, sizeof m->reason,
                 "the grid equals the serial program's, but %ld iterations were counted where it took %ld", res->iters,
                 ref->iters);
        return;
    }
    snprintf(m->reason, sizeof m->reason,
             "%ld cells differ from the serial program's (largest by %.0f at (%ld, %ld)); %s %ld, the serial "
             "program %ld iterations",
             differ, worst, where % in->w, where / in->w, res->count_comparable ? "iterations" : "sweeps", res->iters,
             ref->iters);
}

int sandpile_write_output(const struct app_input *in, const struct app_result *res, const char *dir, char *err,
                          size_t errn) {
    if (dir_make_p(dir) != 0) return err_set(err, errn, "%s: cannot create: %s", dir, strerror(errno));
    char path[PATH_MAX];
    str_fmt(path, sizeof path, "%s/sandpile.dat", dir);
    FILE *f = fopen(path, "w");
    if (!f) return err_set(err, errn, "%s: %s", path, strerror(errno));
    fprintf(f, "input %s\nwidth %d\nheight %d\n%s %ld\ngrid final_grid.u32\n", in->name, in->w, in->h,
            res->count_comparable ? "iterations" : "sweeps", res->iters);
    fclose(f);
    /* The final grid, row after row, as raw uint32 in the host byte order. */
    str_fmt(path, sizeof path, "%s/final_grid.u32", dir);
    if (file_write_all(path, res->grid, (size_t)in->w * (size_t)in->h * sizeof(unsigned)) != 0)
        return err_set(err, errn, "%s: cannot write", path);
    return 0;
}

void sandpile_result_free(struct app_result *r) {
    if (!r) return;
    free(r->grid);
    free(r);
}
