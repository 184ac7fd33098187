/* What `harness sweep` asks the store before it measures: whether a config
 * was measured already with this build on this device (a re-run skips it,
 * or finishes the rounds a killed sweep left short). */
#ifndef HARNESS_STORE_SWEEP_H
#define HARNESS_STORE_SWEEP_H
#include <stdint.h>

#include "store/store.h"

/* The newest measurement of a config and how far its rounds got. */
struct earlier_measurement {
    int64_t mid, run_id;
    int rounds, rounds_done, ok; /* ok: its status is ok or unverified */
};
/* The newest measurement of m's config (app, input, knobs, shape, steps) with
 * this binary's build on dev. 1 found, 0 none (or a database error). */
int store_latest_measurement(struct store *s, const struct device_info *dev, const struct measurement *m,
                             struct earlier_measurement *e);
#endif
