/* A person's decisions about the history: `harness triage` sets a change
 * point's state, `harness exclude` takes runs out of the history with a
 * reason (and --undo puts them back). `harness regressions` honours both. */
#include <errno.h>
#include <getopt.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "store.h"
#include "store_nightly.h"
#include "util.h"

static const char *const states[] = {"detected", "acknowledged", "fixed", "false-positive"};

int cmd_triage(int argc, char **argv) {
    static const struct option longopts[] = {{"db", required_argument, 0, 'd'}, {"note", required_argument, 0, 'n'},
                                             {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
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
    if (!s) return EXIT_USAGE;
    sqlite3 *d = store_db(s);
    sqlite3_stmt *st = NULL;
    int rc = EXIT_FOUND;
    if (sqlite3_prepare_v2(d, "UPDATE change_point SET triage = ?1, note = COALESCE(?2, note) WHERE id = ?3", -1, &st,
                           NULL) == SQLITE_OK) {
        sqlite3_bind_text(st, 1, state, -1, SQLITE_STATIC);
        if (note) sqlite3_bind_text(st, 2, note, -1, SQLITE_STATIC);
        else sqlite3_bind_null(st, 2);
        sqlite3_bind_int64(st, 3, id);
        if (sqlite3_step(st) != SQLITE_DONE) fprintf(stderr, "harness triage: %s\n", sqlite3_errmsg(d));
        else if (sqlite3_changes(d) == 0) fprintf(stderr, "harness triage: no change point %lld\n", id), rc = EXIT_USAGE;
        else printf("change point %lld: %s\n", id, state), rc = EXIT_OK;
    }
    sqlite3_finalize(st);
    store_close(s);
    return rc;
}

static int exclusion_list(sqlite3 *d) {
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(d, "SELECT e.run_id, e.excluded_at, COALESCE(dv.spec, '?'), COALESCE(r.started_at, '?'), e.reason"
                              " FROM run_exclusion e LEFT JOIN run r ON r.id = e.run_id"
                              " LEFT JOIN device dv ON dv.id = r.device_id ORDER BY e.run_id",
                           -1, &st, NULL) != SQLITE_OK)
        return EXIT_FOUND;
    int n = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        if (!n++) printf("%6s  %-11s  %-19s  %s\n", "run", "device", "run started", "reason");
        printf("%6lld  %-11s  %-19.19s  %s\n", (long long)sqlite3_column_int64(st, 0), sqlite3_column_text(st, 2),
               sqlite3_column_text(st, 3), sqlite3_column_text(st, 4));
    }
    sqlite3_finalize(st);
    if (!n) printf("no runs excluded\n");
    return EXIT_OK;
}

int cmd_exclude(int argc, char **argv) {
    static const struct option longopts[] = {{"db", required_argument, 0, 'd'},  {"reason", required_argument, 0, 'r'},
                                             {"undo", no_argument, 0, 'u'},      {"list", no_argument, 0, 'l'},
                                             {"help", no_argument, 0, 'h'},      {0, 0, 0, 0}};
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
    if (!s) return EXIT_USAGE;
    sqlite3 *d = store_db(s);
    if (list) {
        int rc = exclusion_list(d);
        store_close(s);
        return rc;
    }
    int rc = EXIT_OK;
    for (int i = optind; i < argc && rc == EXIT_OK; i++) {
        char err[512];
        int n = runset_resolve(d, argv[i], "excl", err, sizeof err);
        if (n <= 0) {
            fprintf(stderr, "harness exclude: %s\n", err);
            rc = EXIT_USAGE;
            break;
        }
        sqlite3_stmt *st = NULL;
        const char *sql = undo ? "DELETE FROM run_exclusion WHERE run_id IN (SELECT run_id FROM temp.excl)"
                               : "INSERT OR REPLACE INTO run_exclusion(run_id, reason) SELECT run_id, ?1 FROM temp.excl";
        if (sqlite3_prepare_v2(d, sql, -1, &st, NULL) != SQLITE_OK) {
            rc = EXIT_FOUND;
            break;
        }
        if (!undo) sqlite3_bind_text(st, 1, reason, -1, SQLITE_STATIC);
        if (sqlite3_step(st) != SQLITE_DONE) {
            fprintf(stderr, "harness exclude: %s\n", sqlite3_errmsg(d));
            rc = EXIT_FOUND;
        } else {
            printf("%s: %d run%s %s\n", argv[i], n, n == 1 ? "" : "s", undo ? "back in the history" : "excluded");
        }
        sqlite3_finalize(st);
    }
    store_close(s);
    return rc;
}
