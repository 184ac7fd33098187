/* `harness plot nightly`: one PNG per nightly series (plots/nightly.gp draws
 * it: nightly medians with IQR bars against the night and its commit, stored
 * change points as dashed lines labelled with their triage state) and an
 * index.md linking them all, with each series' latest level and change
 * points. Change points are those `harness regressions` stored; run it
 * first to refresh them. */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/util.h"
#include "cli/commands.h"
#include "report/gnuplot.h"
#include "store/store.h"
#include "store/store_nightly.h"
#include "store/store_plot.h"
#include "track/series.h"

static void usage(FILE *out) {
    fprintf(out, "usage: harness plot nightly [--db PATH] [--out DIR]   (--out-dir is the same)\n"
                 "  One PNG per nightly series (median with IQR bars per night, the night's date and\n"
                 "  commit on the x axis, change points from `harness regressions` as dashed lines)\n"
                 "  and index.md linking them, in DIR (default plots/out/nightly).\n");
}

/* File-name safe: letters, digits, '.', '-'; everything else '_'. */
static void sanitise(char *s) {
    for (; *s; s++)
        if (!(*s >= 'a' && *s <= 'z') && !(*s >= 'A' && *s <= 'Z') && !(*s >= '0' && *s <= '9') && *s != '.' &&
            *s != '-')
            *s = '_';
}

/* Draws one series; 0 when the PNG (and the SVG, when asked for) was written. */
int plot_nightly_series(const struct history *h, const struct series_change_point *cps, int ncp, const char *tmpdir,
                        const char *png, const char *svg) {
    char dat[PATH_MAX], title[512], label[256];
    str_fmt(dat, sizeof dat, "%s/nightly.dat", tmpdir);
    struct strbuf b = {0};
    for (int i = 0; i < h->n; i++) {
        const struct night_point *p = &h->p[i];
        /* "11-22 02:00 1a2b3c4" from "2024-11-22T02:00:01.234Z" */
        sb_printf(&b, "%d \"%.5s %.5s %.7s%s\" %.9g %.9g %.9g\n", i, p->when + 5, p->when + 11, p->commit,
                  p->dirty ? "+" : "", p->median, p->q1, p->q3);
    }
    int rc = file_write_all(dat, b.s ? b.s : "", b.len);
    sb_free(&b);
    if (rc != 0) return -1;
    series_label(&h->id, label, sizeof label);
    str_fmt(title, sizeof title, "%s (%s, %s)", label, h->id.device, h->id.fp);
    const char *var[][2] = {{"datafile", dat},
                            {"pngfile", png},
                            {"plottitle", title},
                            {"ytext", h->id.higher_better ? "copy bandwidth (GB/s)" : "median runtime (s)"},
                            {"svgfile", svg ? svg : ""}};
    /* A change point sits between the last night of the old level and the
     * first of the new one. */
    struct strbuf marks = {0};
    for (int c = 0; c < ncp; c++) {
        int at = -1;
        for (int i = 0; i < h->n && at < 0; i++)
            if (!strcmp(h->p[i].when, cps[c].night)) at = i;
        if (at < 0) continue; /* its night was excluded since */
        char text[96];
        str_fmt(text, sizeof text, "#%lld %+.1f%% %s", cps[c].id, 100 * cps[c].magnitude, cps[c].triage);
        sb_printf(&marks, "set arrow from %g, graph 0 to %g, graph 1 nohead lc rgb 'red' dt 2\nset label ", at - 0.5,
                  at - 0.5);
        gnuplot_quote(&marks, text);
        sb_printf(&marks, " at %g, graph 0.95 left offset 0.3,0 tc rgb 'red'\n", at - 0.5);
    }
    const char *outs[2] = {png, svg};
    char err[ERR_MAX];
    rc = gnuplot_draw("plots/nightly.gp", var, svg ? 5 : 4, marks.s, outs, svg ? 2 : 1, err, sizeof err);
    sb_free(&marks);
    remove(dat);
    if (rc != 0) {
        fprintf(stderr, "harness plot nightly: %s: %s\n", png, err);
        return -1;
    }
    return 0;
}

static void index_entry(struct strbuf *md, const struct history *h, const char *file,
                        const struct series_change_point *cps, int ncp) {
    char label[256];
    series_label(&h->id, label, sizeof label);
    const struct night_point *last = &h->p[h->n - 1];
    sb_printf(md, "| [%s](%s) | `%s` | %d | %.4g %s | ", label, file, h->id.fp, h->n, last->median,
              h->id.higher_better ? "GB/s" : "s");
    if (!ncp) sb_printf(md, "none");
    for (int c = 0; c < ncp; c++)
        sb_printf(md, "%s#%lld %.10s %+.1f%% %s", c ? "; " : "", cps[c].id, cps[c].night, 100 * cps[c].magnitude,
                  cps[c].triage);
    sb_printf(md, " |\n");
}

