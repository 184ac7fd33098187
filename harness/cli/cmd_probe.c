/* harness probe (internal): one device's probe in a process of its own, for
 * a parent that must survive whatever the device's runtime does (see
 * core/probe_isolated.h). Prints its figures on standard output, one
 * "key value" line each, or "error why" and exits 1:
 *     harness probe peak SPEC [fp32]      copy GBS / fp32 GFLOPS | fp32_error WHY
 *     harness probe copy SPEC             copy GBS
 *     harness probe burn-in SPEC MIN MAX  burn CANARIES SECONDS GBS SPREAD STABLE
 *     harness probe launch-cost SPEC COUNTS LAUNCHES REPS WARMUP   row ... (launch_cost.h) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <signal.h>
#include <unistd.h>

#include "burn_in.h"
#include "commands.h"
#include "devset.h"
#include "launch_cost.h"
#include "peak.h"
#include "probe_isolated.h"
#include "util.h"

static int fail(const char *fmt, const char *a, const char *b) {
    printf("error ");
    printf(fmt, a, b);
    printf("\n");
    return EXIT_FOUND;
}

/* The one device that spec names, opened; NULL after fail(). */
static struct dev *open_one(const char *spec, struct device_info *info) {
    char err[1024];
    if (device_find_one(spec, info, err, sizeof err) != 0) {
        fail("%s%s", err, "");
        return NULL;
    }
    struct dev *d = backend_by_name(info->backend)->open(info, err, sizeof err);
    if (!d) fail("%s%s", err, "");
    else probe_drill_abort(spec);
    return d;
}

static int probe_peak_child(struct dev *d, int fp32) {
    double gbs = 0, gflops = 0;
    if (peak_copy_gbs(d, &gbs) != 0) return fail("copy: %.900s%s", d->err, "");
    printf("copy %.17g\n", gbs);
    if (fp32) {
        if (peak_fp32_gflops(d, &gflops) == 0) printf("fp32 %.17g\n", gflops);
        else printf("fp32_error %.400s\n", d->err);
    }
    return EXIT_OK;
}

static int probe_burn_child(const struct device_info *info, struct dev *d, const char *min, const char *max) {
    /* burn_in opens the device itself: this process's copy is closed first. */
    d->ops->close(d);
    struct burn_result b;
    char err[512];
    if (burn_in(info, atof(min), atof(max), &b, err, sizeof err) != 0) return fail("%s%s", err, "");
    printf("burn %d %.17g %.17g %.17g %d\n", b.canaries, b.seconds, b.gbs, b.spread, b.stable);
    return EXIT_OK;
}

static int probe_launch_child(struct dev *d, char **argv) {
    struct launch_cost_opts o;
    launch_cost_defaults(&o);
    char err[4096];
    if (launch_cost_parse_counts(argv[0], &o, err, sizeof err) != 0) return fail("%s%s", err, "");
    o.launches = atol(argv[1]);
    o.reps = atoi(argv[2]);
    o.warmup = atoi(argv[3]);
    if (o.launches < 1 || o.reps < 1 || o.reps > LAUNCH_COST_MAX_REPS || o.warmup < 0)
        return fail("bad launch-cost arguments%s%s", "", "");
    struct launch_cost_row *rows = xcalloc(LAUNCH_COST_MAX_ROWS, sizeof *rows);
    int n = launch_cost_measure(d, &o, rows, LAUNCH_COST_MAX_ROWS, err, sizeof err);
    if (n < 0) fail("%.3000s%s", err, "");
    for (int i = 0; i < n; i++) launch_cost_row_write(stdout, &rows[i]);
    free(rows);
    return n < 0 ? EXIT_FOUND : EXIT_OK;
}

int cmd_probe(int argc, char **argv) {
    if (argc < 3 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        printf("usage: harness probe peak|copy|burn-in|launch-cost SPEC [ARGS]\n"
               "  (internal) one device's probe in a process of its own; figures on standard output\n");
        return argc < 3 && !(argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) ? EXIT_USAGE
                                                                                                   : EXIT_OK;
    }
    /* A probe outlives no parent: a killed command must not leave a device busy. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() == 1) return EXIT_FOUND;
    /* Only the figures reach the parent: what a library prints goes to stderr. */
    int out_fd = dup(1);
    dup2(2, 1);
    FILE *out = fdopen(out_fd, "w");
    if (!out) return EXIT_FOUND;
    stdout = out;
    const char *what = argv[1], *spec = argv[2];
    int known = !strcmp(what, "peak") || !strcmp(what, "copy") || (!strcmp(what, "burn-in") && argc == 5) ||
                (!strcmp(what, "launch-cost") && argc == 7);
    int rc;
    struct device_info info;
    struct dev *d = NULL;
    if (!known) rc = fail("unknown probe '%s' or wrong arguments%s", what, "");
    else if (!(d = open_one(spec, &info))) rc = EXIT_FOUND;
    else if (!strcmp(what, "burn-in")) {
        rc = probe_burn_child(&info, d, argv[3], argv[4]);
        d = NULL;
    } else if (!strcmp(what, "launch-cost")) rc = probe_launch_child(d, argv + 3);
    else rc = probe_peak_child(d, !strcmp(what, "peak") && argc > 3 && !strcmp(argv[3], "fp32"));
    if (d) d->ops->close(d);
    fflush(out);
    return rc;
}
