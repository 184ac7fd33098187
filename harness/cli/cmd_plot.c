/* `harness plot wg`: the work-group sweep of each device, input and variant
 * as the report's Figures 3-5 draw it: one bar per shape ("WxH", ordered by
 * total size then width), the median runtime with its IQR. Only verified
 * ('ok') measurements, the latest per shape. The drawing is plots/wg.gp; this
 * file picks the data, writes it to a temporary .dat and feeds gnuplot a few
 * variable settings and `load` on a pipe (no shell quoting of titles). */
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/util.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "report/gnuplot.h"
#include "store/store.h"
#include "store/store_plot.h"

static void plot_usage(FILE *out) {
    fprintf(out,
            "usage: harness plot wg [--db PATH] [--app A] [--input I] [--device D] [--variant V]\n"
            "                       [--out DIR]\n"
            "\n"
            "Draws median runtime (IQR error bars) against work-group shape, one figure per\n"
            "device, input and variant, from the latest verified measurement of each shape.\n"
            "\n"
            "  --db PATH      results database (default %s; HARNESS_DB overrides); never created\n"
            "  --app A        default lbm\n"
            "  --device D     a spec (opencl:0.0) or a fingerprint\n"
            "  --input, --variant   only these, as stored (gen:32x32 is stored as gen-32x32)\n"
            "  --out DIR      where wg-<device>-<input>-<variant>.png/.svg go (default plots/out\n"
            "                 in the repository; --out-dir is the same)\n",
            store_default_path());
}

struct figure {
    char fp[40], spec[64], name[128], driver[128], input[128], variant[64], knobs[KNOBS_TEXT_MAX];
    char base[PATH_MAX]; /* output path without extension */
    long iters;          /* the figure's one step count */
    struct strbuf dat;
    int n;
};

/* File-name safe: letters, digits, '.', '-'; everything else '_'. */
static void sanitise(char *s) {
    for (; *s; s++)
        if (!(*s >= 'a' && *s <= 'z') && !(*s >= 'A' && *s <= 'Z') && !(*s >= '0' && *s <= '9') && *s != '.' &&
            *s != '-')
            *s = '_';
}

struct figures {
    struct figure *fig;
    int n;
};

/* One row: a new figure when the device, input, variant or knobs change. */
static void add_row(const struct wg_row *r, void *ctx) {
    struct figures *fs = ctx;
    struct figure *f = fs->n ? &fs->fig[fs->n - 1] : NULL;
    if (!f || strcmp(f->fp, r->fp) || strcmp(f->input, r->input) || strcmp(f->variant, r->variant) ||
        strcmp(f->knobs, r->knobs)) {
        fs->fig = realloc(fs->fig, (size_t)(fs->n + 1) * sizeof *fs->fig);
        if (!fs->fig) abort();
        f = memset(&fs->fig[fs->n++], 0, sizeof *f);
        str_copy(f->fp, sizeof f->fp, r->fp);
        str_copy(f->spec, sizeof f->spec, r->spec);
        str_copy(f->name, sizeof f->name, r->name);
        str_copy(f->driver, sizeof f->driver, r->driver);
        str_copy(f->input, sizeof f->input, r->input);
        str_copy(f->variant, sizeof f->variant, r->variant);
        str_copy(f->knobs, sizeof f->knobs, r->knobs);
        f->iters = r->iters;
    }
    /* index, label, median, q1, q3 (a missing quartile draws no bar end) */
    double q1 = isnan(r->q1) ? r->med : r->q1, q3 = isnan(r->q3) ? r->med : r->q3;
    sb_printf(&f->dat, "%d \"%dx%d\" %.9g %.9g %.9g\n", f->n++, r->wx, r->wy, r->med, q1, q3);
}

/* Reads every figure's rows; returns the count or -1. */
static int load_figures(struct store_reader *src, const char *const filt[4], struct figure **out) {
    struct figures fs = {0};
    char err[ERR_MAX];
    int rc = store_wg_rows(src, filt, add_row, &fs, err, sizeof err);
    if (rc != 0) fprintf(stderr, "harness plot: %s\n", err);
    *out = fs.fig;
    return rc == 0 ? fs.n : -1;
}

