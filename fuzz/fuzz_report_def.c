/* Report definitions (harness/report/report_def.c): tables, rows, runs,
 * published numbers, inputs and shapes. What parses is complete: every
 * table has what its kind needs, quick inputs are inputs, numbers are
 * positive or absent, shapes are shapes. */
#include <math.h>

#include "fuzz.h"
#include "report/report_def.h"

static void check_def(const struct report_def *d) {
    FUZZ_ASSERT(d->app[0] && d->ninputs >= 1 && d->ninputs <= REPORT_MAX_INPUTS, "app and %d inputs", d->ninputs);
    FUZZ_ASSERT(d->nquick >= 1 && d->nquick <= REPORT_MAX_INPUTS, "%d quick inputs", d->nquick);
    for (int i = 0; i < d->nquick; i++)
        FUZZ_ASSERT(report_input_index(d, d->quick[i]) >= 0, "quick input %s is an input", d->quick[i]);
    FUZZ_ASSERT(d->wg[0] >= 1 && d->wg[1] >= 1, "wg %ux%u", d->wg[0], d->wg[1]);
    FUZZ_ASSERT(d->nshapes >= 0 && d->nshapes <= REPORT_MAX_SHAPES, "%d shapes", d->nshapes);
    for (int i = 0; i < d->nshapes; i++)
        FUZZ_ASSERT(d->shapes[i][0] >= 1 && d->shapes[i][1] >= 1, "shape %ux%u", d->shapes[i][0], d->shapes[i][1]);
    FUZZ_ASSERT(d->ntables >= 0 && d->ntables <= REPORT_MAX_TABLES, "%d tables", d->ntables);
    FUZZ_ASSERT(d->rate_factor == 0 || (isfinite(d->rate_factor) && d->rate_factor > 0), "rate factor %g",
                d->rate_factor);
    FUZZ_ASSERT(d->nladder >= 0 && d->nladder <= REPORT_MAX_LADDER && (d->ladder_figure || !d->nladder),
                "%d ladder steps", d->nladder);
    for (int t = 0; t < d->ntables; t++) {
        const struct report_table *tb = &d->tables[t];
        FUZZ_ASSERT(tb->number >= 1 && tb->number <= 999, "table number %d", tb->number);
        FUZZ_ASSERT(report_kind_name(tb->kind), "table %d's kind", tb->number);
        FUZZ_ASSERT(tb->nrows >= 0 && tb->nrows <= REPORT_MAX_ROWS && tb->nclasses >= 0 && tb->nclasses <= 4,
                    "table %d: %d rows, %d classes", tb->number, tb->nrows, tb->nclasses);
        if (tb->kind == RK_STEP || tb->kind == RK_SPEEDUP) FUZZ_ASSERT(tb->nrows, "table %d has rows", tb->number);
        if (tb->kind == RK_CLASSES || tb->kind == RK_DEVICES || tb->kind == RK_HOSTLANG)
            FUZZ_ASSERT(tb->variant[0], "table %d runs something", tb->number);
        FUZZ_ASSERT(tb->nprograms >= 0 && tb->nprograms <= (tb->kind == RK_OPENACC ? 4 : REPORT_MAX_PROGRAMS),
                    "table %d: %d programs", tb->number, tb->nprograms);
        if (tb->kind == RK_RESOURCES) FUZZ_ASSERT(tb->nprograms, "table %d lists variants", tb->number);
        if (tb->against[0]) FUZZ_ASSERT(tb->kind == RK_OPENACC, "table %d: against on an openacc table", tb->number);
        for (int r = 0; r < tb->nrows; r++)
            for (int i = 0; i < d->ninputs; i++) {
                const double v = tb->rows[r].published[i];
                FUZZ_ASSERT(isnan(v) || (isfinite(v) && v > 0), "table %d row %d: %g", tb->number, r, v);
            }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *copy, err[1024] = "";
    FILE *f = fuzz_stream(data, size, &copy);
    static struct report_def d; /* 60 KB: not on the stack */
    int rc = report_def_read(f, "in.def", &d, err, sizeof err);
    fclose(f);
    free(copy);
    if (rc) FUZZ_ASSERT(fuzz_names_line(err, "in.def"), "message '%s'", err);
    else check_def(&d);
    return 0;
}
