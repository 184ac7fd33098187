/* Where a step's speedup here goes the other way from the report's, the
 * measurements that bear on why, in words. No guessing: every number comes
 * from this run: the two rows' per-step times and bandwidth against the
 * device's measured copy peak, the host's share from the empty-kernel twin
 * (the report's own probe, Table 6), and the launch cost of Figure 1. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/report.h"
#include "stats/round_stats.h"

static double per_step_us(const struct report_cell *c) {
    return c && (c->m.status == ST_OK || c->m.status == ST_UNVERIFIED) ? 1e6 * c->m.median / (double)c->m.iters : NAN;
}

static double peak_share(const struct report *r, int device, const struct report_cell *c) {
    const double peak = r->dev[device].copy_gbs;
    return c && peak > 0 && !isnan(c->m.gbs) ? c->m.gbs / peak : NAN;
}

void report_explain(struct report *r, struct strbuf *out, int device, int input, const char *variant, const char *from,
                    double ours, double theirs) {
    const struct report_def *def = r->def;
    const struct report_device *d = &r->dev[device];
    const struct report_cell *cv = report_find(r, device, input, variant, def->wg);
    const struct report_cell *cf = report_find(r, device, input, from, def->wg);
    const double tv = per_step_us(cv), tf = per_step_us(cf);
    const double pv = peak_share(r, device, cv), pf = peak_share(r, device, cf);
    sb_printf(out, "- **%s, %s**: %s over %s is %.2fx here, %.2fx in the report. Per step: %s %.1f us, %s %.1f us",
              d->info.spec, def->inputs[input], variant, from, ours, theirs, from, tf, variant, tv);
    if (!isnan(pv) && !isnan(pf))
        sb_printf(out,
                  "; effective bandwidth (the app's byte model) %.0f %% and %.0f %% of the measured copy (%.0f GB/s)",
                  100 * pf, 100 * pv, d->copy_gbs);
    sb_printf(out, ".");
    /* Noise first: rows whose rounds do not separate have no direction. */
    double lv[64], lf[64];
    const int nv = cv ? report_round_logs(cv, lv, 64) : 0, nf = cf ? report_round_logs(cf, lf, 64) : 0;
    struct paired_result w;
    if (nv >= 2 && nf >= 2 && rc_welch(lf, nf, lv, nv, &w) == 0 && w.p > 0.05)
        sb_printf(out,
                  " The %.1f %% difference does not separate across the rows' rounds (%d and %d, p %.2f):"
                  " this measurement does not resolve a direction.",
                  100 * fabs(ours - 1), nf, nv, w.p);
    /* The host's share at this size: the empty twin keeps every launch and
     * read of its full variant but does no work. It speaks for rows with the
     * same host work per step, which shows as a per-step time of the same order. */
    const struct report_cell *ce = def->host_empty[0] ? report_find(r, device, input, def->host_empty, def->wg) : NULL;
    const struct report_cell *cfull = def->host_full[0] ? report_find(r, device, input, def->host_full, def->wg) : NULL;
    const double te = per_step_us(ce), tfull = per_step_us(cfull);
    if (!isnan(te) && !isnan(tfull) && tfull > 0 && tv >= 0.5 * te && tf >= 0.5 * te) {
        const double share = te / tfull;
        sb_printf(out, " With the kernels emptied (%s) a step still takes %.1f us, %.0f %% of %s's %.1f us:",
                  def->host_empty, te, 100 * share, def->host_full, tfull);
        if (share >= 0.6)
            sb_printf(out, " at this size the launches and reads, not the kernels, set the time, so a change"
                           " inside the kernels moves little or goes either way with the host's noise.");
        else sb_printf(out, " the kernels themselves dominate here, so the kernels' own cost decides.");
    }
    const struct launch_cost_summary *lc = &r->launch[device];
    if (lc->have && lc->us_0_args > 0 && !isnan(tv))
        sb_printf(out,
                  " One launch costs %.2f us with no arguments and %.2f us with %d buffer arguments (Figure 1):"
                  " a step of %s is %.1f launches' worth.",
                  lc->us_0_args, lc->us_max_buffers, lc->max_args, variant, tv / lc->us_0_args);
    if (!isnan(pv) && !isnan(pf) && pv >= 0.6 && pf >= 0.6)
        sb_printf(out, " Both rows stream at 60 %% or more of the copy peak: the memory system bounds both, so"
                       " the step cannot gain much.");
    sb_printf(out, "\n");
}
