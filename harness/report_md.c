/* The report's markdown: every table of the definition in the report's
 * layout (size rows; runtime; speedup over the previous step), ours beside
 * the report's numbers and the ratio between them, the direction of each
 * step compared, the figures, and how it was measured. Cells come from
 * report_cell (measured on first use), so writing a table is what runs it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report.h"

/* A speedup within this of 1 counts as no change: two runs of one build
 * differ by a few percent on a busy host, and the report's own 1.01x steps
 * are within it too. */
#define SAME_BAND 0.05
/* --quick draws the work-group figures from the first shapes listed only. */
#define REPORT_QUICK_SHAPES 8

static void time_cell(struct strbuf *b, struct report_time t) {
    if (isnan(t.seconds)) sb_printf(b, " %s |", t.why);
    else if (t.seconds >= 0.001) sb_printf(b, " %.3f%s%s |", t.seconds, t.scaled ? " ‡" : "", t.unverified ? " †" : "");
    else sb_printf(b, " %.3g%s%s |", t.seconds, t.scaled ? " ‡" : "", t.unverified ? " †" : "");
}

static void number_cell(struct strbuf *b, double v, const char *fmt) {
    if (isnan(v)) sb_printf(b, " - |");
    else {
        sb_printf(b, " ");
        sb_printf(b, fmt, v);
        sb_printf(b, " |");
    }
}

static int direction(double speedup) {
    if (isnan(speedup)) return 2;
    return speedup > 1 + SAME_BAND ? 1 : speedup < 1 - SAME_BAND ? -1 : 0;
}

static const char *direction_word(int d) { return d > 0 ? "faster" : d < 0 ? "slower" : "same"; }

struct tally {
    int agree, disagree;
};

static int ladder_count(const struct report *r) {
    int n = 0;
    for (int d = 0; d < r->ndev; d++) n += r->dev[d].ladder;
    return n;
}

static double seconds_of(struct report *r, int device, int input, const char *variant) {
    return report_time_of(r, report_cell(r, device, input, variant, r->def->wg)).seconds;
}

/* step tables: a block of rows per size (and per variant when the table compares several). */
static void step_table(struct report *r, const struct report_table *t, struct strbuf *b, struct tally *tl) {
    const struct report_def *def = r->def;
    struct strbuf why = {0};
    sb_printf(b, "| size |%s", t->nrows > 1 ? " variant |" : "");
    for (int d = 0; d < r->ndev; d++)
        if (r->dev[d].ladder) sb_printf(b, " %s (s) | speedup |", r->dev[d].info.spec);
    sb_printf(b, " report (s) | report speedup | report / ours | direction |\n|---|%s", t->nrows > 1 ? "---|" : "");
    for (int i = 0; i < 2 * ladder_count(r) + 4; i++) sb_printf(b, "---|");
    sb_printf(b, "\n");
    for (int in = 0; in < def->ninputs; in++)
        for (int k = 0; k < t->nrows; k++) {
            const struct report_row *row = &t->rows[k];
            sb_printf(b, "| %s |", def->inputs[in]);
            if (t->nrows > 1) sb_printf(b, " %s |", row->variant);
            char ratios[256] = "", dirs[512] = "";
            double pub_from = NAN;
            for (int u = 0; u < def->ntables && row->from[0]; u++)
                for (int q = 0; q < def->tables[u].nrows; q++)
                    if (!strcmp(def->tables[u].rows[q].variant, row->from) && def->tables[u].kind == RK_STEP)
                        pub_from = def->tables[u].rows[q].published[in];
            const double pub = row->published[in], pub_speedup = pub_from / pub;
            for (int d = 0; d < r->ndev; d++) {
                if (!r->dev[d].ladder) continue;
                const struct report_time tv = report_time_of(r, report_cell(r, d, in, row->variant, def->wg));
                time_cell(b, tv);
                const double tf = row->from[0] ? seconds_of(r, d, in, row->from) : NAN;
                const double ours = tf / tv.seconds;
                number_cell(b, ours, "%.2fx");
                if (!isnan(pub / tv.seconds)) {
                    size_t l = strlen(ratios);
                    snprintf(ratios + l, sizeof ratios - l, "%s%.2f", l ? " / " : "", pub / tv.seconds);
                }
                if (!isnan(ours) && !isnan(pub_speedup)) {
                    const int a = direction(ours), c = direction(pub_speedup);
                    size_t l = strlen(dirs);
                    if (a == c) {
                        tl->agree++;
                        snprintf(dirs + l, sizeof dirs - l, "%sagrees", l ? ", " : "");
                    } else {
                        tl->disagree++;
                        snprintf(dirs + l, sizeof dirs - l, "%s**differs** on %s (%s here, %s there)", l ? ", " : "",
                                 r->dev[d].info.spec, direction_word(a), direction_word(c));
                        if (r->drawing) report_explain(r, &why, d, in, row->variant, row->from, ours, pub_speedup);
                    }
                }
            }
            number_cell(b, pub, "%.3f");
            number_cell(b, pub_speedup, "%.2fx");
            sb_printf(b, " %s | %s |\n", ratios[0] ? ratios : "-", dirs[0] ? dirs : "-");
        }
    if (why.len) sb_printf(b, "\nWhere the direction differs, measured here:\n\n%s", why.s);
    sb_free(&why);
}

