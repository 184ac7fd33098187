/* publish: a page per device x app x input with the latest verified
 * measurement of every variant (median, spread as CV %, shape, commit,
 * date), the chart of the variants at that input (`plot variants`: every
 * device, one chart per app and input) and, where a variant was verified at
 * several shapes, `plot wg`'s figures for that device and input. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "cli/commands.h"
#include "cli/publish.h"
#include "report/html.h"
#include "store/store_publish.h"

struct one_case {
    char *fp, *spec, *app, *input, *last;
    long ok;
    int variants, max_shapes;
    char slug[120], page[130];
};

struct cases {
    struct one_case *c;
    int n;
};

static void case_add(const struct pub_case *r, void *ctx) {
    struct cases *cs = ctx;
    cs->c = xrealloc(cs->c, (size_t)(cs->n + 1) * sizeof *cs->c);
    struct one_case *c = &cs->c[cs->n++];
    *c = (struct one_case){xstrdup(r->fp),
                           xstrdup(r->spec),
                           xstrdup(r->app),
                           xstrdup(r->input),
                           xstrdup(r->last),
                           r->ok,
                           r->variants,
                           r->max_shapes,
                           "",
                           ""};
    char key[600];
    str_fmt(key, sizeof key, "%s-%s-%s-%s", r->spec, r->app, r->input, r->fp);
    html_slug(c->slug, sizeof c->slug, "", key, NULL);
    str_fmt(c->page, sizeof c->page, "case-%s.html", c->slug);
}

/* The rows of one case's table, and the commits they name. */
struct latest {
    struct strbuf rows, commits;
    struct {
        char variant[64], commit[48];
    } v[256];
    int n;
};

static void num(struct strbuf *b, double v, const char *fmt) {
    if (isnan(v)) sb_printf(b, "<td class=\"num\">n/a</td>");
    else {
        sb_printf(b, "<td class=\"num\">");
        sb_printf(b, fmt, v);
        sb_printf(b, "</td>");
    }
}

static void latest_row(const struct pub_latest *r, void *ctx) {
    struct latest *l = ctx;
    struct strbuf *b = &l->rows;
    char commit[48];
    str_fmt(commit, sizeof commit, "%.12s%s", r->commit, r->dirty ? "+" : "");
    sb_printf(b, "<tr><td>");
    html_esc(b, r->variant);
    sb_printf(b, "</td><td>%dx%d</td>", r->wx, r->wy);
    num(b, r->med * 1e3, "%.4g");
    const double iqr = isnan(r->q1) || isnan(r->q3) ? NAN : (r->q3 - r->q1) * 1e3;
    num(b, r->samples > 1 ? iqr : NAN, "%.3g");
    num(b, 100 * r->cv, "%.2f");
    sb_printf(b, "<td class=\"num\">%ld</td><td class=\"num\">%ld</td><td><code>", r->samples, r->iters);
    html_esc(b, commit);
    sb_printf(b, "</code></td><td>");
    html_esc(b, r->when);
    sb_printf(b, "</td><td class=\"knobs\"><code>");
    html_esc(b, r->knobs);
    sb_printf(b, "</code></td></tr>\n");
    if (l->n < (int)(sizeof l->v / sizeof l->v[0])) {
        str_copy(l->v[l->n].variant, sizeof l->v[0].variant, r->variant);
        str_copy(l->v[l->n].commit, sizeof l->v[0].commit, commit);
        l->n++;
    }
    if (!l->commits.s || !strstr(l->commits.s, commit))
        sb_printf(&l->commits, "%s%s", l->commits.len ? ", " : "", commit);
}

static const char *variant_commit(const struct latest *l, const char *variant) {
    for (int i = 0; i < l->n; i++)
        if (!strcmp(l->v[i].variant, variant)) return l->v[i].commit;
    return l->commits.s;
}

/* plot wg's figures of one case, each with its caption. */
struct wg_ctx {
    struct publish *p;
    struct strbuf *b;
    const struct latest *l;
    const struct one_case *c;
};

static void wg_drawn(const struct wg_drawn *f, void *ctx) {
    struct wg_ctx *w = ctx;
    if (f->bars < 2) { /* one shape: no sweep to show */
        char png[PATH_MAX];
        str_copy(png, sizeof png, f->svg);
        remove(f->svg);
        char *dot = strrchr(png, '.');
        if (dot) strcpy(dot, ".png"), remove(png);
        return;
    }
    const char *rel = f->svg + strlen(w->p->dir) + 1;
    char what[1400], cmd[2048];
    str_fmt(what, sizeof what, "Runtime per work-group shape: %s, input %s, variant %s, %ld steps (%d shapes)", f->spec,
            f->input, f->variant, f->iters, f->bars);
    str_fmt(cmd, sizeof cmd, "bin/harness plot wg --app %s --device %s --input %s --variant %s --db %s", w->c->app,
            f->fp, f->input, f->variant, w->p->db);
    sb_printf(w->b, "<h3>");
    html_esc(w->b, f->variant);
    sb_printf(w->b, "</h3>\n");
    publish_figure(w->p, w->b, rel, 1, what, variant_commit(w->l, f->variant), f->fp, cmd);
}

/* The variants chart of an app and input (every device): its SVG relative
 * to the site, or NULL when none was drawn. */
static const char *variants_chart(struct publish *p, const struct one_case *c, char *rel, size_t n) {
    if (!p->charts) return NULL;
    char key[400], png[PATH_MAX];
    str_fmt(key, sizeof key, "%s-%s", c->app, c->input);
    html_slug(rel, n - 8, "fig/variants-", key, NULL);
    str_fmt(png, sizeof png, "%s/%s.png", p->dir, rel);
    strcat(rel, ".svg");
    return plot_variants_chart(p->db, c->app, c->input, 0, png, 0) == EXIT_OK ? rel : NULL;
}

