/* Time series of the nightly tracking. A series is one thing measured the
 * same way on the same device: (device fingerprint, app, input, canonical
 * knobs, work-group shape), and the step count, since a time over 300 steps
 * is no level for one over 1000. The fingerprint covers the driver, so a new
 * driver starts a new series rather than a step in an old one. Its samples
 * in a run are the `sample.seconds` of that run's 'ok' measurements.
 * The canary (a device's copy bandwidth, one value a night) is a series too,
 * app "canary", where higher is better. */
#ifndef HARNESS_SERIES_H
#define HARNESS_SERIES_H
#include <stddef.h>
#include <stdint.h>

#include "core/measurement.h"
#include "stats/round_stats.h"

struct store;

struct series_id {
    char key[1024]; /* fingerprint|app|input|knobs|WxH|iters: change_point.series */
    char fp[24], spec[32], device[128];
    char app[32], input[64], variant[64], knobs[KNOBS_TEXT_MAX];
    unsigned wg[2];
    long iters; /* steps per repetition, and warm-ups, as measured */
    int warmup;
    int higher_better; /* the canary: a drop is the regression */
    char kind[16];     /* the device's kind (cpu, gpu, ...) */
};

/* A series' samples within one set of runs (compare), with the run and the
 * round each came from (samples of one run share its machine state, those of
 * one round its worker process) and whether that round was disturbed. */
struct series_samples {
    struct series_id id;
    int n, cap;
    double *v;
    int64_t *run;
    int64_t *meas; /* the measurement: two of one run are two sets of rounds */
    int *round;
    int *disturbed;
};

/* The nights (one per run) of a series' samples, in run order: each from
 * the medians of its rounds, disturbed rounds left out (round_stats.h).
 * Returns how many; *out and *runs (when non-NULL) are malloc'd. */
int series_nights(const struct series_samples *x, struct night_value **out, int64_t **runs);

struct series_list {
    int n, cap;
    struct series_samples *s;
};

/* Every series of the runs in temp.<table>(run_id), sorted by key. 0 or -1 + err. */
int series_load_runs(struct store *s, const char *table, struct series_list *out, char *err, size_t errn);
/* The same by another measure than wall time (measurement.h): its values in
 * place of the seconds; series with none are absent. */
int series_load_runs_by(struct store *s, const char *table, enum measure measure, struct series_list *out, char *err,
                        size_t errn);
void series_list_free(struct series_list *l);

/* One night of a series: its value from the rounds (round_stats.h), and for
 * plots the geometric mean and quartiles of the round medians. */
struct night_point {
    int64_t nightly_id, run_id; /* run_id: the (first) run the samples came from */
    char when[32];              /* the nightly's start, ISO 8601 UTC */
    char commit[48];
    int dirty;
    char build[72]; /* the kept build's content hash, else commit(+dirty) */
    int bad;        /* the night was marked disturbed for this series' device (nightly.quality) */
    int n;          /* samples */
    struct night_value nv;
    double median, q1, q3;
};

struct history {
    struct series_id id;
    int n, cap;
    struct night_point *p; /* ordered by the nightly's start */
};

struct history_list {
    int n, cap;
    struct history *h;
};

/* Every series over every nightly, runs in run_exclusion left out; the
 * canary series from nightly_peak. Sorted by key. 0 or -1 + err. */
int history_load(struct store *s, struct history_list *out, char *err, size_t errn);
/* The same by another measure than wall time, without the canaries. */
int history_load_by(struct store *s, enum measure measure, struct history_list *out, char *err, size_t errn);
void history_list_free(struct history_list *l);

/* "openmp final 32x1 128x128" for tables and plot titles. */
void series_label(const struct series_id *id, char *buf, size_t n);
#endif
