/* A person's decisions about the history: `harness triage` sets a change
 * point's state, `harness exclude` takes runs out of the history with a
 * reason (and --undo puts them back). `harness regressions` honours both. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/util.h"
#include "cli/commands.h"
#include "store/store.h"
#include "store/store_changepoint.h"
#include "store/store_exclusion.h"
#include "store/store_nightly.h"

static const char *const states[] = {"detected", "acknowledged", "fixed", "false-positive"};

int cmd_triage(int argc, char **argv) {
    static const struct option longopts[] = {{"db", required_argument, 0, 'd'},
                                             {"note", required_argument, 0, 'n'},
                                             {"help", no_argument, 0, 'h'},
                                             {0, 0, 0, 0}};
    const char *db = NULL, *note = NULL;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        if (c == 'd') db = optarg;
        else if (c == 'n') note = optarg;
        else if (c == 'h') {
            printf("usage: harness triage ID acknowledged|fixed|false-positive|detected [--note TEXT] [--db PATH]\n"
                   "  Sets the triage state of change point ID (harness regressions lists them).\n"
                   "  Only 'detected' regressions make harness regressions exit 1.\n");
            return EXIT_OK;
        } else return EXIT_USAGE;
    }
    char *end;
    errno = 0;
    long long id = argc - optind == 2 ? strtoll(argv[optind], &end, 10) : 0;
    if (argc - optind != 2 || errno || *end || id <= 0) {
        fprintf(stderr, "usage: harness triage ID acknowledged|fixed|false-positive|detected [--note TEXT]\n");
        return EXIT_USAGE;
    }
    const char *state = argv[optind + 1];
    int known = 0;
    for (size_t i = 0; i < sizeof states / sizeof states[0]; i++) known |= !strcmp(state, states[i]);
    if (!known) {
        fprintf(stderr, "harness triage: unknown state '%s' (acknowledged, fixed, false-positive, detected)\n", state);
        return EXIT_USAGE;
    }
    int code;
    struct store *s = nightly_store_open("triage", db, 1, &code);
    if (!s) return code;
    int rc = EXIT_FOUND;
    int changed = store_change_point_triage(s, id, state, note);
    if (changed < 0) fprintf(stderr, "harness triage: %s\n", store_errmsg(s));
    else if (!changed) fprintf(stderr, "harness triage: no change point %lld\n", id), rc = EXIT_USAGE;
    else printf("change point %lld: %s\n", id, state), rc = EXIT_OK;
    store_close(s);
    return rc;
}

static int exclusion_list(struct store *s) {
    struct run_exclusion_row *e;
    int n = store_run_exclusions(s, &e);
    if (n < 0) return EXIT_FOUND;
    for (int i = 0; i < n; i++) {
        if (!i) printf("%6s  %-11s  %-19s  %s\n", "run", "device", "run started", "reason");
        printf("%6lld  %-11s  %-19.19s  %s\n", (long long)e[i].run_id, e[i].device, e[i].started_at, e[i].reason);
    }
    store_run_exclusions_free(e, n);
    if (!n) printf("no runs excluded\n");
    return EXIT_OK;
}

int cmd_exclude(int argc, char **argv) {
    static const struct option longopts[] = {{"db", required_argument, 0, 'd'}, {"reason", required_argument, 0, 'r'},
                                             {"undo", no_argument, 0, 'u'},     {"list", no_argument, 0, 'l'},
                                             {"help", no_argument, 0, 'h'},     {0, 0, 0, 0}};
    const char *db = NULL, *reason = NULL;
    int undo = 0, list = 0, c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        if (c == 'd') db = optarg;
        else if (c == 'r') reason = optarg;
        else if (c == 'u') undo = 1;
        else if (c == 'l') list = 1;
        else if (c == 'h') {
            printf("usage: harness exclude RUN... --reason TEXT [--db PATH]\n"
                   "       harness exclude RUN... --undo | harness exclude --list\n"
                   "  Takes runs out of the nightly history (harness regressions, plot nightly).\n"
                   "  RUN: a run id, build:COMMIT-PREFIX or nightly:N (as harness compare takes).\n");
            return EXIT_OK;
        } else return EXIT_USAGE;
    }
    if (!list && (optind == argc || (!undo && (!reason || !*reason)))) {
        fprintf(stderr, "harness exclude: give runs and --reason TEXT (or --undo, or --list)\n");
        return EXIT_USAGE;
    }
    int code;
    struct store *s = nightly_store_open("exclude", db, 1, &code);
    if (!s) return code;
    if (list) {
        int rc = exclusion_list(s);
        store_close(s);
        return rc;
    }
    int rc = EXIT_OK;
    for (int i = optind; i < argc && rc == EXIT_OK; i++) {
        char err[ERR_MAX] = "";
        int n = store_runs_exclude(s, argv[i], undo ? NULL : reason, err, sizeof err);
        if (n < 0) {
            fprintf(stderr, "harness exclude: %s\n", err);
            rc = n == -1 ? EXIT_USAGE : EXIT_FOUND;
        } else {
            printf("%s: %d run%s %s\n", argv[i], n, n == 1 ? "" : "s", undo ? "back in the history" : "excluded");
        }
    }
    store_close(s);
    return rc;
}
