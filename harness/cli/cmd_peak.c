/* harness peak: a device's own ceiling, measured as BabelStream does: a
 * large device-to-device copy, bytes read plus bytes written over the
 * median time of many copies. Stored per device fingerprint; every GB/s the
 * harness prints afterwards carries "% of peak". */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/peak.h"
#include "base/util.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "core/devset.h"
#include "core/probe_isolated.h"
#include "store/store.h"

int cmd_peak(int argc, char **argv) {
    static const struct option longopts[] = {{"device", required_argument, 0, 'd'},
                                             {"db", required_argument, 0, 'b'},
                                             {"help", no_argument, 0, 'h'},
                                             {0, 0, 0, 0}};
    const char *device = NULL, *db = NULL;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        if (c == 'd') device = optarg;
        else if (c == 'b') db = optarg;
        else if (c == 'h') {
            printf("usage: harness peak [--device SPEC] [--db PATH]\n"
                   "  Measures each device's copy bandwidth (read + write bytes, median of %d copies).\n",
                   PEAK_REPS);
            return EXIT_OK;
        } else return EXIT_USAGE;
    }
    struct device_pick pick;
    int rc = cli_devices(device, &pick);
    if (rc) return rc;
    /* A device set has no ceiling of its own (its members have theirs):
     * asking for one is bad usage, refused before anything is measured. */
    for (int i = 0; i < pick.count; i++)
        if (devset_is(&pick.all[pick.idx[i]])) {
            fprintf(stderr, "harness: %s is a device set: peak measures one device (name its members one by one)\n",
                    pick.all[pick.idx[i]].spec);
            cli_devices_free(&pick);
            return EXIT_USAGE;
        }
    char err[ERR_MAX];
    struct store *store = store_open(db ? db : store_default_path(), err, sizeof err);
    if (!store) {
        fprintf(stderr, "harness: %s\n", err);
        cli_devices_free(&pick);
        /* A database that cannot be opened (corrupt, or in a place that cannot be written) is bad input: exit 2. */
        return EXIT_USAGE;
    }
    int failures = 0;
    for (int i = 0; i < pick.count; i++) {
        const struct device_info *info = &pick.all[pick.idx[i]];
        /* Each device in a process of its own (probe_isolated.h): one
         * runtime's failure costs its own line, never the others'. */
        struct probe_peak p;
        if (probe_peak(info, 1, &p, err, sizeof err) != 0) {
            fprintf(stderr, "harness: %s: %s\n", info->spec, err);
            failures++;
        } else {
            /* The FP32 rate is best effort: a device that cannot build the
             * probe still has its bandwidth. */
            if (p.fp32_err[0]) fprintf(stderr, "harness: %s: FP32 probe: %.200s\n", info->spec, p.fp32_err);
            printf("%-11s %-40.40s copy %.1f GB/s (%.0f MiB buffers, read+write); FP32 %.0f GFLOP/s\n", info->spec,
                   info->name, p.gbs, (double)peak_copy_bytes(info) / 1048576.0, p.gflops);
            fflush(stdout);
            if (store_peak_put(store, info, p.gbs, p.gflops, err, sizeof err) != 0) {
                fprintf(stderr, "harness: %s\n", err);
                failures++;
            }
        }
    }
    store_close(store);
    cli_devices_free(&pick);
    return failures ? EXIT_FOUND : EXIT_OK;
}
