/* `harness publish DIR`: a static HTML site of the results database that
 * works from file:// (no server, nothing fetched, no JavaScript): an index of
 * the devices, the apps and inputs measured, the nightly series and the
 * reports, and a page for each (publish_case.c, publish_nightly.c,
 * publish_reports.c). The database is read-only here: never created or
 * migrated. Figures are plot's own (the scripts in plots/, SVG); without gnuplot the
 * pages say so in each figure's place and the site is still written. */
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/buildinfo.h"
#include "base/util.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/publish.h"
#include "core/progress.h"
#include "report/gnuplot.h"
#include "report/html.h"
#include "store/store.h"
#include "store/store_publish.h"

static void usage(FILE *out) {
    fprintf(out,
            "usage: harness publish DIR [--db PATH] [--reports FROM]\n"
            "\n"
            "Writes a static HTML site of the results database into DIR (created; pages and\n"
            "figures already there are replaced): DIR/index.html lists the devices (spec,\n"
            "name, driver, fingerprint), each device x app x input measured (a page with the\n"
            "latest verified measurement of every variant, the variants chart and the\n"
            "work-group figures where shapes were swept), each nightly series (a page with\n"
            "its trend and change points with their triage state) and the reports. Opens\n"
            "from file:// with no server and fetches nothing. Every figure names its commit,\n"
            "device fingerprint and the command that draws it again.\n"
            "\n"
            "  --db PATH       results database (default %s; HARNESS_DB overrides);\n"
            "                  read-only, never created\n"
            "  --reports FROM  where report-*.md are copied from (default: the database's folder)\n"
            "\n"
            "Without gnuplot the pages are written with a note where each figure would be\n"
            "(exit 0).\n",
            store_default_path());
}

static const char style_css[] =
    "body { font-family: sans-serif; margin: 1.5em auto; max-width: 78em; padding: 0 1em; color: #222; }\n"
    "h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 1.6em; }\n"
    "table { border-collapse: collapse; margin: 0.5em 0; }\n"
    "th, td { border: 1px solid #ccc; padding: 0.2em 0.5em; text-align: left; vertical-align: top; }\n"
    "th { background: #f0f0f0; } td.num { text-align: right; font-variant-numeric: tabular-nums; }\n"
    "code { font-size: 0.9em; } .knobs { max-width: 30em; word-break: break-all; font-size: 0.8em; }\n"
    "figure { margin: 1em 0; } figure img { max-width: 100%; border: 1px solid #ddd; }\n"
    "figcaption { font-size: 0.9em; color: #444; }\n"
    ".note { background: #fff6d5; padding: 0.4em 0.6em; }\n"
    ".detected, .regression { color: #b00; font-weight: bold; } .acknowledged { color: #a60; }\n"
    ".fixed, .false-positive { color: #070; } code.key { word-break: break-all; }\n"
    "pre { background: #f7f7f7; padding: 0.8em; overflow-x: auto; }\n"
    "footer { margin-top: 3em; font-size: 0.8em; color: #666; }\n";

void publish_write(struct publish *p, const char *name, const struct strbuf *b) {
    char path[PATH_MAX];
    str_fmt(path, sizeof path, "%s/%s", p->dir, name);
    if (file_write_all(path, b->s ? b->s : "", b->len) != 0) {
        perror(path);
        p->failed++;
        return;
    }
    p->pages++;
}

void publish_figure(struct publish *p, struct strbuf *b, const char *svg_rel, int png_too, const char *what,
                    const char *commit, const char *fps, const char *command) {
    sb_printf(b, "<figure>\n");
    if (svg_rel) {
        sb_printf(b, "<a href=\"");
        html_esc(b, svg_rel);
        sb_printf(b, "\"><img src=\"");
        html_esc(b, svg_rel);
        sb_printf(b, "\" alt=\"");
        html_esc(b, what);
        sb_printf(b, "\"></a>\n");
        p->figures++;
    } else {
        sb_printf(b, "<p class=\"note\">No chart: %s</p>\n",
                  p->charts ? "gnuplot could not draw it (see the command's messages)"
                            : "gnuplot was not found when this site was written (Debian: apt-get install "
                              "gnuplot-nox), so no figure was drawn.");
    }
    sb_printf(b, "<figcaption>");
    html_esc(b, what);
    sb_printf(b, ". Commit <code>");
    html_esc(b, commit && *commit ? commit : "unknown");
    sb_printf(b, "</code>; device fingerprint <code>");
    html_esc(b, fps);
    sb_printf(b, "</code>; drawn again by <code>");
    html_esc(b, command);
    sb_printf(b, "</code>");
    if (svg_rel && png_too) {
        char png[PATH_MAX];
        str_copy(png, sizeof png, svg_rel);
        char *dot = strrchr(png, '.');
        if (dot) strcpy(dot, ".png");
        sb_printf(b, " (<a href=\"");
        html_esc(b, png);
        sb_printf(b, "\">PNG</a>)");
    }
    sb_printf(b, ".</figcaption>\n</figure>\n");
}

