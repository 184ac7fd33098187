/* harness tune's call (cmd_tune.c): its options, the searches it names
 * (loaded and planned by tune_load.c) and what becomes of each search's
 * outcome (tune_outcome.c: the report, the decision, the stored row). */
#ifndef HARNESS_CLI_TUNE_CALL_H
#define HARNESS_CLI_TUNE_CALL_H

#include "cli/cli.h"
#include "core/sweep_file.h"
#include "store/store.h"
#include "store/store_tuned.h"
#include "tune/tune_eval.h"
#include "tune/tune_target.h"

#define POW2_STEPS 11      /* 1, 2, 4, ..., 1024 per dimension */
#define MAX_SEARCHES 64    /* devices x inputs of one call */

struct tune_opts {
    const char *file, *app, *device, *variant, *strategy, *db;
    struct app_opts in;
    int budget, replay, store, warm;
    int reps_set, warmup_set, timeout_set;
    long wg_max;
    struct tune_live_opts live; /* what a live search measures with (tune/tune_eval.h) */
};

struct call {
    struct tune_opts o;
    struct sweep_spec spec;
    int have_spec;
    struct variant_list vars; /* every setting the call names */
    unsigned (*shapes)[2];
    int nshapes;
    struct device_pick pick;
    int nsearch;
    struct tune_target s[MAX_SEARCHES];
};

/* tune_load.c: everything the call names, checked (exit 2 on anything
 * wrong, before any database is opened); the space of each search (in a
 * replay, from the database: what was measured); freed. */
int tune_call_load(struct call *c);
int tune_call_plan(struct call *c, struct store *store);
void tune_call_free(struct call *c);

/* tune_outcome.c */
/* Where a live search's rows go: the run it opened in the database. */
struct tune_sink {
    struct store *store;
    int64_t run_id; /* -1: none (the run could not be begun) */
};
void tune_sink_keep(void *ctx, const struct measurement *m);
void tune_sink_verdict(void *ctx, struct round_job *j, int round, int first_sample);
/* The source with the most points of this space measured, as the search's prior. */
void tune_warm_start(struct store *store, const struct tune_target *d, struct tune_prior *pr, int **point,
                     double **secs_out);
/* The stored configuration of this key, as a candidate; 0, or -1 when none. */
int tune_stored_candidate(struct store *store, const struct tune_target *d, struct tuned_config *tc,
                          struct verdict_cand *out);
/* What the search came to: reported and (live, or a replay with --store)
 * stored. Its exit status. */
int tune_conclude(struct store *store, const struct tune_opts *o, struct tune_target *d, struct tune_outcome *oc,
                  struct tune_live *l, int found, int disturbed);
#endif
