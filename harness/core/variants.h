/* Named knob settings, read from variants/<app>.variants.
 *
 * Format, one variant a line:
 *     name: [base] knob=value knob=value ...   # optional description
 * `base` names an earlier variant whose settings are the starting point, so
 * a ladder reads as a list of one-knob steps. Blank lines and lines starting
 * with '#' are ignored. Errors are "file:line: message". */
#ifndef HARNESS_VARIANTS_H
#define HARNESS_VARIANTS_H
#include "knobs.h"

struct variant {
    char name[64];
    char description[160];
    struct knob_set knobs;
};

struct variant_list {
    struct variant *v;
    int n;
};

int variants_load(const char *path, const struct knob_def *defs, struct variant_list *out, char *err, size_t errn);
/* The app's variant file from the repository (ROOT/variants/<app>.variants). */
int variants_load_app(const char *app, const struct knob_def *defs, struct variant_list *out, char *err, size_t errn);
const struct variant *variant_find(const struct variant_list *l, const char *name);
void variants_free(struct variant_list *l);
#endif
