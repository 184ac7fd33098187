/* Rounds: how every command that measures runs its configs (sweep, run,
 * nightly, report, tune's verdict, a confirmation).
 *
 * Why: repetitions run one after another in one worker process share that
 * process's state (clocks, memory placement, JIT and allocation, what the
 * host did that minute), so they are not independent samples of "this build
 * on this device". Measured on an H200 host: two nights of one build
 * differed by up to 17 % while each night's repetitions agreed within 1 %.
 * So a config's repetitions are spread over R rounds; each round starts a
 * fresh worker process per device (and per build, in a confirmation) and
 * runs every config still going, in a shuffled order, so slow drift and a
 * busy minute land on every config alike (randomised multiple interleaved
 * trials). The round is then the unit a test counts: its median is one
 * value (round_stats.h). What other processes did during each round is
 * measured (hostload.h) and kept with it. */
#ifndef HARNESS_ROUNDS_H
#define HARNESS_ROUNDS_H
#include <stdio.h>

#include "core/measurement.h"
#include "core/worker.h"

/* One round of a measuring command as seen on one run. */
struct round_state {
    int round;
    char started_at[32]; /* ISO 8601 UTC */
    double wall_s;
    double foreign_cores; /* CPU seconds of other processes per second of the round */
    double steal_cores;   /* CPU seconds the hypervisor took, per second */
    int disturbed;        /* either at or above the disturbed line (hostload.h) */
};

/* The harness that runs a side's workers: a kept build for a confirmation. */
struct round_exec {
    const char *bin;  /* NULL: this binary */
    const char *root; /* HARNESS_ROOT for it; NULL: inherited */
};

struct round_job {
    struct job job;   /* what a worker runs each round; job.reps is per round */
    int exec;         /* index into rounds_opts.execs; 0 when there are none */
    int group;        /* jobs of one group (>= 0) run back to back, their order
                          * turning every round (A B, then B A, ...); -1: alone */
    double timeout_s; /* per round */
    double bytes_per_cell;
    struct measurement m; /* described by the caller (runner_describe); the rounds
                           * accumulate here, with m.rounds the rounds planned */
    int first;            /* the first round to run (a resumed row has the earlier ones) */
    int skip;             /* the caller's: do not run (invalid, already measured) */
    int done;             /* the engine's: its last round ran, or it failed */
    int64_t mid;          /* the caller's: the stored row, once there is one */
    int64_t run_id;       /* the caller's: the run the row belongs to */
    void *user;
};

/* After each round of each job: `first_sample` is where this round's samples
 * start in j->m (store them, and the row's refreshed summary). */
typedef void (*round_result_fn)(void *ctx, struct round_job *j, int round, int first_sample);
/* After each round: what the host did meanwhile. */
typedef void (*round_end_fn)(void *ctx, const struct round_state *st);

struct rounds_opts {
    unsigned seed; /* the shuffles; the same seed, the same orders */
    const struct round_exec *execs;
    int nexecs;
    round_result_fn on_result;
    round_end_fn on_round;
    void *ctx;
    const char *what; /* the progress line's label ("sweep", "confirm") */
};

/* Runs every job's rounds (job.m.rounds each, from job.first). Returns the
 * number of rounds begun, or -1 when interrupted (harness_interrupted): the
 * results of jobs already finished in that round stay delivered. */
int rounds_run(struct round_job *jobs, int n, const struct rounds_opts *o);

/* "note: sweep round 3 was disturbed: ..." on out when it was; else nothing. */
void rounds_note(FILE *out, const char *what, const struct round_state *st);

/* Repetitions per round when `reps` are spread over `rounds`: at least one. */
int rounds_reps_each(int reps, int rounds);

/* The deterministic shuffle the engine uses (also for tests): a permutation
 * of 0..n-1 into perm. */
void rounds_shuffle(int *perm, int n, unsigned long long seed);
#endif
