/* The app interface: everything the core needs to build, run, verify and
 * cost one application. The core holds no app-specific code; each app is a
 * folder under kernels/ whose app.c defines `const struct app app_<name>`. */
#ifndef HARNESS_APP_H
#define HARNESS_APP_H
#include <stddef.h>

#include "backend/backend.h"
#include "core/knobs.h"
#include "core/measurement.h"

/* Options the command line passes through to an app, untouched by the core. */
struct app_opts {
    const char *input;  /* a shipped input name ("128x128") or a generated size ("gen:300x200") */
    const char *params; /* explicit input files (LBM: params + obstacles) */
    const char *obstacles;
    long iters;          /* > 0 overrides the input's step count */
    const char *out_dir; /* write the app's output files here */
};

struct app_input;  /* the app's own problem data */
struct app_ref;    /* the app's own reference results */
struct app_result; /* what a device run produced, for verification */

struct app {
    const char *name;
    const char *description;
    const struct knob_def *knobs; /* terminated by a {NULL} entry */
    /* `harness verify`: the input and step count of the shortened run. */
    const char *verify_input;
    long verify_iters;
    /* verify's watchdog when --timeout is not given; 0: CONFIG_TIMEOUT_S.
     * The failure drills hang on purpose: they ask for seconds, not minutes. */
    double verify_timeout_s;
    /* What measurement.result means, as printed ("Re" for LBM). */
    const char *result_label;
    /* Loads or generates the input; on bad input fills err as "file:line: what"
     * and returns NULL. */
    struct app_input *(*input_load)(const struct app_opts *o, char *err, size_t errn);
    void (*input_free)(struct app_input *in);
    /* A short name for the input as stored ("128x128"), and the size of one
     * repetition's work. */
    const char *(*input_name)(const struct app_input *in);
    long (*input_iters)(const struct app_input *in);      /* as run */
    long (*input_iters_full)(const struct app_input *in); /* the input's own count */
    double (*cell_updates)(const struct app_input *in);   /* per repetition */
    /* (optional) `--time T`: the name of the input (NULL: the app's
     * default) that runs to time t instead of a count of steps, written
     * into out (n bytes); 0, or -1 with err filled. Apps without it run
     * steps only, and --time is refused for them. */
    int (*input_at_time)(const char *input, double t, char *out, size_t n, char *err, size_t errn);
    /* (optional) The work-group of run and verify when none is given, for
     * an app whose launches round the grid up and guard its edge (any shape
     * fits any grid); {0, 0}: 32x1, halved until it divides the grid's width. */
    unsigned default_wg[2];
    /* The grid extent that work-group shapes tile. */
    void (*grid)(const struct app_input *in, size_t g[2]);
    /* Why a knob setting cannot run with this input on this device: NULL
     * when valid, else the reason, a constant text or one written into the
     * caller's why (n bytes; ERR_MAX holds any). It keeps no state, so
     * threads may ask at once; a caller that keeps the reason copies it
     * before it asks again with the same buffer. */
    const char *(*invalid)(const struct knob_set *k, const struct app_input *in, const struct device_info *dev,
                           const unsigned wg[2], char *why, size_t n);
    /* Cost model: bytes and flops per cell update, for GB/s and the
     * roofline. An app may count them for this knob setting or, as LBM's
     * effective bandwidth does, one model for every setting (the app's
     * comment says which). */
    double (*bytes_per_cell)(const struct knob_set *k);
    double (*flops_per_cell)(const struct knob_set *k);
    /* 1: run lines print GFLOP/s by flops_per_cell beside the effective
     * GB/s (an app whose arithmetic may bind before its bytes: DG's FP64);
     * 0: the bytes only, the line as short as it was. */
    int prints_gflops;
    /* The serial reference (cached by the app as it sees fit). */
    struct app_ref *(*reference)(const struct app_input *in, char *err, size_t errn);
    /* 1 when reference() keeps what it computes on disk (build_cache), so a
     * child process can make it under the config's watchdog and the parent
     * then loads it (runner.c: reference_watched); 0: made in the parent. */
    int reference_on_disk;
    /* 0 when a knob setting runs unverified by design (its status is
     * ST_UNVERIFIED: LBM's work=empty), so no reference is made for it
     * ahead of its run; NULL: every setting is verified. */
    int (*verified)(const struct knob_set *k);
    void (*ref_free)(struct app_ref *r);
    /* One timed execution on a device: sets up, runs the warm-up and the
     * repetitions through timed_reps (timed.h: the samples, and the energy
     * read at the right moments), fills m (status), and returns the last
     * repetition's results for verification. */
    struct app_result *(*execute)(struct dev *d, const struct app_input *in, const struct knob_set *k,
                                  const unsigned wg[2], int warmup, int reps, struct measurement *m);
    /* Compares with the reference: sets m->status ok/wrong, the errors and tolerance. */
    void (*verify)(const struct app_input *in, const struct app_ref *ref, const struct app_result *res,
                   struct measurement *m);
    /* Writes the app's output files for a result into dir. */
    int (*write_output)(const struct app_input *in, const struct app_result *res, const char *dir, char *err,
                        size_t errn);
    void (*result_free)(struct app_result *res);
};

extern const struct app *const apps[]; /* generated from the app folders, NULL-terminated */
const struct app *app_find(const char *name);
/* Builds kernels/APP/APP<the backend's source suffix> for d with
 * -I kernels/APP, k's defines, a directive device's shape as -DK_WG_X/Y
 * (local) and extra options (NULL: none): NULL with d->err on failure. */
struct program *app_build_program(struct dev *d, const char *app, const struct knob_set *k, const size_t local[2],
                                  const char *extra);
/* NULL when a w x h work-group is within the device's limits (its items,
 * and each side), else why not, written into why (n bytes). */
const char *app_wg_fits(const struct device_info *dev, const unsigned wg[2], char *why, size_t n);
/* NULL when two w x h grids of cell_bytes each fit the device (its largest
 * allocation and its memory), else why not, written into why (n bytes). */
const char *app_grid_fits(const struct device_info *dev, int w, int h, size_t cell_bytes, char *why, size_t n);
#endif
