/* `harness plot variants`: one bar chart of an app's variants on every
 * device at one input, clustered by variant, a bar per device, the median
 * runtime with its IQR. The main job ends with it (the picture of its
 * table); only verified measurements count, one step count per chart (the
 * input's latest unless --iters says), the latest measurement of each
 * device and variant at whatever shape it ran. The drawing is
 * plots/variants.gp. */
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/util.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "core/progress.h"
#include "report/gnuplot.h"
#include "store/store.h"
#include "store/store_plot.h"

#define MAX_BARS 64 /* devices and variants each: a chart with more is unreadable */

static void usage(FILE *out) {
    fprintf(out,
            "usage: harness plot variants --input I [--db PATH] [--app A] [--iters N] [--out FILE]\n"
            "\n"
            "Draws one bar chart of the app's variants at input I on every device: clustered\n"
            "by variant, one bar per device, median runtime with IQR whiskers, from the latest\n"
            "verified (ok) measurement of each device and variant. One step count per chart:\n"
            "the input's most recent unless --iters N.\n"
            "\n"
            "  --db PATH     results database (default %s; HARNESS_DB overrides); never created\n"
            "  --app A       default lbm\n"
            "  --input I     as stored (gen:32x32 is stored as gen-32x32)\n"
            "  --iters N     only measurements of N steps\n"
            "  --out FILE    the PNG to write (an SVG beside it); default\n"
            "                plots/out/variants-<app>-<input>.png in the repository\n"
            "\n"
            "Prints the PNG's and SVG's paths. Exit status: 0 drawn; 1 nothing to draw, no\n"
            "database or no gnuplot; 2 usage or a file that is not a harness database.\n",
            store_default_path());
}

struct chart {
    char variant[MAX_BARS][64];
    char device[MAX_BARS][160]; /* "spec name" as the key shows it */
    char fp[MAX_BARS][40];
    double med[MAX_BARS][MAX_BARS], q1[MAX_BARS][MAX_BARS], q3[MAX_BARS][MAX_BARS]; /* [variant][device] */
    int nv, nd, dropped;
    long iters;
};

static int index_of(char (*names)[40], int *n, const char *name) {
    for (int i = 0; i < *n; i++)
        if (!strcmp(names[i], name)) return i;
    if (*n == MAX_BARS) return -1;
    str_copy(names[*n], sizeof names[0], name);
    return (*n)++;
}

static void add_row(const struct variant_row *r, void *ctx) {
    struct chart *c = ctx;
    int v = -1;
    for (int i = 0; i < c->nv && v < 0; i++)
        if (!strcmp(c->variant[i], r->variant)) v = i;
    if (v < 0 && c->nv < MAX_BARS) {
        v = c->nv++;
        str_copy(c->variant[v], sizeof c->variant[v], r->variant);
        for (int d = 0; d < MAX_BARS; d++) c->med[v][d] = c->q1[v][d] = c->q3[v][d] = NAN;
    }
    const int before = c->nd, d = index_of(c->fp, &c->nd, r->fp);
    if (v < 0 || d < 0) {
        c->dropped++;
        return;
    }
    if (d == before) str_fmt(c->device[d], sizeof c->device[d], "%s %s", r->spec, r->name);
    c->med[v][d] = r->med;
    c->q1[v][d] = isnan(r->q1) ? r->med : r->q1;
    c->q3[v][d] = isnan(r->q3) ? r->med : r->q3;
    c->iters = r->iters;
}

/* A header row naming the devices (gnuplot's columnheader titles the
 * bars), then per variant a median, q1 and q3 per device ("?" missing). */
static void write_dat(const struct chart *c, struct strbuf *b) {
    sb_printf(b, "variant");
    for (int d = 0; d < c->nd; d++) {
        sb_printf(b, " \"");
        for (const char *s = c->device[d]; *s; s++) sb_printf(b, "%c", *s == '"' ? '\'' : *s);
        sb_printf(b, "\" q1 q3");
    }
    sb_printf(b, "\n");
    for (int v = 0; v < c->nv; v++) {
        sb_printf(b, "\"%s\"", c->variant[v]);
        for (int d = 0; d < c->nd; d++) {
            if (isnan(c->med[v][d])) sb_printf(b, " ? ? ?");
            else sb_printf(b, " %.9g %.9g %.9g", c->med[v][d], c->q1[v][d], c->q3[v][d]);
        }
        sb_printf(b, "\n");
    }
}

