/* What one search searches: an app's input on one device (none for a
 * replay by fingerprint), its space of configurations (the plan) and, in a
 * replay of the database, every point's stored figures. `harness tune`
 * (cli/) fills it; the evaluators (tune_eval.h) read it. */
#ifndef HARNESS_TUNE_TARGET_H
#define HARNESS_TUNE_TARGET_H

#include "backend/backend.h"
#include "core/app.h"
#include "tune/tune_plan.h"

struct tune_target {
    const struct app *app;
    struct app_opts src, src_screen; /* how the inputs were loaded (workers load them again) */
    struct app_input *in, *in_screen;
    const struct device_info *dev; /* NULL: a replay by fingerprint */
    char fp[32], devname[64];
    struct tune_plan plan;
    const char *key_variant; /* the tuned row's variant: TUNED_VARIANT, or the variant tuned */
    int configs;             /* 1: a space of knobs (stored with knobs and name) */
    /* replay: every point's stored figures */
    double *rt, *rnoise;
    int *rsamples;
    long riters;
    int rskipped;
};

/* The name of point i's setting (its variant). */
static inline const char *tune_point_name(const struct tune_target *d, int i) {
    return d->plan.vars.v[d->plan.pt[i].variant].name;
}
#endif
