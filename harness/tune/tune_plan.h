/* What one search of `harness tune` covers on one device and input: the
 * knob settings (variants) x work-group shapes that pass the sweep file's
 * constraints and the app's validity rules, as a tune_space whose
 * parameters are the knobs that differ between the settings (categorical,
 * or ordinal when every value is a number) and the two sides of the shape.
 * An invalid point is left out here, so it never costs an evaluation. */
#ifndef HARNESS_TUNE_PLAN_H
#define HARNESS_TUNE_PLAN_H
#include "core/app.h"
#include "core/sweep_file.h"
#include "core/variants.h"
#include "tune/tune.h"

struct tune_point {
    int variant; /* index into tune_plan.vars */
    unsigned wg[2];
};

struct tune_plan {
    struct variant_list vars; /* distinct knob settings (one per canonical string) */
    char (*knobs)[KNOBS_TEXT_MAX];      /* their canonical strings */
    int n;                    /* points, also space.n */
    struct tune_point *pt;
    int *first; /* per variant: its points are pt[first[v] .. first[v + 1]) */
    struct tune_space space;
    int considered, invalid, constrained; /* points before pruning, and why they went */
    char why[256];                        /* the last reason a point was invalid */
};

/* Which points may stay beside the rules (a replay keeps the measured ones). */
typedef int (*tune_keep_fn)(void *ctx, int variant, const char *knobs, const unsigned wg[2]);

/* Builds the plan: every variant of vars x every shape, less those a
 * constraint of spec (when non-NULL) or the app (when dev is non-NULL)
 * rejects, less those keep (when non-NULL) rejects. 0, or -1 with err when
 * more knobs vary than a space holds (TUNE_MAX_PARAMS - 2; a knob takes any
 * number of values). n may be 0. */
int tune_plan_build(struct tune_plan *p, const struct app *app, const struct app_input *in,
                    const struct device_info *dev, const struct variant_list *vars, const unsigned (*shapes)[2],
                    int nshapes, const struct sweep_spec *spec, tune_keep_fn keep, void *keep_ctx, char *err,
                    size_t errn);
/* The point with these canonical knobs and shape, or -1. */
int tune_plan_find(const struct tune_plan *p, const char *knobs, const unsigned wg[2]);
void tune_plan_free(struct tune_plan *p);
#endif
