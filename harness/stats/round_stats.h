/* Statistics on the right unit (rounds.h): pure functions, no database.
 *
 * A timing is modelled on the log scale as
 *     log t = level(build) + night + round + repetition
 * where "night" is what one session shares (the host's state that hour, a
 * driver's mood, memory placement that survives processes), "round" what one
 * worker process shares (JIT, allocation, clocks at its start), and
 * "repetition" the rest. Repetitions of one process are not independent
 * samples of the build; rounds of one night are independent of each other
 * but not of the night; only nights (or an interleaved A B A B session, in
 * which the night cancels) say whether the build changed.
 *
 * So a night is summarised by its rounds: the mean of the log round medians
 * (each round's median of its repetitions) and their spread. Comparing two
 * sets of nights (compare), the variance of the difference has a night part
 * (sigma_night^2 per night a side) and a round part (the rounds' spread
 * over their count); sigma_night comes from the sides themselves when they
 * hold several nights and, always, from the series' noise model: what
 * nights of one build (nothing changed) spread by, learned from history and
 * shrunk towards the device's and a default prior while history is short. */
#ifndef HARNESS_ROUND_STATS_H
#define HARNESS_ROUND_STATS_H

/* One night (a run) of a series, from its rounds. */
struct night_value {
    int rounds;   /* rounds counted */
    double mean;  /* mean of the log round medians */
    double var;   /* their sample variance; NaN with one round */
    int dropped;  /* disturbed rounds left out */
    int outliers; /* rounds left out as outliers */
};

/* A round this far from the night's median round, in robust standard
 * deviations (1.4826 MAD) and at least ROUND_OUTLIER_MIN, is an outlier:
 * seen on an H100 host, one round in a few dozen ran 2-4x slow with no load
 * anyone could see (the VM's host). With four rounds or more, outliers are
 * left out while three remain. */
#define ROUND_OUTLIER_SDS 5.0
#define ROUND_OUTLIER_MIN 0.10

/* The round medians of one run (log_med[i] = log of round i's median) and
 * which rounds were disturbed (NULL: none). Disturbed rounds are left out
 * while at least two clean ones remain, then outliers as above. 0, or -1
 * when there is no round. */
int night_from_rounds(const double *log_med, const int *disturbed, int n, struct night_value *out);

/* A series' noise: the spread of a night beyond its rounds (sigma_night) and
 * of a round within a night (sigma_round), both on the log scale (0.01 is
 * about 1 %), each with the degrees of freedom behind it. */
struct noise_model {
    double sigma_night, df_night;
    double sigma_round, df_round;
    int nights, builds; /* what it was learned from */
};

/* What stands behind a series' own history, in every test (rc_compare):
 *   - a round's noise: 1 % with the weight of NOISE_ROUND_PRIOR_DF degrees
 *     of freedom; the rounds themselves soon outweigh it;
 *   - a night's noise: as large as a round's of this very series (a night
 *     moves what its processes move, or less) and never below
 *     NOISE_NIGHT_FLOOR, with the weight of NOISE_NIGHT_PRIOR_DF.
 * Scaled to the series, not borrowed from its device: on an H100 host a
 * launch-bound 128x128 series moved 5-15 % between processes and a
 * bandwidth-bound 1024x1024 one 0.3 % on the same GPU; a prior pooled over
 * the device made the quiet series blind to a 6 % change (measured). A new
 * series therefore needs a change several times its own round spread to be
 * flagged, and its nights soon speak for themselves. */
#define NOISE_ROUND_PRIOR 0.01
#define NOISE_ROUND_PRIOR_DF 2.0
#define NOISE_NIGHT_PER_ROUND 1.0
#define NOISE_NIGHT_FLOOR 0.002
#define NOISE_NIGHT_PRIOR_DF 3.0

/* Learns from nights grouped by build (group[i]: nights with one value were
 * of one build, where nothing changed). Only groups of two or more nights
 * speak of the night effect. */
void noise_learn(const struct night_value *nights, const int *group, int n, struct noise_model *out);
/* A model with the priors above folded in (what a test with no further
 * data would use), for showing and for regressions' smallest step. */
void noise_effective(const struct noise_model *own, struct noise_model *out);
/* The relative spread of one night's value with `rounds` rounds, as an
 * IQR-sized fraction (1.349 standard deviations), by the effective model. */
double noise_night_spread(const struct noise_model *own, int rounds);

/* Two sets of nights of one series compared (A before, B after). */
struct rc_result {
    int nights_a, nights_b, rounds_a, rounds_b;
    double ratio; /* exp(mean B - mean A): > 1 slower for times */
    double se, df, t, p;
    double sigma_night; /* the night sd the test used */
    double sigma_round; /* and a round's (a process's) */
    double noise;       /* one night's spread (noise_night_spread) */
    double threshold;   /* max(min_effect, noise): the smallest change that counts */
};
/* `model` is the series' own history (zeros when it has none); the priors
 * above are added here. 0, or -1 when a side is empty. */
int rc_compare(const struct night_value *a, int ka, const struct night_value *b, int kb,
               const struct noise_model *model, double min_effect, struct rc_result *out);

/* The smallest relative change a test of standard error `se` (log scale)
 * and `df` degrees of freedom would find at two-sided level `alpha` with
 * probability `power` (0.8 is the usual): expm1((t_{alpha} + t_{power}) se).
 * A comparison that could not have seen the change a user cares about says
 * so (compare.h: inconclusive) rather than "same". INFINITY without
 * degrees of freedom. */
double rc_detectable(double se, double df, double alpha, double power);
#define DETECT_POWER 0.8

/* An interleaved A B session (a confirmation, tune's final rounds): the log
 * round medians of A and B round by round; the test is on their
 * differences, so whatever the session shares cancels. */
struct paired_result {
    int n;
    double ratio; /* exp(mean of log B - log A) */
    double sd;    /* of the differences, log scale */
    double t, df, p;
};
int rc_paired(const double *log_a, const double *log_b, int n, struct paired_result *out);

/* Welch's two-sample t-test on log values (rounds of two configs measured
 * in the same rounds but not paired). */
int rc_welch(const double *log_a, int na, const double *log_b, int nb, struct paired_result *out);
#endif
