/* confirm_judge.h. */
#include "confirm_judge.h"

#include <math.h>
#include <string.h>

#include "pvalue.h"
#include "util.h"

void confirm_judge_pairs(struct confirm_series *c, const double *log_a, const double *log_b, int n, double alpha,
                         double min_effect) {
    if (c->looks++ || !c->evidence) alpha = CONFIRM_ALPHA_OPEN / CONFIRM_LOOKS;
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
    return target > 0 && !strcmp(c->verdict, "rejected") && !(c->detectable <= target) && c->looks < CONFIRM_LOOKS;
}

/* The pairs a series needs in all for its rounds to see the target at the
 * later looks' level: the detectable change shrinks as 1/sqrt(pairs), and
 * grows by the later looks' stricter critical value (when this one was a
 * flag's first). */
static int pairs_needed(const struct confirm_series *c, double target) {
    double now = log1p(c->detectable);
    const double want = log1p(target), df = c->r.n - 1;
    if (!(now > 0) || !(want > 0) || isinf(now) || !(df > 0)) return 2 * c->r.n;
    const double later = CONFIRM_ALPHA_OPEN / CONFIRM_LOOKS, this_alpha = c->looks == 1 && c->evidence ? -1 : later;
    if (this_alpha < 0) /* a flag's first look was at CONFIRM_ALPHA */
        now *= (student_t_critical(later, df) + student_t_critical(2 * (1 - DETECT_POWER), df)) /
               (student_t_critical(CONFIRM_ALPHA, df) + student_t_critical(2 * (1 - DETECT_POWER), df));
    return (int)ceil(c->r.n * (now / want) * (now / want));
}

int confirm_batch(const struct confirm_series *c, int n, double target, double per_pair_s, double left_s, int *open) {
    int batch = 0;
    *open = 0;
    for (int i = 0; i < n; i++)
        if (confirm_wants_more(&c[i], target)) {
            ++*open;
            const int more = pairs_needed(&c[i], target) - c[i].r.n;
            if (more > batch) batch = more;
        }
    if (!*open) return 0;
    if (batch < 2) batch = 2;
    if (per_pair_s > 0 && batch * *open * per_pair_s > left_s) batch = (int)(left_s / (*open * per_pair_s));
    return batch >= 2 ? batch : 0;
}
