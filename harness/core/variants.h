/* Named knob settings, read from variants/<app>.variants.
 *
 * Format, one variant a line:
 *     name: [base] knob=value knob=value ...   # optional description
 * `base` names an earlier variant whose settings are the starting point, so
 * a ladder reads as a list of one-knob steps. Blank lines and lines starting
 * with '#' are ignored. Errors are "file:line: message". */
#ifndef HARNESS_VARIANTS_H
#define HARNESS_VARIANTS_H
#include <stdio.h>

#include "core/knobs.h"

/* The variant name that stands for a stored configuration: what a search
 * over knobs and shapes (harness tune FILE) found for one device and input,
 * kept in the tuned table under this name. A variants file cannot define it;
 * `--variant tuned` and a sweep file's `variant tuned` resolve it per device
 * and input (store_tuned_variant in store_tuned.h). */
#define TUNED_VARIANT "tuned"

struct variant {
    char name[64];
    char description[160];
    struct knob_set knobs;
    int tuned; /* 1: a placeholder for TUNED_VARIANT, its knobs not yet known */
};

struct variant_list {
    struct variant *v;
    int n;
};

int variants_load(const char *path, const struct knob_def *defs, struct variant_list *out, char *err, size_t errn);
/* The same from an open stream (the caller closes it), `name` standing for
 * the path in messages: what fuzz/ feeds from memory through fmemopen. */
int variants_read(FILE *f, const char *name, const struct knob_def *defs, struct variant_list *out, char *err,
                  size_t errn);
/* The app's variant file from the repository (ROOT/variants/<app>.variants). */
int variants_load_app(const char *app, const struct knob_def *defs, struct variant_list *out, char *err, size_t errn);
const struct variant *variant_find(const struct variant_list *l, const char *name);
/* The placeholder for TUNED_VARIANT: the app's default knobs, tuned = 1. */
void variant_tuned_placeholder(struct variant *v, const struct knob_def *defs);
/* TUNED_VARIANT resolved: a stored configuration's canonical knobs on top of
 * the defaults (tuned = 0), its name (config, may be NULL) as the
 * description. -1 with err when the knobs no longer parse (a knob renamed
 * since the search). */
int variant_tuned(struct variant *v, const struct knob_def *defs, const char *knobs, const char *config, char *err,
                  size_t errn);
void variants_free(struct variant_list *l);
#endif
