/* The rows behind nightly tracking's series (track/series.h): the samples of
 * a set of runs, every nightly's samples, and every nightly's canary. Rows
 * arrive one at a time through a callback, grouped and sorted by the series'
 * key (built in SQL); series.c cuts the groups. Text fields are "" for NULL
 * and live only during the call. */
#ifndef HARNESS_STORE_SERIES_H
#define HARNESS_STORE_SERIES_H
#include <stddef.h>
#include <stdint.h>

#include "core/measurement.h"

struct store;

/* What names a series: key is fingerprint|app|input|knobs|WxH|iters. */
struct store_series_key {
    const char *key, *fp, *spec, *device, *app, *input, *variant, *knobs;
    const char *kind; /* the device's: cpu, gpu, ... */
    unsigned wg[2];
    long iters;
    int warmup;
};

/* One sample of an 'ok' measurement, with its run, measurement and round, and
 * whether the round was disturbed. `seconds` is the value of the measure
 * asked for (measurement.h): wall seconds, CPU seconds, cycles or
 * instructions; samples without it are left out. */
struct store_run_sample {
    struct store_series_key id;
    double seconds;
    int64_t run_id, measurement_id;
    int round, disturbed;
};
typedef void (*store_run_sample_fn)(const struct store_run_sample *r, void *ctx);

/* The samples of the runs in temp.<table>(run_id), by key, run, measurement,
 * round and repetition. 0, or -1 with err. */
int store_run_samples(struct store *s, const char *table, enum measure measure, store_run_sample_fn fn, void *ctx,
                      char *err, size_t errn);

/* One sample of a nightly's run, with the night: its start, the run's commit,
 * its build (the kept build's hash, else commit(+dirty)) and whether the night
 * was marked bad (nightly.quality not 'ok'). */
struct store_night_sample {
    struct store_series_key id;
    int64_t nightly_id, run_id, measurement_id;
    const char *started_at, *commit, *build;
    int dirty, bad, round, disturbed;
    double seconds;
};
typedef void (*store_night_sample_fn)(const struct store_night_sample *r, void *ctx);

/* Every nightly's samples, runs in run_exclusion left out, by key, start,
 * nightly, run, measurement, round and repetition. 0, or -1 with err. */
int store_nightly_samples(struct store *s, enum measure measure, store_night_sample_fn fn, void *ctx, char *err,
                          size_t errn);

/* One canary of a nightly: a device's copy bandwidth, with the commit of the
 * nightly's first run. */
struct store_night_canary {
    const char *fp, *spec, *device, *started_at, *commit;
    int64_t nightly_id;
    int dirty;
    double copy_gbs;
};
typedef void (*store_night_canary_fn)(const struct store_night_canary *r, void *ctx);

/* Every nightly's canaries (copy_gbs > 0), by fingerprint, start, nightly and
 * peak. 0, or -1 with err. */
int store_canary_history(struct store *s, store_night_canary_fn fn, void *ctx, char *err, size_t errn);
#endif
