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
    ST_UNVERIFIED /* ran on purpose without verification (empty kernels) */
};
const char *status_name(enum status s);

/* What a repetition is measured by: its wall time, and on CPUs the counters
 * a busy host moves less (cpu_counters.h). Beyond the wall time they are
 * m->counters[measure - 1]. */
/* MEASURE_DEVICE is the device events' time of each repetition
 * (sample.device_seconds; struct measurement's device_samples), where the
 * backend has events: not a host counter, so it sits after them. */
enum measure { MEASURE_WALL, MEASURE_CPU, MEASURE_CYCLES, MEASURE_INSTRUCTIONS, MEASURE_DEVICE, MEASURE_N };
/* The host counters (CPU time, cycles, instructions): counters[measure - 1]. */
#define MEASURE_COUNTERS (MEASURE_INSTRUCTIONS - MEASURE_WALL)
const char *measure_name(enum measure k);   /* wall, cpu, cycles, instructions, device */
const char *measure_column(enum measure k); /* the sample table's column */

/* The size of a buffer holding a canonical knob string with its NUL
 * (knobs.h: knobs_canonical, "layout=soa,kernels=fused,..."): a config's
 * identity, in a measurement, a worker's job, the database's rows and the
 * tuners' plans alike. Here, the one header every holder of such a string
 * includes. */
#define KNOBS_TEXT_MAX 1024
/* The room for a measurement's per-kernel resources: DEV_RESOURCES_MAX of
 * backend/backend.h (runner.c checks they agree). */
#define MEASUREMENT_RESOURCES_MAX 1024

struct measurement {
    char app[32], input[64], variant[64], knobs[KNOBS_TEXT_MAX];
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
    int *sample_round;      /* the round each sample came from; NULL: all from round 0 */
    /* CPU seconds, cycles, instructions per repetition (NAN unknown; NULL:
     * none taken), on the host thread and the threads it started. */
    double *counters[MEASURE_COUNTERS];
    int rounds;             /* rounds planned (each a fresh worker process); 0 counts as 1 */
    int rounds_done;        /* rounds whose samples are in; 0 counts as 1 */
    double median, q1, q3, device_median;
    double cell_updates; /* per repetition */
    double mlups, gbs;   /* from the median and the app's cost model */
    double result;       /* the app's headline number (LBM: Reynolds number) */
    /* The energy the device's board drew over the timed repetitions
     * (core/timed.h): joules per repetition, and the mean watts. NAN where
     * unknown: no meter, or a window too short for the counter. */
    double energy_j, power_w;
    int energy_reps; /* the repetitions energy_j covers: its weight when rounds combine */
    /* Every repetition's result summed and compared with the first's
     * (timed.h: timed_check): the first that differed (1-based, warm-ups
     * counted) and the two sums, first's first; 0 when all agreed or none
     * was compared. The runner makes such a config wrong. */
    int rep_differs;
    double rep_sums[2];
    /* Registers and local memory of each kernel the config loaded, as its
     * backend learnt them (backend.h: struct dev's resources, the same
     * text): "kernel:registers:local_bytes ...", "" where the backend has
     * no such query. */
    char resources[MEASUREMENT_RESOURCES_MAX];
};

/* Marks every number of m unknown (NAN; energy_reps 0), before anything is
 * measured: a zeroed measurement would claim zero seconds, errors, joules. */
void measurement_unknown(struct measurement *m);

/* After verify() judged the last repetition ok: wrong all the same when an
 * earlier one's result summed to another (rep_differs, timed.h), with the
 * repetition and both sums as the reason. Repetitions that compute
 * different things are not a measurement of one program. */
void measurement_check_repetitions(struct measurement *m);

/* Fills median, quartiles, device median, MLUPS and GB/s from the samples;
 * bytes_per_cell comes from the app's cost model. */
void measurement_summarise(struct measurement *m, double bytes_per_cell);
void measurement_free(struct measurement *m);

/* Adds one round's outcome (r, as a worker returned it) to acc, the config's
 * measurement over all its rounds: the samples, tagged with `round`; the
 * largest errors; the status when the round failed (its reason prefixed with
 * the round); the energy, as the total over every round that has one (joules
 * per repetition weighted by repetitions, watts as total joules over total
 * seconds), so a round the counter could not measure weighs nothing.
 * acc->rounds_done becomes round + 1. */
void measurement_add_round(struct measurement *acc, const struct measurement *r, int round);
/* The median of each round's samples, in round order, into out (room for
 * m->nsamples values); returns how many rounds had samples. */
int measurement_round_medians(const struct measurement *m, double *out);
#endif