static void device_row(const struct pub_device *d, void *ctx) {
    struct strbuf *b = ctx;
    sb_printf(b, "<tr><td><code>");
    html_esc(b, d->spec);
    sb_printf(b, "</code></td><td>");
    html_esc(b, d->name);
    sb_printf(b, "</td><td>");
    html_esc(b, d->driver);
    sb_printf(b, "</td><td><code>");
    html_esc(b, d->fp);
    sb_printf(b, "</code></td><td>");
    html_esc(b, d->kind);
    sb_printf(b, "</td><td class=\"num\">%ld</td><td class=\"num\">%ld</td><td>", d->measurements, d->ok);
    html_esc(b, d->last);
    sb_printf(b, "</td></tr>\n");
}

static int site(struct publish *p, struct store_reader *rd, const char *reports) {
    struct strbuf devs = {0}, cases = {0}, series = {0}, reps = {0}, idx = {0};
    char err[ERR_MAX];
    sb_printf(&devs, "<table id=\"devices\">\n<tr><th>spec</th><th>name</th><th>driver</th><th>fingerprint</th>"
                     "<th>kind</th><th>measurements</th><th>verified</th><th>latest</th></tr>\n");
    const size_t empty = devs.len;
    if (store_pub_devices(rd, device_row, &devs, err, sizeof err) != 0) {
        fprintf(stderr, "harness publish: %s: %s\n", p->db, err);
        sb_free(&devs);
        return EXIT_FOUND;
    }
    if (devs.len == empty) {
        fprintf(stderr, "harness publish: nothing to publish: no measurements in %s\n", p->db);
        sb_free(&devs);
        return EXIT_FOUND;
    }
    sb_printf(&devs, "</table>\n");
    char fig[PATH_MAX];
    str_fmt(fig, sizeof fig, "%s/fig", p->dir);
    if (dir_make_p(fig) != 0) {
        perror(fig);
        sb_free(&devs);
        return EXIT_FOUND;
    }
    const struct strbuf css = {(char *)style_css, sizeof style_css - 1, 0};
    publish_write(p, "style.css", &css);
    p->pages--; /* a page is HTML */
    int rc = publish_cases(p, rd, &cases);
    if (rc == 0) rc = publish_nightly(p, rd, &series);
    if (rc == 0) publish_reports(p, reports, &reps);
    if (rc == 0) {
        html_begin(&idx, "Benchmark results", 1);
        const struct build_info *bi = build_info_get();
        time_t now = time(NULL);
        char when[32];
        strftime(when, sizeof when, "%Y-%m-%d %H:%M UTC", gmtime(&now));
        sb_printf(&idx, "<p>From <code>");
        html_esc(&idx, p->db);
        sb_printf(&idx, "</code>, written %s by harness <code>%.12s%s</code>.</p>\n", when, bi->commit,
                  bi->dirty ? "+" : "");
        sb_printf(&idx, "<h2 id=\"devices-h\">Devices</h2>\n%s", devs.s);
        sb_printf(&idx, "<h2 id=\"cases-h\">Apps and inputs measured</h2>\n%s", cases.s ? cases.s : "");
        sb_printf(&idx, "<h2 id=\"series-h\">Nightly series</h2>\n%s", series.s ? series.s : "");
        sb_printf(&idx, "<h2 id=\"reports-h\">Reports</h2>\n%s", reps.s ? reps.s : "");
        html_end(&idx);
        publish_write(p, "index.html", &idx);
    }
    sb_free(&devs);
    sb_free(&cases);
    sb_free(&series);
    sb_free(&reps);
    sb_free(&idx);
    if (rc != 0 || p->failed) return EXIT_FOUND;
    printf("%s/index.html: %d pages, %d figures%s\n", p->dir, p->pages, p->figures,
           p->charts ? "" : " (no gnuplot: no figures drawn)");
    return EXIT_OK;
}

int cmd_publish(int argc, char **argv) {
    static const struct option opts[] = {{"db", required_argument, NULL, 'd'},
                                         {"reports", required_argument, NULL, 'r'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    const char *db = NULL, *reports = NULL;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'd': db = optarg; break;
        case 'r': reports = optarg; break;
        case 'h': usage(stdout); return EXIT_OK;
        default: usage(stderr); return EXIT_USAGE;
        }
    }
    if (optind != argc - 1) {
        if (optind < argc - 1) fprintf(stderr, "harness publish: one DIR, not '%s' too\n", argv[optind + 1]);
        else fprintf(stderr, "harness publish: which folder? harness publish DIR\n");
        usage(stderr);
        return EXIT_USAGE;
    }
    /* The folder without trailing slashes: figures' paths inside it are made
     * relative by cutting it off. */
    char dir[PATH_MAX];
    str_copy(dir, sizeof dir, argv[optind]);
    for (size_t n = strlen(dir); n > 1 && dir[n - 1] == '/'; n--) dir[n - 1] = 0;
    struct publish p = {.db = db ? db : store_default_path(), .dir = dir};
    struct store_reader *rd = store_reader_open_cmd("publish", p.db);
    if (!rd) return cli_reader_failed(p.db);
    p.charts = gnuplot_present();
    if (!p.charts) note("publish: gnuplot not found: the pages are written without figures\n");
    char from[PATH_MAX];
    if (!reports) {
        str_copy(from, sizeof from, p.db);
        reports = dirname(from);
    }
    if (dir_make_p(p.dir) != 0) {
        perror(p.dir);
        store_reader_close(rd);
        return EXIT_FOUND;
    }
    const int rc = site(&p, rd, reports);
    store_reader_close(rd);
    return rc;
}
