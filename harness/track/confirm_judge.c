/* confirm_judge.h. */
#include "track/confirm_judge.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "stats/pvalue.h"

#define DECISION_ALPHA (CONFIRM_ALPHA_OPEN / CONFIRM_LOOKS)

void confirm_judge_pairs(struct confirm_series *c, const double *log_a, const double *log_b, int n, double alpha,
                         double min_effect) {
    if (c->looks++ || !c->evidence) alpha = DECISION_ALPHA;
    if (rc_paired(log_a, log_b, n, &c->r) != 0) {
        str_copy(c->verdict, sizeof c->verdict, "failed");
        str_fmt(c->reason, sizeof c->reason, "only %d complete pair%s of rounds", n, n == 1 ? "" : "s");
        c->detectable = NAN;
        return;
    }
    /* What this rerun sees: at its own level, four times in five. */
    c->detectable = fmax(min_effect, rc_detectable(c->r.sd / sqrt((double)n), n - 1, alpha, DETECT_POWER));
    const int same_way = isnan(c->flagged_ratio) || (c->r.ratio > 1) == (c->flagged_ratio > 1);
    const int big = fabs(log(c->r.ratio)) >= log1p(min_effect);
    const int sure = c->r.p <= alpha;
    str_copy(c->verdict, sizeof c->verdict, same_way && big && sure ? "confirmed" : "rejected");
    if (!sure) str_fmt(c->reason, sizeof c->reason, "p %.2g > %.2g", c->r.p, alpha);
    else if (!big)
        str_fmt(c->reason, sizeof c->reason, "%+.1f %% is under the %.0f %% that counts", 100 * (c->r.ratio - 1),
                100 * min_effect);
    else if (!same_way) str_copy(c->reason, sizeof c->reason, "the rerun moved the other way");
    else c->reason[0] = '\0';
}

int confirm_wants_more(const struct confirm_series *c, double target) {
    const int unmeasured = c->open && !c->looks && !strcmp(c->verdict, "open");
    return target > 0 && (unmeasured || (!strcmp(c->verdict, "rejected") && !(c->detectable <= target))) &&
           c->looks < CONFIRM_LOOKS;
}

/* The pairs a series needs in all for a decision to see the target, from
 * the spread of its pairs so far: the smallest n with
 * (t_crit(n - 1) + t_power(n - 1)) sd / sqrt(n) <= log(1 + target). Solved,
 * not scaled: with few pairs the critical value of a strict level (about
 * 150 at 3 degrees of freedom) dwarfs the spread's share. */
static int pairs_needed(const struct confirm_series *c, double target) {
    const double want = log1p(target);
    /* Before any pair, a pair's spread from the rounds' on the nights. */
    const double sd = c->r.n >= 2 ? c->r.sd : M_SQRT2 * c->round_sd;
    const int from = c->r.n + 2 > CONFIRM_OPEN_FIRST ? c->r.n + 2 : CONFIRM_OPEN_FIRST;
    if (!(want > 0) || isnan(sd)) return from > 2 * c->r.n ? from : 2 * c->r.n;
    if (sd <= 0) return from;
    for (int n = from; n <= 4096; n += n < 64 ? 1 : n / 16) {
        const double k =
            student_t_critical(DECISION_ALPHA, n - 1) + student_t_critical(2 * (1 - DETECT_POWER), n - 1);
        if (k * sd / sqrt((double)n) <= want) return n;
    }
    return 4096;
}

struct need {
    int i, pairs;
};
static int by_pairs(const void *a, const void *b) {
    return ((const struct need *)a)->pairs - ((const struct need *)b)->pairs;
}

int confirm_plan(const struct confirm_series *c, int n, double target, double per_pair_s, double left_s, int *more) {
    struct need *w = calloc((size_t)n + 1, sizeof *w);
    int k = 0, granted = 0;
    for (int i = 0; i < n; i++) {
        more[i] = 0;
        if (!confirm_wants_more(&c[i], target)) continue;
        int add = pairs_needed(&c[i], target) - c[i].r.n;
        w[k++] = (struct need){i, add < 2 ? 2 : add};
    }
    qsort(w, (size_t)k, sizeof *w, by_pairs);
    for (int j = 0; j < k; j++) {
        const double cost = w[j].pairs * per_pair_s;
        if (per_pair_s <= 0 && granted) break; /* the cost unknown: the cheapest alone, to learn it */
        if (per_pair_s > 0 && cost > left_s) continue; /* a cheaper one may still fit */
        more[w[j].i] = w[j].pairs;
        left_s -= cost;
        granted++;
    }
    free(w);
    return granted;
}
