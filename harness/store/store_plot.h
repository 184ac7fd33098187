/* What `harness plot` draws from the store: the work-group sweeps (plot wg,
 * from a file opened read-only) and each nightly series' stored change
 * points (plot nightly). */
#ifndef HARNESS_STORE_PLOT_H
#define HARNESS_STORE_PLOT_H
#include <stddef.h>

#include "store/store.h"

/* plot wg reads a results file read-only (store_reader_open_cmd): it never
 * creates or migrates one. */

/* One bar of a work-group figure. */
struct wg_row {
    const char *fp, *spec, *name, *driver, *input, *variant, *knobs; /* "" when not stored */
    int wx, wy;
    double med, q1, q3; /* the quartiles NAN when not stored */
    long iters;         /* the step count (0 when not stored): one per figure */
};
/* The latest verified ('ok') measurement of each (device fingerprint, input,
 * variant, knobs, shape) of app filt[0], at the step count of that figure's
 * latest measurement, each filter (filt[1] a device spec or
 * fingerprint, filt[2] an input as stored, filt[3] a variant) applying when
 * not NULL; ordered by device, input, variant, knobs, then shape by total
 * size and width, so each figure's rows are together. row() sees each in
 * turn. 0, or -1 with err (the rows before the error were seen). */
int store_wg_rows(struct store_reader *p, const char *const filt[4], void (*row)(const struct wg_row *r, void *ctx),
                  void *ctx, char *err, size_t errn);

/* One bar of a variants chart (plot variants): a device's latest verified
 * measurement of a variant. */
struct variant_row {
    const char *fp, *spec, *name, *variant; /* "" when not stored */
    long iters;
    double med, q1, q3; /* the quartiles NAN when not stored */
};
/* The latest verified measurement of each (device fingerprint, variant) of
 * app at input with `iters` steps (<= 0: the step count of the input's most
 * recent verified measurement, so one chart never mixes step counts), at
 * any shape (the latest wins); ordered by variant, then device. 0, or -1
 * with err. */
int store_variant_rows(struct store_reader *p, const char *app, const char *input, long iters,
                       void (*row)(const struct variant_row *r, void *ctx), void *ctx, char *err, size_t errn);

/* A change point `harness regressions` stored. */
struct series_change_point {
    long long id;
    char night[32], triage[32], direction[16]; /* direction "" when not stored */
    double magnitude;                          /* 0 when not stored */
};
/* The change points of one series (its key), by night: how many (at most max). */
int store_series_change_points(struct store *s, const char *series, struct series_change_point *out, int max);
#endif
