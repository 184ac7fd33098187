/* Is the host quiet enough to believe a measurement? Checked before and
 * after report, tune and a confirmation (and at the ends of a night): what
 * other processes do in an idle second (hostload.h), and each device's
 * canary (a copy-bandwidth measurement, peak.h) against the median of its
 * stored ones. Tried here: `report lbm --quick` under a CPU hog printed
 * OpenMP cells 40-100x slow and blamed the kernels; a report or a verdict
 * measured on a disturbed host must say so. */
#ifndef HARNESS_HOST_CHECK_H
#define HARNESS_HOST_CHECK_H
#include <stdio.h>

#include "store/store.h"

#define HOST_CHECK_CANARY_DROP 0.10 /* a canary this far below its usual is a disturbed device */
#define HOST_CHECK_MAX_DEVICES 16

struct host_check {
    double foreign_cores; /* other processes' CPU over an idle second */
    int ndev;
    struct {
        char spec[32];
        double gbs, usual; /* this canary; the median of the stored ones (0: none yet) */
    } dev[HOST_CHECK_MAX_DEVICES];
    int disturbed;
    char why[512]; /* what disturbed it, in words */
};

/* Measures the load, and a canary on each of the ndev devices (as a command
 * picked them: cli_host_check); ndev = 0 checks the load alone. */
void host_check(struct store *s, const struct device_info *devs, int ndev, struct host_check *out);
/* "quiet (other processes 0.02 cores; openmp copy 21.3 GB/s (99 % of usual))"
 * or "DISTURBED: ...". */
void host_check_words(const struct host_check *h, char *buf, size_t n);
/* "host before: " and the words, on a line. */
void host_check_print(FILE *out, const char *when, const struct host_check *h);
#endif
