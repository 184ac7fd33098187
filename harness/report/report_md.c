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

#include "core/variants.h"
#include "core/worker.h"
#include "report/report.h"
#include "stats/round_stats.h"

/* The report's published speedups come without their spread: one within
 * this of 1 counts as no change (its own 1.01x steps are within it). Ours
 * are judged by their rounds (same_across_rounds). */
#define SAME_BAND 0.05
/* Ours: a step is "same" unless the two rows' round medians separate at
 * this significance, and by at least SAME_FLOOR. */
#define SAME_ALPHA 0.05
#define SAME_FLOOR 0.01
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

/* Whether the definition has a rate column (`rate`), beside each time. */
static int has_rate(const struct report *r) { return r->def->rate_factor > 0; }

static void rate_header(const struct report *r, struct strbuf *b, const char *device) {
    sb_printf(b, " %s %s (%s) |", device, r->def->rate_label, r->def->rate_unit);
}

static int direction(double speedup) {
    if (isnan(speedup)) return 2;
    return speedup > 1 + SAME_BAND ? 1 : speedup < 1 - SAME_BAND ? -1 : 0;
}

/* Our step from `from` to `variant`: faster, slower, or the same when the
 * rows' rounds (each a fresh worker process) do not separate; with one
 * round each, the published band. */