static int device_in_class(const struct device_info *info, const char *cls) {
    char backend[32];
    str_copy(backend, sizeof backend, cls);
    char *slash = strchr(backend, '/');
    if (slash) *slash = 0;
    if (strcmp(info->backend, backend)) return 0;
    return !slash || !strcmp(info->kind, slash + 1);
}

static void published_header(const struct report_table *t, struct strbuf *b) {
    for (int k = 0; k < t->nrows; k++) sb_printf(b, " report: %s (s) |", t->rows[k].label);
}

/* classes and devices tables: one column per device that runs, then the report's columns. */
static void devices_table(struct report *r, const struct report_table *t, struct strbuf *b) {
    const struct report_def *def = r->def;
    int cols[REPORT_MAX_DEVICES], ncols = 0;
    char absent[512] = "";
    if (t->kind == RK_CLASSES) {
        for (int c = 0; c < t->nclasses; c++) {
            int found = 0;
            for (int d = 0; d < r->ndev; d++)
                if (device_in_class(&r->dev[d].info, t->classes[c])) cols[ncols++] = d, found = 1;
            if (!found) {
                size_t l = strlen(absent);
                snprintf(absent + l, sizeof absent - l, "%s%s", l ? ", " : "", t->classes[c]);
            }
        }
    } else {
        for (int d = 0; d < r->ndev; d++) cols[ncols++] = d;
    }
    sb_printf(b, "| size |");
    for (int c = 0; c < ncols; c++)
        sb_printf(b, " %s %s, %s (s) |", r->dev[cols[c]].info.backend, r->dev[cols[c]].info.kind,
                  r->dev[cols[c]].info.spec);
    published_header(t, b);
    sb_printf(b, "\n|---|");
    for (int i = 0; i < ncols + t->nrows; i++) sb_printf(b, "---|");
    sb_printf(b, "\n");
    for (int in = 0; in < def->ninputs; in++) {
        sb_printf(b, "| %s |", def->inputs[in]);
        for (int c = 0; c < ncols; c++) time_cell(b, report_time_of(r, report_cell(r, cols[c], in, t->variant, def->wg)));
        for (int k = 0; k < t->nrows; k++) number_cell(b, t->rows[k].published[in], "%.3f");
        sb_printf(b, "\n");
    }
    sb_printf(b, "\nEvery column runs `%s` at %ux%u.", t->variant, def->wg[0], def->wg[1]);
    if (absent[0]) sb_printf(b, " Not present on this machine: %s.", absent);
    sb_printf(b, "\n");
    for (int c = 0; c < ncols; c++)
        sb_printf(b, "- %s: %s (%s)\n", r->dev[cols[c]].info.spec, r->dev[cols[c]].info.name,
                  r->dev[cols[c]].info.driver);
}

static void openacc_table(struct report *r, const struct report_table *t, struct strbuf *b) {
    const char *probe = report_probe(r, "openacc");
    sb_printf(b, "| size | OpenACC here |");
    published_header(t, b);
    sb_printf(b, "\n|---|---|");
    for (int k = 0; k < t->nrows; k++) sb_printf(b, "---|");
    sb_printf(b, "\n");
    for (int in = 0; in < r->def->ninputs; in++) {
        sb_printf(b, "| %s | not measured |", r->def->inputs[in]);
        for (int k = 0; k < t->nrows; k++) number_cell(b, t->rows[k].published[in], "%.3f");
        sb_printf(b, "\n");
    }
    sb_printf(b, "\nProbed on this machine: %s. The harness has no OpenACC port of this app; the row stays"
                 " empty rather than borrowing a number.\n", probe);
}

