/* harness probe (internal): one device's probe in a process of its own, for
 * a parent that must survive whatever the device's runtime does (see
 * core/probe_isolated.h). Prints its figures on standard output, one
 * "key value" line each, or "error why" and exits 1:
 *     harness probe peak SPEC [fp32]      copy GBS / fp32 GFLOPS | fp32_error WHY
 *     harness probe burn-in SPEC MIN MAX  burn CANARIES SECONDS GBS SPREAD STABLE
 *     harness probe launch-cost SPEC COUNTS LAUNCHES REPS WARMUP   row ... (launch_cost.h) */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "backend/launch_cost.h"
#include "backend/peak.h"
#include "base/util.h"
#include "cli/commands.h"
#include "core/devset.h"
#include "core/probe_isolated.h"
#include "track/burn_in.h"

/* The parent's channel: the real standard output (stdout itself goes to
 * stderr, so nothing a library prints can be taken for a figure). */
static FILE *answer;

static int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int fail(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("error ", answer);
    vfprintf(answer, fmt, ap);
    fputc('\n', answer);
    va_end(ap);
    return EXIT_FOUND;
}

static int probe_peak_child(const struct device_info *info, int fp32) {
    char err[ERR_MAX];
    struct dev *d = backend_by_name(info->backend)->open(info, err, sizeof err);
    if (!d) return fail("%s", err);
    probe_drill_abort(info->spec);
    double gbs = 0, gflops = 0;
    int rc = EXIT_OK;
    if (peak_copy_gbs(d, &gbs) != 0) rc = fail("copy: %.900s", d->err);
    else {
        fprintf(answer, "copy %.17g\n", gbs);
        if (fp32 && peak_fp32_gflops(d, &gflops) == 0) fprintf(answer, "fp32 %.17g\n", gflops);
        else if (fp32) fprintf(answer, "fp32_error %.400s\n", d->err);
    }
    d->ops->close(d);
    return rc;
}

static int probe_burn_child(const struct device_info *info, const char *min, const char *max) {
    probe_drill_abort(info->spec); /* burn_in opens the device itself */
    struct burn_result b;
    char err[ERR_MAX];
    if (burn_in(info, atof(min), atof(max), &b, err, sizeof err) != 0) return fail("%s", err);
    fprintf(answer, "burn %d %.17g %.17g %.17g %d\n", b.canaries, b.seconds, b.gbs, b.spread, b.stable);
    return EXIT_OK;
}

static int probe_launch_child(const struct device_info *info, char **argv) {
    struct launch_cost_opts o;
    launch_cost_defaults(&o);
    char err[4096];
    if (launch_cost_parse_counts(argv[0], &o, err, sizeof err) != 0) return fail("%s", err);
    o.launches = atol(argv[1]);
    o.reps = atoi(argv[2]);
    o.warmup = atoi(argv[3]);
    if (o.launches < 1 || o.reps < 1 || o.reps > LAUNCH_COST_MAX_REPS || o.warmup < 0)
        return fail("bad launch-cost arguments");
    struct dev *d = backend_by_name(info->backend)->open(info, err, sizeof err);
    if (!d) return fail("%s", err);
    probe_drill_abort(info->spec);
    struct launch_cost_row *rows = xcalloc(LAUNCH_COST_MAX_ROWS, sizeof *rows);
    const int n = launch_cost_measure(d, &o, rows, LAUNCH_COST_MAX_ROWS, err, sizeof err);
    d->ops->close(d);
    for (int i = 0; i < n; i++) launch_cost_row_write(answer, &rows[i]);
    free(rows);
    return n < 0 ? fail("%.3000s", err) : EXIT_OK;
}

int cmd_probe(int argc, char **argv) {
    const int help = argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"));
    if (argc < 3) {
        printf("usage: harness probe peak|burn-in|launch-cost SPEC [ARGS]\n"
               "  (internal) one device's probe in a process of its own; figures on standard output\n");
        return help ? EXIT_OK : EXIT_USAGE;
    }
    /* A probe outlives no parent: a killed command must not leave a device busy. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() == 1) return EXIT_FOUND;
    const int fd = dup(1);
    dup2(2, 1);
    if (fd < 0 || !(answer = fdopen(fd, "w"))) return EXIT_FOUND;
    const char *what = argv[1];
    struct device_info info;
    char err[ERR_MAX];
    int rc;
    if (strcmp(what, "peak") && !(!strcmp(what, "burn-in") && argc == 5) && !(!strcmp(what, "launch-cost") && argc == 7))
        rc = fail("unknown probe '%s' or wrong arguments", what);
    else if (device_find_one(argv[2], &info, err, sizeof err) != 0) rc = fail("%s", err);
    else if (!strcmp(what, "burn-in")) rc = probe_burn_child(&info, argv[3], argv[4]);
    else if (!strcmp(what, "launch-cost")) rc = probe_launch_child(&info, argv + 3);
    else rc = probe_peak_child(&info, argc > 3 && !strcmp(argv[3], "fp32"));
    fclose(answer);
    return rc;
}
