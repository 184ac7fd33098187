/* bin/harness: dispatch by a table of subcommands, as git does. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "progress.h"
#include "util.h"

struct command {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *summary;
};

static const struct command commands[] = {
    {"devices", cmd_devices, "list every device of every backend, with its fingerprint"},
    {"run", cmd_run, "run, verify and time configs; store every sample"},
    {"verify", cmd_verify, "every named variant on every device, on a shortened run"},
    {"peak", cmd_peak, "measure a device's copy bandwidth (its ceiling)"},
    {"report", cmd_report, "the app's published report (tables, figures) measured on these devices"},
    {"launch-cost", cmd_launch_cost, "time per kernel launch by number and kind of arguments"},
    {"results", cmd_results, "list recent measurements from the database"},
    {"export", cmd_export, "measurements as CSV or T4 JSON (Kernel Tuner, KTT, BAT)"},
    {"plot", cmd_plot, "plot wg: runtime per work-group shape (gnuplot PNG and SVG)"},
    {"tune", cmd_tune, "search work-group shapes on a device; store the best (or a tie)"},
    {"best", cmd_best, "list the tuned work-group shapes `run` uses by default"},
    {"sweep", cmd_sweep, "run a sweep file: every config isolated, verified, stored, resumable"},
    {"nightly", cmd_nightly, "the nightly suite and canary on every device, with telemetry"},
    {"compare", cmd_compare, "two sets of nights per series, on their rounds; exit 1 on a regression"},
    {"regressions", cmd_regressions, "change points in the nightly history, with triage states"},
    {"noise", cmd_noise, "the per-series noise model learned from nights of one build"},
    {"triage", cmd_triage, "set a change point's state: acknowledged, fixed, false-positive"},
    {"exclude", cmd_exclude, "take runs out of the nightly history, with a reason"},
    {"merge", cmd_merge, "merge result databases from several hosts into one"},
    {"worker", cmd_worker, "(internal) run configs sent by a sweep on standard input"},
};

static void usage(FILE *out) {
    fprintf(out, "usage: harness <command> [options]   (harness <command> --help for each)\n\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(out, "\n--quiet (with any command): no progress line and no notes, only results and errors.\n");
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

int main(int argc, char **argv) {
    argc = take_quiet(argc, argv);
    if (argc < 2) {
        usage(stderr);
        return EXIT_USAGE;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return EXIT_OK;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name)) return commands[i].fn(argc - 1, argv + 1);
    fprintf(stderr, "harness: unknown command '%s'\n\n", argv[1]);
    usage(stderr);
    return EXIT_USAGE;
}
