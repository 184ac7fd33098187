/* The nightly row `harness nightly` writes: begun before its children run,
 * then linked to the runs and canary peaks they stored and closed. The
 * tables are store_nightly.h's. */
#ifndef HARNESS_STORE_NIGHTLY_RUN_H
#define HARNESS_STORE_NIGHTLY_RUN_H
#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

/* The newest run's and peak's ids (0 when none): the children's rows are
 * those after the marks taken before them. */
int64_t store_last_run_id(struct store *s);
int64_t store_last_peak_id(struct store *s);
/* Starts a nightly of this host: the suites' names, the telemetry at the
 * start, the kept build's hash ("" or NULL: none) and the rounds. *id is the
 * new row's; 0, or -1 (store_errmsg says why). */
int store_nightly_begin(struct store *s, const char *suites, const char *telemetry, const char *hash, int rounds,
                        int64_t *id);
/* Links the runs in (run0, run1] and the peaks in (peak0, peak1] to nightly
 * id and closes it with status and the telemetry at the end (appended), in
 * one transaction. 0, or -1 with err. */
int store_nightly_end(struct store *s, int64_t id, int status, const char *telemetry, int64_t run0, int64_t run1,
                      int64_t peak0, int64_t peak1, char *err, size_t errn);
#endif
