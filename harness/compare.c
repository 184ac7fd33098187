/* compare.h. A series is a regression when B's samples are larger than A's
 * by a two-sided Mann-Whitney U test at p <= alpha AND the medians differ by
 * at least max(min_effect, noise), noise being the larger relative IQR of the
 * two: a shift within the spread of either sample is not worth an alarm
 * however significant. When the sizes cannot reach p <= alpha at all (3
 * against 3 gives p >= 0.1), the verdict is "too few samples", never "same". */
#include "compare.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mwu.h"
#include "stats.h"
#include "util.h"

const char *verdict_name(enum verdict v) {
    switch (v) {
    case V_REGRESSION: return "REGRESSION";
    case V_IMPROVEMENT: return "improvement";
    case V_FEW: return "too few samples";
    default: return "same";
    }
}

static double rel_iqr(const double *v, int n, double med) {
    if (n < 2 || !(med > 0)) return 0;
    return (stats_quantile(v, (size_t)n, 0.75) - stats_quantile(v, (size_t)n, 0.25)) / med;
}

/* The values a side contributes: every sample, or one median per run. */
static int side_values(const struct series_samples *x, int by_run, double *out) {
    if (!by_run) {
        for (int i = 0; i < x->n; i++) out[i] = x->v[i];
        return x->n;
    }
    int n = 0;
    double *tmp = xcalloc((size_t)x->n, sizeof *tmp);
    char *done = xcalloc((size_t)x->n, 1);
    for (int i = 0; i < x->n; i++) {
        if (done[i]) continue;
        int k = 0;
        for (int j = i; j < x->n; j++)
            if (x->run[j] == x->run[i]) {
                tmp[k++] = x->v[j];
                done[j] = 1;
            }
        out[n++] = stats_median(tmp, (size_t)k);
    }
    free(done);
    free(tmp);
    return n;
}

static int runs_of(const struct series_samples *x) {
    int n = 0;
    for (int i = 0; i < x->n; i++) {
        int seen = 0;
        for (int j = 0; j < i && !seen; j++) seen = x->run[j] == x->run[i];
        n += !seen;
    }
    return n;
}

void compare_series(const struct series_samples *a, const struct series_samples *b, const struct compare_params *p,
                    struct compare_row *r) {
    memset(r, 0, sizeof *r);
    r->a = a;
    r->b = b;
    r->by_run = runs_of(a) > 1 || runs_of(b) > 1;
    double *va = xcalloc((size_t)a->n, sizeof *va), *vb = xcalloc((size_t)b->n, sizeof *vb);
    r->na = side_values(a, r->by_run, va);
    r->nb = side_values(b, r->by_run, vb);
    r->med_a = stats_median(va, (size_t)r->na);
    r->med_b = stats_median(vb, (size_t)r->nb);
    r->ratio = r->med_b / r->med_a;
    r->noise = fmax(rel_iqr(va, r->na, r->med_a), rel_iqr(vb, r->nb, r->med_b));
    r->threshold = fmax(p->min_effect, r->noise);
    struct mwu m;
    mwu_test(va, (size_t)r->na, vb, (size_t)r->nb, &m);
    free(va);
    free(vb);
    r->p = m.p;
    r->p_min = m.p_min;
    if (m.p_min > p->alpha) r->v = V_FEW;
    else if (m.p > p->alpha || fabs(log(r->ratio)) < log1p(r->threshold)) r->v = V_SAME;
    else r->v = r->ratio > 1 ? V_REGRESSION : V_IMPROVEMENT;
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
    if (s >= 1) str_fmt(buf, n, "%.3f s", s);
    else if (s >= 1e-3) str_fmt(buf, n, "%.3f ms", s * 1e3);
    else str_fmt(buf, n, "%.1f us", s * 1e6);
}

void compare_print(FILE *out, const struct compare_row *rows, int n, int csv) {
    if (csv) {
        fprintf(out, "device,fingerprint,app,input,variant,knobs,wg,iters,unit,n_a,n_b,median_a_s,median_b_s,ratio,p,"
                     "p_min,noise,threshold,verdict\n");
        for (int i = 0; i < n; i++) {
            const struct compare_row *r = &rows[i];
            const struct series_id *id = &r->a->id;
            fprintf(out, "%s,%s,%s,%s,%s,\"%s\",%ux%u,%ld,%s,%d,%d,%.9g,%.9g,%.6f,%.3g,%.3g,%.4f,%.4f,%s\n", id->spec,
                    id->fp, id->app, id->input, id->variant, id->knobs, id->wg[0], id->wg[1], id->iters,
                    r->by_run ? "runs" : "samples", r->na, r->nb, r->med_a, r->med_b, r->ratio, r->p, r->p_min, r->noise, r->threshold,
                    verdict_name(r->v));
        }
        return;
    }
    fprintf(out, "%-11s %-6s %-10s %-22s %-7s %7s %12s %12s %8s %9s %7s  %s\n", "device", "app", "input", "variant",
            "wg", "n", "median A", "median B", "B/A", "p", "min eff", "verdict");
    for (int i = 0; i < n; i++) {
        const struct compare_row *r = &rows[i];
        const struct series_id *id = &r->a->id;
        char ma[32], mb[32], wg[24], nn[24];
        fmt_time(ma, sizeof ma, r->med_a);
        fmt_time(mb, sizeof mb, r->med_b);
        str_fmt(wg, sizeof wg, "%ux%u", id->wg[0], id->wg[1]);
        str_fmt(nn, sizeof nn, r->by_run ? "%dr/%dr" : "%d/%d", r->na, r->nb);
        fprintf(out, "%-11.11s %-6.6s %-10.10s %-22.22s %-7s %7s %12s %12s %8.3f %9.2g %6.1f%%  %s\n", id->spec,
                id->app, id->input, id->variant, wg, nn, ma, mb, r->ratio, r->p, 100 * r->threshold,
                verdict_name(r->v));
        if (r->v == V_FEW)
            fprintf(out, "%-11s   (with %d and %d %s p cannot go below %.2g)\n", "", r->na, r->nb,
                    r->by_run ? "runs (several runs a side: their medians are tested)" : "samples", r->p_min);
    }
}
