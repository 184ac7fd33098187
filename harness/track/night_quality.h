/* Bad nights: a night whose canary (each device's copy bandwidth) is off its
 * history, whose GPUs reported thermal or power throttling, or during most
 * of whose rounds other processes kept the host busy, measured the host and
 * not the code. It is marked (nightly.quality "disturbed: why"), for the
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

/* Judges nightly `id` against the nights before it and stores the verdict.
 * 1 when disturbed (why in quality; the devices it touched in `devices`:
 * specs comma-separated, or "*" every one), 0 when ok, -1 on a database error. */
int night_quality(struct store *s, int64_t id, char *quality, size_t n, char *devices, size_t dn);
#endif