static int draw(const struct chart *c, const char *app, const char *input, const char *png, int print) {
    char svg[PATH_MAX + 8], tmpl[PATH_MAX], dat[PATH_MAX + 16], title[512], ndev[16];
    str_copy(svg, sizeof svg, png);
    char *dot = strrchr(svg, '.');
    if (dot && !strcmp(dot, ".png")) *dot = 0;
    strcat(svg, ".svg");
    const char *tmp = getenv("TMPDIR");
    str_fmt(tmpl, sizeof tmpl, "%s/harness-plot-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(tmpl)) {
        perror(tmpl);
        return EXIT_FOUND;
    }
    str_fmt(dat, sizeof dat, "%s/variants.dat", tmpl);
    struct strbuf b = {0};
    write_dat(c, &b);
    int rc = file_write_all(dat, b.s, b.len) == 0 ? EXIT_OK : EXIT_FOUND;
    sb_free(&b);
    str_fmt(title, sizeof title, "%s, input %s, %ld steps: median runtime of each verified variant", app, input,
            c->iters);
    str_fmt(ndev, sizeof ndev, "%d", c->nd);
    const char *var[][2] = {{"datafile", dat}, {"pngfile", png}, {"svgfile", svg}, {"plottitle", title}};
    const char *outs[2] = {png, svg};
    char err[ERR_MAX];
    char extra[64];
    str_fmt(extra, sizeof extra, "ndev = %s\n", ndev);
    if (rc == EXIT_OK && gnuplot_draw("plots/variants.gp", var, 4, extra, outs, 2, err, sizeof err) != 0) {
        fprintf(stderr, "harness plot: %s: %s\n", png, err);
        rc = EXIT_FOUND;
    }
    remove(dat);
    rmdir(tmpl);
    if (rc == EXIT_OK && print) printf("%s\n%s\n", png, svg);
    return rc;
}

int plot_variants_chart(const char *db, const char *app, const char *input, long iters, const char *out, int print) {
    if (!gnuplot_present()) {
        fprintf(stderr, "harness plot: gnuplot not found; install it (Debian: apt-get install gnuplot-nox, or "
                        "`make deps`)\n");
        return EXIT_FOUND;
    }
    struct store_reader *src = store_reader_open_cmd("plot", db);
    if (!src) return cli_reader_failed(db);
    int rc;
    struct chart *ch = xcalloc(1, sizeof *ch);
    char err[ERR_MAX];
    rc = store_variant_rows(src, app, input, iters, add_row, ch, err, sizeof err);
    store_reader_close(src);
    if (rc != 0) {
        fprintf(stderr, "harness plot: %s: %s\n", db, err);
        free(ch);
        return EXIT_FOUND;
    }
    if (!ch->nv) {
        fprintf(stderr, "harness plot: no verified (ok) measurements of %s at input %s%s in %s\n", app, input,
                iters > 0 ? " with that step count" : "", db);
        free(ch);
        return EXIT_FOUND;
    }
    if (ch->dropped) note("more than %d devices or variants; %d bars left out\n", MAX_BARS, ch->dropped);
    char def[PATH_MAX], stem[256];
    if (!out) {
        str_fmt(stem, sizeof stem, "plots/out/variants-%s-%s.png", app, input);
        for (char *s = stem + strlen("plots/out/"); *s; s++)
            if (*s == '/' || *s == ':' || *s == ' ') *s = '_';
        out = repo_path(def, sizeof def, stem);
    }
    char dir[PATH_MAX];
    str_copy(dir, sizeof dir, out);
    char *slash = strrchr(dir, '/');
    if (slash && slash != dir) {
        *slash = 0;
        if (dir_make_p(dir) != 0) {
            perror(dir);
            free(ch);
            return EXIT_FOUND;
        }
    }
    rc = draw(ch, app, input, out, print);
    free(ch);
    return rc;
}

int plot_variants(int argc, char **argv) {
    static const struct option opts[] = {
        {"db", required_argument, NULL, 'd'},
        {"app", required_argument, NULL, 'a'},
        {"input", required_argument, NULL, 'i'},
        {"iters", required_argument, NULL, 'n'},
        {"out", required_argument, NULL, 'o'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *db = NULL, *app = "lbm", *input = NULL, *out = NULL;
    long iters = 0;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'd': db = optarg; break;
        case 'a': app = optarg; break;
        case 'i': input = optarg; break;
        case 'n':
            if (parse_whole(optarg, 1, 1L << 40, &iters) != 0) {
                fprintf(stderr, "harness plot: --iters wants a whole number >= 1, not '%s'\n", optarg);
                return EXIT_USAGE;
            }
            break;
        case 'o': out = optarg; break;
        case 'h': usage(stdout); return EXIT_OK;
        default: usage(stderr); return EXIT_USAGE;
        }
    }
    if (optind < argc || !input) {
        if (optind < argc) fprintf(stderr, "harness plot: unexpected argument '%s'\n", argv[optind]);
        else fprintf(stderr, "harness plot variants: --input is required\n");
        usage(stderr);
        return EXIT_USAGE;
    }
    return plot_variants_chart(db ? db : store_default_path(), app, input, iters, out, 1);
}
