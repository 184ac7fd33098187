/* The report's figures, drawn with gnuplot from the cells just measured:
 * work-group shapes per input (Figures 3-5, plots/wg.gp), the roofline
 * (Figure 6, plots/roofline.gp) and the launch cost (Figure 1, from the
 * launch-cost rows this run stored). Each writes PNG and SVG into the
 * report's figure folder and hands back the PNG's path as the markdown
 * links it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "report/gnuplot.h"
#include "report/launch_cost_plot.h"
#include "report/report.h"

static void figure_paths(const struct report *r, const char *stem, char png[], char svg[], size_t n, char *rel,
                         size_t reln) {
    str_fmt(png, n, "%s/%s.png", r->fig_dir, stem);
    str_fmt(svg, n, "%s/%s.svg", r->fig_dir, stem);
    str_fmt(rel, reln, "%s/%s.png", r->fig_rel, stem);
}

static int draw(const char *script, const char *dat, const struct strbuf *rows, const char *const vars[][2], int nvars,
                const char *png, const char *svg, char *why, size_t whyn) {
    if (file_write_all(dat, rows->s, rows->len) != 0) {
        snprintf(why, whyn, "cannot write %s", dat);
        return -1;
    }
    const char *outs[2] = {png, svg};
    int rc = gnuplot_draw(script, vars, nvars, NULL, outs, 2, why, whyn);
    remove(dat);
    return rc;
}

/* Device names repeat across backends of one GPU; the spec tells them apart. */
static void device_label(const struct report_device *d, char *out, size_t n) {
    str_fmt(out, n, "%s (%s)", d->info.name, d->info.spec);
}

int report_figure_wg(struct report *r, int device, int input, char *rel, size_t reln, char *why, size_t whyn) {
    const struct report_def *def = r->def;
    struct strbuf rows = {0};
    int n = 0, scaled = 0;
    for (int s = 0; s < def->nshapes; s++) {
        const struct report_cell *c = report_find(r, device, input, def->wg_variant, def->shapes[s]);
        /* (shapes --quick did not run have no cell and no bar) */
        if (!c || c->m.status != ST_OK) continue; /* invalid here, or failed: no bar */
        const double k = (double)c->m.iters_full / (double)c->m.iters;
        scaled |= c->m.iters < c->m.iters_full;
        sb_printf(&rows, "%d \"%ux%u\" %.9g %.9g %.9g\n", n++, c->wg[0], c->wg[1], c->m.median * k, c->m.q1 * k,
                  c->m.q3 * k);
    }
    if (!n) {
        snprintf(why, whyn, "no shape of %s verified on this device and input", def->wg_variant);
        sb_free(&rows);
        return -1;
    }
    char stem[256], png[4200], svg[4200], dat[4200], title[512], label[400];
    str_fmt(stem, sizeof stem, "wg-%s-%s", r->dev[device].info.spec, def->inputs[input]);
    for (char *p = stem; *p; p++)
        if (*p == ':' || *p == '.') *p = '-';
    figure_paths(r, stem, png, svg, sizeof png, rel, reln);
    str_fmt(dat, sizeof dat, "%s/%s.dat", r->fig_dir, stem);
    device_label(&r->dev[device], label, sizeof label);
    str_fmt(title, sizeof title, "%s: %s, input %s%s", label, def->wg_variant, def->inputs[input],
            scaled ? " (runtimes scaled to the full step count)" : "");
    const char *vars[][2] = {{"datafile", dat}, {"pngfile", png}, {"svgfile", svg}, {"plottitle", title}};
    int rc = draw("plots/wg.gp", dat, &rows, vars, 4, png, svg, why, whyn);
    sb_free(&rows);
    return rc;
}

