/* harness peak: a device's own ceiling, measured as BabelStream does: a
 * large device-to-device copy, bytes read plus bytes written over the
 * median time of many copies. Stored per device fingerprint; every GB/s the
 * harness prints afterwards carries "% of peak". */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "stats.h"
#include "store.h"
#include "util.h"

#define PEAK_REPS 20

/* Big enough to defeat every cache (H100 L2 50 MB, CPU L3 tens of MB),
 * small enough to fit any device. */
static size_t copy_bytes(const struct device_info *info) {
    size_t bytes = strcmp(info->kind, "gpu") == 0 ? (size_t)1 << 30 : (size_t)256 << 20;
    if (info->max_alloc && bytes > info->max_alloc / 2) bytes = info->max_alloc / 2;
    if (info->global_mem && bytes > info->global_mem / 8) bytes = info->global_mem / 8;
    return bytes & ~(size_t)4095;
}

static int measure_copy(struct dev *d, double *gbs) {
    const size_t bytes = copy_bytes(&d->info);
    struct buf *a = d->ops->alloc(d, bytes), *b = a ? d->ops->alloc(d, bytes) : NULL;
    if (!b) {
        d->ops->buf_free(d, a);
        return -1;
    }
    char *fill = xcalloc(1, bytes); /* initialised memory: no lazy zero pages on the CPU */
    memset(fill, 1, bytes);
    int rc = d->ops->write(d, a, 0, bytes, fill) || d->ops->write(d, b, 0, bytes, fill);
    free(fill);
    double t[PEAK_REPS];
    for (int r = -2; r < PEAK_REPS && !rc; r++) { /* two untimed warm-ups */
        double dev_s = 0;
        rc = d->ops->mark(d, 0) || d->ops->copy(d, b, a, bytes) || d->ops->mark(d, 1) ||
             d->ops->finish(d) || d->ops->elapsed(d, &dev_s);
        if (r >= 0) t[r] = dev_s;
    }
    d->ops->buf_free(d, a);
    d->ops->buf_free(d, b);
    if (rc) return -1;
    *gbs = 2.0 * (double)bytes / stats_median(t, PEAK_REPS) / 1e9;
    return 0;
}

int cmd_peak(int argc, char **argv) {
    static const struct option longopts[] = {
        {"device", required_argument, 0, 'd'}, {"db", required_argument, 0, 'b'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    const char *device = NULL, *db = NULL;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        if (c == 'd') device = optarg;
        else if (c == 'b') db = optarg;
        else if (c == 'h') {
            printf("usage: harness peak [--device SPEC] [--db PATH]\n"
                   "  Measures each device's copy bandwidth (read + write bytes, median of %d copies).\n", PEAK_REPS);
            return EXIT_OK;
        } else return EXIT_USAGE;
    }
    struct device_pick pick;
    int rc = cli_devices(device, &pick);
    if (rc) return rc;
    char err[1024];
    struct store *store = store_open(db ? db : store_default_path(), err, sizeof err);
    if (!store) {
        fprintf(stderr, "harness: %s\n", err);
        cli_devices_free(&pick);
        return EXIT_FOUND;
    }
    int failures = 0;
    for (int i = 0; i < pick.count; i++) {
        const struct device_info *info = &pick.all[pick.idx[i]];
        struct dev *d = backend_by_name(info->backend)->open(info, err, sizeof err);
        double gbs = 0;
        if (!d || measure_copy(d, &gbs) != 0) {
            fprintf(stderr, "harness: %s: %s\n", info->spec, d ? d->err : err);
            failures++;
        } else {
            printf("%-11s %-40.40s copy %.1f GB/s (%.0f MiB buffers, read+write)\n", info->spec, info->name,
                   gbs, (double)copy_bytes(info) / 1048576.0);
            if (store_peak_put(store, info, gbs, 0, err, sizeof err) != 0) fprintf(stderr, "harness: %s\n", err);
        }
        if (d) d->ops->close(d);
    }
    store_close(store);
    cli_devices_free(&pick);
    return failures ? EXIT_FOUND : EXIT_OK;
}
