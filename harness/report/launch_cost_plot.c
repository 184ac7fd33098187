/* The launch-cost figure (plots/launch_cost.gp) from the database, for the
 * report (one PNG) and `harness plot launch-cost` (cli/cmd_plot_launch_cost.c:
 * PNG and SVG under plots/out). This file picks the rows, writes them to a
 * temporary .dat and feeds gnuplot a few variables and `load` on a pipe, as
 * `plot wg` does. */
#include "report/launch_cost_plot.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/util.h"
#include "report/gnuplot.h"
#include "store/store_report.h"

struct series_data {
    struct strbuf dat, colors, dashes;
    int nseries;
};

/* A title inside the .dat's double quotes: gnuplot has no escape there, so
 * a double quote becomes a single one and control characters spaces. */
static void dat_title(struct strbuf *b, const char *spec, const char *name, const char *kind) {
    char t[160];
    str_fmt(t, sizeof t, "%s %.40s: %s arguments", spec, name, kind);
    for (char *p = t; *p; p++)
        if (*p == '"') *p = '\'';
        else if ((unsigned char)*p < 0x20) *p = ' ';
    sb_printf(b, "\"%s\"\n", t);
}

/* The points of the latest run of each device (by fingerprint: a new driver
 * is a new device) that measured launch cost, in blocks, one per (device,
 * kind). Returns the number of blocks, or -1 with err. */
static int load(const char *db_path, struct series_data *s, char *err, size_t errn) {
    /* Read-only and never created: a plot must not make an empty database. */
    struct store_reader *rd = store_reader_open(db_path, err, errn);
    if (!rd) return -1;
    struct launch_cost_point *p = NULL;
    const int n = store_launch_cost_latest(rd, &p, err, errn);
    store_reader_close(rd);
    char prev_dev[512] = "", prev_kind[16] = "";
    int ndev = 0;
    for (int i = 0; i < n; i++) {
        char dev[512];
        str_fmt(dev, sizeof dev, "%s|%s", p[i].spec, p[i].name);
        const int new_dev = strcmp(dev, prev_dev) != 0;
        if (new_dev || strcmp(p[i].kind, prev_kind) != 0) {
            ndev += new_dev;
            if (s->nseries++) sb_printf(&s->dat, "\n\n");
            dat_title(&s->dat, p[i].spec, p[i].name, p[i].kind);
            sb_printf(&s->colors, "%s%d", s->nseries > 1 ? " " : "", ndev);
            sb_printf(&s->dashes, "%s%d", s->nseries > 1 ? " " : "", strcmp(p[i].kind, "buffer") ? 2 : 1);
            str_copy(prev_dev, sizeof prev_dev, dev);
            str_copy(prev_kind, sizeof prev_kind, p[i].kind);
        }
        sb_printf(&s->dat, "%d %.9g %.9g %.9g\n", p[i].nargs, p[i].median_us, p[i].q1_us, p[i].q3_us);
    }
    free(p);
    return n < 0 ? -1 : s->nseries;
}

static int run_gnuplot(const struct series_data *s, const char *dat, const char *png, const char *svg, char *err,
                       size_t errn) {
    const char *var[][2] = {{"datafile", dat},
                            {"pngfile", png},
                            {"colors", s->colors.s},
                            {"dashes", s->dashes.s},
                            {"plottitle", "Kernel launch cost by argument count (median, q1..q3)"},
                            {"svgfile", svg ? svg : ""}};
    char extra[64];
    str_fmt(extra, sizeof extra, "nseries = %d", s->nseries);
    const char *outs[2] = {png, svg};
    return gnuplot_draw("plots/launch_cost.gp", var, svg ? 6 : 5, extra, outs, svg ? 2 : 1, err, errn);
}

int launch_cost_plot(const char *db_path, const char *png, const char *svg, char *err, size_t errn) {
    struct series_data s = {0};
    int n = load(db_path, &s, err, errn);
    int rc = -1;
    char tmpl[PATH_MAX], dat[PATH_MAX + 16];
    const char *tmp = getenv("TMPDIR");
    str_fmt(tmpl, sizeof tmpl, "%s/harness-lc-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (n == 0) err_set(err, errn, "no launch-cost measurements in %s (run `harness launch-cost`)", db_path);
    else if (n > 0 && !mkdtemp(tmpl)) err_set(err, errn, "cannot create a folder %s", tmpl);
    else if (n > 0) {
        str_fmt(dat, sizeof dat, "%s/launch_cost.dat", tmpl);
        if (file_write_all(dat, s.dat.s, s.dat.len) != 0) err_set(err, errn, "cannot write %s", dat);
        else rc = run_gnuplot(&s, dat, png, svg, err, errn);
        remove(dat);
        rmdir(tmpl);
    }
    sb_free(&s.dat);
    sb_free(&s.colors);
    sb_free(&s.dashes);
    return rc;
}
