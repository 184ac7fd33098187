/* One finished measurement of one config: what is stored and printed. */
#ifndef HARNESS_MEASUREMENT_H
#define HARNESS_MEASUREMENT_H

enum status {
    ST_OK,            /* ran and verified */
    ST_WRONG,         /* ran, failed verification (errors stored) */
    ST_INVALID,       /* not run: the reason says why (limits, knobs, shape) */
    ST_COMPILE_ERROR, /* the kernel did not build; the log is the reason */
    ST_RUNTIME_ERROR, /* an API call failed while running */
    ST_TIMEOUT,
    ST_CRASHED,
    ST_UNVERIFIED     /* ran on purpose without verification (empty kernels) */
};
const char *status_name(enum status s);

struct measurement {
    char app[32], input[64], variant[64], knobs[512];
    unsigned wg[2];
    long iters;      /* steps per repetition as run */
    long iters_full; /* the input's own step count; > iters when scaled */
    int warmup;
    enum status status;
    char reason[2048];
    double max_abs_err, max_rel_err, tolerance;
    int nsamples;
    double *samples;        /* end-to-end seconds per repetition (host clock after finish) */
    double *device_samples; /* device-event seconds per repetition */
    double median, q1, q3, device_median;
    double cell_updates;    /* per repetition */
    double mlups, gbs;      /* from the median and the app's cost model */
    double result;          /* the app's headline number (LBM: Reynolds number) */
};

/* Fills median, quartiles, device median, MLUPS and GB/s from the samples;
 * bytes_per_cell comes from the app's cost model. */
void measurement_summarise(struct measurement *m, double bytes_per_cell);
void measurement_free(struct measurement *m);
#endif
