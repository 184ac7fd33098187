/* harness launch-cost: microseconds per kernel launch against the number and
 * kind of arguments, per device (the report's Figure 1); the measurement is
 * launch_cost.c, this file parses options, prints and stores. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/launch_cost.h"
#include "base/util.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "core/probe_isolated.h"
#include "store/store.h"

static void usage(FILE *out) {
    fprintf(out,
            "usage: harness launch-cost [--device SPEC] [--launches N] [--reps R] [--warmup W]\n"
            "                           [--args N,N,...] [--db PATH] [--csv]\n"
            "\n"
            "Times N launches of a near-empty 1x1 kernel with n buffer arguments, then with n\n"
            "int arguments, for each n of --args: the launch() loop alone (enqueue) and until\n"
            "finish() returns. Prints microseconds per launch (median of R repetitions, IQR as\n"
            "%% of it) and stores every repetition (table launch_cost).\n"
            "\n"
            "  --device SPEC  as for run (default all)\n"
            "  --launches N   launches per repetition (default 50000)\n"
            "  --reps R       repetitions, 1..%d (default 5)\n"
            "  --warmup W     untimed launches per probe first (default 300)\n"
            "  --args LIST    argument counts, 0..%d (default 0,1,2,4,8,12,16,24,32)\n"
            "  --db PATH      results database (default %s)\n"
            "  --csv          one CSV line per device, kind and count instead of tables\n",
            LAUNCH_COST_MAX_REPS, KARG_MAX, store_default_path());
}

/* A whole positive number within [lo, hi], or exit-2 material. */
static int parse_long(const char *opt, const char *v, long lo, long hi, long *out) {
    long x;
    if (parse_whole(v, lo, hi, &x)) {
        fprintf(stderr, "harness launch-cost: %s '%s': expected a whole number in %ld..%ld\n", opt, v, lo, hi);
        return -1;
    }
    *out = x;
    return 0;
}

static double us(double seconds, long launches) { return seconds / (double)launches * 1e6; }

/* The spread as the IQR relative to the median, the noise figure the other
 * commands print. */
static double iqr_pct(double q1, double q3, double med) { return med > 0 ? 100.0 * (q3 - q1) / med : 0; }

static void print_table(const struct device_info *info, const struct launch_cost_row *rows, int n) {
    printf("%s  %s (%s)\n", info->spec, info->name, info->driver);
    if (n > 0) printf("  %d repetitions x %ld launches, 1x1 grid\n", rows[0].reps, rows[0].launches);
    printf("  %5s  %-6s  %12s %6s  %13s %6s\n", "nargs", "kind", "enqueue us", "IQR", "w/ finish us", "IQR");
    for (int i = 0; i < n; i++) {
        const struct launch_cost_row *r = &rows[i];
        printf("  %5d  %-6s  %12.3f %5.1f%%  %13.3f %5.1f%%\n", r->nargs, launch_cost_kind_name(r->kind),
               us(r->enqueue_median_s, r->launches), iqr_pct(r->enqueue_q1_s, r->enqueue_q3_s, r->enqueue_median_s),
               us(r->total_median_s, r->launches), iqr_pct(r->total_q1_s, r->total_q3_s, r->total_median_s));
    }
    fflush(stdout);
    /* A spread past 50 % of the median is not a figure to read (an IQR of
     * 4033 % was printed without a word): say so under the table. */
    double worst = 0;
    for (int i = 0; i < n; i++) {
        const double e = iqr_pct(rows[i].enqueue_q1_s, rows[i].enqueue_q3_s, rows[i].enqueue_median_s);
        if (e > worst) worst = e;
    }
    if (worst > 50)
        printf("  warning: an IQR up to %.0f%% of its median: these launches were disturbed (a busy host, a clock too"
               " coarse for --launches); measure again when the host is quiet, or with more --launches\n",
               worst);
}

static void print_csv_header(void) {
    printf("device,device_name,backend,fingerprint,kind,nargs,launches,reps,"
           "enqueue_us,enqueue_us_q1,enqueue_us_q3,total_us,total_us_q1,total_us_q3\n");
}

static void print_csv(const struct device_info *info, const struct launch_cost_row *rows, int n) {
    for (int i = 0; i < n; i++) {
        const struct launch_cost_row *r = &rows[i];
        csv_field(stdout, info->spec);
        fputc(',', stdout);
        csv_field(stdout, info->name);
        printf(",%s,%s,%s,%d,%ld,%d,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g\n", info->backend, info->fingerprint,
               launch_cost_kind_name(r->kind), r->nargs, r->launches, r->reps, us(r->enqueue_median_s, r->launches),
               us(r->enqueue_q1_s, r->launches), us(r->enqueue_q3_s, r->launches), us(r->total_median_s, r->launches),
               us(r->total_q1_s, r->launches), us(r->total_q3_s, r->launches));
    }
    fflush(stdout);
}