/* wg-<spec>-<input>-<variant>; when two figures would share a name (one spec
 * with two drivers, or "custom" with two knob sets) each gets a hash suffix. */
static void name_figures(struct figure *fig, int n, const char *dir) {
    for (int i = 0; i < n; i++) {
        char stem[400];
        str_fmt(stem, sizeof stem, "wg-%s-%s-%s", fig[i].spec, fig[i].input, fig[i].variant);
        sanitise(stem);
        str_fmt(fig[i].base, sizeof fig[i].base, "%s/%s", dir, stem);
    }
    /* Decide every clash before renaming any, or the last of a pair keeps the plain name. */
    char *clash = xcalloc((size_t)n, 1);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) clash[i] |= j != i && !strcmp(fig[i].base, fig[j].base);
    for (int i = 0; i < n; i++) {
        if (!clash[i]) continue;
        char full[PATH_MAX + 16];
        uint64_t h = hash_str(fig[i].knobs, hash_str(fig[i].fp, 0));
        str_fmt(full, sizeof full, "%s-%08llx", fig[i].base, (unsigned long long)(h & 0xffffffffu));
        str_copy(fig[i].base, sizeof fig[i].base, full);
    }
    free(clash);
}

/* Writes the .dat and runs gnuplot on it; 0 when both files exist. */
static int draw(const struct figure *f, const char *tmpdir, const char *script, int print) {
    char dat[PATH_MAX], png[PATH_MAX + 8], svg[PATH_MAX + 8], title[1024];
    str_fmt(dat, sizeof dat, "%s/wg.dat", tmpdir);
    if (file_write_all(dat, f->dat.s, f->dat.len) != 0) {
        perror(dat);
        return -1;
    }
    str_fmt(png, sizeof png, "%s.png", f->base);
    str_fmt(svg, sizeof svg, "%s.svg", f->base);
    /* The driver is in the title: a new driver is a new device (fingerprint). */
    char steps[48] = "";
    if (f->iters > 0) str_fmt(steps, sizeof steps, ", %ld steps", f->iters);
    str_fmt(title, sizeof title, "%s (%s%s%s), input %s%s, variant %s", f->name[0] ? f->name : f->spec, f->spec,
            f->driver[0] ? ", " : "", f->driver, f->input, steps, f->variant);
    const char *var[][2] = {{"datafile", dat}, {"pngfile", png}, {"svgfile", svg}, {"plottitle", title}};
    const char *outs[2] = {png, svg};
    char err[ERR_MAX];
    if (gnuplot_draw(script, var, 4, NULL, outs, 2, err, sizeof err) != 0) {
        fprintf(stderr, "harness plot: %s: %s\n", f->base, err);
        return -1;
    }
    if (print) printf("%s\n%s\n", png, svg);
    return 0;
}

