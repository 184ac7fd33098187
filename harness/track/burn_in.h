/* Warm before measuring. A freshly started host measured its first night
 * 10-31 % slower than its second (GPU clocks and power states, caches, the
 * host's own start-up work): a cold host must not read as a change. Before
 * a night or a confirmation measures, each device runs its canary (the copy
 * bandwidth, peak.h) again and again until the last three agree within
 * BURN_STABLE and at least min_s have passed, for at most max_s. */
#ifndef HARNESS_BURN_IN_H
#define HARNESS_BURN_IN_H
#include <stdio.h>

#include "backend/backend.h"

#define BURN_STABLE 0.02

struct burn_result {
    int canaries;   /* copy measurements made */
    double seconds; /* how long it took */
    double gbs;     /* the last canary */
    double spread;  /* (max - min) / median of the last three */
    int stable;     /* 1 when it settled within the time */
};

/* Burns one device in. 0, or -1 with err (the device did not open or copy). */
int burn_in(const struct device_info *dev, double min_s, double max_s, struct burn_result *out, char *err, size_t errn);
/* Each of the n devices (as a command picked them: cli_burn_in), max_s for
 * all of them together (each its share); one line each on log. Returns how
 * many did not settle. */
int burn_in_devices(const struct device_info *devs, int n, double min_s, double max_s, FILE *log);
#endif
