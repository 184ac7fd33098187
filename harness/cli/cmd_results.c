/* `harness results`: the most recent measurements, as a table or CSV. */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/util.h"
#include "cli/cli.h"
#include "store/store.h"
#include "store/store_runs.h"

static void results_usage(FILE *out) {
    fprintf(out,
            "usage: harness results [--db PATH] [--limit N] [--csv] [--rounds | --runs] [--help]\n"
            "\n"
            "Prints the most recent measurements, newest last.\n"
            "\n"
            "  --db PATH   results database (default %s; HARNESS_DB overrides)\n"
            "  --limit N   how many measurements (default 20; 0 = all)\n"
            "  --csv       CSV with a header row instead of a table, with each row's knobs (what\n"
            "              ran: a variant's, or for variant tuned the stored configuration's)\n"
            "  --rounds    each measurement's rounds (fresh worker processes) and the median of\n"
            "              each, in the order they ran (CSV: one row per round)\n"
            "  --runs      the runs instead (the ids compare, exclude and merge take): start,\n"
            "              device, build commit (+: uncommitted changes), the night it belongs\n"
            "              to (nightly:N), measurements ok of all, and the command\n"
            "  --help      this text\n",
            store_default_path());
}

/* A whole non-negative number, nothing else. */
static int parse_limit(const char *s, int *out) {
    long v;
    if (parse_whole(s, 0, INT_MAX, &v)) return -1;
    *out = (int)v;
    return 0;
}

int cmd_results(int argc, char **argv) {
    static const struct option opts[] = {
        {"db", required_argument, NULL, 'd'},
        {"limit", required_argument, NULL, 'n'},
        {"csv", no_argument, NULL, 'c'},
        {"rounds", no_argument, NULL, 'r'},
        {"runs", no_argument, NULL, 'R'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *db = NULL;
    int limit = 20, csv = 0, rounds = 0, runs = 0, c;
    /* argv[0] is "results", so parsing starts at 1; the dispatcher or an
     * earlier command may have moved optind. */
    optind = 1;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'd': db = optarg; break;
        case 'n':
            if (parse_limit(optarg, &limit) != 0) {
                fprintf(stderr, "harness results: --limit wants a whole number >= 0, not '%s'\n", optarg);
                results_usage(stderr);
                return EXIT_USAGE;
            }
            break;
        case 'c': csv = 1; break;
        case 'r': rounds = 1; break;
        case 'R': runs = 1; break;
        case 'h': results_usage(stdout); return EXIT_OK;
        default: results_usage(stderr); return EXIT_USAGE; /* getopt named the option */
        }
    }
    if (optind < argc) {
        fprintf(stderr, "harness results: unexpected argument '%s'\n", argv[optind]);
        results_usage(stderr);
        return EXIT_USAGE;
    }
    struct store *s;
    int opened = cli_store_to_look("results", db, &s);
    if (!s) return opened;
    if (rounds && runs) {
        fprintf(stderr, "harness results: --rounds or --runs, not both\n");
        store_close(s);
        return EXIT_USAGE;
    }
    int rc = runs     ? store_print_runs(s, limit, csv, stdout)
             : rounds ? store_print_rounds(s, limit, csv, stdout)
                      : store_print_recent(s, limit, csv, stdout);
    store_close(s);
    return rc == 0 ? EXIT_OK : EXIT_FOUND;
}