static int our_direction(const struct report *r, int device, int input, const char *variant, const char *from,
                         double speedup) {
    if (isnan(speedup)) return 2;
    const struct report_cell *cv = report_find(r, device, input, variant, r->def->wg);
    const struct report_cell *cf = report_find(r, device, input, from, r->def->wg);
    double lv[64], lf[64];
    int nv = cv ? report_round_logs(cv, lv, 64) : 0, nf = cf ? report_round_logs(cf, lf, 64) : 0;
    struct paired_result w;
    if (nv < 2 || nf < 2 || rc_welch(lf, nf, lv, nv, &w) != 0) return direction(speedup);
    if (w.p > SAME_ALPHA || fabs(log(speedup)) < log1p(SAME_FLOOR)) return 0;
    return speedup > 1 ? 1 : -1;
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
    const int rate = has_rate(r);
    sb_printf(b, "| size |%s", t->nrows > 1 ? " variant |" : "");
    for (int d = 0; d < r->ndev; d++)
        if (r->dev[d].ladder) {
            sb_printf(b, " %s (s) |", r->dev[d].info.spec);
            if (rate) rate_header(r, b, r->dev[d].info.spec);
            sb_printf(b, " our speedup |");
        }
    sb_printf(b, " report (s) | report speedup | report / ours | direction |\n|---|%s", t->nrows > 1 ? "---|" : "");
    for (int i = 0; i < (2 + rate) * ladder_count(r) + 4; i++) sb_printf(b, "---|");
    sb_printf(b, "\n");
    for (int in = 0; in < def->ninputs; in++)
        for (int k = 0; k < t->nrows; k++) {
            const struct report_row *row = &t->rows[k];
            sb_printf(b, "| %s |", def->inputs[in]);
            if (t->nrows > 1) sb_printf(b, " %s |", row->variant[0] ? row->variant : row->label);
            if (!row->variant[0]) { /* pending: the report's number, nothing of ours */
                for (int d = 0; d < r->ndev; d++)
                    if (r->dev[d].ladder) sb_printf(b, " not measured |%s - |", rate ? " - |" : "");
                number_cell(b, row->published[in], "%.3f");
                sb_printf(b, " - | - | - |\n");
                continue;
            }
            char ratios[256] = "", dirs[512] = "";
            double pub_from = NAN;
            for (int u = 0; u < def->ntables && row->from[0]; u++)
                for (int q = 0; q < def->tables[u].nrows; q++)
                    if (!strcmp(def->tables[u].rows[q].variant, row->from) && def->tables[u].kind == RK_STEP)
                        pub_from = def->tables[u].rows[q].published[in];
            const double pub = row->published[in], pub_speedup = pub_from / pub;
            for (int d = 0; d < r->ndev; d++) {
                if (!r->dev[d].ladder) continue;
                const struct report_cell *cv = report_cell(r, d, in, row->variant, def->wg);
                const struct report_time tv = report_time_of(r, cv);
                time_cell(b, tv);
                if (rate) number_cell(b, report_rate_of(r, cv), "%.3g");
                const double tf = row->from[0] ? seconds_of(r, d, in, row->from) : NAN;
                const double ours = tf / tv.seconds;
                number_cell(b, ours, "%.2fx");
                if (!isnan(pub / tv.seconds)) {
                    size_t l = strlen(ratios);
                    snprintf(ratios + l, sizeof ratios - l, "%s%.2f", l ? " / " : "", pub / tv.seconds);
                }
                if (!isnan(ours) && !isnan(pub_speedup)) {
                    const int a = our_direction(r, d, in, row->variant, row->from, ours), c = direction(pub_speedup);
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
    for (int k = 0; k < t->nrows; k++)
        if (!t->rows[k].variant[0]) sb_printf(b, "\n%s: not measured: %s.\n", t->rows[k].label, t->rows[k].why);
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

/* The knobs a configuration sets away from the app's defaults ("k=v,..."). */
static void knobs_changed(const struct report *r, const struct knob_set *k, char *buf, size_t n) {
    struct knob_set d;
    knobs_init(&d, r->app->knobs);
    struct strbuf b = {0};
    for (int i = 0; i < k->n && i < d.n; i++)
        if (strcmp(k->value[i], d.value[i])) sb_printf(&b, "%s%s=%s", b.len ? "," : "", d.defs[i].name, k->value[i]);
    str_copy(buf, n, b.s ? b.s : "the default knobs");
    sb_free(&b);
}

/* What `tuned` ran in each column: every device and input's stored
 * configuration, as its knobs away from the defaults and its shape (what
 * the stored rows hold, so --from-db writes the same). */
static void tuned_note(struct report *r, struct strbuf *b, const int *cols, int ncols) {
    sb_printf(b,
              "\nEvery column runs `%s`: the configuration (knobs and shape) `harness tune FILE` stored for"
              " its device and input, stored as variant tuned; \"not tuned\" where there is none.",
              TUNED_VARIANT);
    int n = 0;
    for (int c = 0; c < ncols; c++)
        for (int in = 0; in < r->def->ninputs; in++) {
            const struct report_cell *cell = report_find(r, cols[c], in, TUNED_VARIANT, r->def->wg);
            if (!cell || !cell->tuned) continue;
            char knobs[KNOBS_TEXT_MAX];
            knobs_changed(r, &cell->knobs, knobs, sizeof knobs);
            sb_printf(b, "%s %s %s: %s at %ux%u", n++ ? ";" : " Here:", r->dev[cols[c]].info.spec, r->def->inputs[in],
                      knobs, cell->wg[0], cell->wg[1]);
        }
    sb_printf(b, ".");
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
        /* Directive devices run directive programs: their table is the openacc one. */
        for (int d = 0; d < r->ndev; d++)
            if (!r->dev[d].info.caps.directives) cols[ncols++] = d;
    }
    const int rate = has_rate(r);
    sb_printf(b, "| size |");
    for (int c = 0; c < ncols; c++) {
        sb_printf(b, " %s %s, %s (s) |", r->dev[cols[c]].info.backend, r->dev[cols[c]].info.kind,
                  r->dev[cols[c]].info.spec);
        if (rate) rate_header(r, b, r->dev[cols[c]].info.spec);
    }
    published_header(t, b);
    sb_printf(b, "\n|---|");
    for (int i = 0; i < (1 + rate) * ncols + t->nrows; i++) sb_printf(b, "---|");
    sb_printf(b, "\n");
    for (int in = 0; in < def->ninputs; in++) {
        sb_printf(b, "| %s |", def->inputs[in]);
        for (int c = 0; c < ncols; c++) {
            const struct report_cell *cell = report_cell(r, cols[c], in, t->variant, def->wg);
            time_cell(b, report_time_of(r, cell));
            if (rate) number_cell(b, report_rate_of(r, cell), "%.3g");
        }
        for (int k = 0; k < t->nrows; k++) number_cell(b, t->rows[k].published[in], "%.3f");
        sb_printf(b, "\n");
    }
    if (!strcmp(t->variant, TUNED_VARIANT)) tuned_note(r, b, cols, ncols);
    else sb_printf(b, "\nEvery column runs `%s` at %ux%u.", t->variant, def->wg[0], def->wg[1]);
    if (absent[0]) sb_printf(b, " Not present on this machine: %s.", absent);
    sb_printf(b, "\n");
    for (int c = 0; c < ncols; c++)
        sb_printf(b, "- %s: %s (%s)\n", r->dev[cols[c]].info.spec, r->dev[cols[c]].info.name,
                  r->dev[cols[c]].info.driver);
}

/* Why no directive device is present, from each directive backend's own
 * note (a missing offload compiler, no accelerator). */
static void directive_absence(struct strbuf *b) {
    for (int i = 0; i < backend_count; i++) {
        struct device_info probe = {0};
        str_copy(probe.backend, sizeof probe.backend, backends[i]->name);
        device_caps(&probe);
        if (!probe.caps.directives) continue;
        struct device_info *found = NULL;
        char note[256] = "";
        const int n = backends[i]->list(&found, note, sizeof note);
        free(found);
        sb_printf(b, " %s: %s.", backends[i]->name, n > 0 ? "devices present but not picked for this report" : note);
    }
}

/* Table 15: every directive device (OpenACC, OpenMP target) runs the
 * table's directive variants; where there is none the row stays "not
 * measured", with the probe and each backend's reason. */
/* The compilers a directive device's columns run with: its default (GCC)
 * and, where its backend builds with clang there (OpenMP target; refused
 * with a reason elsewhere), clang, as VARIANT+cc=clang cells. From the
 * database: clang where its cells were stored. */
static int directive_compilers(struct report *r, const struct report_table *t, int d, const char *suffix[2]) {
    int n = 0;
    suffix[n++] = "";
    const struct device_info *info = &r->dev[d].info;
    const struct backend_ops *ops = backend_by_name(info->backend);
    char why[400], name[96];
    str_fmt(name, sizeof name, "%s+cc=clang", t->nprograms ? t->programs[0] : "");
    if (r->from_db ? report_find(r, d, 0, name, r->def->wg) != NULL
                   : ops && ops->compiler_refusal && !ops->compiler_refusal(info, "clang", "O3", why, sizeof why))
        suffix[n++] = "+cc=clang";
    return n;
}

/* A GPU device that runs kernels (CUDA, OpenCL), not directive programs:
 * what the directive table's `against` line compares with. */
static int kernel_gpu(const struct report_device *dev) {
    return !dev->info.caps.directives && !strcmp(dev->info.kind, "gpu");
}

/* The fastest kernel GPU with a time for `variant` at `input`, or -1; its
 * seconds in *best. Measures those cells on first use. */
static int fastest_gpu(struct report *r, int input, const char *variant, double *best) {
    int at = -1;
    for (int d = 0; d < r->ndev; d++) {
        if (!kernel_gpu(&r->dev[d])) continue;
        const double s = seconds_of(r, d, input, variant);
        if (!isnan(s) && (at < 0 || s < *best)) at = d, *best = s;
    }
    return at;
}

/* `against VARIANT` (the guideline's OpenACC against CUDA): under the
 * directive table, each directive cell's time over the fastest GPU
 * device's VARIANT at the same input, a line per input; a sentence where
 * there is nothing to compare. */
static void against_lines(struct report *r, const struct report_table *t, struct strbuf *b, const int *cols,
                          int ncols, const char *suffix[][2], const int *ncc) {
    const struct report_def *def = r->def;
    int gpus = 0;
    for (int d = 0; d < r->ndev; d++) gpus += kernel_gpu(&r->dev[d]);
    sb_printf(b, "\nAgainst `%s` on a GPU: ", t->against);
    if (!gpus) {
        sb_printf(b, "no GPU device (other than a directive one) ran here, so the directive programs have nothing"
                     " to be compared with (a GPU's CUDA or OpenCL `%s` is the yardstick).\n",
                  t->against);
        return;
    }
    if (!ncols) {
        sb_printf(b, "no directive device ran here, so there is nothing to compare.\n");
        return;
    }
    sb_printf(b, "each directive cell's time over the fastest GPU device's `%s` at the same input (above 1x the"
                 " directive program is slower).\n\n",
              t->against);
    for (int in = 0; in < def->ninputs; in++) {
        if (!report_input_runs(r, in)) continue;
        double base = NAN;
        const int g = fastest_gpu(r, in, t->against, &base);
        if (g < 0) {
            sb_printf(b, "- %s: no GPU device has a verified `%s` here.\n", def->inputs[in], t->against);
            continue;
        }
        sb_printf(b, "- %s:", def->inputs[in]);
        int n = 0;
        for (int c = 0; c < ncols; c++)
            for (int k = 0; k < ncc[c]; k++)
                for (int v = 0; v < t->nprograms; v++) {
                    char name[96];
                    str_fmt(name, sizeof name, "%s%s", t->programs[v], suffix[c][k]);
                    const double s = seconds_of(r, cols[c], in, name);
                    if (isnan(s)) continue;
                    sb_printf(b, "%s %s `%s` %.2fx", n++ ? "," : "", r->dev[cols[c]].info.spec, name, s / base);
                }
        if (!n) sb_printf(b, " no directive cell has a time");
        sb_printf(b, " %s %s `%s` (%.3g s).\n", n ? "against" : "to set against", r->dev[g].info.spec, t->against,
                  base);
    }
}

static void openacc_table(struct report *r, const struct report_table *t, struct strbuf *b) {
    const struct report_def *def = r->def;
    int cols[REPORT_MAX_DEVICES], ncols = 0, ncells = 0;
    const char *suffix[REPORT_MAX_DEVICES][2];
    int ncc[REPORT_MAX_DEVICES];
    for (int d = 0; d < r->ndev; d++)
        if (r->dev[d].info.caps.directives) cols[ncols++] = d;
    if (!t->nprograms) ncols = 0;
    for (int c = 0; c < ncols; c++) ncells += (ncc[c] = directive_compilers(r, t, cols[c], suffix[c])) * t->nprograms;
    sb_printf(b, "| size |");
    if (!ncols) sb_printf(b, " OpenACC here |");
    for (int c = 0; c < ncols; c++)
        for (int k = 0; k < ncc[c]; k++)
            for (int v = 0; v < t->nprograms; v++)
                sb_printf(b, " %s `%s`%s (s) |", r->dev[cols[c]].info.spec, t->programs[v], *suffix[c][k] ? " clang" : "");
    published_header(t, b);
    sb_printf(b, "\n|---|");
    for (int i = 0; i < (ncols ? ncells : 1) + t->nrows; i++) sb_printf(b, "---|");
    sb_printf(b, "\n");
    for (int in = 0; in < def->ninputs; in++) {
        sb_printf(b, "| %s |", def->inputs[in]);
        if (!ncols) sb_printf(b, " not measured |");
        for (int c = 0; c < ncols; c++)
            for (int k = 0; k < ncc[c]; k++)
                for (int v = 0; v < t->nprograms; v++) {
                    char name[96];
                    str_fmt(name, sizeof name, "%s%s", t->programs[v], suffix[c][k]);
                    time_cell(b, report_time_of(r, report_cell(r, cols[c], in, name, def->wg)));
                }
        for (int k = 0; k < t->nrows; k++) number_cell(b, t->rows[k].published[in], "%.3f");
        sb_printf(b, "\n");
    }
    const char *probe = report_probe(r, "openacc");
    if (ncols) {
        sb_printf(b,
                  "\nEach column runs a directive program of this app (OpenACC or OpenMP target, `run` in its"
                  " report.def) at %ux%u: vector_length or thread_limit %u (harness/backend/README.md), built by"
                  " the device's default compiler or, in the columns marked clang, by clang (cc=clang).",
                  def->wg[0], def->wg[1], def->wg[0]);
        sb_printf(b, " Probed: %s.\n", probe);
        for (int c = 0; c < ncols; c++)
            sb_printf(b, "- %s: %s (%s)\n", r->dev[cols[c]].info.spec, r->dev[cols[c]].info.name,
                      r->dev[cols[c]].info.driver);
    } else {
        sb_printf(b, "\nProbed on this machine: %s.", probe);
        if (!t->nprograms) sb_printf(b, " The table names no directive program (`run` in report.def).");
        else if (r->from_db) sb_printf(b, " No directive device ran in this report.");
        else directive_absence(b);
        sb_printf(b, " The row stays empty rather than borrowing a number.\n");
    }
    if (t->against[0]) against_lines(r, t, b, cols, ncols, suffix, ncc);
}

/* A `host` column (a variant whose host program is in another language) on
 * a ladder device: shown where any of its cells ran, else named with its
 * reason under the table (a C-only device: CUDA, OpenMP). Measures its
 * cells on the first pass, as every table does. */
static int host_column_runs(struct report *r, const struct report_row *row, int device, const char **why) {
    int runs = 0;
    *why = NULL;
    for (int in = 0; in < r->def->ninputs; in++) {
        const struct report_cell *c = report_cell(r, device, in, row->variant, r->def->wg);
        if (c && c->m.status != ST_INVALID) runs = 1;
        else if (c && !*why) *why = c->m.reason;
    }
    return runs;
}

static void hostlang_table(struct report *r, const struct report_table *t, struct strbuf *b) {
    const struct report_def *def = r->def;
    int cols[REPORT_MAX_ROWS * REPORT_MAX_DEVICES][2], ncols = 0; /* (row, device) of each measured host column */
    struct strbuf not_run = {0};
    for (int k = 0; k < t->nrows; k++)
        for (int d = 0; d < r->ndev && t->rows[k].variant[0]; d++) {
            const char *why;
            if (!r->dev[d].ladder) continue;
            if (host_column_runs(r, &t->rows[k], d, &why)) {
                cols[ncols][0] = k;
                cols[ncols++][1] = d;
            } else
                sb_printf(&not_run, "%s %s on %s: %s", not_run.s ? ";" : "", t->rows[k].label, r->dev[d].info.spec,
                          why && why[0] ? why : "not run");
        }
    sb_printf(b, "| size |");
    for (int d = 0; d < r->ndev; d++)
        if (r->dev[d].ladder) sb_printf(b, " C host, %s (s) |", r->dev[d].info.spec);
    for (int c = 0; c < ncols; c++)
        sb_printf(b, " %s host, %s (s) |", t->rows[cols[c][0]].label, r->dev[cols[c][1]].info.spec);
    published_header(t, b);
    sb_printf(b, "\n|---|");
    for (int i = 0; i < ladder_count(r) + ncols + t->nrows; i++) sb_printf(b, "---|");
    sb_printf(b, "\n");
    for (int in = 0; in < def->ninputs; in++) {
        sb_printf(b, "| %s |", def->inputs[in]);
        for (int d = 0; d < r->ndev; d++)
            if (r->dev[d].ladder) time_cell(b, report_time_of(r, report_cell(r, d, in, t->variant, def->wg)));
        for (int c = 0; c < ncols; c++)
            time_cell(b, report_time_of(r, report_cell(r, cols[c][1], in, t->rows[cols[c][0]].variant, def->wg)));
        for (int k = 0; k < t->nrows; k++) number_cell(b, t->rows[k].published[in], "%.3f");
        sb_printf(b, "\n");
    }
    sb_printf(b, "\nThe C host is this harness running `%s`%s.", t->variant,
              strcmp(t->variant, TUNED_VARIANT) ? "" : " (each device's stored configuration at its own shape)");
    for (int k = 0; k < t->nrows; k++)
        if (t->rows[k].variant[0])
            sb_printf(b,
                      " The %s host runs `%s`: the same kernels with the same options and schedule, driven by a"
                      " host program in that language, timed by its own clock and verified like the C host's.",
                      t->rows[k].label, t->rows[k].variant);
    if (not_run.s) sb_printf(b, " Not run:%s.", not_run.s);
    sb_free(&not_run);
    int probed = 0;
    for (int k = 0; k < t->nrows; k++) {
        if (!strcmp(t->rows[k].label, "C") || t->rows[k].variant[0]) continue;
        char key[128];
        str_fmt(key, sizeof key, "hostlang:%s", t->rows[k].label);
        sb_printf(b, "%s %s: %s;", probed++ ? "" : " Other host languages, probed here:", t->rows[k].label,
                  report_probe(r, key));
    }
    if (probed)
        sb_printf(b, " not measured: the harness has no host program in those languages, and a number from"
                     " another program would not be this one's.");
    sb_printf(b, "\n");
}

static void speedup_table(struct report *r, const struct report_table *t, struct strbuf *b) {
    const struct report_def *def = r->def;
    for (int k = 0; k < t->nrows; k++) {
        const struct report_row *row = &t->rows[k];
        sb_printf(b, "| size |");
        for (int d = 0; d < r->ndev; d++)
            if (r->dev[d].ladder)
                sb_printf(b, " %s: %s (s) | %s (s) | our speedup |", r->dev[d].info.spec, row->from, row->variant);
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

/* Figure 7: the ladder's rate per step and device (issue 38: P for each step). */
static void ladder_figure(struct report *r, struct strbuf *b, int input, int nsteps) {
    const struct report_def *def = r->def;
    char rel[1200], why[1024];
    const int rate = has_rate(r);
    sb_printf(b, "\n### Figure 7: the ladder, %s per step%s%s\n\n", rate ? def->rate_label : "runs per second",
              input >= 0 ? " at " : "", input >= 0 ? def->inputs[input] : "");
    if (input < 0 || !nsteps) {
        sb_printf(b, "Not drawn: %s.\n", input < 0 ? "no input ran" : "the definition has no ladder steps");
        return;
    }
    if (report_figure_ladder(r, input, rel, sizeof rel, why, sizeof why) != 0) {
        sb_printf(b, "Not drawn: %s\n", why);
        return;
    }
    sb_printf(b, "![the ladder at %s](%s)\n\n", def->inputs[input], rel);
    if (rate)
        sb_printf(b,
                  "%s (%s: the MLUPS column x %.3g) of each step's variant in ladder order, one line per device"
                  " that runs every table; higher is faster, a point missing where the cell has no time.\n",
                  def->rate_label, def->rate_unit, def->rate_factor);
    else
        sb_printf(b,
                  "Runs per second (1 / the seconds of the whole run; the definition gives no `rate`) of each"
                  " step's variant in ladder order, one line per device that runs every table; higher is faster.\n");
}

static void figures(struct report *r, struct strbuf *b) {
    const struct report_def *def = r->def;
    char rel[1200], why[1024];
    const int nshapes = quick_shapes(r);
    const char *steps[REPORT_MAX_LADDER];
    const int nsteps = def->ladder_figure ? report_ladder_steps(def, steps) : 0, ladder_in = report_input_run_last(r);
    if (!r->drawing) { /* the measuring pass */
        for (int in = 0; in < def->ninputs; in++)
            for (int d = 0; d < r->ndev; d++)
                for (int s = 0; s < nshapes && r->dev[d].ladder && report_input_runs(r, in); s++)
                    report_cell(r, d, in, def->wg_variant, def->shapes[s]);
        for (int d = 0; d < r->ndev && ladder_in >= 0; d++)
            for (int s = 0; s < nsteps && r->dev[d].ladder; s++) report_cell(r, d, ladder_in, steps[s], def->wg);
        return;
    }
    sb_printf(b, "\n## Figures\n\n### Figure 1: time to launch a kernel against its number of arguments\n\n");
    if (report_figure_launch_cost(r, r->db_path, rel, sizeof rel, why, sizeof why) == 0)
        sb_printf(b,
                  "![Figure 1](%s)\n\nMicroseconds per launch (the host's enqueue loop, median of the"
                  " repetitions), buffers against integers, per device (`harness launch-cost`).\n",
                  rel);
    else sb_printf(b, "Not drawn: %s\n", why);
    if (def->figures_note[0]) sb_printf(b, "\n%s\n", def->figures_note); /* seed 000's Figure 2: a diagram */
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
    if (def->ladder_figure) ladder_figure(r, b, ladder_in, nsteps);
}

static void preamble(struct report *r, struct strbuf *b) {
    const struct report_def *def = r->def;

    sb_printf(b, "# %s: the report's tables on this machine%s\n\n", r->app->description, r->quick ? " (--quick)" : "");
    /* A report cut short says so in the file itself, not only on the
     * terminal that ran it (issue 34: the partial file read as whole). */
    if (harness_interrupted)
        sb_printf(b, "**PARTIAL: this run was interrupted; cells after that point say \"crashed\" (interrupted) or are"
                     " missing. Run the command again for the whole report.**\n\n");
    sb_printf(b, "- Command: `%s`, %s; commit %.12s%s; built by %s; database `%s`%s.\n", r->command, r->when, r->commit,
              r->dirty ? " (with uncommitted changes)" : "", r->compiler, r->db_path,
              r->from_db ? " (tables and figures drawn again from its rows by `harness report --from-db`)" : "");
    sb_printf(b, "- Report numbers: %s, from `%s`.\n", def->reference, def->path);
    sb_printf(b,
              "- Every time is the median end-to-end seconds of %d repetitions in %d round%s (each round a fresh"
              " worker process per device, the cells in a shuffled order; %d warm-up a round), work-group"
              " %ux%u, verified against the app's reference; a cell that failed shows its status, never a time."
              " ‡: ran fewer steps than the input's own count (at most %.2f s a repetition) and scaled to"
              " all of them. †: not verified by design (the kernels are emptied).\n",
              r->reps, r->rounds, r->rounds == 1 ? "" : "s", r->warmup, def->wg[0], def->wg[1], r->target_s);
    sb_printf(b,
              "- Our speedup: this run's, over the step a row builds on, from the times measured here. Report"
              " speedup: the same ratio of the report's seconds (step tables; its \"speedup over the previous"
              " step\"), or the report's own figure (speedup tables)."
              " Direction: ours is faster or slower only when the two rows' round medians separate (Welch's"
              " t-test on the rounds, p <= %.2g, and at least %.0f %%), else the same; the report's within"
              " %.0f %%. \"differs\" rows are explained below their table from this run's measurements.\n",
              SAME_ALPHA, 100 * SAME_FLOOR, 100 * SAME_BAND);
    if (r->host[0][0] || r->host[1][0])
        sb_printf(b, "- The host%s: before, %s; after, %s.\n",
                  r->disturbed ? " WAS DISTURBED while this was measured"
                                 " (read the times with that in mind)"
                               : "",
                  r->host[0][0] ? r->host[0] : "not checked", r->host[1][0] ? r->host[1] : "not checked");
    sb_printf(b, "\n");
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
        case RK_RESOURCES: report_resources_table(r, t, body); break;
        }
    }
    figures(r, body);
}

/* Two passes: the first measures every cell (in table order, which is the
 * order the step budget learns from; then the later rounds of every cell,
 * shuffled), the second writes, so a table's explanations can quote cells
 * of later tables (the empty kernels of Table 6) and no figure is drawn
 * from half the data. */
void report_measure(struct report *r) {
    struct strbuf body = {0};
    struct tally tl = {0, 0};
    r->drawing = 0;
    body_of(r, &body, &tl);
    if (!r->from_db) report_more_rounds(r);
    sb_free(&body);
    r->measured_all = 1;
}

int report_write_markdown(struct report *r) {
    struct strbuf b = {0}, body = {0};
    struct tally tl = {0, 0};
    if (!r->measured_all) report_measure(r);
    r->drawing = 1;
    body_of(r, &body, &tl);
    preamble(r, &b);
    /* A blank line first: a line right under a table is read as one more
     * row of it (the published H100 report showed this sentence as a row). */
    sb_printf(&b, "\nDirections of the steps: %d agree with the report, %d differ (each explained below its table).\n",
              tl.agree, tl.disagree);
    sb_printf(&b, "%s", body.s ? body.s : "");
    int rc = file_write_all(r->out_md, b.s, b.len);
    sb_free(&b);
    sb_free(&body);
    return rc;
}
