/* Bad nights: a night whose canary (each device's copy bandwidth) is off its
 * history, whose series on a device were far noisier than they usually are
 * (the series' own spread: the median over a device's series of tonight's
 * IQR/median against its usual, NIGHT_SPREAD_RATIO or more), whose GPUs
 * reported thermal or power throttling, or during most of whose rounds
 * other processes kept the host busy, measured the host and not the code. It is marked (nightly.quality "disturbed: why"), for the
 * devices it touched: a canary off its history for its own device (a CPU
 * canary that swings on a busy host excuses no GPU series), throttling and a
 * busy host for every device. On those devices its flags are not reported as
 * the code's, and the noise model and the change-point history leave it out. */
#ifndef HARNESS_NIGHT_QUALITY_H
#define HARNESS_NIGHT_QUALITY_H
#include <stddef.h>
#include <stdint.h>

struct store;

#define NIGHT_CANARY_OFF 0.10  /* a canary this far from its usual (or 4x its noise) */
#define NIGHT_LOADED_SHARE 0.5 /* this share of disturbed rounds */
#define NIGHT_SPREAD_RATIO 3.0 /* a device's series this many times their usual spread (median over series) */
#define NIGHT_SPREAD_FLOOR 0.005 /* a usual spread below 0.5 % counts as 0.5 %: a quiet series is not off at 1.5 % */
#define NIGHT_SPREAD_SERIES 2    /* series with a history a device needs to be judged on spread */

/* Judges nightly `id` against the nights before it and stores the verdict.
 * 1 when disturbed (why in quality; the devices it touched in `devices`:
 * specs comma-separated, or "*" every one), 0 when ok, -1 on a database error. */
int night_quality(struct store *s, int64_t id, char *quality, size_t n, char *devices, size_t dn);
#endif
