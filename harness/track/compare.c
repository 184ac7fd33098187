/* compare.h. */
#include "track/compare.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "stats/mwu.h"
#include "stats/stats.h"

const char *verdict_name(enum verdict v) {
    switch (v) {
    case V_REGRESSION: return "REGRESSION";
    case V_IMPROVEMENT: return "improvement";
    case V_FEW: return "cannot tell";
    case V_INCONCLUSIVE: return "inconclusive";
    default: return "same";
    }
}

static double rel_iqr(const double *v, int n) {
    double med = stats_median(v, (size_t)n);
    return n >= 2 && med > 0 ? (stats_quantile(v, (size_t)n, 0.75) - stats_quantile(v, (size_t)n, 0.25)) / med : 0;
}

/* A change's verdict by its direction: slower is a regression unless higher is better. */
static enum verdict direction(double ratio, int higher_better) {
    return (ratio > 1) != (higher_better != 0) ? V_REGRESSION : V_IMPROVEMENT;
}

void compare_series_pooled(const struct series_samples *a, const struct series_samples *b,
                           const struct compare_params *p, struct compare_row *r) {
    memset(r, 0, sizeof *r);
    r->a = a;
    r->b = b;
    /* A side with no samples has nothing to test: mwu_test refuses it and
     * fills nothing, so its p (read uninitialised before) is unknown and
     * the verdict is "cannot tell". */
    struct mwu m = {.p = NAN, .p_min = NAN};
    const int tested = mwu_test(a->v, (size_t)a->n, b->v, (size_t)b->n, &m) == 0;
    r->med_a = stats_median(a->v, (size_t)a->n);
    r->med_b = stats_median(b->v, (size_t)b->n);
    r->r = (struct rc_result){
        .nights_a = 1, .nights_b = 1, .rounds_a = a->n, .rounds_b = b->n, .ratio = r->med_b / r->med_a, .p = m.p};
    if (!tested) {
        r->v = V_FEW;
        return;
    }
    r->r.noise = fmax(rel_iqr(a->v, a->n), rel_iqr(b->v, b->n));
    r->r.threshold = fmax(p->min_effect, r->r.noise);
    if (m.p_min > p->alpha) r->v = V_FEW;
    else if (m.p > p->alpha || fabs(log(r->r.ratio)) < log1p(r->r.threshold)) r->v = V_SAME;
    else r->v = direction(r->r.ratio, a->id.higher_better);
}

void compare_series(const struct series_samples *a, const struct series_samples *b, const struct compare_params *p,
                    struct compare_row *r) {
    if (p->pooled) {
        compare_series_pooled(a, b, p, r);
        return;
    }
    memset(r, 0, sizeof *r);
    r->a = a;
    r->b = b;
    noise_set_find(p->noise, a->id.key, &r->model);
    struct night_value *na, *nb;
    int ka = series_nights(a, &na, NULL), kb = series_nights(b, &nb, NULL);
    if (rc_compare(na, ka, nb, kb, &r->model, p->min_effect, &r->r) != 0) {
        r->v = V_FEW;
        r->med_a = r->med_b = r->r.ratio = NAN;
    } else {
        double ma = 0, mb = 0;
        for (int i = 0; i < ka; i++) ma += na[i].mean / ka;
        for (int i = 0; i < kb; i++) mb += nb[i].mean / kb;
        r->med_a = exp(ma);
        r->med_b = exp(mb);
        r->v = compare_verdict(&r->r, p, a->id.higher_better, &r->suspect);
        r->detectable = compare_detectable(r->r.se, r->r.df, p);
        r->target = p->target;
        if (r->v == V_SAME && !r->suspect && p->target > 0 && r->detectable > p->target) r->v = V_INCONCLUSIVE;
    }
    free(na);
    free(nb);
}