/* One series' chart (its change points dashed) into out_dir, named by the
 * series and its key's hash, and its line in the index md. 1 drawn, -1
 * failed (gnuplot), 0 a series with no night. */
static int draw_series(struct store *s, const struct history *h, const char *tmpl, const char *out_dir,
                       struct strbuf *md) {
    if (!h->n) return 0;
    struct series_change_point cps[64];
    int ncp = store_series_change_points(s, h->id.key, cps, 64);
    char stem[512], file[600], png[PATH_MAX + 700];
    str_fmt(stem, sizeof stem, "%s-%s-%s-%s-%ux%u", h->id.spec, h->id.app, h->id.input, h->id.variant, h->id.wg[0],
            h->id.wg[1]);
    sanitise(stem);
    /* The key's hash keeps two drivers or two step counts apart. */
    str_fmt(file, sizeof file, "%s-%08llx.png", stem, (unsigned long long)(hash_str(h->id.key, 0) & 0xffffffffu));
    str_fmt(png, sizeof png, "%s/%s", out_dir, file);
    if (plot_nightly_series(h, cps, ncp, tmpl, png, NULL) != 0) return -1;
    printf("%s\n", png);
    index_entry(md, h, file, cps, ncp);
    return 1;
}

int plot_nightly(int argc, char **argv) {
    static const struct option opts[] = {{"db", required_argument, NULL, 'd'},
                                         {"out", required_argument, NULL, 'o'},
                                         {"out-dir", required_argument, NULL, 'o'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    const char *db_path = NULL, *out_dir = NULL;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        if (c == 'd') db_path = optarg;
        else if (c == 'o') out_dir = optarg;
        else if (c == 'h') return usage(stdout), EXIT_OK;
        else return usage(stderr), EXIT_USAGE;
    }
    if (optind < argc) return fprintf(stderr, "harness plot nightly: unexpected '%s'\n", argv[optind]), EXIT_USAGE;
    char def_dir[PATH_MAX], script[PATH_MAX];
    if (!out_dir) out_dir = repo_path(def_dir, sizeof def_dir, "plots/out/nightly");
    if (!db_path) db_path = store_default_path();
    repo_path(script, sizeof script, "plots/nightly.gp");
    if (access(db_path, F_OK) != 0)
        return fprintf(stderr, "harness plot nightly: no database at %s\n", db_path), EXIT_FOUND;
    if (access(script, R_OK) != 0) return fprintf(stderr, "harness plot nightly: cannot read %s\n", script), EXIT_FOUND;
    if (system("command -v gnuplot >/dev/null 2>&1") != 0)
        return fprintf(stderr, "harness plot nightly: gnuplot not found (Debian: apt-get install gnuplot-nox)\n"),
               EXIT_FOUND;
    char err[ERR_MAX];
    struct store *s = store_open(db_path, err, sizeof err);
    struct history_list hl = {0};
    if (!s || store_nightly_tables(s, err, sizeof err) != 0 || history_load(s, &hl, err, sizeof err) != 0) {
        fprintf(stderr, "harness plot nightly: %s\n", err);
        store_close(s);
        return EXIT_FOUND;
    }
    char tmpl[] = "/tmp/harness-plot-nightly-XXXXXX";
    if (dir_make_p(out_dir) != 0 || !mkdtemp(tmpl)) {
        perror(out_dir);
        history_list_free(&hl);
        store_close(s);
        return EXIT_FOUND;
    }
    struct strbuf md = {0};
    sb_printf(&md,
              "# Nightly series\n\nFrom `%s`: each night's median with its IQR; dashed lines are change points"
              " (`harness regressions`; triage with `harness triage ID STATE`).\n\n"
              "| series | device fingerprint | nights | latest | change points |\n|---|---|---|---|---|\n",
              db_path);
    int drawn = 0, failed = 0;
    for (int i = 0; i < hl.n; i++) {
        const int got = draw_series(s, &hl.h[i], tmpl, out_dir, &md);
        drawn += got > 0, failed += got < 0;
    }
    rmdir(tmpl);
    char index[PATH_MAX + 16];
    str_fmt(index, sizeof index, "%s/index.md", out_dir);
    if (!drawn) sb_printf(&md, "\nNo nightly series yet: run `harness nightly`.\n");
    if (file_write_all(index, md.s, md.len) != 0) {
        perror(index);
        failed++;
    } else {
        printf("%s\n", index);
    }
    sb_free(&md);
    history_list_free(&hl);
    store_close(s);
    if (!drawn) fprintf(stderr, "harness plot nightly: no nightly series in %s\n", db_path);
    return failed || !drawn ? EXIT_FOUND : EXIT_OK;
}
