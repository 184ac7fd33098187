/* What `harness publish` reads from a results file opened read-only
 * (store_reader_open_cmd): the devices, the (device, app, input) cases
 * measured, each case's latest verified measurement per variant, and
 * whether the file has nightly tables. */
#ifndef HARNESS_STORE_PUBLISH_H
#define HARNESS_STORE_PUBLISH_H
#include <stddef.h>

#include "store/store.h"

/* A device with at least one measurement. */
struct pub_device {
    const char *fp, *spec, *name, *driver, *vendor, *kind; /* "" when not stored */
    long measurements, ok;
    const char *last; /* the latest measurement's time */
};
/* Devices by spec, then fingerprint. 0, or -1 with err. */
int store_pub_devices(struct store_reader *p, void (*row)(const struct pub_device *d, void *ctx), void *ctx, char *err,
                      size_t errn);

/* One (device, app, input) with verified measurements. */
struct pub_case {
    const char *fp, *spec, *app, *input;
    long ok;          /* verified measurements */
    int variants;     /* distinct variants verified */
    int max_shapes;   /* the most shapes one variant was verified at: > 1 is a sweep */
    const char *last; /* the latest verified measurement's time */
};
/* By app, input, spec, fingerprint. 0, or -1 with err. */
int store_pub_cases(struct store_reader *p, void (*row)(const struct pub_case *c, void *ctx), void *ctx, char *err,
                    size_t errn);

/* A variant's latest verified measurement on one device, app and input. */
struct pub_latest {
    const char *variant, *knobs, *commit, *when, *status;
    int wx, wy, dirty;
    long iters, reps, samples;
    double med, q1, q3; /* NAN when not stored */
    double cv;          /* the samples' standard deviation over their mean (NAN under 2 samples) */
};
/* Ordered by median. 0, or -1 with err. */
int store_pub_latest(struct store_reader *p, const char *fp, const char *app, const char *input,
                     void (*row)(const struct pub_latest *r, void *ctx), void *ctx, char *err, size_t errn);

/* 1 when the file has the nightly tables (a `harness nightly` ran on it). */
int store_pub_has_nightly(struct store_reader *p);
#endif
