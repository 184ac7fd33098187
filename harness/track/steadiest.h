/* On a CPU the wall time of a repetition carries everything else the host
 * did meanwhile (a preempted repetition waits); the process's CPU time and
 * its cycles carry much less of it. The gate judges a CPU series by the
 * steadiest of them that still tracks its time: CPU seconds and cycles are
 * time the code ran, so a slower code moves them; instructions retired are
 * stored and shown but never judge, as a code that stalls on memory more
 * runs the same instructions slower. "Steadiest" is the one whose comparison
 * sees the smallest change (compare_detectable), measured on these very
 * nights and the measure's own history; a change the wall time flags stands
 * whatever the counters say (a lost thread, a wait: compare_row_steadiest).
 * A GPU series likewise by its device events' time where that is steadier
 * (issue 22's item 7): the time between the events the backend records
 * around each repetition, in the device's own queue, so the host's jitter
 * in starting and finishing a repetition is not in it while a slower kernel
 * (or a longer gap between launches) is. */
#ifndef HARNESS_STEADIEST_H
#define HARNESS_STEADIEST_H
#include <stddef.h>

#include "store/store.h"
#include "track/compare.h"

/* Re-judges the CPU and GPU rows of rows[0..n) (paired from the runs in
 * temp.<table_a> and temp.<table_b> by wall time) by the steadiest measure;
 * `before` is the noise models' cut (noise.h). 0, or -1 with err. */
int compare_steadiest(struct store *store, const char *table_a, const char *table_b, const char *before,
                      const struct compare_params *p, struct compare_row *rows, int n, char *err, size_t errn);
#endif
