/* Knobs: an app's tunable settings, named the same on every backend.
 * A knob_set is a complete assignment (defaults filled in), kept in the
 * app's declaration order so that its canonical string is stable. */
#ifndef HARNESS_KNOBS_H
#define HARNESS_KNOBS_H
#include <stddef.h>

#include "base/util.h"

struct knob_def {
    const char *name;
    const char *values; /* "aos|soa|soa-3d"; the word "int" admits 1..INT_MAX in plain decimal, the
                           word "share" a fraction strictly between 0 and 1 ("0.6"), the word "shape"
                           a shape WxH of two such integers up to 65536 ("4094x32") */
    const char *def;    /* the default value */
    const char *help;
    /* 1 for a knob added to an app after configs of it were stored (results,
       tuned files): at its default it is left out of the canonical string and
       of the defines, as if it did not exist, so those configs keep their
       identity and their builds. The apps' knob tables name every field
       they set (`.name = ...`), so that an entry leaving this 0 is not a
       missing initializer. */
    int quiet_default;
};

/* Host knobs: the core's own (a device set's split and exchange,
 * rowsplit.h) and any an app names host_* (as a CPU member's tile shape):
 * read by the host schedule alone, so never a compiler define (changing one
 * rebuilds nothing), and left out of the canonical string at their
 * defaults, so a config that does not use them keeps the identity it had
 * before they existed. */
int knob_is_host(const struct knob_def *d);

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
/* A knob's value by name. The name must be one the app declares: any
 * other is a defect in the code reading it, and the process aborts with a
 * message naming it (generic code reading a knob only some apps declare
 * asks knobs_declare first). So do knob_is, knob_int, knob_share and
 * knob_shape. */
const char *knob_get(const struct knob_set *k, const char *name);
int knob_is(const struct knob_set *k, const char *name, const char *value);
long knob_int(const struct knob_set *k, const char *name);
/* A "share" value as a number, or -1 when the knob holds a word ("auto"). */
double knob_share(const struct knob_set *k, const char *name);
/* A "shape" value as its two numbers (0), or -1 when the knob holds a word. */
int knob_shape(const struct knob_set *k, const char *name, unsigned shape[2]);
/* Whether the app declares a knob of that name. */
int knobs_declare(const struct knob_def *defs, const char *name);
/* "layout=soa,kernels=fused,..." in declaration order: the identity of a
 * variant (host knobs and quiet_default ones only where they differ from
 * their default). Its holders are KNOBS_TEXT_MAX bytes (measurement.h). */
void knobs_canonical(const struct knob_set *k, char *buf, size_t n);
/* "-DK_LAYOUT_SOA=1 -DK_CHUNK=1792 ..." for kernel compilers: a numeric
 * value becomes -DK_NAME=value, any other -DK_NAME_VALUE=1; host knobs are
 * left out, and quiet_default ones at their default. */
void knobs_defines(const struct knob_set *k, struct strbuf *out);
#endif
