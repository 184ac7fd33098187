/* The history of tune's decisions (tuned_history): every search that judged
 * a tuned row, and what became of the row, so `harness best --history` can
 * show why the stored shape is the one it is. */
#ifndef HARNESS_STORE_TUNED_HISTORY_H
#define HARNESS_STORE_TUNED_HISTORY_H
#include <stddef.h>
#include <stdio.h>

#include "store/store.h"
#include "tune/tune.h"

struct tuned_decision {
    unsigned wg[2]; /* the search's best shape */
    const char *strategy;
    int budget;           /* 0: exhaustive */
    long iters;           /* the step count each evaluation ran */
    const char *decision; /* new, confirmed, replaced, kept */
    char why[300];
    const char *knobs, *config; /* a configuration's (NULL: a shape-only search) */
    const char *objective;      /* NULL reads as time */
    double search_s;            /* wall seconds of the search's measurements; NAN: unknown */
};

/* Appends the search's best (r) and its decision. 0, or -1 with err. */
int store_tuned_history_add(struct store *s, const char *fingerprint, const char *app, const char *input,
                            const char *variant, const struct tune_result *r, const struct tuned_decision *d, char *err,
                            size_t errn);
/* `harness best --history`: every decision, oldest first; device as for
 * store_tuned_print. 0, or -1. */
int store_tuned_history_print(struct store *s, const char *device, FILE *out);
#endif