int plot_wg_figures(const char *db_path, const char *const filt[4], const char *out_dir,
                    void (*drawn)(const struct wg_drawn *f, void *ctx), void *ctx) {
    struct store_reader *src = store_reader_open_cmd("plot", db_path);
    if (!src) return cli_reader_failed(db_path);
    char script[4096];
    repo_path(script, sizeof script, "plots/wg.gp");
    if (access(script, R_OK) != 0) {
        fprintf(stderr, "harness plot: cannot read %s\n", script);
        store_reader_close(src);
        return EXIT_FOUND;
    }
    if (system("command -v gnuplot >/dev/null 2>&1") != 0) {
        fprintf(stderr, "harness plot: gnuplot not found; install it (Debian: apt-get install"
                        " gnuplot-nox, or `make deps`)\n");
        store_reader_close(src);
        return EXIT_FOUND;
    }
    struct figure *fig = NULL;
    int n = load_figures(src, filt, &fig);
    store_reader_close(src);
    if (n == 0)
        fprintf(stderr, "harness plot: no verified (ok) measurements of %s%s%s%s%s%s%s in %s\n", filt[0],
                filt[1] ? " on " : "", filt[1] ? filt[1] : "", filt[2] ? ", input " : "", filt[2] ? filt[2] : "",
                filt[3] ? ", variant " : "", filt[3] ? filt[3] : "", db_path);
    int rc = n > 0 ? EXIT_OK : EXIT_FOUND;
    const char *tmp = getenv("TMPDIR");
    char tmpl[PATH_MAX];
    str_fmt(tmpl, sizeof tmpl, "%s/harness-plot-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (n > 0 && dir_make_p(out_dir) != 0) {
        perror(out_dir);
        rc = EXIT_FOUND;
    } else if (n > 0 && !mkdtemp(tmpl)) {
        perror(tmpl);
        rc = EXIT_FOUND;
    } else if (n > 0) {
        name_figures(fig, n, out_dir);
        for (int i = 0; i < n; i++)
            if (draw(&fig[i], tmpl, "plots/wg.gp", !drawn) != 0) {
                rc = EXIT_FOUND;
            } else if (drawn) {
                char svg[PATH_MAX + 8];
                str_fmt(svg, sizeof svg, "%s.svg", fig[i].base);
                const struct wg_drawn d = {svg,          fig[i].fp,    fig[i].spec, fig[i].input, fig[i].variant,
                                           fig[i].knobs, fig[i].iters, fig[i].n};
                drawn(&d, ctx);
            }
        char dat[PATH_MAX];
        str_fmt(dat, sizeof dat, "%s/wg.dat", tmpl);
        remove(dat);
        rmdir(tmpl);
    }
    for (int i = 0; i < (n > 0 ? n : 0); i++) sb_free(&fig[i].dat);
    free(fig);
    return rc;
}

int cmd_plot(int argc, char **argv) {
    static const struct option opts[] = {
        {"db", required_argument, NULL, 'd'},
        {"app", required_argument, NULL, 'a'},
        {"device", required_argument, NULL, 'D'},
        {"input", required_argument, NULL, 'i'},
        {"variant", required_argument, NULL, 'v'},
        {"out", required_argument, NULL, 'o'},
        {"out-dir", required_argument, NULL, 'o'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    /* argv[0] is "plot", argv[1] the kind of plot; options follow it. */
    if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        plot_usage(stdout);
        return EXIT_OK;
    }
    /* `plot nightly` lives in cmd_plot_nightly.c (nightly tracking). */
    if (argc >= 2 && !strcmp(argv[1], "nightly")) return plot_nightly(argc - 1, argv + 1);
    if (argc >= 2 && !strcmp(argv[1], "launch-cost")) return plot_launch_cost(argc - 1, argv + 1);
    if (argc >= 2 && !strcmp(argv[1], "variants")) return plot_variants(argc - 1, argv + 1);
    if (argc < 2 || strcmp(argv[1], "wg")) {
        fprintf(stderr, "harness plot: which plot? kinds: wg, variants, nightly, launch-cost%s%s%s\n",
                argc >= 2 ? ", not '" : "", argc >= 2 ? argv[1] : "", argc >= 2 ? "'" : "");
        plot_usage(stderr);
        return EXIT_USAGE;
    }
    argc--, argv++;
    const char *db = NULL, *out_dir = NULL, *filt[4] = {"lbm", NULL, NULL, NULL};
    int c;
    optind = 1; /* an earlier getopt may have moved optind */
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'd': db = optarg; break;
        case 'a': filt[0] = optarg; break;
        case 'D': filt[1] = optarg; break;
        case 'i': filt[2] = optarg; break;
        case 'v': filt[3] = optarg; break;
        case 'o': out_dir = optarg; break;
        case 'h': plot_usage(stdout); return EXIT_OK;
        default: plot_usage(stderr); return EXIT_USAGE;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "harness plot: unexpected argument '%s'\n", argv[optind]);
        plot_usage(stderr);
        return EXIT_USAGE;
    }
    char def_dir[4096];
    if (!out_dir) out_dir = repo_path(def_dir, sizeof def_dir, "plots/out");
    return plot_wg_figures(db ? db : store_default_path(), filt, out_dir, NULL, NULL);
}