static void hostlang_table(struct report *r, const struct report_table *t, struct strbuf *b) {
    const struct report_def *def = r->def;
    sb_printf(b, "| size |");
    for (int d = 0; d < r->ndev; d++)
        if (r->dev[d].ladder) sb_printf(b, " C host, %s (s) |", r->dev[d].info.spec);
    published_header(t, b);
    sb_printf(b, "\n|---|");
    for (int i = 0; i < ladder_count(r) + t->nrows; i++) sb_printf(b, "---|");
    sb_printf(b, "\n");
    for (int in = 0; in < def->ninputs; in++) {
        sb_printf(b, "| %s |", def->inputs[in]);
        for (int d = 0; d < r->ndev; d++)
            if (r->dev[d].ladder) time_cell(b, report_time_of(r, report_cell(r, d, in, t->variant, def->wg)));
        for (int k = 0; k < t->nrows; k++) number_cell(b, t->rows[k].published[in], "%.3f");
        sb_printf(b, "\n");
    }
    sb_printf(b, "\nOurs is the C host of this harness running `%s`. Other host languages, probed here:", t->variant);
    for (int k = 0; k < t->nrows; k++) {
        if (!strcmp(t->rows[k].label, "C")) continue;
        char key[128];
        str_fmt(key, sizeof key, "hostlang:%s", t->rows[k].label);
        sb_printf(b, " %s: %s;", t->rows[k].label, report_probe(r, key));
    }
    sb_printf(b, " not measured: the harness has no host program in those languages, and a number from"
                 " another program would not be this one's.\n");
}

static void speedup_table(struct report *r, const struct report_table *t, struct strbuf *b) {
    const struct report_def *def = r->def;
    for (int k = 0; k < t->nrows; k++) {
        const struct report_row *row = &t->rows[k];
        sb_printf(b, "| size |");
        for (int d = 0; d < r->ndev; d++)
            if (r->dev[d].ladder)
                sb_printf(b, " %s: %s (s) | %s (s) | speedup |", r->dev[d].info.spec, row->from, row->variant);
        sb_printf(b, " report speedup |\n|---|");
        for (int i = 0; i < 3 * ladder_count(r) + 1; i++) sb_printf(b, "---|");
        sb_printf(b, "\n");
        for (int in = 0; in < def->ninputs; in++) {
            sb_printf(b, "| %s |", def->inputs[in]);
            for (int d = 0; d < r->ndev; d++) {
                if (!r->dev[d].ladder) continue;
                const struct report_time tf = report_time_of(r, report_cell(r, d, in, row->from, def->wg));
                const struct report_time tv = report_time_of(r, report_cell(r, d, in, row->variant, def->wg));
                time_cell(b, tf);
                time_cell(b, tv);
                number_cell(b, tf.seconds / tv.seconds, "%.1fx");
            }
            number_cell(b, row->published[in], "%.1fx");
            sb_printf(b, "\n");
        }
    }
}

static int quick_shapes(const struct report *r) {
    return r->quick && r->def->nshapes > REPORT_QUICK_SHAPES ? REPORT_QUICK_SHAPES : r->def->nshapes;
}

static void figures(struct report *r, struct strbuf *b) {
    const struct report_def *def = r->def;
    char rel[1200], why[1024];
    const int nshapes = quick_shapes(r);
    if (!r->drawing) { /* the measuring pass */
        for (int in = 0; in < def->ninputs; in++)
            for (int d = 0; d < r->ndev; d++)
                for (int s = 0; s < nshapes && r->dev[d].ladder && report_input_runs(r, in); s++)
                    report_cell(r, d, in, def->wg_variant, def->shapes[s]);
        return;
    }
    sb_printf(b, "\n## Figures\n\n### Figure 1: time to launch a kernel against its number of arguments\n\n");
    if (report_figure_launch_cost(r, r->db_path, rel, sizeof rel, why, sizeof why) == 0)
        sb_printf(b, "![Figure 1](%s)\n\nMicroseconds per launch (the host's enqueue loop, median of the"
                     " repetitions), buffers against integers, per device (`harness launch-cost`).\n", rel);
    else sb_printf(b, "Not drawn: %s\n", why);
    sb_printf(b, "\nFigure 2 of the report is a diagram of the binary reduction; there is nothing to measure.\n");
    for (int in = 0; in < def->ninputs && def->nshapes; in++) {
        sb_printf(b, "\n### Figure %d: work-group shapes at %s (`%s`)\n\n", 3 + in, def->inputs[in], def->wg_variant);
        if (!report_input_runs(r, in)) {
            sb_printf(b, "Not run (--quick).\n");
            continue;
        }
        for (int d = 0; d < r->ndev; d++) {
            if (!r->dev[d].ladder) continue;
            if (report_figure_wg(r, d, in, rel, sizeof rel, why, sizeof why) == 0)
                sb_printf(b, "![%s %s](%s)\n", r->dev[d].info.spec, def->inputs[in], rel);
            else sb_printf(b, "%s: not drawn: %s\n", r->dev[d].info.spec, why);
            /* The best shape, as the report's text names one. */
            const struct report_cell *best = NULL;
            for (int s = 0; s < nshapes; s++) {
                const struct report_cell *c = report_find(r, d, in, def->wg_variant, def->shapes[s]);
                if (c && c->m.status == ST_OK &&
                    (!best || report_time_of(r, c).seconds < report_time_of(r, best).seconds))
                    best = c;
            }
            const double chosen = seconds_of(r, d, in, def->wg_variant);
            if (best)
                sb_printf(b, "\n%s: fastest %ux%u, %.3f s; the report's %ux%u, %.3f s (%+.1f %%).\n\n",
                          r->dev[d].info.spec, best->wg[0], best->wg[1], report_time_of(r, best).seconds, def->wg[0],
                          def->wg[1], chosen, 100 * (chosen / report_time_of(r, best).seconds - 1));
        }
    }
    if (def->roofline_variant[0]) {
        sb_printf(b, "\n### Figure 6: roofline (`%s`)\n\n", def->roofline_variant);
        for (int d = 0; d < r->ndev; d++) {
            if (!r->dev[d].ladder) continue;
            if (report_figure_roofline(r, d, rel, sizeof rel, why, sizeof why) == 0)
                sb_printf(b, "![roofline %s](%s)\n", r->dev[d].info.spec, rel);
            else sb_printf(b, "%s: not drawn: %s\n", r->dev[d].info.spec, why);
        }
    }
}

