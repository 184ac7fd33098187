/* What `harness report` and the launch-cost figure read from and write to
 * the results database: the notes a report's probes found, and, read-only
 * (`--from-db`, `harness plot launch-cost`), a stored report's runs, devices,
 * ceilings, launch costs and measurements. Plain rows; the report decides
 * what they mean. */
#ifndef HARNESS_STORE_REPORT_H
#define HARNESS_STORE_REPORT_H
#include <stddef.h>
#include <stdint.h>

#include "backend/backend.h"
#include "store/store.h"

/* Records what a probe found (key, text) with one of a report's runs,
 * replacing an earlier note of that key. 0, or -1 with err. */
int store_report_note_put(struct store *s, int64_t run_id, const char *key, const char *text, char *err, size_t errn);

/* A database opened read-only and never created or migrated: a report drawn
 * again or a plot must not make an empty database, and a sweep may be
 * writing (a busy timeout). */
struct store_reader;
/* NULL with err ("no database at PATH", or "PATH: why") on failure. */
struct store_reader *store_reader_open(const char *path, char *err, size_t errn);
void store_reader_close(struct store_reader *rd);

/* The launch-cost figure's points: the latest run of each device (by
 * fingerprint: a new driver is a new device) that measured launch cost, per
 * launch in microseconds, ordered by device, kind and argument count. */
struct launch_cost_point {
    char spec[64], name[256], kind[16];
    int nargs;
    double median_us, q1_us, q3_us; /* a quartile not stored is the median */
};
/* The number of points (*points, free() it), or -1 with err. */
int store_launch_cost_latest(struct store_reader *rd, struct launch_cost_point **points, char *err, size_t errn);

/* The latest invocation of `harness report ... APP`: its command line and
 * build. 0, or -1 when there is none. */
int store_report_latest(struct store_reader *rd, const char *app, char *command, size_t n, int64_t *build);

/* A build as stored. 0, or -1 when there is no such build. */
struct stored_build {
    char commit[64], compiler[256];
    int dirty;
};
int store_build_get(struct store_reader *rd, int64_t build, struct stored_build *out);

/* The runs of a report's invocation (its command line and build), oldest
 * first: one per device, more when the command ran again. */
struct report_run_row {
    int64_t run_id, device_id;
    char started_at[64];
};
/* The number of runs (*rows, free() it), or -1 with err. */
int store_report_runs(struct store_reader *rd, const char *command, int64_t build, struct report_run_row **rows,
                      char *err, size_t errn);

/* A device as stored (the fields the device table keeps; the rest zero).
 * 0, or -1 when there is no such device. */
int store_device_get(struct store_reader *rd, int64_t device_id, struct device_info *out);

/* The device's latest measured ceilings (0 where not stored). 0, or -1 when
 * it has none. */
int store_peak_latest(struct store_reader *rd, int64_t device_id, double *copy_gbs, double *fp32_gflops);

/* A run's launch costs by argument count: seconds per launch (enqueue). */
struct launch_cost_per_args {
    char kind[16]; /* "buffer", "int" */
    int nargs;
    double seconds;
};
/* The number of rows (*rows, free() it), or -1. */
int store_launch_cost_of_run(struct store_reader *rd, int64_t run_id, struct launch_cost_per_args **rows);

/* A run's measurements in the order they were stored, as far as a report
 * shows them; times NaN where not stored. */
struct measurement_row {
    char input[64], variant[64], status[32], reason[2048], knobs[KNOBS_TEXT_MAX];
    unsigned wg[2];
    long iters, iters_full;
    double median, q1, q3, device_median, cell_updates, mlups, gbs, max_rel_err;
    int reps, warmup;
    char resources[MEASUREMENT_RESOURCES_MAX]; /* "" where none was stored */
};
/* The number of rows (*rows, free() it), or -1. */
int store_measurement_rows(struct store_reader *rd, int64_t run_id, struct measurement_row **rows);

/* The notes stored with a run, at most max of them. The number, or -1. */
struct report_note_row {
    char key[512], text[512];
};
int store_report_notes(struct store_reader *rd, int64_t run_id, struct report_note_row *out, int max);
#endif
