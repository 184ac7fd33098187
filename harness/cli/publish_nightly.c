/* publish: a page per nightly series, as `plot nightly` draws it (each
 * night's median with its IQR, the change points `harness regressions`
 * stored as dashed lines), with the nights and the change points and their
 * triage state as tables. The history is loaded from a read-only store. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/util.h"
#include "cli/commands.h"
#include "cli/publish.h"
#include "report/html.h"
#include "store/store.h"
#include "store/store_plot.h"
#include "store/store_publish.h"
#include "store/store_quality.h"
#include "track/series.h"

#define MAX_CP 64

/* The gate's verdicts on this series, by night (store_quality.h). */
struct verdicts {
    int n;
    struct {
        int64_t night;
        char text[96];
    } v[512];
};

static void verdict_add(int64_t night, const struct store_night_verdict *v, void *ctx) {
    struct verdicts *vs = ctx;
    if (vs->n == (int)(sizeof vs->v / sizeof vs->v[0])) return;
    vs->v[vs->n].night = night;
    if (!strcmp(v->verdict, "inconclusive"))
        str_fmt(vs->v[vs->n].text, sizeof vs->v[vs->n].text, "inconclusive (sees %.0f %%, target %.0f %%)",
                100 * v->detectable, 100 * v->target);
    else if (v->detectable == v->detectable)
        str_fmt(vs->v[vs->n].text, sizeof vs->v[vs->n].text, "%s (B/A %.3f, sees %.0f %%%s%s)", v->verdict, v->ratio,
                100 * v->detectable, strcmp(v->measure, "wall") ? ", by " : "",
                strcmp(v->measure, "wall") ? v->measure : "");
    else str_copy(vs->v[vs->n].text, sizeof vs->v[vs->n].text, v->verdict);
    vs->n++;
}

static const char *verdict_of(const struct verdicts *vs, int64_t night) {
    for (int i = 0; i < vs->n; i++)
        if (vs->v[i].night == night) return vs->v[i].text;
    return "";
}

static void nights_table(struct strbuf *b, const struct history *h, struct store *s) {
    const char *unit = h->id.higher_better ? "GB/s" : "s";
    static struct verdicts vs;
    vs.n = 0;
    if (!h->id.higher_better) store_nightly_verdicts(s, h->id.key, verdict_add, &vs);
    sb_printf(b,
              "<table id=\"nights\">\n<tr><th>#</th><th>night (UTC)</th><th>commit</th><th>median (%s)</th>"
              "<th>q1</th><th>q3</th><th>samples</th><th>quality</th><th>against the night before</th></tr>\n",
              unit);
    for (int i = 0; i < h->n; i++) {
        const struct night_point *n = &h->p[i];
        sb_printf(b, "<tr><td class=\"num\">%lld</td><td>", (long long)n->nightly_id);
        html_esc(b, n->when);
        sb_printf(b, "</td><td><code>");
        html_escf(b, "%.12s%s", n->commit, n->dirty ? "+" : "");
        sb_printf(b,
                  "</code></td><td class=\"num\">%.6g</td><td class=\"num\">%.6g</td><td class=\"num\">%.6g</td>"
                  "<td class=\"num\">%d</td><td>%s</td><td>",
                  n->median, n->q1, n->q3, n->n, n->bad ? "disturbed (left out)" : "ok");
        html_esc(b, verdict_of(&vs, n->nightly_id));
        sb_printf(b, "</td></tr>\n");
    }
    sb_printf(b, "</table>\n");
}

static void cp_table(struct strbuf *b, const struct series_change_point *cps, int ncp) {
    if (!ncp) {
        sb_printf(b, "<p>No change points stored for this series (<code>harness regressions</code> finds and stores "
                     "them).</p>\n");
        return;
    }
    sb_printf(b, "<table id=\"change-points\">\n<tr><th>id</th><th>night (UTC)</th><th>change</th><th>direction</th>"
                 "<th>triage</th></tr>\n");
    for (int c = 0; c < ncp; c++) {
        sb_printf(b, "<tr><td class=\"num\">%lld</td><td>", cps[c].id);
        html_esc(b, cps[c].night);
        sb_printf(b, "</td><td class=\"num\">%+.1f %%</td><td>", 100 * cps[c].magnitude);
        html_esc(b, cps[c].direction);
        sb_printf(b, "</td><td class=\"");
        html_esc(b, cps[c].triage);
        sb_printf(b, "\">");
        html_esc(b, cps[c].triage);
        sb_printf(b, "</td></tr>\n");
    }
    sb_printf(b, "</table>\n<p>Set a state with <code>harness triage ID acknowledged|fixed|false-positive</code>."
                 "</p>\n");
}

