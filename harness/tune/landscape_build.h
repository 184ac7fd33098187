/* What the landscape readers share, private to them (landscape_kt.c,
 * landscape_t4.c, landscape_csv.c; landscape.c detects the format and
 * calls one): parameters and their levels, points, the files that hold
 * several landscapes, time units. */
#ifndef HARNESS_LANDSCAPE_BUILD_H
#define HARNESS_LANDSCAPE_BUILD_H
#include <stddef.h>

#include "tune/json.h"
#include "tune/landscape.h"

/* Kernel Tuner's older mark of a failed configuration: a time this large
 * (in the file's unit) or larger is a failure, not a measurement. */
#define LB_FAILED_TIME 1e20

/* ---- parameters and levels (landscape_build.c) ---- */

/* Appends a parameter called name; its index. */
int lb_param(struct landscape *l, const char *name);
/* The parameter called name, or -1. */
int lb_param_find(const struct landscape *l, const char *name);
/* The level of v in p, or -1 when p has none (with add: appended, text copied). */
int lb_level(struct landscape_param *p, const struct landscape_value *v, int add);
/* A value from text (a CSV field): a number when the whole text is one,
 * true or false (any case) a boolean, anything else a string. v->text
 * points at text (not copied). */
void lb_value_of_text(struct landscape_value *v, const char *text);
/* A value from JSON: 0, or -1 when j is not a number, string or boolean.
 * v->text points into j (not copied). */
int lb_value_of_json(struct landscape_value *v, const struct json *j);
/* The value as a message shows it: strings in quotes. */
void lb_value_show(char *buf, size_t n, const struct landscape_value *v);

/* What a point recorded a second time means: an error (a cache or a CSV
 * holds each configuration once), or the later record replaces the
 * earlier (a T4 export lists every measurement of a configuration, oldest
 * first). */
enum lb_repeat { LB_REPEAT_ERROR, LB_REPEAT_LAST };
/* Adds point coord (a level per parameter) recorded at line: seconds < 0
 * when it failed. 0, or -1 with err. */
int lb_point(struct landscape *l, const int *coord, double seconds, double noise, int line, enum lb_repeat repeat,
             char *err, size_t errn);
/* After the last point: the parameters' kinds, ordered levels sorted, the
 * failures counted and the optimum found. -1 with err when there is no
 * parameter, no point, or no point that succeeded. */
int lb_finish(struct landscape *l, char *err, size_t errn);

/* ---- times (landscape_build.c) ---- */

/* Seconds per unit: "s", "ms", "us" or "ns"; 0 for anything else. */
double lb_unit_seconds(const char *unit);
/* The relative spread of n samples (IQR / median), 0 under 2 samples. */
double lb_spread(const double *x, int n);

/* ---- several landscapes in one file (landscape_pick.c) ---- */

enum { LB_APP, LB_DEVICE, LB_INPUT, LB_VARIANT, LB_ITERS, LB_ATTRS };
struct lb_group {
    char *attr[LB_ATTRS]; /* NULL: the file does not say */
    int points;
};
struct lb_groups {
    int n, cap;
    struct lb_group *g;
};
/* The group with these attributes (added when new, counted): its index. */
int lb_group_of(struct lb_groups *gs, const char *const attr[LB_ATTRS]);
/* The one group the pick leaves: its index, or -1 with err naming the
 * choices (as the options that pick each). */
int lb_group_pick(const struct lb_groups *gs, const struct landscape_pick *pick, const char *path, char *err,
                  size_t errn);
/* "input 128x128, variant g15-fast": the group's attributes that tell it
 * from the others (malloc'd), or NULL when the file holds one. */
char *lb_group_label(const struct lb_groups *gs, int k);
void lb_groups_free(struct lb_groups *gs);

/* ---- the formats ---- */

int landscape_kt(const char *path, const struct json *root, const struct landscape_pick *pick, struct landscape *l,
                 char *err, size_t errn);
int landscape_t4(const char *path, const struct json *root, const struct landscape_pick *pick, struct landscape *l,
                 char *err, size_t errn);
int landscape_csv(const char *path, const char *text, size_t len, const struct landscape_pick *pick,
                  struct landscape *l, char *err, size_t errn);
/* The file's bytes, gunzipped when they are gzip (by content); NUL-terminated, malloc'd. */
char *landscape_read(const char *path, size_t *len, char *err, size_t errn);
#endif