static void preamble(struct report *r, struct strbuf *b) {
    const struct report_def *def = r->def;

    sb_printf(b, "# %s: the report's tables on this machine%s\n\n", r->app->description,
              r->quick ? " (--quick)" : "");
    sb_printf(b, "- Command: `%s`, %s; commit %.12s%s; built by %s; database `%s`%s.\n", r->command, r->when,
              r->commit, r->dirty ? " (with uncommitted changes)" : "", r->compiler, r->db_path,
              r->from_db ? " (tables and figures drawn again from its rows by `harness report --from-db`)" : "");
    sb_printf(b, "- Report numbers: %s, from `%s`.\n", def->reference, def->path);
    sb_printf(b, "- Every time is the median end-to-end seconds of %d repetitions after %d warm-up, work-group"
                 " %ux%u, verified against the app's reference; a cell that failed shows its status, never a time."
                 " ‡: ran fewer steps than the input's own count (at most %.2f s a repetition) and scaled to"
                 " all of them. †: not verified by design (the kernels are emptied).\n",
              r->reps, r->warmup, def->wg[0], def->wg[1], r->target_s);
    sb_printf(b, "- Speedup: over the step a row builds on (the report's \"speedup over the previous step\")."
                 " Direction: faster, slower, or the same within %.0f %%; \"differs\" rows are explained"
                 " below their table from this run's measurements.\n\n", 100 * SAME_BAND);
    sb_printf(b, "| device | name | driver | role | copy GB/s | FP32 GFLOP/s |\n|---|---|---|---|---|---|\n");
    for (int d = 0; d < r->ndev; d++)
        sb_printf(b, "| %s | %s | %s | %s | %.0f | %.0f |\n", r->dev[d].info.spec, r->dev[d].info.name,
                  r->dev[d].info.driver, r->dev[d].ladder ? "every table" : "device tables", r->dev[d].copy_gbs,
                  r->dev[d].fp32_gflops);
}

/* Every table, then the figures. */
static void body_of(struct report *r, struct strbuf *body, struct tally *tl) {
    for (int i = 0; i < r->def->ntables; i++) {
        const struct report_table *t = &r->def->tables[i];
        sb_printf(body, "\n## Table %d: %s\n\n", t->number, t->title);
        switch (t->kind) {
        case RK_STEP: step_table(r, t, body, tl); break;
        case RK_CLASSES:
        case RK_DEVICES: devices_table(r, t, body); break;
        case RK_OPENACC: openacc_table(r, t, body); break;
        case RK_HOSTLANG: hostlang_table(r, t, body); break;
        case RK_SPEEDUP: speedup_table(r, t, body); break;
        }
    }
    figures(r, body);
}

int report_write_markdown(struct report *r) {
    struct strbuf b = {0}, body = {0};
    struct tally tl = {0, 0};
    /* Two passes: the first measures every cell (in table order, which is
     * the order the step budget learns from), the second writes, so a
     * table's explanations can quote cells of later tables (the empty
     * kernels of Table 6) and no figure is drawn from half the data. */
    r->drawing = 0;
    body_of(r, &body, &tl);
    sb_free(&body);
    body = (struct strbuf){0};
    tl = (struct tally){0, 0};
    r->drawing = 1;
    body_of(r, &body, &tl);
    preamble(r, &b);
    sb_printf(&b, "Directions of the steps: %d agree with the report, %d differ (each explained below its table).\n",
              tl.agree, tl.disagree);
    sb_printf(&b, "%s", body.s ? body.s : "");
    int rc = file_write_all(r->out_md, b.s, b.len);
    sb_free(&b);
    sb_free(&body);
    return rc;
}
