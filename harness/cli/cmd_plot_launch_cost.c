/* `harness plot launch-cost`: the launch-cost figure (report/launch_cost_plot.h)
 * as a PNG and an SVG under plots/out, for people. */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <unistd.h>

#include "base/util.h"
#include "cli/commands.h"
#include "report/launch_cost_plot.h"
#include "store/store.h"

static void usage(FILE *out) {
    fprintf(out,
            "usage: harness plot launch-cost [--db PATH] [--out DIR]\n"
            "\n"
            "Draws microseconds per launch (enqueue) against the number of kernel arguments,\n"
            "one line per device and kind (buffers solid, ints dashed), from the latest\n"
            "`harness launch-cost` run of each device. Writes DIR/launch-cost.png and .svg.\n"
            "\n"
            "  --db PATH   results database (default %s); never created\n"
            "  --out DIR   where the figure goes (default plots/out in the repository;\n"
            "              --out-dir is the same)\n",
            store_default_path());
}

int plot_launch_cost(int argc, char **argv) {
    static const struct option opts[] = {
        {"db", required_argument, NULL, 'd'},
        {"out", required_argument, NULL, 'o'},
        {"out-dir", required_argument, NULL, 'o'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *db = NULL, *out_dir = NULL;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'd': db = optarg; break;
        case 'o': out_dir = optarg; break;
        case 'h': usage(stdout); return EXIT_OK;
        default: usage(stderr); return EXIT_USAGE;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "harness plot launch-cost: unexpected argument '%s'\n", argv[optind]);
        usage(stderr);
        return EXIT_USAGE;
    }
    char def_dir[PATH_MAX], png[PATH_MAX + 32], svg[PATH_MAX + 32], err[1024];
    if (!out_dir) out_dir = repo_path(def_dir, sizeof def_dir, "plots/out");
    if (!db) db = store_default_path();
    /* The database first: a missing one must not leave an empty folder. */
    if (access(db, F_OK) != 0) {
        fprintf(stderr, "harness plot launch-cost: no database at %s\n", db);
        return EXIT_FOUND;
    }
    if (dir_make_p(out_dir) != 0) {
        perror(out_dir);
        return EXIT_FOUND;
    }
    str_fmt(png, sizeof png, "%s/launch-cost.png", out_dir);
    str_fmt(svg, sizeof svg, "%s/launch-cost.svg", out_dir);
    if (launch_cost_plot(db, png, svg, err, sizeof err) != 0) {
        fprintf(stderr, "harness plot launch-cost: %s\n", err);
        return EXIT_FOUND;
    }
    printf("%s\n%s\n", png, svg);
    return EXIT_OK;
}