static int case_page(struct publish *p, struct store_reader *rd, const struct one_case *c, const char *fps,
                     const char *chart) {
    struct latest *l = xcalloc(1, sizeof *l);
    char err[ERR_MAX];
    if (store_pub_latest(rd, c->fp, c->app, c->input, latest_row, l, err, sizeof err) != 0) {
        fprintf(stderr, "harness publish: %s: %s\n", p->db, err);
        sb_free(&l->rows);
        sb_free(&l->commits);
        free(l);
        return -1;
    }
    struct strbuf b = {0};
    char title[600];
    str_fmt(title, sizeof title, "%s, input %s on %s", c->app, c->input, c->spec);
    html_begin(&b, title, 0);
    sb_printf(&b, "<p>Device <code>");
    html_esc(&b, c->spec);
    sb_printf(&b, "</code>, fingerprint <code>");
    html_esc(&b, c->fp);
    sb_printf(&b, "</code>; %ld verified measurements of %d variants.</p>\n", c->ok, c->variants);
    sb_printf(&b,
              "<h2>Latest verified measurement of each variant</h2>\n<table id=\"latest\">\n<tr><th>variant</th>"
              "<th>shape</th><th>median (ms)</th><th>IQR (ms)</th><th>CV %%</th><th>samples</th><th>steps</th>"
              "<th>commit</th><th>date (UTC)</th><th>knobs</th></tr>\n%s</table>\n",
              l->rows.s ? l->rows.s : "");
    sb_printf(&b, "<p>CV: the samples' standard deviation over their mean (n/a under two samples).</p>\n");
    char what[600], cmd[1400];
    str_fmt(what, sizeof what,
            "The variants of %s at input %s on every device (latest verified measurement, median "
            "runtime with IQR whiskers, the input's latest step count)",
            c->app, c->input);
    str_fmt(cmd, sizeof cmd, "bin/harness plot variants --app %s --input %s --db %s", c->app, c->input, p->db);
    sb_printf(&b, "<h2>Variants</h2>\n");
    publish_figure(p, &b, chart, 1, what, l->commits.s, fps, cmd);
    if (c->max_shapes > 1) {
        sb_printf(&b, "<h2>Work-group shapes</h2>\n");
        if (!p->charts) {
            publish_figure(p, &b, NULL, 0, "Runtime per work-group shape", l->commits.s, c->fp, "bin/harness plot wg");
        } else {
            char out[PATH_MAX], slug[200];
            str_fmt(slug, sizeof slug, "fig/wg-%s", c->slug);
            str_fmt(out, sizeof out, "%s/%s", p->dir, slug);
            const char *filt[4] = {c->app, c->fp, c->input, NULL};
            struct wg_ctx w = {p, &b, l, c};
            if (plot_wg_figures(p->db, filt, out, wg_drawn, &w) != EXIT_OK) p->failed++;
        }
    }
    html_end(&b);
    publish_write(p, c->page, &b);
    sb_free(&b);
    sb_free(&l->rows);
    sb_free(&l->commits);
    free(l);
    return 0;
}

int publish_cases(struct publish *p, struct store_reader *rd, struct strbuf *idx) {
    struct cases cs = {0};
    char err[ERR_MAX];
    if (store_pub_cases(rd, case_add, &cs, err, sizeof err) != 0) {
        fprintf(stderr, "harness publish: %s: %s\n", p->db, err);
        return -1;
    }
    if (!cs.n) sb_printf(idx, "<p>No verified measurements yet.</p>\n");
    else
        sb_printf(idx, "<table id=\"cases\">\n<tr><th>app</th><th>input</th><th>device</th><th>fingerprint</th>"
                       "<th>variants</th><th>verified</th><th>shape sweep</th><th>latest</th></tr>\n");
    int rc = 0;
    char chart[300] = "";
    const char *chart_at = NULL;
    for (int i = 0; i < cs.n && rc == 0; i++) {
        const struct one_case *c = &cs.c[i];
        /* The cases of one app and input are together: one chart, their fingerprints. */
        struct strbuf fps = {0};
        for (int j = 0; j < cs.n; j++)
            if (!strcmp(cs.c[j].app, c->app) && !strcmp(cs.c[j].input, c->input))
                sb_printf(&fps, "%s%s", fps.len ? ", " : "", cs.c[j].fp);
        if (i == 0 || strcmp(cs.c[i - 1].app, c->app) || strcmp(cs.c[i - 1].input, c->input))
            chart_at = variants_chart(p, c, chart, sizeof chart);
        rc = case_page(p, rd, c, fps.s, chart_at);
        sb_free(&fps);
        sb_printf(idx, "<tr><td>");
        html_esc(idx, c->app);
        sb_printf(idx, "</td><td><a href=\"");
        html_esc(idx, c->page);
        sb_printf(idx, "\">");
        html_esc(idx, c->input);
        sb_printf(idx, "</a></td><td><code>");
        html_esc(idx, c->spec);
        sb_printf(idx, "</code></td><td><code>");
        html_esc(idx, c->fp);
        sb_printf(idx, "</code></td><td class=\"num\">%d</td><td class=\"num\">%ld</td><td>%s</td><td>", c->variants,
                  c->ok, c->max_shapes > 1 ? "yes" : "no");
        html_esc(idx, c->last);
        sb_printf(idx, "</td></tr>\n");
    }
    if (cs.n) sb_printf(idx, "</table>\n");
    for (int i = 0; i < cs.n; i++) {
        free(cs.c[i].fp);
        free(cs.c[i].spec);
        free(cs.c[i].app);
        free(cs.c[i].input);
        free(cs.c[i].last);
    }
    free(cs.c);
    return rc;
}
