/* harness best: the tuned work-group shapes (what `harness run` uses when no
 * --wg is given) and the tuned configurations (what `--variant tuned`
 * runs), with the margin and noise each decision rests on. */
#include <getopt.h>
#include <stdio.h>

#include "base/util.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "store/store.h"
#include "store/store_tuned.h"
#include "store/store_tuned_history.h"

static void usage(FILE *out) {
    fprintf(out,
            "usage: harness best [--device SPEC|FINGERPRINT] [--csv | --long | --history] [--db PATH]\n"
            "  Lists the tuned work-group per device, app, input and variant: its median, the\n"
            "  margin to the runner-up, the noise it was judged against, and whether it was a\n"
            "  tie (the margin within the noise) or a winner. A row of variant tuned is a\n"
            "  configuration (knobs and shape) `harness tune FILE` found, which `--variant tuned`\n"
            "  runs: its name, the objective, the points the search measured (evals) and the\n"
            "  wall time its measurements took (search).\n"
            "  --device  only this device: a spec as stored (cuda:0, openmp) or a fingerprint\n"
            "  --csv     CSV with a header row (with each configuration's knobs, energy, strategy)\n"
            "  --long    the table, with each configuration's knobs and strategy under its row\n"
            "  --history every decision `harness tune` made, oldest first: the search (strategy,\n"
            "            budget, steps, evaluations), the shape it found, and what became of the\n"
            "            stored row (new, confirmed, replaced, kept) and why\n"
            "  --db      SQLite database (default %s; HARNESS_DB overrides)\n",
            store_default_path());
}

int cmd_best(int argc, char **argv) {
    static const struct option longopts[] = {{"device", required_argument, 0, 'd'},
                                             {"csv", no_argument, 0, 'c'},
                                             {"history", no_argument, 0, 'H'},
                                             {"db", required_argument, 0, 'b'},
                                             {"long", no_argument, 0, 'l'},
                                             {"help", no_argument, 0, 'h'},
                                             {0, 0, 0, 0}};
    const char *device = NULL, *db = NULL;
    int csv = 0, history = 0, lng = 0, c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case 'd': device = optarg; break;
        case 'c': csv = 1; break;
        case 'H': history = 1; break;
        case 'l': lng = 1; break;
        case 'b': db = optarg; break;
        case 'h': usage(stdout); return EXIT_OK;
        default: usage(stderr); return EXIT_USAGE;
        }
    }
    if (optind < argc) return fprintf(stderr, "harness: best: unexpected argument '%s'\n", argv[optind]), EXIT_USAGE;
    if (csv && history) return fprintf(stderr, "harness: best: --history is a table; leave out --csv\n"), EXIT_USAGE;
    if (lng && (csv || history))
        return fprintf(stderr, "harness: best: --long is the table's; the CSV has the knobs already\n"), EXIT_USAGE;
    /* The device is matched in the database, not probed, so a listing works
     * for devices tuned on other machines too. */
    struct store *s;
    int opened = cli_store_to_look("best", db, &s);
    if (!s) return opened;
    int rc = history ? store_tuned_history_print(s, device, stdout) : store_tuned_print(s, device, csv, lng, stdout);
    store_close(s);
    return rc == 0 ? EXIT_OK : EXIT_FOUND;
}
