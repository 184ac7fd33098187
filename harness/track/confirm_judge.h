/* The confirmation's decisions, apart from its measuring (confirm.c) so the
 * tests' generated sessions run through the very same code: the verdict on
 * paired rounds, whether a series wants more rounds, and how many. */
#ifndef HARNESS_CONFIRM_JUDGE_H
#define HARNESS_CONFIRM_JUDGE_H
#include "confirm.h"

/* Judges c on n pairs of log values (build A's and B's round medians, round
 * by round), as its look number ++c->looks: c->r, c->detectable (what these
 * pairs see at this look's level four times in five, never under
 * min_effect), c->verdict ("confirmed" when p <= the level, past
 * min_effect and the way the flag went; else "rejected"; "failed" under two
 * pairs) and c->reason. The level: `alpha` for a flag's first look, else
 * CONFIRM_ALPHA_OPEN / CONFIRM_LOOKS (confirm.h). */
void confirm_judge_pairs(struct confirm_series *c, const double *log_a, const double *log_b, int n, double alpha,
                         double min_effect);
/* Rejected so far, its rounds cannot yet see a change of `target`, and it
 * has looks left. */
int confirm_wants_more(const struct confirm_series *c, double target);
/* The pairs of rounds to add to every series that wants more (*open of
 * them): enough for the neediest to see the target (a detectable change
 * shrinks as 1/sqrt(pairs)), cut to what `left_s` seconds allow at
 * `per_pair_s` a pair and series; 0 when none wants more or fewer than two
 * pairs fit. */
int confirm_batch(const struct confirm_series *c, int n, double target, double per_pair_s, double left_s, int *open);
#endif