/* Measures, prints and stores one device; 0 or -1 (reported). */
static int one_device(const struct device_info *info, const struct launch_cost_opts *o, struct store *store,
                      const char *command, int csv, struct launch_cost_row *rows) {
    char err[4096];
    fprintf(stderr, "harness launch-cost: %s: %d probes x %d reps x %ld launches\n", info->spec,
            LAUNCH_COST_KINDS * o->ncounts, o->reps, o->launches);
    /* In a process of its own (probe_isolated.h): one device's runtime
     * failure costs its own table. */
    int n = probe_launch_cost(info, o, rows, LAUNCH_COST_MAX_ROWS, err, sizeof err);
    if (n < 0) {
        fprintf(stderr, "harness launch-cost: %s: %s\n", info->spec, err);
        return -1;
    }
    if (csv) print_csv(info, rows, n);
    else print_table(info, rows, n);
    int64_t run = store_run_begin(store, info, command, err, sizeof err);
    if (run < 0 || launch_cost_store(store, run, rows, n, err, sizeof err) != 0) {
        fprintf(stderr, "harness launch-cost: %s\n", err);
        return -1;
    }
    store_run_end(store, run);
    return 0;
}

int cmd_launch_cost(int argc, char **argv) {
    static const struct option longopts[] = {{"device", required_argument, 0, 'd'},
                                             {"launches", required_argument, 0, 'l'},
                                             {"reps", required_argument, 0, 'r'},
                                             {"warmup", required_argument, 0, 'w'},
                                             {"args", required_argument, 0, 'a'},
                                             {"db", required_argument, 0, 'b'},
                                             {"csv", no_argument, 0, 'c'},
                                             {"help", no_argument, 0, 'h'},
                                             {0, 0, 0, 0}};
    struct launch_cost_opts o;
    launch_cost_defaults(&o);
    const char *device = NULL, *db = NULL;
    int csv = 0, c;
    long v;
    char err[ERR_MAX];
    optind = 1;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case 'd': device = optarg; break;
        case 'b': db = optarg; break;
        case 'c': csv = 1; break;
        case 'l':
            if (parse_long("--launches", optarg, 1, 100000000, &v)) return EXIT_USAGE;
            o.launches = v;
            break;
        case 'r':
            if (parse_long("--reps", optarg, 1, LAUNCH_COST_MAX_REPS, &v)) return EXIT_USAGE;
            o.reps = (int)v;
            break;
        case 'w':
            if (parse_long("--warmup", optarg, 0, 100000000, &v)) return EXIT_USAGE;
            o.warmup = (int)v;
            break;
        case 'a':
            if (launch_cost_parse_counts(optarg, &o, err, sizeof err) != 0) {
                fprintf(stderr, "harness launch-cost: bad --args: %s\n", err);
                return EXIT_USAGE;
            }
            break;
        case 'h': usage(stdout); return EXIT_OK;
        default: usage(stderr); return EXIT_USAGE;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "harness launch-cost: unexpected argument '%s'\n", argv[optind]);
        usage(stderr);
        return EXIT_USAGE;
    }
    struct device_pick pick;
    int rc = cli_devices(device, &pick);
    if (rc) return rc;
    struct store *store = store_open(db ? db : store_default_path(), err, sizeof err);
    if (!store) {
        fprintf(stderr, "harness launch-cost: %s\n", err);
        cli_devices_free(&pick);
        /* A database that cannot be opened (corrupt, or in a place that cannot be written) is bad input: exit 2. */
        return EXIT_USAGE;
    }
    char command[1024];
    cli_command_line(argc, argv, command, sizeof command);
    struct launch_cost_row *rows = xcalloc(LAUNCH_COST_MAX_ROWS, sizeof *rows);
    int failures = 0;
    if (csv) print_csv_header();
    for (int i = 0; i < pick.count; i++) {
        if (!csv && i) putchar('\n');
        failures += one_device(&pick.all[pick.idx[i]], &o, store, command, csv, rows) != 0;
    }
    free(rows);
    store_close(store);
    cli_devices_free(&pick);
    return failures ? EXIT_FOUND : EXIT_OK;
}
