/* Running configs: the part every command that measures shares. A config is
 * app x input x knob setting x work-group shape; the runner checks it is
 * valid on the device, runs it through the app, verifies it against the
 * reference and summarises the samples. It knows no app by name. */
#ifndef HARNESS_RUNNER_H
#define HARNESS_RUNNER_H
#include <stdio.h>

#include "core/app.h"
#include "core/measurement.h"
#include "core/variants.h"

struct worker_pool;
struct job;

struct config {
    const struct app *app;
    const struct app_input *in;
    const struct app_opts *source; /* how `in` was loaded: a worker loads it again */
    char variant[64];
    struct knob_set knobs;
    unsigned wg[2];
};

/* The reference is computed on first use and kept for every later config. */
struct ref_holder {
    const struct app *app;
    const struct app_input *in;
    struct app_ref *ref;
};

/* Fills m for one config on an open device. When keep is non-NULL the
 * device's result is handed back (for --out); otherwise it is freed. */
void runner_measure(struct dev *d, const struct config *c, struct ref_holder *refs, int warmup, int reps,
                    struct measurement *m, struct app_result **keep);
/* The same, isolated: the config runs in a worker process under a watchdog
 * of timeout_s (worker.h), so a crash or a hang costs this row only. The
 * reference is computed here first (and cached), outside the watchdog. */
/* The serial reference under a watchdog (apps that keep it on disk: a child
 * process makes it, the caller then loads it). 0 when the caller may make
 * or load it now; -1 when it outlived timeout_s (or was interrupted), with
 * m's status and reason set; the caller leaves it to the workers, whose
 * watchdog then costs each config one timeout row. */
int runner_reference_watched(const struct app *app, const struct app_input *in, double timeout_s,
                             struct measurement *m);
void runner_measure_isolated(struct worker_pool *pool, const struct device_info *dev, const struct config *c,
                             struct ref_holder *refs, int warmup, int reps, double timeout_s, struct measurement *m);
/* The worker's job for a config on a device (reps per worker process). */
void runner_job(const struct config *c, const struct device_info *dev, int warmup, int reps, struct job *j);
/* Describes the config in m (app, input, variant, knobs, wg). */
void runner_describe(const struct config *c, struct measurement *m);
/* One line: device, variant, shape, status, median, spread, MLUPS, GB/s and
 * % of the device's measured peak (when known), the app's result, the
 * energy per repetition and mean power (when measured). */
void runner_print(FILE *out, const struct device_info *dev, const struct measurement *m, double peak_gbs);

/* "32x1" -> {32, 1}: two whole numbers in 1..WG_MAX_EXTENT in decimal
 * digits around an 'x' (space allowed around the shape, not inside it).
 * 0, or -1 with wg untouched. The limit is far past any device's, and
 * keeps W*H (2^40 at most) within 64 bits. */
#define WG_MAX_EXTENT 1048576
int wg_parse(const char *text, unsigned wg[2]);
/* A default shape: the report's 32x1, narrowed until it divides the grid. */
void wg_default(const struct app *app, const struct app_input *in, unsigned wg[2]);
#endif
