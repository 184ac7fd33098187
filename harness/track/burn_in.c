/* burn_in.h. */
#include "track/burn_in.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backend/peak.h"
#include "base/util.h"
#include "core/probe_isolated.h"
#include "stats/stats.h"

int burn_in(const struct device_info *dev, double min_s, double max_s, struct burn_result *out, char *err,
            size_t errn) {
    memset(out, 0, sizeof *out);
    double start = clock_now(), last[3] = {0};
    struct dev *d = backend_by_name(dev->backend)->open(dev, err, errn);
    if (!d) return -1;
    int rc = 0;
    for (;;) {
        double gbs = 0;
        if (peak_copy_gbs(d, &gbs) != 0) {
            rc = err_set(err, errn, "%s", d->err);
            break;
        }
        last[out->canaries++ % 3] = gbs;
        out->gbs = gbs;
        out->seconds = clock_now() - start;
        if (out->canaries >= 3) {
            double sorted[3] = {last[0], last[1], last[2]};
            double med = stats_median(sorted, 3);
            double lo = fmin(last[0], fmin(last[1], last[2])), hi = fmax(last[0], fmax(last[1], last[2]));
            out->spread = med > 0 ? (hi - lo) / med : INFINITY;
            out->stable = out->spread <= BURN_STABLE;
            if (out->stable && out->seconds >= min_s) break;
        }
        if (out->seconds >= max_s) {
            out->stable = 0;
            break;
        }
    }
    d->ops->close(d);
    return rc;
}

/* burn_in in `harness probe burn-in` (probe_isolated.h): a runtime that
 * aborts costs this device's line, never the night. */
static int burn_in_isolated(const struct device_info *dev, double min_s, double max_s, struct burn_result *out,
                            char *err, size_t errn) {
    memset(out, 0, sizeof *out);
    char lo[32], hi[32];
    snprintf(lo, sizeof lo, "%.3f", min_s);
    snprintf(hi, sizeof hi, "%.3f", max_s);
    const char *args[] = {lo, hi, NULL};
    struct strbuf text = {0};
    int rc = probe_isolated(dev, "burn-in", args, max_s + PROBE_TIMEOUT_S, &text, err, errn);
    const char *line = rc == 0 && text.s ? strstr(text.s, "burn ") : NULL;
    if (rc == 0 && (!line || sscanf(line, "burn %d %lg %lg %lg %d", &out->canaries, &out->seconds, &out->gbs,
                                    &out->spread, &out->stable) != 5))
        rc = err_set(err, errn, "its probe reported no burn-in");
    sb_free(&text);
    return rc;
}

int burn_in_devices(const struct device_info *devs, int n, double min_s, double max_s, FILE *log) {
    int unsettled = 0;
    for (int i = 0; i < n; i++) {
        const struct device_info *dev = &devs[i];
        struct burn_result b;
        char err[ERR_MAX];
        /* The bound is the whole burn-in's: each device gets its share. */
        double share = max_s / n;
        if (burn_in_isolated(dev, min_s < share ? min_s : share, share, &b, err, sizeof err) != 0) {
            if (log) fprintf(log, "burn-in %s: %s\n", dev->spec, err);
            unsettled++;
            continue;
        }
        unsettled += !b.stable;
        if (log && b.canaries < 3)
            fprintf(log, "burn-in %s: %d canar%s in %.1f s (the bound), too few to call it steady; last %.1f GB/s\n",
                    dev->spec, b.canaries, b.canaries == 1 ? "y" : "ies", b.seconds, b.gbs);
        else if (log)
            fprintf(log, "burn-in %s: %d canaries in %.1f s, %s at %.1f GB/s (last three within %.1f %%)\n", dev->spec,
                    b.canaries, b.seconds, b.stable ? "steady" : "NOT steady", b.gbs, 100 * b.spread);
    }
    return unsettled;
}
