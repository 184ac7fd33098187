/* What `harness export` reads: every stored measurement with its context
 * (host, device, build, config), filtered, oldest first; the devices and
 * hosts they ran on; each measurement's samples. The file is opened
 * read-only: exporting must not create or migrate anything, so this is a
 * connection of its own rather than a struct store. Rows come one at a time
 * as typed values; the command formats them (CSV, T4 JSON). */
#ifndef HARNESS_STORE_EXPORT_H
#define HARNESS_STORE_EXPORT_H
#include <stdint.h>

/* A results database opened read-only for exporting. */
struct store_reader;
/* The rows of one read, stepped through with store_export_next. */
struct export_rows;

/* What to export: NULL matches everything. device is a spec or a fingerprint. */
struct export_filter {
    const char *app, *device, *input, *variant;
};

/* One column of a row, with SQLite's storage class. i and d hold the value
 * read as an integer and as a double whatever its kind; s its text (NULL
 * for NULL), valid until the next store_export_next. */
enum export_kind { EXPORT_NULL, EXPORT_INT, EXPORT_REAL, EXPORT_TEXT };
struct export_value {
    enum export_kind kind;
    int64_t i;
    double d;
    const char *s;
};

/* The columns of store_export_measurements, in order (their names are the
 * CSV header). */
enum export_column {
    X_ID,
    X_WHEN,
    X_HOST,
    X_DEVICE,
    X_NAME,
    X_FP,
    X_DRIVER,
    X_BACKEND,
    X_COMMIT,
    X_DIRTY,
    X_APP,
    X_INPUT,
    X_VARIANT,
    X_KNOBS,
    X_WGX,
    X_WGY,
    X_STATUS,
    X_REASON,
    X_ITERS,
    X_ITERS_FULL,
    X_SCALED,
    X_REPS,
    X_MEDIAN,
    X_Q1,
    X_Q3,
    X_DEVMED,
    X_MLUPS,
    X_GBS,
    X_RELERR,
    X_RESULT,
    X_ENERGY, /* joules per repetition, where the device reports it; NULL elsewhere */
    X_POWER,  /* mean watts over the timed repetitions; NULL likewise */
    X_TUNED,  /* 1: what the tuned table holds for its device, app and input (knobs or variant, and shape) */
    X_RESOURCES, /* "kernel:registers:local_bytes ..." where the backend reports them (CUDA, GPU offload); NULL elsewhere */
    X_COUNT
};
/* The most columns any read here has. */
#define EXPORT_MAX_COLUMNS X_COUNT

/* Every read takes a read-only file (store_reader_open_cmd in store.h). */

/* The matching measurements, oldest (lowest id) first, columns as in enum
 * export_column. NULL when the file is no harness results database. */
struct export_rows *store_export_measurements(struct store_reader *x, const struct export_filter *f);
/* The distinct devices of the matching measurements (spec, name, vendor,
 * driver, backend, fingerprint) and hosts (hostname, os, cpu), by the first. */
struct export_rows *store_export_devices(struct store_reader *x, const struct export_filter *f);
struct export_rows *store_export_hosts(struct store_reader *x, const struct export_filter *f);
/* The tuned table's rows for the filter (the variant filter matches the
 * row's variant; TUNED_VARIANT rows are configurations): fingerprint, spec
 * (NULL when no device row has it), app, input, variant, wg_x, wg_y, knobs,
 * config, objective, strategy, evaluations, search_s, energy_j, median_s,
 * margin, noise, samples, tie, decided_at. NULL when the file has no tuned
 * table. */
enum export_tuned_column {
    XT_FP,
    XT_SPEC,
    XT_APP,
    XT_INPUT,
    XT_VARIANT,
    XT_WGX,
    XT_WGY,
    XT_KNOBS,
    XT_CONFIG,
    XT_OBJECTIVE,
    XT_STRATEGY,
    XT_EVALS,
    XT_SEARCH,
    XT_ENERGY,
    XT_MEDIAN,
    XT_MARGIN,
    XT_NOISE,
    XT_SAMPLES,
    XT_TIE,
    XT_DECIDED,
    XT_COUNT
};
struct export_rows *store_export_tuned(struct store_reader *x, const struct export_filter *f);
/* A measurement's samples (rep, seconds, device_seconds) in rep order. */
struct export_rows *store_export_samples(struct store_reader *x, int64_t measurement_id);

int store_export_columns(const struct export_rows *r);
const char *store_export_column_name(const struct export_rows *r, int i);
/* 1 with row[0 .. columns) filled, 0 after the last row, -1 on an error. */
int store_export_next(struct export_rows *r, struct export_value *row);
void store_export_rows_close(struct export_rows *r);
#endif