/* The series' chart: its SVG relative to the site, or NULL. */
static const char *chart(struct publish *p, const struct history *h, const struct series_change_point *cps, int ncp,
                         const char *slug, const char *tmpdir, char *rel, size_t n) {
    if (!p->charts) return NULL;
    char png[PATH_MAX], svg[PATH_MAX];
    str_fmt(png, sizeof png, "%s/fig/%s.png", p->dir, slug);
    str_fmt(svg, sizeof svg, "%s/fig/%s.svg", p->dir, slug);
    str_fmt(rel, n, "fig/%s.svg", slug);
    if (plot_nightly_series(h, cps, ncp, tmpdir, png, svg) == 0) return rel;
    p->failed++;
    return NULL;
}

static void series_page(struct publish *p, struct store *s, const struct history *h, const char *tmpdir,
                        struct strbuf *idx) {
    struct series_change_point cps[MAX_CP];
    const int ncp = store_series_change_points(s, h->id.key, cps, MAX_CP);
    char label[256], slug[200], page[220], rel[300], what[600], cmd[PATH_MAX + 64];
    series_label(&h->id, label, sizeof label);
    html_slug(slug, sizeof slug, "series-", label, h->id.key);
    str_fmt(page, sizeof page, "%s.html", slug);
    const struct night_point *last = &h->p[h->n - 1];
    struct strbuf b = {0};
    html_begin(&b, label, 0);
    sb_printf(&b, "<p>Device <code>");
    html_esc(&b, h->id.spec);
    sb_printf(&b, "</code> (");
    html_esc(&b, h->id.device);
    sb_printf(&b, "), fingerprint <code>");
    html_esc(&b, h->id.fp);
    sb_printf(&b, "</code>; series key <code class=\"key\">");
    html_esc(&b, h->id.key);
    sb_printf(&b, "</code>; %d nights.</p>\n<h2>Trend</h2>\n", h->n);
    str_fmt(what, sizeof what,
            "Each night's %s of %s (IQR bars), change points as dashed lines with their triage state",
            h->id.higher_better ? "copy bandwidth" : "median runtime", label);
    str_fmt(cmd, sizeof cmd, "bin/harness plot nightly --db %s", p->db);
    char commit[64];
    str_fmt(commit, sizeof commit, "%.12s%s (latest night)", last->commit, last->dirty ? "+" : "");
    publish_figure(p, &b, chart(p, h, cps, ncp, slug, tmpdir, rel, sizeof rel), 1, what, commit, h->id.fp, cmd);
    sb_printf(&b, "<h2>Change points</h2>\n");
    cp_table(&b, cps, ncp);
    sb_printf(&b, "<h2>Nights</h2>\n");
    nights_table(&b, h, s);
    html_end(&b);
    publish_write(p, page, &b);
    sb_free(&b);
    int open = 0;
    for (int c = 0; c < ncp; c++) open += !strcmp(cps[c].triage, "detected");
    sb_printf(idx, "<tr><td><a href=\"");
    html_esc(idx, page);
    sb_printf(idx, "\">");
    html_esc(idx, label);
    sb_printf(idx, "</a></td><td><code>");
    html_esc(idx, h->id.fp);
    sb_printf(idx,
              "</code></td><td class=\"num\">%d</td><td class=\"num\">%.4g %s</td><td class=\"num\">%d</td>"
              "<td class=\"num%s\">%d</td></tr>\n",
              h->n, last->median, h->id.higher_better ? "GB/s" : "s", ncp, open ? " detected" : "", open);
}

int publish_nightly(struct publish *p, struct store_reader *rd, struct strbuf *idx) {
    if (!store_pub_has_nightly(rd)) {
        sb_printf(idx, "<p>No nightly series: <code>harness nightly</code> has not run on this database.</p>\n");
        return 0;
    }
    char err[ERR_MAX];
    struct store *s = store_open_readonly(p->db, err, sizeof err);
    struct history_list hl = {0};
    if (!s || history_load(s, &hl, err, sizeof err) != 0) {
        fprintf(stderr, "harness publish: %s\n", err);
        store_close(s);
        return -1;
    }
    const char *tmp = getenv("TMPDIR");
    char tmpl[PATH_MAX];
    str_fmt(tmpl, sizeof tmpl, "%s/harness-publish-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(tmpl)) {
        perror(tmpl);
        history_list_free(&hl);
        store_close(s);
        return -1;
    }
    int shown = 0;
    for (int i = 0; i < hl.n; i++) {
        if (!hl.h[i].n) continue;
        if (!shown++)
            sb_printf(idx, "<table id=\"series\">\n<tr><th>series</th><th>fingerprint</th><th>nights</th>"
                           "<th>latest</th><th>change points</th><th>untriaged</th></tr>\n");
        series_page(p, s, &hl.h[i], tmpl, idx);
    }
    if (shown) sb_printf(idx, "</table>\n");
    else sb_printf(idx, "<p>No nightly series yet (every night excluded, or none run).</p>\n");
    rmdir(tmpl);
    history_list_free(&hl);
    store_close(s);
    return 0;
}
