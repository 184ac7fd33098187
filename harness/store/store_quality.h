/* What judging a night's quality reads (track/night_quality.h): its canaries
 * against the nights before, its telemetry, how busy the host was in its
 * rounds; and where the verdict goes (nightly.quality, and the devices it
 * touched: nightly.disturbed_devices). */
#ifndef HARNESS_STORE_QUALITY_H
#define HARNESS_STORE_QUALITY_H
#include <stddef.h>
#include <stdint.h>

struct store;

#define STORE_CANARY_PAST 7 /* nights a canary is held against */

/* A value of nightly id with the same thing's values on the last
 * STORE_CANARY_PAST nights before it (newest first), disturbed ones too:
 * held against clean nights only, a canary that moved for good (a new
 * driver, a host that settled elsewhere) would be "off" on every night
 * after; against the median of all, it is off for the nights until half of
 * them moved. spec (the device) lives only during the call. */
struct store_past {
    const char *spec;
    double now;
    double past[STORE_CANARY_PAST];
    int npast;
};
typedef void (*store_past_fn)(const struct store_past *r, void *ctx);

/* Every canary (copy_gbs > 0) of nightly id: now is its copy GB/s. 0, or -1
 * on a database error. */
int store_nightly_canaries(struct store *s, int64_t id, store_past_fn fn, void *ctx);
/* Every verified series of nightly id: now is its spread, the measurement's
 * IQR over its median (every round's samples together), against the same
 * series' on the device. 0, or -1 on a database error. */
int store_nightly_spreads(struct store *s, int64_t id, store_past_fn fn, void *ctx);

/* Nightly id's telemetry text (malloc'd), or NULL when it has none. */
char *store_nightly_telemetry(struct store *s, int64_t id);

/* The rounds of a nightly's runs (round_state): how many, how many were
 * disturbed, and the most cores other processes and the hypervisor took. */
struct store_round_load {
    int rounds, disturbed;
    double foreign_cores, steal_cores;
};
/* 0, or -1 on a database error. */
int store_nightly_round_load(struct store *s, int64_t id, struct store_round_load *out);

/* Stores nightly id's verdict ("ok" or "disturbed: why") and the devices it
 * touched (specs, comma-separated; "*" all; NULL or "" none). 0, or -1. */
int store_nightly_quality(struct store *s, int64_t id, const char *quality, const char *devices);
/* How many of nightly id's series the gate could not judge at its target
 * (nightly.inconclusive). 0, or -1 with err. */
int store_nightly_inconclusive(struct store *s, int64_t id, int count, char *err, size_t errn);

/* The gate's verdict on one series of a night (nightly_verdict). */
struct store_night_verdict {
    const char *series, *verdict, *measure, *confirmation;
    double ratio, detectable, target; /* NAN: unknown */
};
/* Stores (or replaces) one. 0, or -1 with err. */
int store_nightly_verdict_put(struct store *s, int64_t nightly_id, const struct store_night_verdict *v, char *err,
                              size_t errn);
/* Every stored verdict of a series, by night: fn gets the nightly id and the
 * row (strings live during the call). 0, or -1 on a database error. */
typedef void (*store_night_verdict_fn)(int64_t nightly_id, const struct store_night_verdict *v, void *ctx);
int store_nightly_verdicts(struct store *s, const char *series, store_night_verdict_fn fn, void *ctx);
/* The inconclusive verdicts of the latest night that has verdicts (fn as
 * above, series set). Returns that night's id, 0 when none has, -1 on a
 * database error. */
int64_t store_latest_inconclusive(struct store *s, store_night_verdict_fn fn, void *ctx);
#endif
