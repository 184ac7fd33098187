/* Knobs: an app's tunable settings, named the same on every backend.
 * A knob_set is a complete assignment (defaults filled in), kept in the
 * app's declaration order so that its canonical string is stable. */
#ifndef HARNESS_KNOBS_H
#define HARNESS_KNOBS_H
#include <stddef.h>

#include "util.h"

struct knob_def {
    const char *name;
    const char *values; /* "aos|soa|soa-3d"; the word "int" admits 1..INT_MAX in plain decimal */
    const char *def;    /* the default value */
    const char *help;
};

#define KNOB_MAX 48 /* the largest app declares 41 */
struct knob_set {
    const struct knob_def *defs;
    int n;
    char value[KNOB_MAX][40];
};

/* Starts from the defaults. */
void knobs_init(struct knob_set *k, const struct knob_def *defs);
/* Applies "a=b,c=d" (commas or spaces) on top of k. Unknown names or values
 * fill err and return -1. */
int knobs_apply(struct knob_set *k, const char *text, char *err, size_t errn);
const char *knob_get(const struct knob_set *k, const char *name);
int knob_is(const struct knob_set *k, const char *name, const char *value);
long knob_int(const struct knob_set *k, const char *name);
/* "layout=soa,kernels=fused,..." in declaration order: the identity of a variant. */
void knobs_canonical(const struct knob_set *k, char *buf, size_t n);
/* "-DK_LAYOUT_SOA=1 -DK_CHUNK=1792 ..." for kernel compilers: a numeric
 * value becomes -DK_NAME=value, any other -DK_NAME_VALUE=1. */
void knobs_defines(const struct knob_set *k, struct strbuf *out);
#endif
