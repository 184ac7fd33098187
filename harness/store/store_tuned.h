/* The tuned table (the best work-group shape per device fingerprint, app,
 * input and variant, with how sure the tuner was) and replay data for
 * `harness tune --replay`. Queries of their own beside store.c's, on the
 * same connection (store_db). */
#ifndef HARNESS_STORE_TUNED_H
#define HARNESS_STORE_TUNED_H
#include <stddef.h>
#include <stdio.h>

#include "store.h"
#include "tune.h"

/* Records (or replaces) the decision for this key; samples is the number of
 * repetitions behind the best shape's median. 0, or -1 with err. */
int store_tuned_put(struct store *s, const char *fingerprint, const char *app, const char *input, const char *variant,
                    const struct tune_result *r, int samples, char *err, size_t errn);
/* 0 and the shape (and *tie when tie is non-NULL) when the key has one; -1 when not. */
int store_tuned_get(struct store *s, const char *fingerprint, const char *app, const char *input, const char *variant,
                    unsigned wg[2], int *tie);
/* `harness best`: the table, or CSV with a header. device selects rows by
 * fingerprint or by the device's spec ("cuda:0"); NULL prints all. 0 or -1. */
int store_tuned_print(struct store *s, const char *device, int csv, FILE *out);

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
/* A tune_eval_fn over a replay_table: the stored median, or -1 for a shape
 * that is not in the table. */
double replay_eval(void *table, const unsigned wg[2], double *noise);
#endif
