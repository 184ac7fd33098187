/* Change-point detection over one series of nightly medians: E-divisive
 * means (Matteson and James 2014) to place the splits and a t-test of the
 * segments on either side to judge them, as Hunter / Apache Otava do.
 * A split counts only when p <= alpha, the step is at least min_effect and
 * both segments hold at least min_segment nights, so one bad night (a
 * spike) is never a change. */
#ifndef HARNESS_CHANGEPOINT_H
#define HARNESS_CHANGEPOINT_H

struct cp_params {
    double alpha;      /* significance of the t-test; default 0.001 */
    double min_effect; /* smallest relative step reported; default 0.03 */
    int min_segment;   /* nights on each side; default 3 */
};
#define CP_DEFAULTS ((struct cp_params){.alpha = 0.001, .min_effect = 0.03, .min_segment = 3})

struct change_point {
    int index;    /* the first night of the new level */
    double ratio; /* median after / median before (> 1: slower, for times) */
    double p;     /* t-test of the neighbouring segments on log values, corrected
                   * for the number of splits searched (changepoint.c) */
};

/* Finds the change points of x[0..n-1] (positive values: times or rates),
 * in order of index. Returns how many (at most max_out). */
int cp_detect(const double *x, int n, const struct cp_params *p, struct change_point *out, int max_out);

/* The series' night-to-night noise as a relative spread (a robust standard
 * deviation of the log values from successive differences), which steps and
 * spikes barely move. `harness regressions` takes max(min_effect, this) as
 * the smallest step worth reporting. 0 with fewer than 3 values. */
double cp_noise(const double *x, int n);

/* A step cp_detect saw but would not call: too few nights at the new
 * level, or a p-value not yet small enough. regressions says so, with how
 * many more nights at this level and noise it would need. */
struct cp_candidate {
    int index;    /* the first night of the would-be level */
    int after;    /* nights at that level so far */
    double ratio; /* median after / median before */
    double p;     /* corrected as cp_detect's are */
    int more;     /* nights more it needs to be called; -1: more than 60 */
};
/* The strongest uncalled split of the last segment (after the last change
 * cp_detect found, where new steps appear), allowing fewer than
 * min_segment nights after it. 1 and *out when one steps by at least
 * min_effect, else 0. */
int cp_candidate(const double *x, int n, const struct change_point *found, int nfound, const struct cp_params *p,
                 struct cp_candidate *out);

struct noise_model;
/* The smallest step `harness regressions` reports in a series: the floor
 * (--min-effect), the series' own night-to-night noise (cp_noise) and one
 * night's spread by its noise model (round_stats.h) with `rounds` rounds,
 * whichever is largest. */
double cp_min_effect(const double *x, int n, const struct noise_model *m, int rounds, double floor);
#endif
