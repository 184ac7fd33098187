/* The gate between two sets of runs (`harness compare`), on the right unit
 * (round_stats.h): each run of a series is one night, its value the mean of
 * its rounds' log medians; the variance of the difference has a night part
 * (from the series' noise model, learned from nights of one build, and from
 * the sides' own nights when they hold several) and a round part (the
 * rounds' own spread). A series changed when a t-test on that gives
 * p <= alpha AND the change is at least max(min_effect, one night's spread)
 * — a shift within a night's own wobble is not worth an alarm however
 * significant. A change past min_effect at p <= screen_alpha that is not a
 * change by that rule is a suspect: not an alarm, but worth a confirmation
 * (confirm.h), whose paired rounds cancel the night effect that hides a
 * few percent from one night against one night (nightly_gate.h).
 * A comparison that could not have seen a change of the series' target
 * (COMPARE_TARGET, --target) is inconclusive, never "same": on a noisy
 * host (a 2-core VM whose nights swung 25-32 %) "same" hid a 40 % slowdown.
 * On CPUs the gate may judge a series by a steadier measure than its wall
 * time (compare_row_steadiest).
 * Repetitions of one process are never counted as independent:
 * measured on an H200 host, doing so flagged 18 of 48 comparisons of one
 * build at p <= 0.002. */
#ifndef HARNESS_COMPARE_H
#define HARNESS_COMPARE_H
#include <stdio.h>

#include "stats/round_stats.h"
#include "track/noise.h"
#include "track/series.h"

enum verdict { V_SAME, V_REGRESSION, V_IMPROVEMENT, V_FEW, V_INCONCLUSIVE };

/* The change a comparison must be able to see to call a series the same. */
#define COMPARE_TARGET 0.10

struct compare_params {
    double alpha;                  /* default 0.002 */
    double min_effect;             /* default 0.03; one night's spread when larger */
    double screen_alpha;           /* default 0.1: a suspect below it (0: no suspects) */
    const struct noise_set *noise; /* the series' models; NULL: the default prior only */
    int pooled;                    /* the old statistic, for comparison only (compare_series_pooled) */
    double target;                 /* default COMPARE_TARGET; <= 0: never inconclusive (the old rule) */
};
#define COMPARE_DEFAULTS                                                                                               \
    ((struct compare_params){.alpha = 0.002, .min_effect = 0.03, .screen_alpha = 0.1, .target = COMPARE_TARGET})

struct compare_row {
    const struct series_samples *a, *b;
    struct noise_model model; /* the series' model as used */
    struct rc_result r;
    double med_a, med_b; /* geometric means of the round medians */
    enum verdict v;
    int suspect;       /* V_SAME, but p <= screen_alpha past min_effect */
    double detectable; /* the smallest change this comparison sees (compare_detectable) */
    double target;     /* the change it had to be able to see (the params') */
    enum measure measure; /* what judged it: wall time, or a steadier measure (compare_row_steadiest) */
    double wall_ratio;    /* B/A of the wall time, when another measure judged */
    /* What a confirmation (confirm.h) said of this change, when one did. */
    char confirmation[200];
    int rejected; /* a confirmation called it noise */
};

/* The statistic this harness used before rounds, kept to show what it did
 * on the same nights: every repetition of a side pooled as if independent,
 * a two-sided Mann-Whitney U test, a change when p <= alpha and the medians
 * differ by at least max(min_effect, the larger relative IQR). */
void compare_series_pooled(const struct series_samples *a, const struct series_samples *b,
                           const struct compare_params *p, struct compare_row *out);
/* Judges one series present in both (by p->pooled's statistic). */
void compare_series(const struct series_samples *a, const struct series_samples *b, const struct compare_params *p,
                    struct compare_row *out);
/* The verdict and suspicion of a comparison's result, as compare_series
 * gives them (the tests' generators judge with the same rule). */
enum verdict compare_verdict(const struct rc_result *r, const struct compare_params *p, int higher_better,
                             int *suspect);
/* The smallest relative change a comparison of standard error `se` and `df`
 * degrees of freedom would screen (p <= screen_alpha, or alpha without a
 * screen) four times in five, and never under min_effect: what it could
 * have seen. */
double compare_detectable(double se, double df, const struct compare_params *p);
/* A flag, a suspect or an inconclusive series: what a confirmation measures
 * again (the interleaved rounds cancel the night effect that made it so). */
int compare_wants_confirmation(const struct compare_row *r);
/* Records a confirmation's line (confirm_describe) and what it could see
 * (its detectable change; NAN unknown) on a row: a confirmed suspect or
 * inconclusive series becomes the change it is (by the rerun's ratio); a
 * rejection settles it as noise (an inconclusive series becomes "same")
 * when the better of the nights' comparison and the rerun could see the
 * row's target, else the row is inconclusive. */
void compare_row_confirmation(struct compare_row *r, const char *line, double rerun_ratio, double rerun_detectable);
/* Judges `row` (wall time) by `alt`, the same series by a steadier measure,
 * when alt sees a smaller change: alt's statistics and verdict, but a
 * change the wall time flags stands (a lost thread or a wait moves the wall
 * time and not the CPU's counters). */
void compare_row_steadiest(struct compare_row *row, const struct compare_row *alt);
const char *verdict_name(enum verdict v);

/* Pairs the series of two lists by key (both sorted). Returns the number of
 * rows (malloc'd in *rows); *only_a / *only_b count the unpaired. */
int compare_lists(const struct series_list *a, const struct series_list *b, const struct compare_params *p,
                  struct compare_row **rows, int *only_a, int *only_b);
/* The table, or CSV with a header. */
void compare_print(FILE *out, const struct compare_row *rows, int n, int csv);
#endif