int report_figure_roofline(struct report *r, int device, char *rel, size_t reln, char *why, size_t whyn) {
    const struct report_def *def = r->def;
    const struct report_device *d = &r->dev[device];
    if (!(d->copy_gbs > 0) || !(d->fp32_gflops > 0)) {
        snprintf(why, whyn, "the device's copy bandwidth or FP32 rate was not measured");
        return -1;
    }
    const struct variant *v = variant_find(&r->vars, def->roofline_variant);
    if (!v) {
        snprintf(why, whyn, "no variant %s", def->roofline_variant);
        return -1;
    }
    const double flops = r->app->flops_per_cell(&v->knobs), bytes = r->app->bytes_per_cell(&v->knobs);
    struct strbuf rows = {0};
    int n = 0;
    for (int i = 0; i < def->ninputs; i++) {
        const struct report_cell *c = report_find(r, device, i, def->roofline_variant, def->wg);
        if (!c || c->m.status != ST_OK || !(c->m.median > 0)) continue;
        sb_printf(&rows, "\"%s\" %.9g %.9g\n", def->inputs[i], flops / bytes,
                  flops * c->m.cell_updates / c->m.median / 1e9);
        n++;
    }
    if (!n) {
        snprintf(why, whyn, "%s verified on no input of this device", def->roofline_variant);
        sb_free(&rows);
        return -1;
    }
    char stem[256], png[4200], svg[4200], dat[4200], title[512], label[400], gbs[32], gfl[32];
    str_fmt(stem, sizeof stem, "roofline-%s", d->info.spec);
    for (char *p = stem; *p; p++)
        if (*p == ':' || *p == '.') *p = '-';
    figure_paths(r, stem, png, svg, sizeof png, rel, reln);
    str_fmt(dat, sizeof dat, "%s/%s.dat", r->fig_dir, stem);
    device_label(d, label, sizeof label);
    str_fmt(title, sizeof title, "Roofline of %s: %s, %.2f FLOP/byte by the cost model", label, def->roofline_variant,
            flops / bytes);
    snprintf(gbs, sizeof gbs, "%.6g", d->copy_gbs);
    snprintf(gfl, sizeof gfl, "%.6g", d->fp32_gflops);
    const char *vars[][2] = {{"datafile", dat},    {"pngfile", png},  {"svgfile", svg},
                             {"plottitle", title}, {"peak_gbs", gbs}, {"peak_gflops", gfl}};
    int rc = draw("plots/roofline.gp", dat, &rows, vars, 6, png, svg, why, whyn);
    sb_free(&rows);
    return rc;
}

int report_figure_ladder(struct report *r, int input, char *rel, size_t reln, char *why, size_t whyn) {
    const struct report_def *def = r->def;
    const char *steps[REPORT_MAX_LADDER];
    const int nsteps = report_ladder_steps(def, steps), rate = def->rate_factor > 0;
    struct strbuf rows = {0};
    sb_printf(&rows, "index step");
    int ndev = 0, points = 0;
    for (int d = 0; d < r->ndev; d++)
        if (r->dev[d].ladder) sb_printf(&rows, " \"%s\"", r->dev[d].info.spec), ndev++;
    sb_printf(&rows, "\n");
    for (int s = 0; s < nsteps; s++) {
        sb_printf(&rows, "%d \"%s\"", s, steps[s]);
        for (int d = 0; d < r->ndev; d++) {
            if (!r->dev[d].ladder) continue;
            const struct report_cell *c = report_find(r, d, input, steps[s], def->wg);
            const double v = !c ? NAN : rate ? report_rate_of(r, c) : 1 / report_time_of(r, c).seconds;
            if (isnan(v) || !(v > 0)) sb_printf(&rows, " -");
            else sb_printf(&rows, " %.9g", v), points++;
        }
        sb_printf(&rows, "\n");
    }
    if (!points) {
        snprintf(why, whyn, "no step of the ladder has a verified time at %s", def->inputs[input]);
        sb_free(&rows);
        return -1;
    }
    char stem[256], png[4200], svg[4200], dat[4200], title[512], ylabel[160], nd[16];
    str_fmt(stem, sizeof stem, "ladder-%s", def->inputs[input]);
    for (char *p = stem; *p; p++)
        if (*p == ':' || *p == '.') *p = '-';
    figure_paths(r, stem, png, svg, sizeof png, rel, reln);
    str_fmt(dat, sizeof dat, "%s/%s.dat", r->fig_dir, stem);
    str_fmt(title, sizeof title, "The ladder at %s, each step's %s", def->inputs[input],
            rate ? def->rate_label : "runs per second");
    if (rate) str_fmt(ylabel, sizeof ylabel, "%s (%s)", def->rate_label, def->rate_unit);
    else str_copy(ylabel, sizeof ylabel, "runs per second (1 / seconds of the whole run)");
    snprintf(nd, sizeof nd, "%d", ndev);
    const char *vars[][2] = {{"datafile", dat},    {"pngfile", png},     {"svgfile", svg},
                             {"plottitle", title}, {"ylabeltext", ylabel}, {"ndev", nd}};
    int rc = draw("plots/ladder.gp", dat, &rows, vars, 6, png, svg, why, whyn);
    sb_free(&rows);
    return rc;
}

int report_figure_launch_cost(struct report *r, const char *db_path, char *rel, size_t reln, char *why, size_t whyn) {
    char png[4200], svg[4200];
    figure_paths(r, "launch-cost", png, svg, sizeof png, rel, reln);
    return launch_cost_plot(db_path, png, NULL, why, whyn);
}
