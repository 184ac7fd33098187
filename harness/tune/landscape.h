/* A recorded tuning landscape of any kernel: every configuration a tuner
 * measured (its parameters' values) with its time or its failure, loaded
 * from a file and then searched as a tune_space whose evaluation function
 * looks the time up, so a strategy can be judged on someone else's
 * measurements with no device, no database and no input.
 *
 * Formats, told apart by content (a .json name only says what a file that
 * starts with neither '{' nor '[' was meant to be):
 *   - Kernel Tuner cache files (.json, or gzipped: landscape_kt.c),
 *   - T4 results (Kernel Tuner's output files and `harness export --format
 *     t4`: landscape_t4.c),
 *   - CSV with a header, parameter columns and one time column
 *     (landscape_csv.c).
 * Any file may be gzipped (landscape_read.c). Times are seconds here,
 * whatever unit the file used. Every error is "FILE:LINE: what" where
 * there is a line, "FILE: what" where there is not. */
#ifndef HARNESS_LANDSCAPE_H
#define HARNESS_LANDSCAPE_H
#include <stddef.h>

#include "tune/tune.h"

enum landscape_type { LANDSCAPE_NUMBER, LANDSCAPE_STRING, LANDSCAPE_BOOL };

/* A parameter's value, typed as the file wrote it. */
struct landscape_value {
    enum landscape_type type;
    double number; /* NUMBER: the value; BOOL: 0 or 1 */
    char *text;    /* STRING: the value; NUMBER: as first written; BOOL: "true" or "false" */
};

/* ORDERED: every value a number (not just 0 and 1), levels in increasing
 * order, a move goes to the next level. CATEGORICAL: strings (or a mix),
 * no order. SWITCH: true/false, or numbers that are only 0 and 1: on or
 * off, no order. */
enum landscape_kind { LANDSCAPE_ORDERED, LANDSCAPE_CATEGORICAL, LANDSCAPE_SWITCH };

struct landscape_param {
    char *name;
    enum landscape_kind kind;
    int nlevels;
    struct landscape_value *level;
    int cap, *slot, slots; /* private to the loader: room, and a hash of the levels */
};

/* Which landscape of a file that holds several: a CSV's rows by their
 * app, device, input, variant (its name before any {knobs}) and iters
 * columns; a T4 export's results by those keys. NULL: any value; a
 * choice that still leaves several is refused with the list. */
struct landscape_pick {
    const char *app, *device, *input, *variant, *iters;
};

struct landscape {
    char *path;
    const char *format;                /* "Kernel Tuner cache", "T4 results" or "CSV" */
    char *device, *kernel, *objective; /* what the file says (display); NULL when it does not */
    char *group;                       /* the pick's values of a file with several landscapes, else NULL */
    int nparams;
    struct landscape_param *param;
    int n, cap;
    int *coord;       /* n * nparams levels: point i at coord + i * nparams */
    double *seconds;  /* per point: its time; negative when it failed */
    double *noise;    /* per point: its relative spread (IQR / median), 0 when unknown */
    int *line;        /* per point: where the file records it */
    int failed;       /* points that failed */
    int optimum;      /* the fastest point that did not fail */
    int cut_off;      /* a Kernel Tuner cache without its closing, read as Kernel Tuner does */
    int repeated;     /* T4: configurations recorded again (the last record kept) */
    int *slot, slots; /* private to the loader: a hash of the points */
};

/* Loads path (gzipped or not). 0, or -1 with err. */
int landscape_load(const char *path, const struct landscape_pick *pick, struct landscape *l, char *err, size_t errn);
/* The same from text already in memory; name is the file's name in messages. */
int landscape_parse(const char *name, const char *text, size_t len, const struct landscape_pick *pick,
                    struct landscape *l, char *err, size_t errn);
void landscape_free(struct landscape *l);

/* The space of the landscape's points, in file order, for tune_search:
 * block_size_x/block_size_y (or wg_x/wg_y) become the work-group sides.
 * Refuses, never truncates: more parameters than TUNE_MAX_PARAMS or a
 * parameter with more values than TUNE_MAX_LEVELS is an error naming both
 * numbers. 0, or -1 with err. */
int landscape_space(const struct landscape *l, struct tune_space *sp, char *err, size_t errn);
/* tune_eval_fn over a landscape (ctx): the point's seconds, negative when
 * it failed, as a live search would have paid for it. */
double landscape_eval(void *ctx, int point, double *noise);

/* The point whose values, one text per parameter in order, are these
 * (numbers compared as numbers, so "1.0" finds 1), or -1. */
int landscape_find(const struct landscape *l, const char *const *values);
/* The value of parameter k at point i. */
const struct landscape_value *landscape_value_at(const struct landscape *l, int point, int k);
const char *landscape_kind_name(enum landscape_kind kind);
#endif
