/* Confirmation before an alarm: a series that looks changed is measured
 * again at once, the previous build (A) and this one (B) interleaved on the
 * same device: every round starts a fresh worker process of each build and
 * runs A then B (B then A the next round), with the warm-up and repetitions
 * the night used, so both builds see the same minutes of the host. The test
 * is on the rounds' paired differences (round_stats.h rc_paired): what the
 * session shares cancels, the night's mood included. Only a confirmed
 * change is a regression; a rejected one is noise, listed with its figures.
 * Each verdict is stored in the confirmation table with its rounds.
 *
 * With a target (issue 41), rounds are added to a series whose rerun could
 * not yet see a change of the target (its detectable change above it) until
 * it can, or the time budget is spent: an inconclusive night is measured
 * until it says something, as long as the user allows. */
#ifndef HARNESS_CONFIRM_H
#define HARNESS_CONFIRM_H
#include <stdint.h>

#include "core/rounds.h"
#include "stats/round_stats.h"
#include "store/store.h"
#include "track/series.h"

#define CONFIRM_ROUNDS 10  /* pairs of rounds */
#define CONFIRM_ALPHA 0.01 /* the paired t-test's significance, on a flag's first look */
/* A suspect or an inconclusive series brings no evidence of its own (on a
 * noisy host every series is inconclusive and measured again), and added
 * rounds are more looks at the same question: there the rerun alone must
 * carry the evidence, at CONFIRM_ALPHA_OPEN over at most CONFIRM_LOOKS
 * looks (each at the share, Bonferroni): 1000 clean series must confirm
 * nothing (tests/unit/test_inconclusive.c). */
#define CONFIRM_ALPHA_OPEN 1e-5
#define CONFIRM_LOOKS 2
/* An inconclusive series (no flag, no suspect) is measured again only within
 * the added rounds' budget: as many pairs as its rounds' spread on the
 * nights says a decision needs (a pair's difference spreads by about
 * sqrt(2) rounds; the session's share cancels), at least this many. */
#define CONFIRM_OPEN_FIRST 4

struct confirm_series {
    struct series_id id;                 /* what to measure again (device, app, input, knobs, shape, steps) */
    double flagged_ratio;                /* B/A as a flag saw it: the direction to confirm (NAN: either) */
    enum measure measure;                /* what the flag judged: rounds compared on it (measurement.h) */
    int evidence;                        /* 1: a flag (p <= alpha over nights); 0: a suspect or inconclusive */
    int open;                            /* inconclusive: measured within the added rounds' budget only */
    double round_sd;                     /* a round's spread on the nights (log scale; 0: unknown) */
    int looks;                           /* verdicts taken so far (confirm_judge_pairs counts them) */
    int reps, warmup;                    /* per round, as the compared nights ran it */
    int64_t nightly_id, change_point_id; /* what it judges, for the record (0: none) */
    /* the outcome */
    struct paired_result r;
    double detectable; /* the smallest change the rerun sees (compare_detectable's rule, its alpha) */
    char verdict[16];  /* "confirmed", "rejected", "failed" */
    char reason[512];
};

struct confirm_opts {
    struct round_exec a, b;        /* the two builds' binaries and roots */
    const char *build_a, *build_b; /* their names, for the record */
    int rounds;                    /* default CONFIRM_ROUNDS */
    double alpha, min_effect;      /* defaults CONFIRM_ALPHA and 0.03 */
    double timeout_s;              /* per round and side; default CONFIG_TIMEOUT_S */
    const char *source;            /* "nightly", "compare", "regressions" */
    unsigned seed;
    double target;     /* > 0: add rounds while the rerun cannot see this change */
    double max_time_s; /* for the added rounds (0: none added) */
    /* What the added rounds cost (filled by confirm_run). */
    int added_rounds;
    double added_s;
};

struct compare_row;
struct strbuf;
/* What to measure again for the rows a comparison flagged or suspects
 * (compare_wants_confirmation): each series as side B ran it (B's warm-up and
 * repetitions per round), tagged with nightly_id (0: none). Fills out (room
 * for n) and adds each device's spec once to devs ("a,b"); returns how many. */
int confirm_from_rows(const struct compare_row *rows, int n, int64_t nightly_id, struct confirm_series *out,
                      struct strbuf *devs);
/* Measures and judges every series, storing each verdict. Returns how many
 * were confirmed, or -1 when interrupted. */
int confirm_run(struct store *store, struct confirm_series *s, int n, struct confirm_opts *o);
/* One line for a table: "confirmed: B/A 1.052 over 6 pairs, p 0.0004". The
 * options are confirm_run's (added_rounds and added_s filled). */
void confirm_describe(const struct confirm_series *c, char *buf, size_t n);
#endif
