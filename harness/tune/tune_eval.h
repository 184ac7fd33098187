/* The evaluators a search runs on, each a tune_eval_fn (tune.h), so every
 * strategy sees one interface: live (each point measured in a worker
 * process, a crash or hang costing one point; with screening at a shorter
 * length, then the finalists at full length), and stored figures (a replay
 * of the database: each point's median as stored). Then the verdict: the
 * close best measured again in interleaved rounds, with the stored
 * configuration (tune_verdict.h).
 *
 * Nothing here opens a database: the caller (cli/cmd_tune.c) passes where
 * each measured row goes (keep) and each verdict round (verdict_keep), as
 * the layers ask (harness/layers.txt: store/ stands on tune/). */
#ifndef HARNESS_TUNE_EVAL_H
#define HARNESS_TUNE_EVAL_H

#include <stdint.h>

#include "core/measurement.h"
#include "core/progress.h"
#include "core/runner.h"
#include "tune/tune.h"
#include "tune/tune_target.h"
#include "tune/tune_verdict.h"

struct worker_pool;

#define VERDICT_SHAPES 4 /* configurations measured again for the verdict */

/* What a live search measures with, from the command line. */
struct tune_live_opts {
    int warmup, reps;
    int rounds;    /* the verdict's rounds; below 2, no verdict */
    int replace;   /* --replace: the stored configuration is not measured against the best */
    int finalists; /* screening: how many best points are measured at full length */
    long screen;   /* screening's step count (0: none) */
    unsigned seed;
    double timeout_s;
    const char *objective; /* "time" or "energy" */
};

/* A live search's state; the caller fills the first block and zeroes the rest. */
struct tune_live {
    const struct tune_live_opts *o;
    struct tune_target *d;
    struct worker_pool *pool;
    double peak; /* the device's copy ceiling, for the printed rows (GB/s; 0 unknown) */
    struct ref_holder refs, refs_screen;
    void (*keep)(void *ctx, const struct measurement *m);                                 /* a measured row */
    void (*verdict_keep)(void *ctx, struct round_job *j, int round, int first_sample); /* a verdict round */
    void *keep_ctx;
    int measured, planned;
    struct progress pr;       /* the line after each evaluation */
    double started, device_s; /* device_s: wall seconds inside measurements */
    double *seen;             /* per point: its figure at the search's length; NAN unseen, INFINITY failed */
    double *full;             /* per point: at full length (screening only) */
};

/* A replay's evaluator state: the target (its rt, rnoise) and a count for the printed lines. */
struct tune_stored {
    struct tune_target *d;
    int count;
};

/* What the search decided, as configurations. */
struct tune_outcome {
    struct tune_result r;      /* figures (best_s, margin, noise, tie, evaluations) */
    struct verdict_cand best;  /* the winner (or the best of a tie) */
    struct verdict_cand other; /* the runner-up; point -2 when there is none */
    int by_rounds, samples;
    int stored; /* a row was stored before */
    struct verdict_cand stored_c;
    int judged; /* the verdict measured the stored one against the best */
    double stored_margin, stored_p;
};

/* "0.1234 s" or "12.345 ms" into buf. */
const char *tune_secs(char *buf, size_t n, double s);
/* Point i as a configuration, at full length or at the screening length. */
void tune_point_config(const struct tune_live *l, int i, int screen, struct config *cfg);
void tune_cand_of_point(const struct tune_live *l, int i, struct verdict_cand *c);
/* The evaluators (tune_eval_fn): ctx a struct tune_live, a struct tune_stored. */
double tune_live_eval(void *ctx, int point, double *noise);
double tune_stored_eval(void *ctx, int point, double *noise);
/* Screening: the finalists measured at full length (into l->full). */
void tune_finalists(struct tune_live *l);
/* The verdict among the best the search found and the stored configuration
 * (oc->stored, oc->stored_c): fills oc's best, runner-up and figures. */
void tune_judge(struct tune_live *l, struct tune_outcome *oc);
#endif