enum verdict compare_verdict(const struct rc_result *r, const struct compare_params *p, int higher_better,
                             int *suspect) {
    const double change = fabs(log(r->ratio));
    *suspect = 0;
    if (r->p <= p->alpha && change >= log1p(r->threshold)) return direction(r->ratio, higher_better);
    *suspect = p->screen_alpha > 0 && r->p <= p->screen_alpha && change >= log1p(p->min_effect);
    return V_SAME;
}

double compare_detectable(double se, double df, const struct compare_params *p) {
    const double level = p->screen_alpha > 0 ? p->screen_alpha : p->alpha;
    return fmax(p->min_effect, rc_detectable(se, df, level, DETECT_POWER));
}

int compare_wants_confirmation(const struct compare_row *r) {
    return r->v == V_REGRESSION || r->v == V_IMPROVEMENT || r->v == V_INCONCLUSIVE || (r->v == V_SAME && r->suspect);
}

void compare_row_confirmation(struct compare_row *r, const char *line, double rerun_ratio, double rerun_detectable) {
    str_copy(r->confirmation, sizeof r->confirmation, line);
    r->rejected = !strncmp(line, "rejected", 8);
    /* What the row could see: the better of the nights' comparison and the
     * rerun (a short pilot sees less than the nights did). */
    if (r->rejected && rerun_detectable < r->detectable) r->detectable = rerun_detectable;
    const int was_open = r->v == V_INCONCLUSIVE || (r->suspect && r->v == V_SAME);
    if (was_open && !strncmp(line, "confirmed", 9)) {
        r->v = direction(rerun_ratio, r->a->id.higher_better);
        r->suspect = 0;
    } else if (r->rejected && r->target > 0 && !(r->detectable <= r->target)) {
        r->v = V_INCONCLUSIVE; /* noise it may be, but the rerun could not have seen the target either */
        r->suspect = 0;
    } else if (r->rejected && r->v == V_INCONCLUSIVE) {
        r->v = V_SAME;
    }
}

void compare_row_steadiest(struct compare_row *row, const struct compare_row *alt) {
    if (row->v == V_REGRESSION || row->v == V_IMPROVEMENT) return; /* the wall time's flag stands */
    if (alt->v == V_FEW || !(alt->detectable < row->detectable)) return;
    const struct compare_row wall = *row;
    *row = *alt;
    row->a = wall.a, row->b = wall.b; /* the series as measured, for its name and confirmation */
    row->wall_ratio = wall.r.ratio;
    row->med_a = wall.med_a, row->med_b = wall.med_b; /* shown as times */
}

int compare_lists(const struct series_list *a, const struct series_list *b, const struct compare_params *p,
                  struct compare_row **rows, int *only_a, int *only_b) {
    *rows = xcalloc((size_t)(a->n < b->n ? a->n : b->n) + 1, sizeof **rows);
    int n = 0, i = 0, j = 0;
    *only_a = *only_b = 0;
    while (i < a->n || j < b->n) {
        int c = i >= a->n ? 1 : j >= b->n ? -1 : strcmp(a->s[i].id.key, b->s[j].id.key);
        if (c < 0) {
            ++*only_a;
            i++;
        } else if (c > 0) {
            ++*only_b;
            j++;
        } else {
            compare_series(&a->s[i++], &b->s[j++], p, &(*rows)[n++]);
        }
    }
    return n;
}

static void fmt_time(char *buf, size_t n, double s) {
    if (isnan(s)) str_fmt(buf, n, "-");
    else if (s >= 1) str_fmt(buf, n, "%.3f s", s);
    else if (s >= 1e-3) str_fmt(buf, n, "%.3f ms", s * 1e3);
    else str_fmt(buf, n, "%.1f us", s * 1e6);
}

/* "REGRESSION (unconfirmed)": a flag no confirmation has judged yet;
 * "same (suspect, rejected: ...)": a suspect the confirmation called noise. */
