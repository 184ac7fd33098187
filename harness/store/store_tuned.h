/* The tuned table (the best work-group shape per device fingerprint, app,
 * input and variant, with how sure the tuner was) and replay data for
 * `harness tune --replay`. Queries of their own beside store.c's, on the
 * same connection (store_db). */
#ifndef HARNESS_STORE_TUNED_H
#define HARNESS_STORE_TUNED_H
#include <stddef.h>
#include <stdio.h>

#include "core/app.h"
#include "core/variants.h" /* TUNED_VARIANT: the variant name a configuration is stored under */
#include "store/store.h"
#include "tune/tune.h"

/* What a tuned row records beside the search's result. */
struct tuned_put {
    unsigned wg[2];        /* the best's shape */
    const char *knobs;     /* canonical knobs of a configuration; NULL: a shape-only row */
    const char *config;    /* the configuration's name, e.g. "g15-fast{temporal=5,tile=inner}" */
    const char *objective; /* "time" (NULL reads as time) or "energy" */
    const char *strategy;
    int samples;     /* repetitions behind the best's median; 0: unknown */
    int evaluations; /* distinct points the search measured */
    double search_s; /* wall seconds its measurements took; NAN: unknown */
    double energy_j; /* the best's energy per run; NAN: not measured */
};

/* Records (or replaces) the decision for this key. 0, or -1 with err. */
int store_tuned_put(struct store *s, const char *fingerprint, const char *app, const char *input, const char *variant,
                    const struct tune_result *r, const struct tuned_put *p, char *err, size_t errn);
/* 0 and the shape (and *tie when tie is non-NULL) when the key has one; -1 when not. */
int store_tuned_get(struct store *s, const char *fingerprint, const char *app, const char *input, const char *variant,
                    unsigned wg[2], int *tie);

/* A stored configuration: knobs ("" for a shape-only row: the variant's own)
 * and shape, with the figures it was stored with. */
struct tuned_config {
    unsigned wg[2];
    int tie;
    char knobs[KNOBS_TEXT_MAX], config[192], objective[16];
    double median_s, margin, noise; /* NAN when unknown */
};
/* 0 and the row when the key has one; -1 when not. */
int store_tuned_get_config(struct store *s, const char *fingerprint, const char *app, const char *input,
                           const char *variant, struct tuned_config *out);
/* TUNED_VARIANT on one device and input, for the commands that run it (run,
 * sweep, report): the configuration stored under it as a variant named
 * TUNED_VARIANT (its knobs; the configuration's name as its description),
 * its shape in wg and the stored row in cfg (may be NULL).
 *   0  found
 *   1  none stored for this device and input (s NULL: no database yet);
 *      why names them and the command that makes one
 *  -1  stored, but unusable: its knobs no longer parse (why)
 * Whether the app takes it on this device is the caller's to ask. */
int store_tuned_variant(struct store *s, const struct app *app, const struct app_input *in,
                        const struct device_info *dev, struct variant *out, unsigned wg[2], struct tuned_config *cfg,
                        char *why, size_t whyn);
/* `harness best`: the table, or CSV with a header. device selects rows by
 * fingerprint or by the device's spec ("cuda:0"); NULL prints all. A
 * configuration's knobs are in the CSV, and in the table under its row with
 * lng (--long). 0 or -1. */
int store_tuned_print(struct store *s, const char *device, int csv, int lng, FILE *out);

/* Every shape measured ok for a device, app, input and canonical knob
 * string: the latest ok measurement of each. Only rows with the step count
 * of the newest one are loaded, so a replay never compares a 200-step
 * median with a full run's. */
struct replay_table {
    int n;
    unsigned (*wg)[2];
    double *median, *noise; /* seconds; (q3 - q1) / median, NaN when unknown */
    int *samples;
    long iters;  /* the step count of every loaded row */
    int skipped; /* shapes measured ok only at another step count */
};
/* 0 (possibly with n == 0), or -1 on a database error. */
int store_replay_load(struct store *s, const char *fingerprint, const char *app, const char *input, const char *knobs,
                      struct replay_table *out);
/* The same at a given step count (iters > 0) instead of the newest row's. */
int store_replay_load_iters(struct store *s, const char *fingerprint, const char *app, const char *input,
                            const char *knobs, long iters, struct replay_table *out);
void replay_free(struct replay_table *t);

/* Warm starts: every ok measurement of an app except those of one device
 * and input, with where it ran (fingerprint, input, step count) and what
 * (canonical knobs, shape). 0, or -1 on a database error. */
typedef void (*tune_prior_row_fn)(void *ctx, const char *fingerprint, const char *input, long iters, const char *knobs,
                                  const unsigned wg[2], double median_s);
int store_tune_prior_rows(struct store *s, const char *app, const char *not_fingerprint, const char *not_input,
                          tune_prior_row_fn fn, void *ctx);
/* A tune_eval_fn over a replay_table: the stored median, or -1 for a shape
 * that is not in the table. */
double replay_eval(void *table, const unsigned wg[2], double *noise);
#endif
