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
#endif
