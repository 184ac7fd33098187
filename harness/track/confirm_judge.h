/* The confirmation's decisions, apart from its measuring (confirm.c) so the
 * tests' generated sessions run through the very same code: the verdict on
 * paired rounds, which series want more rounds, and how many each. */
#ifndef HARNESS_CONFIRM_JUDGE_H
#define HARNESS_CONFIRM_JUDGE_H
#include "track/confirm.h"

/* Judges c on n pairs of log values (build A's and B's round medians, round
 * by round): c->r, c->detectable (what these pairs see at the level of a
 * decision, four times in five, never under min_effect), c->verdict
 * ("confirmed" when p <= the level, past min_effect and the way a flag went;
 * else "rejected"; "failed" under two pairs) and c->reason. The level:
 * `alpha` on a flag's first look, else CONFIRM_ALPHA_OPEN / CONFIRM_LOOKS. */
void confirm_judge_pairs(struct confirm_series *c, const double *log_a, const double *log_b, int n, double alpha,
                         double min_effect);
/* Not confirmed, its rounds cannot yet see a change of `target` (or an
 * inconclusive series not measured again yet), and it has looks left. */
int confirm_wants_more(const struct confirm_series *c, double target);
/* The pairs to add to each series (more[i], 0: none) that wants more: each
 * the pairs its spread (its pairs', else its rounds' on the nights) says it
 * needs to see the target at a decision's level, at least
 * CONFIRM_OPEN_FIRST, granted the cheapest first while `left_s` seconds
 * allow at `per_pair_s` a pair (0: unknown, the cheapest alone, to learn
 * it; a series is measured whole or not at all: half its pairs would
 * decide nothing).
 * Returns how many series got pairs. */
int confirm_plan(const struct confirm_series *c, int n, double target, double per_pair_s, double left_s, int *more);
#endif
