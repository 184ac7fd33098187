/* bin/harness: dispatch by a table of subcommands, as git does. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buildinfo.h"
#include "base/util.h"
#include "cli/commands.h"
#include "cli/json_out.h"
#include "core/cpu_counters.h"
#include "core/progress.h"

struct command {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *summary;
    /* Printed under the command's --help when its own text does not say
     * (NULL: it does), so every help states its exit codes. */
    const char *exits;
};

static const struct command commands[] = {
    {"devices", cmd_devices, "list every device of every backend, with its fingerprint",
     "0 listed (a backend with no device is a note), 2 bad usage."},
    {"run", cmd_run, "run, verify and time configs; store every sample",
     "0 every config verified, 1 a config failed (wrong, crashed, timed out) or a database problem, 2 bad usage or "
     "input, a database that cannot be opened included (nothing stored)."},
    {"verify", cmd_verify, "every named variant on every device, on a shortened run",
     "0 every variant verified (or invalid here, with its reason), 1 one was wrong, crashed or timed out, 2 bad usage "
     "or input."},
    {"peak", cmd_peak, "measure a device's copy bandwidth (its ceiling)",
     "0 measured, 1 a device failed, 2 bad usage."},
    {"report", cmd_report, "the app's published report (tables, figures) measured on these devices",
     "0 written, 1 a cell failed or no database (--from-db), 2 bad usage or a bad definition (nothing run)."},
    {"launch-cost", cmd_launch_cost, "time per kernel launch by number and kind of arguments",
     "0 measured, 1 a device failed, 2 bad usage."},
    {"results", cmd_results, "list recent measurements from the database",
     "0 listed, 1 no database, 2 bad usage or a file that is not a harness database."},
    {"export", cmd_export, "measurements as CSV or T4 JSON (Kernel Tuner, KTT, BAT)",
     "0 written, 1 no database or nothing matched, 2 bad usage or a file that is not a harness database."},
    {"plot", cmd_plot, "plot wg: runtime per work-group shape (gnuplot PNG and SVG)",
     "0 drawn, 1 nothing to draw, no database or no gnuplot, 2 bad usage or a file that is not a harness database."},
    {"publish", cmd_publish,
     "a static HTML site of the results (file://, no server): devices, variants, shapes, nights",
     "0 written, 1 no database, nothing measured in it or a page not written, 2 bad usage or a file that is not a "
     "harness database."},
    {"tune", cmd_tune, "search work-group shapes on a device; store the best (or a tie)", NULL},
    {"best", cmd_best, "list the tuned work-group shapes `run` uses by default",
     "0 listed, 1 no database, 2 bad usage or a file that is not a harness database."},
    {"sweep", cmd_sweep, "run a sweep file: every config isolated, verified, stored, resumable", NULL},
    {"nightly", cmd_nightly, "the nightly suite and canary on every device, with telemetry", NULL},
    {"compare", cmd_compare, "two sets of nights per series, on their rounds; exit 1 on a regression", NULL},
    {"regressions", cmd_regressions, "change points in the nightly history, with triage states", NULL},
    {"noise", cmd_noise, "the per-series noise model learned from nights of one build", NULL},
    {"triage", cmd_triage, "set a change point's state: acknowledged, fixed, false-positive",
     "0 set, 1 no database or a database problem, 2 bad usage, an unknown state or no such change point."},
    {"exclude", cmd_exclude, "take runs out of the nightly history, with a reason",
     "0 excluded, 1 no database or a database problem, 2 bad usage or no such run."},
    {"merge", cmd_merge, "merge result databases from several hosts into one",
     "0 merged, 1 a source could not be merged, 2 bad usage."},
    {"probe", cmd_probe, "(internal) one device's ceiling or launch cost in a process of its own",
     "0 measured, 1 it failed (an \"error\" line says why), 2 bad usage (internal: peak, report, nightly start it)."},
    {"worker", cmd_worker, "(internal) run configs sent by a sweep on standard input",
     "0 done, 2 bad usage (internal: sweeps start it)."},
};

static void usage(FILE *out) {
    fprintf(out, "usage: harness <command> [options]   (harness <command> --help for each)\n\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(out, "\n--quiet (with any command): no progress line and no notes, only results and errors.\n");
    fprintf(out, "-h, --help (with any command): its options and exit codes.  harness --version: the build.\n");
    fprintf(out, "--json (devices, results, best, compare, regressions, noise, launch-cost): the --csv rows as "
                 "JSON.\n");
    fprintf(out, "\nExit status: 0 success, 1 a failure found (wrong result, regression), 2 bad usage or input.\n");
}

/* `--quiet` anywhere before a `--` is the harness's, not the command's:
 * taken out of argv (so every command's option parser stays as it is) and
 * passed to child processes through HARNESS_QUIET. */
static int take_quiet(int argc, char **argv) {
    int k = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--")) {
            while (i < argc) argv[k++] = argv[i++];
            break;
        }
        if (!strcmp(argv[i], "--quiet")) harness_quiet = 1;
        else argv[k++] = argv[i];
    }
    argv[k] = NULL;
    const char *env = getenv("HARNESS_QUIET");
    if (env && *env && strcmp(env, "0")) harness_quiet = 1;
    if (harness_quiet) setenv("HARNESS_QUIET", "1", 1);
    return k;
}

/* The commands that print --csv, and so take --json (json_out.c). */
static int takes_json(const char *name) {
    static const char *const with_csv[] = {"devices",     "results", "best",       "compare",
                                           "regressions", "noise",   "launch-cost"};
    for (size_t i = 0; i < sizeof with_csv / sizeof with_csv[0]; i++)
        if (!strcmp(name, with_csv[i])) return 1;
    return 0;
}

/* -h is --help for every command (before a `--`); 1 when help is asked
 * for (argv[2..] rewritten in place). */
static int asks_help(int argc, char **argv) {
    int help = 0;
    for (int i = 2; i < argc && strcmp(argv[i], "--"); i++) {
        if (!strcmp(argv[i], "-h")) argv[i] = "--help";
        help |= !strcmp(argv[i], "--help");
    }
    return help;
}

int main(int argc, char **argv) {
    /* Before any runtime starts a thread: the counters follow the threads
     * started after them (a worker's OpenMP or PoCL pool). */
    cpu_counters_open();
    argc = take_quiet(argc, argv);
    if (argc < 2) {
        usage(stderr);
        return EXIT_USAGE;
    }
    if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
        const struct build_info *b = build_info_get();
        printf("harness %.12s%s\nbuilt by %s\n", b->commit, b->dirty ? " (with uncommitted changes)" : "", b->compiler);
        return EXIT_OK;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return EXIT_OK;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        if (strcmp(argv[1], commands[i].name)) continue;
        const int help = asks_help(argc, argv);
        struct json_capture jc = {0};
        const int json = !help && takes_json(argv[1]) && json_take(argc, argv) && json_capture(&jc) == 0;
        const int rc = commands[i].fn(argc - 1, argv + 1);
        /* A usage error's text stays text; results (0) and "nothing
         * found" or a regression (1) are data. */
        if (json) json_finish(&jc, rc == EXIT_OK || rc == EXIT_FOUND);
        if (help && rc == EXIT_OK && commands[i].exits) printf("\nExit status: %s\n", commands[i].exits);
        if (help && rc == EXIT_OK && takes_json(argv[1]))
            printf("--json: the --csv rows as a JSON array of objects (keys from the CSV header; empty fields "
                   "null).\n");
        return rc;
    }
    fprintf(stderr, "harness: unknown command '%s'\n\n", argv[1]);
    usage(stderr);
    return EXIT_USAGE;
}