static void verdict_text(const struct compare_row *r, char *buf, size_t n) {
    const char *v = verdict_name(r->v);
    char by[48] = "";
    if (r->measure != MEASURE_WALL) str_fmt(by, sizeof by, " [by %s]", measure_name(r->measure));
    if (r->v == V_INCONCLUSIVE) {
        str_fmt(buf, n, "inconclusive (sees %.0f %%, target %.0f %%)%s%s%s", 100 * r->detectable, 100 * r->target, by,
                r->confirmation[0] ? "; " : "", r->confirmation);
        return;
    }
    if (by[0]) {
        char rest[sizeof r->confirmation + 64];
        struct compare_row plain = *r;
        plain.measure = MEASURE_WALL;
        verdict_text(&plain, rest, sizeof rest);
        str_fmt(buf, n, "%s%s", rest, by);
        return;
    }
    if (r->v == V_SAME && r->suspect && r->confirmation[0]) str_fmt(buf, n, "%s (suspect, %s)", v, r->confirmation);
    else if (r->v == V_SAME && r->suspect) str_fmt(buf, n, "%s (suspect, unconfirmed)", v);
    else if (r->v != V_REGRESSION && r->v != V_IMPROVEMENT) str_copy(buf, n, v);
    else if (!r->confirmation[0]) str_fmt(buf, n, "%s (unconfirmed)", v);
    else str_fmt(buf, n, "%s (%s)", v, r->confirmation);
}

void compare_print(FILE *out, const struct compare_row *rows, int n, int csv) {
    char verdict[256];
    if (csv) {
        fprintf(out, "device,fingerprint,app,input,variant,knobs,wg,iters,nights_a,rounds_a,nights_b,rounds_b,"
                     "median_a_s,median_b_s,ratio,p,df,sigma_night,noise,threshold,model_df_night,measure,detectable,target,"
                     "verdict\n");
        for (int i = 0; i < n; i++) {
            const struct compare_row *r = &rows[i];
            const struct series_id *id = &r->a->id;
            verdict_text(r, verdict, sizeof verdict);
            fprintf(out, "%s,%s,%s,%s,%s,\"%s\",%ux%u,%ld,%d,%d,%d,%d,%.9g,%.9g,%.6f,%.3g,%.1f,%.4f,%.4f,%.4f,%.0f,",
                    id->spec, id->fp, id->app, id->input, id->variant, id->knobs, id->wg[0], id->wg[1], id->iters,
                    r->r.nights_a, r->r.rounds_a, r->r.nights_b, r->r.rounds_b, r->med_a, r->med_b, r->r.ratio, r->r.p,
                    r->r.df, r->r.sigma_night, r->r.noise, r->r.threshold, r->model.df_night);
            fprintf(out, "%s,%.4f,%.4f,", measure_name(r->measure), r->detectable, r->target);
            csv_field(out, verdict);
            fputc('\n', out);
        }
        return;
    }
    fprintf(out, "%-11s %-6s %-10s %-22s %-7s %-13s %11s %11s %7s %8s %7s %7s  %s\n", "device", "app", "input",
            "variant", "wg", "nights/rnds", "A", "B", "B/A", "p", "min eff", "sees", "verdict");
    for (int i = 0; i < n; i++) {
        const struct compare_row *r = &rows[i];
        const struct series_id *id = &r->a->id;
        char ma[32], mb[32], wg[24], nn[32];
        fmt_time(ma, sizeof ma, r->med_a);
        fmt_time(mb, sizeof mb, r->med_b);
        str_fmt(wg, sizeof wg, "%ux%u", id->wg[0], id->wg[1]);
        str_fmt(nn, sizeof nn, "%d/%d %d/%d", r->r.nights_a, r->r.rounds_a, r->r.nights_b, r->r.rounds_b);
        verdict_text(r, verdict, sizeof verdict);
        fprintf(out, "%-11.11s %-6.6s %-10.10s %-22.22s %-7s %-13s %11s %11s %7.3f %8.2g %6.1f%% %6.1f%%  %s\n", id->spec,
                id->app, id->input, id->variant, wg, nn, ma, mb, r->r.ratio, r->r.p, 100 * r->r.threshold,
                100 * r->detectable, verdict);
    }
}
